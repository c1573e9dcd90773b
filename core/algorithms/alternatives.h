// The other registered algorithms' schedules for one spec, in teaching order
// (algorithms_for): what the order-exact verdict (core/ir/order_verdict.h)
// compares an order-dependent result with. An algorithm that refuses the
// spec (UsageError: segments it does not pipeline, nodes it does not read,
// its own refuse()) is tried once more with segments = 1 and nodes = 1, and
// left out if it refuses again. Never throws UsageError.
#pragma once
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

std::vector<Schedule> other_algorithm_schedules(const CollectiveSpec& spec);

}  // namespace microddp
