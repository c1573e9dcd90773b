// The verdict on a run that has a schedule: its bits against its own
// order's exact result (core/ir/order_reference.h), with the independent
// double-precision reference and its documented bound (core/ir/reference.h)
// kept as the second check.
//
//  - ok: every rank's output equals, bit for bit, the order-exact evaluation
//    of the schedule (any NaN meets any NaN: payloads are hardware's), and,
//    where the collective promises it, every rank holds rank 0's bits (the
//    seed's ring_unchunked adds in a different order on each rank: its runs
//    equal their order and are still not ok, and the verdict says why).
//  - order_dependent: the order-exact result itself lies outside the double
//    reference's bound somewhere (an intermediate overflowed, became NaN, or
//    a product underflowed, which no rounding bound covers). ok is unchanged
//    by it; `note` names the first such element (rank, output index) and
//    explains it: "rank 0, element 0: 300 × 300 = 90000 overflows float16 at
//    step 0 on rank 0 (naive's order gives nan, the double-precision
//    reference 0); ring's order gives 0", naming the first of `others` (the
//    other registered algorithms for the same spec) whose order agrees with
//    the double reference everywhere.
// Errors: those of evaluate_order and reference_outputs.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/ir/reference.h"

namespace microddp {

struct OrderNote {
  int rank = -1;
  int64_t index = -1;  // output element
  std::string why;
};

struct RunVerdict {
  bool ok = false;              // matches_order && identical_ranks
  bool matches_order = false;   // every rank's bits equal its order's result
  bool identical_ranks = true;  // promises_identical_outputs: every rank has rank 0's bits
  std::vector<int> differing_ranks;
  int64_t wrong_elements = 0;   // elements differing from the order-exact result (+ differing ranks')
  bool within_bound = false;    // the run within the double reference's bound (the second check)
  bool order_dependent = false;
  OrderNote note;               // the first order-dependent element, when order_dependent
  std::string why;              // the first problem when !ok, for a person
};

// Other algorithms' schedules for the same spec, asked for only when the
// run is order-dependent (the caller knows the registry; core/ir does not).
using OtherSchedules = std::function<std::vector<Schedule>()>;

RunVerdict verify_run(const Schedule& s, const RankData& inputs, const RankData& got, const OtherSchedules& others = {});

// Which output elements of the order-exact result lie outside the double
// reference's bound (marked[r][i], one per output element of rank r; all
// false for data movement and integers), and the first one explained as
// verify_run's note. Needs no run: a property of the schedule and inputs.
// The window marks these cells (app/viz scene_buffers).
struct OrderDependence {
  std::vector<std::vector<uint8_t>> marked;
  int64_t count = 0;  // marked elements
  OrderNote first;    // rank -1 when none
};
OrderDependence order_dependence(const Schedule& s, const RankData& inputs, const OtherSchedules& others = {});

}  // namespace microddp
