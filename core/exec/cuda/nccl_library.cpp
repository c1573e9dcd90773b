// The device queries of backend_cuda.h and the NCCL library reference
// (run_nccl_library: bench --reference nccl).
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>

#include "core/exec/cuda/backend_cuda.h"
#include "core/exec/cuda/cuda_internal.h"
#include "core/exec/rank_program.h"
#include "kernels/cuda/kernels.h"

namespace microddp {
using namespace cuda_detail;
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::int32: return ncclInt32;
    case DType::int64: return ncclInt64;
    case DType::float16: return ncclFloat16;
    case DType::bfloat16: return ncclBfloat16;
    case DType::float32: return ncclFloat32;
    case DType::float64: return ncclFloat64;
  }
  return ncclInt8;
}
ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    default: return ncclSum;  // avg: see run_nccl_library
  }
}

}  // namespace

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state
    if (why) *why = fmt::format("{} ({})", cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  if (count <= 0) {
    if (why) *why = "cudaGetDeviceCount returned 0 devices";
    return false;
  }
  return true;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string cuda_placement_note(int world_size) {
  const int d = cuda_device_count();
  if (d <= 0 || world_size <= d) return {};
  cudaDeviceProp p{};
  std::string gpu = cudaGetDeviceProperties(&p, 0) == cudaSuccess ? p.name : "GPU";
  return fmt::format("{} ranks on {} GPU{} ({}): copies inside one GPU are HBM traffic, not NVLink; busbw is not "
                     "comparable to multi-GPU figures", world_size, d, d == 1 ? "" : "s", gpu);
}

NcclLibraryResult run_nccl_library(const CollectiveSpec& spec, const RankData& inputs, int iterations, int warmup,
                                   const std::string& nccl_algo) {
  const int ndev = require_device();
  const int n = spec.world_size;
  require_rank_per_gpu(n, ndev, "--reference nccl");
  NcclLibraryResult out;
  switch (spec.collective) {
    case Collective::all_reduce: out.function = "ncclAllReduce"; break;
    case Collective::broadcast: out.function = "ncclBroadcast"; break;
    case Collective::reduce: out.function = "ncclReduce"; break;
    case Collective::all_gather: out.function = "ncclAllGather"; break;
    case Collective::reduce_scatter: out.function = "ncclReduceScatter"; break;
    default: throw UsageError(fmt::format("--reference nccl: NCCL has no collective for {}", name(spec.collective)));
  }
  if (!spec.counts.empty()) throw UsageError("--reference nccl: NCCL collectives need equal blocks (no --counts)");
  if (!nccl_algo.empty() && nccl_algo != "ring" && nccl_algo != "tree")
    throw UsageError(fmt::format("unknown NCCL algorithm '{}' (expected ring or tree)", nccl_algo));
  if (static_cast<int>(inputs.size()) != n) throw UsageError(fmt::format("{} input rows for world size {}", inputs.size(), n));
  out.algo = nccl_algo;
  if (!nccl_algo.empty()) setenv("NCCL_ALGO", nccl_algo.c_str(), 1);
  const size_t es = dtype_size(spec.dtype);
  Comms comms(n);
  std::vector<cudaStream_t> stream(n);
  std::vector<std::byte*> in(n), outp(n);
  for (int r = 0; r < n; ++r) {
    ck(cudaSetDevice(r), "cudaSetDevice");
    ck(cudaStreamCreateWithFlags(&stream[r], cudaStreamNonBlocking), "cudaStreamCreate");
    const size_t ib = std::max<size_t>(es, static_cast<size_t>(spec.input_count(r)) * es);
    const size_t ob = std::max<size_t>(es, static_cast<size_t>(std::max<int64_t>(spec.output_count(r), spec.count)) * es);
    void *a, *b;
    ck(cudaMalloc(&a, ib), "cudaMalloc");
    ck(cudaMalloc(&b, ob), "cudaMalloc");
    in[r] = static_cast<std::byte*>(a);
    outp[r] = static_cast<std::byte*>(b);
    if (inputs[r].size() != static_cast<size_t>(spec.input_count(r)) * es)
      throw UsageError(fmt::format("rank {} input has {} elements but {} needs {}", r, inputs[r].size() / es,
                                   name(spec.collective), spec.input_count(r)));
    if (!inputs[r].empty()) ck(cudaMemcpy(in[r], inputs[r].data(), inputs[r].size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  const bool favg = needs_premul(spec), iavg = needs_finish_avg(spec);
  const auto t = nccl_type(spec.dtype);
  const auto op = nccl_op(spec.op);
  const size_t cnt = static_cast<size_t>(spec.count);
  auto call = [&] {
    for (int r = 0; r < n; ++r)
      if (favg) cuda_kernels::premul_avg(spec.dtype, in[r], in[r], spec.input_count(r), n, stream[r]);
    nk(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < n; ++r) {
      auto c = comms.c[r];
      switch (spec.collective) {
        case Collective::all_reduce: nk(ncclAllReduce(in[r], outp[r], cnt, t, op, c, stream[r]), "ncclAllReduce"); break;
        case Collective::broadcast: nk(ncclBroadcast(in[r], outp[r], cnt, t, spec.root, c, stream[r]), "ncclBroadcast"); break;
        case Collective::reduce: nk(ncclReduce(in[r], outp[r], cnt, t, op, spec.root, c, stream[r]), "ncclReduce"); break;
        case Collective::all_gather: nk(ncclAllGather(in[r], outp[r], cnt, t, c, stream[r]), "ncclAllGather"); break;
        default: nk(ncclReduceScatter(in[r], outp[r], cnt, t, op, c, stream[r]), "ncclReduceScatter"); break;
      }
    }
    nk(ncclGroupEnd(), "ncclGroupEnd");
  };
  // Every call restores the inputs first (avg scales them in place).
  auto restore = [&] {
    for (int r = 0; r < n; ++r)
      if (!inputs[r].empty())
        ck(cudaMemcpyAsync(in[r], inputs[r].data(), inputs[r].size(), cudaMemcpyHostToDevice, stream[r]), "cudaMemcpyAsync");
  };
  for (int w = 0; w < warmup; ++w) { if (favg) restore(); call(); }
  for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
  cudaEvent_t e0, e1;
  ck(cudaSetDevice(0), "cudaSetDevice");
  ck(cudaEventCreate(&e0), "cudaEventCreate");
  ck(cudaEventCreate(&e1), "cudaEventCreate");
  double total_ms = 0;
  const int iters = std::max(1, iterations);
  for (int i = 0; i < iters; ++i) {
    if (favg) { restore(); for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize"); }
    ck(cudaSetDevice(0), "cudaSetDevice");
    ck(cudaEventRecord(e0, stream[0]), "cudaEventRecord");
    call();
    for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
    ck(cudaSetDevice(0), "cudaSetDevice");
    ck(cudaEventRecord(e1, stream[0]), "cudaEventRecord");
    ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    total_ms += ms;
  }
  out.seconds = total_ms / 1e3 / iters;
  out.outputs.resize(n);
  for (int r = 0; r < n; ++r) {
    ck(cudaSetDevice(r), "cudaSetDevice");
    const int64_t oc = spec.output_count(r);
    if (oc > 0) {
      if (iavg) cuda_kernels::finish_avg(spec.dtype, outp[r], oc, n, stream[r]);
      ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
      out.outputs[r].resize(static_cast<size_t>(oc) * es);
      ck(cudaMemcpy(out.outputs[r].data(), outp[r], out.outputs[r].size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    cudaFree(in[r]);
    cudaFree(outp[r]);
    cudaStreamDestroy(stream[r]);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return out;
}

}  // namespace microddp
