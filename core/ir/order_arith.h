// Scalar arithmetic of the order-exact reference (core/ir/order_reference.h):
// one element at a time, in each dtype's own arithmetic, written apart from
// kernels/cpu on purpose, so that a wrong kernel is caught rather than
// reproduced. The rules are the numeric rules of /work/shared/DESIGN.md and
// kernels/cpu/kernels.h:
//  - float16 / bfloat16: both operands widen to float32 (exactly), the op is
//    computed once in float32 (IEEE round to nearest even), and the result is
//    rounded once to the dtype, to nearest even; |x| >= 65520 becomes a
//    float16 infinity. NaN keeps its sign and top payload bits with the quiet
//    bit set (as x86 F16C does).
//  - float32 / float64: the native IEEE operation.
//  - min / max: a NaN operand wins (dst's first); otherwise the smaller /
//    larger, keeping dst on ties (so min(+0, -0) keeps whichever was dst).
//  - int32 / int64: sum and prod wrap (computed through the unsigned type).
//  - avg: floats are pre-scaled, x * fl(1/n) with 1/n in float32 (float64 for
//    float64), rounded once to the dtype; the reduction is a sum in which a
//    sum of two finite operands that rounds past the largest finite value
//    saturates there. Integers sum and divide by n at the end, truncating
//    toward zero.
// An element travels as its raw bit pattern in the low bytes of a uint64_t
// (2, 4 or 8 bytes by dtype). No function here throws.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/ir/types.h"

namespace microddp::order {

// float16 / bfloat16 <-> float32 (round to nearest even), the conversions of
// the numeric rules.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

// Element i of a byte buffer of dtype t, as bits; and back.
uint64_t load(DType t, const std::byte* base, int64_t i);
void store(DType t, std::byte* base, int64_t i, uint64_t bits);

// dst OP src in the dtype's arithmetic (avg: the saturating sum).
uint64_t combine(DType t, ReduceOp op, uint64_t dst, uint64_t src);
// avg's two halves: the pre-scale of a floating contribution by 1/n, the
// final truncating division of an integer sum by n (n >= 1).
uint64_t premul(DType t, uint64_t x, int n);
uint64_t finish_avg(DType t, uint64_t x, int n);

// The element as a double (exact but for int64 beyond 2^53), and whether it
// is a NaN of a floating dtype.
double value(DType t, uint64_t bits);
bool is_nan(DType t, uint64_t bits);
// Equal bits, or both NaN (payloads differ by hardware: CUDA's canonical NaN).
bool same(DType t, uint64_t a, uint64_t b);
// The element as a person reads it: "90000", "-0", "inf", "nan"; int64 exact.
std::string format(DType t, uint64_t bits);

}  // namespace microddp::order
