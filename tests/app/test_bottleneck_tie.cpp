// The topology's and the stats' bottleneck when ports tie (lesson 09 beats
// 2 and 8–10: a ring over one-rank nodes loads every NIC alike): all the
// tied ports are marked and named together, never "node 0 NIC 0 out" as if
// node 0 were special; a port strictly the busiest keeps its own name. No
// ImGui, no GL.
#include <doctest/doctest.h>

#include "app/viz/scene.h"
#include "app/viz/session.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
// all_reduce of 2048 float32 (8 KiB per rank) on `n` ranks over `nodes` nodes.
RunParams run(const std::string& alg, int n, int nodes) {
  RunParams p;
  p.spec.collective = Collective::all_reduce;
  p.spec.algorithm = alg;
  p.spec.world_size = n;
  p.spec.nodes = nodes;
  p.spec.count = 2048;
  return p;
}
}  // namespace

TEST_SUITE("bottleneck_tie") {
  TEST_CASE("ring on 8 nodes x 1: every NIC is the bottleneck alike, in the picture and the stats") {
    Session ses;
    ses.configure(run("ring", 8, 8));
    REQUIRE(ses.num_steps() == 14);
    // After the last step: each rank sends one 1 KiB chunk to the next node.
    const TopologyScene sc = build_topology(ses, 14, Vec2{1200, 700});
    REQUIRE_FALSE(sc.compact_nodes);
    CHECK(sc.bottleneck == "all 8 NIC out and in ports, equally (1 KiB each)");
    REQUIRE(sc.nics.size() == 8);
    for (const NicDraw& d : sc.nics) {
      CHECK(d.bottleneck);
      CHECK(d.bytes == 2048);  // 1 KiB out + 1 KiB in
    }
    REQUIRE(sc.loads.size() == 8);
    for (const ArrowLoad& l : sc.loads) {
      CHECK(l.inter);
      CHECK(l.bottleneck);
      CHECK(l.port_bytes == 1024);
    }
    const Stats st = build_stats(ses, 14, 20);
    CHECK(st.bottleneck_step == "all 8 NIC out and in ports, equally (1 KiB each)");
    CHECK(st.bottleneck_run == "all 8 NIC out and in ports, equally (14 KiB each)");
    REQUIRE(st.ports_step.size() == 16);
    for (const auto& pl : st.ports_step) {
      CHECK(pl.inter);
      CHECK(pl.bottleneck);
      CHECK(pl.tied);
    }
    CHECK(st.ports_step[0].name == "node 0 NIC 0 out");
  }

  TEST_CASE("binary tree on 8 nodes x 1, step 2: node 0's NIC in alone is the bottleneck, by its name") {
    Session ses;
    ses.configure(run("tree", 8, 8));
    // After step 2: R1 and R2 both send to R0 (reduce up the tree).
    const TopologyScene sc = build_topology(ses, 3, Vec2{1200, 700});
    CHECK(sc.bottleneck == "node 0 NIC 0 in");
    REQUIRE(sc.nics.size() == 8);
    CHECK(sc.nics[0].bottleneck);
    for (size_t i = 1; i < sc.nics.size(); ++i) CHECK_FALSE(sc.nics[i].bottleneck);
    REQUIRE(sc.loads.size() == 2);
    for (const ArrowLoad& l : sc.loads) CHECK_FALSE(l.bottleneck);  // each sender's NIC out carries one message
    const Stats st = build_stats(ses, 3);
    CHECK(st.bottleneck_step == "node 0 NIC 0 in");
    REQUIRE_FALSE(st.ports_step.empty());
    int marked = 0;
    for (const auto& pl : st.ports_step) {
      marked += pl.bottleneck;
      CHECK_FALSE(pl.tied);
    }
    CHECK(marked == 1);
    CHECK(st.ports_step[0].name == "node 0 NIC 0 in");
    CHECK(st.ports_step[0].bytes == 2 * 8192);  // the tree sends whole vectors
  }

  TEST_CASE("bottleneck_text: tied ports with different bytes say \"tied\"; none is empty") {
    const Topology t = Topology::make(8, 8, 1);
    std::vector<int64_t> bytes(static_cast<size_t>(num_ports(t)), 0);
    const int a = port_id(t, {PortKind::nic_out, 0}), b = port_id(t, {PortKind::nic_out, 1});
    bytes[static_cast<size_t>(a)] = 100;
    bytes[static_cast<size_t>(b)] = 3 << 20;
    CHECK(bottleneck_text(t, {a, b}, bytes) == "NIC out of nodes 0, 1, tied");
    bytes[static_cast<size_t>(a)] = 3 << 20;
    CHECK(bottleneck_text(t, {a, b}, bytes) == "NIC out of nodes 0, 1, equally (3 MiB each)");
    CHECK(bottleneck_text(t, {b}, bytes) == "node 1 NIC 0 out");
    CHECK(bottleneck_text(t, {}, bytes) == "");
  }
}
