// Chunk provenance: which ranks' inputs each element of each buffer holds,
// after every step. Computed symbolically from the Schedule alone (no data
// moves), by the same execution rules the checker uses (core/schedule.h,
// core/checker.h) but on contributor BITMASKS instead of exact terms: enough
// to colour a chunk by whose contributions it carries.
//
// Limits: world size <= 64 (one bit per rank). Cost proportional to the
// number of ops and run boundaries, not to the element count.
#pragma once
#include <cstdint>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp::viz {

// A run of like elements: [begin, begin+len) in buffer coordinates
// (ELEMENTS), each holding the contributions of the ranks in `mask`
// (bit r = rank r). defined = false: never written.
struct Run {
  int64_t begin = 0, len = 0;
  uint64_t mask = 0;
  bool defined = false;
};

struct BufferState {
  Buf buf = Buf::input;
  int storage = -1;       // storage the name refers to (changes on swap)
  int64_t size = 0;       // elements
  std::vector<Run> runs;  // sorted, covering [0, size)
};

// One transfer (a send op) of a step, with the contributors of what it
// carried at the moment it was posted: `mask` in some element, `common` in
// every element (as RangeProvenance).
struct Transfer {
  int from = 0, to = 0;  // endpoints: ranks, or switches (>= world size)
  int op_index = 0;  // index of the send in Schedule::steps[step].ranks[from]
  int chunk = -1, segment = -1;
  int64_t len = 0;   // elements
  uint64_t mask = 0;
  int channel = -1;  // Op::channel
  uint64_t common = 0;
};

struct Provenance {
  int world_size = 0;
  // Ranks, then the schedule's switch endpoints (Schedule::num_endpoints):
  // the size of at[k], swapped[step], and the bound of Transfer::from / to.
  int endpoints = 0;
  // at[k][e] = every buffer of endpoint e (a rank, or a switch after the
  // ranks) with a non-zero size, after k steps (k = 0: before step 0;
  // k = num_steps: the end).
  std::vector<std::vector<std::vector<BufferState>>> at;
  // transfers[step] = the sends of that step, rank by rank in op order.
  std::vector<std::vector<Transfer>> transfers;
  // swapped[step][e] = endpoint e ran a swap in that step.
  std::vector<std::vector<bool>> swapped;

  // The state of `buf` on endpoint `rank` after k steps, or nullptr if it
  // has no such buffer (or is out of range).
  const BufferState* find(int k, int rank, Buf buf) const;
};

// Throws std::invalid_argument for a world size above 64. The schedule
// should have passed check_schedule; an unchecked one that would deadlock
// stops the pass at that step (later states repeat the last one).
Provenance compute_provenance(const Schedule& s);

// The contributors over [begin, begin+len) of a buffer state: `mask` their
// union (a rank whose data is in SOME element), `common` their intersection
// (ranks whose data is in EVERY element; 0 for an empty range), whether every
// element holds the same set (uniform: then mask == common) and was written.
// A range is fully reduced only when `common` is: half a chunk summed over
// all ranks and half over one node is not (lesson 09's hierarchical steps).
struct RangeProvenance {
  uint64_t mask = 0;
  uint64_t common = 0;
  bool uniform = true;
  bool defined = true;
};
RangeProvenance range_provenance(const BufferState& b, int64_t begin, int64_t len);

// Bitmask of all ranks of a world of size n.
inline uint64_t all_ranks(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

}  // namespace microddp::viz
