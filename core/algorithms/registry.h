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
//   layout_part  optional: which part of the layout (double_tree: which
//                tree) carries a chunk, for the views' colours
//   uses_root    its schedule depends on spec.root beyond the rooted
//                collectives (a naive all_reduce reduces to the root)
//   pipelines    accepts segments > 1; every other algorithm is refused a
//                segmented spec before generation, with a UsageError
//   channels     accepts channels > 1 (CollectiveSpec::channels): make_schedule
//                cuts the vector into that many slices and runs the
//                generator once per slice (channels.cpp); every other
//                algorithm is refused, with a UsageError naming it
//   compare_order  > 0: in the window's default Compare set, in this order
//                (naive 1, tree 2, ring 3); also the palette's first colours
//   compare_reference  Compare reports where this one becomes the fastest
//                (the ring: "ring is the fastest from 1 MiB on")
//   broken, broken_name  optional: a deliberately broken form of the
//                algorithm that the checker rejects (ring_unchunked's one-
//                buffer ring, "single_buffered_ring"), for the lessons and
//                the window's broken runs
//   whole_input_chunks  Op::chunk names whose input is travelling (the
//                whole vector moves), not a chunk of it: the printer says
//                "holding T{q}" instead of "chunk q"
//   preferred    the one a UI selects first when the collective changes
//   opens_viewer the window's opening run (the seed notes' ring_unchunked,
//                whose one-buffer form the lessons break): a layout fact, so
//                that app/ names no algorithm
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
//   double_tree.cpp     double_binary_tree all_reduce (NCCL's two trees,
//                       Sanders, Speck & Träff 2009), pipelined in segments
//   direct.cpp          one_shot and two_shot all_reduce: direct reads of the
//                       peers' buffers (TensorRT-LLM / vLLM custom all-reduce)
//   channels.cpp        (no records) the channel split of make_schedule
//   nvls.cpp            nvls all_reduce: in-network reduction through a
//                       switch endpoint (NVLS / SHARP / CollNet)
// Sources: Thakur, Rabenseifner & Gropp, "Optimization of Collective
// Communication Operations in MPICH" (IJHPCA 2005) for the binomial, recursive
// doubling / halving and the non-power-of-two fix-up; Patarasuk & Yuan,
// "Bandwidth optimal all-reduce algorithms for clusters of workstations"
// (JPDC 2009) for the ring; Hensgen, Finkel & Manber (1988) for the
// dissemination barrier.
#pragma once
#include <array>
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
  double_tree,    // two binary trees over the same ranks (make_double_tree), in two colours
  full_mesh,      // every rank reads from every other: a circle with all links
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
  bool channels = false;
  int compare_order = 0;
  bool compare_reference = false;
  Generator broken;
  std::string broken_name;
  bool whole_input_chunks = false;
  bool preferred = false;
  bool opens_viewer = false;
  std::function<void(const CollectiveSpec&)> refuse;
  // Optional closed form on a two-level network (spec.nodes > 1), in the
  // congestion-aware model of core/model/topology_model.h (closed_form.h).
  TwoLevelForm two_level;
  // Optional closed form on a network whose switch reduces (prices.nvls is
  // set; Network::nvls of core/model/topology_model.h), one node.
  TwoLevelForm in_network;
  // Layout hint for the views, optional: which part of the layout carries
  // chunk `chunk` (Op::chunk, after the channel renumbering of
  // with_channels) of a schedule made for `spec`: for Layout::double_tree
  // the tree, 0 or 1; -1 when the chunk is in no part. The window colours
  // each chunk by its part, so a new algorithm with parts touches no file
  // under app/.
  std::function<int(const CollectiveSpec& spec, int chunk)> layout_part;

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
// The all_reduce record marked opens_viewer (ring_unchunked), else
// preferred_algorithm(all_reduce): the window's default run.
const std::string& viewer_algorithm();

// The window's default Compare set for c: the algorithms serving c whose
// compare_order > 0, in that order, then others in teaching order until
// there are `fill_to` (naive, tree, ring for all_reduce).
std::vector<std::string> compare_set(Collective c, size_t fill_to = 3);
// Every registered name, compare set first (by compare_order), then in
// registration order (every collective's list, first appearance): the
// palette's order.
std::vector<std::string> palette_order();
// The name of the record marked compare_reference ("ring"), "" when none.
const std::string& compare_reference();
// The record whose broken_name is `broken_name` ("single_buffered_ring"),
// or nullptr.
const AlgorithmInfo* broken_variant_of(const std::string& broken_name);

// Build the schedule. Validates the spec first. Throws UsageError naming the
// algorithm and the collective when the algorithm does not exist for it, or
// when it refuses this spec (segments > 1 for an algorithm that does not
// pipeline; channels > 1 for one without `channels`: "channels = 2: algorithm
// 'tree' does not run in channels (only ring, double_binary_tree)"; its own
// refuse()). channels > 1: the generator runs once per channel's slice and
// the schedules are merged step by step (with_channels, below).
Schedule make_schedule(const CollectiveSpec& spec);

// The channel split (channels.cpp): spec.channels slices of the vector (all
// even_chunks: all_reduce cuts [0, count); all_gather and reduce_scatter cut
// every rank's block, so channel c holds slice c of each block), `generate`
// called with a spec of the slice's counts and channels = 1, and the
// channels' ops of step k concatenated in step k, channel 0 first, each op
// tagged with Op::channel. Work buffers (send_buff, recv_buff, accum,
// scratch) get one disjoint region per channel. Throws std::logic_error when
// the channels' schedules differ in steps or phases, or one of them swaps
// buffers (a swap exchanges the whole buffer names, for every channel).
Schedule with_channels(const CollectiveSpec& spec, const Generator& generate);

// NCCL's double binary tree (double_tree.cpp): tree 0 is NCCL's in-order
// binary tree rooted at rank 0 (ncclGetBtree), tree 1 is tree 0 mirrored
// (rank r plays n-1-r) for even n and shifted by one (r plays r-1) for odd
// n (ncclGetDtree). Source: NVIDIA/nccl src/graph/trees.cc (the 2.7-era
// file with parentChildType, commit 18a07ee). Ranks, not virtual ranks: the
// trees do not depend on spec.root.
struct DoubleTree {
  // per tree t in {0, 1}, per rank r:
  std::array<std::vector<int>, 2> parent;                 // -1 for the root
  std::array<std::vector<std::vector<int>>, 2> children;  // NCCL's down0 then down1, -1s left out
  std::array<std::vector<int>, 2> depth;                  // root 0
  std::array<int, 2> root{};
  int height = 0;  // the largest depth (both trees have the same shape)
};
DoubleTree make_double_tree(int n);  // n >= 1

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
