// The CUDA backends' executor, one step (cuda_runner.h): a rank's ops
// enqueued onto its stream as far as the messages allow, the receiver's side
// of each message (deliver), and the waits before a send's bytes are reused.
#include "core/exec/cuda/cuda_runner.h"

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

namespace microddp::cuda_detail {

void Runner::deliver(int r, Pending& p) {
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

bool Runner::deliver_upto(int r, size_t upto) {
  auto& R = st[r];
  while (R.head < upto) {
    Pending& p = R.recvs[R.head];
    if (!posted[p.msg]) return false;
    deliver(r, p);
    ++R.head;
  }
  return true;
}

bool Runner::wait_sends(int r, int storage_i, int64_t off, int64_t len, bool all) {
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

bool Runner::advance(int k, int r) {
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

void Runner::run_step(int k) {
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

}  // namespace microddp::cuda_detail
