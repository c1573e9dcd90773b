// microddp CPU kernels: implementation of kernels/cpu/kernels.h.
//
// Layout (kernels/cpu):
//  1. checks.h: names and argument checks (every misuse throws
//     std::invalid_argument naming the bad dtype / op / value);
//  2. element_ops.h: branch-free float16 / bfloat16 <-> float32 conversions
//     (software, so they behave the same on every host and GCC can vectorise
//     them), and the element-wise operations, one small struct per ReduceOp;
//  3. this file: the loops, dispatched on (dtype, op) once per call, never
//     per element; the public entry points, then load_double / store_double.
//
// Numeric rules (see the header; tests/kernels/test_kernels.cpp asserts them):
//  - float16 / bfloat16: widen both operands to float32, compute once, round
//    once to nearest even. NaN payloads survive the round trip (the top
//    mantissa bits), with the quiet bit set, as x86 F16C hardware does.
//  - min / max: if dst is NaN the result is dst; else if src is NaN it is
//    src; else the smaller / larger, keeping dst on ties (so min(+0, -0) is
//    whichever of the two was in dst).
//  - int32 / int64 sum and prod wrap through the unsigned type.
//  - avg: reduce() sums (floats: a finite sum that rounds past the largest
//    finite value saturates there, avg_sum); premul_avg multiplies by 1/n computed in float32
//    (float64 for float64); finish_avg truncates toward zero.
//
// Alignment: the header promises that pointers need no particular alignment.
// Element-aligned arrays take the direct vectorised loops. Misaligned ones
// (possible when a caller slices a byte buffer) go through small aligned
// bounce buffers with memcpy, so there is never a misaligned typed access
// (which would be undefined behaviour and trips UBSan).
#include "kernels/cpu/kernels.h"

#include "kernels/cpu/checks.h"
#include "kernels/cpu/element_ops.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace microddp {
namespace {
using namespace kernel_impl;

// ---------------------------------------------------------------------------
// 4. Loops
// ---------------------------------------------------------------------------

template <class Op, class Conv, class S>
void reduce_loop(S* __restrict d, const S* __restrict s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = Conv::narrow(Op::apply(Conv::widen(d[i]), Conv::widen(s[i])));
}

// dst == src: one pointer, so no aliasing question at all.
template <class Op, class Conv, class S>
void reduce_loop_inplace(S* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const auto x = Conv::widen(d[i]);
    d[i] = Conv::narrow(Op::apply(x, x));
  }
}

// Run body(dst_typed, src_typed, count) over the arrays: directly when both
// are aligned for S, else chunk by chunk through aligned stack buffers.
constexpr int64_t kBounce = 1024;  // elements per bounce chunk (8 KiB at most)

template <class S, class Body>
void with_aligned2(void* dst, const void* src, int64_t n, Body body) {
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % alignof(S) == 0 &&
                       reinterpret_cast<uintptr_t>(src) % alignof(S) == 0;
  if (aligned) {
    body(static_cast<S*>(dst), static_cast<const S*>(src), n);
    return;
  }
  alignas(64) S bd[kBounce];
  alignas(64) S bs[kBounce];
  auto* dp = static_cast<unsigned char*>(dst);
  const auto* sp = static_cast<const unsigned char*>(src);
  for (int64_t off = 0; off < n; off += kBounce) {
    const int64_t m = std::min(kBounce, n - off);
    const size_t bytes = static_cast<size_t>(m) * sizeof(S);
    std::memcpy(bd, dp + off * sizeof(S), bytes);
    std::memcpy(bs, sp + off * sizeof(S), bytes);
    body(bd, static_cast<const S*>(bs), m);
    std::memcpy(dp + off * sizeof(S), bd, bytes);
  }
}

template <class S, class Body>
void with_aligned1(void* dst, int64_t n, Body body) {
  if (reinterpret_cast<uintptr_t>(dst) % alignof(S) == 0) {
    body(static_cast<S*>(dst), n);
    return;
  }
  alignas(64) S bd[kBounce];
  auto* dp = static_cast<unsigned char*>(dst);
  for (int64_t off = 0; off < n; off += kBounce) {
    const int64_t m = std::min(kBounce, n - off);
    const size_t bytes = static_cast<size_t>(m) * sizeof(S);
    std::memcpy(bd, dp + off * sizeof(S), bytes);
    body(bd, m);
    std::memcpy(dp + off * sizeof(S), bd, bytes);
  }
}

template <class Conv, class S>
void avg_typed(void* dst, const void* src, int64_t n) {
  if (dst == src) {
    with_aligned1<S>(dst, n, [](S* d, int64_t m) {
      for (int64_t i = 0; i < m; ++i) d[i] = avg_sum<Conv, S>(d[i], d[i]);
    });
  } else {
    with_aligned2<S>(dst, src, n, [](S* __restrict d, const S* __restrict s, int64_t m) {
      for (int64_t i = 0; i < m; ++i) d[i] = avg_sum<Conv, S>(d[i], s[i]);
    });
  }
}

template <class Op, class Conv, class S>
void reduce_typed(void* dst, const void* src, int64_t n) {
  if (dst == src) {
    with_aligned1<S>(dst, n, [](S* d, int64_t m) { reduce_loop_inplace<Op, Conv, S>(d, m); });
  } else {
    with_aligned2<S>(dst, src, n, [](S* d, const S* s, int64_t m) {
      reduce_loop<Op, Conv, S>(d, s, m);
    });
  }
}

template <class Op>
void reduce_op(DType t, void* dst, const void* src, int64_t n) {
  switch (t) {
    case DType::int32: return reduce_typed<Op, Native, int32_t>(dst, src, n);
    case DType::int64: return reduce_typed<Op, Native, int64_t>(dst, src, n);
    case DType::float16: return reduce_typed<Op, Half, uint16_t>(dst, src, n);
    case DType::bfloat16: return reduce_typed<Op, BFloat, uint16_t>(dst, src, n);
    case DType::float32: return reduce_typed<Op, Native, float>(dst, src, n);
    case DType::float64: return reduce_typed<Op, Native, double>(dst, src, n);
  }
}

// premul_avg: dst[i] = narrow(widen(src[i]) * r).
template <class Conv, class S, class C>
void scale_loop(S* __restrict d, const S* __restrict s, int64_t n, C r) {
  for (int64_t i = 0; i < n; ++i) d[i] = Conv::narrow(static_cast<C>(Conv::widen(s[i]) * r));
}
template <class Conv, class S, class C>
void scale_loop_inplace(S* d, int64_t n, C r) {
  for (int64_t i = 0; i < n; ++i) d[i] = Conv::narrow(static_cast<C>(Conv::widen(d[i]) * r));
}
template <class Conv, class S, class C>
void scale_typed(void* dst, const void* src, int64_t n, C r) {
  if (dst == src) {
    with_aligned1<S>(dst, n, [r](S* d, int64_t m) { scale_loop_inplace<Conv, S, C>(d, m, r); });
  } else {
    with_aligned2<S>(dst, src, n, [r](S* d, const S* s, int64_t m) {
      scale_loop<Conv, S, C>(d, s, m, r);
    });
  }
}

// finish_avg for int32: go through double, which GCC vectorises (x86 has no
// SIMD integer division). Exact: write a = q*w + r with |r| < w. If r = 0 the
// quotient is the integer q exactly. Otherwise a/w lies at least 1/w from
// every integer while |a/w| < 2^31/w, i.e. at a relative distance above
// 2^-31, far beyond double's 2^-53 rounding error; so the rounded quotient
// never reaches the next integer, and truncating it gives a / w.
void div_loop_i32(int32_t* d, int64_t n, int w) {
  const double wd = static_cast<double>(w);
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<int32_t>(static_cast<double>(d[i]) / wd);
}
void div_loop_i64(int64_t* d, int64_t n, int w) {
  const int64_t w64 = w;
  for (int64_t i = 0; i < n; ++i) d[i] /= w64;  // truncates; no overflow since w >= 1
}

// ---------------------------------------------------------------------------
// Value formatting for store_double's messages: integers as digits
// ("3000000000"), others as the shortest round-trip form ("1.5", "1e+300").
// ---------------------------------------------------------------------------
std::string format_value(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e21) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// double -> float rounded to odd (truncate, then set the last bit if inexact).
// Rounding that result to half or bfloat16 (both <= 11 significant bits, and
// float has 24 >= 2*11 + 2) equals rounding the double directly: no double
// rounding error at ties.
float to_float_round_odd(double v) {
  float f = static_cast<float>(v);  // nearest even: one of the two neighbours
  if (std::isfinite(v) && static_cast<double>(f) != v && (bits<uint32_t>(f) & 1u) == 0) {
    // f is the even neighbour; the odd one lies on v's side.
    f = std::nextafter(f, static_cast<double>(f) < v ? std::numeric_limits<float>::infinity()
                                                     : -std::numeric_limits<float>::infinity());
  }
  return f;
}

template <class T>
T load_elem(const void* base, int64_t i) {
  T x;
  std::memcpy(&x, static_cast<const unsigned char*>(base) + i * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return x;
}

template <class T>
void store_elem(void* base, int64_t i, T x) {
  std::memcpy(static_cast<unsigned char*>(base) + i * static_cast<int64_t>(sizeof(T)), &x,
              sizeof(T));
}

[[noreturn]] void throw_range(double v, const char* what, DType t) {
  throw std::out_of_range("value " + format_value(v) + " " + what + " " + dtype_label(t));
}

// Integer dtypes: integral and within [lo, hi_exclusive).
template <class I>
I double_to_int(DType t, double v) {
  // -2^(bits-1) and 2^(bits-1) are exact doubles for 32 and 64 bits.
  const double lo = -std::ldexp(1.0, std::numeric_limits<I>::digits);
  const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits);
  if (!std::isfinite(v)) throw_range(v, "does not fit", t);
  if (v != std::trunc(v)) throw_range(v, "is not an integer for", t);
  if (v < lo || v >= hi) throw_range(v, "does not fit", t);
  return static_cast<I>(v);
}

}  // namespace

// ---------------------------------------------------------------------------
// 5. Public API
// ---------------------------------------------------------------------------

size_t dtype_size(DType t) {
  switch (t) {
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::float16: return 2;
    case DType::bfloat16: return 2;
    case DType::float32: return 4;
    case DType::float64: return 8;
  }
  check_dtype("dtype_size", t);
  return 0;  // unreachable
}

bool is_floating(DType t) {
  check_dtype("is_floating", t);
  return t != DType::int32 && t != DType::int64;
}

namespace kernels {

namespace {
// test_corrupt_reduce: calls left before the fault; -1 = unarmed.
std::atomic<int> g_corrupt_skip{-1};

// Flip the lowest bit of element 0 when the armed count reaches zero.
void maybe_corrupt(void* dst) {
  int k = g_corrupt_skip.load(std::memory_order_relaxed);
  while (k >= 0) {
    if (g_corrupt_skip.compare_exchange_weak(k, k - 1, std::memory_order_relaxed)) {
      if (k == 0) *static_cast<unsigned char*>(dst) ^= 1u;  // little-endian: the lowest significand bit
      return;
    }
  }
}
}  // namespace

}  // namespace kernels

// reduce() and reduce_many() count as one call each.
void kernel_impl::after_reduce(DType t, void* dst, int64_t n) {
  if (n > 0 && is_floating(t) && kernels::g_corrupt_skip.load(std::memory_order_relaxed) >= 0)
    kernels::maybe_corrupt(dst);
}

namespace kernels {

static void reduce_impl(DType t, ReduceOp op, void* dst, const void* src, int64_t n);

void test_corrupt_reduce(int skip) { g_corrupt_skip.store(skip < 0 ? -1 : skip, std::memory_order_relaxed); }

void reduce(DType t, ReduceOp op, void* dst, const void* src, int64_t n) {
  reduce_impl(t, op, dst, src, n);
  kernel_impl::after_reduce(t, dst, n);
}

static void reduce_impl(DType t, ReduceOp op, void* dst, const void* src, int64_t n) {
  check_dtype("reduce", t);
  check_op("reduce", op);
  check_count("reduce", n);
  if (n == 0) return;
  check_ptr("reduce", "dst", dst, n);
  check_ptr("reduce", "src", src, n);
  check_no_partial_overlap("reduce", dst, src, n * static_cast<int64_t>(dtype_size(t)));
  switch (op) {
    case ReduceOp::sum: return reduce_op<OpSum>(t, dst, src, n);
    case ReduceOp::avg:  // a sum (see premul_avg / finish_avg); floats saturate (avg_sum)
      switch (t) {
        case DType::float16: return avg_typed<Half, uint16_t>(dst, src, n);
        case DType::bfloat16: return avg_typed<BFloat, uint16_t>(dst, src, n);
        case DType::float32: return avg_typed<NativeOf<float>, float>(dst, src, n);
        case DType::float64: return avg_typed<NativeOf<double>, double>(dst, src, n);
        default: return reduce_op<OpSum>(t, dst, src, n);
      }
    case ReduceOp::prod: return reduce_op<OpProd>(t, dst, src, n);
    case ReduceOp::min: return reduce_op<OpMin>(t, dst, src, n);
    case ReduceOp::max: return reduce_op<OpMax>(t, dst, src, n);
  }
}

void copy(DType t, void* dst, const void* src, int64_t n) {
  check_dtype("copy", t);
  check_count("copy", n);
  if (n == 0) return;
  check_ptr("copy", "dst", dst, n);
  check_ptr("copy", "src", src, n);
  std::memmove(dst, src, static_cast<size_t>(n) * dtype_size(t));
}

void premul_avg(DType t, void* dst, const void* src, int64_t n, int world_size) {
  check_dtype("premul_avg", t);
  if (!is_floating(t)) {
    throw std::invalid_argument("premul_avg: dtype " + dtype_label(t) +
                                " is not floating (integer avg divides after the sum: "
                                "finish_avg)");
  }
  check_world_size("premul_avg", world_size);
  check_count("premul_avg", n);
  if (n == 0) return;
  check_ptr("premul_avg", "dst", dst, n);
  check_ptr("premul_avg", "src", src, n);
  check_no_partial_overlap("premul_avg", dst, src, n * static_cast<int64_t>(dtype_size(t)));
  const float rf = 1.0f / static_cast<float>(world_size);
  switch (t) {
    case DType::float16: return scale_typed<Half, uint16_t, float>(dst, src, n, rf);
    case DType::bfloat16: return scale_typed<BFloat, uint16_t, float>(dst, src, n, rf);
    case DType::float32: return scale_typed<Native, float, float>(dst, src, n, rf);
    case DType::float64:
      return scale_typed<Native, double, double>(dst, src, n,
                                                 1.0 / static_cast<double>(world_size));
    default: return;  // integers rejected above
  }
}

void finish_avg(DType t, void* dst, int64_t n, int world_size) {
  check_dtype("finish_avg", t);
  if (is_floating(t)) {
    throw std::invalid_argument("finish_avg: dtype " + dtype_label(t) +
                                " is floating (floating avg scales before the sum: "
                                "premul_avg)");
  }
  check_world_size("finish_avg", world_size);
  check_count("finish_avg", n);
  if (n == 0 || world_size == 1) return;
  check_ptr("finish_avg", "dst", dst, n);
  if (t == DType::int32) {
    with_aligned1<int32_t>(dst, n, [world_size](int32_t* d, int64_t m) {
      div_loop_i32(d, m, world_size);
    });
  } else {
    with_aligned1<int64_t>(dst, n, [world_size](int64_t* d, int64_t m) {
      div_loop_i64(d, m, world_size);
    });
  }
}

uint16_t float_to_half(float f) { return f2h(f); }
float half_to_float(uint16_t h) { return h2f(h); }
uint16_t float_to_bf16(float f) { return f2bf(f); }
float bf16_to_float(uint16_t b) { return bf2f(b); }

double load_double(DType t, const void* base, int64_t i) {
  check_dtype("load_double", t);
  if (base == nullptr) throw std::invalid_argument("load_double: base is null");
  if (i < 0) {
    throw std::invalid_argument("load_double: index " + std::to_string(i) + " is negative");
  }
  switch (t) {
    case DType::int32: return static_cast<double>(load_elem<int32_t>(base, i));
    case DType::int64: return static_cast<double>(load_elem<int64_t>(base, i));
    case DType::float16: return static_cast<double>(h2f(load_elem<uint16_t>(base, i)));
    case DType::bfloat16: return static_cast<double>(bf2f(load_elem<uint16_t>(base, i)));
    case DType::float32: return static_cast<double>(load_elem<float>(base, i));
    case DType::float64: return load_elem<double>(base, i);
  }
  return 0.0;  // unreachable
}

void store_double(DType t, void* base, int64_t i, double v) {
  check_dtype("store_double", t);
  if (base == nullptr) throw std::invalid_argument("store_double: base is null");
  if (i < 0) {
    throw std::invalid_argument("store_double: index " + std::to_string(i) + " is negative");
  }
  switch (t) {
    case DType::int32: return store_elem(base, i, double_to_int<int32_t>(t, v));
    case DType::int64: return store_elem(base, i, double_to_int<int64_t>(t, v));
    case DType::float16:
    case DType::bfloat16: {
      const float f = to_float_round_odd(v);
      const uint16_t h = t == DType::float16 ? f2h(f) : f2bf(f);
      const bool inf = (h & 0x7fffu) == (t == DType::float16 ? 0x7c00u : 0x7f80u);
      if (inf && std::isfinite(v)) throw_range(v, "overflows", t);
      return store_elem(base, i, h);
    }
    case DType::float32: {
      const float f = static_cast<float>(v);
      if (std::isinf(f) && std::isfinite(v)) throw_range(v, "overflows", t);
      return store_elem(base, i, f);
    }
    case DType::float64: return store_elem(base, i, v);
  }
}

}  // namespace kernels
}  // namespace microddp
