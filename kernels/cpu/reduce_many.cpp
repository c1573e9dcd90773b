// kernels::reduce_many (kernels/cpu/kernels.h): the fold of k sources in
// one pass over memory, as one-shot all-reduce runs it (every rank reads all
// its peers' inputs and reduces them at once: core/algorithms/direct.cpp).
//
// Each hop is the same element operation as reduce() (element_ops.h: widen,
// apply, round once to the dtype; avg saturates), applied in the same order
// (((s0 ⊕ s1) ⊕ s2) ⊕ ...), so the bits equal those of a copy followed by
// k-1 reduce() calls. The difference is the memory traffic: those calls
// read and write dst k-1 times over; here every source element is read once
// and every dst element written once.
//  - k = 2, 3, 4 (world sizes 2..4 of one-shot): one loop over the elements,
//    the whole fold of element i in registers.
//  - k > 4: blocks of kBlock elements; per block, the first four sources in
//    one loop into dst, then the rest three at a time onto dst's block,
//    which is still in L1 (kBlock elements of 8 bytes: 16 KiB).
//  - a pointer that is not element-aligned: blocks through aligned stack
//    buffers with memcpy, one source at a time (no misaligned typed access).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/cpu/checks.h"
#include "kernels/cpu/element_ops.h"
#include "kernels/cpu/kernels.h"

namespace microddp {
namespace kernels {
namespace {
using namespace kernel_impl;

constexpr int64_t kBlock = 2048;

// One hop of the fold: a ⊕ b rounded to the storage type S.
template <class Op, class Conv>
struct Hop {
  template <class S>
  static S f(S a, S b) {
    return Conv::narrow(Op::apply(Conv::widen(a), Conv::widen(b)));
  }
};
template <class Conv>
struct AvgHop {
  template <class S>
  static S f(S a, S b) {
    return avg_sum<Conv, S>(a, b);
  }
};

// d[i] = fold of the sources, first operand a (or d itself: the *_acc forms,
// where dst is the first source).
template <class H, class S>
void fold2(S* __restrict d, const S* __restrict a, const S* __restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(a[i], b[i]);
}
template <class H, class S>
void fold3(S* __restrict d, const S* __restrict a, const S* __restrict b, const S* __restrict c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(H::f(a[i], b[i]), c[i]);
}
template <class H, class S>
void fold4(S* __restrict d, const S* __restrict a, const S* __restrict b, const S* __restrict c,
           const S* __restrict e, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(H::f(H::f(a[i], b[i]), c[i]), e[i]);
}
template <class H, class S>
void fold2_acc(S* __restrict d, const S* __restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(d[i], b[i]);
}
template <class H, class S>
void fold3_acc(S* __restrict d, const S* __restrict b, const S* __restrict c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(H::f(d[i], b[i]), c[i]);
}
template <class H, class S>
void fold4_acc(S* __restrict d, const S* __restrict b, const S* __restrict c, const S* __restrict e, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = H::f(H::f(H::f(d[i], b[i]), c[i]), e[i]);
}

// Source j of the fold, typed.
template <class S>
const S* src_at(const void* const* s, int j) {
  return static_cast<const S*>(s[j]);
}

// Sources s[from..k) onto d, which already holds the fold of what came
// before: three at a time.
template <class H, class S>
void fold_rest(S* d, const void* const* s, int from, int k, int64_t off, int64_t n) {
  int j = from;
  for (; j + 3 <= k; j += 3)
    fold4_acc<H>(d, src_at<S>(s, j) + off, src_at<S>(s, j + 1) + off, src_at<S>(s, j + 2) + off, n);
  if (k - j == 2) fold3_acc<H>(d, src_at<S>(s, j) + off, src_at<S>(s, j + 1) + off, n);
  if (k - j == 1) fold2_acc<H>(d, src_at<S>(s, j) + off, n);
}

// All pointers element-aligned; acc: d == s[0].
template <class H, class S>
void fold_aligned(S* d, const void* const* s, int k, bool acc, int64_t n) {
  const auto at = [s](int j, int64_t off) { return src_at<S>(s, j) + off; };
  if (k <= 4) {
    if (acc) return fold_rest<H>(d, s, 1, k, 0, n);
    if (k == 2) return fold2<H>(d, at(0, 0), at(1, 0), n);
    if (k == 3) return fold3<H>(d, at(0, 0), at(1, 0), at(2, 0), n);
    return fold4<H>(d, at(0, 0), at(1, 0), at(2, 0), at(3, 0), n);
  }
  for (int64_t off = 0; off < n; off += kBlock) {
    const int64_t m = std::min(kBlock, n - off);
    if (acc) fold_rest<H>(d + off, s, 1, 4, off, m);
    else fold4<H>(d + off, at(0, off), at(1, off), at(2, off), at(3, off), m);
    fold_rest<H>(d + off, s, 4, k, off, m);
  }
}

// Some pointer misaligned: per block of kBounce elements, the first operand
// into an aligned buffer, then each further source through a second one.
template <class H, class S>
void fold_bounced(void* dst, const void* const* src, int k, int64_t n) {
  constexpr int64_t kBounce = 512;
  alignas(64) S bd[kBounce];
  alignas(64) S bs[kBounce];
  auto* dp = static_cast<unsigned char*>(dst);
  for (int64_t off = 0; off < n; off += kBounce) {
    const int64_t m = std::min(kBounce, n - off);
    const size_t bytes = static_cast<size_t>(m) * sizeof(S), at = static_cast<size_t>(off) * sizeof(S);
    std::memcpy(bd, static_cast<const unsigned char*>(src[0]) + at, bytes);
    for (int j = 1; j < k; ++j) {
      std::memcpy(bs, static_cast<const unsigned char*>(src[j]) + at, bytes);
      fold2_acc<H>(bd, static_cast<const S*>(bs), m);
    }
    std::memcpy(dp + at, bd, bytes);
  }
}

template <class H, class S>
void fold_typed(void* dst, const void* const* src, int k, int64_t n) {
  bool aligned = reinterpret_cast<uintptr_t>(dst) % alignof(S) == 0;
  for (int j = 0; j < k; ++j) aligned = aligned && reinterpret_cast<uintptr_t>(src[j]) % alignof(S) == 0;
  if (!aligned) return fold_bounced<H, S>(dst, src, k, n);
  fold_aligned<H>(static_cast<S*>(dst), src, k, dst == src[0], n);
}

template <class Op>
void fold_op(DType t, void* dst, const void* const* src, int k, int64_t n) {
  switch (t) {
    case DType::int32: return fold_typed<Hop<Op, Native>, int32_t>(dst, src, k, n);
    case DType::int64: return fold_typed<Hop<Op, Native>, int64_t>(dst, src, k, n);
    case DType::float16: return fold_typed<Hop<Op, Half>, uint16_t>(dst, src, k, n);
    case DType::bfloat16: return fold_typed<Hop<Op, BFloat>, uint16_t>(dst, src, k, n);
    case DType::float32: return fold_typed<Hop<Op, Native>, float>(dst, src, k, n);
    case DType::float64: return fold_typed<Hop<Op, Native>, double>(dst, src, k, n);
  }
}

}  // namespace

static void reduce_many_impl(DType t, ReduceOp op, void* dst, const void* const* srcs, int k, int64_t n) {
  check_dtype("reduce_many", t);
  check_op("reduce_many", op);
  if (k < 1 || k > kReduceManyMax)
    throw std::invalid_argument("reduce_many: source count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kReduceManyMax) + "]");
  check_count("reduce_many", n);
  if (n == 0) return;
  check_ptr("reduce_many", "dst", dst, n);
  if (srcs == nullptr) throw std::invalid_argument("reduce_many: srcs is null");
  const int64_t bytes = n * static_cast<int64_t>(dtype_size(t));
  for (int j = 0; j < k; ++j) {
    const std::string what = "srcs[" + std::to_string(j) + "]";
    check_ptr("reduce_many", what.c_str(), srcs[j], n);
    if (j == 0) {
      check_no_partial_overlap("reduce_many", dst, srcs[0], bytes);
    } else if (dst == srcs[j]) {
      throw std::invalid_argument("reduce_many: dst is " + what + "; only srcs[0] may be dst");
    } else {
      check_no_partial_overlap("reduce_many", dst, srcs[j], bytes);
    }
  }
  if (k == 1) {
    if (dst != srcs[0]) std::memcpy(dst, srcs[0], static_cast<size_t>(bytes));
    return;
  }
  switch (op) {
    case ReduceOp::sum: return fold_op<OpSum>(t, dst, srcs, k, n);
    case ReduceOp::avg:  // a sum; floats saturate (avg_sum), as reduce()
      switch (t) {
        case DType::float16: return fold_typed<AvgHop<Half>, uint16_t>(dst, srcs, k, n);
        case DType::bfloat16: return fold_typed<AvgHop<BFloat>, uint16_t>(dst, srcs, k, n);
        case DType::float32: return fold_typed<AvgHop<NativeOf<float>>, float>(dst, srcs, k, n);
        case DType::float64: return fold_typed<AvgHop<NativeOf<double>>, double>(dst, srcs, k, n);
        default: return fold_op<OpSum>(t, dst, srcs, k, n);
      }
    case ReduceOp::prod: return fold_op<OpProd>(t, dst, srcs, k, n);
    case ReduceOp::min: return fold_op<OpMin>(t, dst, srcs, k, n);
    case ReduceOp::max: return fold_op<OpMax>(t, dst, srcs, k, n);
  }
}

void reduce_many(DType t, ReduceOp op, void* dst, const void* const* srcs, int k, int64_t n) {
  reduce_many_impl(t, op, dst, srcs, k, n);
  if (k > 1) after_reduce(t, dst, n);
}

}  // namespace kernels
}  // namespace microddp
