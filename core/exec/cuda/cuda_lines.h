// The CUDA backend's LL and LL128 transport (--backend cuda --protocol
// ll|ll128): the receive buffers in line format and the kernels that fill
// and poll them (kernels/cuda/proto_kernels.h). Used by the CUDA executor
// (Runner, cuda_runner.h) in place of the cudaMemcpyPeerAsync + event of
// --protocol simple.
//
// Memory: every message has its own line buffer on the RECEIVER's GPU,
// ll_wire_bytes(bytes) (LL: 2 × bytes) or ll128_wire_bytes(bytes) (LL128:
// 128/120 × bytes) long, all of a receiver's in one cudaMalloc, zeroed once;
// 128-byte aligned offsets. Iteration g stores flag g + 1, so buffers are
// never cleared between iterations (kernels/cuda/proto_lines.h).
// The sender's kernel runs on the sender's stream and GPU and writes the
// receiver's buffer through peer access; the receiver's kernel runs on the
// receiver's stream. No CUDA event joins them: the sender's stream moves on
// as soon as its kernel has stored the lines (its send is then complete).
// Errors (constructor): UsageError when two GPUs that exchange a message
// have no peer access, or when a GPU's line buffers exceed its free memory
// (naming the GPU, the bytes and the protocol); std::runtime_error on a CUDA
// failure. check_errors() throws std::runtime_error naming the message
// whose flags did not come within kPollTimeoutNs.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/ir/message_plan.h"
#include "core/ir/protocol.h"
#include "core/ir/schedule.h"

namespace microddp {

class CudaLines {
 public:
  static constexpr int64_t kPollTimeoutNs = 10'000'000'000;  // a receiver gives up after 10 s without its flags

  // dev[r]: rank r's GPU; es: element size in bytes. p is ll or ll128.
  CudaLines(const Schedule& s, const MessagePlan& plan, Protocol p, const std::vector<int>& dev, size_t es);
  ~CudaLines();
  CudaLines(const CudaLines&) = delete;
  CudaLines& operator=(const CudaLines&) = delete;

  // Enqueue the sender's stores of message msg (its bytes from src) on
  // `stream` (the sender's, its GPU current).
  void send(int64_t msg, const void* src, uint32_t flag, cudaStream_t stream);
  // Enqueue the receiver's polling and unpacking into dst on `stream` (the
  // receiver's, its GPU current).
  void recv(int64_t msg, void* dst, uint32_t flag, cudaStream_t stream);
  // After the streams were synchronised: throws if a receiver timed out.
  void check_errors();
  int64_t bytes(int64_t msg) const { return bytes_[static_cast<size_t>(msg)]; }

 private:
  const MessagePlan& plan_;
  Protocol p_;
  std::vector<int> dev_;
  std::vector<int64_t> bytes_, offset_;  // per message: payload bytes, offset in its receiver's buffer
  std::vector<std::byte*> base_;         // per rank: its line buffers
  std::vector<int*> error_;              // per rank: the error word its receive kernels set
  std::vector<int> max_blocks_;          // per rank: cap on a receive kernel's blocks
};

}  // namespace microddp
