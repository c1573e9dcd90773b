// Ports tied for the bottleneck (topology_model.h tied_busiest, ports_text
// and NetworkPrediction's step_tied / tied): equally loaded ports are named
// together, never the first of equals; a port strictly the busiest keeps
// its own name.
#include <doctest/doctest.h>

#include <vector>

#include "core/algorithms/registry.h"
#include "core/ir/types.h"
#include "core/model/topology_model.h"

using namespace microddp;

namespace {
std::vector<int> ids(const Topology& t, PortKind k, const std::vector<int>& idx) {
  std::vector<int> v;
  for (int i : idx) v.push_back(port_id(t, {k, i}));
  return v;
}
std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
CollectiveSpec all_reduce(const std::string& alg, int n, int nodes) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = alg;
  s.world_size = n;
  s.count = 8;
  s.nodes = nodes;
  return s;
}
Network net(int n, int nodes) {
  Network w;
  w.topo = Topology::make(n, nodes, 1);
  w.intra = preset("nvlink");
  w.inter = preset("infiniband");
  return w;
}
}  // namespace

TEST_SUITE("topology_ties") {
  TEST_CASE("ports_text: one port by name; tied ports by kind, out and in of the same NICs merged") {
    const Topology t = Topology::make(8, 8, 1);  // 8 nodes, one rank and one NIC each
    CHECK(ports_text(t, {}) == "-");
    CHECK(ports_text(t, ids(t, PortKind::nic_out, {3})) == "node 3 NIC 0 out");
    const std::vector<int> all8 = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(ports_text(t, ids(t, PortKind::nic_out, all8)) == "all 8 NIC out ports");
    CHECK(ports_text(t, ids(t, PortKind::nic_in, all8)) == "all 8 NIC in ports");
    CHECK(ports_text(t, cat(ids(t, PortKind::nic_out, all8), ids(t, PortKind::nic_in, all8))) ==
          "all 8 NIC out and in ports");
    CHECK(ports_text(t, ids(t, PortKind::nic_out, {0, 1, 2, 3, 5})) == "NIC out of nodes 0\u20133, 5");
    CHECK(ports_text(t, ids(t, PortKind::nic_out, {0, 1})) == "NIC out of nodes 0, 1");
    CHECK(ports_text(t, cat(ids(t, PortKind::nic_out, {0, 1, 2}), ids(t, PortKind::nic_in, {1, 2, 3}))) ==
          "NIC out of nodes 0\u20132 and NIC in of nodes 1\u20133");
    CHECK(ports_text(t, ids(t, PortKind::intra_out, {0, 2})) == "intra out of R0, R2");
    CHECK(ports_text(t, cat(ids(t, PortKind::intra_out, {0, 1, 2, 3}), ids(t, PortKind::nic_out, {1}))) ==
          "intra out of R0\u2013R3 and NIC out of node 1");
    CHECK(ports_text(t, ids(t, PortKind::intra_in, all8)) == "all 8 intra in ports");
    // Two NICs per node: each named by node and NIC.
    const Topology rail = Topology::make(8, 2, 2);
    CHECK(ports_text(rail, ids(rail, PortKind::nic_out, {1, 2})) == "NIC out of node 0 NIC 1, node 1 NIC 0");
    CHECK(ports_text(rail, ids(rail, PortKind::nic_in, {0, 1, 2, 3})) == "all 4 NIC in ports");
    // Two of a kind: "both".
    const Topology two = Topology::make(4, 2, 1);
    CHECK(ports_text(two, cat(ids(two, PortKind::nic_out, {0, 1}), ids(two, PortKind::nic_in, {0, 1}))) ==
          "both NIC out and in ports");
    // A switch's ports (numbered after the NICs): per rank, or its single in and out.
    const Topology one = Topology::make(8, 1, 1);
    const auto sw = [&](PortKind k, const std::vector<int>& idx) {
      std::vector<int> v;
      for (int i : idx) v.push_back(port_id(one, Port{k, i, 0}));
      return v;
    };
    CHECK(ports_text(one, cat(sw(PortKind::switch_in, all8), sw(PortKind::switch_out, all8))) ==
          "all 8 SW out and in ports");
    CHECK(ports_text(one, sw(PortKind::switch_in, {0, 1, 2, 3})) == "SW in from R0\u2013R3");
    CHECK(ports_text(one, cat(ids(one, PortKind::intra_out, all8), sw(PortKind::switch_out, {2}))) ==
          "all 8 intra out ports and SW out to R2");
    CHECK(ports_text(one, cat(sw(PortKind::switch_in, {8}), sw(PortKind::switch_out, {8}))) == "SW in and SW out");
    CHECK_THROWS_WITH_AS(ports_text(t, {-1, 2}), "port -1 is not a port (ids start at 0)", UsageError);
  }

  TEST_CASE("tied_busiest: every time within a relative 1e-6 of the largest, ascending") {
    CHECK(tied_busiest({}).empty());
    CHECK(tied_busiest({0, 0, 0}).empty());
    CHECK(tied_busiest({1, 3, 3 * (1 + 1e-12), 2}) == std::vector<int>{1, 2});
    CHECK(tied_busiest({2, 2 * (1 - 1e-5)}) == std::vector<int>{0});
    CHECK(tied_busiest({0.5, 2 * (1 - 1e-5), 2}) == std::vector<int>{2});
    CHECK(tied_busiest({2, 2 * (1 - 0.9e-6)}) == std::vector<int>{0, 1});
    // integer chunking: 1e8 B over a ring of 6 ranks leaves one NIC 8 B over the others; a tie in words
    CHECK(tied_busiest({166666664, 166666672, 166666664, 100}) == std::vector<int>{0, 1, 2});
    CHECK(tied_busiest({7, 7, 7}) == std::vector<int>{0, 1, 2});
  }

  TEST_CASE("a ring over 8 one-rank nodes ties every NIC; the tree's step 2 loads node 0's NIC in alone") {
    const Network w = net(8, 8);
    const Topology& t = w.topo;
    const auto p = predict(make_schedule(all_reduce("ring", 8, 8)), w);
    REQUIRE(p.step_tied.size() == 14);  // 2(p - 1) steps
    const std::vector<int> all8 = {0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<int> nics = cat(ids(t, PortKind::nic_out, all8), ids(t, PortKind::nic_in, all8));
    for (size_t k = 0; k < p.step_tied.size(); ++k) {
      INFO("step ", k);
      CHECK(p.step_tied[k] == nics);
      CHECK(p.step_bottleneck[k] == port_id(t, {PortKind::nic_out, 0}));
      CHECK(p.step_port_bytes[k][static_cast<size_t>(port_id(t, {PortKind::nic_out, 5}))] == 4);  // 32 B / 8
    }
    CHECK(p.tied == nics);
    CHECK(p.bottleneck == port_id(t, {PortKind::nic_out, 0}));
    CHECK(ports_text(t, p.tied) == "all 8 NIC out and in ports");

    // The binary tree's step 2 (reduce up): R1 and R2 both send to R0, so
    // node 0's NIC in takes 2 messages and is strictly the busiest.
    const auto q = predict(make_schedule(all_reduce("tree", 8, 8)), w);
    REQUIRE(q.step_tied.size() > 2);
    CHECK(q.step_tied[2] == std::vector<int>{port_id(t, {PortKind::nic_in, 0})});
    CHECK(ports_text(t, q.step_tied[2]) == "node 0 NIC 0 in");
    // One message alone ties its sender's NIC out with its receiver's NIC in.
    CHECK(ports_text(t, q.step_tied[0]).find(" and NIC in of node") != std::string::npos);
  }
}
