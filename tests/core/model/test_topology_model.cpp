// The two-level network model: on a flat topology it is today's model bit for
// bit; bytes per port on 2 nodes x 4 by hand; the hierarchical closed forms
// against the schedule; --algorithm auto's choices.
#include <doctest/doctest.h>

#include "approx.h"

#include <cmath>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/model/topology_model.h"

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, int nodes = 1) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = c == Collective::barrier ? 0 : count;
  s.nodes = nodes;
  return s;
}
Network net(int n, int nodes, int nics, const CostParams& intra, const CostParams& inter) {
  Network w;
  w.topo = Topology::make(n, nodes, nics);
  w.intra = intra;
  w.inter = inter;
  return w;
}
CostParams pow2_link(double alpha, double bw, double gamma = 0) {
  CostParams p;
  p.alpha = alpha;
  p.beta = 1.0 / bw;
  p.gamma = gamma;
  return p;
}
const std::vector<Collective> kAll = {Collective::broadcast, Collective::reduce,         Collective::gather,
                                      Collective::scatter,   Collective::all_reduce,     Collective::all_gather,
                                      Collective::reduce_scatter, Collective::all_to_all, Collective::barrier};
int64_t port_bytes(const NetworkPrediction& p, const Topology& t, Port port) {
  return p.port_bytes[static_cast<size_t>(port_id(t, port))];
}
}  // namespace

TEST_SUITE("topology_model") {
  TEST_CASE("one node, or one rank per node with one NIC on equal links: exactly predict(s, p)") {
    CostParams odd = pow2_link(1.0 / 1024, 1 << 20, 1.0 / (1 << 22));
    odd.delta = 1.0 / (1 << 23);
    odd.break_bytes = 64;
    odd.alpha_small = 1.0 / 4096;
    odd.beta_small = 1.0 / (1 << 18);
    CostParams fused = odd;
    fused.fused_recv_reduce = true;
    for (const CostParams& p : {preset("nvlink"), preset("ethernet-10g"), odd, fused})
      for (Collective c : kAll)
        for (const auto& alg : algorithms_for(c))
          for (int n : {1, 2, 3, 4, 5, 8})
            for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{1000}}) {
              CAPTURE(name(c)); CAPTURE(alg); CAPTURE(n); CAPTURE(count);
              const Schedule s = make_schedule(spec(c, alg, n, count));
              const Prediction want = predict(s, p);
              for (const Network& w : {net(n, 1, 1, p, p), net(n, n, 1, p, p)}) {
                const Prediction got = predict(s, w).pr;
                REQUIRE(got.step_s.size() == want.step_s.size());
                for (size_t i = 0; i < want.step_s.size(); ++i) {
                  CHECK(got.step_s[i] == want.step_s[i]);  // bit for bit
                  CHECK(got.critical_rank[i] == want.critical_rank[i]);
                }
                CHECK(got.lockstep_s == want.lockstep_s);
                CHECK(got.lockstep.alpha_s == want.lockstep.alpha_s);
                CHECK(got.lockstep.beta_s == want.lockstep.beta_s);
                CHECK(got.lockstep.gamma_s == want.lockstep.gamma_s);
                CHECK(got.lockstep.delta_s == want.lockstep.delta_s);
                CHECK(got.pipelined_s == want.pipelined_s);
              }
            }
  }

  TEST_CASE("bytes per port on 2 nodes x 4, count 8 float32 (S = 32 B), one NIC per node, by hand") {
    const CostParams l = preset("nvlink");
    const Network w = net(8, 2, 1, l, preset("infiniband"));
    const Topology& t = w.topo;
    const Port nic0_out{PortKind::nic_out, 0}, nic0_in{PortKind::nic_in, 0}, nic1_out{PortKind::nic_out, 1};
    SUBCASE("ring: 14 steps of one 4-byte chunk per rank; R3 -> R4 and R7 -> R0 cross") {
      const auto p = predict(make_schedule(spec(Collective::all_reduce, "ring", 8, 8, 2)), w);
      CHECK(port_bytes(p, t, nic0_out) == 14 * 4);
      CHECK(port_bytes(p, t, nic0_in) == 14 * 4);
      CHECK(p.bytes_inter == 2 * 14 * 4);
      CHECK(p.bytes_intra == 8 * 14 * 4 - 2 * 14 * 4);
      CHECK(port_bytes(p, t, {PortKind::intra_out, 3}) == 0);
      CHECK(port_bytes(p, t, {PortKind::intra_out, 0}) == 14 * 4);
    }
    SUBCASE("naive: 7 ranks send 32 B to R0 and get 32 B back; R4..R7 are across") {
      const auto p = predict(make_schedule(spec(Collective::all_reduce, "naive", 8, 8, 2)), w);
      CHECK(p.bytes_inter == 2 * 4 * 32);
      CHECK(p.bytes_intra == 2 * 3 * 32);
      CHECK(port_bytes(p, t, nic0_in) == 4 * 32);
      CHECK(port_bytes(p, t, nic0_out) == 4 * 32);
      CHECK(port_bytes(p, t, nic1_out) == 4 * 32);
    }
    SUBCASE("tree (binary, heap order): edges 1-0 2-0 3-1 inside, 4-1 5-2 6-2 7-3 across, 32 B each way") {
      const auto p = predict(make_schedule(spec(Collective::all_reduce, "tree", 8, 8, 2)), w);
      CHECK(p.bytes_inter == 2 * 4 * 32);
      CHECK(p.bytes_intra == 2 * 3 * 32);
      CHECK(port_bytes(p, t, nic1_out) == 4 * 32);
      CHECK(port_bytes(p, t, nic0_out) == 4 * 32);
    }
    SUBCASE("hierarchical: 2 x 3 intra steps of 8 B per rank; 2 inter steps of 4 B per rank") {
      const auto p = predict(make_schedule(spec(Collective::all_reduce, "hierarchical", 8, 8, 2)), w);
      CHECK(p.bytes_intra == 2 * 3 * 8 * 8);
      CHECK(p.bytes_inter == 2 * 8 * 4);
      CHECK(port_bytes(p, t, nic0_out) == 4 * 2 * 4);  // 4 ranks share the NIC
      CHECK(port_bytes(p, t, {PortKind::intra_out, 5}) == 2 * 3 * 8);
      CHECK(port_name(t, p.bottleneck).find("NIC") != std::string::npos);
      // rail-optimised (4 NICs): each NIC carries one rank's 2 x 4 B
      const Network rail = net(8, 2, 4, l, preset("infiniband"));
      const auto q = predict(make_schedule(spec(Collective::all_reduce, "hierarchical", 8, 8, 2)), rail);
      for (int k = 0; k < 8; ++k) CHECK(q.port_bytes[static_cast<size_t>(port_id(rail.topo, {PortKind::nic_out, k}))] == 8);
    }
  }

  TEST_CASE("the flat ring crosses each node boundary once: only rank k·g + g − 1 sends across") {
    for (int N = 2; N <= 4; ++N)
      for (int g = 1; g <= 4; ++g) {
        const int n = N * g;
        const Topology t = Topology::make(n, N);
        const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", n, 3 * n));
        for (const Step& st : s.steps)
          for (int r = 0; r < n; ++r)
            for (const Op& op : st.ranks[r])
              if (op.kind == OpKind::send) CHECK(t.same_node(r, op.peer) == (t.local_of(r) != g - 1));
      }
  }

  TEST_CASE("2 nodes x 8, S = 4 MiB: the flat ring puts 1.875 S through a node's NIC, hierarchical S") {
    const int64_t S = 4 << 20;
    const Network w = net(16, 2, 1, preset("nvlink"), preset("infiniband"));
    const auto ring = predict(make_schedule(spec(Collective::all_reduce, "ring", 16, S / 4, 2)), w);
    const auto h = predict(make_schedule(spec(Collective::all_reduce, "hierarchical", 16, S / 4, 2)), w);
    const size_t nic0 = static_cast<size_t>(port_id(w.topo, {PortKind::nic_out, 0}));
    CHECK(ring.port_bytes[nic0] == S / 16 * 30);  // 2(n-1)/n · S = 1.875 S
    CHECK(h.port_bytes[nic0] == S);               // 8 ranks · 2(N-1)/N · S/8
    // The NIC dominates both: the time ratio approaches 1.875 minus the
    // hierarchical's intra phases.
    CHECK(ring.pr.lockstep_s / h.pr.lockstep_s > 1.5);
    CHECK(ring.pr.lockstep_s / h.pr.lockstep_s < 1.875);
  }

  TEST_CASE("rails: C channels of the ring on 2 nodes x 8 with 8 NICs cross through C NICs, S/C bytes each") {
    // 2 × 8 ranks, 8 NICs per node (rank r uses NIC r mod 8), S = 64 MiB.
    // One channel: rank 7 carries 2(n-1)/n · S = 1.875 S through NIC 7. C
    // channels: channel c leaves node 0 from local rank (c + 7) mod 8, so
    // NICs 7, 0, 1, ... each carry 1.875 S / C and the rest none.
    const int64_t S = int64_t{64} << 20;
    const Network w = net(16, 2, 8, preset("nvlink"), preset("infiniband"));
    for (const int C : {1, 2, 4, 8}) {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 16, S / 4, 2);
      s.channels = C;
      const Schedule sch = make_schedule(s);
      CHECK_NOTHROW(check_schedule(sch));
      const auto p = predict(sch, w);
      int used = 0;
      for (int k = 0; k < 8; ++k) {
        const int64_t b = port_bytes(p, w.topo, {PortKind::nic_out, k});
        const bool crosses = k == 7 || k < C - 1;
        CHECK(b == (crosses ? S / 16 * 30 / C : 0));
        used += b > 0;
      }
      CHECK(used == C);
    }
    // The α term is per message, whichever port sets the step: 8 channels'
    // ring on dgx-h100's shape (nvlink4 1 us, ndr 2 us), 30 steps, each
    // rank's intra out port carrying 7 channels' messages a step (7 us) at
    // every size, though a NIC port sets the step at 1 GiB.
    const Network h = net(16, 2, 8, pow2_link(1e-6, 450e9), pow2_link(2e-6, 50e9));
    for (const int64_t S : {int64_t{1} << 20, int64_t{1} << 30}) {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 16, S / 4, 2);
      s.channels = 8;
      const auto p = predict(make_schedule(s), h);
      CHECK(p.pr.lockstep.alpha_s == rel(30 * 7e-6));
      CHECK(p.pr.lockstep.alpha_s + p.pr.lockstep.beta_s == rel(p.pr.lockstep_s));
    }
    // One node: channels are not relabelled (no NIC to spread over).
    CollectiveSpec one = spec(Collective::all_reduce, "ring", 8, 64, 1);
    one.channels = 2;
    const Schedule a = make_schedule(one);
    for (const Op& op : a.steps[0].ranks[0])
      if (op.kind == OpKind::send) CHECK(op.peer == 1);
  }

  TEST_CASE("hierarchical closed forms equal the schedule: flat model, and two-level for K in 1..g") {
    const CostParams a = pow2_link(1.0 / 1024, 1 << 20, 1.0 / (1 << 22));
    const CostParams b = pow2_link(1.0 / 256, 1 << 16);
    for (int N = 1; N <= 4; ++N)
      for (int g = 1; g <= 4; ++g) {
        const int n = N * g;
        for (int64_t count : {int64_t(n), int64_t(4 * n), int64_t(n + 1), int64_t(3 * n + 2)}) {
          CAPTURE(N); CAPTURE(g); CAPTURE(count);
          const CollectiveSpec sp = spec(Collective::all_reduce, "hierarchical", n, count, N);
          const Schedule s = make_schedule(sp);
          const bool even = count % n == 0;
          // Uneven: the schedule's largest piece is one element above S/n,
          // its largest shard one above S/g: within one element per message.
          const double es = 4, steps = s.num_steps();
          {
            const Prediction pr = predict(s, a);
            const auto cf = closed_form(sp, a);
            REQUIRE(cf);
            if (even) CHECK(cf->total() == rel(pr.lockstep_s).epsilon(1e-12));
            else CHECK(std::abs(cf->total() - pr.lockstep_s) <= steps * es * (a.beta + a.gamma) + 1e-15);
          }
          for (int K = 1; K <= g; ++K) {
            CAPTURE(K);
            const Network w = net(n, N, K, a, b);
            const auto pr = predict(s, w).pr;
            const auto cf = closed_form(sp, w);
            REQUIRE(cf);
            const double share = (g + K - 1) / K;
            if (even) CHECK(cf->total() == rel(pr.lockstep_s).epsilon(1e-12));
            else
              CHECK(std::abs(cf->total() - pr.lockstep_s) <=
                    steps * share * es * (a.beta + a.gamma + b.beta) + 1e-15);
          }
        }
      }
    // By hand, 2 x 2, S = 16 B, K = 1: intra 2 steps of (α_a + 8β_a) plus
    // one reduce of 8 B; inter 2 steps with 2 messages of 4 B on one NIC.
    const CollectiveSpec sp = spec(Collective::all_reduce, "hierarchical", 4, 4, 2);
    const Network w = net(4, 2, 1, a, b);
    const double want = 2 * (a.alpha + 8 * a.beta) + 8 * a.gamma + 2 * 2 * (b.alpha + 4 * b.beta) + 4 * a.gamma;
    CHECK(predict(make_schedule(sp), w).pr.lockstep_s == rel(want).epsilon(1e-12));
  }

  TEST_CASE("the flat ring's two-level closed form equals the schedule (contiguous placement)") {
    const CostParams a = pow2_link(1.0 / 1024, 1 << 20, 1.0 / (1 << 22));
    const CostParams b = pow2_link(1.0 / 256, 1 << 16);
    for (int N = 2; N <= 4; ++N)
      for (int g = 1; g <= 4; ++g) {
        const int n = N * g;
        CAPTURE(N); CAPTURE(g);
        const CollectiveSpec sp = spec(Collective::all_reduce, "ring", n, 4 * n, N);
        for (int K = 1; K <= g; ++K) {
          const Network w = net(n, N, K, a, b);
          const auto cf = closed_form(sp, w);
          REQUIRE(cf);
          CHECK(cf->total() == rel(predict(make_schedule(sp), w).pr.lockstep_s).epsilon(1e-12));
        }
        // and with a fast inter link, the intra message sets the pace (g > 1)
        const Network fast = net(n, N, 1, b, a);
        CHECK(closed_form(sp, fast)->total() ==
              rel(predict(make_schedule(sp), fast).pr.lockstep_s).epsilon(1e-12));
      }
  }

  TEST_CASE("auto picks the lowest predicted time; a table of cases") {
    struct Case {
      int n, nodes;
      int64_t bytes;
      CostParams intra, inter;
      const char* want;
      const char* why;
    };
    const CostParams nv = preset("nvlink"), ib = preset("infiniband"), eth = preset("ethernet-10g");
    const std::vector<Case> cases = {
        {8, 1, 8, nv, nv, "recursive_doubling", "8 B: log2 n = 3 steps of α beat every other step count"},
        {8, 1, 128 << 20, nv, nv, "halving_doubling", "128 MiB: bandwidth-optimal with 2 log2 n steps, not 2(n-1)"},
        {6, 1, 128 << 20, nv, nv, "ring",
         "n = 6: halving-doubling pays the non-power-of-two fix-up; two_shot ties with the ring (same α-β terms), "
         "the earlier wins"},
        {16, 2, 8, nv, ib, "double_binary_tree",
         "8 B on 2 nodes: NCCL's double tree, 2h = 8 steps but few NIC crossings, beats recursive doubling's 4"},
        {16, 2, 1 << 30, nv, ib, "hierarchical", "1 GiB on 2 nodes: S through each NIC instead of 1.875 S"},
        {8, 2, 1 << 20, nv, eth, "hierarchical", "a slow NIC and 1 MiB"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.why);
      const CollectiveSpec sp = spec(Collective::all_reduce, "auto", c.n, c.bytes / 4, c.nodes);
      const Network w = net(c.n, c.nodes, 1, c.intra, c.inter);
      const AutoChoice ch = c.nodes > 1 ? choose_algorithm(sp, c.intra, &w) : choose_algorithm(sp, c.intra);
      CHECK(ch.chosen == c.want);
      // every registered all_reduce accepts, but nvls on more than one node
      CHECK(ch.candidates.size() == algorithms_for(Collective::all_reduce).size() - (c.nodes > 1 ? 1 : 0));
      for (const auto& cand : ch.candidates)
        if (cand.algorithm == ch.chosen)
          for (const auto& other : ch.candidates) CHECK(cand.time_s <= other.time_s * (1 + 1e-9));
    }
    // Segments > 1: only the algorithms that pipeline are candidates.
    CollectiveSpec seg = spec(Collective::all_reduce, "auto", 4, 1 << 20);
    seg.segments = 4;
    const AutoChoice ch = choose_algorithm(seg, nv);
    for (const auto& cand : ch.candidates) CHECK(find_algorithm(cand.algorithm, Collective::all_reduce)->pipelines);
  }

  TEST_CASE("bad topologies and links are refused, naming the value") {
    CHECK_THROWS_WITH_AS(Topology::make(6, 4), doctest::Contains("--ranks 6 is not divisible by --nodes 4"),
                         UsageError);
    CHECK_THROWS_WITH_AS(Topology::make(8, 2, 0), doctest::Contains("--nics-per-node 0"), UsageError);
    CHECK_THROWS_WITH_AS(Topology::make(8, 2, 5), doctest::Contains("--nics-per-node 5"), UsageError);
    CHECK_THROWS_WITH_AS(parse_link("--inter", "infiniband2"), doctest::Contains("--inter 'infiniband2'"), UsageError);
    CHECK_THROWS_WITH_AS(parse_link("--intra", "1e-6,0"), doctest::Contains("--intra '1e-6,0'"), UsageError);
    // Values that would make a prediction inf or NaN, and hex floats, are refused.
    const std::string range = "needs ALPHA,BW in decimal: α in seconds from 0 to 10, bandwidth in bytes per second from 1 to 1e+15";
    for (const char* v : {"1e308,1e9", "10.5,1e9", "0,1e-300", "1e-6,1e-320", "1e-6,0.5", "1e-6,2e15", "0x1p-10,0x10",
                          "0x0,1e9", "inf,1e9", "nan,1e9", "1e-6,inf"})
      CHECK_THROWS_WITH_AS(parse_link("--inter", v), (std::string("--inter '") + v + "' " + range).c_str(), UsageError);
    CHECK(parse_link("--inter", "10,1").alpha == 10);  // the bounds themselves load
    CHECK(parse_link("--inter", "0,1e15").beta == 1e-15);
    const CostParams p = parse_link("--intra", "2e-6,5e10");
    CHECK(p.alpha == 2e-6);
    CHECK(p.beta == 1.0 / 5e10);
    CHECK(network_preset("dgx-h100").nics_per_node == 8);
  }
}

TEST_SUITE("topology_model") {
  TEST_CASE("a cache curve prices a node's memory work at the node's footprint; NIC messages keep the link's β") {
    constexpr double MiB = 1024.0 * 1024;
    // A hand-made curve: 1 MiB, 10 MiB and 1 GiB of working set, β, γ, δ
    // slower with each level; the flat values are what a NIC is priced at.
    CacheCurve curve;
    curve.footprint_bytes = {1 * MiB, 10 * MiB, 1024 * MiB};
    curve.beta = {1 / 40e9, 1 / 16e9, 1 / 8e9};
    curve.gamma = {1 / 32e9, 1 / 12.8e9, 1 / 6.4e9};
    curve.delta = {1 / 50e9, 1 / 20e9, 1 / 10e9};
    CostParams mem = pow2_link(1e-6, 8e9, 1 / 6.4e9);
    mem.delta = 1 / 10e9;
    mem.cache = curve;
    // One node: exactly predict(s, p), footprints included (cost_model.h's rule).
    for (int n : {2, 3, 4})
      for (double bytes : {64.0 * 1024, 4 * MiB, 64 * MiB}) {
        CAPTURE(n); CAPTURE(bytes);
        const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", n, static_cast<int64_t>(bytes / 4)));
        const Prediction want = predict(s, mem);
        const Prediction got = predict(s, net(n, 1, 1, mem, mem)).pr;
        CHECK(got.footprint_bytes == want.footprint_bytes);
        CHECK(got.step_s == want.step_s);
        CHECK(got.lockstep_s == want.lockstep_s);
      }
    // 2 nodes x 2, ring all-reduce of 4 MiB (1 MiB chunks), papers' sends.
    // Step 0: every rank copies its chunk (2 MiB of traffic) and
    // recv_reduces its left neighbour's (3 MiB): 5 MiB x 2 ranks = 10 MiB
    // per node, the curve's middle point. R1 -> R2 and R3 -> R0 cross nodes.
    CostParams nic = pow2_link(5e-6, 100e9);  // faster than memory, so R1's intra port is its busiest
    nic.cache = curve;                        // ignored: a NIC is a wire
    nic.cache.beta = {1.0, 1.0, 1.0};
    const Network w = net(4, 2, 1, mem, nic);
    const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 4, static_cast<int64_t>(MiB)));
    const NetworkPrediction np = predict(s, w);
    REQUIRE(np.pr.footprint_bytes.size() == 6);
    CHECK(np.pr.footprint_bytes[0] == 10 * MiB);
    // R1, step 0: in from R0 (intra, α + 1 MiB at the curve's 10 MiB β)
    // beats out to R2 (NIC); reduce and copy at the curve's 10 MiB γ, δ.
    const CostTerms& t = np.pr.ranks[0][1].terms;
    CHECK(t.alpha_s == 1e-6);
    CHECK(t.beta_s == rel(MiB / 16e9).epsilon(1e-12));
    CHECK(t.gamma_s == rel(MiB / 12.8e9).epsilon(1e-12));
    CHECK(t.delta_s == rel(MiB / 20e9).epsilon(1e-12));
    // Node 0's NIC out carries R1's chunk in each of the 6 steps at the
    // link's flat 100 GB/s, whatever the curve says.
    const int nic0 = port_id(w.topo, {PortKind::nic_out, 0});
    CHECK(np.port_bytes[static_cast<size_t>(nic0)] == static_cast<int64_t>(6 * MiB));
    CHECK(np.port_busy_s[static_cast<size_t>(nic0)] == rel(6 * (5e-6 + MiB / 100e9)).epsilon(1e-12));
    // Without the curve: the flat β, γ, δ (the model as it was).
    CostParams flat = mem;
    flat.cache = {};
    const CostTerms f = predict(s, net(4, 2, 1, flat, nic)).pr.ranks[0][1].terms;  // a copy: the prediction is a temporary
    CHECK(f.beta_s == rel(MiB / 8e9).epsilon(1e-12));
    CHECK(f.gamma_s == rel(MiB / 6.4e9).epsilon(1e-12));
    CHECK(f.delta_s == rel(MiB / 10e9).epsilon(1e-12));
  }
}
