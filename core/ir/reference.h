// An independent reference for every collective: computed straight from
// the definition (the shape table in docs/design.md), in rank order, with the
// same numeric rules as the kernels, and no knowledge of any schedule.
// Used for `ok` in `microddp run --json`, and by the tests.
#pragma once
#include "core/ir/schedule.h"

namespace microddp {

// Outputs per rank (empty for ranks without output).
RankData reference_outputs(const CollectiveSpec& s, const RankData& inputs);

// Does `got` match `want`? Integer dtypes and data-movement collectives:
// bit for bit. Floating reductions: different algorithms add in different
// orders (and float16/bfloat16 round at every hop), so the match allows
// |got - want| <= n * 2^-p * sum|x| (p = the dtype's significand bits; for
// prod, relative to |want|); NaN must meet NaN and infinities must be equal.
// On a mismatch, *why names the first bad element.
bool outputs_match(const CollectiveSpec& s, const RankData& inputs, const RankData& got, const RankData& want,
                   std::string* why = nullptr);

}  // namespace microddp
