// One rank's side of a Schedule, executed through a Transport. Shared by
// every backend: the backend only says how bytes move (Transport) and where
// the rank's memory is (host pointers here). See core/schedule.h for the
// rules this implements.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/exec/executor.h"
#include "core/ir/message_plan.h"

namespace microddp {


class Transport {
 public:
  virtual ~Transport() = default;
  // Post a send of `bytes` starting at `data` (must stay unchanged until
  // wait_sent returns).
  virtual void post_send(int rank, int64_t msg, const void* data, int64_t bytes) = 0;
  // Post a receive. A transport that lands data itself (MPI) may write into
  // `dst` when !reduce; for reduce it stages the bytes.
  virtual void post_recv(int rank, int64_t msg, void* dst, int64_t bytes, bool reduce) = 0;
  // Block until the message's bytes can be read. Returns a pointer to them,
  // or nullptr when they already landed in `dst`.
  virtual const void* arrived(int rank, int64_t msg) = 0;
  // The receiver is done reading what arrived() returned.
  virtual void consumed(int rank, int64_t msg) = 0;
  // Block until the send completed; returns its completion time (ns, same
  // clock as now_ns()).
  virtual int64_t wait_sent(int rank, int64_t msg) = 0;
  // Every rank meets here (lockstep mode).
  virtual void barrier(int rank) = 0;
  virtual int64_t now_ns() const = 0;
  // True when arrived() returns a pointer into the sender's own memory that
  // stays valid until consumed(), for any number of messages at once (the
  // threads backend's simple protocol): RankProgram then runs a fold of
  // direct reads as one pass (see RankProgram::run_step).
  virtual bool direct_reads() const { return false; }
};

// Memory of one endpoint (rank or switch): one block per storage of its RankLayout.
// Either owned (storage[i], what make_rank_memory builds) or, when `shared`
// is non-empty, placed by the backend: storage i is the layout's
// storage_size[i] elements at shared[i] (the mpi backend's shared-memory
// window, core/exec/mpi/shm_window.cpp) and storage[i] is unused. A copy of
// a placed RankMemory points at the same memory.
struct RankMemory {
  RankLayout layout;
  std::vector<std::vector<std::byte>> storage;
  std::vector<std::byte*> shared;
  std::byte* base(int i) { return shared.empty() ? storage[i].data() : shared[i]; }
  const std::byte* base(int i) const { return shared.empty() ? storage[i].data() : shared[i]; }
  std::byte* ptr(const RankLayout::View& v, int64_t offset, size_t esize) {
    return base(v.storage) + (v.offset + offset) * esize;
  }
};
RankMemory make_rank_memory(const Schedule& s, int rank);

// ---- Shared by every backend's run function ----

// Throws UsageError saying why when `backend` ("threads", "mpi", "cuda",
// "nccl") cannot run protocol p: only the threads backend runs ll and ll128.
// Open MPI moves the bytes with its own protocols (its shared-memory and
// network transports choose eager or rendezvous by size), so a flag in every
// 8 bytes would have to be laid over MPI's messages, not under them; the
// CUDA backend's copies are cudaMemcpyPeer calls (no kernel of ours stores
// the lines) and NCCL chooses its protocol itself (NCCL_PROTO).
void check_protocol_supported(const std::string& backend, Protocol p);

// Throws UsageError naming the rank when inputs do not have the spec's shape.
void check_inputs(const Schedule& s, const RankData& inputs);
// A backend that runs ranks only (mpi: one process per rank; cuda, nccl: one
// stream or device per rank) calls this first: a schedule with switch
// endpoints (core/ir/schedule.h) throws UsageError
//   "algorithm 'nvls' needs a switch endpoint, which only the threads backend
//    runs (as one more thread); the mpi backend runs ranks only: use
//    --backend threads"
// with the algorithm and `backend` filled in.
void refuse_switches(const Schedule& s, const std::string& backend);

// avg's two halves (kernels/cpu/kernels.h): floating types pre-scale each
// rank's input by 1/n, integer types divide the reduced output by n.
bool needs_premul(const CollectiveSpec& s);
bool needs_finish_avg(const CollectiveSpec& s);

// A Trace ready to be filled: names, per-endpoint bytes sent/received (from
// the schedule; a switch endpoint's after the ranks', Trace::switches), step records, and the snapshot decision (every rank keeps at
// most opt.snapshot_limit elements in all its buffers, and opt.record).
// Snapshot vectors are not allocated here: see alloc_snapshots.
Trace new_trace(const Schedule& s, const RunOptions& opt, const std::string& backend);
// Size rank r's snapshot vectors (initial + every step) before the run, so
// that taking a snapshot allocates nothing.
void alloc_snapshots(Trace& t, const Schedule& s, const RankLayout& layout, int rank);

// Folds of direct reads: on a transport with direct_reads(), a run of ops
// of one step into the same elements D (same buffer, offset and length),
//   copy / recv into D (or a reduce / recv_reduce: D's value comes first),
//   then reduce / recv_reduce into D, ...
// with at least one message among them, whose every message's send is
// posted by its sender before any local op of that step (so the sender
// waits for nothing of this step before posting it), runs as ONE pass:
// D = x0 ⊕ x1 ⊕ ... read straight out of the peers' memory
// (kernels::reduce_many), the bits of the op-by-op execution. one_shot and
// two_shot's folds (core/algorithms/direct.cpp) are such runs. A fold whose
// local source overlaps D runs op by op.
class RankProgram {
 public:
  RankProgram(const Schedule& s, const MessagePlan& plan, int rank, RankMemory& mem, Transport& t,
              const RunOptions& opt, Trace* trace);
  // Execute step `step` of this rank: ops, waits; records into the trace.
  void run_step(int step);
  // Reset buffer names to storages (swaps) at the start of an iteration.
  void reset_views();
  // Which storage each buffer name refers to now (after the swaps so far);
  // set_views gives another program over a copy of this rank's memory the
  // same names (the threads backend's warm step repetitions).
  const std::array<RankLayout::View, kNumBufs>& views() const { return views_; }
  void set_views(const std::array<RankLayout::View, kNumBufs>& v) { views_ = v; }
  // Snapshot of the rank's buffers into rec (if small enough).
  void snapshot(RankStepRecord& rec) const;

 private:
  struct PendingOp {
    int op_index;
    int64_t msg;
    int storage;
    int64_t off, len;
    bool reduce;
    std::byte* dst;
    bool done;
    int event;
  };
  void complete_recv(PendingOp& p);
  void wait_send(PendingOp& p);
  void find_folds();
  bool run_fold(int step, size_t first, size_t end);
  Event& event_at(int step, int op_index);

  const Schedule& s_;
  const MessagePlan& plan_;
  int rank_;
  RankMemory& mem_;
  Transport& t_;
  const RunOptions& opt_;
  Trace* trace_;
  size_t esize_;
  std::array<RankLayout::View, kNumBufs> views_;
  std::vector<PendingOp> sends_, recvs_;
  std::vector<std::vector<int>> event_index_;  // [step][op] -> index into trace events[rank]
  // [step][op]: the end of the fold that starts at this op (see run_step),
  // 0 when none starts here; empty unless the transport has direct_reads().
  std::vector<std::vector<size_t>> fold_end_;
  std::vector<const void*> fold_srcs_;  // run_fold's sources, reserved once
  // With snapshots on (Trace::snapshots): each message is first copied here
  // out of the sender's buffer, its values kept in Trace::carried, and
  // then reduced or copied from here, so the values recorded are the ones
  // used. Sized before the run (the largest step's received elements).
  std::vector<std::byte> stage_;
  bool carried_ = false;
  const void* take_carried(int event, const void* data, int64_t len, std::byte* stage);
};

}  // namespace microddp
