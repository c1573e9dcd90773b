// Input parsing (core/record/data.h): values are stored exactly as typed or
// refused with the user's own text; count options have no magic values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/record/data.h"

using namespace microddp;

namespace {
CollectiveSpec one(DType t, int n = 1) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = 1;
  s.dtype = t;
  return s;
}
int64_t int64_of(const RankData& d) {
  int64_t v;
  std::memcpy(&v, d[0].data(), 8);
  return v;
}
}  // namespace

TEST_SUITE("data") {
  TEST_CASE("integers written in decimal are exact, with or without a zero fraction") {
    CHECK(int64_of(parse_data(one(DType::int64), "9007199254740993.0")) == 9007199254740993);
    CHECK(int64_of(parse_data(one(DType::int64), "9007199254740993")) == 9007199254740993);
    CHECK(int64_of(parse_data(one(DType::int64), "9223372036854775807.000")) == std::numeric_limits<int64_t>::max());
    CHECK(int64_of(parse_data(one(DType::int64), "-9223372036854775808")) == std::numeric_limits<int64_t>::min());
    CHECK(int64_of(parse_data(one(DType::int64), "1e3")) == 1000);
    CHECK(int64_of(parse_data(one(DType::int64), "+7")) == 7);
  }

  TEST_CASE("the sign of zero is kept for every floating dtype") {
    for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
      CAPTURE(name(t));
      for (const char* text : {"-0", "-0.0", "-0e5"}) {
        const double v = kernels::load_double(t, parse_data(one(t), text)[0].data(), 0);
        CHECK(v == 0);
        CHECK(std::signbit(v));
      }
      CHECK_FALSE(std::signbit(kernels::load_double(t, parse_data(one(t), "0")[0].data(), 0)));
    }
    // In --input JSON, "-0.0" is a float and keeps its sign.
    const double j =
        kernels::load_double(DType::float32, parse_input_json(one(DType::float32), R"({"inputs": [[-0.0]]})")[0].data(), 0);
    CHECK(std::signbit(j));
  }

  TEST_CASE("refusals quote the value as typed") {
    CHECK_THROWS_WITH_AS(parse_data(one(DType::int64), "9223372036854775808"),
                         "rank 0 value 0: '9223372036854775808' does not fit int64", UsageError);
    CHECK_THROWS_WITH_AS(parse_data(one(DType::int64), "1.5"),
                         "rank 0 value 0: '1.5' is not an integer (int64 holds integers)", UsageError);
    CHECK_THROWS_WITH_AS(parse_data(one(DType::float32), "1e400"), "rank 0 value 0: '1e400' is too large for any dtype",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_data(one(DType::float16), "70000"),
                         "rank 0 value 0: '70000' is too large for float16 (largest finite 65504)", UsageError);
    CHECK_THROWS_WITH_AS(parse_data(one(DType::int32), "2147483648"), "rank 0 value 0: '2147483648' does not fit int32",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_data(one(DType::float32), "1x"), "rank 0 value 0: '1x' is not a number", UsageError);
    CHECK_THROWS_WITH_AS(fill_data(one(DType::float32), "random:-1"),
                         "--fill random:SEED needs a non-negative integer seed below 2^64, got '-1'", UsageError);
  }

  TEST_CASE("count options: no value means unset, every given value is checked") {
    CHECK(parse_count_text("--count", "0") == 0);
    CHECK(parse_count_text("--count", "9223372036854775807") == std::numeric_limits<int64_t>::max());
    CHECK_THROWS_WITH_AS(parse_count_text("--count", "-1"), "--count '-1' must be >= 0", UsageError);
    CHECK_THROWS_WITH_AS(parse_count_text("--count", "9223372036854775808"),
                         "--count '9223372036854775808' is too large (at most 9223372036854775807)", UsageError);
    CHECK_THROWS_WITH_AS(parse_count_text("--count", ""), "--count '' is not an integer", UsageError);
    CHECK(parse_counts_text("--counts", "1,0,3") == std::vector<int64_t>{1, 0, 3});
    CHECK_THROWS_WITH_AS(parse_counts_text("--counts", "1,2,3,"), "--counts '1,2,3,': entry 4 is empty", UsageError);
    CHECK_THROWS_WITH_AS(parse_counts_text("--counts", "9223372036854775807,1,1"),
                         "--counts '9223372036854775807,1,1': the counts add up to more than 9223372036854775807",
                         UsageError);
  }

  TEST_CASE("a spec whose blocks add up past int64 is refused before anyone adds them") {
    CollectiveSpec s = one(DType::float32, 3);
    s.collective = Collective::all_gather;
    s.counts = {std::numeric_limits<int64_t>::max(), 1, 1};
    CHECK_THROWS_WITH_AS(s.validate(), doctest::Contains("counts add up to more than"), UsageError);
    s.counts.clear();
    s.count = std::numeric_limits<int64_t>::max() / 2;
    CHECK_THROWS_WITH_AS(s.validate(), doctest::Contains("elements in one buffer"), UsageError);
  }
}
