// A lesson beat's open question keeps the topology's byte figures back
// (scene_topology.h withhold_bytes): lesson 09 beat 7 asks how many MiB
// leave node 0's NIC, and the legend read "equally (2 MiB each)".
#include <doctest/doctest.h>

#include <string>

#include "app/viz/scene.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("topology_withhold") {
  TEST_CASE("the bottleneck's bytes and the compact nodes' totals are withheld; names stay") {
    TopologyScene sc;
    sc.bottleneck = "all 8 NIC out and in ports, equally (2 MiB each)";
    NodeBoxDraw b;
    b.totals = {"out 2 MiB", "in 2 MiB", "inside 12 KiB"};
    sc.boxes.push_back(b);
    withhold_bytes(sc);
    CHECK(sc.bottleneck == "all 8 NIC out and in ports, equally");
    REQUIRE(sc.boxes.size() == 1);
    CHECK(sc.boxes[0].totals == std::vector<std::string>{"out ?", "in ?", "inside ?"});
    // A single port's name and a tie of unequal bytes carry no figure: unchanged.
    sc.bottleneck = "node 0 NIC 0 out";
    withhold_bytes(sc);
    CHECK(sc.bottleneck == "node 0 NIC 0 out");
    sc.bottleneck = "NIC out of nodes 0–3, tied";
    withhold_bytes(sc);
    CHECK(sc.bottleneck == "NIC out of nodes 0–3, tied");
  }

  TEST_CASE("lesson 09's 16-rank recursive doubling: the legend names the ports without their MiB") {
    RunParams p;
    p.spec.algorithm = "recursive_doubling";
    p.spec.world_size = 16, p.spec.nodes = 2, p.spec.count = 65536;
    Session ses;
    ses.configure(p);
    TopologyScene sc = build_topology(ses, ses.num_steps(), Vec2{600, 400});
    INFO(sc.bottleneck);
    REQUIRE(sc.bottleneck.find("MiB") != std::string::npos);
    withhold_bytes(sc);
    CHECK(sc.bottleneck.find("MiB") == std::string::npos);
    CHECK(sc.bottleneck.find("equally") != std::string::npos);
  }
}
