// Scene building (app/viz/scene.h): no ImGui, no GL.
#include <doctest/doctest.h>

#include <set>

#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/record/data.h"
#include "core/record/record_io.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
RunParams seed_ring() {
  RunParams p;
  p.spec.algorithm = "ring_unchunked";
  p.spec.world_size = 3;
  p.spec.count = 3;
  p.data = "1,2,3;4,5,6;7,8,9";
  return p;
}
}  // namespace

TEST_SUITE("scene") {
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
      CHECK(st.end_us - st.begin_us >= st.p90_us);  // the whisker fits in its step
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
    Session rep;
    rep.load_replay(record_from_json(record_to_json(rec)));
    rep.seek(2);
    const TimelineScene rt = build_timeline(rep);
    REQUIRE(rt.steps.size() == 2);
    CHECK(rt.steps[0].median_us == doctest::Approx(5.9));
    CHECK(rt.steps[0].p10_us == doctest::Approx(5.1));
    CHECK(rt.steps[0].p90_us == doctest::Approx(7.3));
    CHECK(rt.steps[0].first_run_us == doctest::Approx(48.0));
    CHECK(rt.steps[0].repetitions == 20);
    CHECK(rt.steps[1].repetitions == 0);
    CHECK(rt.steps[1].median_us == doctest::Approx(6.0));
  }
}

TEST_SUITE("scene_network") {
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
