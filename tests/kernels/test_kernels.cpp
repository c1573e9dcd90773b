// Tests for the CPU kernels (kernels/cpu/kernels.h): exact values for every
// dtype x op, the float16 / bfloat16 conversions (exhaustively where that is
// cheap), NaN propagation, integer wrap-around, the avg pre/post steps,
// vector tails, misaligned and in-place arrays, and every misuse error.
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

using namespace microddp;
namespace k = microddp::kernels;

namespace {

const DType kTypes[] = {DType::int32,    DType::int64,   DType::float16,
                        DType::bfloat16, DType::float32, DType::float64};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                         ReduceOp::avg};
const int64_t kLengths[] = {1, 7, 33, 1000};

const char* tname(DType t) {
  switch (t) {
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "?";
}
const char* oname(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
  }
  return "?";
}

// A typed array of n elements, 8-byte aligned (plus one spare word so tests
// can also place it at odd byte offsets via Raw below).
struct Buf {
  DType t;
  int64_t n;
  std::vector<uint64_t> words;
  Buf(DType t_, int64_t n_)
      : t(t_), n(n_), words(static_cast<size_t>(n_) * dtype_size(t_) / 8 + 2, 0) {}
  Buf(DType t_, std::initializer_list<double> vals) : Buf(t_, static_cast<int64_t>(vals.size())) {
    int64_t i = 0;
    for (double v : vals) set(i++, v);
  }
  void* data() { return words.data(); }
  const void* data() const { return words.data(); }
  void set(int64_t i, double v) { k::store_double(t, data(), i, v); }
  double get(int64_t i) const { return k::load_double(t, data(), i); }
  // The raw bits of element i (zero-extended).
  uint64_t bits(int64_t i) const {
    uint64_t b = 0;
    std::memcpy(&b, reinterpret_cast<const unsigned char*>(data()) + i * dtype_size(t),
                dtype_size(t));
    return b;
  }
  void set_bits(int64_t i, uint64_t b) {
    std::memcpy(reinterpret_cast<unsigned char*>(data()) + i * dtype_size(t), &b, dtype_size(t));
  }
  bool operator==(const Buf& o) const {
    return t == o.t && n == o.n &&
           std::memcmp(data(), o.data(), static_cast<size_t>(n) * dtype_size(t)) == 0;
  }
};

bool is_nan_bits(DType t, uint64_t b) {
  switch (t) {
    case DType::float16: return (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
    case DType::bfloat16: return (b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0;
    case DType::float32: return std::isnan(std::bit_cast<float>(static_cast<uint32_t>(b)));
    case DType::float64: return std::isnan(std::bit_cast<double>(b));
    default: return false;
  }
}

// ---- Independent scalar reference for one element (written differently
// from the kernels on purpose: branches, std::isnan, wider integers).

template <class F>
F ref_float(ReduceOp op, F a, F b) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min:
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return b < a ? b : a;
    case ReduceOp::max:
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return b > a ? b : a;
  }
  return a;
}

uint64_t ref_bits(DType t, ReduceOp op, uint64_t a, uint64_t b) {
  switch (t) {
    case DType::int32: {
      const int64_t x = static_cast<int32_t>(a), y = static_cast<int32_t>(b);
      int64_t r = 0;
      if (op == ReduceOp::sum || op == ReduceOp::avg) r = x + y;
      if (op == ReduceOp::prod) r = x * y;
      if (op == ReduceOp::min) r = std::min(x, y);
      if (op == ReduceOp::max) r = std::max(x, y);
      return static_cast<uint64_t>(r) & 0xffffffffu;  // two's complement wrap
    }
    case DType::int64: {
      const __int128 x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
      __int128 r = 0;
      if (op == ReduceOp::sum || op == ReduceOp::avg) r = x + y;
      if (op == ReduceOp::prod) r = x * y;
      if (op == ReduceOp::min) r = x < y ? x : y;
      if (op == ReduceOp::max) r = x > y ? x : y;
      return static_cast<uint64_t>(static_cast<unsigned __int128>(r));
    }
    case DType::float16: {
      const float r = ref_float(op, k::half_to_float(static_cast<uint16_t>(a)),
                                k::half_to_float(static_cast<uint16_t>(b)));
      return k::float_to_half(r);
    }
    case DType::bfloat16: {
      const float r = ref_float(op, k::bf16_to_float(static_cast<uint16_t>(a)),
                                k::bf16_to_float(static_cast<uint16_t>(b)));
      return k::float_to_bf16(r);
    }
    case DType::float32: {
      const float r = ref_float(op, std::bit_cast<float>(static_cast<uint32_t>(a)),
                                std::bit_cast<float>(static_cast<uint32_t>(b)));
      return std::bit_cast<uint32_t>(r);
    }
    case DType::float64:
      return std::bit_cast<uint64_t>(
          ref_float(op, std::bit_cast<double>(a), std::bit_cast<double>(b)));
  }
  return 0;
}

// Random contents for a dtype: full-range integers (so sums and products
// wrap), and for floats a mix of ordinary values, NaN, +-inf, +-0, and
// subnormals.
void fill_random(Buf& b, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> val(-300.0, 300.0);
  std::uniform_int_distribution<int> pick(0, 49);
  for (int64_t i = 0; i < b.n; ++i) {
    if (b.t == DType::int32 || b.t == DType::int64) {
      b.set_bits(i, rng());
      continue;
    }
    double v = val(rng);
    switch (pick(rng)) {
      case 0: v = std::numeric_limits<double>::quiet_NaN(); break;
      case 1: v = -std::numeric_limits<double>::quiet_NaN(); break;
      case 2: v = std::numeric_limits<double>::infinity(); break;
      case 3: v = -std::numeric_limits<double>::infinity(); break;
      case 4: v = 0.0; break;
      case 5: v = -0.0; break;
      case 6: v = 3e-6; break;   // float16 subnormal
      case 7: v = -1e-40; break;  // float32 subnormal (0 in float16)
      default: break;
    }
    b.set(i, v);
  }
}

// Compare a kernel result with the reference, element by element. NaN from
// sum/prod only needs to be NaN (the hardware picks the payload); min/max
// must give the exact bits (the rule: first NaN operand, dst before src).
void check_against_ref(const Buf& dst0, const Buf& src, const Buf& out, ReduceOp op) {
  for (int64_t i = 0; i < out.n; ++i) {
    const uint64_t want = ref_bits(out.t, op, dst0.bits(i), src.bits(i));
    const uint64_t got = out.bits(i);
    const bool minmax = op == ReduceOp::min || op == ReduceOp::max;
    if (!minmax && is_nan_bits(out.t, want)) {
      CHECK_MESSAGE(is_nan_bits(out.t, got), tname(out.t), " ", oname(op), " i=", i);
    } else if (want != got) {
      FAIL_CHECK(tname(out.t), " ", oname(op), " n=", out.n, " i=", i, " dst=", dst0.bits(i),
                 " src=", src.bits(i), " want=", want, " got=", got);
    }
  }
}

// A byte buffer holding a typed array at a chosen byte offset (for
// misaligned pointers).
struct Raw {
  std::vector<unsigned char> bytes;
  size_t off;
  Raw(const Buf& b, size_t offset) : bytes(b.n * dtype_size(b.t) + 16), off(offset) {
    std::memcpy(bytes.data() + off, b.data(), b.n * dtype_size(b.t));
  }
  void* data() { return bytes.data() + off; }
  Buf to_buf(DType t, int64_t n) const {
    Buf b(t, n);
    std::memcpy(b.data(), bytes.data() + off, n * dtype_size(t));
    return b;
  }
};

// Half value from the IEEE definition (for checking half_to_float).
double half_value(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

}  // namespace

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
