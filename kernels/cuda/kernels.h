// microddp CUDA kernels: the device twins of kernels/cpu/kernels.h, with the
// SAME numeric rules bit for bit (read that header: float32 math for
// float16 / bfloat16 rounded once to nearest even, NaN-propagating min / max
// keeping dst on ties and on a NaN dst, wrapping int32 / int64 sum and prod,
// avg = premul_avg (floats) or finish_avg (integers) around a sum).
// tests/cuda compares them element for element with kernels/cpu on a GPU.
//
// Units: lengths are ELEMENTS. Pointers are device pointers (any GPU with
// peer access to the stream's GPU) aligned to the element size, which every
// offset into a cudaMalloc'd buffer is; 16-byte aligned arrays take 16-byte
// vector loads, the rest a scalar grid-stride loop. Zero elements launch
// nothing. Every call is asynchronous on `stream`.
// Errors: misuse (dtype / op outside the enums, negative count, null pointer
// with elements, misaligned pointer, partial overlap of dst and src, integer
// dtype for premul_avg, floating dtype for finish_avg, world_size < 1)
// throws std::invalid_argument naming it; a failed launch throws
// std::runtime_error with CUDA's error string.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cpu/kernels.h"

namespace microddp::cuda_kernels {

// dst[i] = dst[i] OP src[i] (ReduceOp::avg sums). dst may equal src.
void reduce(DType t, ReduceOp op, void* dst, const void* src, int64_t n, cudaStream_t stream);
// dst[i] = src[i]. dst == src does nothing; other overlap is refused.
void copy(DType t, void* dst, const void* src, int64_t n, cudaStream_t stream);
// Floating avg, before the reduction: dst[i] = src[i] * (1/world_size) in
// float32 (float64 for float64), rounded once.
void premul_avg(DType t, void* dst, const void* src, int64_t n, int world_size, cudaStream_t stream);
// Integer avg, after the reduction: dst[i] /= world_size, toward zero.
void finish_avg(DType t, void* dst, int64_t n, int world_size, cudaStream_t stream);

}  // namespace microddp::cuda_kernels
