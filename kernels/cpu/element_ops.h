// The element-wise operations of the CPU kernels, one small struct per
// ReduceOp, and the float16 / bfloat16 conversions they widen and round
// through (numeric rules: kernels/cpu/kernels.h and the top of kernels.cpp).
// Internal to kernels/cpu: shared by kernels.cpp and reduce_many.cpp.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace microddp::kernel_impl {

// ---------------------------------------------------------------------------
// 2. float16 / bfloat16 conversions, branch-free (selects only) so that the
//    reduction loops vectorise. Technique after F. Giesen's "half <-> float"
//    notes; every boundary is covered exhaustively by the tests.
// ---------------------------------------------------------------------------

template <class To, class From>
inline To bits(From x) { return std::bit_cast<To>(x); }

// All ones when c, else zero. The conversions below select with masks, not
// "?:", on purpose: GCC turns a "?:" whose arms contain a float operation
// into a branch (the operation might trap, under the default
// -ftrapping-math), and a branch stops the vectoriser.
inline uint32_t mask(bool c) { return 0u - static_cast<uint32_t>(c); }

inline float h2f(uint16_t h) {
  const uint32_t hu = h;
  const uint32_t sign = (hu & 0x8000u) << 16;
  const uint32_t em = (hu & 0x7fffu) << 13;  // exponent and mantissa, float position
  const uint32_t exp = em & 0x0f800000u;     // the half exponent field, shifted
  // Normal: rebias the exponent (15 -> 127).
  const uint32_t normal = em + ((127u - 15u) << 23);
  // Subnormal or zero: m * 2^-24, computed exactly as (2^-14 * (1 + m/1024)) - 2^-14.
  const uint32_t sub =
      bits<uint32_t>(bits<float>(em + (113u << 23)) - bits<float>(113u << 23));
  // Inf / NaN: all-ones exponent, payload kept; a NaN gets the quiet bit.
  const uint32_t mant = em & 0x007fffffu;
  const uint32_t infnan = 0x7f800000u | mant | (mask(mant != 0) & 0x00400000u);
  const uint32_t is_infnan = mask(exp == 0x0f800000u);
  const uint32_t is_sub = mask(exp == 0);
  const uint32_t out = (infnan & is_infnan) | (sub & is_sub) | (normal & ~(is_infnan | is_sub));
  return bits<float>(out | sign);
}

inline uint16_t f2h(float f) {
  const uint32_t x0 = bits<uint32_t>(f);
  const uint32_t sign = (x0 >> 16) & 0x8000u;
  const uint32_t x = x0 & 0x7fffffffu;
  // |f| >= 65536, inf or NaN: inf (0x7c00), or a quiet NaN keeping the top
  // payload bits.
  const uint32_t infnan = 0x7c00u | (mask(x > 0x7f800000u) & (0x0200u | ((x >> 13) & 0x3ffu)));
  // |f| < 2^-14: the result is subnormal or zero. Adding 0.5f puts the half
  // subnormal's unit (2^-24) in the float's last mantissa bit, so the FPU's
  // own round-to-nearest-even does the rounding (up to 0x400, the smallest
  // normal, which is right).
  const uint32_t sub = bits<uint32_t>(bits<float>(x) + 0.5f) - 0x3f000000u;
  // Normal range: rebias (127 -> 15) and round to nearest even on bit 13.
  // 65520 <= |f| < 65536 carries into the exponent and gives 0x7c00 (inf).
  const uint32_t normal = (x - ((127u - 15u) << 23) + 0xfffu + ((x >> 13) & 1u)) >> 13;
  const uint32_t big = mask(x >= 0x47800000u);
  const uint32_t small = mask(x < 0x38800000u);
  const uint32_t out = (infnan & big) | (sub & small) | (normal & ~(big | small));
  return static_cast<uint16_t>(out | sign);
}

inline float bf2f(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  const bool nan = (x & 0x7fffffffu) > 0x7f800000u;
  return bits<float>(nan ? (x | 0x00400000u) : x);
}

inline uint16_t f2bf(float f) {
  const uint32_t x = bits<uint32_t>(f);
  // Round to nearest even on bit 16; overflow carries into inf correctly.
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t nan = (x >> 16) | 0x0040u;
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

// ---------------------------------------------------------------------------
// 3. Element-wise operations. For floats, "a == a" is false only for NaN.
// ---------------------------------------------------------------------------

struct OpSum {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));  // wraps, C++20 defined
    } else {
      return a + b;
    }
  }
};

// avg's sum. Every contribution was scaled by 1/n first, so every exact
// partial sum of finite inputs is at most the largest finite value; only
// rounding (half an ulp per hop, in the dtype) can push one past it. The
// mean of finite values always fits, so such a rounding overflow saturates at
// the largest finite value instead of becoming an infinity. Infinite or NaN
// operands stay what IEEE makes them. The check runs on the rounded result
// (Conv::narrow), which is where float16 / bfloat16 overflow.
template <class Conv, class S>
S avg_sum(S da, S sb) {
  const auto a = Conv::widen(da);
  const auto b = Conv::widen(sb);
  using C = decltype(a);
  const S r = Conv::narrow(static_cast<C>(a + b));
  const C w = Conv::widen(r);
  const bool overflowed = std::isinf(w) & std::isfinite(a) & std::isfinite(b);
  if (!overflowed) return r;
  const S big = Conv::narrow(static_cast<C>(Conv::max_finite()));
  const S neg = Conv::narrow(static_cast<C>(-Conv::max_finite()));
  return w > 0 ? big : neg;
}

struct OpProd {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};

struct OpMin {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      // Take src when dst is not NaN and src is not >= dst (src smaller, or
      // NaN). "&", not "&&": both compares always run, so there is no branch.
      const bool take = (a == a) & !(b >= a);
      return take ? b : a;
    } else {
      return b < a ? b : a;
    }
  }
};

struct OpMax {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      const bool take = (a == a) & !(b <= a);
      return take ? b : a;
    } else {
      return b > a ? b : a;
    }
  }
};

// Storage type S, compute type C. For half / bfloat16 these widen, apply and
// round once; for the others they are the identity.
struct Native {
  template <class T> static T widen(T x) { return x; }
  template <class T> static T narrow(T x) { return x; }
};
template <class T>
struct NativeOf : Native {
  static T max_finite() { return std::numeric_limits<T>::max(); }
};
struct Half {
  static float widen(uint16_t x) { return h2f(x); }
  static uint16_t narrow(float x) { return f2h(x); }
  static float max_finite() { return 65504.0f; }
};
struct BFloat {
  static float widen(uint16_t x) { return bf2f(x); }
  static uint16_t narrow(float x) { return f2bf(x); }
  static float max_finite() { return 3.3895313892515355e38f; }  // 0x7F7F
};

}  // namespace microddp::kernel_impl
