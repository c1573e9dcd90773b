// kernels::reduce_many: the one-pass fold of k sources gives exactly the bits
// of a copy followed by k-1 reduce() calls, for every dtype, op, k, length,
// with dst as the first source or not, aligned or not.
#include <doctest/doctest.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/kernels.h"

using microddp::DType;
using microddp::ReduceOp;
namespace k = microddp::kernels;

namespace {

const DType kTypes[] = {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg};

// Values that exercise the rules: small integers, ±0, NaN, infinities, and
// magnitudes whose sums round (and, for avg, saturate) differently by order.
void fill(DType t, unsigned char* p, int64_t n, std::mt19937_64& rng) {
  static const double pool[] = {0.0, -0.0, 1.0, -1.0, 3.0, 0.1, 1e8, -1e8, 65504.0, 3e38, 1.5, -2.25};
  static const double special[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity()};
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    double v = pool[r % (sizeof pool / sizeof pool[0])];
    if (!microddp::is_floating(t)) v = static_cast<double>(static_cast<int64_t>(r % 2001) - 1000);
    else if (r % 29 == 0) v = special[(r >> 8) % 3];
    else if (t == DType::float16 && std::fabs(v) > 65504.0) v = std::copysign(60000.0, v);
    k::store_double(t, p, i, v);
  }
}

// copy + k-1 reduce() calls: the reference reduce_many must equal bit for bit.
std::vector<unsigned char> sequential(DType t, ReduceOp op, const std::vector<const void*>& src, int64_t n) {
  std::vector<unsigned char> out(static_cast<size_t>(n) * microddp::dtype_size(t) + 1);
  k::copy(t, out.data(), src[0], n);
  for (size_t j = 1; j < src.size(); ++j) k::reduce(t, op, out.data(), src[j], n);
  return out;
}

// Elements with equal bits; a NaN result of sum / prod / avg matches any NaN
// (IEEE leaves the payload of an operation on two NaNs open, and x86 keeps
// the first operand's, which the compiler may swap in a commutative add), as
// the order-exact verdict counts them (core/ir/order_arith.h, same). min /
// max promise the first NaN's bits: exact.
int64_t same_bits(DType t, ReduceOp op, const void* a, const void* b, int64_t n) {
  const size_t es = microddp::dtype_size(t);
  const bool any_nan = op != ReduceOp::min && op != ReduceOp::max && microddp::is_floating(t);
  int64_t same = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool eq = std::memcmp(static_cast<const unsigned char*>(a) + i * es,
                                static_cast<const unsigned char*>(b) + i * es, es) == 0;
    same += eq || (any_nan && std::isnan(k::load_double(t, a, i)) && std::isnan(k::load_double(t, b, i)));
  }
  return same;
}

}  // namespace

TEST_SUITE("kernels") {

TEST_CASE("reduce_many: the bits of copy + k-1 reduce() calls, every dtype, op, k and length") {
  std::mt19937_64 rng(35);
  for (DType t : kTypes)
    for (ReduceOp op : kOps)
      for (int kk : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16})
        for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{33}, int64_t{2049}, int64_t{4099}})
          for (int variant = 0; variant < 3; ++variant) {  // 0: dst apart, 1: dst = srcs[0], 2: misaligned
            CAPTURE(static_cast<int>(t));
            CAPTURE(static_cast<int>(op));
            CAPTURE(kk);
            CAPTURE(n);
            CAPTURE(variant);
            const size_t es = microddp::dtype_size(t), bytes = static_cast<size_t>(n) * es;
            const size_t shift = variant == 2 ? 1 : 0;
            std::vector<std::vector<unsigned char>> bufs(static_cast<size_t>(kk), std::vector<unsigned char>(bytes + 1));
            for (auto& b : bufs) fill(t, b.data() + shift, n, rng);
            std::vector<const void*> src;
            for (auto& b : bufs) src.push_back(b.data() + shift);
            const std::vector<unsigned char> want = sequential(t, op, src, n);
            std::vector<unsigned char> dst(bytes + 1, 0xAB);
            void* d = variant == 1 ? bufs[0].data() : dst.data() + shift;
            k::reduce_many(t, op, d, src.data(), kk, n);
            CHECK(same_bits(t, op, d, want.data(), n) == n);
            if (variant != 1) CHECK(dst[shift == 0 ? bytes : 0] == 0xAB);  // nothing written past the ends
          }
}

TEST_CASE("reduce_many: exact values, min keeps the first operand on ties (+0 before -0)") {
  const float a[] = {1, 2, 0.0f, 5}, b[] = {10, 20, -0.0f, 6}, c[] = {100, 200, 0.0f, 7};
  const void* src[] = {a, b, c};
  float out[4];
  k::reduce_many(DType::float32, ReduceOp::sum, out, src, 3, 4);
  CHECK(out[0] == 111);
  CHECK(out[1] == 222);
  CHECK(out[3] == 18);
  k::reduce_many(DType::float32, ReduceOp::min, out, src, 3, 4);
  CHECK(out[0] == 1);
  CHECK_FALSE(std::signbit(out[2]));  // a's +0 kept against b's -0
  const void* rev[] = {b, a, c};
  k::reduce_many(DType::float32, ReduceOp::min, out, rev, 3, 4);
  CHECK(std::signbit(out[2]));  // b's -0 first, kept
  CHECK(out[3] == 5);
  int32_t x[] = {1, 2}, y[] = {3, 4};
  const void* xy[] = {x, y};
  k::reduce_many(DType::int32, ReduceOp::prod, x, xy, 2, 2);  // dst = srcs[0]
  CHECK(x[0] == 3);
  CHECK(x[1] == 8);
}

TEST_CASE("reduce_many: misuse throws naming the value") {
  float a[4] = {}, b[4] = {};
  const void* src[] = {a, b};
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, a, src, 0, 4),
                       "reduce_many: source count 0 is outside [1, 256]", std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, a, src, 257, 4),
                       "reduce_many: source count 257 is outside [1, 256]", std::invalid_argument);
  const void* dst_second[] = {a, b};
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, b, dst_second, 2, 4),
                       "reduce_many: dst is srcs[1]; only srcs[0] may be dst", std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, a + 1, src, 2, 3),
                       "reduce_many: dst and src overlap without being the same array", std::invalid_argument);
  const void* with_null[] = {a, nullptr};
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, b, with_null, 2, 4),
                       "reduce_many: srcs[1] is null with 4 elements", std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, ReduceOp::sum, b, nullptr, 2, 4),
                       "reduce_many: srcs is null", std::invalid_argument);
  CHECK_THROWS_WITH_AS(k::reduce_many(DType::float32, static_cast<ReduceOp>(9), b, src, 2, 4),
                       "reduce_many: invalid reduce op value 9", std::invalid_argument);
  k::reduce_many(DType::float32, ReduceOp::sum, nullptr, nullptr, 2, 0);  // zero elements: nothing checked past k
}

}  // TEST_SUITE("kernels")
