// CollectiveSpec: WHAT to run (the collective, its sizes, dtype, op, root),
// plus the name of the algorithm that decides HOW. Buffer shapes follow MPI's
// conventions (docs/design.md, "Buffer shapes"); every size is in ELEMENTS.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/types.h"

namespace microddp {

struct CollectiveSpec {
  Collective collective = Collective::all_reduce;
  std::string algorithm = "ring";
  int world_size = 1;
  // Elements per rank (see the shape table). Ignored when `counts` is set.
  int64_t count = 0;
  // Per-rank block sizes for the MPI "v" variants (gather, scatter,
  // all_gather, reduce_scatter): counts[r] is rank r's block. Empty = every
  // block is `count`.
  std::vector<int64_t> counts;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  bool in_place = false;
  // Ring algorithms pipeline each chunk in this many segments (>= 1).
  int segments = 1;
  // Channels (NCCL's word): the vector is cut into this many contiguous
  // slices (even_chunks; for the blocked collectives each rank's block is
  // cut so) and one copy of the algorithm runs on each slice, all of them in
  // the same steps as separate messages (core/algorithms/channels.cpp).
  // 1..64; only algorithms whose record says `channels` accept more than 1.
  int channels = 1;
  // Nodes the ranks are placed on, contiguously (core/ir/topology.h): node k
  // holds ranks k·g .. k·g + g − 1, g = world_size / nodes. Only
  // topology-aware algorithms ("hierarchical") read it; 1 = one node.
  int nodes = 1;

  // Block size of rank r: counts[r] if counts is set, else count.
  int64_t block(int r) const;
  // Offset of rank r's block in a concatenated (rank-ordered) buffer.
  int64_t displ(int r) const;
  // Sum of all blocks.
  int64_t total() const;
  // The size as a header line says it: "count 8", or "counts 1, 2, 3" where
  // per-rank blocks are set (count is then not used; printing it said
  // "count 8" for `run --counts 1,2,3`, hostile review 9).
  std::string count_text() const;
  // Elements of rank r's input / output buffer (0 = the rank has none).
  int64_t input_count(int r) const;
  int64_t output_count(int r) const;
  // Throws UsageError naming the bad value: world_size < 1, root out of
  // range, negative count, counts given for a collective without "v"
  // variant, counts.size() != world_size, negative block, segments outside 1..4096,
  // channels outside 1..64,
  // nodes < 1 or not dividing world_size (names both), a schedule larger
  // than the memory budget (schedule_bytes, core/ir/limits.h).
  void validate() const;

  bool operator==(const CollectiveSpec&) const = default;
};

// In-place aliasing (NCCL's convention, also MPI_IN_PLACE's for the
// collectives that have it): input and output are one storage, and
// input starts at this element offset into the output (all_gather: displ(r);
// gather at the root: displ(root)) or output starts at this offset into the
// input (reduce_scatter: displ(r); scatter at the root: displ(root)).
// Returned as {storage holder, offset of the other buffer}: holder is
// "output" when the input is a slice of the output, "input" otherwise.
struct InPlaceLayout {
  bool input_inside_output;  // true: input = output + offset
  int64_t offset;
};
InPlaceLayout in_place_layout(const CollectiveSpec& s, int rank);

}  // namespace microddp
