// Tests for the CPU kernels' reduce (kernels/cpu/kernels.h): exact values for
// every dtype x op, against a scalar reference, NaN propagation, integer
// wrap-around, and the avg pre/post steps (finish_avg, premul_avg).
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

TEST_CASE("reduce: exact small values for every dtype and op") {
  for (DType t : kTypes) {
    for (ReduceOp op : kOps) {
      CAPTURE(tname(t));
      CAPTURE(oname(op));
      Buf dst(t, {1, -2, 3, 4, -5, 6, 7});
      const Buf src(t, {2, 5, -3, 4, -1, 0, -8});
      Buf want(t, 7);
      switch (op) {
        case ReduceOp::sum:
        case ReduceOp::avg: want = Buf(t, {3, 3, 0, 8, -6, 6, -1}); break;
        case ReduceOp::prod: want = Buf(t, {2, -10, -9, 16, 5, 0, -56}); break;
        case ReduceOp::min: want = Buf(t, {1, -2, -3, 4, -5, 0, -8}); break;
        case ReduceOp::max: want = Buf(t, {2, 5, 3, 4, -1, 6, 7}); break;
      }
      k::reduce(t, op, dst.data(), src.data(), 7);
      for (int64_t i = 0; i < 7; ++i) CHECK(dst.get(i) == want.get(i));
      CHECK(src == Buf(t, {2, 5, -3, 4, -1, 0, -8}));  // src untouched
    }
    if (!is_floating(t)) continue;
    CAPTURE(tname(t));
    // Fractions, exact in every floating dtype.
    const Buf a(t, {0.5, 1.25, -0.75}), b(t, {0.25, -2, -0.75});
    Buf s = a, p = a, mn = a, mx = a;
    k::reduce(t, ReduceOp::sum, s.data(), b.data(), 3);
    k::reduce(t, ReduceOp::prod, p.data(), b.data(), 3);
    k::reduce(t, ReduceOp::min, mn.data(), b.data(), 3);
    k::reduce(t, ReduceOp::max, mx.data(), b.data(), 3);
    CHECK(s == Buf(t, {0.75, -0.75, -1.5}));
    CHECK(p == Buf(t, {0.125, -2.5, 0.5625}));
    CHECK(mn == Buf(t, {0.25, -2, -0.75}));
    CHECK(mx == Buf(t, {0.5, 1.25, -0.75}));
  }
}

TEST_CASE("reduce: float16 / bfloat16 compute in float32 and round once, to even") {
  // float16: 1 + 2^-11 is a tie between 0x3C00 and 0x3C01 -> even.
  Buf h(DType::float16, 3), hs(DType::float16, 3);
  h.set_bits(0, 0x3C00);  // 1
  h.set_bits(1, 0x3C01);  // 1 + 2^-10
  h.set_bits(2, 0x7BFF);  // 65504
  hs.set(0, std::ldexp(1.0, -11));
  hs.set(1, std::ldexp(1.0, -11));
  hs.set(2, 16);  // 65520: tie -> inf
  k::reduce(DType::float16, ReduceOp::sum, h.data(), hs.data(), 3);
  CHECK(h.bits(0) == 0x3C00);
  CHECK(h.bits(1) == 0x3C02);
  CHECK(h.bits(2) == 0x7C00);
  // Computing in float32 matters: 0x3555 * 3 (= 0.99987...) rounds once.
  Buf pa(DType::float16, 1), pb(DType::float16, {3});
  pa.set_bits(0, 0x3555);
  k::reduce(DType::float16, ReduceOp::prod, pa.data(), pb.data(), 1);
  CHECK(pa.bits(0) == k::float_to_half(k::half_to_float(0x3555) * 3.0f));
  // bfloat16: 1 + 2^-8 is a tie between 0x3F80 and 0x3F81.
  Buf b(DType::bfloat16, 2), bs(DType::bfloat16, 2);
  b.set_bits(0, 0x3F80);
  b.set_bits(1, 0x3F81);
  bs.set(0, std::ldexp(1.0, -8));
  bs.set(1, std::ldexp(1.0, -8));
  k::reduce(DType::bfloat16, ReduceOp::sum, b.data(), bs.data(), 2);
  CHECK(b.bits(0) == 0x3F80);
  CHECK(b.bits(1) == 0x3F82);
}

TEST_CASE("reduce: every dtype x op x length matches a scalar reference") {
  std::mt19937_64 rng(12345);
  for (DType t : kTypes) {
    for (ReduceOp op : kOps) {
      for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{8},
                        int64_t{15}, int64_t{16}, int64_t{17}, int64_t{33}, int64_t{1000},
                        int64_t{4099}}) {
        CAPTURE(tname(t));
        CAPTURE(oname(op));
        CAPTURE(n);
        Buf dst(t, n), src(t, n);
        fill_random(dst, rng);
        fill_random(src, rng);
        const Buf src0 = src;
        dst.words.back() = 0xdeadbeefcafef00dull;  // a spare word past the end
        const Buf dst0 = dst;
        k::reduce(t, op, dst.data(), src.data(), n);
        check_against_ref(dst0, src0, dst, op);
        CHECK(src == src0);
        CHECK(dst.words.back() == 0xdeadbeefcafef00dull);

        // Same bits again (determinism).
        Buf again = dst0;
        k::reduce(t, op, again.data(), src.data(), n);
        CHECK(again == dst);

        // In place: dst and src the same array.
        Buf self = dst0;
        k::reduce(t, op, self.data(), self.data(), n);
        check_against_ref(dst0, dst0, self, op);

        // Misaligned pointers (odd byte offsets), same answers; n = 4099
        // crosses the implementation's bounce-buffer chunks.
        Raw rd(dst0, 1), rs(src0, 3);
        k::reduce(t, op, rd.data(), rs.data(), n);
        const Buf mis = rd.to_buf(t, n);
        check_against_ref(dst0, src0, mis, op);
        Raw ri(dst0, 5);
        k::reduce(t, op, ri.data(), ri.data(), n);
        check_against_ref(dst0, dst0, ri.to_buf(t, n), op);
      }
    }
  }
}

TEST_CASE("reduce: min / max propagate NaN, first NaN operand (dst before src)") {
  // NaN positions spread over the vector body and the tail of 33 elements.
  const int64_t n = 33;
  struct Case {
    DType t;
    uint64_t nan_a, nan_b;      // two distinct quiet NaNs
    uint64_t out_a, out_b;      // what they read as after the op
  };
  const Case cases[] = {
      {DType::float32, 0x7fc00001u, 0xffc00002u, 0x7fc00001u, 0xffc00002u},
      {DType::float64, 0x7ff8000000000001ull, 0xfff8000000000002ull, 0x7ff8000000000001ull,
       0xfff8000000000002ull},
      {DType::float16, 0x7e01, 0xfe02, 0x7e01, 0xfe02},
      // Signalling NaNs come out quiet (payload kept).
      {DType::float16, 0x7c01, 0x7d02, 0x7e01, 0x7f02},
      {DType::bfloat16, 0x7fc1, 0xffc2, 0x7fc1, 0xffc2},
      {DType::bfloat16, 0x7f81, 0x7f82, 0x7fc1, 0x7fc2},
  };
  for (const Case& c : cases) {
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
      CAPTURE(tname(c.t));
      CAPTURE(oname(op));
      Buf dst(c.t, n), src(c.t, n);
      for (int64_t i = 0; i < n; ++i) {
        dst.set(i, static_cast<double>(i));
        src.set(i, static_cast<double>(n - i));
      }
      // i=0,16,32: NaN in dst only; 1,17,31: src only; 2,18,30: both.
      for (int64_t i : {0, 16, 32}) dst.set_bits(i, c.nan_a);
      for (int64_t i : {1, 17, 31}) src.set_bits(i, c.nan_b);
      for (int64_t i : {2, 18, 30}) {
        dst.set_bits(i, c.nan_a);
        src.set_bits(i, c.nan_b);
      }
      // Also NaN against +-inf.
      dst.set(5, INFINITY);
      src.set_bits(5, c.nan_b);
      dst.set_bits(6, c.nan_a);
      src.set(6, -INFINITY);
      k::reduce(c.t, op, dst.data(), src.data(), n);
      for (int64_t i : {0, 16, 32, 2, 18, 30, 6}) CHECK(dst.bits(i) == c.out_a);
      for (int64_t i : {1, 17, 31, 5}) CHECK(dst.bits(i) == c.out_b);
      for (int64_t i = 7; i < 16; ++i) {
        const double want = op == ReduceOp::min ? std::min<double>(i, n - i)
                                                : std::max<double>(i, n - i);
        CHECK(dst.get(i) == want);
      }
    }
  }
}

TEST_CASE("reduce: integer sum and prod wrap in two's complement") {
  const int64_t n = 37;  // the 6-value pattern repeated over body and tail
  {
    const int32_t mx = INT32_MAX, mn = INT32_MIN;
    const int32_t a[] = {mx, mn, -1, 65536, mx, mn};
    const int32_t b[] = {1, -1, mn, 65536, 2, -1};
    const int32_t sum[] = {mn, mx, mx, 131072, mn + 1, mx};
    const int32_t prod[] = {mx, mn, mn, 0, -2, mn};
    std::vector<int32_t> s(n), p(n), src(n);
    for (int64_t i = 0; i < n; ++i) s[i] = p[i] = a[i % 6], src[i] = b[i % 6];
    k::reduce(DType::int32, ReduceOp::sum, s.data(), src.data(), n);
    k::reduce(DType::int32, ReduceOp::prod, p.data(), src.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      CHECK(s[i] == sum[i % 6]);
      CHECK(p[i] == prod[i % 6]);
    }
  }
  {
    const int64_t mx = INT64_MAX, mn = INT64_MIN;
    const int64_t a[] = {mx, mn, -1, int64_t{1} << 32, mx, mn};
    const int64_t b[] = {1, -1, mn, int64_t{1} << 32, 2, -1};
    const int64_t sum[] = {mn, mx, mx, int64_t{1} << 33, mn + 1, mx};
    const int64_t prod[] = {mx, mn, mn, 0, -2, mn};
    std::vector<int64_t> s(n), p(n), src(n);
    for (int64_t i = 0; i < n; ++i) s[i] = p[i] = a[i % 6], src[i] = b[i % 6];
    k::reduce(DType::int64, ReduceOp::sum, s.data(), src.data(), n);
    k::reduce(DType::int64, ReduceOp::prod, p.data(), src.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      CHECK(s[i] == sum[i % 6]);
      CHECK(p[i] == prod[i % 6]);
    }
  }
}

TEST_CASE("finish_avg: integer division truncating toward zero") {
  std::vector<int32_t> a = {-7, 7, -8, 9, INT32_MIN, INT32_MAX, 0, -1, 1};
  k::finish_avg(DType::int32, a.data(), static_cast<int64_t>(a.size()), 2);
  CHECK(a == std::vector<int32_t>{-3, 3, -4, 4, -1073741824, 1073741823, 0, 0, 0});
  std::vector<int32_t> b = {-7, 7, -8, 9, INT32_MIN, INT32_MAX};
  k::finish_avg(DType::int32, b.data(), static_cast<int64_t>(b.size()), 3);
  CHECK(b == std::vector<int32_t>{-2, 2, -2, 3, -715827882, 715827882});
  std::vector<int64_t> c = {-7, 7, INT64_MIN, INT64_MAX, -(int64_t{1} << 60) - 1};
  k::finish_avg(DType::int64, c.data(), static_cast<int64_t>(c.size()), 3);
  CHECK(c == std::vector<int64_t>{-2, 2, -3074457345618258602, 3074457345618258602,
                                  -384307168202282325});
  // world_size 1 leaves the values alone.
  std::vector<int32_t> d = {INT32_MIN, -5, 5};
  k::finish_avg(DType::int32, d.data(), 3, 1);
  CHECK(d == std::vector<int32_t>{INT32_MIN, -5, 5});

  // Full-range random values, many world sizes, odd lengths, misaligned.
  std::mt19937_64 rng(7);
  for (int w : {1, 2, 3, 4, 5, 7, 8, 10, 1000, 65537, 1 << 30, INT32_MAX}) {
    for (int64_t n : kLengths) {
      std::vector<int32_t> x(n), want(n);
      std::vector<int64_t> y(n), want64(n);
      for (int64_t i = 0; i < n; ++i) {
        x[i] = static_cast<int32_t>(static_cast<uint32_t>(rng()));
        y[i] = static_cast<int64_t>(rng());
        // Near multiples of w (int64 maths, wrapped into int32 modulo 2^32).
        if (i % 5 == 0) x[i] = static_cast<int32_t>(int64_t{w} * (i % 3) - 1);
        want[i] = x[i] / w;
        want64[i] = y[i] / w;
      }
      std::vector<unsigned char> raw(n * 4 + 8);
      std::memcpy(raw.data() + 1, x.data(), n * 4);
      k::finish_avg(DType::int32, x.data(), n, w);
      k::finish_avg(DType::int64, y.data(), n, w);
      k::finish_avg(DType::int32, raw.data() + 1, n, w);
      CHECK(x == want);
      CHECK(y == want64);
      CHECK(std::memcmp(raw.data() + 1, want.data(), n * 4) == 0);
    }
  }
  CHECK_THROWS_WITH_AS(k::finish_avg(DType::float32, a.data(), 1, 2),
                       doctest::Contains("float32"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::finish_avg(DType::int32, a.data(), 1, 0), doctest::Contains("0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::finish_avg(DType::int64, a.data(), 1, -3), doctest::Contains("-3"),
                       std::invalid_argument);
}

TEST_CASE("avg's sum saturates at the largest finite value; sum does not") {
  // 21840 is 65504/3 rounded up in float16: three of them sum to 65520,
  // the tie between 65504 and 65536 (inf), which rounds to even: inf. The
  // mean of finite values fits, so avg keeps the largest finite value.
  struct Case { DType t; double part, big; };
  for (const Case c : {Case{DType::float16, 21840, 65504}, Case{DType::bfloat16, 1.2e38, 3.3895313892515355e38},
                       Case{DType::float32, 1.2e38, std::numeric_limits<float>::max()},
                       Case{DType::float64, 7e307, std::numeric_limits<double>::max()}})
    for (double sign : {1.0, -1.0}) {
      CAPTURE(tname(c.t));
      Buf acc(c.t, 3), src(c.t, 3);
      for (int64_t i = 0; i < 3; ++i) {
        acc.set(i, sign * c.part * 2);
        src.set(i, sign * c.part);
      }
      src.set(2, INFINITY);  // an infinite contribution stays infinite
      const double p0 = src.get(0);  // part, rounded to the dtype
      Buf plain = acc;
      k::reduce(c.t, ReduceOp::avg, acc.data(), src.data(), 3);
      CHECK(acc.get(0) == sign * c.big);
      CHECK(acc.get(2) == INFINITY);
      k::reduce(c.t, ReduceOp::sum, plain.data(), src.data(), 3);
      CHECK(plain.get(0) == sign * INFINITY);  // sum keeps IEEE overflow
      k::reduce(c.t, ReduceOp::avg, src.data(), src.data(), 3);  // in place
      CHECK(src.get(0) == 2 * p0);
    }
}

TEST_CASE("premul_avg: scale by 1/n before the sum") {
  SUBCASE("float16: 4 ranks of 60000 average to 60000 without overflow") {
    const int world = 4;
    const int64_t n = 33;
    std::vector<Buf> ranks;
    for (int r = 0; r < world; ++r) {
      Buf b(DType::float16, n);
      for (int64_t i = 0; i < n; ++i) b.set(i, 60000);
      ranks.push_back(b);
    }
    // The naive sum overflows: 60000 + 60000 is inf in float16.
    Buf naive = ranks[0];
    k::reduce(DType::float16, ReduceOp::sum, naive.data(), ranks[1].data(), n);
    CHECK(std::isinf(naive.get(0)));
    for (auto& b : ranks) k::premul_avg(DType::float16, b.data(), b.data(), n, world);  // in place
    CHECK(ranks[0].get(0) == 15000);
    Buf acc = ranks[0];
    for (int r = 1; r < world; ++r) {
      k::reduce(DType::float16, ReduceOp::avg, acc.data(), ranks[r].data(), n);
    }
    for (int64_t i = 0; i < n; ++i) {
      CHECK(std::isfinite(acc.get(i)));
      CHECK(std::fabs(acc.get(i) - 60000) <= 32);  // half an ulp of float16 at 60000
    }
    CHECK(acc.get(0) == 60000);  // exact here: 15000 -> 30000 -> 44992 -> 60000
  }
  SUBCASE("each floating dtype, out of place and in place") {
    for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
      for (int64_t n : kLengths) {
        CAPTURE(tname(t));
        CAPTURE(n);
        std::mt19937_64 rng(static_cast<uint64_t>(n));
        Buf src(t, n);
        fill_random(src, rng);
        const Buf src0 = src;
        Buf dst(t, n);
        k::premul_avg(t, dst.data(), src.data(), n, 3);
        CHECK(src == src0);
        for (int64_t i = 0; i < n; ++i) {
          uint64_t want = 0;
          const uint64_t x = src.bits(i);
          switch (t) {
            case DType::float16:
              want = k::float_to_half(k::half_to_float(static_cast<uint16_t>(x)) * (1.0f / 3));
              break;
            case DType::bfloat16:
              want = k::float_to_bf16(k::bf16_to_float(static_cast<uint16_t>(x)) * (1.0f / 3));
              break;
            case DType::float32:
              want = std::bit_cast<uint32_t>(std::bit_cast<float>(static_cast<uint32_t>(x)) *
                                             (1.0f / 3));
              break;
            default: want = std::bit_cast<uint64_t>(std::bit_cast<double>(x) * (1.0 / 3)); break;
          }
          if (is_nan_bits(t, want)) {
            CHECK(is_nan_bits(t, dst.bits(i)));
          } else {
            CHECK(dst.bits(i) == want);
          }
        }
        Buf inplace = src0;
        k::premul_avg(t, inplace.data(), inplace.data(), n, 3);
        for (int64_t i = 0; i < n; ++i) {
          CHECK((inplace.bits(i) == dst.bits(i) ||
                 (is_nan_bits(t, inplace.bits(i)) && is_nan_bits(t, dst.bits(i)))));
        }
        Raw mis(src0, 1);
        k::premul_avg(t, mis.data(), mis.data(), n, 3);
        const Buf m = mis.to_buf(t, n);
        for (int64_t i = 0; i < n; ++i) {
          CHECK((m.bits(i) == dst.bits(i) ||
                 (is_nan_bits(t, m.bits(i)) && is_nan_bits(t, dst.bits(i)))));
        }
        // world_size 1 is a copy (bits of non-NaN values unchanged).
        Buf one(t, n);
        k::premul_avg(t, one.data(), src0.data(), n, 1);
        for (int64_t i = 0; i < n; ++i) {
          if (!is_nan_bits(t, src0.bits(i))) CHECK(one.bits(i) == src0.bits(i));
        }
      }
    }
    // Known values: float32 1 * (1/3); bfloat16 3 * (1/3f) rounds to 1.
    Buf f(DType::float32, {1.0}), b(DType::bfloat16, {3.0}), d(DType::float64, {1.0});
    k::premul_avg(DType::float32, f.data(), f.data(), 1, 3);
    k::premul_avg(DType::bfloat16, b.data(), b.data(), 1, 3);
    k::premul_avg(DType::float64, d.data(), d.data(), 1, 3);
    CHECK(f.get(0) == static_cast<double>(1.0f / 3.0f));
    CHECK(b.get(0) == 1.0);
    CHECK(d.get(0) == 1.0 / 3.0);
  }
  SUBCASE("misuse") {
    int32_t x[2] = {1, 2};
    CHECK_THROWS_WITH_AS(k::premul_avg(DType::int32, x, x, 2, 2), doctest::Contains("int32"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(k::premul_avg(DType::int64, x, x, 1, 2), doctest::Contains("int64"),
                         std::invalid_argument);
    float f[1] = {1};
    CHECK_THROWS_WITH_AS(k::premul_avg(DType::float32, f, f, 1, 0), doctest::Contains("0"),
                         std::invalid_argument);
  }
}

}  // TEST_SUITE("kernels")
