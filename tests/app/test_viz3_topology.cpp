// The compact topology nodes (more than 8 nodes, scene_topology_nodes.cpp):
// the line under the canvas counts the shown step's transfers between
// ranks (all, across nodes) and says what the arrows are (one per pair of
// drawn nodes, summing those transfers). It used to print "13 transfers"
// for 13 arrows of a 64-transfer ring step.
#include <doctest/doctest.h>

#include "app/viz/scene.h"
#include "app/viz/session.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("viz3_topology") {
  TEST_CASE("ring, 64 ranks on 16 nodes of 4: 64 transfers a step, 16 across nodes, an arrow per drawn node pair") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 64;
    p.spec.nodes = 16;
    p.spec.count = 64;
    Session ses;
    ses.configure(p);
    // Every node drawn: 16 arrows (node k -> k + 1, and 15 -> 0), one transfer each.
    const TopologyScene all = build_topology(ses, 3, Vec2{1000, 500});
    REQUIRE(all.compact_nodes);
    REQUIRE(all.boxes.size() == 16);
    CHECK(all.step_transfers == 64);
    CHECK(all.across_transfers == 16);
    CHECK(all.across_drawn == 16);
    CHECK(all.arrows.size() == 16);
    CHECK(transfers_text(all) == "64 transfers, 16 across nodes; 16 arrows, one per from-to pair of drawn nodes");
    CHECK(transfers_text(all, false) == "64 transfers, 16 across nodes");
    // 200 x 150: 5 of the 16 nodes drawn (the 6th slot for the note): the
    // arrows 0->1 .. 3->4 carry 4 of the 16 transfers across nodes.
    const TopologyScene few = build_topology(ses, 3, Vec2{200, 150});
    REQUIRE(few.compact_nodes);
    REQUIRE(few.boxes.size() == 5);
    CHECK(few.step_transfers == 64);
    CHECK(few.across_transfers == 16);
    CHECK(few.across_drawn == 4);
    CHECK(transfers_text(few) == "64 transfers, 16 across nodes; 4 arrows, one per from-to pair of drawn nodes");
  }

  TEST_CASE("recursive doubling, 32 ranks on 16 nodes of 2: two transfers per node pair, one arrow for both") {
    RunParams p;
    p.spec.algorithm = "recursive_doubling";
    p.spec.world_size = 32;
    p.spec.nodes = 16;
    p.spec.count = 32;
    Session ses;
    ses.configure(p);
    // Step 0: rank r with r ^ 1, its node's other rank: 32 transfers, none across.
    TopologyScene sc = build_topology(ses, 1, Vec2{1000, 500});
    REQUIRE(sc.compact_nodes);
    REQUIRE(sc.boxes.size() == 16);
    CHECK(sc.step_transfers == 32);
    CHECK(sc.across_transfers == 0);
    CHECK(sc.arrows.empty());
    CHECK(transfers_text(sc) == "32 transfers, 0 across nodes; 0 arrows, one per from-to pair of drawn nodes");
    // Step 1: r with r ^ 2, on node k ^ 1: every transfer across, both
    // ranks of node k to node k ^ 1 summed into one arrow of 2 x 32 elements.
    sc = build_topology(ses, 2, Vec2{1000, 500});
    CHECK(sc.step_transfers == 32);
    CHECK(sc.across_transfers == 32);
    CHECK(sc.across_drawn == 32);
    CHECK(sc.arrows.size() == 16);
    for (const ArrowDraw& a : sc.arrows) CHECK(a.bytes == 2 * 32 * 4);
    CHECK(transfers_text(sc) == "32 transfers, 32 across nodes; 16 arrows, one per from-to pair of drawn nodes");
  }

  TEST_CASE("ranks drawn (8 nodes or fewer): an arrow per transfer, counted as such") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.nodes = 2;
    p.spec.count = 8;
    Session ses;
    ses.configure(p);
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 300});
    REQUIRE_FALSE(sc.compact_nodes);
    CHECK(sc.arrows.size() == 8);
    CHECK(transfers_text(sc) == "8 transfers");
  }
}
