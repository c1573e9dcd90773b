// Helpers shared by the CUDA and NCCL backends' files (backend_cuda.cpp,
// cuda_runner_steps.cpp, nccl_library.cpp): error checks that throw
// std::runtime_error naming the call and CUDA's / NCCL's error string, the
// "no CUDA device" UsageError, and one NCCL communicator per rank (rank r on
// GPU r). Internal: not part of the backend's interface (backend_cuda.h).
#pragma once
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/exec/cuda/backend_cuda.h"

namespace microddp::cuda_detail {

inline void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("cuda backend: {} failed: {}", what, cudaGetErrorString(e)));
}
inline void nk(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) throw std::runtime_error(fmt::format("nccl backend: {} failed: {}", what, ncclGetErrorString(e)));
}

inline int require_device() {
  std::string why;
  if (!cuda_device_available(&why)) throw UsageError("no CUDA device was found: " + why);
  return cuda_device_count();
}

// One communicator per rank, rank r on GPU r (ncclCommInitAll).
struct Comms {
  std::vector<ncclComm_t> c;
  explicit Comms(int n) {
    c.resize(n);
    std::vector<int> devs(n);
    for (int r = 0; r < n; ++r) devs[r] = r;
    nk(ncclCommInitAll(c.data(), n, devs.data()), "ncclCommInitAll");
  }
  ~Comms() {
    for (auto x : c) ncclCommDestroy(x);
  }
};

inline void require_rank_per_gpu(int n, int devices, const char* what) {
  if (n > devices)
    throw UsageError(fmt::format("{}: world size {} needs {} GPUs but this machine has {}; NCCL before 2.30 refuses two "
                                 "ranks on one GPU (use --backend cuda, or world size 1 as a single-GPU sanity check)",
                                 what, n, n, devices));
}

}  // namespace microddp::cuda_detail
