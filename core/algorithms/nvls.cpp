// In-network reduction: the switch reduces. all_reduce "nvls".
//
// What it teaches. In NVLS (NVLink SHARP, NVSwitch 3 on H100 systems), SHARP
// (Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP): A
// Hardware Architecture for Efficient Data Reduction", COMHPC 2016) and
// NCCL's CollNet, the GPUs do not reduce: every rank's data goes UP to the
// switch once, the switch combines the n contributions in its own ALUs,
// and the result comes DOWN once. Per rank that is S bytes up and S bytes
// down, against the ring's 2(n-1)/n·S each way, and no reduction work on
// the ranks at all.
//
// The schedule (n >= 2; one switch endpoint, number n, core/ir/schedule.h):
//   step "up"    every rank sends its input to the switch, which receives
//                the n vectors into scratch[r·count ..] and reduces them in
//                rank order 0, 1, .., n-1 into accum (copy, then n-1
//                reduces), so every rank gets identical bits and a rerun the
//                same bits;
//   step "down"  the switch sends accum to every rank's output: one send per
//                rank in this IR, where a real switch replicates one packet
//                to its n ports (multicast: NCCL's multimem.st, one store
//                that the NVSwitch fans out).
// With segments = k > 1 the vector moves in k segments and the two
// directions overlap, as a switch's full-duplex ports let them: step i
// sends segment i up and segment i-1 down (k + 1 steps; "up", "up+down",
// .., "down"). Both per-rank link directions are then busy at once, which
// is why NVLS beats the ring on an NVSwitch: about S/bw instead of 2S/bw.
//
// Whole vector or per block? NCCL's NVLS all-reduce
// (NVIDIA/nccl src/device/all_reduce.h, runRing/runNvls, v2.19-2.28) is a
// reduce-scatter done with multimem.ld_reduce (GPU r asks the switch for the
// reduced block r) followed by an all-gather with multimem.st (GPU r stores
// its reduced block once; the switch multicasts it to every GPU). The
// traffic per GPU is the same S up and S down. microddp moves the whole
// vector through one switch endpoint instead: the switch is then one place
// that visibly holds every contribution and the sum, which is the idea to
// see; the per-block form only moves which GPU issues the request. The
// checker proves what the switch's accum holds after "up" (every rank's
// element i, once each).
//
// Cost. Flat model (core/model/cost_model.h): the switch is one more
// endpoint with one port, as the threads backend's switch thread is, so
// its n receives and n sends serialise:
//   (k+1)·n·(α + S/k·β) + (n-1)·S·γ
// (the closed form below; exact against the schedule for counts that split
// evenly). On a network with a switch link class
// (core/model/topology_model.h: Network::nvls) the switch has one port
// per rank each way, priced with that class's α and bandwidth, and reduces
// at line rate (no γ): (k+1)·max(α + S/k·β_link, α_sw + S/k·β_sw) — each
// rank's link and its switch port, in both directions at once.
//
// n = 1: no switch; a local copy (NCCL runs no NVLS for one rank).
// Refused: spec.nodes > 1 (one NVSwitch domain holds one node here).
#include <fmt/format.h>

#include "core/algorithms/common.h"

namespace microddp {
namespace {

Schedule nvls_all_reduce(const CollectiveSpec& s) {
  const int n = s.world_size;
  if (n == 1) {
    ScheduleBuilder b(s);
    b.step("copy");
    detail::copy_unless_same(b, 0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  const int sw = n;  // the switch endpoint
  const int k = std::max(1, s.segments);
  const std::vector<int64_t> seg = even_chunks(s.count, k);
  auto len = [&](int i) { return seg[i + 1] - seg[i]; };
  ScheduleBuilder b(s, 1);
  b.need(sw, Buf::scratch, static_cast<int64_t>(n) * s.count);
  b.need(sw, Buf::accum, s.count);
  for (int i = 0; i <= k; ++i) {
    const bool up = i < k, down = i > 0;
    b.step(up && down ? "up+down" : up ? "up" : "down");
    if (down)  // the switch's result of segment i-1, to every rank
      for (int r = 0; r < n; ++r)
        b.transfer(sw, r, {Buf::accum, seg[i - 1]}, {Buf::output, seg[i - 1]}, len(i - 1));
    if (up) {
      for (int r = 0; r < n; ++r)  // chunk r: rank r's vector travelling
        b.transfer(r, sw, {Buf::input, seg[i]}, {Buf::scratch, r * s.count + seg[i]}, len(i), r);
      b.copy(sw, {Buf::scratch, seg[i]}, {Buf::accum, seg[i]}, len(i), 0);
      for (int r = 1; r < n; ++r) b.reduce(sw, {Buf::scratch, r * s.count + seg[i]}, {Buf::accum, seg[i]}, len(i), r);
    }
  }
  return b.finish();
}

}  // namespace

namespace detail {
std::vector<AlgorithmInfo> nvls_algorithms() {
  AlgorithmInfo a;
  a.name = "nvls";
  a.description = "in-network reduction (NVLS / SHARP): every rank sends up once, the switch reduces, the result comes "
                  "down once";
  a.layout = Layout::switch_star;
  a.pipelines = true;
  a.whole_input_chunks = true;
  a.refuse = [](const CollectiveSpec& s) {
    if (s.nodes > 1)
      throw UsageError(fmt::format("nodes = {}: nvls reduces inside one node's switch; use hierarchical or ring "
                                   "across nodes",
                                   s.nodes));
  };
  // Flat model: the switch is one endpoint with one port (the threads
  // backend's switch thread): n messages of S/k in and out per step.
  a.serves.push_back(
      {Collective::all_reduce, nvls_all_reduce,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    const double k = std::max(1, sp.segments), S = spec_bytes(sp);
                    return (k + 1) * m.msgs(n, S / k) + m.reduce((n - 1) * S);
                  },
                  [](const CollectiveSpec& sp) -> std::string {
                    return sp.segments > 1
                               ? "(k+1)·n·(α + S/k·β) + (n-1)·S·γ  (the switch as one endpoint with one port, as "
                                 "the threads backend runs it; NVLS: Graham et al. 2016, NCCL all_reduce.h)"
                               : "2n·(α + S·β) + (n-1)·S·γ  (the switch as one endpoint with one port, as the "
                                 "threads backend runs it; NVLS: Graham et al. 2016, NCCL all_reduce.h)";
                  }}});
  // A switch with one port per rank each way (Network::nvls): every step a
  // rank's link carries S/k up and S/k down at once, the switch's port for
  // that rank the same, and the switch reduces at line rate; a step costs
  // the slower of the two.
  a.in_network = [](const CollectiveSpec& sp, const TwoLevelPrices& t) -> std::optional<HockneyTime> {
    if (!t.nvls || sp.collective != Collective::all_reduce || t.nodes > 1) return std::nullopt;
    const double k = std::max(1, sp.segments), m = spec_bytes(sp) / k;
    const HockneyTime link = t.intra.msgs(1, m), port = t.nvls->msgs(1, m);
    return (k + 1) * (port.total() > link.total() ? port : link);
  };
  return {a};
}
}  // namespace detail

}  // namespace microddp
