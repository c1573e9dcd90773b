// core/exec/cuda/cuda_lines.h: line buffers, peer checks, the error words.
#include "core/exec/cuda/cuda_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/proto_kernels.h"
#include "kernels/cuda/proto_lines.h"

namespace microddp {
namespace {

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("cuda backend: {} failed: {}", what, cudaGetErrorString(e)));
}

}  // namespace

CudaLines::CudaLines(const Schedule& s, const MessagePlan& plan, Protocol p, const std::vector<int>& dev, size_t es)
    : plan_(plan), p_(p), dev_(dev) {
  if (p == Protocol::simple) throw std::logic_error("CudaLines: simple moves no lines");
  const int n = s.world_size();
  bytes_.assign(static_cast<size_t>(plan.num_messages), 0);
  offset_.assign(static_cast<size_t>(plan.num_messages), 0);
  for (int k = 0; k < s.num_steps(); ++k)
    for (int r = 0; r < n; ++r) {
      const auto& ops = s.steps[k].ranks[r];
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::send)
          bytes_[static_cast<size_t>(plan.msg[k][r][i])] = ops[i].len * static_cast<int64_t>(es);
    }
  // Offsets per receiver, each buffer on a 128-byte boundary.
  std::vector<int64_t> total(static_cast<size_t>(n), 0);
  for (int64_t m = 0; m < plan.num_messages; ++m) {
    const int64_t b = bytes_[static_cast<size_t>(m)];
    const int64_t wire = p == Protocol::ll ? proto_lines::ll_wire_bytes(b) : proto_lines::ll128_wire_bytes(b);
    auto& t = total[static_cast<size_t>(plan.dst[m])];
    offset_[static_cast<size_t>(m)] = t;
    t += (wire + 127) / 128 * 128;
    const int a = dev[plan.src[m]], d = dev[plan.dst[m]];
    if (a != d) {
      int ok = 0;
      if (cudaDeviceCanAccessPeer(&ok, a, d) != cudaSuccess || !ok) {
        cudaGetLastError();
        throw UsageError(fmt::format("--protocol {} on --backend cuda: GPU {} cannot store into GPU {}'s memory (no "
                                     "peer access), and the sender's kernel writes the receiver's lines; use "
                                     "--protocol simple (cudaMemcpyPeer copies through the host)",
                                     name(p), a, d));
      }
    }
  }
  // Per GPU: the sum of its receivers' buffers against its free memory.
  const int ndev = dev.empty() ? 0 : *std::max_element(dev.begin(), dev.end()) + 1;
  std::vector<int64_t> per_dev(static_cast<size_t>(ndev), 0);
  std::vector<int> ranks_on(static_cast<size_t>(ndev), 0);
  for (int r = 0; r < n; ++r) {
    per_dev[static_cast<size_t>(dev[r])] += total[static_cast<size_t>(r)];
    ++ranks_on[static_cast<size_t>(dev[r])];
  }
  for (int d = 0; d < ndev; ++d) {
    if (per_dev[static_cast<size_t>(d)] == 0) continue;
    size_t free_b = 0, total_b = 0;
    ck(cudaSetDevice(d), "cudaSetDevice");
    ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (static_cast<double>(per_dev[static_cast<size_t>(d)]) > 0.9 * static_cast<double>(free_b))
      throw UsageError(fmt::format("--protocol {} on --backend cuda: the line buffers of the ranks on GPU {} take {} "
                                   "bytes (one buffer per message, {} its payload), more than 90% of the {} bytes "
                                   "free; use a smaller count or --protocol simple",
                                   name(p), d, per_dev[static_cast<size_t>(d)],
                                   p == Protocol::ll ? "twice" : "128/120 of", free_b));
  }
  base_.assign(static_cast<size_t>(n), nullptr);
  error_.assign(static_cast<size_t>(n), nullptr);
  max_blocks_.assign(static_cast<size_t>(n), 1);
  for (int r = 0; r < n; ++r) {
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    void* e = nullptr;
    ck(cudaMalloc(&e, sizeof(int)), "cudaMalloc");
    error_[static_cast<size_t>(r)] = static_cast<int*>(e);
    ck(cudaMemset(e, 0, sizeof(int)), "cudaMemset");
    if (total[static_cast<size_t>(r)] > 0) {
      void* b = nullptr;
      ck(cudaMalloc(&b, static_cast<size_t>(total[static_cast<size_t>(r)])), "cudaMalloc (line buffers)");
      base_[static_cast<size_t>(r)] = static_cast<std::byte*>(b);
      ck(cudaMemset(b, 0, static_cast<size_t>(total[static_cast<size_t>(r)])), "cudaMemset");  // flag 0: nothing came
    }
    // Spinning receive kernels must leave room for the senders they wait
    // for: the ranks on one GPU share about 2 blocks (512 threads) per SM.
    int sms = 1;
    ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev[r]), "cudaDeviceGetAttribute");
    max_blocks_[static_cast<size_t>(r)] = std::clamp(2 * sms / std::max(1, ranks_on[static_cast<size_t>(dev[r])]), 1, 64);
  }
  for (int d = 0; d < ndev; ++d) {
    if (ranks_on[static_cast<size_t>(d)] == 0) continue;
    ck(cudaSetDevice(d), "cudaSetDevice");
    cuda_proto::preload();  // no lazy loading once receivers spin
    ck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // the memsets, before any kernel polls
  }
}

CudaLines::~CudaLines() {
  for (size_t r = 0; r < base_.size(); ++r) {
    cudaSetDevice(dev_[r]);
    if (base_[r]) cudaFree(base_[r]);
    if (error_[r]) cudaFree(error_[r]);
  }
}

void CudaLines::send(int64_t msg, const void* src, uint32_t flag, cudaStream_t stream) {
  const auto m = static_cast<size_t>(msg);
  void* lines = base_[static_cast<size_t>(plan_.dst[msg])] + offset_[m];
  if (p_ == Protocol::ll) cuda_proto::ll_send(lines, src, bytes_[m], flag, stream);
  else cuda_proto::ll128_send(lines, src, bytes_[m], flag, stream);
}

void CudaLines::recv(int64_t msg, void* dst, uint32_t flag, cudaStream_t stream) {
  const auto m = static_cast<size_t>(msg);
  const auto r = static_cast<size_t>(plan_.dst[msg]);
  const void* lines = base_[r] + offset_[m];
  const int tag = static_cast<int>(msg + 1);
  if (p_ == Protocol::ll)
    cuda_proto::ll_recv(lines, dst, bytes_[m], flag, error_[r], tag, kPollTimeoutNs, max_blocks_[r], stream);
  else cuda_proto::ll128_recv(lines, dst, bytes_[m], flag, error_[r], tag, kPollTimeoutNs, max_blocks_[r], stream);
}

void CudaLines::check_errors() {
  for (size_t r = 0; r < error_.size(); ++r) {
    int tag = 0;
    ck(cudaSetDevice(dev_[r]), "cudaSetDevice");
    ck(cudaMemcpy(&tag, error_[r], sizeof tag, cudaMemcpyDeviceToHost), "cudaMemcpy (error word)");
    if (tag == 0) continue;
    const int64_t m = tag - 1;
    throw std::runtime_error(fmt::format(
        "cuda backend: --protocol {}: rank {} polled the flags of the message from rank {} in step {} for more than "
        "{} s without seeing them (the sender's kernel never stored them: were the two kernels not resident at the "
        "same time?)",
        name(p_), plan_.dst[m], plan_.src[m], plan_.step[m], kPollTimeoutNs / 1'000'000'000));
  }
}

}  // namespace microddp
