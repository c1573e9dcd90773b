// Schedule generators: CollectiveSpec -> Schedule. One file per family:
//   algo_tree.cpp       naive (star), tree (binary, heap order), binomial:
//                       broadcast, reduce, gather, scatter, barrier and the
//                       compositions all_reduce / all_gather / reduce_scatter
//                       "naive" and all_reduce "tree"
//   algo_ring.cpp       ring (chunked, segmented) and ring_unchunked
//   algo_recursive.cpp  recursive_doubling, halving_doubling (Rabenseifner),
//                       dissemination barrier
//   algo_pairwise.cpp   all_to_all pairwise exchange
// Sources: Thakur, Rabenseifner & Gropp, "Optimization of Collective
// Communication Operations in MPICH" (IJHPCA 2005) for the binomial, recursive
// doubling / halving and the non-power-of-two fix-up; Patarasuk & Yuan,
// "Bandwidth optimal all-reduce algorithms for clusters of workstations"
// (JPDC 2009) for the ring; Hensgen, Finkel & Manber (1988) for the
// dissemination barrier.
#pragma once
#include <string>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

// The algorithms that serve a collective, in teaching order.
const std::vector<std::string>& algorithms_for(Collective c);

// Build the schedule. Validates the spec first. Throws UsageError naming the
// algorithm and the collective when the algorithm does not exist for it, or
// when it refuses this spec.
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
// shape: "naive" (star, one child per step), "tree" (binary heap order,
// height ceil(log2(n+1))), "binomial".
Tree make_tree(const std::string& shape, int n);

}  // namespace microddp
