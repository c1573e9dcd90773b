#include "core/ir/checker.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <fmt/format.h>

namespace microddp {
namespace {

// Element (begin + i) of a cell holds input element (idx + i) of `rank`,
// `mult` times, for every term.
struct Term {
  int rank;
  int64_t idx;
  int mult;
  bool operator==(const Term&) const = default;
};
struct Cell {
  int64_t begin, len;
  bool defined;
  std::vector<Term> terms;  // sorted by (rank, idx)
};
using Cells = std::vector<Cell>;

// One storage's cells, keyed by where they begin: an ordered map, so that
// splitting, reading and writing a range cost O(log cells + cells in the
// range). (A sorted vector with linear scans made the checker quadratic in
// --segments: 60 s for 8 ranks x 4096 segments.)
struct Storage {
  std::map<int64_t, Cell> cells;  // by begin, covering [0, size)
  int64_t size = 0;
};

void split_at(Storage& st, int64_t pos) {
  if (pos <= 0 || pos >= st.size) return;
  auto it = st.cells.upper_bound(pos);
  --it;
  if (it->first == pos) return;
  Cell right = it->second;
  const int64_t cut = pos - it->first;
  right.begin = pos;
  right.len = it->second.len - cut;
  for (auto& t : right.terms) t.idx += cut;
  it->second.len = cut;
  st.cells.emplace_hint(std::next(it), pos, std::move(right));
}

// Copy of [off, off+len) rebased to 0.
Cells read(Storage& st, int64_t off, int64_t len) {
  split_at(st, off);
  split_at(st, off + len);
  Cells out;
  for (auto it = st.cells.lower_bound(off); it != st.cells.end() && it->first < off + len; ++it) {
    out.push_back(it->second);
    out.back().begin -= off;
  }
  return out;
}

// Split `cells` (rebased, sorted) at relative position pos.
void split_cells(Cells& cells, int64_t pos) {
  if (cells.empty()) return;
  const int64_t size = cells.back().begin + cells.back().len;
  if (pos <= 0 || pos >= size) return;
  auto it = std::upper_bound(cells.begin(), cells.end(), pos, [](int64_t p, const Cell& c) { return p < c.begin; });
  --it;
  if (it->begin == pos) return;
  Cell right = *it;
  const int64_t cut = pos - it->begin;
  right.begin = pos;
  right.len = it->len - cut;
  for (auto& t : right.terms) t.idx += cut;
  it->len = cut;
  cells.insert(it + 1, std::move(right));
}

std::vector<Term> merge_terms(const std::vector<Term>& a, const std::vector<Term>& b) {
  std::vector<Term> out = a;
  for (const Term& t : b) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Term& x) { return x.rank == t.rank && x.idx == t.idx; });
    if (it != out.end()) it->mult += t.mult;
    else out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const Term& x, const Term& y) {
    return x.rank != y.rank ? x.rank < y.rank : x.idx < y.idx;
  });
  return out;
}

std::string describe(const std::vector<Term>& terms, bool defined) {
  if (!defined) return "nothing (never written)";
  std::string s = "{";
  for (size_t i = 0; i < terms.size(); ++i)
    s += fmt::format("{}r{}[{}]{}", i ? ", " : "", terms[i].rank, terms[i].idx,
                     terms[i].mult > 1 ? fmt::format(" x{}", terms[i].mult) : "");
  return s + "}";
}

struct Pending {
  int storage;
  int64_t off, len;
  int peer;
  bool reduce = false;
  int op_index;
  // sends: data captured when posted; consumed once the receiver took it
  Cells data;
  std::vector<bool> knows;
  bool done = false;
};

bool overlaps(const Pending& p, int storage, int64_t off, int64_t len) {
  return p.storage == storage && len > 0 && p.len > 0 && off < p.off + p.len && p.off < off + len;
}

// One rank's pending sends or recvs of a step, indexed by (storage, offset):
// an overlap query visits the candidates only, O(log + hits), where a scan of
// every pending op made a step with S segments cost S^2.
struct PendingIndex {
  std::map<int, std::multimap<int64_t, int>> at;  // storage -> first element -> index
  std::map<int, int64_t> longest;                 // storage -> longest pending range
  void add(const Pending& p, int idx) {
    if (p.len <= 0) return;
    at[p.storage].emplace(p.off, idx);
    int64_t& m = longest[p.storage];
    m = std::max(m, p.len);
  }
  // The indexes of the not-done pendings overlapping [off, off+len) of
  // `storage`, in post order; done ones are dropped from the index.
  std::vector<int> overlapping(const std::vector<Pending>& v, int storage, int64_t off, int64_t len) {
    std::vector<int> out;
    auto s = at.find(storage);
    if (len <= 0 || s == at.end()) return out;
    auto& m = s->second;
    for (auto it = m.lower_bound(off - longest[storage] + 1); it != m.end() && it->first < off + len;) {
      const Pending& p = v[it->second];
      if (p.done) {
        it = m.erase(it);
        continue;
      }
      if (overlaps(p, storage, off, len)) out.push_back(it->second);
      ++it;
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

class Checker {
 public:
  explicit Checker(const Schedule& s) : s_(s), n_(s.world_size()), e_(s.num_endpoints()) {}

  void run() {
    init();
    for (int step = 0; step < s_.num_steps(); ++step) run_step(step);
    check_post();
  }

 private:
  const Schedule& s_;
  int n_;  // ranks: inputs, outputs, the post-condition
  int e_;  // endpoints: ranks, then switches (core/ir/schedule.h): memory, ops, messages
  std::vector<RankLayout> layout_;
  std::vector<std::vector<Storage>> mem_;  // [endpoint][storage]
  std::vector<std::vector<bool>> knows_;
  Cells initial_input(int r) const {
    const int64_t in = s_.is_switch(r) ? 0 : s_.spec.input_count(r);
    if (in == 0) return {};
    return {Cell{0, in, true, {Term{r, 0, 1}}}};
  }

  [[noreturn]] void fail(int step, int r, int op, const std::string& what) const {
    std::string where = step >= 0 ? fmt::format("step {} ({}), {}", step,
                                                s_.phases[s_.steps[step].phase].name, endpoint_words(s_, r))
                                  : endpoint_words(s_, r);
    if (op >= 0) {
      const Op& o = s_.steps[step].ranks[r][op];
      where += fmt::format(", op {} ({})", op, name(o.kind));
    }
    throw ScheduleError(fmt::format("{} {} {} [{} ranks, count {}]: {}: {}", name(s_.spec.collective),
                                    s_.spec.algorithm, s_.spec.in_place ? "in-place" : "out-of-place",
                                    n_, s_.spec.count, where, what));
  }

  void init() {
    layout_.clear();
    mem_.assign(e_, {});
    knows_.assign(e_, std::vector<bool>(e_, false));
    for (int r = 0; r < e_; ++r) {
      layout_.push_back(rank_layout(s_, r));
      knows_[r][r] = true;
      for (int64_t sz : layout_[r].storage_size) {
        Storage st;
        st.size = sz;
        if (sz > 0) st.cells.emplace(0, Cell{0, sz, false, {}});
        mem_[r].push_back(std::move(st));
      }
      const auto& v = layout_[r].view[static_cast<int>(Buf::input)];
      if (v.size > 0) write(r, v.storage, v.offset, initial_input(r));
    }
  }

  void write(int r, int storage, int64_t off, const Cells& data) {
    Storage& st = mem_[r][storage];
    int64_t len = data.empty() ? 0 : data.back().begin + data.back().len;
    if (len == 0) return;
    split_at(st, off);
    split_at(st, off + len);
    auto pos = st.cells.erase(st.cells.lower_bound(off), st.cells.lower_bound(off + len));
    for (const Cell& c : data) {
      Cell moved = c;
      moved.begin += off;
      pos = std::next(st.cells.emplace_hint(pos, moved.begin, std::move(moved)));
    }
  }

  void reduce_into(int step, int r, int op, int storage, int64_t off, Cells src) {
    const int64_t len = src.empty() ? 0 : src.back().begin + src.back().len;
    if (len == 0) return;
    Cells dst = read(mem_[r][storage], off, len);
    // align boundaries of both
    for (const auto& c : dst) split_cells(src, c.begin);
    for (const auto& c : src) split_cells(dst, c.begin);
    for (size_t i = 0; i < dst.size(); ++i) {
      if (!dst[i].defined || !src[i].defined)
        fail(step, r, op, fmt::format("reduces elements [{}, {}) of which one side was never written",
                                      off + dst[i].begin, off + dst[i].begin + dst[i].len));
      dst[i].terms = merge_terms(dst[i].terms, src[i].terms);
    }
    write(r, storage, off, dst);
  }

  struct Range { int storage; int64_t off; };
  Range resolve(int step, int r, int op, const std::vector<RankLayout::View>& views, BufRange br, int64_t len) {
    const auto& v = views[static_cast<int>(br.buf)];
    if (br.offset < 0 || len < 0 || br.offset + len > v.size)
      fail(step, r, op, fmt::format("{}[{}, {}) is outside the buffer ({} elements)", name(br.buf), br.offset,
                                    br.offset + len, v.size));
    return {v.storage, v.offset + br.offset};
  }

  void run_step(int step) {
    const Step& st = s_.steps[step];
    std::vector<size_t> pc(e_, 0);
    std::vector<std::vector<Pending>> sends(e_), recvs(e_);
    std::vector<PendingIndex> send_index(e_), recv_index(e_);
    // link queues: link_sends[a][b] = indexes into sends[a] in post order
    std::vector<std::vector<std::vector<int>>> link_sends(e_, std::vector<std::vector<int>>(e_));
    std::vector<std::vector<int>> link_recv_count(e_, std::vector<int>(e_, 0));
    std::vector<std::vector<int>> recv_ordinal(e_);
    std::vector<std::vector<RankLayout::View>> views(e_);
    for (int r = 0; r < e_; ++r) views[r].assign(layout_[r].view.begin(), layout_[r].view.end());

    auto complete_one = [&](int r, size_t i) -> bool {
      Pending& p = recvs[r][i];
      if (p.done) return true;
      const auto& q = link_sends[p.peer][r];
      const int k = recv_ordinal[r][i];
      if (k >= static_cast<int>(q.size())) return false;
      Pending& snd = sends[p.peer][q[k]];
      if (snd.len != p.len)
        fail(step, r, p.op_index, fmt::format("receives {} elements from {} but that send has {}", p.len,
                                              endpoint_words(s_, p.peer), snd.len));
      if (p.reduce) reduce_into(step, r, p.op_index, p.storage, p.off, snd.data);
      else write(r, p.storage, p.off, snd.data);
      for (int x = 0; x < e_; ++x) knows_[r][x] = knows_[r][x] || snd.knows[x];
      p.done = snd.done = true;
      return true;
    };
    // A recv-reduce completes only after the earlier plain recvs into its
    // elements (the receiver completes its recvs in the order posted).
    auto try_complete = [&](int r, size_t i) -> bool {
      if (recvs[r][i].reduce && !recvs[r][i].done)
        for (int j : recv_index[r].overlapping(recvs[r], recvs[r][i].storage, recvs[r][i].off, recvs[r][i].len))
          if (static_cast<size_t>(j) < i && !recvs[r][j].reduce && !complete_one(r, static_cast<size_t>(j)))
            return false;
      return complete_one(r, i);
    };
    // A local op waits for the pending recvs that write what it reads or
    // writes, and for the pending sends that read what it writes.
    auto ready = [&](int r, Range rd, Range wr, int64_t len) -> bool {
      std::vector<int> wait = recv_index[r].overlapping(recvs[r], rd.storage, rd.off, len);
      const std::vector<int> more = recv_index[r].overlapping(recvs[r], wr.storage, wr.off, len);
      wait.insert(wait.end(), more.begin(), more.end());
      std::sort(wait.begin(), wait.end());
      wait.erase(std::unique(wait.begin(), wait.end()), wait.end());
      for (int i : wait)
        if (!try_complete(r, static_cast<size_t>(i))) return false;
      return send_index[r].overlapping(sends[r], wr.storage, wr.off, len).empty();
    };

    bool all_done = false;
    while (true) {
      bool progress = false;
      all_done = true;
      for (int r = 0; r < e_; ++r) {
        const auto& ops = st.ranks[r];
        while (pc[r] < ops.size()) {
          const int oi = static_cast<int>(pc[r]);
          const Op& o = ops[oi];
          if (o.kind == OpKind::send || o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            if (o.peer < 0 || o.peer >= e_ || o.peer == r)
              fail(step, r, oi, fmt::format("peer {} is not another rank", o.peer));
          }
          if (o.kind == OpKind::send) {
            const Range g = resolve(step, r, oi, views[r], o.src, o.len);
            // Two recv-reduces into the same elements are fine: the receiver
            // applies them one after the other, in the order posted.
            if (!recv_index[r].overlapping(recvs[r], g.storage, g.off, o.len).empty())
              fail(step, r, oi, fmt::format("sends {}[{}, {}) while a recv into those elements is still in flight",
                                            name(o.src.buf), o.src.offset, o.src.offset + o.len));
            Pending p{g.storage, g.off, o.len, o.peer, false, oi, read(mem_[r][g.storage], g.off, o.len), knows_[r]};
            // A switch holds nothing of its own: what it sends it must have
            // received (and reduced) first, in an earlier step or before
            // this send in this one.
            if (s_.is_switch(r))
              for (const Cell& c : p.data)
                if (!c.defined)
                  fail(step, r, oi, fmt::format("sends {}[{}, {}) before it received anything there (a switch "
                                                "forwards only what it has received and reduced)",
                                                name(o.src.buf), o.src.offset + c.begin, o.src.offset + c.begin + c.len));
            link_sends[r][o.peer].push_back(static_cast<int>(sends[r].size()));
            send_index[r].add(p, static_cast<int>(sends[r].size()));
            sends[r].push_back(std::move(p));
          } else if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            const Range g = resolve(step, r, oi, views[r], o.dst, o.len);
            if (!send_index[r].overlapping(sends[r], g.storage, g.off, o.len).empty())
                fail(step, r, oi, fmt::format("receives into {}[{}, {}) while a send from those elements is still in "
                                              "flight (the buffer is reused too early: double-buffer it)",
                                              name(o.dst.buf), o.dst.offset, o.dst.offset + o.len));
            // A recv-reduce into elements that an earlier recv or recv-reduce
            // still in flight writes is fine: the receiver completes its
            // recvs in the order posted, so it lands (or reduces) the earlier
            // one first (one_shot's fold: out = x0, then out ⊕= x1, ...).
            // A plain recv behind any of them would overwrite: refused.
            if (o.kind != OpKind::recv_reduce && !recv_index[r].overlapping(recvs[r], g.storage, g.off, o.len).empty())
                fail(step, r, oi, fmt::format("two receives in flight into {}[{}, {})", name(o.dst.buf),
                                              o.dst.offset, o.dst.offset + o.len));
            recv_ordinal[r].push_back(link_recv_count[o.peer][r]++);
            recvs[r].push_back(Pending{g.storage, g.off, o.len, o.peer, o.kind == OpKind::recv_reduce, oi, {}, {}});
            recv_index[r].add(recvs[r].back(), static_cast<int>(recvs[r].size() - 1));
          } else if (o.kind == OpKind::swap) {
            auto& a = views[r][static_cast<int>(o.src.buf)];
            auto& b = views[r][static_cast<int>(o.dst.buf)];
            if (a.size != b.size)
              fail(step, r, oi, fmt::format("swaps {} ({} elements) with {} ({} elements)", name(o.src.buf), a.size,
                                            name(o.dst.buf), b.size));
            std::swap(a, b);
          } else {  // copy / reduce
            const Range src = resolve(step, r, oi, views[r], o.src, o.len);
            const Range dst = resolve(step, r, oi, views[r], o.dst, o.len);
            if (!ready(r, src, dst, o.len)) break;
            Cells data = read(mem_[r][src.storage], src.off, o.len);
            if (o.kind == OpKind::copy) {
              if (src.storage == dst.storage && src.off != dst.off && src.off < dst.off + o.len &&
                  dst.off < src.off + o.len)
                fail(step, r, oi, "copies between overlapping ranges");
              write(r, dst.storage, dst.off, data);
            } else {
              reduce_into(step, r, oi, dst.storage, dst.off, data);
            }
          }
          ++pc[r];
          progress = true;
        }
        if (pc[r] < ops.size()) {
          all_done = false;
        } else {  // at the end of its step a rank waits for (completes) its recvs
          for (size_t i = 0; i < recvs[r].size(); ++i)
            if (!recvs[r][i].done && try_complete(r, i)) progress = true;
        }
      }
      if (all_done && !progress) break;
      if (!all_done && !progress) {
        std::string blocked;
        for (int r = 0; r < e_; ++r)
          if (pc[r] < st.ranks[r].size())
            blocked += fmt::format("{}{} at op {}", blocked.empty() ? "" : ", ", endpoint_words(s_, r), pc[r]);
        fail(step, 0, -1, "deadlock: " + blocked + " wait for data that is never sent");
      }
    }
    // End of step: every recv completes, every send was received.
    for (int r = 0; r < e_; ++r)
      for (size_t i = 0; i < recvs[r].size(); ++i)
        if (!try_complete(r, i)) {
          const std::string peer = endpoint_words(s_, recvs[r][i].peer);
          fail(step, r, recvs[r][i].op_index, fmt::format("receives from {} but {} sends nothing matching", peer, peer));
        }
    for (int r = 0; r < e_; ++r)
      for (const Pending& p : sends[r])
        if (!p.done)
          fail(step, r, p.op_index, fmt::format("sends to {} which never receives it", endpoint_words(s_, p.peer)));
    for (int r = 0; r < e_; ++r)
      for (int b = 0; b < kNumBufs; ++b) layout_[r].view[b] = views[r][b];
  }

  // Expected contents of output element range of rank r, as a function
  // giving the terms for the element at position `pos`: returns the
  // boundaries at which the expectation changes form.
  void check_post() {
    const auto& sp = s_.spec;
    for (int r = 0; r < n_; ++r) {
      if (sp.collective == Collective::barrier) {
        for (int q = 0; q < n_; ++q)
          if (!knows_[r][q])
            fail(-1, r, -1, fmt::format("leaves the barrier without having heard (even indirectly) from rank {}", q));
        continue;
      }
      const auto& v = layout_[r].view[static_cast<int>(Buf::output)];
      const int64_t out = sp.output_count(r);
      // Region boundaries: blocks for the gathering collectives.
      std::vector<std::pair<int64_t, std::vector<Term>>> regions;  // start, terms at start
      auto all_ranks_at = [&](int64_t idx) {
        std::vector<Term> t;
        for (int q = 0; q < n_; ++q) t.push_back(Term{q, idx, 1});
        return t;
      };
      switch (sp.collective) {
        case Collective::broadcast: regions.push_back({0, {Term{sp.root, 0, 1}}}); break;
        case Collective::reduce:
        case Collective::all_reduce: regions.push_back({0, all_ranks_at(0)}); break;
        case Collective::gather:
        case Collective::all_gather:
          for (int q = 0; q < n_; ++q) regions.push_back({sp.displ(q), {Term{q, 0, 1}}});
          break;
        case Collective::scatter: regions.push_back({0, {Term{sp.root, sp.displ(r), 1}}}); break;
        case Collective::reduce_scatter: regions.push_back({0, all_ranks_at(sp.displ(r))}); break;
        case Collective::all_to_all:
          for (int q = 0; q < n_; ++q) regions.push_back({sp.count * q, {Term{q, sp.count * r, 1}}});
          break;
        case Collective::barrier: break;
      }
      if (out == 0) continue;
      Storage& st = mem_[r][v.storage];
      std::vector<int64_t> cuts;
      for (auto& [start, t] : regions) cuts.push_back(start);
      cuts.push_back(out);
      for (int64_t c : cuts) split_at(st, v.offset + std::min(c, out));
      Cells cells = read(st, v.offset, out);
      for (const Cell& c : cells) {
        if (c.len == 0) continue;
        // the region containing c.begin
        size_t ri = 0;
        while (ri + 1 < regions.size() && regions[ri + 1].first <= c.begin) ++ri;
        std::vector<Term> want = regions[ri].second;
        for (auto& t : want) t.idx += c.begin - regions[ri].first;
        std::sort(want.begin(), want.end(), [](const Term& x, const Term& y) { return x.rank < y.rank; });
        if (!c.defined || c.terms != want)
          fail(-1, r, -1, fmt::format("output[{}, {}) holds {} but should hold {}", c.begin, c.begin + c.len,
                                      describe(c.terms, c.defined), describe(want, true)));
      }
    }
    if (!sp.in_place) {
      for (int r = 0; r < n_; ++r) {
        const auto& v = layout_[r].view[static_cast<int>(Buf::input)];
        if (v.size == 0) continue;
        Cells now = read(mem_[r][v.storage], v.offset, v.size);
        const Cells want = initial_input(r);
        bool same = true;
        int64_t pos = 0;
        for (const Cell& c : now) {
          same = same && c.defined && c.terms.size() == 1 && c.terms[0] == Term{r, pos, 1};
          pos += c.len;
        }
        if (!same) fail(-1, r, -1, "an out-of-place call changed its input");
      }
    }
  }
};

}  // namespace

void check_schedule(const Schedule& s) {
  Checker c(s);
  c.run();
}

}  // namespace microddp
