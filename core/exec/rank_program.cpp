#include "core/exec/rank_program.h"

#include <fmt/format.h>

#include <stdexcept>

#include "core/ir/checker.h"

namespace microddp {

void check_inputs(const Schedule& s, const RankData& inputs) {
  const auto& sp = s.spec;
  const size_t es = dtype_size(sp.dtype);
  if (static_cast<int>(inputs.size()) != s.world_size())
    throw UsageError(fmt::format("{} input rows for world size {}", inputs.size(), s.world_size()));
  for (int r = 0; r < s.world_size(); ++r)
    if (inputs[r].size() != static_cast<size_t>(sp.input_count(r)) * es)
      throw UsageError(fmt::format("rank {} input has {} elements but {} needs {}", r, inputs[r].size() / es,
                                   name(sp.collective), sp.input_count(r)));
}

void refuse_switches(const Schedule& s, const std::string& backend) {
  if (s.switches == 0) return;
  throw UsageError(fmt::format("algorithm '{}' needs a switch endpoint, which only the threads backend runs (as one "
                               "more thread); the {} backend runs ranks only: use --backend threads",
                               s.spec.algorithm, backend));
}

void check_protocol_supported(const std::string& backend, Protocol p) {
  // threads and cuda run all three (cuda: kernels that store flagged lines
  // into the receiver's GPU memory, core/exec/cuda/cuda_lines.h)
  if (p == Protocol::simple || backend == "threads" || backend == "cuda") return;
  if (backend == "mpi")
    throw UsageError(fmt::format(
        "--protocol {}: the mpi backend runs simple only: Open MPI moves the bytes with its own protocols (eager or "
        "rendezvous, chosen by its transports), so LL's flag-in-every-8-bytes stores cannot be put under its messages; "
        "run --protocol {} on --backend threads",
        name(p), name(p)));
  if (backend == "nccl")
    throw UsageError(fmt::format("--protocol {}: the nccl backend leaves the protocol to NCCL (set NCCL_PROTO={} in the "
                                 "environment); microddp's --protocol runs on --backend threads or cuda",
                                 name(p), p == Protocol::ll ? "LL" : "LL128"));
  throw UsageError(fmt::format("--protocol {}: the {} backend runs simple only; run --protocol {} on --backend threads "
                               "or cuda",
                               name(p), backend, name(p)));
}

bool needs_premul(const CollectiveSpec& s) {
  return s.op == ReduceOp::avg && is_floating(s.dtype) && is_reducing(s.collective);
}
bool needs_finish_avg(const CollectiveSpec& s) {
  return s.op == ReduceOp::avg && !is_floating(s.dtype) && is_reducing(s.collective);
}

Trace new_trace(const Schedule& s, const RunOptions& opt, const std::string& backend) {
  const int n = s.num_endpoints();  // ranks, then switches
  const auto es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  Trace t;
  t.mode = opt.mode;
  t.backend = backend;
  t.protocol = opt.protocol;
  t.world_size = s.world_size();
  t.switches = s.switches;
  t.events.resize(n);
  t.carried.resize(n);
  t.steps.assign(s.num_steps(), std::vector<RankStepRecord>(n));
  t.initial.resize(n);
  t.bytes_sent.assign(n, 0);
  t.bytes_received.assign(n, 0);
  for (const auto& st : s.steps)
    for (int r = 0; r < n; ++r)
      for (const Op& op : st.ranks[r]) {
        if (op.kind == OpKind::send) t.bytes_sent[r] += op.len * es;
        if (op.kind == OpKind::recv || op.kind == OpKind::recv_reduce) t.bytes_received[r] += op.len * es;
      }
  bool small = opt.record;
  for (int r = 0; r < n && small; ++r) {
    const RankLayout lay = rank_layout(s, r);
    int64_t total = 0;
    for (int b = 0; b < kNumBufs; ++b) total += lay.view[b].size;
    small = total <= opt.snapshot_limit;
  }
  t.snapshots = small;
  return t;
}

void alloc_snapshots(Trace& t, const Schedule& s, const RankLayout& layout, int rank) {
  if (!t.snapshots) return;
  auto make = [&](RankStepRecord& rec) {
    rec.buffers.clear();
    for (int b = 0; b < kNumBufs; ++b) {
      const auto& v = layout.view[b];
      if (v.size > 0) rec.buffers.push_back({static_cast<Buf>(b), v.storage, std::vector<double>(v.size)});
    }
  };
  make(t.initial[rank]);
  for (int st = 0; st < s.num_steps(); ++st) make(t.steps[st][rank]);
}

RankMemory make_rank_memory(const Schedule& s, int rank) {
  RankMemory m;
  m.layout = rank_layout(s, rank);
  const size_t es = dtype_size(s.spec.dtype);
  for (int64_t n : m.layout.storage_size) m.storage.emplace_back(static_cast<size_t>(n) * es);
  return m;
}

static bool overlaps(int storage, int64_t off, int64_t len, int s2, int64_t off2, int64_t len2) {
  return storage == s2 && len > 0 && len2 > 0 && off < off2 + len2 && off2 < off + len;
}

RankProgram::RankProgram(const Schedule& s, const MessagePlan& plan, int rank, RankMemory& mem, Transport& t,
                         const RunOptions& opt, Trace* trace)
    : s_(s), plan_(plan), rank_(rank), mem_(mem), t_(t), opt_(opt), trace_(trace),
      esize_(dtype_size(s.spec.dtype)) {
  reset_views();
  size_t max_ops = 0;
  for (const auto& st : s.steps) max_ops = std::max(max_ops, st.ranks[rank].size());
  sends_.reserve(max_ops);
  recvs_.reserve(max_ops);
  fold_srcs_.reserve(max_ops + 1);
  if (t_.direct_reads()) find_folds();
  if (trace_ && opt_.record) {
    auto& ev = trace_->events[rank];
    ev.clear();
    event_index_.resize(s.num_steps());
    for (int st = 0; st < s.num_steps(); ++st) {
      const auto& ops = s.steps[st].ranks[rank];
      event_index_[st].resize(ops.size());
      for (size_t i = 0; i < ops.size(); ++i) {
        event_index_[st][i] = static_cast<int>(ev.size());
        Event e;
        e.step = st;
        e.op_index = static_cast<int>(i);
        e.kind = ops[i].kind;
        e.peer = ops[i].peer;
        const bool writes = ops[i].kind != OpKind::send;
        e.buf = writes ? ops[i].dst.buf : ops[i].src.buf;
        e.offset = writes ? ops[i].dst.offset : ops[i].src.offset;
        e.len = ops[i].len;
        e.bytes = ops[i].kind == OpKind::swap ? 0 : ops[i].len * static_cast<int64_t>(esize_);
        e.chunk = ops[i].chunk;
        if (ops[i].kind == OpKind::send || ops[i].kind == OpKind::recv || ops[i].kind == OpKind::recv_reduce) {
          e.wire_bytes = wire_bytes(opt.protocol, e.bytes);
          e.flags = flag_count(opt.protocol, e.bytes);
        }
        e.channel = ops[i].channel;
        ev.push_back(e);
      }
    }
    // What each message carried (Trace::carried), on small runs only: one
    // staging area as large as the most elements a step receives.
    carried_ = trace_->snapshots && static_cast<int>(trace_->carried.size()) > rank;
    if (carried_) {
      auto& cv = trace_->carried[rank];
      cv.assign(ev.size(), {});
      int64_t most = 0;
      for (int st = 0; st < s.num_steps(); ++st) {
        int64_t in_step = 0;
        const auto& ops = s.steps[st].ranks[rank];
        for (size_t i = 0; i < ops.size(); ++i)
          if (ops[i].kind == OpKind::recv || ops[i].kind == OpKind::recv_reduce) {
            in_step += ops[i].len;
            cv[static_cast<size_t>(event_index_[st][i])].assign(static_cast<size_t>(ops[i].len), 0.0);
          }
        most = std::max(most, in_step);
      }
      stage_.assign(static_cast<size_t>(most) * esize_, std::byte{0});
    }
  }
}

// Copies a message's `len` elements out of `data` (the sender's buffer, or
// the destination it already landed in) into `stage`, keeps them in the
// event's carried values, and returns the staged copy to reduce or copy from.
const void* RankProgram::take_carried(int event, const void* data, int64_t len, std::byte* stage) {
  kernels::copy(s_.spec.dtype, stage, data, len);
  auto& vals = trace_->carried[rank_][static_cast<size_t>(event)];
  for (int64_t i = 0; i < len && i < static_cast<int64_t>(vals.size()); ++i)
    vals[static_cast<size_t>(i)] = kernels::load_double(s_.spec.dtype, stage, i);
  return stage;
}

void RankProgram::find_folds() {
  const auto folds_into = [](const Op& a, const Op& b) {
    return (b.kind == OpKind::reduce || b.kind == OpKind::recv_reduce) && b.dst.buf == a.dst.buf &&
           b.dst.offset == a.dst.offset && b.len == a.len;
  };
  // The sender of message m posts it before any local op of its step.
  const auto posted_first = [&](int step, int64_t m) {
    const int from = plan_.src[m];
    const auto& ops = s_.steps[step].ranks[from];
    for (size_t i = 0; i < ops.size(); ++i) {
      if (plan_.msg[step][from][i] == m) return true;
      if (ops[i].kind == OpKind::copy || ops[i].kind == OpKind::reduce) return false;
    }
    return false;
  };
  fold_end_.resize(s_.num_steps());
  for (int st = 0; st < s_.num_steps(); ++st) {
    const auto& ops = s_.steps[st].ranks[rank_];
    fold_end_[st].assign(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& a = ops[i];
      if (a.kind == OpKind::send || a.kind == OpKind::swap || a.len <= 0) continue;
      size_t j = i + 1;
      while (j < ops.size() && j - i < static_cast<size_t>(kernels::kReduceManyMax) && folds_into(a, ops[j])) ++j;
      bool messages = false, ok = j - i >= 2;
      for (size_t k = i; k < j && ok; ++k)
        if (is_comm(ops[k].kind)) {
          messages = true;
          ok = posted_first(st, plan_.msg[st][rank_][k]);
        }
      if (ok && messages) fold_end_[st][i] = j;
    }
  }
}

// Ops [first, end) of `step`, a fold (find_folds): false, having done
// nothing, when a local source overlaps the destination (run op by op).
bool RankProgram::run_fold(int step, size_t first, size_t end) {
  const auto& ops = s_.steps[step].ranks[rank_];
  const auto& ids = plan_.msg[step][rank_];
  const Op& a = ops[first];
  const auto& dv = views_[static_cast<int>(a.dst.buf)];
  const int64_t d_off = dv.offset + a.dst.offset, len = a.len;
  for (size_t k = first; k < end; ++k)
    if (ops[k].kind == OpKind::copy || ops[k].kind == OpKind::reduce) {
      const auto& sv = views_[static_cast<int>(ops[k].src.buf)];
      if (overlaps(sv.storage, sv.offset + ops[k].src.offset, len, dv.storage, d_off, len)) return false;
    }
  const bool rec = trace_ && opt_.record;
  const int64_t begin = rec ? t_.now_ns() : 0;
  // As a local op: the earlier recvs into D or into a local source land
  // first (in the order posted), the sends out of D finish first.
  size_t last = 0;
  for (size_t k = 0; k < recvs_.size(); ++k) {
    if (recvs_[k].done) continue;
    bool hit = overlaps(recvs_[k].storage, recvs_[k].off, recvs_[k].len, dv.storage, d_off, len);
    for (size_t q = first; q < end && !hit; ++q)
      if (ops[q].kind == OpKind::copy || ops[q].kind == OpKind::reduce) {
        const auto& sv = views_[static_cast<int>(ops[q].src.buf)];
        hit = overlaps(recvs_[k].storage, recvs_[k].off, recvs_[k].len, sv.storage, sv.offset + ops[q].src.offset, len);
      }
    if (hit) last = k + 1;
  }
  for (size_t k = 0; k < last; ++k) complete_recv(recvs_[k]);
  for (auto& p : sends_)
    if (!p.done && overlaps(p.storage, p.off, p.len, dv.storage, d_off, len)) wait_send(p);
  std::byte* dst = mem_.ptr(dv, a.dst.offset, esize_);
  const int64_t bytes = len * static_cast<int64_t>(esize_);
  for (size_t k = first; k < end; ++k)
    if (is_comm(ops[k].kind)) t_.post_recv(rank_, ids[k], dst, bytes, ops[k].kind == OpKind::recv_reduce);
  fold_srcs_.clear();
  if (a.kind == OpKind::reduce || a.kind == OpKind::recv_reduce) fold_srcs_.push_back(dst);  // D comes first
  std::byte* stage = stage_.data();
  for (size_t k = first; k < end; ++k) {
    if (is_comm(ops[k].kind)) {
      const void* p = t_.arrived(rank_, ids[k]);
      if (!p) throw std::logic_error("a transport with direct_reads() landed a message itself");
      if (rec && carried_) {  // read once, into the stage: the values kept are the values summed
        p = take_carried(event_index_[step][k], p, len, stage);
        stage += len * static_cast<int64_t>(esize_);
      }
      fold_srcs_.push_back(p);
    } else {
      fold_srcs_.push_back(mem_.ptr(views_[static_cast<int>(ops[k].src.buf)], ops[k].src.offset, esize_));
    }
  }
  kernels::reduce_many(s_.spec.dtype, s_.spec.op, dst, fold_srcs_.data(), static_cast<int>(fold_srcs_.size()), len);
  for (size_t k = first; k < end; ++k)
    if (is_comm(ops[k].kind)) t_.consumed(rank_, ids[k]);
  if (rec) {
    const int64_t done = t_.now_ns();
    for (size_t k = first; k < end; ++k) {
      Event& e = event_at(step, static_cast<int>(k));
      e.begin_ns = begin;
      e.end_ns = done;
      e.storage = dv.storage;
    }
  }
  return true;
}

void RankProgram::reset_views() { views_ = mem_.layout.view; }

Event& RankProgram::event_at(int step, int op_index) {
  return trace_->events[rank_][event_index_[step][op_index]];
}

void RankProgram::complete_recv(PendingOp& p) {
  if (p.done) return;
  const void* data = t_.arrived(rank_, p.msg);
  if (p.event >= 0 && carried_) {
    if (data) data = take_carried(p.event, data, p.len, stage_.data());
    else if (!p.reduce) take_carried(p.event, p.dst, p.len, stage_.data());  // it landed in dst itself
  }
  if (data) {
    if (p.reduce) kernels::reduce(s_.spec.dtype, s_.spec.op, p.dst, data, p.len);
    else kernels::copy(s_.spec.dtype, p.dst, data, p.len);
  }
  t_.consumed(rank_, p.msg);
  p.done = true;
  if (p.event >= 0) trace_->events[rank_][p.event].end_ns = t_.now_ns();
}

void RankProgram::wait_send(PendingOp& p) {
  if (p.done) return;
  const int64_t t = t_.wait_sent(rank_, p.msg);
  p.done = true;
  if (p.event >= 0) trace_->events[rank_][p.event].end_ns = t;
}

void RankProgram::run_step(int step) {
  const bool rec = trace_ && opt_.record;
  const auto& ops = s_.steps[step].ranks[rank_];
  const auto& ids = plan_.msg[step][rank_];
  sends_.clear();
  recvs_.clear();
  RankStepRecord* srec = rec ? &trace_->steps[step][rank_] : nullptr;
  if (srec) srec->begin_ns = t_.now_ns();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!fold_end_.empty() && fold_end_[step][i] && run_fold(step, i, fold_end_[step][i])) {
      i = fold_end_[step][i] - 1;
      continue;
    }
    const Op& o = ops[i];
    const int ev = rec ? event_index_[step][i] : -1;
    if (ev >= 0) trace_->events[rank_][ev].begin_ns = t_.now_ns();
    switch (o.kind) {
      case OpKind::send: {
        const auto& v = views_[static_cast<int>(o.src.buf)];
        t_.post_send(rank_, ids[i], mem_.ptr(v, o.src.offset, esize_), o.len * static_cast<int64_t>(esize_));
        sends_.push_back({static_cast<int>(i), ids[i], v.storage, v.offset + o.src.offset, o.len, false, nullptr,
                          false, ev});
        if (ev >= 0) trace_->events[rank_][ev].storage = v.storage;
        break;
      }
      case OpKind::recv:
      case OpKind::recv_reduce: {
        const auto& v = views_[static_cast<int>(o.dst.buf)];
        std::byte* dst = mem_.ptr(v, o.dst.offset, esize_);
        const bool red = o.kind == OpKind::recv_reduce;
        t_.post_recv(rank_, ids[i], dst, o.len * static_cast<int64_t>(esize_), red);
        recvs_.push_back({static_cast<int>(i), ids[i], v.storage, v.offset + o.dst.offset, o.len, red, dst, false, ev});
        if (ev >= 0) trace_->events[rank_][ev].storage = v.storage;
        break;
      }
      case OpKind::swap:
        std::swap(views_[static_cast<int>(o.src.buf)], views_[static_cast<int>(o.dst.buf)]);
        if (ev >= 0) trace_->events[rank_][ev].end_ns = t_.now_ns();
        break;
      case OpKind::copy:
      case OpKind::reduce: {
        const auto& sv = views_[static_cast<int>(o.src.buf)];
        const auto& dv = views_[static_cast<int>(o.dst.buf)];
        const int64_t so = sv.offset + o.src.offset, d_o = dv.offset + o.dst.offset;
        // Recvs complete in the order posted, so recv-reduces into the same
        // elements always combine in the same order (bit-identical reruns).
        size_t last = 0;
        for (size_t k = 0; k < recvs_.size(); ++k)
          if (!recvs_[k].done && (overlaps(recvs_[k].storage, recvs_[k].off, recvs_[k].len, sv.storage, so, o.len) ||
                                  overlaps(recvs_[k].storage, recvs_[k].off, recvs_[k].len, dv.storage, d_o, o.len)))
            last = k + 1;
        for (size_t k = 0; k < last; ++k) complete_recv(recvs_[k]);
        for (auto& p : sends_)
          if (!p.done && overlaps(p.storage, p.off, p.len, dv.storage, d_o, o.len)) wait_send(p);
        if (ev >= 0) trace_->events[rank_][ev].begin_ns = t_.now_ns();
        std::byte* dst = mem_.ptr(dv, o.dst.offset, esize_);
        const std::byte* src = mem_.ptr(sv, o.src.offset, esize_);
        if (o.kind == OpKind::copy) kernels::copy(s_.spec.dtype, dst, src, o.len);
        else kernels::reduce(s_.spec.dtype, s_.spec.op, dst, src, o.len);
        if (ev >= 0) {
          trace_->events[rank_][ev].end_ns = t_.now_ns();
          trace_->events[rank_][ev].storage = dv.storage;
        }
        break;
      }
    }
  }
  for (auto& p : recvs_) complete_recv(p);
  for (auto& p : sends_) wait_send(p);
  if (srec) {
    srec->end_ns = t_.now_ns();
    if (trace_->snapshots) snapshot(*srec);
  }
}

void RankProgram::snapshot(RankStepRecord& rec) const {
  // Vectors were sized before the run; only values are written here.
  for (auto& b : rec.buffers) {
    const auto& v = views_[static_cast<int>(b.buf)];
    b.storage = v.storage;
    const std::byte* base = mem_.base(v.storage) + v.offset * esize_;
    for (size_t i = 0; i < b.values.size(); ++i)
      b.values[i] = kernels::load_double(s_.spec.dtype, base, static_cast<int64_t>(i));
  }
}

}  // namespace microddp
