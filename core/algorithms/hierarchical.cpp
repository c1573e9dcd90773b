// Hierarchical (two-level, "2D") ring all-reduce: reduce-scatter inside each
// node, all-reduce across nodes among the ranks with the same local index,
// all-gather inside each node. The shape NCCL's ring takes across nodes when
// its rings are built per rail, and the "2D-torus all-reduce" of Mikami et
// al., "Massively Distributed SGD: ImageNet/ResNet-50 Training in a Flash"
// (arXiv:1811.05233, 2018); analysed as the hierarchical ring by Ueno &
// Yokota, "Exhaustive Study of Hierarchical AllReduce Patterns for Large
// Messages Between GPUs" (CCGrid 2019).
//
// Placement (core/ir/topology.h): spec.nodes = N nodes, g = n / N ranks each,
// rank r = k·g + l on node k with local index l.
//   1. intra reduce-scatter, g−1 steps: the node's ring l → l+1 mod g over
//      the vector cut into g shards (even_chunks); local rank l ends holding
//      shard (l+1) mod g summed over its node.
//   2. inter all-reduce, 2(N−1) steps: the N ranks with local index l (one
//      per node, all holding the same shard) run the chunked ring on that
//      shard, cut into N pieces: N−1 scatter-reduce, N−1 all-gather steps.
//   3. intra all-gather, g−1 steps: the node's ring circulates the shards.
// 2(g−1) + 2(N−1) steps. N = 1 or g = 1 is exactly the chunked ring
// (ring.cpp), same ops.
//
// Bytes, S = the vector's bytes: each rank sends (g−1)/g·S in each intra
// phase and 2(N−1)/N of its S/g shard across nodes, so a node's ranks put
// g · 2(N−1)/N · S/g = 2(N−1)/N · S through the node's NICs in all (S for
// N = 2), spread over K NICs. The flat ring on the same placement crosses
// each node boundary once (contiguous ranks), so one rank per node sends
// EVERY step across: 2(n−1)/n · S through one NIC (1.875 S for n = 16).
#include <algorithm>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

Schedule hierarchical_all_reduce(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size, N = s.nodes, g = n / N;
  const Chunks shard{even_chunks(s.count, g)};
  b.set_chunks(shard.off);
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  const auto rank = [g](int node, int local) { return node * g + local; };
  // 1. intra reduce-scatter (ring.cpp's scatter-reduce on the node's ring).
  for (int st = 0; st < g - 1; ++st) {
    b.step("intra reduce-scatter");
    for (int k = 0; k < N; ++k)
      for (int l = 0; l < g; ++l) {
        const int r = rank(k, l), cs = mod(l - st, g), cr = mod(l - st - 1, g);
        b.send(r, rank(k, mod(l + 1, g)), {st == 0 ? Buf::input : Buf::output, shard.off[cs]}, shard.len(cs), cs);
        copy_unless_same(b, r, {Buf::input, shard.off[cr]}, {Buf::output, shard.off[cr]}, shard.len(cr), cr);
        b.recv_reduce(r, rank(k, mod(l - 1, g)), {Buf::output, shard.off[cr]}, shard.len(cr), cr);
      }
  }
  // 2. inter all-reduce of shard (l+1) mod g among local index l. With g = 1
  // nothing has been reduced yet: the data is still in the input, as in the
  // plain ring.
  const bool from_input = g == 1;
  std::vector<Chunks> piece(g);
  for (int l = 0; l < g; ++l) {
    const int c = mod(l + 1, g);
    piece[l].off = even_chunks(shard.len(c), N);
    for (auto& o : piece[l].off) o += shard.off[c];
  }
  for (int st = 0; st < N - 1; ++st) {
    b.step("inter scatter-reduce");
    for (int k = 0; k < N; ++k)
      for (int l = 0; l < g; ++l) {
        const int r = rank(k, l), c = mod(l + 1, g), cs = mod(k - st, N), cr = mod(k - st - 1, N);
        const Chunks& p = piece[l];
        b.send(r, rank(mod(k + 1, N), l), {st == 0 && from_input ? Buf::input : Buf::output, p.off[cs]}, p.len(cs),
               c);
        if (from_input) copy_unless_same(b, r, {Buf::input, p.off[cr]}, {Buf::output, p.off[cr]}, p.len(cr), c);
        b.recv_reduce(r, rank(mod(k - 1, N), l), {Buf::output, p.off[cr]}, p.len(cr), c);
      }
  }
  for (int st = 0; st < N - 1; ++st) {
    b.step("inter all-gather");
    for (int k = 0; k < N; ++k)
      for (int l = 0; l < g; ++l) {
        const int r = rank(k, l), c = mod(l + 1, g), cs = mod(k + 1 - st, N), cr = mod(k - st, N);
        const Chunks& p = piece[l];
        b.send(r, rank(mod(k + 1, N), l), {Buf::output, p.off[cs]}, p.len(cs), c);
        b.recv(r, rank(mod(k - 1, N), l), {Buf::output, p.off[cr]}, p.len(cr), c);
      }
  }
  // 3. intra all-gather: local rank l starts holding shard (l+1) mod g.
  for (int st = 0; st < g - 1; ++st) {
    b.step("intra all-gather");
    for (int k = 0; k < N; ++k)
      for (int l = 0; l < g; ++l) {
        const int r = rank(k, l), cs = mod(l + 1 - st, g), cr = mod(l - st, g);
        b.send(r, rank(k, mod(l + 1, g)), {Buf::output, shard.off[cs]}, shard.len(cs), cs);
        b.recv(r, rank(k, mod(l - 1, g)), {Buf::output, shard.off[cr]}, shard.len(cr), cr);
      }
  }
  return b.finish();
}

// The terms, with the intra-node phases priced by `intra` and the inter-node
// ones by `inter` carrying `share` messages per step on the busiest NIC.
HockneyTime hierarchical_time(const CollectiveSpec& sp, const HockneyPrices& intra, const HockneyPrices& inter,
                              int share) {
  const int n = sp.world_size, N = sp.nodes, g = n / N;
  const double S = spec_bytes(sp), shard = S / g, piece = S / n;
  const double g1 = g - 1, N1 = N - 1;
  return g1 * (intra.msgs(1, shard) + intra.reduce(shard)) + N1 * (inter.msgs(share, piece) + intra.reduce(piece)) +
         N1 * inter.msgs(share, piece) + g1 * intra.msgs(1, shard);
}

}  // namespace

namespace detail {
std::vector<AlgorithmInfo> hierarchical_algorithms() {
  AlgorithmInfo h;
  h.name = "hierarchical";
  h.description =
      "two-level ring: reduce-scatter in each node, ring all-reduce across nodes per local rank, all-gather in "
      "each node (--nodes)";
  h.layout = Layout::ring;
  // S = the vector's bytes, n ranks on N nodes of g. Flat model: every
  // message on the one link. Two-level: the inter phase's g ranks per node
  // share ⌈g/K⌉ to a NIC.
  h.serves.push_back(
      {Collective::all_reduce, hierarchical_all_reduce,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    return hierarchical_time(sp, m, m, 1);
                  },
                  fixed_text("2(g-1)·α + 2(g-1)/g·S·β + (g-1)/g·S·γ + 2(N-1)·α + 2(N-1)/n·S·β + (N-1)/n·S·γ, "
                             "g = n/N  (2D ring: Mikami et al. 2018; Ueno & Yokota 2019)")}});
  // Two-level: the intra phases on the intra link; in each inter step the
  // busiest NIC carries ⌈g/K⌉ messages of S/n bytes.
  h.two_level = [](const CollectiveSpec& sp, const TwoLevelPrices& t) -> std::optional<HockneyTime> {
    if (sp.collective != Collective::all_reduce) return std::nullopt;
    return hierarchical_time(sp, t.intra, t.inter, t.nic_share);
  };
  return {h};
}
}  // namespace detail

}  // namespace microddp
