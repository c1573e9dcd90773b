// Scene building (app/viz/scene.h): no ImGui, no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/model/calibrate/calibrate.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("compare: 'fastest' needs a rival, and a tie is not a win") {
    const auto curve = [](const char* a, std::vector<double> us) {
      SweepCurve c;
      c.algorithm = a;
      c.bytes = {4096, 16384, 65536};
      c.measured_us = us;
      return c;
    };
    Compare cmp;
    cmp.base.spec.world_size = 4;
    cmp.sweep = {curve("ring", {3, 2, 1})};  // ring alone: nothing to be faster than
    cmp.finish_sweep();
    CHECK(cmp.crossover.empty());
    CHECK(cmp.crossover_measured == -1);
    cmp.sweep = {curve("ring", {5, 5, 5}), curve("tree", {5, 5, 5})};  // a tie is not a win
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == -1);
    CHECK(cmp.crossover == "ring was not the fastest at the largest size measured here (64 KiB)");
    cmp.sweep = {curve("ring", {9, 4, 2}), curve("tree", {3, 5, 8})};  // ring wins from 16 KiB on
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == 1);
    CHECK(cmp.crossover == "ring is the fastest from 16 KiB on (measured)");
    // On one rank the same numbers are noise: no crossover is claimed.
    cmp.base.spec.world_size = 1;
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == -1);
    CHECK(cmp.crossover_predicted_bytes == -1);
    CHECK(cmp.crossover == "one rank: every algorithm is the same local copy, so there is no crossover");
  }

  TEST_CASE("an algorithm's compare colour depends on its name only") {
    CHECK(algorithm_color("naive") == rank_color(4));
    CHECK(algorithm_color("tree") == rank_color(5));
    CHECK(algorithm_color("ring") == rank_color(2));
    // The first 11 registered names (naive, tree, ring moved ahead of them
    // still fit in the 14 slots) get 11 different colours, none orange.
    std::vector<std::string> names;
    for (Collective c : all_collectives())
      for (const auto& a : algorithms_for(c))
        if (std::find(names.begin(), names.end(), a) == names.end()) names.push_back(a);
    REQUIRE(names.size() >= 5);
    std::set<uint32_t> seen;
    for (size_t i = 0; i < names.size() && i < 11; ++i) {
      const Rgba c = algorithm_color(names[i]);
      CHECK_MESSAGE(!(c == predicted_color()), names[i]);
      seen.insert(packed(c));
    }
    CHECK(seen.size() == std::min<size_t>(names.size(), 11));
  }

  TEST_CASE("stats: mid-run, the prediction covers the same steps as the measurement") {
    Session s;
    RunParams p = seed_ring();
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 8;
    p.data = "rank";
    s.configure(p);
    const viz::Prediction& pred = s.prediction();
    REQUIRE(pred.available);
    REQUIRE(pred.step_us.size() == 6);
    s.step();
    s.step();
    Stats st = build_stats(s);
    CHECK(st.steps_run == 2);
    CHECK(st.predicted_run_us == doctest::Approx(pred.step_us[0] + pred.step_us[1]));
    CHECK(st.predicted_run_us < st.predicted_us);
    CHECK(st.predicted_us == doctest::Approx(pred.total_us));
    while (s.step()) {}
    st = build_stats(s);
    CHECK(st.finished);
    CHECK(st.predicted_run_us == st.predicted_us);
  }

  TEST_CASE("the predicted colour is no op kind's colour and is Okabe-Ito orange") {
    CHECK(predicted_color() == Rgba{0xE6, 0x9F, 0x00, 255});
    for (OpKind k : {OpKind::send, OpKind::recv, OpKind::recv_reduce, OpKind::copy, OpKind::reduce, OpKind::swap})
      CHECK_MESSAGE(!(op_kind_color(k) == predicted_color()), name(k));
    CHECK(op_kind_color(OpKind::reduce) == Rgba{0xD5, 0x5E, 0x00, 255});
  }

  TEST_CASE("node positions are distinct and inside the canvas for every layout") {
    struct Case {
      Collective c;
      const char* alg;
      int n;
      TopologyKind kind;
    };
    const Case cases[] = {
        {Collective::all_reduce, "ring_unchunked", 3, TopologyKind::ring},
        {Collective::all_reduce, "ring", 16, TopologyKind::ring},
        {Collective::all_reduce, "tree", 7, TopologyKind::tree},
        {Collective::broadcast, "binomial", 8, TopologyKind::tree},
        {Collective::reduce, "naive", 5, TopologyKind::star},
        {Collective::all_reduce, "recursive_doubling", 8, TopologyKind::hypercube},
        {Collective::all_reduce, "halving_doubling", 6, TopologyKind::hypercube},
        {Collective::all_to_all, "naive", 4, TopologyKind::circle},
        {Collective::all_reduce, "ring", 1, TopologyKind::ring},
    };
    for (const Case& c : cases) {
      CAPTURE(c.alg);
      CAPTURE(c.n);
      RunParams p;
      p.spec.collective = c.c;
      p.spec.algorithm = c.alg;
      p.spec.world_size = c.n;
      p.spec.count = 2 * c.n;
      Session ses;
      ses.configure(p);
      const TopologyScene sc = build_topology(ses, 0, Vec2{400, 300});
      CHECK(sc.kind == c.kind);
      REQUIRE(static_cast<int>(sc.nodes.size()) == c.n);
      std::set<std::pair<int, int>> seen;
      for (const NodeDraw& nd : sc.nodes) {
        CHECK(nd.pos.x - nd.radius >= 0);
        CHECK(nd.pos.y - nd.radius >= 0);
        CHECK(nd.pos.x + nd.radius <= 400);
        CHECK(nd.pos.y + nd.radius <= 300);
        CHECK(seen.insert({int(nd.pos.x * 4), int(nd.pos.y * 4)}).second);
      }
    }
  }

  TEST_CASE("a new algorithm is laid out by its registry hint") {
    // A toy all_gather (every rank sends its block to every other rank in
    // one step) that asks for the hypercube layout: the viewer must follow
    // the hint, not the name.
    AlgorithmInfo toy;
    toy.name = "toy_direct";
    toy.description = "test toy: all_gather in one step";
    toy.layout = Layout::hypercube;
    toy.serves.push_back({Collective::all_gather, [](const CollectiveSpec& s) {
                            ScheduleBuilder b(s);
                            const int n = s.world_size;
                            for (int r = 0; r < n; ++r)
                              b.copy_first(r, {Buf::input, 0}, {Buf::output, s.displ(r)}, s.block(r), r);
                            b.step("exchange");
                            for (int r = 0; r < n; ++r)
                              for (int q = 0; q < n; ++q)
                                if (q != r) {
                                  b.send(r, q, {Buf::input, 0}, s.block(r), r);
                                  b.recv(q, r, {Buf::output, s.displ(r)}, s.block(r), r);
                                }
                            return b.finish();
                          },
                          std::nullopt});
    register_algorithm(toy);
    RunParams p;
    p.spec.collective = Collective::all_gather;
    p.spec.algorithm = "toy_direct";
    p.spec.world_size = 4;
    p.spec.count = 2;
    Session ses;
    ses.configure(p);
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 300});
    CHECK(sc.kind == TopologyKind::hypercube);
    CHECK(sc.nodes.size() == 4);
    CHECK(topology_kind(p.spec) == TopologyKind::hypercube);
    unregister_algorithm("toy_direct", Collective::all_gather);
    // Unknown now: drawn on a circle.
    CHECK(topology_kind(p.spec) == TopologyKind::circle);
  }

  TEST_CASE("one arrow per transfer of the shown step") {
    for (const char* alg : {"ring_unchunked", "ring", "tree", "naive", "halving_doubling"}) {
      CAPTURE(alg);
      RunParams p;
      p.spec.algorithm = alg;
      p.spec.world_size = 5;
      p.spec.count = 10;
      Session ses;
      ses.configure(p);
      const Schedule& s = ses.schedule();
      for (int k = 1; k <= s.num_steps(); ++k) {
        int sends = 0;
        for (const auto& ops : s.steps[k - 1].ranks)
          for (const Op& o : ops) sends += o.kind == OpKind::send;
        const TopologyScene sc = build_topology(ses, k, Vec2{500, 400});
        CHECK(sc.shown_step == k - 1);
        CHECK(static_cast<int>(sc.arrows.size()) == sends);
        for (const ArrowDraw& a : sc.arrows) CHECK(a.from != a.to);
      }
      CHECK(build_topology(ses, 0, Vec2{500, 400}).upcoming);
    }
  }

  TEST_CASE("seed ring at step 1: arrows carry each rank's own input, badges coloured by sender") {
    Session ses;
    ses.configure(seed_ring());
    ses.step();
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 400});
    REQUIRE(sc.arrows.size() == 3);
    for (const ArrowDraw& a : sc.arrows) {
      CHECK(a.to == (a.from + 1) % 3);
      REQUIRE(a.stripes.size() == 1);
      CHECK(a.stripes[0] == rank_color(a.from));
      CHECK(a.bytes == 12);
    }
  }

  TEST_CASE("order-dependent output cells are marked at the end, with a one-line legend") {
    RunParams p;
    p.spec.algorithm = "naive";
    p.spec.world_size = 4;
    p.spec.count = 1;
    p.spec.dtype = DType::float16;
    p.data = "65504;1;65504;-65504";
    Session ses;
    ses.configure(p);
    REQUIRE(ses.order_dependence().count == 4);  // every rank's one element
    ses.seek(ses.num_steps());
    const BuffersScene end = build_buffers(ses, ses.num_steps(), BuffersLayout{});
    int marked = 0;
    for (const auto& row : end.rows)
      for (const auto& c : row.cells) {
        CHECK(c.order_dependent == (row.buf == Buf::output));
        marked += c.order_dependent;
      }
    CHECK(marked == 4);
    CHECK(end.order_legend ==
          "order-dependent (cells with a corner mark): rank 0, element 0: 65504 + 65504 = 131008 overflows float16 at "
          "step 1 on rank 0 (naive's order gives inf, the double-precision reference 65504); tree's order gives 65504");
    // Not before the end, and not for an order within the bound.
    CHECK(build_buffers(ses, 1, BuffersLayout{}).order_legend.empty());
    p.spec.algorithm = "tree";
    ses.configure(p);
    CHECK(ses.order_dependence().count == 0);
    ses.seek(ses.num_steps());
    CHECK(build_buffers(ses, ses.num_steps(), BuffersLayout{}).order_legend.empty());
  }

  TEST_CASE("chunk colours and values follow the provenance and the trace") {
    Session ses;
    ses.configure(seed_ring());
    ses.step();
    BuffersLayout lay;
    const BuffersScene sc = build_buffers(ses, 1, lay);
    CHECK(sc.values);
    // 3 ranks x (input, send_buff, recv_buff, accum, output)
    REQUIRE(sc.rows.size() == 15);
    const BufferRowDraw* accum0 = nullptr;
    for (const auto& row : sc.rows)
      if (row.rank == 0 && row.buf == Buf::accum) accum0 = &row;
    REQUIRE(accum0 != nullptr);
    REQUIRE(accum0->cells.size() == 3);
    // R0's accum = T0 + T2 = 8, 10, 12: stripes of R0 and R2, not complete.
    const char* want[] = {"8", "10", "12"};
    for (int i = 0; i < 3; ++i) {
      const CellDraw& c = accum0->cells[i];
      CHECK(c.text == want[i]);
      CHECK(c.mask == 0b101);
      CHECK_FALSE(c.complete);
      CHECK(c.changed);
      REQUIRE(c.stripes.size() == 2);
      CHECK(c.stripes[0] == rank_color(0));
      CHECK(c.stripes[1] == rank_color(2));
    }
    // The swap pairs send_buff and recv_buff of every rank.
    for (const auto& row : sc.rows)
      if (row.buf == Buf::send_buff) {
        REQUIRE(row.swap_partner >= 0);
        CHECK(sc.rows[row.swap_partner].buf == Buf::recv_buff);
      }
    ses.step();
    const BuffersScene end = build_buffers(ses, 2, lay);
    for (const auto& row : end.rows)
      if (row.buf == Buf::output)
        for (const auto& c : row.cells) {
          CHECK(c.complete);
          CHECK(c.stripes == std::vector<Rgba>{complete_color()});
        }
  }

  TEST_CASE("stats: bytes per rank and link, busbw factor") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const Stats st = build_stats(ses);
    CHECK(st.steps == 2);
    CHECK(st.finished);
    CHECK(st.sent == std::vector<int64_t>{24, 24, 24});
    CHECK(st.received == std::vector<int64_t>{24, 24, 24});
    CHECK(st.links.size() == 3);
    CHECK_FALSE(st.busiest_unique);
    CHECK(st.size_bytes == 12);
    CHECK(st.bus_factor == doctest::Approx(4.0 / 3));
    CHECK(st.measured_us > 0);
    // The measured time is the steps' warm medians, the cold first runs are
    // summed apart: the same numbers as the trace's step timings.
    const Trace& tr = ses.trace();
    REQUIRE(tr.step_timing.size() == 2);
    CHECK(st.measured_us == (tr.step_timing[0].median_ns + tr.step_timing[1].median_ns) / 1e3);
    CHECK(st.first_run_us == (tr.step_timing[0].first_run_ns + tr.step_timing[1].first_run_ns) / 1e3);
    CHECK(st.repetitions == std::min(tr.step_timing[0].repetitions, tr.step_timing[1].repetitions));
    CHECK(st.repetitions > 0);
    const TimelineScene tl = build_timeline(ses);
    CHECK(tl.steps.size() == 2);
    CHECK(tl.compressed);
    CHECK_FALSE(tl.bars.empty());
  }

  TEST_CASE("timeline: each step's warm median, spread and first run; a replay shows the recorded ones") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const TimelineScene tl = build_timeline(ses);
    REQUIRE(tl.steps.size() == 2);
    for (const StepSpan& st : tl.steps) {
      // The window repeats steps (auto: 1 to kRepeatAutoMax warm reps).
      CHECK(st.repetitions >= 1);
      CHECK(st.repetitions <= kRepeatAutoMax);
      CHECK(st.includes_barrier);
      CHECK(st.p10_us <= st.median_us);
      CHECK(st.median_us <= st.p90_us);
      CHECK(st.first_run_us > 0);
      // the whisker fits in its step (to rounding: the span is a difference of sums)
      CHECK(st.end_us - st.begin_us >= st.p90_us * (1 - 1e-9));
    }
    // The values shown are those of the one real run.
    REQUIRE(ses.outputs().size() == 3);
    CHECK(ses.outputs()[0] == reference_outputs(ses.schedule().spec, parse_data(ses.schedule().spec, "1,2,3;4,5,6;7,8,9"))[0]);

    // A replay shows the record's timings, not new ones.
    RunRecord rec;
    rec.spec = ses.schedule().spec;
    rec.inputs = parse_data(rec.spec, "1,2,3;4,5,6;7,8,9");
    RunResult res = run_threads(ses.schedule(), rec.inputs);
    rec.outputs = res.outputs;
    rec.trace = res.trace;
    rec.trace.step_timing[0] = StepTiming{48000, 5900, 5100, 7300, 20, true};
    rec.trace.step_timing[1] = StepTiming{6000, 6000, 6000, 6000, 0, true};
    for (auto& rank_events : rec.trace.events)  // a cold real run: every op of step 0 takes 200 us
      for (Event& ev : rank_events)
        if (ev.step == 0) ev.end_ns = ev.begin_ns + 200000;
    Session rep;
    rep.load_replay(record_from_json(record_to_json(rec)));
    rep.seek(2);
    const TimelineScene rt = build_timeline(rep);
    REQUIRE(rt.steps.size() == 2);
    CHECK(rt.steps[0].median_us == doctest::Approx(5.9));
    CHECK(rt.steps[0].p10_us == doctest::Approx(5.1));
    CHECK(rt.steps[0].p90_us == doctest::Approx(7.3));
    CHECK(rt.steps[0].first_run_us == doctest::Approx(48.0));
    // Step 0's slot is sized by its warm time, not by the real run's bars
    // (made 200 us long above): 2 x max(p90, prediction); the bars are drawn
    // in proportion inside it, squeezed by the real span over the slot.
    const StepSpan& s0 = rt.steps[0];
    const double warm0 = std::max(s0.p90_us, s0.predicted_us);
    const double slot = s0.end_us - s0.begin_us;
    CHECK(slot == doctest::Approx(StepSpan::kSlotStretch * warm0));
    REQUIRE(s0.squeeze > 1);
    int bars0 = 0;
    for (const TimelineBar& b : rt.bars)
      if (b.step == 0) {
        ++bars0;
        CHECK(b.begin_us >= s0.begin_us - 1e-9);
        CHECK(b.end_us <= s0.end_us + 1e-9);
        CHECK(b.dur_us == doctest::Approx(200.0));  // the tooltip keeps the real duration
        CHECK(b.squeeze == s0.squeeze);
        CHECK(b.end_us - b.begin_us == doctest::Approx(200.0 / s0.squeeze));  // every op keeps its share
      }
    CHECK(bars0 > 0);
    // (Step 1 keeps the real run's own times, which may or may not fit its
    // slot: nothing to assert about its squeeze.)
    CHECK(rt.steps[0].repetitions == 20);
    CHECK(rt.steps[1].repetitions == 0);
    CHECK(rt.steps[1].median_us == doctest::Approx(6.0));
  }
}

TEST_SUITE("scene_network") {
  TEST_CASE("a cluster-lab record is predicted on the lab's topology and says where it was measured") {
    const auto lab = lab_replay_source(
        R"({"inter": "tcp", "intra": "shm", "nic_bps": 100000000, "nics_per_node": 1, "nodes": 2, "ranks_per_node": 2})");
    REQUIRE(lab);
    CHECK(lab->note == "measured: cluster lab, 100 Mbit/s NIC");
    CHECK(lab->source.kind == PredictionSource::Kind::topology);
    CHECK(lab->source.inter == "5e-05,1.25e+07");  // the lab's α, 100 Mbit/s = 12.5 MB/s
    CHECK(lab->source.nics_per_node == 1);
    CHECK_FALSE(lab_replay_source(""));
    CHECK_FALSE(lab_replay_source(R"({"nic_bps": 0})"));
    CHECK_FALSE(lab_replay_source("not json"));

    RunParams p;
    p.spec.algorithm = "hierarchical";
    p.spec.world_size = 4;
    p.spec.nodes = 2;
    p.spec.count = 1024;
    Session ses;
    ses.configure(p);
    ses.set_source(lab->source);
    ses.set_measured_note(lab->note);
    ses.seek(2);
    const ModelInForce m = resolve_model(p.spec, lab->source);
    REQUIRE(m.network);
    CHECK(m.network->inter.bandwidth() == doctest::Approx(12.5e6));
    const TopologyScene sc = build_topology(ses, 2, Vec2{800, 400}, 0, &*m.network);
    CHECK(sc.network_note == "measured: cluster lab, 100 Mbit/s NIC; predicted: this topology");
    ses.configure(p);  // a new run is this machine's again
    CHECK(ses.measured_note().empty());
  }

  TEST_CASE("2 nodes x 4: node boxes hold their ranks; loads per link on the hierarchical and the flat ring") {
    RunParams p;
    p.spec.algorithm = "hierarchical";
    p.spec.world_size = 8;
    p.spec.nodes = 2;
    p.spec.count = 8;
    Session ses;
    ses.configure(p);
    // position 4 = after step 3: the first inter-node step (3 intra reduce-scatter steps before it)
    const TopologyScene sc = build_topology(ses, 4, Vec2{800, 400});
    REQUIRE(sc.boxes.size() == 2);
    for (const NodeDraw& nd : sc.nodes) {
      const NodeBoxDraw& b = sc.boxes[static_cast<size_t>(nd.rank / 4)];
      CHECK(nd.pos.x - nd.radius >= b.min.x);
      CHECK(nd.pos.x + nd.radius <= b.max.x);
      CHECK(nd.pos.y - nd.radius >= b.min.y);
      CHECK(nd.pos.y + nd.radius <= b.max.y);
    }
    CHECK(sc.boxes[0].max.x < sc.boxes[1].min.x);
    REQUIRE(sc.nics.size() == 2);  // one NIC per node by default
    // Every rank sends one 4-byte piece across: 4 ranks x 4 B through each NIC's out port.
    REQUIRE(sc.arrows.size() == 8);
    REQUIRE(sc.loads.size() == 8);
    for (const ArrowLoad& l : sc.loads) {
      CHECK(l.inter);
      CHECK(l.port_bytes == 16);
      CHECK(l.load == 1.f);
    }
    CHECK(sc.nics[0].bytes == 32);  // 16 out + 16 in
    CHECK(sc.nics[0].bottleneck);
    CHECK(sc.bottleneck == "node 0 NIC 0 out");
    REQUIRE(sc.legend.size() == 2);
    CHECK(sc.legend[1].find("infiniband") != std::string::npos);
    INFO(sc.legend[0], " / ", sc.legend[1]);
    CHECK(sc.legend[0].find(", 1 µs, ") != std::string::npos);  // nvlink's α (format_us)
    CHECK(sc.legend[1].find(", 2 µs, ") != std::string::npos);  // infiniband's

    // An intra step (position 1 = after step 0): 8 bytes per rank on its own
    // intra port, nothing on the NICs.
    const TopologyScene in = build_topology(ses, 1, Vec2{800, 400});
    for (const ArrowLoad& l : in.loads) {
      CHECK_FALSE(l.inter);
      CHECK(l.port_bytes == 8);
    }
    for (const NicDraw& d : in.nics) CHECK(d.bytes == 0);

    // The flat ring on the same placement: only R3 -> R4 and R7 -> R0 cross,
    // each a 4-byte chunk; the inter-node arrows' ports carry as much as an
    // intra one, so every load is 1.
    p.spec.algorithm = "ring";
    ses.configure(p);
    const TopologyScene ring = build_topology(ses, 1, Vec2{800, 400});
    int across = 0;
    for (size_t i = 0; i < ring.arrows.size(); ++i)
      if (ring.loads[i].inter) {
        ++across;
        CHECK((ring.arrows[i].from == 3 || ring.arrows[i].from == 7));
      }
    CHECK(across == 2);
  }

  TEST_CASE("one node: no boxes, no loads") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 4;
    Session ses;
    ses.configure(p);
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 300});
    CHECK(sc.boxes.empty());
    CHECK(sc.loads.empty());
  }
}

namespace {
PredictionSource topo_source() {
  PredictionSource src;
  src.kind = PredictionSource::Kind::topology;
  src.intra = "nvlink";
  src.inter = "infiniband";
  return src;
}
RunParams two_by_four(const char* algorithm) {
  RunParams p;
  p.spec.algorithm = algorithm;
  p.spec.world_size = 8;
  p.spec.nodes = 2;
  p.spec.count = 64;  // float32: S = 256 bytes per rank
  return p;
}
// Whether the quadratic Bezier a-c-b comes within `pad` of the rectangle
// centre +- half (sampled finely: arrows are at most a few hundred pixels).
bool curve_hits(Vec2 a, Vec2 c, Vec2 b, Vec2 centre, Vec2 half, float pad) {
  for (int i = 0; i <= 200; ++i) {
    const Vec2 p = bezier(a, c, b, float(i) / 200);
    if (std::abs(p.x - centre.x) <= half.x + pad && std::abs(p.y - centre.y) <= half.y + pad) return true;
  }
  return false;
}
}  // namespace

TEST_SUITE("scene_network") {
  // Hand count, S = 256 bytes per rank, g = 4 ranks per node, N = 2 nodes.
  // Hierarchical: reduce-scatter in each node (3 steps, each rank sends S/4 =
  // 64 B to its intra ring neighbour), all-reduce across nodes among equal
  // local ranks (ring of 2 over the S/4 shard: 2 steps of S/8 = 32 B), then
  // all-gather in each node (3 steps of 64 B). Per rank: 6 x 64 = 384 B
  // intra, 2 x 32 = 64 B inter. Run: intra 8 x 384 = 3072 B, inter 8 x 64 =
  // 512 B; a node's NIC out carries its 4 ranks' 64 B = 256 B = 2(N-1)/N·S.
  TEST_CASE("hierarchical all-reduce on 2 x 4: bytes per class and port, time split by class") {
    Session ses;
    ses.set_source(topo_source());
    ses.configure(two_by_four("hierarchical"));
    REQUIRE(ses.num_steps() == 8);
    const Stats st = build_stats(ses, 4);  // after step 3: the first inter-node step
    CHECK(st.prediction_label == "predicted (topology 2x4, intra nvlink, inter infiniband, 1 NIC/node)");
    CHECK(st.nodes == 2);
    CHECK(st.ranks_per_node == 4);
    CHECK(st.intra_run == 3072);
    CHECK(st.inter_run == 512);
    CHECK(st.shown_step == 3);
    CHECK(st.intra_step == 0);
    CHECK(st.inter_step == 8 * 32);
    REQUIRE_FALSE(st.ports_step.empty());
    CHECK(st.ports_step[0].name == "node 0 NIC 0 out");  // 4 x 32 B out, and first of the equal NIC ports
    CHECK(st.ports_step[0].bytes == 128);
    CHECK(st.ports_step[0].bottleneck);
    CHECK(st.ports_step[0].inter);
    CHECK(st.bottleneck_step == "node 0 NIC 0 out");
    // Whole run: the 16 intra ports carry 384 B each and lead by bytes; the
    // NIC out (256 B) is the bottleneck by time (4 messages a step at 2 us)
    // and stays listed, last.
    REQUIRE(st.ports_run.size() == 6);
    for (size_t i = 0; i < 5; ++i) {
      CHECK(st.ports_run[i].bytes == 384);
      CHECK_FALSE(st.ports_run[i].inter);
      CHECK_FALSE(st.ports_run[i].bottleneck);
    }
    CHECK(st.ports_run[5].name == "node 0 NIC 0 out");
    CHECK(st.ports_run[5].bytes == 256);
    CHECK(st.ports_run[5].bottleneck);
    CHECK(st.bottleneck_run == "node 0 NIC 0 out");
    // Time by class (nvlink 1 us, 600e9 B/s; infiniband 2 us, 25e9 B/s):
    // 6 intra steps of one 64 B message per port; 2 inter steps of four 32 B
    // messages through one NIC port.
    REQUIRE(st.split);
    CHECK(st.by_class);
    CHECK(st.alpha_intra_us == doctest::Approx(6.0));
    CHECK(st.beta_intra_us == doctest::Approx(6 * 64 / 600e9 * 1e6));
    CHECK(st.alpha_inter_us == doctest::Approx(2 * 4 * 2.0));
    CHECK(st.beta_inter_us == doctest::Approx(2 * 128 / 25e9 * 1e6));
    CHECK(st.other_us == doctest::Approx(0.0).epsilon(1e-9));
    CHECK(st.predicted_us ==
          doctest::Approx(st.alpha_intra_us + st.beta_intra_us + st.alpha_inter_us + st.beta_inter_us));
    CHECK(st.measured_note.find("shared memory") != std::string::npos);

    // An intra step: each rank sends S/4 = 64 B on its own intra out port.
    const Stats s0 = build_stats(ses, 1);
    CHECK(s0.shown_step == 0);
    CHECK(s0.intra_step == 8 * 64);
    CHECK(s0.inter_step == 0);
    CHECK(s0.ports_step[0].name == "R0 intra out");
    CHECK(s0.ports_step[0].bytes == 64);
  }

  // Flat ring, 8 ranks: 2(p-1) = 14 steps, each rank sends one S/8 = 32 B
  // chunk per step to rank + 1. Only R3 -> R4 and R7 -> R0 cross nodes:
  // inter 2 x 14 x 32 = 896 B, intra 6 x 14 x 32 = 2688 B; node 0's NIC out
  // carries R3's 448 B = 1.75 S (vs 256 B = S for the hierarchical above).
  TEST_CASE("flat ring on 2 x 4: bytes per class and port, every step charged to the NIC") {
    Session ses;
    ses.set_source(topo_source());
    ses.configure(two_by_four("ring"));
    REQUIRE(ses.num_steps() == 14);
    const Stats st = build_stats(ses, 1);
    CHECK(st.intra_run == 2688);
    CHECK(st.inter_run == 896);
    CHECK(st.intra_step == 6 * 32);
    CHECK(st.inter_step == 2 * 32);
    CHECK(st.bottleneck_step == "node 0 NIC 0 out");
    // Every used port carries 448 B over the run; the NIC out (2 us per
    // message) is the bottleneck and sorts first among the equals.
    REQUIRE_FALSE(st.ports_run.empty());
    CHECK(st.ports_run[0].name == "node 0 NIC 0 out");
    CHECK(st.ports_run[0].bytes == 448);
    CHECK(st.ports_run[0].bottleneck);
    for (const auto& pl : st.ports_run) CHECK(pl.bytes == 448);
    CHECK(st.alpha_intra_us == 0);
    CHECK(st.beta_intra_us == 0);
    CHECK(st.alpha_inter_us == doctest::Approx(14 * 2.0));
    CHECK(st.beta_inter_us == doctest::Approx(14 * 32 / 25e9 * 1e6));
  }

  TEST_CASE("a link preset: labelled, one class, the flat model's terms") {
    Session ses;
    PredictionSource src;
    src.kind = PredictionSource::Kind::preset;
    src.preset = "infiniband";
    ses.set_source(src);
    RunParams p = two_by_four("ring");
    p.spec.nodes = 1;
    ses.configure(p);
    const Stats st = build_stats(ses);
    CHECK(st.prediction_label == "predicted (preset infiniband)");
    CHECK(st.nodes == 1);
    CHECK(st.inter_run == 0);
    CHECK(st.intra_run == 8 * 14 * 32);
    CHECK_FALSE(st.by_class);
    // 14 steps of one 32 B message per rank: 14 x (2 us + 32 B / 25e9 B/s).
    CHECK(st.alpha_intra_us == doctest::Approx(28.0));
    CHECK(st.beta_intra_us == doctest::Approx(14 * 32 / 25e9 * 1e6));
    CHECK(st.predicted_us == doctest::Approx(28.0 + 14 * 32 / 25e9 * 1e6));
    // Changing the source re-prices without re-running.
    const int64_t ran = ses.real_steps_executed();
    src.preset = "nvlink";
    ses.set_source(src);
    CHECK(ses.prediction().source == "predicted (preset nvlink)");
    CHECK(ses.prediction().total_us == doctest::Approx(14 * (1.0 + 32 / 600e9 * 1e6)));
    CHECK(ses.real_steps_executed() == ran);
  }

  TEST_CASE("before any calibration: a named preset, labelled, with the calibrate hint") {
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CONFIG_HOME", "/nonexistent/microddp-test", 1);
    Session ses;
    ses.configure(seed_ring());
    CHECK(ses.prediction().available);
    CHECK(ses.prediction().source == "predicted (preset nvlink: no calibration yet)");
    CHECK(ses.prediction().hint == "run `microddp calibrate` for this machine's numbers");
    // seed ring (unchunked): 2 steps of one 12-byte message per rank on nvlink (1 us).
    CHECK(ses.prediction().total_us == doctest::Approx(2 * (1.0 + 12 / 600e9 * 1e6)).epsilon(1e-9));
    if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
  }

  TEST_CASE("a topology that does not fit the run: predicted n/a with the reason") {
    Session ses;
    ses.set_source(topo_source());
    RunParams p = seed_ring();
    p.spec.nodes = 1;
    ses.configure(p);
    CHECK(ses.prediction().available);
    CHECK(ses.prediction().source == "predicted (topology 1x3, intra nvlink, inter infiniband, 1 NIC/node)");
    PredictionSource bad = topo_source();
    bad.inter = "carrier-pigeon";
    ses.set_source(bad);
    CHECK_FALSE(ses.prediction().available);
    CHECK(ses.prediction().source.find("carrier-pigeon") != std::string::npos);
  }

  TEST_CASE("algorithm auto: the fastest on the model in force, chosen again when the source changes") {
    RunParams p = two_by_four("auto");
    p.spec.world_size = 16;
    p.spec.count = 1 << 20;
    Session ses;
    ses.set_source(topo_source());
    ses.configure(p);
    CHECK(ses.params().spec.algorithm == "auto");
    // On nvlink inside and infiniband across, at 4 MiB per rank, the
    // hierarchical all-reduce keeps the heavy traffic off the NICs (at 256
    // KiB NCCL's double binary tree is predicted faster: few NIC crossings).
    CHECK(ses.schedule().spec.algorithm == "hierarchical");
    CHECK(ses.auto_choice().chosen == "hierarchical");
    CollectiveSpec spec = p.spec;
    Network net;
    net.topo = Topology::make(16, 2, 1);
    net.intra = preset("nvlink");
    net.inter = preset("infiniband");
    CHECK(choose_algorithm(spec, net.intra, &net).chosen == "hierarchical");
    const Stats st = build_stats(ses);
    CHECK(st.auto_text.rfind("auto chose hierarchical:", 0) == 0);
    CHECK(st.auto_short.rfind("auto chose hierarchical (", 0) == 0);
    // One flat link: the hierarchy buys nothing; the choice follows core's.
    PredictionSource flat;
    flat.kind = PredictionSource::Kind::preset;
    flat.preset = "nvlink";
    ses.set_source(flat);
    CHECK(ses.schedule().spec.algorithm == choose_algorithm(spec, preset("nvlink")).chosen);
    CHECK(ses.auto_choice().chosen == ses.schedule().spec.algorithm);
  }
}

TEST_SUITE("scene_network") {
  TEST_CASE("node boxes at 2-4 nodes x 1-8 ranks: disjoint, ranks inside and apart, arrows clear of the NICs") {
    for (int N = 2; N <= 4; ++N)
      for (int g = 1; g <= 8; ++g)
        for (const char* alg : {"hierarchical", "ring"})
          for (const Vec2 size : {Vec2{470, 190}, Vec2{800, 400}, Vec2{470, 120}}) {  // 120: beside a lesson
            CAPTURE(size.x);
            CAPTURE(N);
            CAPTURE(g);
            CAPTURE(alg);
            RunParams p;
            p.spec.algorithm = alg;
            p.spec.world_size = N * g;
            p.spec.nodes = N;
            p.spec.count = N * g * 2;
            static Session ses;  // one run per (N, g, algorithm); the sizes share it
            if (!(ses.configured() && ses.params() == p)) ses.configure(p);
            for (int pos = 0; pos <= ses.num_steps(); ++pos) {
              const TopologyScene sc = build_topology(ses, pos, size);
              REQUIRE(static_cast<int>(sc.boxes.size()) == N);
              for (int k = 0; k + 1 < N; ++k) CHECK(sc.boxes[k].max.x < sc.boxes[k + 1].min.x);
              for (const NodeBoxDraw& b : sc.boxes) {
                CHECK(b.min.x >= 0);
                CHECK(b.max.x <= size.x);
                CHECK(b.max.y <= size.y);
              }
              for (const NodeDraw& nd : sc.nodes) {
                const NodeBoxDraw& b = sc.boxes[static_cast<size_t>(nd.rank / g)];
                CHECK(nd.pos.x - nd.radius >= b.min.x);
                CHECK(nd.pos.x + nd.radius <= b.max.x);
                CHECK(nd.pos.y - nd.radius >= b.min.y);
                CHECK(nd.radius >= 6);
                for (const NodeDraw& o : sc.nodes)
                  if (o.rank > nd.rank)
                    CHECK(std::hypot(o.pos.x - nd.pos.x, o.pos.y - nd.pos.y) >= nd.radius + o.radius);
              }
              for (const NicDraw& d : sc.nics) {
                const NodeBoxDraw& b = sc.boxes[static_cast<size_t>(d.node)];
                CHECK(d.pos.x - d.half.x >= b.min.x);
                CHECK(d.pos.y + d.half.y <= b.max.y);
                for (const NodeDraw& nd : sc.nodes) CHECK(nd.pos.y + nd.radius < d.pos.y - d.half.y);
                for (const ArrowDraw& a : sc.arrows) CHECK_FALSE(curve_hits(a.a, a.ctrl, a.b, d.pos, d.half, 2));
              }
            }
          }
  }
}

TEST_SUITE("scene_network") {
  TEST_CASE("the flat ring on 2 x 4 is drawn as a chain: the hop between nodes crosses only the gap") {
    Session ses;
    ses.configure(two_by_four("ring"));
    const TopologyScene sc = build_topology(ses, 1, Vec2{470, 190});
    CHECK(sc.chain);
    const float mid0 = (sc.boxes[0].min.x + sc.boxes[0].max.x) / 2, mid1 = (sc.boxes[1].min.x + sc.boxes[1].max.x) / 2;
    CHECK(sc.nodes[3].pos.x > mid0);  // node 0's exit on its right
    CHECK(sc.nodes[4].pos.x < mid1);  // node 1's entry on its left
    for (const ArrowDraw& a : sc.arrows) {
      if (a.from != 3) continue;
      CHECK(a.to == 4);
      for (const NodeDraw& nd : sc.nodes)
        if (nd.rank != 3 && nd.rank != 4)
          CHECK_FALSE(curve_hits(a.a, a.ctrl, a.b, nd.pos, Vec2{nd.radius, nd.radius}, 0));
    }
    // The hierarchical all-reduce talks rank l to rank l across nodes: no chain.
    Session h;
    h.configure(two_by_four("hierarchical"));
    CHECK_FALSE(build_topology(h, 4, Vec2{470, 190}).chain);
  }
}

TEST_SUITE("scene") {
  TEST_CASE("compare: the sweep runs one point per step, up to the chosen size, with both crossovers") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.count = 8;
    p.data = "rank";
    Compare cmp;
    PredictionSource nvlink;
    nvlink.kind = PredictionSource::Kind::preset;
    nvlink.preset = "nvlink";
    cmp.set_source(nvlink);
    cmp.configure(p, {"naive", "tree", "ring"});
    cmp.start_sweep(64, 1 << 20, 1, 0);  // 64 B, 256 B, ..., 1 MiB: 8 sizes x 3 algorithms
    CHECK(cmp.sweeping());
    CHECK(cmp.sweep_step());
    CHECK(cmp.sweep[0].bytes == std::vector<double>{64});
    CHECK(cmp.sweep[1].bytes.empty());
    int steps = 1;
    while (cmp.sweep_step()) ++steps;
    CHECK(steps == 23);  // the 24th point ends the sweep
    CHECK_FALSE(cmp.sweeping());
    for (const SweepCurve& c : cmp.sweep) {
      REQUIRE(c.bytes.size() == 8);
      CHECK(c.bytes.back() == 1 << 20);
      CHECK(c.counts.back() == (1 << 20) / 4);
      CHECK(c.predicted_us.size() == 8);
      for (double t : c.measured_us) CHECK(t > 0);
    }
    // Predicted on the nvlink preset: ring is the fastest from 1 MiB, the
    // last point; the lines themselves cross between 256 KiB and 1 MiB, where
    // bisecting the model puts the sentence and the marker.
    CHECK(cmp.crossover_predicted == 7);
    const double x = cmp.crossover_predicted_bytes;
    CHECK(x > 256 * 1024);
    CHECK(x < 1024 * 1024);
    CHECK(std::fmod(x, 32.0) == 0);  // whole float32 elements on 8 ranks
    const auto at = [&](const char* alg, double bytes) {
      CollectiveSpec sp = p.spec;
      sp.algorithm = alg;
      sp.count = int64_t(bytes) / 4;
      return predict(make_schedule(sp), nvlink).total_us;
    };
    CHECK(at("ring", x) < at("tree", x));            // ring ahead at the crossover...
    CHECK(at("ring", x - 32) >= at("tree", x - 32));  // ...and not one step below it
    CHECK(at("ring", x) < at("naive", x));
    CHECK(cmp.crossover_predicted_us == doctest::Approx(at("ring", x)));
    CHECK(cmp.crossover.find(fmt::format("from {} on (predicted)", human_bytes(x))) != std::string::npos);
  }

  TEST_CASE("compare: a new prediction source re-prices the sweep's lines, the measured points stay") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 4;
    Compare cmp;
    cmp.configure(p, {"tree", "ring"});
    cmp.run_sweep(64, 256, 1, 0);  // 16 and 64 float32 elements
    REQUIRE(cmp.sweep.size() == 2);
    const std::vector<double> measured = cmp.sweep[1].measured_us;
    PredictionSource src;
    src.kind = PredictionSource::Kind::preset;
    src.preset = "ethernet-10g";
    cmp.set_source(src);
    CHECK(cmp.sweep[1].measured_us == measured);
    REQUIRE(cmp.sweep[1].predicted_us.size() == 2);
    // ring all-reduce, 4 ranks, 64 float32 = 256 B: 6 steps of one 64 B
    // message: 6 x (25 us + 64 B / 1.25e9 B/s).
    CHECK(cmp.sweep[1].predicted_us[1] == doctest::Approx(6 * (25.0 + 64 / 1.25e9 * 1e6)));
    CHECK(cmp.sessions[1]->prediction().source == "predicted (preset ethernet-10g)");
  }
}

TEST_SUITE("scene_network") {
  TEST_CASE("with a calibrated profile: predicted from it, dated, no hint, the error shown") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-viz-profile-{}", ::getpid());
    fs::create_directories(dir / "microddp");
    CostParams cp;
    cp.name = "threads";
    cp.alpha = 3e-6;
    cp.beta = 1e-10;
    write_profile((dir / "microddp" / "profile.json").string(), cp, {});
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
    Session ses;
    ses.configure(seed_ring());
    const viz::Prediction& pr = ses.prediction();
    CHECK(pr.available);
    CHECK(pr.source.rfind("predicted (calibrated profile, 20", 0) == 0);
    CHECK(pr.hint.empty());
    CHECK(pr.this_machine);
    // seed ring (unchunked): 2 steps of one 12-byte message (3 float32) per rank at 3 us.
    CHECK(pr.total_us == doctest::Approx(2 * (3.0 + 12e-10 * 1e6)).epsilon(1e-9));
    ses.seek(2);
    CHECK(build_stats(ses).error_known);
    if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(dir);
  }
}

TEST_SUITE("scene") {
  TEST_CASE("'root' only where the collective or the algorithm has one") {
    const auto roots = [](Collective c, const char* alg) {
      RunParams p;
      p.spec.collective = c;
      p.spec.algorithm = alg;
      p.spec.world_size = 4;
      p.spec.count = c == Collective::barrier ? 0 : 4;
      Session ses;
      ses.configure(p);
      int k = 0;
      for (const NodeDraw& nd : build_topology(ses, 1, Vec2{400, 300}).nodes) k += nd.root;
      return k;
    };
    CHECK(roots(Collective::barrier, "dissemination") == 0);
    CHECK(roots(Collective::all_gather, "recursive_doubling") == 0);
    CHECK(roots(Collective::broadcast, "tree") == 1);
    CHECK(roots(Collective::reduce, "naive") == 1);
    // No root on the composed collectives' symmetric algorithms either; the
    // rooted ones (a star, a tree through rank 0) keep theirs.
    CHECK(roots(Collective::all_reduce, "recursive_doubling") == 0);
    CHECK(roots(Collective::all_reduce, "halving_doubling") == 0);
    CHECK(roots(Collective::all_reduce, "ring") == 0);
    CHECK(roots(Collective::all_to_all, "naive") == 0);  // pairwise exchange
    CHECK(roots(Collective::gather, "binomial") == 1);
    CHECK(roots(Collective::all_reduce, "tree") == 1);
  }
}

namespace {

// The values the correct ring holds on the seed data T0 = [1,2,3],
// T1 = [4,5,6], T2 = [7,8,9] after `position` steps of the (one- or
// two-buffer) unchunked ring: what the schedule means each buffer to hold.
// Before step 0 only the input is written (step 0 makes the local copies);
// then send_buff holds the tensor that just arrived (T(r-1) after step 0,
// T(r-2) after step 1), accum the running sum, output the total at the end.
std::vector<double> seed_ring_value(int position, int r, Buf b) {
  const std::vector<std::vector<double>> T = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  auto t = [&](int q) { return T[static_cast<size_t>((q + 3) % 3)]; };
  auto sum = [](std::vector<double> a, const std::vector<double>& c) {
    for (size_t i = 0; i < a.size(); ++i) a[i] += c[i];
    return a;
  };
  switch (b) {
    case Buf::input: return t(r);
    case Buf::send_buff: return position == 0 ? std::vector<double>{} : t(r - position);
    case Buf::accum:
      return position == 0 ? std::vector<double>{} : position == 1 ? sum(t(r), t(r - 1)) : std::vector<double>{12, 15, 18};
    case Buf::output: return position == 2 ? std::vector<double>{12, 15, 18} : std::vector<double>{};
    default: return {};
  }
}

}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("lesson 02 beat 5: the single-buffered ring runs for real, its wrong values red, the first one named") {
    const lesson::Lesson l =
        lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml");
    const BeatTarget t = beat_target(l.beats[4]);
    REQUIRE(t.drive);
    REQUIRE(t.params.broken.has_value());
    CHECK(t.params.broken->max_delay_us == 300);
    CHECK(t.params.broken->delay_rank == -1);
    CHECK(t.params.broken->max_seeds == 30);  // the check's 30 seeds, the window's cap
    CHECK(t.position == 2);
    CHECK(t.note.find("ring_unchunked") == std::string::npos);
    CHECK(t.note.find("one-buffer ring run for real") != std::string::npos);

    Session ses;
    ses.configure(t.params);
    REQUIRE(ses.broken().has_value());
    const BrokenRun& br = *ses.broken();
    CHECK(ses.num_steps() == 2);
    CHECK(ses.steps_run() == 2);  // the whole run happened at configure
    CHECK(ses.real_steps_executed() == 2 * br.tries);
    // The one-buffer ring: no recv_buff, no swap.
    for (const auto& rank_ops : ses.schedule().steps[0].ranks)
      for (const Op& o : rank_ops) CHECK(o.kind != OpKind::swap);
    // The seeds are tried in the check's order: the shown one is the first that corrupts.
    CHECK(br.max_seeds == 30);
    const RankData want = reference_outputs(ses.schedule().spec, ses.inputs());
    std::string why;
    const bool match = outputs_match(ses.schedule().spec, ses.inputs(), ses.outputs(), want, &why);
    CHECK(br.corrupted == !match);
    if (br.corrupted) {
      CHECK(br.seed == static_cast<uint64_t>(br.tries));
      CHECK(br.why == why);
    } else {
      CHECK(br.tries == 30);  // none of the 30 seeds corrupted: the last is shown
    }

    ses.seek(2);
    CHECK(ses.real_steps_executed() == 2 * br.tries);  // stepping replays the recorded snapshots
    int wrong_total = 0;
    for (int pos = 0; pos <= 2; ++pos) {
      const BuffersScene sc = build_buffers(ses, pos, BuffersLayout{});
      CHECK(sc.judged);
      CHECK(sc.swaps.empty());
      CHECK(sc.banner == (br.corrupted ? fmt::format("single-buffered ring, send delays seed {}: corrupted (a real race: the values differ from run to "
                                              "run)",
                                              br.seed)
                                       : fmt::format("single-buffered ring, send delays seed {}: came out right this "
                                                     "time (none of 30 seeds corrupted)",
                                                     br.seed)));
      CHECK(sc.banner_error == br.corrupted);
      // Every cell against the correct ring's value, from the run's own snapshots.
      const RankStepRecord* recs = pos == 0 ? ses.trace().initial.data() : ses.trace().steps[pos - 1].data();
      std::string first, first_out;  // any row's first wrong element, an output row's
      int first_row = -1, first_cell = -1, out_row = -1, out_cell = -1;
      double first_got = 0, first_exp = 0, out_got = 0, out_exp = 0;
      int wrong = 0;
      for (size_t i = 0; i < sc.rows.size(); ++i) {
        const BufferRowDraw& row = sc.rows[i];
        CHECK(row.buf != Buf::recv_buff);
        CHECK(row.letter == "");
        const std::vector<double> exp = seed_ring_value(pos, row.rank, row.buf);
        const std::vector<double>* got = nullptr;
        for (const auto& bs : recs[row.rank].buffers)
          if (bs.buf == row.buf) got = &bs.values;
        REQUIRE(got != nullptr);
        REQUIRE(row.cells.size() == 3);
        for (size_t e = 0; e < 3; ++e) {
          const CellDraw& c = row.cells[e];
          const bool is_wrong = !exp.empty() && (*got)[e] != exp[e];
          INFO("position " << pos << " R" << row.rank << " " << row.label << "[" << e << "]");
          CHECK(c.wrong == is_wrong);
          if (!is_wrong) continue;
          ++wrong;
          CHECK(c.expected == viz::format_value(exp[e]));
          CHECK(c.text == viz::format_value((*got)[e]));
          const std::string text = fmt::format("first wrong: R{} {}[{}] = {}, expected {}", row.rank, row.label, e,
                                               viz::format_value((*got)[e]), viz::format_value(exp[e]));
          if (first.empty()) {
            first = text;
            first_row = static_cast<int>(i), first_cell = static_cast<int>(e);
            first_got = (*got)[e], first_exp = exp[e];
          }
          if (first_out.empty() && row.buf == Buf::output) {
            first_out = text;
            out_row = static_cast<int>(i), out_cell = static_cast<int>(e);
            out_got = (*got)[e], out_exp = exp[e];
          }
        }
      }
      CHECK(sc.wrong_cells == wrong);
      // The result's first wrong element is named before any other.
      if (!first_out.empty()) {
        first = first_out;
        first_row = out_row, first_cell = out_cell, first_got = out_got, first_exp = out_exp;
      }
      CHECK(sc.first_wrong.text == first);
      CHECK(sc.first_wrong.row == first_row);
      CHECK(sc.first_wrong.cell == first_cell);
      if (first_row >= 0) {
        CHECK(sc.first_wrong.element == first_cell);  // one element per cell
        CHECK(sc.first_wrong.got == first_got);
        CHECK(sc.first_wrong.expected == first_exp);
      }
      wrong_total += wrong;
    }
    // A corrupted run's outputs are wrong, so the last position has red cells.
    if (br.corrupted) CHECK(wrong_total > 0);
    else CHECK(wrong_total == 0);

    // Another algorithm picked in the controls runs as itself, checked.
    RunParams other = t.params;
    other.spec.algorithm = "ring";
    ses.configure(other);
    CHECK_FALSE(ses.broken().has_value());
    CHECK(ses.num_steps() == 4);
    ses.seek(4);
    const BuffersScene sc = build_buffers(ses, 4, BuffersLayout{});
    CHECK(sc.banner == "");
    CHECK_FALSE(sc.judged);  // the chunked ring's buffers are not whole vectors
    CHECK(sc.wrong_cells == 0);
  }

  TEST_CASE("a correct run is judged and has no red cell; the double buffer is lettered and its swap marked") {
    Session ses;
    ses.configure(seed_ring());
    CHECK_FALSE(ses.broken().has_value());
    BuffersLayout lay;
    for (int pos = 0; pos <= 2; ++pos) {
      ses.seek(pos);
      const BuffersScene sc = build_buffers(ses, pos, lay);
      CHECK(sc.judged);
      CHECK(sc.wrong_cells == 0);
      CHECK(sc.first_wrong.row == -1);
      CHECK(sc.first_wrong.text == "");
      CHECK(sc.banner == "");
      for (const auto& row : sc.rows)
        for (const auto& c : row.cells) CHECK_FALSE(c.wrong);
      // Letters: send_buff starts on storage A, recv_buff on B; the swap after
      // step 0 trades them; step 1 does not swap. Other rows have none.
      for (const auto& row : sc.rows) {
        const bool traded = pos >= 1;
        if (row.buf == Buf::send_buff) CHECK(row.letter == (traded ? "B" : "A"));
        else if (row.buf == Buf::recv_buff) CHECK(row.letter == (traded ? "A" : "B"));
        else CHECK(row.letter == "");
      }
      if (pos != 1) {
        CHECK(sc.swaps.empty());
        continue;
      }
      // Position 1 shows step 0, which swapped on every rank: one marker each,
      // right of the cells, spanning the send_buff and recv_buff rows.
      REQUIRE(sc.swaps.size() == 3);
      for (int r = 0; r < 3; ++r) {
        const SwapMarkDraw& m = sc.swaps[static_cast<size_t>(r)];
        CHECK(m.rank == r);
        CHECK(m.text == "swap");
        const BufferRowDraw& a = sc.rows[static_cast<size_t>(m.row_a)];
        const BufferRowDraw& b = sc.rows[static_cast<size_t>(m.row_b)];
        CHECK(a.rank == r);
        CHECK(a.buf == Buf::send_buff);
        CHECK(b.buf == Buf::recv_buff);
        CHECK(m.y0 == a.y);
        CHECK(m.y1 == b.y + lay.row_h);
        CHECK(m.x0 > a.cells.back().x1);
        CHECK(m.x1 - m.x0 >= lay.swap_w - 4 - 1e-3f);
        CHECK(m.x1 <= lay.width + 1e-3f);
      }
    }
    // No false alarm on other data: every dtype and judged op, random fill.
    for (DType dt : {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
        RunParams p;
        p.spec.algorithm = "ring_unchunked";
        p.spec.world_size = 4;
        p.spec.count = 5;
        p.spec.dtype = dt;
        p.spec.op = op;
        p.data = "random:7";
        Session s2;
        s2.configure(p);
        s2.seek(s2.num_steps());
        const BuffersScene sc = build_buffers(s2, s2.num_steps(), lay);
        INFO(name(dt) << " " << name(op));
        CHECK(sc.judged);
        CHECK(sc.wrong_cells == 0);
      }
  }
}
