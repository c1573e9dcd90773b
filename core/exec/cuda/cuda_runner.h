// The CUDA backends' executor (Runner): one host thread enqueues every rank's
// ops onto per-rank streams (see backend_cuda.cpp). Its set-up, run and
// timing are in backend_cuda.cpp, the enqueueing of one step (deliver,
// wait_sends, advance, run_step) in cuda_runner_steps.cpp. Internal: not
// part of the backend's interface (backend_cuda.h).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/exec/cuda/cuda_internal.h"
#include "core/exec/cuda/cuda_lines.h"
#include "core/exec/rank_program.h"

namespace microddp::cuda_detail {

struct Runner {
  const Schedule& s;
  const RunOptions& opt;
  bool nccl;
  int n, ndev;
  size_t es;
  MessagePlan plan;
  std::vector<RankLayout> layout;
  std::vector<int> dev;
  std::vector<std::vector<std::byte*>> storage;  // device pointers [rank][storage]
  std::vector<std::byte*> staging;                // per rank, cross-GPU recv_reduce
  std::vector<cudaStream_t> stream, comm_stream;
  std::vector<cudaEvent_t> start;                 // per device
  std::unique_ptr<Comms> comms;
  // Per message: posted on the sender, consumed by the receiver.
  std::vector<cudaEvent_t> ev_sent, ev_done;
  std::vector<char> posted, consumed;
  std::vector<const std::byte*> send_ptr;
  // Timing events per rank: [rank][i]
  std::vector<std::vector<cudaEvent_t>> tev;
  std::vector<size_t> tev_used;
  Trace trace;
  bool rec;
  // --protocol ll | ll128: messages travel as flagged lines (cuda_lines.h)
  std::unique_ptr<CudaLines> lines;
  uint32_t flag = 1;  // this iteration's (proto_lines::flag_for)

  struct Pending { int64_t msg; int storage; int64_t off, len; bool reduce; std::byte* dst; bool done; int ev; int b0; };
  struct RankState {
    size_t i = 0;
    std::array<RankLayout::View, kNumBufs> views;
    std::vector<Pending> sends, recvs;
    size_t head = 0;  // recvs before head are enqueued
    bool finished = false;
    int step_b = -1;
    // timing slots of this step's events
    std::vector<std::pair<int, int>> op_ev;  // per op: begin, end tev index (or -1)
  };
  std::vector<RankState> st;

  Runner(const Schedule& sch, const RunOptions& o, bool use_nccl) : s(sch), opt(o), nccl(use_nccl), n(sch.world_size()) {
    ndev = require_device();
    if (nccl) require_rank_per_gpu(n, ndev, "--backend nccl");
    es = dtype_size(s.spec.dtype);
    rec = opt.record;
    plan = plan_messages(s);
  }

  cudaEvent_t timing_event(int r) {
    if (tev_used[r] == tev[r].size()) {
      cudaEvent_t e;
      ck(cudaSetDevice(dev[r]), "cudaSetDevice");
      ck(cudaEventCreate(&e), "cudaEventCreate");
      tev[r].push_back(e);
    }
    return tev[r][tev_used[r]++];
  }
  int mark(int r) {  // record a timing event on r's stream; returns its index
    if (!rec) return -1;
    const int k = static_cast<int>(tev_used[r]);
    ck(cudaEventRecord(timing_event(r), stream[r]), "cudaEventRecord");
    return k;
  }

  void setup(const RankData& inputs);

  void sync_all();

  void snapshot(int r, RankStepRecord& out, bool make);

  std::byte* ptr(int r, const RankLayout::View& v, int64_t off) { return storage[r][v.storage] + (v.offset + off) * es; }

  static bool overlaps(int a, int64_t o, int64_t l, int b, int64_t o2, int64_t l2) {
    return a == b && l > 0 && l2 > 0 && o < o2 + l2 && o2 < o + l;
  }

  // Enqueue the receiver's side of a message: r's stream waits for the
  // sender's data, lands or reduces it, and marks the send consumed.
  void deliver(int r, Pending& p);

  // Deliver recvs in posted order up to (excluding) `upto`; false if blocked.
  bool deliver_upto(int r, size_t upto);
  bool wait_sends(int r, int storage_i, int64_t off, int64_t len, bool all);

  // Advance rank r in step k as far as it can go; true when it moved.
  bool advance(int k, int r);

  void run_step(int k);

  struct StepMarks { int k, r, b, e; std::vector<std::pair<int, int>> ops; };
  std::vector<StepMarks> step_marks_;

  int64_t time_of(int r, int idx);

  RunResult run();

  ~Runner();
};

}  // namespace microddp::cuda_detail
