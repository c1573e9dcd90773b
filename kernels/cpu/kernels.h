// microddp CPU kernels: element-wise reductions, copies and the avg pre/post
// steps, for every dtype and reduce op.
//
// Units: every length here is in ELEMENTS of the given dtype, never bytes.
// Pointers need no particular alignment. Zero elements is legal and touches
// nothing (null pointers are then fine). Misuse (a dtype / op outside the
// enums, a negative count, null pointers with elements, dst and src that
// overlap without being equal) throws std::invalid_argument naming it.
//
// Numeric rules (shared with kernels/cuda and asserted by tests):
//  - float16 / bfloat16 are stored as IEEE binary16 / bfloat16 bit patterns
//    (uint16_t). Each reduction widens both operands to float32, computes
//    once, and rounds once to the dtype (round to nearest even), as NCCL does.
//  - min / max propagate NaN: if either operand is NaN the result is NaN
//    (the first NaN operand, dst before src, so the bits are deterministic).
//    Equal operands (including +0 vs -0) keep dst.
//  - NaN through float16 / bfloat16 conversions: the quiet bit is set and the
//    top payload bits are kept (as x86 F16C does), e.g. half 0x7C01 -> 0x7E01.
//  - int32 / int64 sum and prod wrap in two's complement (computed through
//    the unsigned type, so there is no undefined behaviour).
//  - avg on floating types: each contribution is multiplied by 1/n before it
//    is summed (premul_avg, as NCCL's ncclAvg does); the reduction itself is
//    then a sum. The mean of finite values always fits the dtype, so when a
//    sum of two finite operands rounds past the largest finite value it
//    saturates there (an infinity or NaN operand still gives inf / NaN):
//    no algorithm's order can turn a finite average into inf. On integer
//    types: sum, then finish_avg divides by n, truncating toward zero.
// These are plain loops over contiguous arrays written so that GCC
// vectorises them at -O3; one pass over the data, no temporaries.
#pragma once
#include <cstddef>
#include <cstdint>

namespace microddp {

enum class DType : uint8_t { int32, int64, float16, bfloat16, float32, float64 };
enum class ReduceOp : uint8_t { sum, prod, min, max, avg };

// Bytes per element.
size_t dtype_size(DType t);
bool is_floating(DType t);

namespace kernels {

// dst[i] = dst[i] OP src[i] for i in [0, n). For ReduceOp::avg this is a sum
// (see the rules above). dst and src may be the same pointer but must not
// otherwise overlap.
void reduce(DType t, ReduceOp op, void* dst, const void* src, int64_t n);

// The fold of k sources in one pass: for i in [0, n),
//   dst[i] = (((srcs[0][i] OP srcs[1][i]) OP srcs[2][i]) ... OP srcs[k-1][i])
// with every hop rounded to the dtype as reduce() rounds it, so the bits are
// exactly those of copy(dst, srcs[0]) followed by reduce(dst, srcs[j]) for
// j = 1 .. k-1; but each source element is read once and each dst element
// written once (one-shot all-reduce: core/algorithms/direct.cpp); a NaN
// result of sum / prod / avg is NaN there too, its payload as the compiled
// loop's operand order gives it (IEEE leaves it open). k = 1 is
// a copy. dst may be srcs[0] itself (then dst's values are the first
// operand) and must not overlap any other source; sources may overlap each
// other. Throws std::invalid_argument for k outside [1, kReduceManyMax], a
// null srcs or source with elements, or dst overlapping a source other than
// as srcs[0]. With k > 1 it counts as one reduce() call for
// test_corrupt_reduce (the fault lands in dst's element 0).
inline constexpr int kReduceManyMax = 256;
void reduce_many(DType t, ReduceOp op, void* dst, const void* const* srcs, int k, int64_t n);

// dst[i] = src[i]. Overlap allowed (memmove semantics).
void copy(DType t, void* dst, const void* src, int64_t n);

// Floating avg, before the reduction: dst[i] = src[i] * (1/world_size),
// computed in float32 (float64 for float64) and rounded once. dst may equal
// src. Throws std::invalid_argument for integer dtypes or world_size < 1.
void premul_avg(DType t, void* dst, const void* src, int64_t n, int world_size);

// Integer avg, after the reduction: dst[i] = dst[i] / world_size, truncating
// toward zero. Throws std::invalid_argument for floating dtypes or
// world_size < 1.
void finish_avg(DType t, void* dst, int64_t n, int world_size);

// TEST ONLY: a deliberate fault, so that tests can prove the bit-exact
// verdict catches a wrong kernel (tests/core/ir/test_order_verdict.cpp).
// After `skip` further reduce() (or reduce_many(), k > 1) calls on a
// floating dtype with at least one element, the next such call flips the lowest significand bit of its
// result's element 0 (one unit in the last place: the result rounded the
// wrong way) and the fault disarms itself. skip < 0 disarms it. Unarmed (the
// default) it costs one relaxed atomic load per reduce() call and nothing per
// element. Process-wide; threads may call reduce() concurrently.
void test_corrupt_reduce(int skip);

// Scalar conversions used by the kernels, the CLI and the tests.
// half/bfloat16 round to nearest even; NaN stays NaN (quiet), infinities stay.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);

// Element i of a typed array as a double (exact for every dtype except
// int64 values beyond 2^53), and the reverse with the dtype's rounding.
// store_double throws std::out_of_range naming the value when it does not
// fit an integer dtype (or is not an integer), or is finite but overflows
// float16/bfloat16/float32 to infinity.
double load_double(DType t, const void* base, int64_t i);
void store_double(DType t, void* base, int64_t i, double v);

}  // namespace kernels
}  // namespace microddp
