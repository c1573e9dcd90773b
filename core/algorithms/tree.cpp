// Tree-shaped algorithms: "naive" (a star: the root talks to every rank in
// turn), "tree" (binary tree in heap order, height ceil(log2(n+1)), as in
// the seed notes) and "binomial" (MPICH's binomial tree; Thakur et al. 2005).
// All work in virtual ranks v = (r - root) mod n so any root is legal.
//
// Gather and scatter through a tree need a layout in which every subtree's
// blocks are contiguous, so a relay forwards one message per link: blocks are
// staged in the tree's pre-order (DFS) order. For the star and for binomial
// trees rooted at 0 that order is the rank order, and no staging is needed.
#include <fmt/format.h>

#include <functional>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

Tree make_tree(Layout shape, int n) {
  Tree T;
  T.parent.assign(n, -1);
  T.children.assign(n, {});
  T.up_step.assign(n, -1);
  T.down_step.assign(n, -1);
  T.depth.assign(n, 0);
  if (shape == Layout::star) {
    for (int v = 1; v < n; ++v) {
      T.parent[v] = 0;
      T.children[0].push_back(v);
      T.up_step[v] = v - 1;
      T.down_step[v] = v - 1;
      T.depth[v] = 1;
    }
    T.up_steps = T.down_steps = n - 1;
  } else if (shape == Layout::tree) {
    int h = 0;  // height in levels: ceil(log2(n+1))
    while ((1 << h) - 1 < n) ++h;
    for (int v = 1; v < n; ++v) {
      T.parent[v] = (v - 1) / 2;
      T.children[(v - 1) / 2].push_back(v);
      int d = 0;
      while ((2 << d) - 1 <= v) ++d;  // depth = floor(log2(v+1))
      T.depth[v] = d;
      T.up_step[v] = (h - 1) - d;
      T.down_step[v] = d - 1;
    }
    T.up_steps = T.down_steps = std::max(0, h - 1);
  } else if (shape == Layout::binomial_tree) {
    int K = 0;
    while ((1 << K) < n) ++K;
    for (int v = 1; v < n; ++v) {
      int low = 0;
      while (!((v >> low) & 1)) ++low;
      T.parent[v] = v - (1 << low);
      T.up_step[v] = low;
      T.down_step[v] = K - 1 - low;
      T.depth[v] = T.depth[T.parent[v]] + 1;
    }
    // children in the order their data arrives on the way up (step j)
    for (int v = 0; v < n; ++v)
      for (int j = 0; j < K; ++j) {
        if (v != 0 && j >= T.up_step[v]) break;
        if (v + (1 << j) < n) T.children[v].push_back(v + (1 << j));
      }
    T.up_steps = T.down_steps = K;
  } else {
    throw std::logic_error(fmt::format("make_tree: layout '{}' is not a tree", name(shape)));
  }
  return T;
}

namespace detail {

void tree_reduce_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                       BufRange root_dst) {
  const auto& s = b.spec();
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  const int first = b.num_steps();
  for (int t = 0; t < std::max(1, T.up_steps); ++t) b.step(phase);
  // Where each vrank accumulates: the root into root_dst, inner nodes into
  // accum, leaves send their input as it is.
  auto acc = [&](int v) -> BufRange {
    if (v == 0) return root_dst;
    if (T.children[v].empty()) return {Buf::input, 0};
    return {Buf::accum, 0};
  };
  for (int v = 0; v < n; ++v) {
    const int r = rank(v);
    b.at(first);
    if (v == 0 || !T.children[v].empty()) {
      if (v != 0) b.need(r, Buf::accum, count);
      copy_unless_same(b, r, {Buf::input, 0}, acc(v), count);
    }
    for (int c : T.children[v]) {
      b.at(first + T.up_step[c]);
      b.recv_reduce(r, rank(c), acc(v), count);
    }
    if (v != 0) {
      b.at(first + T.up_step[v]);
      b.send(r, rank(T.parent[v]), acc(v), count);
    }
  }
}

void tree_broadcast_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, int64_t count,
                          BufRange root_src, Buf dst) {
  const auto& s = b.spec();
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  const int first = b.num_steps();
  for (int t = 0; t < T.down_steps; ++t) b.step(phase);
  for (int v = 1; v < n; ++v) {
    b.at(first + T.down_step[v]);
    const int p = T.parent[v];
    b.transfer(rank(p), rank(v), p == 0 ? root_src : BufRange{dst, 0}, {dst, 0}, count);
  }
}

}  // namespace detail

namespace {

// Block layout for gather/scatter through tree T: offset of vrank v's block
// and the extent of v's subtree, in "rank order" when that keeps every
// subtree contiguous, otherwise in pre-order (staged in scratch).
struct TreeLayout {
  bool rank_order = true;
  std::vector<int64_t> off, extent;  // per vrank
};

TreeLayout tree_layout(const CollectiveSpec& s, const Tree& T) {
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  std::vector<int> order;  // pre-order
  std::function<void(int)> dfs = [&](int v) {
    order.push_back(v);
    for (int c : T.children[v]) dfs(c);
  };
  dfs(0);
  bool identity = s.root == 0;
  for (int i = 0; i < n; ++i) identity = identity && order[i] == i;
  bool star = true;
  for (int v = 1; v < n; ++v) star = star && T.children[v].empty();
  TreeLayout L;
  L.rank_order = identity || star;
  L.off.assign(n, 0);
  L.extent.assign(n, 0);
  if (L.rank_order) {
    for (int v = 0; v < n; ++v) L.off[v] = s.displ(rank(v));
  } else {
    int64_t pos = 0;
    for (int v : order) {
      L.off[v] = pos;
      pos += s.block(rank(v));
    }
  }
  // extent of a subtree = own block + children's extents (contiguous by construction)
  std::function<int64_t(int)> ext = [&](int v) {
    int64_t e = s.block(rank(v));
    for (int c : T.children[v]) e += ext(c);
    return L.extent[v] = e;
  };
  ext(0);
  return L;
}

Schedule gen_broadcast(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(shape, s.world_size);
  const int64_t c = s.count;
  if (T.down_steps == 0) local_step(b, "broadcast");
  const int first = b.num_steps() - (T.down_steps == 0 ? 1 : 0);
  // The root sends straight from its input, so its own copy to the output
  // can happen in the same step without delaying anyone.
  detail::tree_broadcast_phase(b, T, "broadcast", c, {Buf::input, 0}, Buf::output);
  b.at(first);
  copy_unless_same(b, s.root, {Buf::input, 0}, {Buf::output, 0}, c);
  b.set_chunks({0, c});
  return b.finish();
}

Schedule gen_reduce(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(shape, s.world_size);
  detail::tree_reduce_phase(b, T, "reduce", s.count, {Buf::output, 0});
  b.set_chunks({0, s.count});
  return b.finish();
}

Schedule gen_all_reduce_tree(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(shape, s.world_size);
  detail::tree_reduce_phase(b, T, "reduce", s.count, {Buf::output, 0});
  detail::tree_broadcast_phase(b, T, "broadcast", s.count, {Buf::output, 0}, Buf::output);
  b.set_chunks({0, s.count});
  return b.finish();
}

// Gather every rank's block to the root's `root_dst` (rank order).
void gather_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, Buf root_dst) {
  const auto& s = b.spec();
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  const TreeLayout L = tree_layout(s, T);
  const int first = b.num_steps();
  for (int t = 0; t < std::max(1, T.up_steps); ++t) b.step(phase);
  const Buf stage0 = L.rank_order ? root_dst : Buf::scratch;
  auto stage = [&](int v) { return v == 0 ? stage0 : Buf::scratch; };
  for (int v = 0; v < n; ++v) {
    const int r = rank(v);
    const bool leaf = T.children[v].empty();
    if (v == 0 || !leaf) {
      if (stage(v) == Buf::scratch) b.need(r, Buf::scratch, L.off[v] + L.extent[v]);
      b.at(first);
      copy_unless_same(b, r, {Buf::input, 0}, {stage(v), L.off[v]}, s.block(r), v);
    }
    for (int c : T.children[v]) {
      b.at(first + T.up_step[c]);
      b.recv(r, rank(c), {stage(v), L.off[c]}, L.extent[c], rank(c));
    }
    if (v != 0) {
      b.at(first + T.up_step[v]);
      b.send(r, rank(T.parent[v]), leaf ? BufRange{Buf::input, 0} : BufRange{Buf::scratch, L.off[v]},
             L.extent[v], r);
    }
  }
  if (!L.rank_order) {  // the root unpacks pre-order into rank order
    b.at(b.num_steps() - 1);
    for (int v = 0; v < n; ++v)
      b.copy(s.root, {Buf::scratch, L.off[v]}, {root_dst, s.displ(rank(v))}, s.block(rank(v)), rank(v));
  }
}

// Scatter the root's `root_src` (rank order) so that rank r's block lands in
// its output.
void scatter_phase(ScheduleBuilder& b, const Tree& T, const std::string& phase, Buf root_src) {
  const auto& s = b.spec();
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  const TreeLayout L = tree_layout(s, T);
  const int first = b.num_steps();
  for (int t = 0; t < std::max(1, T.down_steps); ++t) b.step(phase);
  const Buf stage0 = L.rank_order ? root_src : Buf::scratch;
  b.at(first);
  if (!L.rank_order) {  // the root packs rank order into pre-order
    b.need(s.root, Buf::scratch, L.extent[0]);
    for (int v = 0; v < n; ++v)
      b.copy(s.root, {root_src, s.displ(rank(v))}, {Buf::scratch, L.off[v]}, s.block(rank(v)), rank(v));
  }
  copy_unless_same(b, s.root, {stage0, L.off[0]}, {Buf::output, 0}, s.block(s.root), s.root);
  for (int v = 1; v < n; ++v) {
    const int r = rank(v), p = T.parent[v];
    const bool leaf = T.children[v].empty();
    b.at(first + T.down_step[v]);
    b.send(rank(p), r, {p == 0 ? stage0 : Buf::scratch, L.off[v]}, L.extent[v], r);
    if (leaf) {
      b.recv(r, rank(p), {Buf::output, 0}, L.extent[v], r);
    } else {
      b.need(r, Buf::scratch, L.off[v] + L.extent[v]);
      b.recv(r, rank(p), {Buf::scratch, L.off[v]}, L.extent[v], r);
      b.copy(r, {Buf::scratch, L.off[v]}, {Buf::output, 0}, s.block(r), r);
    }
  }
}

Schedule gen_gather(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  gather_phase(b, make_tree(shape, s.world_size), "gather", Buf::output);
  return b.finish();
}

Schedule gen_scatter(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  scatter_phase(b, make_tree(shape, s.world_size), "scatter", Buf::input);
  return b.finish();
}

// The seed notes' "All-{op}": gather to the root, then broadcast from it.
Schedule gen_all_gather_naive(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(Layout::star, s.world_size);
  gather_phase(b, T, "gather", Buf::output);
  if (T.down_steps > 0)
    detail::tree_broadcast_phase(b, T, "broadcast", s.total(), {Buf::output, 0}, Buf::output);
  return b.finish();
}

// The seed notes' "{op}-scatter": reduce the whole input to the root, then
// scatter the blocks.
Schedule gen_reduce_scatter_naive(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(Layout::star, s.world_size);
  b.need(s.root, Buf::accum, s.total());
  detail::tree_reduce_phase(b, T, "reduce", s.total(), {Buf::accum, 0});
  if (T.down_steps > 0) {
    scatter_phase(b, T, "scatter", Buf::accum);
  } else {
    b.copy(s.root, {Buf::accum, 0}, {Buf::output, 0}, s.block(s.root), s.root);
  }
  return b.finish();
}

// Barrier over a tree: zero-byte "arrived" messages up, "release" down.
Schedule gen_barrier_tree(const CollectiveSpec& s, Layout shape) {
  ScheduleBuilder b(s);
  const Tree T = make_tree(shape, s.world_size);
  const int n = s.world_size;
  auto rank = [&](int v) { return mod(v + s.root, n); };
  int first = b.num_steps();
  for (int t = 0; t < T.up_steps; ++t) b.step("arrive");
  for (int v = 1; v < n; ++v) {
    b.at(first + T.up_step[v]);
    b.transfer(rank(v), rank(T.parent[v]), {Buf::input, 0}, {Buf::input, 0}, 0);
  }
  first = b.num_steps();
  for (int t = 0; t < T.down_steps; ++t) b.step("release");
  for (int v = 1; v < n; ++v) {
    b.at(first + T.down_step[v]);
    b.transfer(rank(T.parent[v]), rank(v), {Buf::input, 0}, {Buf::input, 0}, 0);
  }
  return b.finish();
}

// c_L for L = 1..h-1 of the heap-order binary tree (height h =
// ceil(log2(n+1))): children per parent at that level (1 or 2).
std::vector<int> tree_children_per_level(int n) {
  int h = 0;
  while ((1 << h) - 1 < n) ++h;
  std::vector<int> c;
  for (int L = 1; L < h; ++L) {
    const int64_t nodes = std::min<int64_t>(int64_t{1} << L, n - ((int64_t{1} << L) - 1));
    c.push_back(static_cast<int>(std::min<int64_t>(2, nodes)));
  }
  return c;
}

// Σ over the binary tree's levels of c_L · per (a parent serves its c_L
// children one after another).
HockneyTime tree_sum(int n, const HockneyTime& per) {
  HockneyTime t;
  for (int c : tree_children_per_level(n)) t += static_cast<double>(c) * per;
  return t;
}

// One message of S bytes, plus its reduction for reduce.
HockneyTime per_message(const CollectiveSpec& sp, const HockneyPrices& m) {
  const double S = spec_bytes(sp);
  return m.msgs(1, S) + (sp.collective == Collective::reduce ? m.reduce(S) : HockneyTime{});
}
std::string gamma_text(const CollectiveSpec& sp) { return sp.collective == Collective::reduce ? " + S·γ" : ""; }

using ShapedGenerator = Schedule (*)(const CollectiveSpec&, Layout);
Generator shaped(ShapedGenerator g, Layout shape) {
  return [g, shape](const CollectiveSpec& s) { return g(s, shape); };
}
using TimeFn = std::function<std::optional<HockneyTime>(const CollectiveSpec&, const HockneyPrices&)>;

}  // namespace

// Closed forms: S = the whole vector (broadcast, reduce, all_reduce) or one
// rank's block (gather, scatter, all_gather, reduce_scatter); c_L = children
// per parent at level L of the binary tree.
namespace detail {
std::vector<AlgorithmInfo> tree_algorithms() {
  AlgorithmInfo naive;
  naive.name = "naive";
  naive.description = "a star: the root talks to every rank in turn";
  naive.layout = Layout::star;
  naive.uses_root = true;
  naive.compare_order = 1;
  const Layout star = Layout::star;
  const TimeFn naive_rooted = [](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
    const double n1 = sp.world_size - 1;
    return n1 * per_message(sp, m);
  };
  const TimeFn naive_blocks = [](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
    const double n1 = sp.world_size - 1;
    return n1 * m.msgs(1, spec_bytes(sp));
  };
  const auto naive_rooted_text = [](const CollectiveSpec& sp) { return "(n-1)·(α + S·β" + gamma_text(sp) + ")"; };
  for (Collective c : {Collective::broadcast, Collective::reduce})
    naive.serves.push_back({c, shaped(c == Collective::broadcast ? gen_broadcast : gen_reduce, star),
                            ClosedForm{naive_rooted, naive_rooted_text}});
  naive.serves.push_back({Collective::gather, shaped(gen_gather, star),
                          ClosedForm{naive_blocks, fixed_text("(n-1)·(α + S·β)")}});
  naive.serves.push_back({Collective::scatter, shaped(gen_scatter, star),
                          ClosedForm{naive_blocks, fixed_text("(n-1)·(α + S·β)")}});
  naive.serves.push_back(
      {Collective::barrier, shaped(gen_barrier_tree, star),
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double n1 = sp.world_size - 1;
                    return 2 * n1 * m.msgs(1, 0);
                  },
                  fixed_text("2(n-1)·α")}});
  naive.serves.push_back(
      {Collective::all_reduce, shaped(gen_all_reduce_tree, star),
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double n1 = sp.world_size - 1, S = spec_bytes(sp);
                    return n1 * (m.msgs(2, S) + m.reduce(S));
                  },
                  fixed_text("(n-1)·(2α + 2S·β + S·γ)  (reduce to the root, then send back)")}});
  naive.serves.push_back(
      {Collective::all_gather, gen_all_gather_naive,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    const double n1 = n - 1, S = spec_bytes(sp);
                    return n1 * (m.msgs(1, S) + m.msgs(1, n * S));
                  },
                  fixed_text("(n-1)·(2α + S·β + n·S·β)")}});
  naive.serves.push_back(
      {Collective::reduce_scatter, gen_reduce_scatter_naive,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    const double n1 = n - 1, S = spec_bytes(sp);
                    return n1 * (m.msgs(1, n * S) + m.reduce(n * S) + m.msgs(1, S));
                  },
                  fixed_text("(n-1)·(2α + n·S·β + n·S·γ + S·β)")}});

  AlgorithmInfo tree;
  tree.name = "tree";
  tree.description = "binary tree in heap order: up to the root, then back down";
  tree.layout = Layout::tree;
  tree.uses_root = true;
  tree.compare_order = 2;
  const Layout bin = Layout::tree;
  for (Collective c : {Collective::broadcast, Collective::reduce})
    tree.serves.push_back(
        {c, shaped(c == Collective::broadcast ? gen_broadcast : gen_reduce, bin),
         ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                      return tree_sum(sp.world_size, per_message(sp, m));
                    },
                    [](const CollectiveSpec& sp) { return "Σ_levels c_L·(α + S·β" + gamma_text(sp) + ")"; }}});
  // Gather and scatter messages carry whole subtrees: no closed form.
  tree.serves.push_back({Collective::gather, shaped(gen_gather, bin), std::nullopt});
  tree.serves.push_back({Collective::scatter, shaped(gen_scatter, bin), std::nullopt});
  tree.serves.push_back(
      {Collective::barrier, shaped(gen_barrier_tree, bin),
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    return tree_sum(sp.world_size, m.msgs(2, 0));
                  },
                  fixed_text("Σ_levels 2c_L·α")}});
  tree.serves.push_back(
      {Collective::all_reduce, shaped(gen_all_reduce_tree, bin),
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double S = spec_bytes(sp);
                    return tree_sum(sp.world_size, m.msgs(2, S) + m.reduce(S));
                  },
                  fixed_text("Σ_levels c_L·(2α + 2S·β + S·γ)  (binary tree, c_L children per parent)")}});

  AlgorithmInfo binomial;
  binomial.name = "binomial";
  binomial.description = "MPICH's binomial tree: ⌈lg n⌉ steps, the informed ranks doubling each step";
  binomial.layout = Layout::binomial_tree;
  binomial.uses_root = true;
  const Layout bt = Layout::binomial_tree;
  for (Collective c : {Collective::broadcast, Collective::reduce})
    binomial.serves.push_back(
        {c, shaped(c == Collective::broadcast ? gen_broadcast : gen_reduce, bt),
         ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                      return static_cast<double>(ceil_lg(sp.world_size)) * per_message(sp, m);
                    },
                    [](const CollectiveSpec& sp) {
                      return "⌈lg n⌉·(α + S·β" + gamma_text(sp) + ")  (Thakur et al. 2005)";
                    }}});
  const ClosedForm binomial_blocks{
      [](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
        const int n = sp.world_size;
        if (floor_pow2(n) != n) return std::nullopt;  // subtree extents are uneven otherwise
        const double S = spec_bytes(sp);
        HockneyTime t;
        for (int j = 0; j < ceil_lg(n); ++j) t += m.msgs(1, S * static_cast<double>(1 << j));
        return t;
      },
      fixed_text("⌈lg n⌉·α + (n-1)·S·β  (Thakur et al. 2005)")};
  binomial.serves.push_back({Collective::gather, shaped(gen_gather, bt), binomial_blocks});
  binomial.serves.push_back({Collective::scatter, shaped(gen_scatter, bt), binomial_blocks});
  return {naive, tree, binomial};
}
}  // namespace detail

}  // namespace microddp
