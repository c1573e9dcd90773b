// Implementation of core/ir/order_verdict.h.
#include "core/ir/order_verdict.h"

#include <fmt/format.h>

#include "core/ir/order_arith.h"
#include "core/ir/order_reference.h"

namespace microddp {
namespace {

// The element at (rank, index) as a person reads it.
std::string element(DType t, const RankData& d, int r, int64_t i) {
  return order::format(t, order::load(t, d[r].data(), i));
}

// Why the order-exact result leaves the double reference at (r, i).
std::string explain(const Schedule& s, const RankData& in, const RankData& exact, const RankData& want, int r,
                    int64_t i, const OtherSchedules& others) {
  const auto& sp = s.spec;
  const DType t = sp.dtype;
  std::string why = fmt::format("rank {}, element {}: ", r, i);
  const OrderResult traced = evaluate_order(s, in, true);
  const int32_t ev = r < static_cast<int>(traced.first_event.size()) &&
                             i < static_cast<int64_t>(traced.first_event[r].size())
                         ? traced.first_event[r][i]
                         : -1;
  const std::string mine = element(t, exact, r, i), ref = element(t, want, r, i);
  if (ev >= 0) {
    const OrderEvent& e = traced.events[ev];
    why += fmt::format("{} at step {} on rank {} ({}'s order gives {}, the double-precision reference {})",
                       describe(e, t, sp.op), e.step, e.rank, sp.algorithm, mine, ref);
  } else {
    why += fmt::format("{}'s order gives {}, the double-precision reference {}", sp.algorithm, mine, ref);
  }
  if (!others) return why;
  for (const Schedule& o : others()) {
    if (o.spec.algorithm == sp.algorithm) continue;
    const RankData theirs = order_exact_outputs(o, in);
    if (!verify_outputs(o.spec, in, theirs, want).within_bound) continue;
    if (r >= static_cast<int>(theirs.size()) ||
        static_cast<int64_t>(theirs[r].size() / dtype_size(t)) <= i)
      continue;
    return why + fmt::format("; {}'s order gives {}", o.spec.algorithm, element(t, theirs, r, i));
  }
  return why + "; no other registered algorithm's order agrees with the double-precision reference";
}

}  // namespace

RunVerdict verify_run(const Schedule& s, const RankData& in, const RankData& got, const OtherSchedules& others) {
  const auto& sp = s.spec;
  const DType t = sp.dtype;
  const size_t es = dtype_size(t);
  const int n = s.world_size();
  RunVerdict v;
  const RankData want = reference_outputs(sp, in);
  const OutputVerdict second = verify_outputs(sp, in, got, want);
  v.within_bound = second.within_bound;
  v.identical_ranks = second.identical_ranks;
  v.differing_ranks = second.differing_ranks;

  const RankData exact = order_exact_outputs(s, in);
  v.matches_order = static_cast<int>(got.size()) == n;
  if (!v.matches_order) v.why = fmt::format("{} output rows for {} ranks", got.size(), n);
  for (int r = 0; r < n && static_cast<int>(got.size()) == n; ++r) {
    if (got[r].size() != exact[r].size()) {
      v.matches_order = false;
      v.wrong_elements += static_cast<int64_t>(exact[r].size() / es);
      if (v.why.empty())
        v.why = fmt::format("rank {} has {} output elements, expected {}", r, got[r].size() / es, exact[r].size() / es);
      continue;
    }
    const auto m = static_cast<int64_t>(got[r].size() / es);
    for (int64_t i = 0; i < m; ++i) {
      if (order::same(t, order::load(t, got[r].data(), i), order::load(t, exact[r].data(), i))) continue;
      v.matches_order = false;
      ++v.wrong_elements;
      if (v.why.empty())
        v.why = fmt::format("rank {} output[{}] = {} but {}'s order gives {} (the double-precision reference {})", r, i,
                            element(t, got, r, i), sp.algorithm, element(t, exact, r, i), element(t, want, r, i));
    }
  }
  if (v.matches_order && !v.identical_ranks) {
    // Counted as nccl-tests' #wrong: a differing rank's elements that differ.
    for (int r : v.differing_ranks) {
      if (got[r].size() != got[0].size()) {
        v.wrong_elements += static_cast<int64_t>(got[r].size() / es);
        continue;
      }
      for (int64_t i = 0; i < static_cast<int64_t>(got[r].size() / es); ++i)
        v.wrong_elements +=
            !order::same(t, order::load(t, got[r].data(), i), order::load(t, got[0].data(), i));
    }
    std::string list;
    for (int r : v.differing_ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    v.why = fmt::format("{} {} {} different bits from rank 0 ({} promises every rank the same result; {} adds in a "
                        "different order on each rank)",
                        v.differing_ranks.size() == 1 ? "rank" : "ranks", list,
                        v.differing_ranks.size() == 1 ? "holds" : "hold", name(sp.collective), sp.algorithm);
  }
  v.ok = v.matches_order && v.identical_ranks;

  const OutputVerdict own = verify_outputs(sp, in, exact, want);
  if (!own.within_bound && own.first_rank >= 0) {
    v.order_dependent = true;
    v.note.rank = own.first_rank;
    v.note.index = own.first_index;
    v.note.why = explain(s, in, exact, want, own.first_rank, own.first_index, others);
  }
  return v;
}

}  // namespace microddp
