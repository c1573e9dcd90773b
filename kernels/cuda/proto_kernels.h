// The LL and LL128 protocols on GPUs (core/ir/protocol.h): the sender's
// kernel stores a message into the RECEIVER's line buffer (device memory on
// the receiver's GPU, written across NVLink / PCIe through peer access, or
// on the same GPU) in the line format of kernels/cuda/proto_lines.h; the
// receiver's kernel polls the flag words and unpacks the data into its
// destination. Neither side waits for the other through the host or a CUDA
// event: the flags ARE the synchronisation, as in NCCL (the idea of
// NVIDIA/nccl src/device/prims_ll.h and prims_ll128.h, in our own code).
// What the GPU memory model guarantees, and where each fence sits, is in
// proto_kernels.cu's header comment and docs/design.md ("Protocols and the
// memory model").
//
// Units: bytes. `lines` is the message's line buffer: ll_words(bytes) 8-byte
// words (LL) or ll128_lines(bytes) 128-byte lines (LL128), 128-byte aligned
// (cudaMalloc gives 256). src / dst any alignment. Every call is
// asynchronous on `stream`; a message of 0 bytes still moves one word / line
// (its flag).
//
// Progress: a receiver's kernel spins until its sender's kernel has stored
// the flags, so both kernels must be able to run at the same time. The
// caller launches the sender's kernel before the receiver's (host order),
// and passes max_blocks to keep the spinning kernels from filling the GPU.
// As a safety net a receiver that sees no flag for timeout_ns stops
// polling and records `tag` (> 0, e.g. message id + 1) in *error (a device
// int on the receiver's GPU, first failure wins); the host reads it after a
// synchronisation and reports which message never came. dst is then
// undefined.
// Errors: bytes < 0, null pointers, max_blocks < 1 or tag < 1 throw
// std::invalid_argument; a failed launch throws std::runtime_error with
// CUDA's error string.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace microddp::cuda_proto {

// Loads the four kernels on the current GPU now. With CUDA's lazy loading
// (the default since CUDA 12) a kernel's first launch may wait for the
// whole GPU to be idle, and a GPU whose receive kernel is spinning is never
// idle (CUDA C++ Programming Guide, "Lazy Loading": kernels that must run
// concurrently should be loaded first). Throws std::runtime_error.
void preload();

void ll_send(void* lines, const void* src, int64_t bytes, uint32_t flag, cudaStream_t stream);
void ll_recv(const void* lines, void* dst, int64_t bytes, uint32_t flag, int* error, int tag, int64_t timeout_ns,
             int max_blocks, cudaStream_t stream);
void ll128_send(void* lines, const void* src, int64_t bytes, uint32_t flag, cudaStream_t stream);
void ll128_recv(const void* lines, void* dst, int64_t bytes, uint32_t flag, int* error, int tag, int64_t timeout_ns,
                int max_blocks, cudaStream_t stream);

}  // namespace microddp::cuda_proto
