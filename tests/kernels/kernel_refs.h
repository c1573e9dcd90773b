// Shared by the CPU kernels' tests (test_kernels.cpp, test_kernels_reduce.cpp):
// the dtype / op / length lists, typed buffers (Buf, Raw), and a scalar
// reference for reduce written apart from the kernels.
#pragma once
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

namespace microddp::kernels_test {

namespace k = microddp::kernels;

const DType kTypes[] = {DType::int32,    DType::int64,   DType::float16,
                        DType::bfloat16, DType::float32, DType::float64};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                         ReduceOp::avg};
const int64_t kLengths[] = {1, 7, 33, 1000};

inline const char* tname(DType t) {
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
inline const char* oname(ReduceOp op) {
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

inline bool is_nan_bits(DType t, uint64_t b) {
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

inline uint64_t ref_bits(DType t, ReduceOp op, uint64_t a, uint64_t b) {
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
inline void fill_random(Buf& b, std::mt19937_64& rng) {
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
inline void check_against_ref(const Buf& dst0, const Buf& src, const Buf& out, ReduceOp op) {
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
inline double half_value(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

}  // namespace microddp::kernels_test
