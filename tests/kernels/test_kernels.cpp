// Tests for the CPU kernels (kernels/cpu/kernels.h): the float16 / bfloat16
// conversions (exhaustively where that is cheap), zero lengths, copy,
// load/store_double, misaligned and in-place arrays, and every misuse error.
// reduce and the avg steps: test_kernels_reduce.cpp.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "kernels/kernel_refs.h"

using namespace microddp;
using namespace microddp::kernels_test;

TEST_SUITE("kernels") {

TEST_CASE("dtype_size and is_floating") {
  CHECK(dtype_size(DType::int32) == 4);
  CHECK(dtype_size(DType::int64) == 8);
  CHECK(dtype_size(DType::float16) == 2);
  CHECK(dtype_size(DType::bfloat16) == 2);
  CHECK(dtype_size(DType::float32) == 4);
  CHECK(dtype_size(DType::float64) == 8);
  CHECK_FALSE(is_floating(DType::int32));
  CHECK_FALSE(is_floating(DType::int64));
  CHECK(is_floating(DType::float16));
  CHECK(is_floating(DType::bfloat16));
  CHECK(is_floating(DType::float32));
  CHECK(is_floating(DType::float64));
  const auto bad = static_cast<DType>(42);
  CHECK_THROWS_WITH_AS(dtype_size(bad), doctest::Contains("42"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(is_floating(bad), doctest::Contains("42"), std::invalid_argument);
}

TEST_CASE("float16 known bit patterns") {
  CHECK(k::float_to_half(1.0f) == 0x3C00);
  CHECK(k::float_to_half(-2.0f) == 0xC000);
  CHECK(k::float_to_half(0.0f) == 0x0000);
  CHECK(k::float_to_half(-0.0f) == 0x8000);
  CHECK(k::float_to_half(65504.0f) == 0x7BFF);     // largest finite
  CHECK(k::float_to_half(65519.99f) == 0x7BFF);    // below the midpoint to inf
  CHECK(k::float_to_half(65520.0f) == 0x7C00);     // midpoint: ties to even = inf
  CHECK(k::float_to_half(1e10f) == 0x7C00);
  CHECK(k::float_to_half(-1e10f) == 0xFC00);
  CHECK(k::float_to_half(INFINITY) == 0x7C00);
  CHECK(k::float_to_half(-INFINITY) == 0xFC00);
  CHECK(k::float_to_half(std::ldexp(1.0f, -14)) == 0x0400);  // smallest normal
  CHECK(k::float_to_half(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(k::float_to_half(std::ldexp(1023.0f, -24)) == 0x03FF);
  // Ties to even, subnormal range: 0.5, 1.5, 2.5 units of 2^-24.
  CHECK(k::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(k::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);
  CHECK(k::float_to_half(std::ldexp(5.0f, -25)) == 0x0002);
  CHECK(k::float_to_half(-std::ldexp(3.0f, -25)) == 0x8002);
  CHECK(k::float_to_half(std::ldexp(1.0f, -26)) == 0x0000);
  CHECK(k::float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  // Ties to even, normal range: 1 + 2^-11 is halfway between 0x3C00 and 0x3C01.
  CHECK(k::float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  CHECK(k::float_to_half(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);
  CHECK(k::float_to_half(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)) == 0x3C01);
  CHECK(k::float_to_half(2049.0f) == 0x6800);  // 2048
  CHECK(k::float_to_half(2051.0f) == 0x6802);  // 2052
  // Rounding up carries into the exponent.
  CHECK(k::float_to_half(std::nextafter(2.0f, 0.0f)) == 0x4000);
  CHECK(k::float_to_half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);

  CHECK(k::half_to_float(0x3C00) == 1.0f);
  CHECK(k::half_to_float(0x7BFF) == 65504.0f);
  CHECK(k::half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(k::half_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(k::half_to_float(0x0400) == std::ldexp(1.0f, -14));
  CHECK(std::bit_cast<uint32_t>(k::half_to_float(0x8000)) == 0x80000000u);
  CHECK(k::half_to_float(0x7C00) == INFINITY);
  CHECK(k::half_to_float(0xFC00) == -INFINITY);
  // NaN: stays NaN, quiet, payload kept in the top mantissa bits.
  const uint32_t snan = std::bit_cast<uint32_t>(k::half_to_float(0x7C01));
  CHECK(std::isnan(std::bit_cast<float>(snan)));
  CHECK((snan & 0x00400000u) != 0);
  CHECK(k::float_to_half(std::bit_cast<float>(snan)) == 0x7E01);
  CHECK(k::float_to_half(std::bit_cast<float>(0x7fc00000u)) == 0x7E00);
  CHECK(k::float_to_half(std::bit_cast<float>(0xffc00000u)) == 0xFE00);
  CHECK(k::float_to_half(std::bit_cast<float>(0x7f800001u)) == 0x7E00);  // sNaN -> quiet
}

TEST_CASE("float16 conversions: exhaustive") {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto hh = static_cast<uint16_t>(h);
    const float f = k::half_to_float(hh);
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan) {
      REQUIRE(std::isnan(f));
      // Quieted, payload kept.
      REQUIRE(k::float_to_half(f) == (hh | 0x0200));
      continue;
    }
    if ((h & 0x7fff) == 0x7c00) {
      REQUIRE(std::isinf(f));
    } else {
      REQUIRE(static_cast<double>(f) == half_value(hh));
    }
    REQUIRE(k::float_to_half(f) == hh);  // round trip
    // Every rounding boundary: the midpoint to the next half up (exact in
    // float) goes to the even neighbour, and one float ulp either side
    // goes to the nearer one.
    if ((h & 0x7fff) >= 0x7c00) continue;
    const uint16_t up = static_cast<uint16_t>(hh + 1);  // next magnitude, same sign
    const float fup = (up & 0x7fff) == 0x7c00 ? std::copysign(65536.0f, f) : k::half_to_float(up);
    const float mid = (f + fup) / 2;  // exact: one more bit than a half has
    REQUIRE(static_cast<double>(mid) == (static_cast<double>(f) + fup) / 2);
    const uint16_t even = (hh & 1) ? up : hh;
    REQUIRE(k::float_to_half(mid) == even);
    REQUIRE(k::float_to_half(std::nextafter(mid, f)) == hh);
    REQUIRE(k::float_to_half(std::nextafter(mid, fup)) == up);
  }
}

TEST_CASE("bfloat16 known bit patterns and exhaustive round trip") {
  CHECK(k::float_to_bf16(1.0f) == 0x3F80);
  CHECK(k::float_to_bf16(-2.0f) == 0xC000);
  CHECK(k::float_to_bf16(-0.0f) == 0x8000);
  CHECK(k::float_to_bf16(INFINITY) == 0x7F80);
  CHECK(k::float_to_bf16(-INFINITY) == 0xFF80);
  CHECK(k::float_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);  // rounds to inf
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x7f7f7fffu)) == 0x7F7F);   // largest finite
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x7f7f8000u)) == 0x7F80);   // tie -> even = inf
  // Ties to even: 1 + 2^-8 lies halfway between 0x3F80 and 0x3F81.
  CHECK(k::float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
  CHECK(k::float_to_bf16(1.0f + std::ldexp(3.0f, -8)) == 0x3F82);
  CHECK(k::float_to_bf16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)) == 0x3F81);
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x00000001u)) == 0x0000);  // tiny subnormal
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x00018000u)) == 0x0002);  // subnormal tie
  CHECK(k::bf16_to_float(0x3F80) == 1.0f);
  CHECK(k::bf16_to_float(0x0001) == std::bit_cast<float>(0x00010000u));
  // NaN: quiet, payload kept, never turned into inf by rounding.
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x7f800001u)) == 0x7FC0);
  CHECK(k::float_to_bf16(std::bit_cast<float>(0x7fffffffu)) == 0x7FFF);
  CHECK(k::float_to_bf16(std::bit_cast<float>(0xffc00000u)) == 0xFFC0);
  CHECK((std::bit_cast<uint32_t>(k::bf16_to_float(0x7F81)) & 0x00400000u) != 0);

  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bb = static_cast<uint16_t>(b);
    const float f = k::bf16_to_float(bb);
    const bool nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0;
    if (nan) {
      REQUIRE(std::isnan(f));
      REQUIRE(k::float_to_bf16(f) == (bb | 0x0040));
      continue;
    }
    REQUIRE(std::bit_cast<uint32_t>(f) == b << 16);
    REQUIRE(k::float_to_bf16(f) == bb);
    if ((b & 0x7fff) >= 0x7f80) continue;
    // The midpoint to the next value up, and one float ulp either side.
    const uint32_t mid_bits = (b << 16) | 0x8000u;
    const uint16_t up = static_cast<uint16_t>(bb + 1);
    REQUIRE(k::float_to_bf16(std::bit_cast<float>(mid_bits)) == ((bb & 1) ? up : bb));
    REQUIRE(k::float_to_bf16(std::bit_cast<float>(mid_bits - 1)) == bb);
    REQUIRE(k::float_to_bf16(std::bit_cast<float>(mid_bits + 1)) == up);
  }
}

TEST_CASE("zero elements touch nothing, null pointers allowed") {
  for (DType t : kTypes) {
    CAPTURE(tname(t));
    for (ReduceOp op : kOps) k::reduce(t, op, nullptr, nullptr, 0);
    k::copy(t, nullptr, nullptr, 0);
    if (is_floating(t)) {
      k::premul_avg(t, nullptr, nullptr, 0, 4);
    } else {
      k::finish_avg(t, nullptr, 0, 4);
    }
    Buf a(t, {1, 2, 3}), b(t, {4, 5, 6});
    const Buf a0 = a;
    for (ReduceOp op : kOps) k::reduce(t, op, a.data(), b.data(), 0);
    k::copy(t, a.data(), b.data(), 0);
    if (is_floating(t)) {
      k::premul_avg(t, a.data(), b.data(), 0, 4);
    } else {
      k::finish_avg(t, a.data(), 0, 4);
    }
    CHECK(a == a0);
  }
}

TEST_CASE("copy: exact bits, memmove semantics") {
  std::mt19937_64 rng(99);
  for (DType t : kTypes) {
    for (int64_t n : kLengths) {
      CAPTURE(tname(t));
      Buf src(t, n), dst(t, n);
      for (int64_t i = 0; i < n; ++i) src.set_bits(i, rng());  // any bits, NaN payloads too
      k::copy(t, dst.data(), src.data(), n);
      CHECK(dst == src);
    }
  }
  std::vector<int32_t> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  k::copy(DType::int32, v.data() + 2, v.data(), 5);  // overlapping, forward
  CHECK(v == std::vector<int32_t>{1, 2, 1, 2, 3, 4, 5, 8, 9, 10});
  k::copy(DType::int32, v.data(), v.data() + 3, 7);  // overlapping, backward
  CHECK(v == std::vector<int32_t>{2, 3, 4, 5, 8, 9, 10, 8, 9, 10});
}

TEST_CASE("load_double / store_double") {
  SUBCASE("round trips and rounding") {
    Buf i32(DType::int32, 3), i64(DType::int64, 3);
    i32.set(0, INT32_MIN);
    i32.set(1, INT32_MAX);
    i32.set(2, -0.0);
    CHECK(i32.get(0) == INT32_MIN);
    CHECK(i32.get(1) == INT32_MAX);
    CHECK(i32.bits(2) == 0);
    i64.set(0, -9223372036854775808.0);
    i64.set(1, 9007199254740993.0);  // 2^53 + 1 is not a double: 2^53
    i64.set(2, 9223372036854774784.0);  // largest double below 2^63
    CHECK(i64.bits(0) == 0x8000000000000000ull);
    CHECK(i64.get(1) == 9007199254740992.0);
    CHECK(i64.get(2) == 9223372036854774784.0);

    Buf h(DType::float16, 8);
    h.set(0, 1.0);
    h.set(1, 65504);
    h.set(2, 65519.99);
    h.set(3, INFINITY);
    h.set(4, -INFINITY);
    h.set(5, NAN);
    h.set(6, std::ldexp(1.0, -24));
    h.set(7, 1e-30);
    CHECK(h.bits(0) == 0x3C00);
    CHECK(h.bits(1) == 0x7BFF);
    CHECK(h.bits(2) == 0x7BFF);
    CHECK(h.bits(3) == 0x7C00);
    CHECK(h.bits(4) == 0xFC00);
    CHECK(std::isnan(h.get(5)));
    CHECK(h.bits(6) == 0x0001);
    CHECK(h.bits(7) == 0x0000);
    // One rounding from double, not two: 1 + 2^-11 + 2^-40 rounds to float
    // as the tie 1 + 2^-11, but the double is above the tie.
    h.set(0, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
    h.set(1, 1.0 + std::ldexp(1.0, -11));
    h.set(2, 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40));
    h.set(3, -(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)));
    CHECK(h.bits(0) == 0x3C01);
    CHECK(h.bits(1) == 0x3C00);
    CHECK(h.bits(2) == 0x3C00);
    CHECK(h.bits(3) == 0xBC01);

    Buf b(DType::bfloat16, 3);
    b.set(0, 1.0);
    b.set(1, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
    b.set(2, 1.0 + std::ldexp(1.0, -8));
    CHECK(b.bits(0) == 0x3F80);
    CHECK(b.bits(1) == 0x3F81);
    CHECK(b.bits(2) == 0x3F80);

    Buf f(DType::float32, 3);
    f.set(0, 0.1);
    f.set(1, std::numeric_limits<float>::max());
    f.set(2, -INFINITY);
    CHECK(f.get(0) == static_cast<double>(0.1f));
    CHECK(f.get(1) == std::numeric_limits<float>::max());
    CHECK(f.get(2) == -INFINITY);

    Buf d(DType::float64, 1);
    d.set(0, 0.1);
    CHECK(d.get(0) == 0.1);

    // Unaligned bases are fine.
    unsigned char raw[16] = {};
    k::store_double(DType::float64, raw + 1, 0, 2.5);
    CHECK(k::load_double(DType::float64, raw + 1, 0) == 2.5);
    k::store_double(DType::int32, raw + 3, 2, -9);
    CHECK(k::load_double(DType::int32, raw + 3, 2) == -9);
  }
  SUBCASE("errors name the value and the dtype") {
    unsigned char raw[8] = {};
    auto store = [&](DType t, double v) { k::store_double(t, raw, 0, v); };
    CHECK_THROWS_WITH_AS(store(DType::int32, 3e9), "value 3000000000 does not fit int32",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int32, 2147483648.0), "value 2147483648 does not fit int32",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int32, -2147483649.0),
                         "value -2147483649 does not fit int32", std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int32, 1.5), "value 1.5 is not an integer for int32",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int64, -0.25), "value -0.25 is not an integer for int64",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int64, 9223372036854775808.0),
                         "value 9223372036854775808 does not fit int64", std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int64, 1e300), "value 1e+300 does not fit int64",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int32, NAN), "value nan does not fit int32",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::int64, -INFINITY), "value -inf does not fit int64",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::float16, 1e6), "value 1000000 overflows float16",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::float16, -65520), "value -65520 overflows float16",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::bfloat16, 1e39), "value 1e+39 overflows bfloat16",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::float32, 3.5e38), "value 3.5e+38 overflows float32",
                         std::out_of_range);
    CHECK_THROWS_WITH_AS(store(DType::float32, -1e300), "value -1e+300 overflows float32",
                         std::out_of_range);
    // Failed stores leave the element alone.
    CHECK(raw[0] == 0);
    CHECK_NOTHROW(store(DType::float32, 1e-300));  // underflow to 0 is fine
    CHECK_NOTHROW(store(DType::float64, 1e300));
    CHECK_THROWS_WITH_AS(k::store_double(static_cast<DType>(6), raw, 0, 1.0),
                         doctest::Contains("6"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(k::load_double(static_cast<DType>(200), raw, 0),
                         doctest::Contains("200"), std::invalid_argument);
    CHECK_THROWS_AS(k::store_double(DType::int32, raw, -1, 1.0), std::invalid_argument);
  }
}

TEST_CASE("misuse throws std::invalid_argument naming the value") {
  float a[4] = {}, b[4] = {};
  CHECK_THROWS_WITH_AS(k::reduce(static_cast<DType>(9), ReduceOp::sum, a, b, 1),
                       doctest::Contains("9"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce(DType::float32, static_cast<ReduceOp>(7), a, b, 1),
                       doctest::Contains("7"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce(DType::float32, ReduceOp::sum, a, b, -1),
                       doctest::Contains("-1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::copy(DType::float32, a, b, -5), doctest::Contains("-5"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::copy(static_cast<DType>(77), a, b, 1), doctest::Contains("77"),
                       std::invalid_argument);
  CHECK_THROWS_AS(k::reduce(DType::float32, ReduceOp::sum, nullptr, b, 1), std::invalid_argument);
  // Partial overlap (same array is fine, shifted is not).
  CHECK_THROWS_AS(k::reduce(DType::float32, ReduceOp::sum, a + 1, a, 3), std::invalid_argument);
  CHECK_THROWS_AS(k::premul_avg(DType::float32, a, a + 1, 3, 2), std::invalid_argument);
  CHECK_NOTHROW(k::reduce(DType::float32, ReduceOp::sum, a + 2, a, 2));  // adjacent
}

}  // TEST_SUITE("kernels")
