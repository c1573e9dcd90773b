// The decision rules of measured timing claims (checks_ddp.cpp): one that
// compares two runs (`comm_ms less_than: {run: NAME}` and the like) and one
// that compares runs with a fixed number (`overlap_fraction less_than:
// 0.3`). Pure functions on samples, so a test can feed them fixed figures.
//
// A claim "A < B" (A: this beat's per-run medians, B: the other run's,
// already multiplied by `times`; any unit, the same for both) holds when
//   1. median(A) × kTimingMargin < median(B): the difference is large,
//      not a few per cent that one busy moment can make; and
//   2. a one-sided Mann-Whitney rank test rejects "A and B are the same
//      distribution" at p <= kTimingP. Pairs that tie count against the
//      claim, so samples all of one value give p = 1.
// The claim fails when the opposite ("A > B") passes the same two tests,
// and is "not shown" when neither does. The checks look twice (5 runs a
// side, then 10), so each look tests at kTimingP = 0.005 and a false claim
// (X < X, both sides from one distribution) passes with probability at
// most 0.01 over both (Bonferroni), less with the margin: of the 252 splits
// of 10 values into 5 + 5 only the one fully apart passes. Rare, not
// never. Any NaN sample fails the claim.
//
// A claim against a fixed number, "x < T" (x: one run's figure, e.g. its
// median overlap fraction over iterations; T > 0, the same unit), holds on
// n runs when
//   1. a one-sided sign test rejects "each run is as likely above T as
//      below": k runs strictly below T, P(Binomial(n, 1/2) >= k) <=
//      kTimingP (8 of 8, 14 of 16; a run equal to T counts against the
//      claim); and
//   2. the runs' median is past T by the factor kFixedMargin: median ×
//      kFixedMargin < T ("x > T": median > T × kFixedMargin).
// It fails when the opposite claim passes the same two tests, and is "not
// shown" otherwise: runs straddling T never decide. No fewer than 8 runs
// can reach p <= 0.005 (7 of 7 is p = 1/128), so the rounds are 8 and 16.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/model/stats.h"

namespace microddp::lesson::timing {

inline constexpr double kTimingMargin = 1.5;  // medians must differ by this factor
inline constexpr double kTimingP = 0.005;     // and each look's one-sided p at most this (0.01 over two looks)

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

inline constexpr double kFixedMargin = 1.1;  // median past the number by 10%
inline constexpr size_t kFixedRound = 8;      // runs per round of a claim against a number
inline constexpr size_t kFixedRounds = 2;     // rounds at most (8, then 16 runs)

// One-sided sign test: P(Binomial(n, 1/2) >= k), exact. 1 when k == 0.
inline double sign_p(size_t k, size_t n) {
  if (k == 0) return 1;
  if (k > n) return 0;
  double c = 1, sum = 0;  // c = C(n, i), from i = 0
  for (size_t i = 0; i <= n; ++i) {
    if (i >= k) sum += c;
    c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return sum / std::ldexp(1.0, static_cast<int>(n));
}

struct FixedDecision {
  Verdict verdict = Verdict::not_shown;
  size_t held = 0;      // runs on the claimed side of the number (strictly)
  size_t opposed = 0;   // runs strictly on the other side
  double p = 1;         // sign_p(held, n)
  double median = 0;    // the runs' median
};

// The claim "each run's figure < number" (less) or "> number" (!less), by
// the rule above. Any NaN run fails the claim; no runs: not shown.
inline FixedDecision decide_fixed(const std::vector<double>& runs, double number, bool less) {
  FixedDecision d;
  for (double x : runs)
    if (std::isnan(x)) {
      d.verdict = Verdict::fail;
      return d;
    }
  if (runs.empty()) return d;
  for (double x : runs) {
    d.held += less ? x < number : x > number;
    d.opposed += less ? x > number : x < number;
  }
  const size_t n = runs.size();
  d.p = sign_p(d.held, n);
  d.median = median(runs);
  const bool below = d.median * kFixedMargin < number, above = d.median > number * kFixedMargin;
  if ((less ? below : above) && d.p <= kTimingP) d.verdict = Verdict::pass;
  else if ((less ? above : below) && sign_p(d.opposed, n) <= kTimingP) d.verdict = Verdict::fail;
  return d;
}

// The run a picture shows out of repeated runs: the index (into `figures`,
// one figure per run, in run order) of the median run. With an even count
// the lower of the two middle runs (the median itself falls between them,
// equally near both). Runs with equal figures keep their run order (a
// stable sort), NaN figures sort last. 0 when `figures` is empty.
// E.g. {5, 1, 9, 3} -> 3 (sorted 1, 3, 5, 9: the lower middle is 3, run 3).
inline size_t median_run(const std::vector<double>& figures) {
  if (figures.empty()) return 0;
  std::vector<size_t> order(figures.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double x = figures[a], y = figures[b];
    return !std::isnan(x) && (std::isnan(y) || x < y);
  });
  return order[(figures.size() - 1) / 2];
}

// Why a claim against a number was decided as it was, for a "not shown"
// line: "after 16 runs 9 of 16 < 0.3 (sign test p = 0.402, needs <= 0.005);
// the median 0.28 is not < 0.273 (0.3 / 1.1)".
inline std::string fixed_reason(const FixedDecision& d, size_t n, double number, bool less) {
  const char* op = less ? "<" : ">";
  const double bar = less ? number / kFixedMargin : number * kFixedMargin;
  const bool past = less ? d.median < bar : d.median > bar;
  return fmt::format("after {} runs {} of {} {} {:g} (sign test p = {:.3g}, needs <= {:g}); the median {:.3g} is {}{} {:.3g} "
                     "({:g} {} {:g})",
                     n, d.held, n, op, number, d.p, kTimingP, d.median, past ? "" : "not ", op, bar, number,
                     less ? "/" : "×", kFixedMargin);
}

}  // namespace microddp::lesson::timing
