// Implementation of core/ir/order_verdict.h.
#include "core/ir/order_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

// Element i of rank r's exact result against the double reference: NaN must
// meet NaN, infinities must be equal, finite values within error_bound.
bool outside_bound(const CollectiveSpec& sp, const RankData& in, const RankData& exact, const RankData& want, int r,
                   int64_t i, std::vector<double>& contrib) {
  const DType t = sp.dtype;
  const double e = order::value(t, order::load(t, exact[r].data(), i));
  const double w = order::value(t, order::load(t, want[r].data(), i));
  if (std::isnan(e) || std::isnan(w)) return std::isnan(e) != std::isnan(w);
  if (std::isinf(e) || std::isinf(w)) return e != w;
  const int64_t base = sp.collective == Collective::reduce_scatter ? sp.displ(r) : 0;
  contrib.assign(static_cast<size_t>(sp.world_size), 0);
  for (int q = 0; q < sp.world_size; ++q)
    contrib[static_cast<size_t>(q)] = order::value(t, order::load(t, in[q].data(), base + i));
  return !(std::fabs(e - w) <= error_bound(t, sp.op, contrib));
}

}  // namespace

OrderDependence order_dependence(const Schedule& s, const RankData& in, const OtherSchedules& others) {
  const auto& sp = s.spec;
  OrderDependence d;
  d.marked.resize(static_cast<size_t>(s.world_size()));
  const size_t es = dtype_size(sp.dtype);
  for (int r = 0; r < s.world_size(); ++r) d.marked[r].assign(static_cast<size_t>(sp.output_count(r)), 0);
  if (!is_floating(sp.dtype) || !is_reducing(sp.collective)) return d;
  const RankData exact = order_exact_outputs(s, in);
  const RankData want = reference_outputs(sp, in);
  std::vector<double> contrib;
  for (int r = 0; r < s.world_size(); ++r) {
    const auto m = static_cast<int64_t>(std::min(exact[r].size(), want[r].size()) / es);
    d.marked[r].resize(static_cast<size_t>(m), 0);
    for (int64_t i = 0; i < m; ++i) {
      if (!outside_bound(sp, in, exact, want, r, i, contrib)) continue;
      d.marked[r][static_cast<size_t>(i)] = 1;
      if (d.count++ == 0) {
        d.first.rank = r;
        d.first.index = i;
      }
    }
  }
  if (d.count > 0) d.first.why = explain(s, in, exact, want, d.first.rank, d.first.index, others);
  return d;
}

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
