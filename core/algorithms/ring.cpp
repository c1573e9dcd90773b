// The chunked ring (Patarasuk & Yuan 2009; Baidu's ring all-reduce).
//
// The vector is cut into n chunks (uneven when n does not divide count).
// Scatter-reduce: n-1 steps; in each, every rank sends one chunk to its
// right neighbour and reduces the chunk arriving from its left neighbour
// straight into place (recv-reduce), so after n-1 steps rank r holds chunk
// (r+1) mod n fully reduced. All-gather: n-1 more steps circulate the reduced
// chunks. Each rank sends 2(n-1)/n of the vector in 2(n-1) steps.
//
// segments > 1 (each chunk pipelined in segments) is in ring_pipelined.cpp.
// Every send here is matched by the recv its right neighbour posts in the
// same step; each rank sends before it receives, which is why the pairs are
// written as a send and a recv per rank and not as one transfer: the
// transfers of a ring form a cycle.
#include <fmt/format.h>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

// After this phase rank r holds chunk (r + shift) mod n of `work` reduced.
// `work` starts empty: each chunk is filled from the input (same layout)
// just before its first reduction, and step 0 sends straight from the
// input, so no rank copies the whole vector up front.
void scatter_reduce_phase(ScheduleBuilder& b, const Chunks& ch, Buf work, int shift) {
  const int n = b.spec().world_size;
  for (int s = 0; s < n - 1; ++s) {
    b.step("scatter-reduce");
    for (int r = 0; r < n; ++r) {
      const int cs = mod(r - s + shift - 1, n), cr = mod(r - s + shift - 2, n);
      b.send(r, mod(r + 1, n), {s == 0 ? Buf::input : work, ch.off[cs]}, ch.len(cs), cs);
      // Every chunk a rank receives in this phase is one it has not touched yet.
      copy_unless_same(b, r, {Buf::input, ch.off[cr]}, {work, ch.off[cr]}, ch.len(cr), cr);
      b.recv_reduce(r, mod(r - 1, n), {work, ch.off[cr]}, ch.len(cr), cr);
    }
  }
}

// Rank r starts holding chunk (r + shift) mod n of `work`; after n-1 steps
// every rank holds every chunk.
void all_gather_phase(ScheduleBuilder& b, const Chunks& ch, Buf work, int shift) {
  const int n = b.spec().world_size;
  for (int s = 0; s < n - 1; ++s) {
    b.step("all-gather");
    for (int r = 0; r < n; ++r) {
      const int cs = mod(r + shift - s, n), cr = mod(r + shift - s - 1, n);
      b.send(r, mod(r + 1, n), {work, ch.off[cs]}, ch.len(cs), cs);
      b.recv(r, mod(r - 1, n), {work, ch.off[cr]}, ch.len(cr), cr);
    }
  }
}

Schedule ring_all_reduce(const CollectiveSpec& s) {
  if (s.segments > 1) return ring_pipelined(s);
  ScheduleBuilder b(s);
  const int n = s.world_size;
  const Chunks ch{even_chunks(s.count, n)};
  b.set_chunks(ch.off);
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  scatter_reduce_phase(b, ch, Buf::output, 1);
  all_gather_phase(b, ch, Buf::output, 1);
  return b.finish();
}

Schedule ring_reduce_scatter(const CollectiveSpec& s) {
  if (s.segments > 1) return ring_pipelined(s);
  ScheduleBuilder b(s);
  const int n = s.world_size;
  const Chunks ch = rank_block_chunks(s);
  b.set_chunks(ch.off);
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.block(0), 0);
    return b.finish();
  }
  b.need(-1, Buf::accum, s.total());
  scatter_reduce_phase(b, ch, Buf::accum, 0);
  for (int r = 0; r < n; ++r) b.copy(r, {Buf::accum, ch.off[r]}, {Buf::output, 0}, ch.len(r), r);
  return b.finish();
}

Schedule ring_all_gather(const CollectiveSpec& s) {
  if (s.segments > 1) return ring_pipelined(s);
  ScheduleBuilder b(s);
  const Chunks ch = rank_block_chunks(s);
  b.set_chunks(ch.off);
  for (int r = 0; r < s.world_size; ++r)
    b.copy_first(r, {Buf::input, 0}, {Buf::output, ch.off[r]}, ch.len(r), r);
  all_gather_phase(b, ch, Buf::output, 0);
  return b.finish();
}

}  // namespace

namespace detail {
std::vector<AlgorithmInfo> ring_algorithms() {
  AlgorithmInfo ring;
  ring.name = "ring";
  ring.description = "chunked ring: n-1 steps of scatter-reduce, n-1 of all-gather; bandwidth-optimal";
  ring.layout = Layout::ring;
  ring.pipelines = true;
  ring.channels = true;
  ring.preferred = true;
  ring.compare_order = 3;
  ring.compare_reference = true;
  // The segmented ring double-buffers by swapping two buffer names, which
  // every channel would share (with_channels, registry.h).
  ring.refuse = [](const CollectiveSpec& sp) {
    if (sp.segments > 1 && sp.channels > 1)
      throw UsageError(fmt::format("channels = {} with segments = {}: the segmented ring swaps its two staging "
                                   "buffers, which channels would share; use segments or channels, not both",
                                   sp.channels, sp.segments));
  };
  // S = the whole vector (all_reduce) or one rank's block (all_gather,
  // reduce_scatter); k = segments, each chunk S/n moving as k messages.
  ring.serves.push_back(
      {Collective::all_reduce, ring_all_reduce,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    // C channels: C·k messages a step, each chunk/(C·k)
                    const double n1 = n - 1, k = double(sp.segments) * sp.channels, chunk = spec_bytes(sp) / n;
                    return n1 * (m.msgs(k, chunk / k) + m.reduce(chunk)) + n1 * m.msgs(k, chunk / k);
                  },
                  [](const CollectiveSpec& sp) -> std::string {
                    const char* a = sp.channels > 1 ? "2(n-1)C·α" : sp.segments > 1 ? "2(n-1)k·α" : "2(n-1)·α";
                    return fmt::format("{} + 2(n-1)/n·S·β + (n-1)/n·S·γ  (Patarasuk & Yuan 2009{})", a,
                                       sp.channels > 1 ? "; C channels as in NCCL" : "");
                  }}});
  ring.serves.push_back(
      {Collective::all_gather, ring_all_gather,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double n1 = sp.world_size - 1, C = sp.channels;
                    return n1 * m.msgs(C, spec_bytes(sp) / C);
                  },
                  [](const CollectiveSpec& sp) -> std::string {
                    return sp.channels > 1 ? "(n-1)·(C·α + S·β)  (Patarasuk & Yuan 2009; C channels)"
                                           : "(n-1)·(α + S·β)  (Patarasuk & Yuan 2009)";
                  }}});
  ring.serves.push_back(
      {Collective::reduce_scatter, ring_reduce_scatter,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double n1 = sp.world_size - 1, S = spec_bytes(sp), C = sp.channels;
                    return n1 * (m.msgs(C, S / C) + m.reduce(S));
                  },
                  [](const CollectiveSpec& sp) -> std::string {
                    return sp.channels > 1 ? "(n-1)·(C·α + S·β + S·γ)  (C channels)" : "(n-1)·(α + S·β + S·γ)";
                  }}});
  // Two-level, contiguous placement: in every step exactly one rank per node
  // (its last) sends its S/n chunk across, through its own NIC, while the
  // others send inside the node; each rank also reduces S/n in the
  // scatter-reduce half. A step costs the slower of the two messages.
  ring.two_level = [](const CollectiveSpec& sp, const TwoLevelPrices& t) -> std::optional<HockneyTime> {
    if (sp.collective != Collective::all_reduce || sp.segments > 1 || sp.channels > 1) return std::nullopt;
    const int n = sp.world_size;
    const double n1 = n - 1, chunk = spec_bytes(sp) / n;
    const HockneyTime in = t.intra.msgs(1, chunk), across = t.inter.msgs(1, chunk);
    const HockneyTime step = t.ranks_per_node > 1 && in.total() > across.total() ? in : across;
    return n1 * (step + t.intra.reduce(chunk)) + n1 * step;
  };
  return {ring};
}
}  // namespace detail

}  // namespace microddp
