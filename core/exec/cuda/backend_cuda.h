// The CUDA and NCCL backends: every step of a Schedule runs on GPUs.
//
// CUDA (--backend cuda): rank r lives on GPU r % device_count, in its own
// device buffers (one cudaMalloc per storage of its RankLayout) with its own
// stream. With fewer GPUs than ranks several ranks share a GPU: their
// "transfers" are then copies inside one GPU's memory (HBM traffic, not
// NVLink), and busbw figures are NOT comparable to multi-GPU ones;
// cuda_placement_note() says so in words for the CLI, the app and the bench.
//  - send/recv: the receiver's stream waits for a CUDA event recorded on the
//    sender's stream where the send was posted, then copies (cudaMemcpyAsync
//    on one GPU, cudaMemcpyPeerAsync across GPUs, peer access enabled where
//    possible). recv_reduce on one GPU reduces straight from the sender's
//    buffer with kernels/cuda; across GPUs it copies into a staging buffer
//    first. An event after that marks the send complete; the sender's stream
//    waits for it before writing those elements again (MPI's rule, as in
//    core/schedule.h), and at the end of the step.
//  - --protocol ll | ll128 (RunOptions::protocol; core/exec/cuda/cuda_lines.h)
//    replaces the copy and the event: the send is a kernel on the sender's
//    stream that stores the message as flagged LL words / LL128 lines
//    (kernels/cuda/proto_lines.h) into a buffer on the receiver's GPU; the
//    recv is a kernel on the receiver's stream that polls the flags and
//    unpacks into the destination (recv_reduce: into a staging buffer, then
//    kernels/cuda reduces). The send completes when its kernel ran. Every
//    message has its own line buffer (LL 2×, LL128 128/120 × its bytes).
//  - copy / reduce: kernels/cuda on the rank's stream.
//  - The host enqueues each step rank by rank, in schedule order; a rank
//    whose next op needs a message not yet posted yields to the others (the
//    same waits as core/rank_program.h, resolved at enqueue time).
//  - lockstep: after every step the host waits for all streams (so
//    RunOptions::on_step sees finished GPUs) and takes the snapshots;
//    free-running: streams only wait on events, the host waits once.
//  - Times: every op and step is bracketed by CUDA events; Trace times are
//    ns since a start event recorded on each GPU after a device sync.
//    Results are bit-identical to run_threads (same kernels' rules, same
//    reduction order).
// NCCL (--backend nccl): the same schedule, but every message is an
// ncclSend / ncclRecv pair inside ncclGroupStart / ncclGroupEnd on a per-rank
// communication stream; reductions are kernels/cuda. One rank per GPU: NCCL
// before 2.30 refuses two ranks on one GPU, so with fewer GPUs than ranks
// run_cuda throws UsageError saying so (world size 1 works as a single-GPU
// sanity check).
//
// When the build has no CUDA (MICRODDP_HAVE_CUDA undefined) this header
// still compiles: cuda_device_available() is false with the reason "this
// build has no CUDA backend", and run_cuda / run_nccl_library throw
// UsageError with that text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/executor.h"

namespace microddp {

struct NcclLibraryResult {
  std::string function;  // "ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter"
  std::string algo;      // NCCL_ALGO used ("" = NCCL's choice, "ring", "tree")
  double seconds = 0;    // per call: mean over the timed iterations (events on rank 0's stream, all ranks joined)
  RankData outputs;      // every rank's output (spec shapes; empty rows where the spec has none)
};

#if defined(MICRODDP_HAVE_CUDA) && MICRODDP_HAVE_CUDA

// True when at least one CUDA device can be used. ANY error from
// cudaGetDeviceCount counts as "no device" (on a machine without a GPU the
// runtime returns an error, not a zero count); `why` (may be null) receives
// CUDA's error string, or "cudaGetDeviceCount returned 0 devices".
bool cuda_device_available(std::string* why = nullptr);
int cuda_device_count();  // 0 when !cuda_device_available()

// One line for the user about where the ranks sit, e.g. "8 ranks on 1 GPU
// (NVIDIA H200): copies inside one GPU are HBM traffic, not NVLink; busbw is
// not comparable to multi-GPU figures". Empty when every rank has its GPU.
std::string cuda_placement_note(int world_size);

// Runs the schedule on GPUs (use_nccl: the NCCL backend). inputs/outputs are
// host data with run_threads' shapes; Trace::backend is "cuda" or "nccl".
// Throws UsageError: "no CUDA device was found: <cuda error string>" without
// a device; for the NCCL backend with more ranks than GPUs; for inputs of the
// wrong shape; for ll / ll128 between two GPUs without peer access, for line
// buffers past 90% of a GPU's free memory, and for ll / ll128 on the NCCL
// backend (NCCL_PROTO chooses there). Throws std::runtime_error on a CUDA /
// NCCL failure (naming the call and the error string) or when an ll / ll128
// receiver saw no flags for 10 s (naming rank, peer and step), and
// ScheduleError on an unmatched send/recv or a schedule that deadlocks.
RunResult run_cuda(const Schedule& s, const RankData& inputs, const RunOptions& opt, bool use_nccl);

// The NCCL library collective serving `spec` (bench --reference nccl):
// all_reduce, broadcast, reduce, all_gather, reduce_scatter (equal blocks:
// counts must be empty). One rank per GPU (UsageError otherwise, and for the
// other collectives). nccl_algo "" | "ring" | "tree" sets NCCL_ALGO before
// the communicators are created. Out of place. avg: floats are scaled by 1/n
// with kernels/cuda then summed; integers summed then divided by n
// (truncating): our numeric rules, not ncclAvg's. `warmup` untimed calls,
// then `iterations` timed ones.
NcclLibraryResult run_nccl_library(const CollectiveSpec& spec, const RankData& inputs, int iterations = 1,
                                   int warmup = 1, const std::string& nccl_algo = "");

#else  // no CUDA in this build

inline bool cuda_device_available(std::string* why = nullptr) {
  if (why) *why = "this build has no CUDA backend";
  return false;
}
inline int cuda_device_count() { return 0; }
inline std::string cuda_placement_note(int) { return {}; }
[[noreturn]] inline void cuda_unavailable() { throw UsageError("this build has no CUDA backend"); }
inline RunResult run_cuda(const Schedule&, const RankData&, const RunOptions&, bool) { cuda_unavailable(); }
inline NcclLibraryResult run_nccl_library(const CollectiveSpec&, const RankData&, int = 1, int = 1,
                                          const std::string& = "") {
  cuda_unavailable();
}

#endif

}  // namespace microddp
