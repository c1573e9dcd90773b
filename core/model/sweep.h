// The sizes of a sweep over message sizes (-b, -e, -f): one parser for the
// step factor and one list of sizes, shared by `predict --table` and
// `bench`, so the two cannot accept or step differently.
//
// nccl-tests (src/common.cu: stepFactor = strtol(optarg)) steps `size *=
// stepFactor` with an integer factor; here the factor may be any number
// above 1, and every size is at least one element (per rank) above the one
// before, so no two rows price or time the same count. A sweep that would have more than `max_sizes`
// sizes (a factor near 1: 1.0000001 stepped one element at a time from 8 B
// to 1 GiB is 268 million rows) is refused, naming -f, with the smallest
// factor that fits.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/types.h"

namespace microddp {

// -f / --stepfactor as typed: a number above 1 (finite). Throws UsageError
// "-f TEXT must be a number above 1 ..." otherwise (1.01 is accepted here;
// sweep_sizes decides whether it makes a sweep).
double parse_step_factor(const std::string& text);

// The bytes one more element per rank adds to nccl-tests' size of
// collective c on n ranks: the element size times the ranks the size
// counts (n for all_gather, reduce_scatter, all_to_all, gather, scatter;
// 1 otherwise). At least 1.
int64_t size_unit_bytes(Collective c, DType d, int n);

struct SweepRange {
  int64_t min_bytes = 0, max_bytes = 0;  // -b, -e (bytes, 0 <= min <= max)
  double factor = 2;                     // parse_step_factor's value
  int64_t unit_bytes = 1;                // size_unit_bytes: the least step
  bool end_at_max = false;               // max_bytes is the last size even off the grid (bench)
  int max_sizes = 1000;                  // the most sizes accepted
  std::string why_cap;                   // "; ...": why this command caps there, in the refusal's parentheses
};

// min_bytes, then each size s followed by max(round(s · factor), s +
// unit_bytes) while it stays <= max_bytes (0 is followed by unit_bytes);
// with end_at_max, max_bytes closes the list when the grid misses it.
// Throws UsageError naming -f, -b and -e, the number of sizes and the
// smallest factor (3 significant digits, rounded up) that fits, when there
// would be more than max_sizes.
std::vector<int64_t> sweep_sizes(const SweepRange& r);

// A size as prose prints it (docs/design.md "One vocabulary for steps and
// sizes"): below 1 KiB "1000 B"; else in the largest binary unit it reaches
// (KiB, MiB, GiB, TiB; 4 significant digits when not a whole number) with
// the exact bytes beside: "512 KiB (524288 B)", "953.7 MiB (1000000000 B)";
// more digits where 4 would round to a whole number: "1023.996 KiB (1048572 B)".
// A negative size prints as bytes ("-1 B").
std::string size_text(int64_t bytes);

}  // namespace microddp
