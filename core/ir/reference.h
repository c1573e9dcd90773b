// An independent reference for every collective, and the one verdict on a
// run's outputs.
//
// The reference is computed straight from the definition (the shape table in
// docs/design.md), in double precision, with no knowledge of any schedule and
// without the kernels' reduction loops: integers exactly (sum and prod wrap in
// the dtype, as the numeric rules say; avg divides the wrapped sum, truncating
// toward zero), floats by one rounding per documented step:
//   sum, prod, min, max: the exact (double) result, rounded once to the dtype;
//   avg: each contribution x/n rounded to the dtype (the premultiply step),
//        their sum rounded once.
// Used for `ok` in `microddp run`, bench's #wrong, doctor, and the tests.
#pragma once
#include <string>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

// Outputs per rank (empty for ranks without output).
RankData reference_outputs(const CollectiveSpec& s, const RankData& inputs);

// True for the collectives whose outputs are the same on every rank that has
// one, so every rank must hold the same bits whatever the algorithm:
// broadcast, all_reduce, all_gather (every rank gets the whole result).
// reduce / gather have one output; scatter, reduce_scatter, all_to_all give
// each rank a different block.
bool promises_identical_outputs(Collective c);

// The documented error bound for one reduced float element, against the
// reference above. u = 2^-p (p = the dtype's significand bits with the
// hidden one: float16 11, bfloat16 8, float32 24, float64 53); eta = half the
// dtype's smallest subnormal, the absolute error of a rounding that
// underflows; k = n roundings (n-1 hops, each rounding once in the dtype, and
// the reference's own), 2n for float64 (the reference's double arithmetic
// rounds as often again). (1+u)^k - 1 bounds k relative roundings
// (Higham, Accuracy and Stability of Numerical Algorithms, 2002, ch. 3-4):
//   sum:  ((1+u)^k − 1)·Σ|x| + n·eta
//   avg:  ((1+u)^(k+2) − 1)·Σ|x|/n + 2n·eta (the premultiply x·fl(1/n)
//         rounds twice more; each premultiplied term may underflow)
//   prod: ((1+u)^k − 1)·Π|x| + n·eta·Π max(1, |x|) (an underflowed partial
//         product's error is scaled by the later factors)
//   min, max, and every integer dtype: 0 (exact).
// `contributions` are the n input elements reduced into this output element,
// in rank order. NaN / infinity are not bounded: the verdict requires them to
// match exactly.
double error_bound(DType t, ReduceOp op, const std::vector<double>& contributions);

struct OutputVerdict {
  bool ok = false;              // within_bound && identical_ranks
  bool within_bound = false;    // every rank within error_bound of the reference
  bool identical_ranks = true;  // promises_identical_outputs: every rank has rank 0's bits (NaNs equal)
  std::vector<int> differing_ranks;  // ranks whose bits differ from rank 0's (sorted)
  // Elements outside the bound, plus (when every rank is within it) elements
  // of a differing rank that differ from rank 0's: nccl-tests' #wrong.
  int64_t wrong_elements = 0;
  std::string why;  // the first problem, for a person; empty when ok
  // The first element outside the bound (rank, output index); -1 when none.
  int first_rank = -1;
  int64_t first_index = -1;
};

// The one verdict on a run: `got` against `want` (= reference_outputs) within
// the bound above, element by element (NaN must meet NaN, infinities must be
// equal), and, where the collective promises it, every rank bit-identical.
OutputVerdict verify_outputs(const CollectiveSpec& s, const RankData& inputs, const RankData& got,
                             const RankData& want);

// verify_outputs(...).ok; on a mismatch *why names the first bad element or
// the ranks that differ.
bool outputs_match(const CollectiveSpec& s, const RankData& inputs, const RankData& got, const RankData& want,
                   std::string* why = nullptr);

}  // namespace microddp
