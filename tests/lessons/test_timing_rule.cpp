// The decision rule of measured run-vs-run timing claims (timing_rule.h),
// fed fixed samples: a false claim X < X passes or fails in only the one
// split of 252 whose sides are fully apart; lesson 07 beat 3's real claim (per-tensor comm_ms against one
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

  TEST_CASE("X < X: of the 252 splits of 10 values into 5 + 5, one passes and one fails") {
    // Two sets drawn from the same values (the hostile notshown.yaml: one
    // run against itself), in every split of 10 noisy samples into 5 + 5.
    const std::vector<double> v{0.14, 0.15, 0.16, 0.17, 0.18, 0.22, 0.31, 0.9, 1.4, 2.5};
    const Decision same = decide(v, v, true);
    CHECK(same.verdict == Verdict::not_shown);
    CHECK(same.p > 0.5);  // 55 of the 100 pairs are a >= b (10 ties)
    CHECK(decide(v, v, false).verdict == Verdict::not_shown);
    // Every split of the 10 samples into 5 + 5: a split can look apart, but
    // a verdict needs the ranks fully apart (p <= 0.005 a look: only the
    // ordering with p = 1/252) AND the medians 1.5 times apart.
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
    CHECK(passed == 1);  // the 5 smallest against the 5 largest (p = 1/252 = 0.00397)
    CHECK(failed == 1);
    // One pair out of order (p = 2/252 = 0.0079) no longer passes.
    CHECK(decide({0.14, 0.15, 0.16, 0.17, 0.22}, {0.18, 0.31, 0.9, 1.4, 2.5}, true).verdict == Verdict::not_shown);
    // Three runs each, as the old rule decided on: never enough for p <= 0.005
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

// The rule of timing claims against a fixed number (`overlap_fraction
// less_than: 0.3`): a sign test on 8, then 16, runs and the median past the
// number by 10%. Fixed samples, no clock.
TEST_SUITE("lesson_timing") {
  TEST_CASE("sign test: exact one-sided p") {
    CHECK(sign_p(8, 8) == doctest::Approx(1.0 / 256));       // 0.0039: 8 runs can reach 0.005
    CHECK(sign_p(7, 7) == doctest::Approx(1.0 / 128));       // 0.0078: 7 runs cannot
    CHECK(sign_p(14, 16) == doctest::Approx(137.0 / 65536));  // 0.0021
    CHECK(sign_p(13, 16) == doctest::Approx(697.0 / 65536));  // 0.0106: 13 of 16 is not enough
    CHECK(sign_p(6, 6) == doctest::Approx(1.0 / 64));      // 6 runs can never reach 0.01
    CHECK(sign_p(9, 10) == doctest::Approx(11.0 / 1024));  // 0.0107: 9 of 10 is not enough
    CHECK(sign_p(12, 14) == doctest::Approx(106.0 / 16384));
    CHECK(sign_p(11, 14) == doctest::Approx(470.0 / 16384));
    CHECK(sign_p(0, 7) == 1);
    CHECK(sign_p(8, 7) == 0);
  }

  TEST_CASE("a clear claim against a number passes, its opposite fails") {
    // Lesson 07's run 'none' (overlap none): overlap about 0 on every run.
    const std::vector<double> none{0.0, 0.012, 0.004, 0.0, 0.021, 0.008, 0.003, 0.006};
    FixedDecision d = decide_fixed(none, 0.3, true);
    CHECK(d.verdict == Verdict::pass);
    CHECK(d.held == 8);
    CHECK(d.p == doctest::Approx(1.0 / 256));
    CHECK(d.median == doctest::Approx(0.005));
    // The first seven alone: 7 of 7 is p = 1/128, above 0.005: not shown.
    CHECK(decide_fixed({0.0, 0.012, 0.004, 0.0, 0.021, 0.008, 0.003}, 0.3, true).verdict == Verdict::not_shown);
    CHECK(decide_fixed(none, 0.3, false).verdict == Verdict::fail);
    // Clearly above: "< 0.3" fails, "> 0.3" passes.
    const std::vector<double> high{0.61, 0.72, 0.55, 0.68, 0.7, 0.64, 0.59, 0.66};
    CHECK(decide_fixed(high, 0.3, true).verdict == Verdict::fail);
    CHECK(decide_fixed(high, 0.3, false).verdict == Verdict::pass);
  }

  TEST_CASE("runs straddling the number are not shown") {
    const std::vector<double> straddle{0.25, 0.28, 0.29, 0.31, 0.33, 0.27, 0.32};
    const FixedDecision d = decide_fixed(straddle, 0.3, true);
    CHECK(d.verdict == Verdict::not_shown);
    CHECK(d.held == 4);
    CHECK(d.opposed == 3);
    CHECK(decide_fixed(straddle, 0.3, false).verdict == Verdict::not_shown);
    CHECK(fixed_reason(d, 7, 0.3, true) ==
          "after 7 runs 4 of 7 < 0.3 (sign test p = 0.5, needs <= 0.005); the median 0.29 is not < 0.273 (0.3 / 1.1)");
    // 14 runs, 9 below: p = 0.212, not shown either way.
    std::vector<double> fourteen = straddle;
    for (double x : {0.2, 0.22, 0.24, 0.26, 0.26, 0.35, 0.4}) fourteen.push_back(x);
    CHECK(decide_fixed(fourteen, 0.3, true).verdict == Verdict::not_shown);
    CHECK(decide_fixed(fourteen, 0.3, true).p == doctest::Approx(0.2120).epsilon(0.001));
    // A run equal to the number counts for neither side.
    const FixedDecision at = decide_fixed({0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, 0.3, true);
    CHECK(at.verdict == Verdict::not_shown);
    CHECK(at.held == 0);
    CHECK(at.opposed == 0);
  }

  TEST_CASE("every run below but the median within 10% of the number: not shown") {
    const std::vector<double> close{0.28, 0.285, 0.29, 0.29, 0.29, 0.295, 0.28, 0.29};
    const FixedDecision d = decide_fixed(close, 0.3, true);
    CHECK(d.held == 8);
    CHECK(d.p == doctest::Approx(1.0 / 256));
    CHECK(d.verdict == Verdict::not_shown);
    CHECK(fixed_reason(d, 8, 0.3, true) ==
          "after 8 runs 8 of 8 < 0.3 (sign test p = 0.00391, needs <= 0.005); the median 0.29 is not < 0.273 (0.3 / 1.1)");
    // "> 10": 8 of 8 above, median 10.5 within 10%: not shown.
    CHECK(decide_fixed({10.5, 10.4, 10.6, 10.5, 10.2, 10.9, 10.5, 10.3}, 10, false).verdict == Verdict::not_shown);
  }

  TEST_CASE("one run of 8 on the wrong side: not shown after 8, shown after 16") {
    std::vector<double> v{0.01, 0.02, 0.02, 0.03, 0.03, 0.04, 0.9, 0.02};
    const FixedDecision eight = decide_fixed(v, 0.3, true);
    CHECK(eight.held == 7);
    CHECK(eight.p == doctest::Approx(9.0 / 256));
    CHECK(eight.verdict == Verdict::not_shown);
    for (double x : {0.01, 0.02, 0.5, 0.03, 0.02, 0.01, 0.04, 0.03}) v.push_back(x);
    const FixedDecision sixteen = decide_fixed(v, 0.3, true);
    CHECK(sixteen.held == 14);
    CHECK(sixteen.p == doctest::Approx(137.0 / 65536));
    CHECK(sixteen.verdict == Verdict::pass);
  }

  TEST_CASE("a NaN run fails a claim against a number; no runs is not shown") {
    CHECK(decide_fixed({0.1, std::nan(""), 0.1, 0.1, 0.1, 0.1, 0.1}, 0.3, true).verdict == Verdict::fail);
    CHECK(decide_fixed({}, 0.3, true).verdict == Verdict::not_shown);
  }
}
