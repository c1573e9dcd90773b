// The CUDA and NCCL backends (core/backend_cuda.h). One host thread enqueues
// every rank's ops onto per-rank streams; cross-rank order comes from CUDA
// events (simple) or from flags polled by kernels (ll, ll128: CudaLines), so
// the GPUs run free unless lockstep asks the host to wait.
#include "core/exec/cuda/backend_cuda.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/exec/cuda/cuda_internal.h"
#include "core/exec/cuda/cuda_lines.h"
#include "core/exec/rank_program.h"
#include "core/ir/checker.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/proto_lines.h"

namespace microddp {
using namespace cuda_detail;
namespace {

// ---------------------------------------------------------------------------
// The executor
// ---------------------------------------------------------------------------
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

  void setup(const RankData& inputs) {
    const auto& sp = s.spec;
    check_inputs(s, inputs);
    dev.resize(n);
    for (int r = 0; r < n; ++r) dev[r] = r % ndev;
    // Peer access between every pair of GPUs in use (ignore "already enabled").
    const int used = std::min(n, ndev);
    for (int a = 0; a < used; ++a)
      for (int b = 0; b < used; ++b) {
        int ok = 0;
        if (a != b && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess && ok) {
          cudaSetDevice(a);
          cudaDeviceEnablePeerAccess(b, 0);
          cudaGetLastError();
        }
      }
    layout.resize(n);
    storage.resize(n);
    staging.assign(n, nullptr);
    stream.resize(n);
    comm_stream.assign(n, nullptr);
    tev.resize(n);
    tev_used.assign(n, 0);
    for (int r = 0; r < n; ++r) {
      ck(cudaSetDevice(dev[r]), "cudaSetDevice");
      ck(cudaStreamCreateWithFlags(&stream[r], cudaStreamNonBlocking), "cudaStreamCreate");
      if (nccl) ck(cudaStreamCreateWithFlags(&comm_stream[r], cudaStreamNonBlocking), "cudaStreamCreate");
      layout[r] = rank_layout(s, r);
      for (int64_t sz : layout[r].storage_size) {
        void* p = nullptr;
        if (sz > 0) ck(cudaMalloc(&p, static_cast<size_t>(sz) * es), "cudaMalloc");
        storage[r].push_back(static_cast<std::byte*>(p));
      }
      int64_t stage = 0;
      for (const auto& step : s.steps)
        for (const Op& op : step.ranks[r])
          if ((op.kind == OpKind::recv_reduce) &&
              (nccl || opt.protocol != Protocol::simple || dev[op.peer] != dev[r]))
            stage = std::max(stage, op.len);
      if (stage > 0) {
        void* p = nullptr;
        ck(cudaMalloc(&p, static_cast<size_t>(stage) * es), "cudaMalloc");
        staging[r] = static_cast<std::byte*>(p);
      }
      const auto& iv = layout[r].view[static_cast<int>(Buf::input)];
      if (iv.size > 0) {
        std::byte* ip = storage[r][iv.storage] + iv.offset * es;
        ck(cudaMemcpy(ip, inputs[r].data(), inputs[r].size(), cudaMemcpyHostToDevice), "cudaMemcpy to device");
        if (needs_premul(sp)) cuda_kernels::premul_avg(sp.dtype, ip, ip, iv.size, n, stream[r]);
      }
    }
    ev_sent.resize(plan.num_messages);
    ev_done.resize(plan.num_messages);
    for (int64_t m = 0; m < plan.num_messages; ++m) {
      ck(cudaSetDevice(dev[plan.src[m]]), "cudaSetDevice");
      ck(cudaEventCreateWithFlags(&ev_sent[m], cudaEventDisableTiming), "cudaEventCreate");
      ck(cudaSetDevice(dev[plan.dst[m]]), "cudaSetDevice");
      ck(cudaEventCreateWithFlags(&ev_done[m], cudaEventDisableTiming), "cudaEventCreate");
    }
    if (nccl) comms = std::make_unique<Comms>(n);
    if (opt.protocol != Protocol::simple) lines = std::make_unique<CudaLines>(s, plan, opt.protocol, dev, es);
    // Same shape as run_threads'; snapshots need the host to see the GPUs
    // between steps, so free-running runs keep none.
    trace = new_trace(s, opt, nccl ? "nccl" : "cuda");
    if (opt.mode != Mode::lockstep) trace.snapshots = false;
    const bool small = trace.snapshots;
    st.resize(n);
    for (int r = 0; r < n; ++r) st[r].views = layout[r].view;
    if (small) {
      for (int r = 0; r < n; ++r) snapshot(r, trace.initial[r], true);
    }
    sync_all();
    start.resize(ndev);
    for (int d = 0; d < std::min(n, ndev); ++d) {
      ck(cudaSetDevice(d), "cudaSetDevice");
      ck(cudaEventCreate(&start[d]), "cudaEventCreate");
      ck(cudaEventRecord(start[d], stream[d]), "cudaEventRecord");
    }
  }

  void sync_all() {
    for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
    if (nccl)
      for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(comm_stream[r]), "cudaStreamSynchronize");
    if (lines) lines->check_errors();
  }

  void snapshot(int r, RankStepRecord& out, bool make) {
    std::vector<std::byte> host;
    for (int b = 0; b < kNumBufs; ++b) {
      const auto& v = make ? layout[r].view[b] : st[r].views[b];
      if (layout[r].view[b].size == 0) continue;
      if (make) out.buffers.push_back({static_cast<Buf>(b), v.storage, std::vector<double>(v.size)});
      auto it = std::find_if(out.buffers.begin(), out.buffers.end(), [&](const BufferSnapshot& x) { return x.buf == static_cast<Buf>(b); });
      if (it == out.buffers.end()) continue;
      it->storage = v.storage;
      host.resize(it->values.size() * es);
      ck(cudaMemcpy(host.data(), storage[r][v.storage] + v.offset * es, host.size(), cudaMemcpyDeviceToHost), "cudaMemcpy snapshot");
      for (size_t i = 0; i < it->values.size(); ++i) it->values[i] = kernels::load_double(s.spec.dtype, host.data(), static_cast<int64_t>(i));
    }
  }

  std::byte* ptr(int r, const RankLayout::View& v, int64_t off) { return storage[r][v.storage] + (v.offset + off) * es; }

  static bool overlaps(int a, int64_t o, int64_t l, int b, int64_t o2, int64_t l2) {
    return a == b && l > 0 && l2 > 0 && o < o2 + l2 && o2 < o + l;
  }

  // Enqueue the receiver's side of a message: r's stream waits for the
  // sender's data, lands or reduces it, and marks the send consumed.
  void deliver(int r, Pending& p) {
    const int src = plan.src[p.msg];
    const int64_t bytes = p.len * static_cast<int64_t>(es);
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    if (lines) {
      // LL / LL128: no event from the sender; the kernel polls the flags
      // (the sender's kernel was enqueued first: posted[p.msg]).
      std::byte* land = p.reduce ? staging[r] : p.dst;
      lines->recv(p.msg, land, flag, stream[r]);
      if (p.reduce) cuda_kernels::reduce(s.spec.dtype, s.spec.op, p.dst, staging[r], p.len, stream[r]);
    } else if (nccl) {
      // NCCL: the pair runs on the two comm streams, after each side's data is ready.
      ck(cudaSetDevice(dev[src]), "cudaSetDevice");
      ck(cudaStreamWaitEvent(comm_stream[src], ev_sent[p.msg], 0), "cudaStreamWaitEvent");
      ck(cudaSetDevice(dev[r]), "cudaSetDevice");
      cudaEvent_t ready = timing_event(r);
      ck(cudaEventRecord(ready, stream[r]), "cudaEventRecord");
      ck(cudaStreamWaitEvent(comm_stream[r], ready, 0), "cudaStreamWaitEvent");
      std::byte* land = p.reduce ? staging[r] : p.dst;
      nk(ncclGroupStart(), "ncclGroupStart");
      nk(ncclSend(send_ptr[p.msg], bytes, ncclInt8, r, comms->c[src], comm_stream[src]), "ncclSend");
      nk(ncclRecv(land, bytes, ncclInt8, src, comms->c[r], comm_stream[r]), "ncclRecv");
      nk(ncclGroupEnd(), "ncclGroupEnd");
      ck(cudaEventRecord(ev_done[p.msg], comm_stream[r]), "cudaEventRecord");
      ck(cudaStreamWaitEvent(stream[r], ev_done[p.msg], 0), "cudaStreamWaitEvent");
      if (p.reduce) cuda_kernels::reduce(s.spec.dtype, s.spec.op, p.dst, staging[r], p.len, stream[r]);
    } else {
      ck(cudaStreamWaitEvent(stream[r], ev_sent[p.msg], 0), "cudaStreamWaitEvent");
      const bool same = dev[src] == dev[r];
      if (p.reduce && same) {
        cuda_kernels::reduce(s.spec.dtype, s.spec.op, p.dst, send_ptr[p.msg], p.len, stream[r]);
      } else {
        std::byte* land = p.reduce ? staging[r] : p.dst;
        if (bytes > 0) {
          if (same) ck(cudaMemcpyAsync(land, send_ptr[p.msg], bytes, cudaMemcpyDeviceToDevice, stream[r]), "cudaMemcpyAsync");
          else ck(cudaMemcpyPeerAsync(land, dev[r], send_ptr[p.msg], dev[src], bytes, stream[r]), "cudaMemcpyPeerAsync");
        }
        if (p.reduce) cuda_kernels::reduce(s.spec.dtype, s.spec.op, p.dst, staging[r], p.len, stream[r]);
      }
      ck(cudaEventRecord(ev_done[p.msg], stream[r]), "cudaEventRecord");
    }
    consumed[p.msg] = 1;
    p.done = true;
    if (p.ev >= 0) st[r].op_ev[p.ev].second = mark(r);
  }

  // Deliver recvs in posted order up to (excluding) `upto`; false if blocked.
  bool deliver_upto(int r, size_t upto) {
    auto& R = st[r];
    while (R.head < upto) {
      Pending& p = R.recvs[R.head];
      if (!posted[p.msg]) return false;
      deliver(r, p);
      ++R.head;
    }
    return true;
  }
  bool wait_sends(int r, int storage_i, int64_t off, int64_t len, bool all) {
    auto& R = st[r];
    for (auto& p : R.sends)
      if (!p.done && (all || overlaps(p.storage, p.off, p.len, storage_i, off, len)) && !consumed[p.msg]) return false;
    for (auto& p : R.sends)
      if (!p.done && (all || overlaps(p.storage, p.off, p.len, storage_i, off, len))) {
        ck(cudaSetDevice(dev[r]), "cudaSetDevice");
        ck(cudaStreamWaitEvent(stream[r], ev_done[p.msg], 0), "cudaStreamWaitEvent");
        p.done = true;
        if (p.ev >= 0) st[r].op_ev[p.ev].second = mark(r);
      }
    return true;
  }

  // Advance rank r in step k as far as it can go; true when it moved.
  bool advance(int k, int r) {
    auto& R = st[r];
    if (R.finished) return false;
    const auto& ops = s.steps[k].ranks[r];
    const auto& ids = plan.msg[k][r];
    bool moved = false;
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    // Eagerly land what already arrived (stream order keeps it legal: an
    // op touching those elements would have waited for it anyway).
    const size_t head0 = R.head;
    deliver_upto(r, R.recvs.size());
    if (R.head != head0) moved = true;
    while (R.i < ops.size()) {
      const Op& o = ops[R.i];
      const int i = static_cast<int>(R.i);
      switch (o.kind) {
        case OpKind::send: {
          const auto& v = R.views[static_cast<int>(o.src.buf)];
          R.op_ev[i].first = mark(r);
          send_ptr[ids[i]] = ptr(r, v, o.src.offset);
          if (lines) {
            // The kernel stores the lines into the receiver's buffer; later
            // writes to these elements follow it on this stream, so the send
            // is complete once enqueued.
            lines->send(ids[i], send_ptr[ids[i]], flag, stream[r]);
            R.op_ev[i].second = mark(r);
            posted[ids[i]] = 1;
            consumed[ids[i]] = 1;
            break;
          }
          ck(cudaEventRecord(ev_sent[ids[i]], stream[r]), "cudaEventRecord");
          posted[ids[i]] = 1;
          R.sends.push_back({ids[i], v.storage, v.offset + o.src.offset, o.len, false, nullptr, false, i, 0});
          break;
        }
        case OpKind::recv:
        case OpKind::recv_reduce: {
          const auto& v = R.views[static_cast<int>(o.dst.buf)];
          R.op_ev[i].first = mark(r);
          R.recvs.push_back({ids[i], v.storage, v.offset + o.dst.offset, o.len, o.kind == OpKind::recv_reduce,
                             ptr(r, v, o.dst.offset), false, i, 0});
          break;
        }
        case OpKind::swap:
          std::swap(R.views[static_cast<int>(o.src.buf)], R.views[static_cast<int>(o.dst.buf)]);
          R.op_ev[i].first = R.op_ev[i].second = mark(r);
          break;
        case OpKind::copy:
        case OpKind::reduce: {
          const auto& sv = R.views[static_cast<int>(o.src.buf)];
          const auto& dv = R.views[static_cast<int>(o.dst.buf)];
          const int64_t so = sv.offset + o.src.offset, d_o = dv.offset + o.dst.offset;
          size_t last = 0;
          for (size_t q = 0; q < R.recvs.size(); ++q)
            if (!R.recvs[q].done && (overlaps(R.recvs[q].storage, R.recvs[q].off, R.recvs[q].len, sv.storage, so, o.len) ||
                                     overlaps(R.recvs[q].storage, R.recvs[q].off, R.recvs[q].len, dv.storage, d_o, o.len)))
              last = q + 1;
          if (!deliver_upto(r, std::max(last, R.head))) return moved;
          if (!wait_sends(r, dv.storage, d_o, o.len, false)) return moved;
          ck(cudaSetDevice(dev[r]), "cudaSetDevice");
          R.op_ev[i].first = mark(r);
          if (o.kind == OpKind::copy) cuda_kernels::copy(s.spec.dtype, ptr(r, dv, o.dst.offset), ptr(r, sv, o.src.offset), o.len, stream[r]);
          else cuda_kernels::reduce(s.spec.dtype, s.spec.op, ptr(r, dv, o.dst.offset), ptr(r, sv, o.src.offset), o.len, stream[r]);
          R.op_ev[i].second = mark(r);
          break;
        }
      }
      ++R.i;
      moved = true;
    }
    if (!deliver_upto(r, R.recvs.size())) return moved;
    if (!wait_sends(r, 0, 0, 0, true)) return moved;
    R.finished = true;
    return true;
  }

  void run_step(int k) {
    const int64_t nm = plan.num_messages;
    if (posted.empty()) { posted.assign(nm, 0); consumed.assign(nm, 0); send_ptr.assign(nm, nullptr); }
    for (int r = 0; r < n; ++r) {
      auto& R = st[r];
      R.i = 0; R.head = 0; R.finished = false;
      R.sends.clear(); R.recvs.clear();
      R.op_ev.assign(s.steps[k].ranks[r].size(), {-1, -1});
      ck(cudaSetDevice(dev[r]), "cudaSetDevice");
      R.step_b = mark(r);
    }
    for (int64_t m = 0; m < nm; ++m)
      if (plan.step[m] == k) { posted[m] = 0; consumed[m] = 0; }
    for (;;) {
      bool any = false, all = true;
      for (int r = 0; r < n; ++r) {
        any = advance(k, r) || any;
        all = all && st[r].finished;
      }
      if (all) break;
      if (!any) throw ScheduleError(fmt::format("cuda backend: step {} deadlocks (no rank can proceed)", k));
    }
    if (rec) {
      for (int r = 0; r < n; ++r) {
        ck(cudaSetDevice(dev[r]), "cudaSetDevice");
        step_marks_.push_back({k, r, st[r].step_b, mark(r), st[r].op_ev});
      }
    }
  }

  struct StepMarks { int k, r, b, e; std::vector<std::pair<int, int>> ops; };
  std::vector<StepMarks> step_marks_;

  int64_t time_of(int r, int idx) {
    if (idx < 0) return 0;
    float ms = 0;
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    ck(cudaEventElapsedTime(&ms, start[dev[r]], tev[r][idx]), "cudaEventElapsedTime");
    return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
  }

  RunResult run() {
    const int iters = std::max(1, opt.iterations);
    for (int it = 0; it < iters; ++it) {
      flag = proto_lines::flag_for(static_cast<uint32_t>(it));
      for (int r = 0; r < n; ++r) st[r].views = layout[r].view;
      step_marks_.clear();
      for (int r = 0; r < n; ++r) tev_used[r] = 0;
      for (int k = 0; k < s.num_steps(); ++k) {
        run_step(k);
        if (opt.mode == Mode::lockstep) {
          sync_all();
          if (it == iters - 1 && trace.snapshots)
            for (int r = 0; r < n; ++r) snapshot(r, trace.steps[k][r], false);
          if (opt.on_step && it == iters - 1) opt.on_step(k);
        }
      }
      sync_all();
    }
    RunResult res;
    if (rec) {
      for (int r = 0; r < n; ++r) {
        auto& ev = trace.events[r];
        ev.clear();
      }
      int64_t first = INT64_MAX, last = 0;
      for (const auto& m : step_marks_) {
        auto& srec = trace.steps[m.k][m.r];
        srec.begin_ns = time_of(m.r, m.b);
        srec.end_ns = time_of(m.r, m.e);
        first = std::min(first, srec.begin_ns);
        last = std::max(last, srec.end_ns);
        const auto& ops = s.steps[m.k].ranks[m.r];
        for (size_t i = 0; i < ops.size(); ++i) {
          const Op& o = ops[i];
          Event e;
          e.step = m.k;
          e.op_index = static_cast<int>(i);
          e.kind = o.kind;
          e.peer = o.peer;
          const bool writes = o.kind != OpKind::send;
          e.buf = writes ? o.dst.buf : o.src.buf;
          e.offset = writes ? o.dst.offset : o.src.offset;
          e.len = o.len;
          e.bytes = o.kind == OpKind::swap ? 0 : o.len * static_cast<int64_t>(es);
          e.chunk = o.chunk;
          e.channel = o.channel;
          if (o.kind == OpKind::send || o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            e.wire_bytes = wire_bytes(opt.protocol, e.bytes);
            e.flags = flag_count(opt.protocol, e.bytes);
          }
          e.begin_ns = time_of(m.r, m.ops[i].first);
          e.end_ns = std::max(e.begin_ns, time_of(m.r, m.ops[i].second));
          trace.events[m.r].push_back(e);
        }
      }
      if (!step_marks_.empty()) trace.total_ns = last - first;
    }
    const auto& sp = s.spec;
    res.outputs.resize(n);
    res.inputs_after.resize(n);
    for (int r = 0; r < n; ++r) {
      ck(cudaSetDevice(dev[r]), "cudaSetDevice");
      const auto& ov = layout[r].view[static_cast<int>(Buf::output)];
      if (ov.size > 0) {
        std::byte* p = storage[r][ov.storage] + ov.offset * es;
        if (needs_finish_avg(sp)) cuda_kernels::finish_avg(sp.dtype, p, ov.size, n, stream[r]);
        ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
        res.outputs[r].resize(ov.size * es);
        ck(cudaMemcpy(res.outputs[r].data(), p, res.outputs[r].size(), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
      }
      const auto& iv = layout[r].view[static_cast<int>(Buf::input)];
      if (iv.size > 0 && !needs_premul(sp)) {
        res.inputs_after[r].resize(iv.size * es);
        ck(cudaMemcpy(res.inputs_after[r].data(), storage[r][iv.storage] + iv.offset * es, res.inputs_after[r].size(),
                      cudaMemcpyDeviceToHost), "cudaMemcpy to host");
      }
    }
    res.trace = std::move(trace);
    return res;
  }

  ~Runner() {
    comms.reset();
    for (size_t r = 0; r < stream.size(); ++r) {  // kernels still polling (an error) end before lines are freed
      cudaSetDevice(dev[r]);
      cudaStreamSynchronize(stream[r]);
    }
    lines.reset();
    for (int r = 0; r < static_cast<int>(stream.size()); ++r) {
      cudaSetDevice(dev[r]);
      cudaStreamSynchronize(stream[r]);
      for (auto* p : storage[r]) if (p) cudaFree(p);
      if (staging[r]) cudaFree(staging[r]);
      for (auto e : tev[r]) cudaEventDestroy(e);
      cudaStreamDestroy(stream[r]);
      if (comm_stream[r]) cudaStreamDestroy(comm_stream[r]);
    }
    for (auto e : ev_sent) cudaEventDestroy(e);
    for (auto e : ev_done) cudaEventDestroy(e);
    for (auto e : start) if (e) cudaEventDestroy(e);
  }
};

}  // namespace

RunResult run_cuda(const Schedule& s, const RankData& inputs, const RunOptions& opt, bool use_nccl) {
  refuse_switches(s, use_nccl ? "nccl" : "cuda");
  check_protocol_supported(use_nccl ? "nccl" : "cuda", opt.protocol);  // cuda runs all three; nccl simple only
  Runner run(s, opt, use_nccl);
  run.setup(inputs);
  return run.run();
}

}  // namespace microddp
