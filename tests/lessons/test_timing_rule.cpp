// The decision rule of measured run-vs-run timing claims (timing_rule.h),
// fed fixed samples: a false claim X < X never passes nor fails, whatever
// the samples; lesson 07 beat 3's real claim (per-tensor comm_ms against one
// bucket, figures measured on the 2-vCPU AMD EPYC VM) passes.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/labs/lesson/timing_rule.h"

using namespace microddp::lesson::timing;

TEST_SUITE("lesson_timing") {
  TEST_CASE("rank test: exact one-sided p of Mann-Whitney") {
    // 5 vs 5, fully apart: 1 ordering of C(10,5) = 252.
    CHECK(rank_p_less({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}) == doctest::Approx(1.0 / 252));
    // One pair out of order: 2 of 252.
    CHECK(rank_p_less({1, 2, 3, 4, 6.5}, {6, 7, 8, 9, 10}) == doctest::Approx(2.0 / 252));
    // Ties count against the claim: identical samples give p = 1.
    CHECK(rank_p_less({3, 3, 3}, {3, 3, 3}) == 1);
    CHECK(rank_p_less({}, {1}) == 1);
    // 1 vs 2 apart: 1 of 3.
    CHECK(rank_p_less({1}, {2, 3}) == doctest::Approx(1.0 / 3));
  }

  TEST_CASE("X < X never passes and never fails") {
    // Two sets drawn from the same values (the hostile notshown.yaml: one
    // run against itself), in every split of 10 noisy samples into 5 + 5.
    const std::vector<double> v{0.14, 0.15, 0.16, 0.17, 0.18, 0.22, 0.31, 0.9, 1.4, 2.5};
    const Decision same = decide(v, v, true);
    CHECK(same.verdict == Verdict::not_shown);
    CHECK(same.p > 0.5);  // 55 of the 100 pairs are a >= b (10 ties)
    CHECK(decide(v, v, false).verdict == Verdict::not_shown);
    // Every split of the 10 samples into 5 + 5: a split can look apart, but
    // a verdict needs the ranks nearly apart (p <= 0.01: 2 orderings of 252
    // per side) AND the medians 1.5 times apart.
    int splits = 0, passed = 0, failed = 0;
    for (unsigned mask = 0; mask < 1024; ++mask) {
      if (__builtin_popcount(mask) != 5) continue;
      std::vector<double> a, b;
      for (unsigned i = 0; i < 10; ++i) (mask >> i & 1 ? a : b).push_back(v[i]);
      ++splits;
      const Verdict d = decide(a, b, true).verdict;
      passed += d == Verdict::pass;
      failed += d == Verdict::fail;
    }
    CHECK(splits == 252);
    CHECK(passed == 2);  // the two orderings of p <= 0.01 of 252, each 1/126 of the splits
    CHECK(failed == 2);
    // Three runs each, as the old rule decided on: never enough for p <= 0.01
    // (1 of 20 orderings at best), so a 3-sample fluke is not shown.
    const Decision three = decide({0.14, 0.15, 0.16}, {0.9, 1.4, 2.5}, true);
    CHECK(three.verdict == Verdict::not_shown);
    CHECK(three.p == doctest::Approx(0.05));
    // Medians 1.2x apart, ranks fully apart: not shown (the margin).
    CHECK(decide({1.0, 1.01, 1.02, 1.03, 1.04}, {1.2, 1.21, 1.22, 1.23, 1.24}, true).verdict == Verdict::not_shown);
  }

  TEST_CASE("lesson 07 beat 3's real claim passes; its opposite fails") {
    // comm_ms per tensor and in one bucket, 5 runs each (microddp lesson
    // /tmp l07.yaml on the 2-vCPU AMD EPYC VM, load average 4).
    const std::vector<double> per_tensor{2.34931, 2.33288, 4.17106, 2.0596, 4.13821};
    const std::vector<double> one_bucket{0.500793, 0.561831, 0.518119, 0.524474, 0.553272};
    const Decision d = decide(per_tensor, one_bucket, false);  // per tensor > one bucket
    CHECK(d.verdict == Verdict::pass);
    CHECK(d.p == doctest::Approx(1.0 / 252));
    CHECK(decide(per_tensor, one_bucket, true).verdict == Verdict::fail);  // per tensor < one bucket
    // The widest figures seen: per tensor 1.35-9 ms, one bucket 0.33-0.6 ms.
    CHECK(decide({1.35, 9, 2.1, 1.6, 3.3}, {0.33, 0.6, 0.41, 0.5, 0.45}, false).verdict == Verdict::pass);
  }

  TEST_CASE("a NaN sample fails the claim") {
    const double nan = std::nan("");
    CHECK(decide({1, 2, nan}, {5, 6, 7}, true).verdict == Verdict::fail);
    CHECK(decide({1, 2, 3}, {5, nan, 7}, true).verdict == Verdict::fail);
  }
}
