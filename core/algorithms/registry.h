// The algorithm registry: one record (AlgorithmInfo) per algorithm, holding
// everything the rest of microddp asks about it, so that no other layer
// compares algorithm names:
//   name         the string of CollectiveSpec::algorithm ("ring", ...)
//   description  one line, for lists and tooltips
//   serves       per collective: the schedule generator (CollectiveSpec ->
//                Schedule) and, optionally, the closed-form cost from the
//                literature (closed_form.h: α-β-γ terms in seconds, S in
//                bytes, with the formula text and its source)
//   layout       how the viewer lays the ranks out (Layout below)
//   uses_root    its schedule depends on spec.root beyond the rooted
//                collectives (a naive all_reduce reduces to the root)
//   pipelines    accepts segments > 1; every other algorithm is refused a
//                segmented spec before generation, with a UsageError
//   whole_input_chunks  Op::chunk names whose input is travelling (the
//                whole vector moves), not a chunk of it: the printer says
//                "holding T{q}" instead of "chunk q"
//   preferred    the one a UI selects first when the collective changes
//   refuse       optional further refusals, called after spec.validate()
//                and before generating; throws UsageError naming the value
//   two_level    optional closed form on a two-level network (nodes > 1)
//
// A name may have several records (the star "naive" of tree.cpp and the
// pairwise-exchange "naive" all_to_all of pairwise.cpp), as long as no two
// serve the same collective. algorithms_for lists the names in
// registration order, which is the teaching order.
//
// Adding an algorithm: write one file core/algorithms/<family>.cpp with its
// generators and a function returning its records
// (`std::vector<AlgorithmInfo> <family>_algorithms()`), and add one line to
// the family list in registry.cpp (where to put it fixes its place in the
// teaching order). Families are called from that explicit list, not by
// static registrar objects, because the linker drops archive members that
// nothing references. Tests and tools may add records at run time with
// register_algorithm.
//
// The families:
//   tree.cpp            naive (star), tree (binary, heap order), binomial:
//                       broadcast, reduce, gather, scatter, barrier and the
//                       compositions all_reduce / all_gather / reduce_scatter
//                       "naive" and all_reduce "tree"
//   ring.cpp            ring (chunked): all_reduce, all_gather, reduce_scatter;
//                       ring_pipelined.cpp its segments > 1 form
//   ring_unchunked.cpp  ring_unchunked (the seed notes' double-buffered ring)
//   recursive.cpp       recursive_doubling, halving_doubling (Rabenseifner),
//                       dissemination barrier
//   pairwise.cpp        all_to_all pairwise exchange ("naive")
//   hierarchical.cpp    hierarchical all_reduce: the two-level ring over
//                       spec.nodes nodes (core/ir/topology.h)
//   nvls.cpp            nvls all_reduce: in-network reduction through a
//                       switch endpoint (NVLS / SHARP / CollNet)
// Sources: Thakur, Rabenseifner & Gropp, "Optimization of Collective
// Communication Operations in MPICH" (IJHPCA 2005) for the binomial, recursive
// doubling / halving and the non-power-of-two fix-up; Patarasuk & Yuan,
// "Bandwidth optimal all-reduce algorithms for clusters of workstations"
// (JPDC 2009) for the ring; Hensgen, Finkel & Manber (1988) for the
// dissemination barrier.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/algorithms/closed_form.h"
#include "core/ir/schedule.h"

namespace microddp {

// How the viewer draws the ranks of an algorithm.
enum class Layout {
  none,           // no fixed shape: ranks on a circle, no links (pairwise, dissemination)
  ring,           // a circle with links r -> r+1
  star,           // the root in the middle, every other rank around it
  tree,           // the binary tree in heap order (make_tree)
  binomial_tree,  // the binomial tree (make_tree)
  hypercube,      // partners at distance 1, 2, 4, ... in rows and columns
  switch_star,    // the switch endpoint (Schedule::switches) in the middle, every rank around it (nvls)
};
std::string_view name(Layout l);

using Generator = std::function<Schedule(const CollectiveSpec&)>;

struct AlgorithmInfo {
  std::string name;
  std::string description;
  struct Variant {
    Collective collective = Collective::all_reduce;
    Generator generate;
    std::optional<ClosedForm> closed_form;
  };
  std::vector<Variant> serves;
  Layout layout = Layout::none;
  bool uses_root = false;
  bool pipelines = false;
  bool whole_input_chunks = false;
  bool preferred = false;
  std::function<void(const CollectiveSpec&)> refuse;
  // Optional closed form on a two-level network (spec.nodes > 1), in the
  // congestion-aware model of core/model/topology_model.h (closed_form.h).
  TwoLevelForm two_level;
  // Optional closed form on a network whose switch reduces (prices.nvls is
  // set; Network::nvls of core/model/topology_model.h), one node.
  TwoLevelForm in_network;

  // The variant for collective c, or nullptr.
  const Variant* variant(Collective c) const;
};

// Adds a record after the built-in ones. Throws std::logic_error when the
// name is empty, a variant has no generator, or (name, collective) is
// already registered for one of the collectives it serves. Not thread-safe:
// call before other threads use the registry.
void register_algorithm(AlgorithmInfo info);
// Removes the record that serves (name, c), all its collectives with it.
// Returns false when there is none. For tests that register a toy.
bool unregister_algorithm(const std::string& name, Collective c);

// The record for (name, c), or nullptr when none serves c.
const AlgorithmInfo* find_algorithm(const std::string& name, Collective c);
// The record for spec's algorithm and collective. Throws UsageError
// "unknown algorithm 'x' for c (expected one of: ...)" when none.
const AlgorithmInfo& algorithm_info(const CollectiveSpec& spec);
// Layout of spec's algorithm; Layout::none when it is unknown.
Layout layout_of(const CollectiveSpec& spec);

// The algorithms that serve a collective, in teaching order. The reference
// stays valid; its contents change only with register/unregister_algorithm.
const std::vector<std::string>& algorithms_for(Collective c);
// The first preferred algorithm for c, else the first listed ("" when none).
const std::string& preferred_algorithm(Collective c);

// Build the schedule. Validates the spec first. Throws UsageError naming the
// algorithm and the collective when the algorithm does not exist for it, or
// when it refuses this spec (segments > 1 for an algorithm that does not
// pipeline; its own refuse()).
Schedule make_schedule(const CollectiveSpec& spec);

// Test-only: the ring_unchunked all-reduce with ONE buffer, i.e. receiving
// into the very buffer whose send is still in flight. The checker rejects it
// (core/checker.h); under a delayed send it corrupts. Used to prove the
// double-buffering test can fail, and by lesson 02.
Schedule make_single_buffered_ring(const CollectiveSpec& spec);

// Binary/binomial/star trees in "virtual rank" space (v = (r - root) mod n).
struct Tree {
  std::vector<int> parent;               // -1 for the root (v = 0)
  std::vector<std::vector<int>> children;// in the order their data is combined
  std::vector<int> up_step;              // step in which v sends to its parent
  std::vector<int> down_step;            // step in which v receives from its parent
  int up_steps = 0, down_steps = 0;
  std::vector<int> depth;
};
// shape: Layout::star (one child per step), Layout::tree (binary heap
// order, height ceil(log2(n+1))), Layout::binomial_tree. Throws
// std::logic_error for any other layout.
Tree make_tree(Layout shape, int n);

}  // namespace microddp
