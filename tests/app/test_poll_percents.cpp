// The class poll's percentages (present.h poll_percents): whole percent by
// largest remainder, so the shown shares always sum to 100 when anyone voted.
#include <doctest/doctest.h>

#include <numeric>
#include <vector>

#include "app/viz/present.h"

using microddp::viz::poll_percents;

namespace {
int sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }
}  // namespace

TEST_SUITE("poll_percents") {
  TEST_CASE("shares sum to 100: cases where rounding each share gives 99 or 101") {
    // Rounded one by one: 17 + 17 + 67 = 101. Floors 16, 16, 66; the three
    // remainders tie: the 4 votes first, then the earlier 1.
    CHECK(poll_percents({1, 1, 4}) == std::vector<int>{17, 16, 67});
    // 33 + 33 + 33 = 99; ties in votes: the earlier choice gets the point.
    CHECK(poll_percents({1, 1, 1}) == std::vector<int>{34, 33, 33});
    CHECK(poll_percents({2, 2, 2}) == std::vector<int>{34, 33, 33});
    // 25 + 62 (62.5 rounds to even) + 10 + 2 = 99: 62.5 has the largest remainder.
    CHECK(poll_percents({12, 30, 5, 1}) == std::vector<int>{25, 63, 10, 2});
    // 6 choices of 1: 16.67 each rounds to 17, 102 in all; 4 of them get the extra point.
    CHECK(poll_percents({1, 1, 1, 1, 1, 1}) == std::vector<int>{17, 17, 17, 17, 16, 16});
    // 7 choices: 14.29 each, 98 rounded; the first two get 15.
    CHECK(poll_percents({3, 3, 3, 3, 3, 3, 3}) == std::vector<int>{15, 15, 14, 14, 14, 14, 14});
  }
  TEST_CASE("ties in remainder go to the choice with more votes, then the earlier one") {
    // 1/3 and 2/3 of a point: 2 of 3 votes remainder 66.67 > 33.33.
    CHECK(poll_percents({1, 2}) == std::vector<int>{33, 67});
    // 5, 5, 5: 33.33 each, all tie: the first gets the missing point.
    CHECK(poll_percents({5, 5, 5}) == std::vector<int>{34, 33, 33});
    // 1, 2, 4 of 7: 14.29 (r 2), 28.57 (r 4), 57.14 (r 1) = 99: the 28.57 gets it.
    CHECK(poll_percents({1, 2, 4}) == std::vector<int>{14, 29, 57});
    // 1, 1, 6 of 8: 12.5, 12.5, 75 -> 99; the two halves tie in remainder and votes: the first gets 13.
    CHECK(poll_percents({1, 1, 6}) == std::vector<int>{13, 12, 75});
  }
  TEST_CASE("exact shares stay; no votes: all 0; zero-vote choices get 0 unless a point is due") {
    CHECK(poll_percents({1, 1, 2}) == std::vector<int>{25, 25, 50});
    CHECK(poll_percents({0, 10}) == std::vector<int>{0, 100});
    CHECK(poll_percents({0, 0, 0}) == std::vector<int>{0, 0, 0});
    CHECK(poll_percents({}).empty());
    CHECK(poll_percents({0, 1, 1, 1}) == std::vector<int>{0, 34, 33, 33});
    CHECK(poll_percents({100000, 1}) == std::vector<int>{100, 0});
  }
  TEST_CASE("every vector of up to 4 choices of 0..12 votes sums to 100 and stays within 1 of the exact share") {
    int cases = 0;
    for (int a = 0; a <= 12; ++a)
      for (int b = 0; b <= 12; ++b)
        for (int c = 0; c <= 12; ++c)
          for (int d = 0; d <= 12; ++d) {
            const std::vector<int> v{a, b, c, d};
            const int total = a + b + c + d;
            const std::vector<int> p = poll_percents(v);
            if (total == 0) continue;
            ++cases;
            REQUIRE(sum(p) == 100);
            for (size_t i = 0; i < v.size(); ++i) {
              const double exact = 100.0 * v[i] / total;
              REQUIRE(p[i] >= exact - 1);
              REQUIRE(p[i] <= exact + 1);
            }
          }
    CHECK(cases == 13 * 13 * 13 * 13 - 1);
  }
}
