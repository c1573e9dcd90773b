// Scene building (app/viz/scene.h) on several nodes: cluster-lab records,
// node boxes and their loads, arrows clear of the NICs, the chained flat
// ring, and a calibrated profile's prediction. No ImGui, no GL.
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
#include "tests/app/scene_topo.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace
using test::topo_source;
using test::two_by_four;
using test::arrow_distance;
using test::arrow_hits;

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
    CHECK(sc.nics[1].bottleneck);  // both NICs carry as much: tied, both marked
    CHECK(sc.bottleneck == "both NIC out and in ports, equally (16 B each)");
    REQUIRE(sc.legend.size() == 2);
    CHECK(sc.legend[1].find("infiniband") != std::string::npos);
    INFO(sc.legend[0], " / ", sc.legend[1]);
    CHECK(sc.legend[0].find("nvlink, α 1 µs, ") != std::string::npos);  // nvlink's α (format_us)
    CHECK(sc.legend[1].find("infiniband, α 2 µs, ") != std::string::npos);  // infiniband's

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
              for (const NodeBoxDraw& b : sc.boxes) {
                CHECK(b.min.x >= 0);
                CHECK(b.max.x <= size.x);
                CHECK(b.max.y <= size.y);
              }
              // Only narrow boxes of 3 ranks or more (470 px: a compare
              // column, a canvas beside a lesson) leave the arc around the
              // NIC no room for circles holding their labels at the least
              // text size (9 px): there the compact nodes take over, no
              // rank drawn, the boxes in rows of what fits.
              if (sc.compact_nodes) {
                CHECK(size.x == 470);
                CHECK(g >= 3);
                CHECK(N * g >= 12);
                for (const NodeDraw& nd : sc.nodes) CHECK(nd.radius == 0);
                continue;
              }
              for (int k = 0; k + 1 < N; ++k) CHECK(sc.boxes[k].max.x < sc.boxes[k + 1].min.x);
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
                // An arrow inside a node passes no NIC; one between nodes
                // passes its sender's and its receiver's.
                for (const ArrowDraw& a : sc.arrows) {
                  const bool inter = a.from / g != a.to / g;
                  const bool own = inter && (a.from / g == d.node || a.to / g == d.node);
                  if (!inter) CHECK_FALSE(arrow_hits(a, d.pos, d.half, 2));
                  if (own) CHECK(arrow_hits(a, d.pos, d.half, 0));
                }
              }
            }
          }
  }

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
          CHECK(arrow_distance(a, nd.pos) > nd.radius);
    }
    // The hierarchical all-reduce talks rank l to rank l across nodes: no chain.
    Session h;
    h.configure(two_by_four("hierarchical"));
    CHECK_FALSE(build_topology(h, 4, Vec2{470, 190}).chain);
  }

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
