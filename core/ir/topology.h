// Where the ranks of a run sit: nodes, the ranks on each, and the network
// cards (NICs) each node has. A plain description of placement; the link
// parameters (α, bandwidth per link class) belong to the cost model
// (core/model/topology_model.h).
//
// Placement is contiguous, as a launcher fills nodes: node k holds ranks
// k·g .. k·g + g − 1 with g = world size / nodes. Rank r uses NIC
// (r mod g) mod nics_per_node of its node, so nics_per_node = g is the
// rail-optimised layout (local rank l on every node talks through NIC l).
#pragma once
#include <fmt/format.h>

#include "core/ir/types.h"

namespace microddp {

// --nodes as every command reads a given value (run, predict, bench, the
// window, a lesson's setup): at least 1, or UsageError "--nodes N must be
// at least 1". A command whose --nodes has a default of its own (bench: the
// cluster lab's) checks a value the user gave with this all the same: a
// given 0 is never taken as "not given".
inline void check_nodes(int nodes) {
  if (nodes < 1) throw UsageError(fmt::format("--nodes {} must be at least 1", nodes));
}

struct Topology {
  int nodes = 1;
  int ranks_per_node = 1;  // g
  int nics_per_node = 1;   // K, 1..g

  int world_size() const { return nodes * ranks_per_node; }
  int node_of(int r) const { return r / ranks_per_node; }
  int local_of(int r) const { return r % ranks_per_node; }
  // NIC index within the node (0..K-1).
  int nic_of(int r) const { return local_of(r) % nics_per_node; }
  bool same_node(int a, int b) const { return node_of(a) == node_of(b); }

  // world_size ranks on `nodes` nodes with `nics` NICs each. Throws
  // UsageError naming the value: nodes < 1, world_size not divisible by
  // nodes (names both), nics < 1 or nics > ranks per node.
  static Topology make(int world_size, int nodes, int nics = 1) {
    check_nodes(nodes);
    if (world_size % nodes != 0)
      throw UsageError(fmt::format("--ranks {} is not divisible by --nodes {} (placement is contiguous: every "
                                   "node holds the same number of ranks)",
                                   world_size, nodes));
    Topology t;
    t.nodes = nodes;
    t.ranks_per_node = world_size / nodes;
    if (nics < 1 || nics > t.ranks_per_node)
      throw UsageError(fmt::format("--nics-per-node {} is out of range (1..{}, the ranks per node)", nics,
                                   t.ranks_per_node));
    t.nics_per_node = nics;
    return t;
  }
};

}  // namespace microddp
