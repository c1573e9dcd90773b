// Implementation of kernels/cuda/kernels.h. The element operations are the
// CPU kernels' (kernels/cpu/kernels.cpp) written as __device__ functions with
// the same bit manipulations, so both sides round and propagate NaN alike.
// Compiled without --use_fast_math: no flush-to-zero, IEEE division, and
// each element does one add / mul / compare, so no FMA contraction applies.
#include <cuda_runtime.h>

#include <stdexcept>
#include <type_traits>
#include <string>

#include "kernels/cuda/kernels.h"

namespace microddp::cuda_kernels {
namespace {

// ---- float16 / bfloat16 conversions (same formulas as kernels/cpu) ----
__device__ __forceinline__ uint32_t fbits(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float ffrom(uint32_t u) { return __uint_as_float(u); }

__device__ __forceinline__ float h2f(uint16_t h) {
  const uint32_t hu = h;
  const uint32_t sign = (hu & 0x8000u) << 16;
  const uint32_t em = (hu & 0x7fffu) << 13;
  const uint32_t exp = em & 0x0f800000u;
  const uint32_t mant = em & 0x007fffffu;
  uint32_t out;
  if (exp == 0x0f800000u) out = 0x7f800000u | mant | (mant ? 0x00400000u : 0u);  // inf / quiet NaN
  else if (exp == 0) out = fbits(__fsub_rn(ffrom(em + (113u << 23)), ffrom(113u << 23)));  // subnormal / 0
  else out = em + ((127u - 15u) << 23);
  return ffrom(out | sign);
}

__device__ __forceinline__ uint16_t f2h(float f) {
  const uint32_t x0 = fbits(f);
  const uint32_t sign = (x0 >> 16) & 0x8000u;
  const uint32_t x = x0 & 0x7fffffffu;
  uint32_t out;
  if (x >= 0x47800000u) out = 0x7c00u | (x > 0x7f800000u ? (0x0200u | ((x >> 13) & 0x3ffu)) : 0u);
  else if (x < 0x38800000u) out = fbits(__fadd_rn(ffrom(x), 0.5f)) - 0x3f000000u;
  else out = (x - ((127u - 15u) << 23) + 0xfffu + ((x >> 13) & 1u)) >> 13;
  return static_cast<uint16_t>(out | sign);
}

__device__ __forceinline__ float bf2f(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  return ffrom((x & 0x7fffffffu) > 0x7f800000u ? (x | 0x00400000u) : x);
}

__device__ __forceinline__ uint16_t f2bf(float f) {
  const uint32_t x = fbits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// ---- element operations (kernels/cpu's OpSum / OpProd / OpMin / OpMax) ----
template <class T> struct Unsigned { using type = T; };
template <> struct Unsigned<int32_t> { using type = uint32_t; };
template <> struct Unsigned<int64_t> { using type = uint64_t; };

struct OpSum {
  template <class T> __device__ static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = typename Unsigned<T>::type;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else if constexpr (sizeof(T) == 4) {
      return __fadd_rn(a, b);
    } else {
      return __dadd_rn(a, b);
    }
  }
};
struct OpProd {
  template <class T> __device__ static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = typename Unsigned<T>::type;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else if constexpr (sizeof(T) == 4) {
      return __fmul_rn(a, b);
    } else {
      return __dmul_rn(a, b);
    }
  }
};
struct OpMin {
  template <class T> __device__ static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return b < a ? b : a;
    else return ((a == a) && !(b >= a)) ? b : a;
  }
};
struct OpMax {
  template <class T> __device__ static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return b > a ? b : a;
    else return ((a == a) && !(b <= a)) ? b : a;
  }
};

struct Native {
  template <class T> __device__ static T widen(T x) { return x; }
  template <class T> __device__ static T narrow(T x) { return x; }
};
template <class T> struct NativeOf : Native {
  __device__ static T max_finite() { return sizeof(T) == 4 ? static_cast<T>(3.4028234663852886e38) : static_cast<T>(1.7976931348623157e308); }
};
struct Half {
  __device__ static float widen(uint16_t x) { return h2f(x); }
  __device__ static uint16_t narrow(float x) { return f2h(x); }
  __device__ static float max_finite() { return 65504.0f; }
};
struct BFloat {
  __device__ static float widen(uint16_t x) { return bf2f(x); }
  __device__ static uint16_t narrow(float x) { return f2bf(x); }
  __device__ static float max_finite() { return 3.3895313892515355e38f; }
};

// A 16-byte vector of S.
template <class S> union Vec {
  uint4 v;
  S e[16 / sizeof(S)];
};

constexpr int kThreads = 256;

// Element-wise transform, grid-stride; `f(i, d, s)` returns the new d.
// When `vec`, both arrays are 16-byte aligned: the first n / V * V elements
// go by 16-byte loads and stores, the tail element by element.
template <class S, class F>
__device__ __forceinline__ void for_each(S* d, const S* s, int64_t n, bool vec, F f) {
  constexpr int V = 16 / sizeof(S);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t done = 0;
  if (vec) {
    const int64_t nv = n / V;
    for (int64_t i = tid; i < nv; i += stride) {
      Vec<S> a, b;
      a.v = reinterpret_cast<const uint4*>(d)[i];
      b.v = reinterpret_cast<const uint4*>(s)[i];
#pragma unroll
      for (int k = 0; k < V; ++k) a.e[k] = f(a.e[k], b.e[k]);
      reinterpret_cast<uint4*>(d)[i] = a.v;
    }
    done = nv * V;
  }
  for (int64_t i = done + tid; i < n; i += stride) d[i] = f(d[i], s[i]);
}

template <class Op, class Conv, class S>
__global__ void reduce_kernel(S* d, const S* s, int64_t n, bool vec) {
  for_each(d, s, n, vec, [](S a, S b) { return Conv::narrow(Op::apply(Conv::widen(a), Conv::widen(b))); });
}

// avg's sum, as kernels/cpu (avg_sum): a finite + finite that rounds past
// the largest finite value saturates there, since the mean always fits.
template <class Conv, class S>
__global__ void avg_kernel(S* d, const S* s, int64_t n, bool vec) {
  for_each(d, s, n, vec, [](S x, S y) {
    const auto a = Conv::widen(x), b = Conv::widen(y);
    using C = decltype(a);
    const S r = Conv::narrow(OpSum::apply(a, b));
    const C w = Conv::widen(r);
    if (!(isinf(w) && isfinite(a) && isfinite(b))) return r;
    return Conv::narrow(static_cast<C>(w > 0 ? Conv::max_finite() : -Conv::max_finite()));
  });
}

template <class Conv, class S, class C>
__global__ void scale_kernel(S* d, const S* s, int64_t n, bool vec, C r) {
  // for_each reads d too; scale ignores it (d == s is allowed).
  for_each(d, s, n, vec, [r](S, S b) { return Conv::narrow(static_cast<C>(Conv::widen(b) * r)); });
}

template <class I>
__global__ void div_kernel(I* d, int64_t n, bool vec, I w) {
  for_each(d, static_cast<const I*>(d), n, vec, [w](I a, I) { return static_cast<I>(a / w); });
}

__global__ void copy_kernel(uint4* d, const uint4* s, int64_t nv) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nv; i += stride) d[i] = s[i];
}
template <class S>
__global__ void copy_scalar_kernel(S* d, const S* s, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) d[i] = s[i];
}

// ---- host side: checks and launch ----
unsigned grid_for(int64_t work) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 16384 ? 16384 : blocks));
}

void check_launch(const char* fn) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(fn) + ": kernel launch failed: " + cudaGetErrorString(e));
}

void check_args(const char* fn, DType t, void* dst, const void* src, int64_t n) {
  if (static_cast<unsigned>(t) > static_cast<unsigned>(DType::float64))
    throw std::invalid_argument(std::string(fn) + ": invalid dtype value " + std::to_string(static_cast<unsigned>(t)));
  if (n < 0) throw std::invalid_argument(std::string(fn) + ": element count " + std::to_string(n) + " is negative");
  if (n == 0) return;
  if (!dst || !src) throw std::invalid_argument(std::string(fn) + ": null pointer with " + std::to_string(n) + " elements");
  const size_t es = dtype_size(t);
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (d % es || s % es)
    throw std::invalid_argument(std::string(fn) + ": device pointer not aligned to the element size " + std::to_string(es));
  const auto b = static_cast<uintptr_t>(n) * es;
  if (d != s && d < s + b && s < d + b)
    throw std::invalid_argument(std::string(fn) + ": dst and src overlap without being the same array");
}

bool aligned16(const void* a, const void* b) {
  return (reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) % 16 == 0;
}

template <class Op, class Conv, class S>
void launch_reduce(void* dst, const void* src, int64_t n, cudaStream_t st) {
  const bool vec = aligned16(dst, src);
  reduce_kernel<Op, Conv, S><<<grid_for(vec ? n / (16 / sizeof(S)) + 1 : n), kThreads, 0, st>>>(
      static_cast<S*>(dst), static_cast<const S*>(src), n, vec);
}

template <class Op>
void reduce_dtype(DType t, void* dst, const void* src, int64_t n, cudaStream_t st) {
  switch (t) {
    case DType::int32: return launch_reduce<Op, Native, int32_t>(dst, src, n, st);
    case DType::int64: return launch_reduce<Op, Native, int64_t>(dst, src, n, st);
    case DType::float16: return launch_reduce<Op, Half, uint16_t>(dst, src, n, st);
    case DType::bfloat16: return launch_reduce<Op, BFloat, uint16_t>(dst, src, n, st);
    case DType::float32: return launch_reduce<Op, Native, float>(dst, src, n, st);
    case DType::float64: return launch_reduce<Op, Native, double>(dst, src, n, st);
  }
}

template <class Conv, class S, class C>
void launch_scale(void* dst, const void* src, int64_t n, C r, cudaStream_t st) {
  const bool vec = aligned16(dst, src);
  scale_kernel<Conv, S, C><<<grid_for(vec ? n / (16 / sizeof(S)) + 1 : n), kThreads, 0, st>>>(
      static_cast<S*>(dst), static_cast<const S*>(src), n, vec, r);
}

}  // namespace

void reduce(DType t, ReduceOp op, void* dst, const void* src, int64_t n, cudaStream_t stream) {
  check_args("cuda reduce", t, dst, src, n);
  if (static_cast<unsigned>(op) > static_cast<unsigned>(ReduceOp::avg))
    throw std::invalid_argument("cuda reduce: invalid reduce op value " + std::to_string(static_cast<unsigned>(op)));
  if (n == 0) return;
  switch (op) {
    case ReduceOp::sum: reduce_dtype<OpSum>(t, dst, src, n, stream); break;
    case ReduceOp::avg: {
      const bool vec = aligned16(dst, src);
      auto go = [&](auto conv, auto* p) {
        using Conv = decltype(conv);
        using S = std::remove_pointer_t<decltype(p)>;
        avg_kernel<Conv, S><<<grid_for(vec ? n / (16 / sizeof(S)) + 1 : n), kThreads, 0, stream>>>(
            static_cast<S*>(dst), static_cast<const S*>(src), n, vec);
      };
      switch (t) {
        case DType::float16: go(Half{}, static_cast<uint16_t*>(nullptr)); break;
        case DType::bfloat16: go(BFloat{}, static_cast<uint16_t*>(nullptr)); break;
        case DType::float32: go(NativeOf<float>{}, static_cast<float*>(nullptr)); break;
        case DType::float64: go(NativeOf<double>{}, static_cast<double*>(nullptr)); break;
        default: reduce_dtype<OpSum>(t, dst, src, n, stream); break;  // integers: sum, then finish_avg
      }
      break;
    }
    case ReduceOp::prod: reduce_dtype<OpProd>(t, dst, src, n, stream); break;
    case ReduceOp::min: reduce_dtype<OpMin>(t, dst, src, n, stream); break;
    case ReduceOp::max: reduce_dtype<OpMax>(t, dst, src, n, stream); break;
  }
  check_launch("cuda reduce");
}

void copy(DType t, void* dst, const void* src, int64_t n, cudaStream_t stream) {
  check_args("cuda copy", t, dst, src, n);
  if (n == 0 || dst == src) return;
  const int64_t bytes = n * static_cast<int64_t>(dtype_size(t));
  if (aligned16(dst, src)) {
    const int64_t nv = bytes / 16;
    if (nv > 0) copy_kernel<<<grid_for(nv), kThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), nv);
    const int64_t tail = bytes - nv * 16;  // < 16 bytes: copy them as bytes
    if (tail > 0)
      copy_scalar_kernel<uint8_t><<<1, 32, 0, stream>>>(static_cast<uint8_t*>(dst) + nv * 16,
                                                      static_cast<const uint8_t*>(src) + nv * 16, tail);
  } else {
    switch (dtype_size(t)) {
      case 2: copy_scalar_kernel<uint16_t><<<grid_for(n), kThreads, 0, stream>>>(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), n); break;
      case 4: copy_scalar_kernel<uint32_t><<<grid_for(n), kThreads, 0, stream>>>(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), n); break;
      default: copy_scalar_kernel<uint64_t><<<grid_for(n), kThreads, 0, stream>>>(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), n); break;
    }
  }
  check_launch("cuda copy");
}

void premul_avg(DType t, void* dst, const void* src, int64_t n, int world_size, cudaStream_t stream) {
  check_args("cuda premul_avg", t, dst, src, n);
  if (!is_floating(t))
    throw std::invalid_argument("cuda premul_avg: dtype is an integer type (integers use finish_avg)");
  if (world_size < 1)
    throw std::invalid_argument("cuda premul_avg: world_size " + std::to_string(world_size) + " must be at least 1");
  if (n == 0) return;
  const float rf = 1.0f / static_cast<float>(world_size);
  switch (t) {
    case DType::float16: launch_scale<Half, uint16_t, float>(dst, src, n, rf, stream); break;
    case DType::bfloat16: launch_scale<BFloat, uint16_t, float>(dst, src, n, rf, stream); break;
    case DType::float32: launch_scale<Native, float, float>(dst, src, n, rf, stream); break;
    default: launch_scale<Native, double, double>(dst, src, n, 1.0 / static_cast<double>(world_size), stream); break;
  }
  check_launch("cuda premul_avg");
}

void finish_avg(DType t, void* dst, int64_t n, int world_size, cudaStream_t stream) {
  check_args("cuda finish_avg", t, dst, dst, n);
  if (is_floating(t))
    throw std::invalid_argument("cuda finish_avg: dtype is a floating type (floats use premul_avg)");
  if (world_size < 1)
    throw std::invalid_argument("cuda finish_avg: world_size " + std::to_string(world_size) + " must be at least 1");
  if (n == 0) return;
  const bool vec = aligned16(dst, dst);
  if (t == DType::int32)
    div_kernel<int32_t><<<grid_for(n), kThreads, 0, stream>>>(static_cast<int32_t*>(dst), n, vec, world_size);
  else
    div_kernel<int64_t><<<grid_for(n), kThreads, 0, stream>>>(static_cast<int64_t*>(dst), n, vec, world_size);
  check_launch("cuda finish_avg");
}

}  // namespace microddp::cuda_kernels
