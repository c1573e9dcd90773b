// The decision rule of a measured timing claim that compares two runs
// (checks_ddp.cpp: `comm_ms less_than: {run: NAME}` and the like). Pure
// functions on samples, so a test can feed them fixed figures.
//
// A claim "A < B" (A: this beat's per-run medians, B: the other run's,
// already multiplied by `times`; any unit, the same for both) holds when
//   1. median(A) × kTimingMargin < median(B): the difference is large,
//      not a few per cent that one busy moment can make; and
//   2. a one-sided Mann-Whitney rank test rejects "A and B are the same
//      distribution" at p <= kTimingP. Pairs that tie count against the
//      claim, so samples all of one value give p = 1.
// The claim fails when the opposite ("A > B") passes the same two tests,
// and is "not shown" when neither does. Two sets drawn from the same values
// (X < X) therefore never pass and never fail on the margin alone, and on
// samples from one distribution the rank test passes with probability
// <= kTimingP. Any NaN sample fails the claim.
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/model/stats.h"

namespace microddp::lesson::timing {

inline constexpr double kTimingMargin = 1.5;  // medians must differ by this factor
inline constexpr double kTimingP = 0.01;      // and the rank test's one-sided p at most this

// One-sided exact Mann-Whitney p-value that `a` tends to be smaller than
// `b`: the probability, when all orderings of the a.size() + b.size()
// samples are equally likely, of at most U pairs (a_i, b_j) with
// a_i >= b_j, where U is the count observed. 1 when either side is empty.
inline double rank_p_less(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return 1;
  size_t u = 0;
  for (double x : a)
    for (double y : b) u += x >= y ? 1 : 0;  // ties count against the claim
  // ways[i][j][k]: orderings of i a's and j b's with k pairs a >= b.
  // Rolled over i: count[j][k].
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(n * m + 1, 0)), cur = prev;
  for (size_t j = 0; j <= m; ++j) prev[j][0] = 1;  // i = 0
  for (size_t i = 1; i <= n; ++i) {
    for (auto& row : cur) std::fill(row.begin(), row.end(), 0);
    cur[0][0] = 1;
    for (size_t j = 1; j <= m; ++j)
      for (size_t k = 0; k <= i * j; ++k) {
        // largest sample is an a (above all j b's: j pairs) or a b.
        double w = cur[j - 1][k];
        if (k >= j) w += prev[j][k - j];
        cur[j][k] = w;
      }
    std::swap(prev, cur);
  }
  double total = 0, below = 0;
  for (size_t k = 0; k <= n * m; ++k) {
    total += prev[m][k];
    if (k <= u) below += prev[m][k];
  }
  return below / total;
}

enum class Verdict { pass, fail, not_shown };

struct Decision {
  Verdict verdict = Verdict::not_shown;
  double p = 1;  // the rank test's p for the claim
};

// The claim "mine < theirs" (less) or "mine > theirs" (!less), by the rule above.
inline Decision decide(const std::vector<double>& mine, const std::vector<double>& theirs, bool less) {
  Decision d;
  for (const auto* v : {&mine, &theirs})
    for (double x : *v)
      if (std::isnan(x)) {
        d.verdict = Verdict::fail;
        return d;
      }
  const std::vector<double>& lo = less ? mine : theirs;  // the side claimed smaller
  const std::vector<double>& hi = less ? theirs : mine;
  const double mlo = median(lo), mhi = median(hi);
  d.p = rank_p_less(lo, hi);
  if (mlo * kTimingMargin < mhi && d.p <= kTimingP) {
    d.verdict = Verdict::pass;
  } else if (mhi * kTimingMargin < mlo && rank_p_less(hi, lo) <= kTimingP) {
    d.verdict = Verdict::fail;
  }
  return d;
}

}  // namespace microddp::lesson::timing
