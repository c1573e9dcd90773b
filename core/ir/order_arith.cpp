// Implementation of core/ir/order_arith.h. Plain branching scalar code, with
// the rounding written as integer arithmetic on the significand (IEEE 754-2019
// section 4.3.1, roundTiesToEven), independently of kernels/cpu's branch-free
// vectorisable conversions.
#include "core/ir/order_arith.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace microddp::order {
namespace {

// v / 2^s rounded to nearest, ties to even (s >= 0).
uint32_t shift_round_even(uint32_t v, int s) {
  if (s == 0) return v;
  if (s > 31) return 0;
  const uint32_t q = v >> s;
  const uint32_t rem = v & ((1u << s) - 1u);
  const uint32_t half = 1u << (s - 1);
  return (rem > half || (rem == half && (q & 1u))) ? q + 1 : q;
}

float f32(uint64_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b)); }
double f64(uint64_t b) { return std::bit_cast<double>(b); }
uint64_t bits32(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits64(double d) { return std::bit_cast<uint64_t>(d); }

// Widen a 16-bit float to float32, narrow float32 back.
float widen(DType t, uint64_t b) {
  return t == DType::float16 ? half_to_float(static_cast<uint16_t>(b)) : bf16_to_float(static_cast<uint16_t>(b));
}
uint64_t narrow(DType t, float f) { return t == DType::float16 ? float_to_half(f) : float_to_bf16(f); }

float max_finite32(DType t) {
  switch (t) {
    case DType::float16: return 65504.0f;
    case DType::bfloat16: return std::bit_cast<float>(0x7F7F0000u);
    default: return std::numeric_limits<float>::max();
  }
}

template <class C>
C apply(ReduceOp op, C a, C b) {
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

template <class U>
U apply_int(ReduceOp op, U a, U b) {
  using S = std::make_signed_t<U>;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return static_cast<U>(a + b);
    case ReduceOp::prod: return static_cast<U>(a * b);
    case ReduceOp::min: return static_cast<S>(b) < static_cast<S>(a) ? b : a;
    case ReduceOp::max: return static_cast<S>(b) > static_cast<S>(a) ? b : a;
  }
  return a;
}

}  // namespace

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  if (e == 0x1f) {
    if (m == 0) return std::bit_cast<float>(sign | 0x7f800000u);
    return std::bit_cast<float>(sign | 0x7f800000u | 0x00400000u | (m << 13));
  }
  if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e - 15 + 127) << 23) | (m << 13));
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u | ((ax >> 13) & 0x1ffu);  // NaN: quiet, top payload bits
  if (ax == 0x7f800000u) return sign | 0x7c00u;
  const int e = static_cast<int>(ax >> 23) - 127;  // -127 for float zero / subnormals
  const uint32_t sig = e == -127 ? (ax & 0x7fffffu) : ((ax & 0x7fffffu) | 0x800000u);  // 24 bits
  const int ee = e == -127 ? -126 : e;  // value = sig * 2^(ee - 23)
  if (ee >= -14) {  // half normal range: keep 11 of the 24 bits
    const uint32_t q = shift_round_even(sig, 13);  // in [0x400, 0x800]
    const uint32_t h = (static_cast<uint32_t>(ee + 15) << 10) + q - 0x400u;
    return h >= 0x7c00u ? (sign | 0x7c00u) : static_cast<uint16_t>(sign | h);
  }
  // Subnormal half: units of 2^-24; value / 2^-24 = sig * 2^(ee + 1).
  return static_cast<uint16_t>(sign | shift_round_even(sig, -(ee + 1)));
}

float bf16_to_float(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x007fffffu) != 0) x |= 0x00400000u;
  return std::bit_cast<float>(x);
}

uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  // The magnitude rounds on bit 16; a carry runs into the exponent (and to
  // infinity past the largest finite value), never into the sign.
  const uint32_t mag = shift_round_even(x & 0x7fffffffu, 16);
  return static_cast<uint16_t>(((x >> 16) & 0x8000u) | mag);
}

uint64_t load(DType t, const std::byte* base, int64_t i) {
  const size_t es = dtype_size(t);
  uint64_t v = 0;
  std::memcpy(&v, base + i * static_cast<int64_t>(es), es);  // little-endian host
  return v;
}

void store(DType t, std::byte* base, int64_t i, uint64_t bits) {
  const size_t es = dtype_size(t);
  std::memcpy(base + i * static_cast<int64_t>(es), &bits, es);
}

uint64_t combine(DType t, ReduceOp op, uint64_t dst, uint64_t src) {
  switch (t) {
    case DType::int32: return apply_int<uint32_t>(op, static_cast<uint32_t>(dst), static_cast<uint32_t>(src));
    case DType::int64: return apply_int<uint64_t>(op, dst, src);
    case DType::float64: {
      const double a = f64(dst), b = f64(src), r = apply(op, a, b);
      if (op == ReduceOp::avg && std::isinf(r) && std::isfinite(a) && std::isfinite(b))
        return bits64(std::copysign(std::numeric_limits<double>::max(), r));
      return bits64(r);
    }
    case DType::float32: {
      const float a = f32(dst), b = f32(src), r = apply(op, a, b);
      if (op == ReduceOp::avg && std::isinf(r) && std::isfinite(a) && std::isfinite(b))
        return bits32(std::copysign(max_finite32(t), r));
      return bits32(r);
    }
    case DType::float16:
    case DType::bfloat16: {
      const float a = widen(t, dst), b = widen(t, src);
      const uint64_t r = narrow(t, apply(op, a, b));
      if (op == ReduceOp::avg && std::isinf(widen(t, r)) && std::isfinite(a) && std::isfinite(b))
        return narrow(t, std::copysign(max_finite32(t), widen(t, r)));
      return r;
    }
  }
  return dst;
}

uint64_t premul(DType t, uint64_t x, int n) {
  switch (t) {
    case DType::float64: return bits64(f64(x) * (1.0 / static_cast<double>(n)));
    case DType::float32: return bits32(f32(x) * (1.0f / static_cast<float>(n)));
    case DType::float16:
    case DType::bfloat16: return narrow(t, widen(t, x) * (1.0f / static_cast<float>(n)));
    default: return x;
  }
}

uint64_t finish_avg(DType t, uint64_t x, int n) {
  if (t == DType::int32) {
    const auto v = static_cast<int32_t>(static_cast<uint32_t>(x));
    return static_cast<uint32_t>(static_cast<int32_t>(v / n));
  }
  if (t == DType::int64) return static_cast<uint64_t>(static_cast<int64_t>(x) / n);
  return x;
}

double value(DType t, uint64_t b) {
  switch (t) {
    case DType::int32: return static_cast<int32_t>(static_cast<uint32_t>(b));
    case DType::int64: return static_cast<double>(static_cast<int64_t>(b));
    case DType::float16:
    case DType::bfloat16: return widen(t, b);
    case DType::float32: return f32(b);
    case DType::float64: return f64(b);
  }
  return 0;
}

bool is_nan(DType t, uint64_t b) { return is_floating(t) && std::isnan(value(t, b)); }

bool same(DType t, uint64_t a, uint64_t b) { return a == b || (is_nan(t, a) && is_nan(t, b)); }

std::string format(DType t, uint64_t b) {
  if (t == DType::int64) return std::to_string(static_cast<int64_t>(b));
  const double v = value(t, b);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (t == DType::float32) return fmt::format("{}", static_cast<float>(v));
  if (t != DType::float16 && t != DType::bfloat16) return fmt::format("{}", v);
  // The fewest significant digits that read back as the same 16-bit value,
  // unless the exact value is about as short (65504, not 65500).
  const std::string exact = fmt::format("{}", v);
  for (int p = 1; p < 9; ++p) {
    const double d = std::strtod(fmt::format("{:.{}g}", v, p).c_str(), nullptr);
    if (narrow(t, static_cast<float>(d)) != b) continue;
    const std::string shortest = fmt::format("{}", d);
    return exact.size() <= shortest.size() + 2 ? exact : shortest;
  }
  return exact;
}

}  // namespace microddp::order
