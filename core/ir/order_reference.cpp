// Implementation of core/ir/order_reference.h: a sequential interpreter of
// the schedule IR over real element values.
#include "core/ir/order_reference.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/ir/order_arith.h"

namespace microddp {
namespace {

struct Slice {
  std::vector<uint64_t> vals;
  std::vector<int32_t> tags;  // empty unless tracking
};

class Evaluator {
 public:
  Evaluator(const Schedule& s, bool track) : s_(s), n_(s.world_size()), e_(s.num_endpoints()), t_(s.spec.dtype), op_(s.spec.op), track_(track) {}

  OrderResult run(const RankData& inputs) {
    const auto& sp = s_.spec;
    if (static_cast<int>(inputs.size()) != n_)
      throw std::invalid_argument(fmt::format("evaluate_order: {} input rows for world size {}", inputs.size(), n_));
    const bool premul = sp.op == ReduceOp::avg && is_floating(t_) && is_reducing(sp.collective);
    const bool finish = sp.op == ReduceOp::avg && !is_floating(t_) && is_reducing(sp.collective);
    for (int r = 0; r < e_; ++r) {
      layout_.push_back(rank_layout(s_, r));
      mem_.emplace_back();
      tag_.emplace_back();
      for (int64_t sz : layout_[r].storage_size) {
        mem_[r].emplace_back(static_cast<size_t>(sz), 0);
        if (track_) tag_[r].emplace_back(static_cast<size_t>(sz), -1);
      }
      if (r >= n_) continue;  // a switch has no input
      const auto& iv = layout_[r].view[static_cast<int>(Buf::input)];
      if (inputs[r].size() != static_cast<size_t>(iv.size) * dtype_size(t_))
        throw std::invalid_argument(fmt::format("evaluate_order: rank {} input has {} bytes, expected {}", r,
                                                inputs[r].size(), iv.size * static_cast<int64_t>(dtype_size(t_))));
      auto& st = mem_[r][iv.storage];
      for (int64_t i = 0; i < iv.size; ++i) {
        const uint64_t x = order::load(t_, inputs[r].data(), i);
        st[iv.offset + i] = premul ? order::premul(t_, x, n_) : x;
      }
    }
    views_.resize(e_);
    for (int r = 0; r < e_; ++r) views_[r].assign(layout_[r].view.begin(), layout_[r].view.end());
    for (int k = 0; k < s_.num_steps(); ++k) run_step(k);

    OrderResult res;
    res.outputs.resize(n_);
    if (track_) res.first_event.resize(n_);
    for (int r = 0; r < n_; ++r) {
      const auto& ov = layout_[r].view[static_cast<int>(Buf::output)];
      const int64_t m = sp.collective == Collective::barrier ? 0 : sp.output_count(r);
      res.outputs[r].resize(static_cast<size_t>(m) * dtype_size(t_));
      for (int64_t i = 0; i < m; ++i) {
        uint64_t x = mem_[r][ov.storage][ov.offset + i];
        if (finish) x = order::finish_avg(t_, x, n_);
        order::store(t_, res.outputs[r].data(), i, x);
        if (track_) res.first_event[r].push_back(tag_[r][ov.storage][ov.offset + i]);
      }
    }
    res.events = std::move(events_);
    return res;
  }

 private:
  struct Recv {
    int peer, storage;
    int64_t off, len;
    bool reduce;
    int ordinal;  // the k-th recv on this link in this step
    bool done;
  };

  const Schedule& s_;
  int n_;
  int e_;  // endpoints: the n ranks, then the schedule's switches (work buffers only)
  DType t_;
  ReduceOp op_;
  bool track_;
  std::vector<RankLayout> layout_;
  std::vector<std::vector<std::vector<uint64_t>>> mem_;  // [rank][storage][element]
  std::vector<std::vector<std::vector<int32_t>>> tag_;   // same shape when tracking
  std::vector<std::vector<RankLayout::View>> views_;     // current names -> storages
  std::vector<OrderEvent> events_;
  int step_ = 0;

  [[noreturn]] void fail(int r, const std::string& what) const {
    throw ScheduleError(fmt::format("order-exact reference, {} step {}, rank {}: {}", s_.spec.algorithm, step_, r, what));
  }

  struct Where {
    int storage;
    int64_t off;
  };
  Where resolve(int r, BufRange b, int64_t len) const {
    const auto& v = views_[r][static_cast<int>(b.buf)];
    if (b.offset < 0 || len < 0 || b.offset + len > v.size)
      fail(r, fmt::format("{}[{}, {}) is outside the buffer ({} elements)", name(b.buf), b.offset, b.offset + len, v.size));
    return {v.storage, v.offset + b.offset};
  }

  Slice read(int r, Where w, int64_t len) const {
    Slice out;
    const auto& st = mem_[r][w.storage];
    out.vals.assign(st.begin() + w.off, st.begin() + w.off + len);
    if (track_) {
      const auto& tg = tag_[r][w.storage];
      out.tags.assign(tg.begin() + w.off, tg.begin() + w.off + len);
    }
    return out;
  }

  void write(int r, Where w, const Slice& d) {
    std::copy(d.vals.begin(), d.vals.end(), mem_[r][w.storage].begin() + w.off);
    if (track_) std::copy(d.tags.begin(), d.tags.end(), tag_[r][w.storage].begin() + w.off);
  }

  // dst = dst OP src element by element, recording events when tracking.
  void reduce_into(int r, Where w, const Slice& src) {
    auto& st = mem_[r][w.storage];
    for (size_t i = 0; i < src.vals.size(); ++i) {
      uint64_t& d = st[w.off + static_cast<int64_t>(i)];
      const uint64_t res = order::combine(t_, op_, d, src.vals[i]);
      if (track_) {
        int32_t& tg = tag_[r][w.storage][w.off + static_cast<int64_t>(i)];
        int32_t first = tg;
        const int32_t other = src.tags[i];
        if (first < 0 || (other >= 0 && other < first)) first = other;
        if (first < 0) first = event(r, d, src.vals[i], res);
        tg = first;
      }
      d = res;
    }
  }

  // The index of a new event for dst OP src = res, or -1 when there is none.
  int32_t event(int r, uint64_t a, uint64_t b, uint64_t res) {
    if (!is_floating(t_)) return -1;
    const double x = order::value(t_, a), y = order::value(t_, b), z = order::value(t_, res);
    OrderEvent::Kind kind;
    if (std::isfinite(x) && std::isfinite(y) && std::isinf(z)) kind = OrderEvent::Kind::overflow;
    else if (!std::isnan(x) && !std::isnan(y) && std::isnan(z)) kind = OrderEvent::Kind::invalid;
    else if (op_ == ReduceOp::prod && std::isfinite(x) && std::isfinite(y) && x != 0 && y != 0 && z == 0)
      kind = OrderEvent::Kind::underflow;
    else return -1;
    events_.push_back(OrderEvent{kind, step_, r, a, b, res});
    return static_cast<int32_t>(events_.size() - 1);
  }

  static bool overlaps(int st, int64_t off, int64_t len, int st2, int64_t off2, int64_t len2) {
    return st == st2 && len > 0 && len2 > 0 && off < off2 + len2 && off2 < off + len;
  }

  void run_step(int k) {
    step_ = k;
    const Step& step = s_.steps[k];
    std::vector<size_t> pc(e_, 0);
    std::vector<std::vector<Recv>> recvs(e_);
    std::vector<size_t> first_pending(e_, 0);  // recvs before this index are done
    // sent[a][b]: the data of the sends a -> b posted so far, in order
    std::vector<std::vector<std::vector<Slice>>> sent(e_, std::vector<std::vector<Slice>>(e_));
    std::vector<std::vector<int>> recv_count(e_, std::vector<int>(e_, 0));  // [from][to]

    // Complete rank r's pending recvs, in posted order, up to (excluding)
    // index `upto`; false when one's send is not posted yet.
    auto complete_upto = [&](int r, size_t upto) {
      for (size_t i = first_pending[r]; i < upto; ++i) {
        Recv& p = recvs[r][i];
        if (p.done) continue;
        auto& q = sent[p.peer][r];
        if (p.ordinal >= static_cast<int>(q.size())) return false;
        const Slice& d = q[p.ordinal];
        if (static_cast<int64_t>(d.vals.size()) != p.len)
          fail(r, fmt::format("receives {} elements from rank {} but that send has {}", p.len, p.peer, d.vals.size()));
        if (p.reduce) reduce_into(r, {p.storage, p.off}, d);
        else write(r, {p.storage, p.off}, d);
        p.done = true;
        first_pending[r] = i + 1;
      }
      return true;
    };

    while (true) {
      bool progress = false, all_done = true;
      for (int r = 0; r < e_; ++r) {
        const auto& ops = step.ranks[r];
        while (pc[r] < ops.size()) {
          const Op& o = ops[pc[r]];
          if (is_comm(o.kind) && (o.peer < 0 || o.peer >= e_ || o.peer == r))
            fail(r, fmt::format("peer {} is not another rank", o.peer));
          if (o.kind == OpKind::send) {
            sent[r][o.peer].push_back(read(r, resolve(r, o.src, o.len), o.len));
          } else if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            const Where w = resolve(r, o.dst, o.len);
            recvs[r].push_back(Recv{o.peer, w.storage, w.off, o.len, o.kind == OpKind::recv_reduce,
                                    recv_count[o.peer][r]++, false});
          } else if (o.kind == OpKind::swap) {
            std::swap(views_[r][static_cast<int>(o.src.buf)], views_[r][static_cast<int>(o.dst.buf)]);
          } else {
            const Where src = resolve(r, o.src, o.len), dst = resolve(r, o.dst, o.len);
            size_t last = 0;
            for (size_t i = first_pending[r]; i < recvs[r].size(); ++i) {
              const Recv& p = recvs[r][i];
              if (!p.done && (overlaps(p.storage, p.off, p.len, src.storage, src.off, o.len) ||
                              overlaps(p.storage, p.off, p.len, dst.storage, dst.off, o.len)))
                last = i + 1;
            }
            if (!complete_upto(r, last)) break;
            const Slice d = read(r, src, o.len);
            if (o.kind == OpKind::copy) write(r, dst, d);
            else reduce_into(r, dst, d);
          }
          ++pc[r];
          progress = true;
        }
        if (pc[r] < ops.size()) {
          all_done = false;
        } else if (first_pending[r] < recvs[r].size()) {
          const size_t before = first_pending[r];
          complete_upto(r, recvs[r].size());
          if (first_pending[r] != before) progress = true;
          if (first_pending[r] < recvs[r].size()) all_done = false;
        }
      }
      if (all_done) break;
      if (!progress) fail(0, "deadlock: a recv waits for a send that is never posted");
    }
    for (int a = 0; a < e_; ++a)
      for (int b = 0; b < e_; ++b)
        if (static_cast<int>(sent[a][b].size()) != recv_count[a][b])
          fail(a, fmt::format("{} sends to rank {} but {} recvs", sent[a][b].size(), b, recv_count[a][b]));
  }
};

const char* symbol(ReduceOp op) {
  switch (op) {
    case ReduceOp::prod: return "×";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    default: return "+";
  }
}

}  // namespace

OrderResult evaluate_order(const Schedule& s, const RankData& inputs, bool track) {
  return Evaluator(s, track).run(inputs);
}

RankData order_exact_outputs(const Schedule& s, const RankData& inputs) { return evaluate_order(s, inputs).outputs; }

std::string describe(const OrderEvent& e, DType t, ReduceOp op) {
  const double x = order::value(t, e.a), y = order::value(t, e.b);
  const double exact = op == ReduceOp::prod ? x * y : x + y;
  const std::string a = order::format(t, e.a), b = order::format(t, e.b);
  switch (e.kind) {
    case OrderEvent::Kind::overflow:
      return fmt::format("{} {} {} = {:.6g} overflows {}", a, symbol(op), b, exact, name(t));
    case OrderEvent::Kind::underflow:
      return fmt::format("{} {} {} = {:.6g} underflows {} to 0", a, symbol(op), b, exact, name(t));
    case OrderEvent::Kind::invalid: break;
  }
  return fmt::format("{} {} {} is nan", a, symbol(op), b);
}

}  // namespace microddp
