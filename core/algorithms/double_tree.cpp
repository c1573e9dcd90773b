// double_binary_tree: NCCL's all_reduce over two binary trees (Sanders,
// Speck & Träff, "Two-tree algorithms for full bandwidth broadcast,
// reduction and scan", Parallel Computing 35(12), 2009; NCCL 2.4's "double
// binary tree"). Trees: make_double_tree (registry.h), after NVIDIA/nccl
// src/graph/trees.cc (ncclGetBtree / ncclGetDtree, commit 18a07ee): tree 0
// is the in-order binary tree on 1..n-1 found from the lowest set bit of the
// rank, hung under rank 0; tree 1 is tree 0 mirrored (rank r plays n-1-r)
// for even n, shifted by one (r plays r-1 mod n) for odd n. For even n every
// rank is interior (has a child) in at most one tree; for odd n rank 0 is
// interior in both (the root of tree 0, and the image of n-1 in tree 1):
// NCCL's shift gives that, and it is kept.
//
// Data: tree 0 carries the first half of the vector, tree 1 the second
// (even_chunks(count, 2)); each half is cut into k = spec.segments segments
// (even_chunks). Let h = the trees' height (largest depth, root depth 0) and
// d a rank's depth in tree t. Step numbers (both trees, every segment j in
// 0..k-1, the same steps):
//   reduce up:  a rank at depth d >= 1 sends segment j to its parent in step
//               j + h - d; so a rank at depth d receives its children's
//               segment j in step j + h - d - 1 (children sit at depth d+1),
//               one step before it forwards it, and the root (d = 0) has the
//               sum of segment j after step j + h - 1;
//   broadcast:  the root sends segment j down in step j + h; a rank at depth
//               d >= 1 receives it from its parent in step j + h + d - 1 and
//               forwards it in step j + h + d.
// Total: k + 2h - 1 steps (n >= 2). Up and down overlap from step h to step
// k + h - 2: phases "reduce" (up only), "reduce + broadcast", "broadcast".
// In one step a rank touches different segments in each direction, so no
// element is read and written in the same step.
//
// Combining order, fixed: own input, then child 0 (NCCL's down0), then child
// 1 (down1). The own part is copied into the output, child 0's segment is
// received and reduced straight in (recv_reduce), child 1's is received into
// scratch and reduced after it (reduce waits for both). The broadcast copies
// the root's bits, so every rank ends with the same bits.
#include <fmt/format.h>

#include <algorithm>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

// NCCL's in-order binary tree on ranks 0..n-1 rooted at 0: {parent, down0, down1}.
// Rank r > 0 with lowest set bit b: parent (r - b) + 2b, or r - b when that
// is out of range; down0 = r - b/2, down1 = r + b/2, or r + b/4, r + b/8, ...
// the first in range. Rank 0 has one child: half the first power of two >= n.
std::array<int, 3> nccl_btree(int n, int r) {
  if (r == 0) {
    int p = 1;
    while (p < n) p <<= 1;
    return {-1, -1, n > 1 ? p >> 1 : -1};
  }
  const int b = r & -r;
  int up = (r - b) | (b << 1);
  if (up >= n) up = r - b;
  int d0 = -1, d1 = -1;
  if (b > 1) {
    d0 = r - b / 2;
    for (int h = b / 2; h > 0; h >>= 1)
      if (r + h < n) {
        d1 = r + h;
        break;
      }
  }
  return {up, d0, d1};
}

}  // namespace

DoubleTree make_double_tree(int n) {
  if (n < 1) throw std::logic_error("make_double_tree: n must be >= 1");
  DoubleTree T;
  for (int t = 0; t < 2; ++t) {
    T.parent[t].assign(n, -1);
    T.children[t].assign(n, {});
    T.depth[t].assign(n, 0);
  }
  for (int r = 0; r < n; ++r) {
    const auto b0 = nccl_btree(n, r);
    T.parent[0][r] = b0[0];
    for (int i : {1, 2})
      if (b0[i] >= 0) T.children[0][r].push_back(b0[i]);
    // tree 1: r plays `role` in tree 0; map tree 0's ranks back
    const bool odd = n % 2 == 1;
    const int role = odd ? mod(r - 1, n) : n - 1 - r;
    const auto back = [&](int x) { return x < 0 ? -1 : odd ? mod(x + 1, n) : n - 1 - x; };
    const auto b1 = nccl_btree(n, role);
    T.parent[1][r] = back(b1[0]);
    for (int i : {1, 2})
      if (b1[i] >= 0) T.children[1][r].push_back(back(b1[i]));
  }
  for (int t = 0; t < 2; ++t) {
    for (int r = 0; r < n; ++r)
      if (T.parent[t][r] < 0) T.root[t] = r;
    // depths from the root down (children listed, so a walk in order)
    std::vector<int> order{T.root[t]};
    for (size_t i = 0; i < order.size(); ++i)
      for (int c : T.children[t][order[i]]) {
        T.depth[t][c] = T.depth[t][order[i]] + 1;
        order.push_back(c);
      }
    for (int r = 0; r < n; ++r) T.height = std::max(T.height, T.depth[t][r]);
  }
  return T;
}

namespace {

struct Segs {
  std::array<int64_t, 2> base{};          // offset of tree t's half
  std::array<std::vector<int64_t>, 2> s;  // segment offsets inside the half
  int64_t off(int t, int j) const { return base[t] + s[t][j]; }
  int64_t len(int t, int j) const { return s[t][j + 1] - s[t][j]; }
};

Segs cut(int64_t count, int k) {
  const auto half = even_chunks(count, 2);
  Segs g;
  for (int t = 0; t < 2; ++t) {
    g.base[t] = half[t];
    g.s[t] = even_chunks(half[t + 1] - half[t], k);
  }
  return g;
}

Schedule double_tree_all_reduce(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size, k = s.segments;
  const Segs g = cut(s.count, k);
  {
    std::vector<int64_t> chunks;  // segments of both halves, tree 0's first
    for (int t = 0; t < 2; ++t)
      for (int j = 0; j < k; ++j) chunks.push_back(g.off(t, j));
    chunks.push_back(s.count);
    b.set_chunks(chunks);
  }
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  const DoubleTree T = make_double_tree(n);
  const int h = T.height;
  const int steps = k + 2 * h - 1;
  for (int st = 0; st < steps; ++st)
    b.step(st < h ? "reduce" : st <= k + h - 2 ? "reduce + broadcast" : "broadcast");
  int64_t maxseg = 0;
  for (int t = 0; t < 2; ++t) maxseg = std::max(maxseg, g.len(t, 0));
  // chunk index of (tree t, segment j) in chunk_offsets
  const auto chunk = [&](int t, int j) { return t * k + j; };
  for (int st = 0; st < steps; ++st) {
    b.at(st);
    for (int t = 0; t < 2; ++t)
      for (int r = 0; r < n; ++r) {
        const int d = T.depth[t][r];
        const auto& kids = T.children[t][r];
        // up: receive the children's segment j = st - (h - d - 1)
        if (const int j = st - (h - d - 1); !kids.empty() && j >= 0 && j < k) {
          const BufRange out{Buf::output, g.off(t, j)};
          copy_unless_same(b, r, {Buf::input, g.off(t, j)}, out, g.len(t, j), chunk(t, j));
          const int c0 = kids[0];
          const BufRange c0_src = T.children[t][c0].empty() ? BufRange{Buf::input, g.off(t, j)} : out;
          b.transfer(c0, r, c0_src, out, g.len(t, j), chunk(t, j), ScheduleBuilder::Arrival::reduce);
          if (kids.size() > 1) {
            const int c1 = kids[1];
            const BufRange c1_src = T.children[t][c1].empty() ? BufRange{Buf::input, g.off(t, j)} : out;
            const BufRange tmp{Buf::scratch, t * maxseg};
            b.need(r, Buf::scratch, 2 * maxseg);
            b.transfer(c1, r, c1_src, tmp, g.len(t, j), chunk(t, j));
            b.reduce(r, tmp, out, g.len(t, j), chunk(t, j), j);
          }
        }
        // down: receive segment j = st - (h + d - 1) from the parent
        if (const int j = st - (h + d - 1); d >= 1 && j >= 0 && j < k) {
          const BufRange out{Buf::output, g.off(t, j)};
          b.transfer(T.parent[t][r], r, out, out, g.len(t, j), chunk(t, j));
        }
      }
  }
  // Op::segment for display: the segment index of every message.
  Schedule sch = b.finish();
  for (auto& stp : sch.steps)
    for (auto& ops : stp.ranks)
      for (Op& o : ops)
        if (o.chunk >= 0) o.segment = o.chunk % k;
  return sch;
}

// The schedule's own count, step by step, from the two trees: per step the
// busiest rank's max(messages sent, received) × (α + m·β) + reduced·m·γ, m
// = S/(2Ck) bytes per message; C channels multiply the messages. Exact when
// 2Ck divides the count (every message the same size).
std::optional<HockneyTime> double_tree_time(const CollectiveSpec& sp, const HockneyPrices& p) {
  const int n = sp.world_size, k = sp.segments, C = sp.channels;
  const DoubleTree T = make_double_tree(n);
  const int h = T.height, steps = k + 2 * h - 1;
  const double m = spec_bytes(sp) / (2.0 * k * C);
  const auto in_window = [&](int st, int first) { return st - first >= 0 && st - first < k; };
  HockneyTime total;
  for (int st = 0; st < steps; ++st) {
    HockneyTime worst;
    bool any = false;
    for (int r = 0; r < n; ++r) {
      int out = 0, in = 0, red = 0;
      for (int t = 0; t < 2; ++t) {
        const int d = T.depth[t][r], kids = static_cast<int>(T.children[t][r].size());
        if (d >= 1 && in_window(st, h - d)) ++out;
        if (kids > 0 && in_window(st, h - d - 1)) in += kids, red += kids;
        if (d >= 1 && in_window(st, h + d - 1)) ++in;
        if (kids > 0 && in_window(st, h + d)) out += kids;
      }
      const HockneyTime mine = p.msgs(static_cast<double>(C) * std::max(out, in), m) + p.reduce(C * red * m);
      if (!any || mine.total() > worst.total()) worst = mine;
      any = true;
    }
    total += worst;
  }
  return total;
}

std::string double_tree_text(const CollectiveSpec& sp) {
  const int h = make_double_tree(sp.world_size).height;
  return fmt::format(
      "k + 2h − 1 = {} steps (h = {}), each Σ busiest rank's max(sent, received)·(α + S/(2Ck)·β) + reduced·S/(2Ck)·γ; "
      "at most 4C messages each way a step  (Sanders, Speck & Träff 2009; NCCL 2.4)",
      sp.segments + 2 * h - 1, h);
}

}  // namespace

namespace detail {
std::vector<AlgorithmInfo> double_tree_algorithms() {
  AlgorithmInfo a;
  a.name = "double_binary_tree";
  a.description = "NCCL's double binary tree: two trees, each carrying half the vector, pipelined in segments";
  a.layout = Layout::double_tree;
  // Chunk t·k + j is tree t's segment j; channels renumber c·2k + (t·k + j).
  a.layout_part = [](const CollectiveSpec& s, int chunk) {
    const int k = std::max(s.segments, 1);
    return chunk < 0 ? -1 : chunk % (2 * k) / k;
  };
  a.pipelines = true;
  a.channels = true;
  a.serves.push_back({Collective::all_reduce, double_tree_all_reduce, ClosedForm{double_tree_time, double_tree_text}});
  return {a};
}
}  // namespace detail

}  // namespace microddp
