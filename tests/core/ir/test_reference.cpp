// The one verdict on a run (core/ir/reference.h): the reference from the
// definition, the per-op error bound, and bit-identical ranks where the
// collective promises them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/record/data.h"

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, DType t, ReduceOp op) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  return s;
}
double at(DType t, const std::vector<std::byte>& b, int64_t i) { return kernels::load_double(t, b.data(), i); }
RankData rows(const CollectiveSpec& s, const std::string& text) { return parse_data(s, text); }
}  // namespace

TEST_SUITE("reference") {
  TEST_CASE("which collectives promise every rank the same bits") {
    CHECK(promises_identical_outputs(Collective::all_reduce));
    CHECK(promises_identical_outputs(Collective::all_gather));
    CHECK(promises_identical_outputs(Collective::broadcast));
    for (Collective c : {Collective::reduce, Collective::gather, Collective::scatter, Collective::reduce_scatter,
                         Collective::all_to_all, Collective::barrier})
      CHECK_FALSE(promises_identical_outputs(c));
  }

  TEST_CASE("ranks within the bound but holding different bits are not ok, and are named") {
    // float32 16777216 + 1 + 1: rank order gives 16777216, another order 16777218;
    // both are within n·u·Σ|x| of the exact 16777218.
    const CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 1, DType::float32, ReduceOp::sum);
    const RankData in = rows(s, "16777216;1;1");
    const RankData want = reference_outputs(s, in);
    RankData got = want;
    const float other = 16777218.0f;
    std::memcpy(got[2].data(), &other, 4);
    got[0] = got[1] = rows(s, "16777216;1;1")[0];
    const OutputVerdict v = verify_outputs(s, in, got, want);
    CHECK(v.within_bound);
    CHECK_FALSE(v.identical_ranks);
    CHECK(v.differing_ranks == std::vector<int>{2});
    CHECK_FALSE(v.ok);
    CHECK(v.why.find("rank 2 holds different bits") != std::string::npos);
    CHECK(v.wrong_elements == 1);
  }

  TEST_CASE("reduce_scatter gives ranks different blocks: no identity required") {
    const CollectiveSpec s = spec(Collective::reduce_scatter, "ring", 2, 1, DType::int32, ReduceOp::sum);
    const RankData in = rows(s, "1,2;3,4");
    const RankData want = reference_outputs(s, in);
    CHECK(at(s.dtype, want[0], 0) == 4);
    CHECK(at(s.dtype, want[1], 0) == 6);
    const OutputVerdict v = verify_outputs(s, in, want, want);
    CHECK(v.ok);
    CHECK(v.identical_ranks);
  }

  TEST_CASE("the unchunked ring's rank-dependent order is caught on a real run") {
    const CollectiveSpec s = spec(Collective::all_reduce, "ring_unchunked", 3, 1, DType::bfloat16, ReduceOp::sum);
    const RankData in = rows(s, "256;1;1");
    const RunResult res = run_threads(make_schedule(s), in);
    const OutputVerdict v = verify_outputs(s, in, res.outputs, reference_outputs(s, in));
    CHECK(v.within_bound);
    CHECK_FALSE(v.ok);
    CHECK_FALSE(v.differing_ranks.empty());
  }

  TEST_CASE("a float16 average never overflows when the mean fits, for every algorithm and n") {
    for (int n = 1; n <= 9; ++n)
      for (const auto& alg : algorithms_for(Collective::all_reduce))
        for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
          CollectiveSpec s = spec(Collective::all_reduce, alg, n, 2, t, ReduceOp::avg);
          Schedule sch;
          try {
            sch = make_schedule(s);
          } catch (const UsageError&) {
            continue;  // the algorithm refuses this world size
          }
          const double big = t == DType::float16    ? 65504.0
                             : t == DType::bfloat16 ? 3.3895313892515355e38
                             : t == DType::float32  ? std::numeric_limits<float>::max()
                                                    : std::numeric_limits<double>::max();
          RankData in(n, std::vector<std::byte>(2 * dtype_size(t)));
          for (int r = 0; r < n; ++r) {
            kernels::store_double(t, in[r].data(), 0, big);
            kernels::store_double(t, in[r].data(), 1, -big);
          }
          CAPTURE(alg);
          CAPTURE(n);
          CAPTURE(name(t));
          const RunResult res = run_threads(sch, in);
          for (int r = 0; r < n; ++r) {
            CHECK(std::isfinite(at(t, res.outputs[r], 0)));
            CHECK(std::isfinite(at(t, res.outputs[r], 1)));
          }
          const RankData want = reference_outputs(s, in);
          // The reference rounds x/n, then the sum: at most the value itself.
          CHECK(std::isfinite(at(t, want[0], 0)));
          CHECK(at(t, want[0], 0) <= big);
          CHECK(verify_outputs(s, in, res.outputs, want).within_bound);
        }
  }

  TEST_CASE("an infinite contribution still makes the average infinite") {
    const CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 1, DType::float16, ReduceOp::avg);
    const RankData in = rows(s, "inf;1;1");
    const RunResult res = run_threads(make_schedule(s), in);
    for (int r = 0; r < 3; ++r) CHECK(at(s.dtype, res.outputs[r], 0) == INFINITY);
    CHECK(verify_outputs(s, in, res.outputs, reference_outputs(s, in)).ok);
  }

  TEST_CASE("float16 products are held to the product's bound, not the sum's") {
    for (const std::string alg : {"tree", "halving_doubling", "recursive_doubling", "ring", "naive"}) {
      const CollectiveSpec s = spec(Collective::all_reduce, alg, 5, 1, DType::float16, ReduceOp::prod);
      const RankData in = rows(s, "-2.25;0.5;-2.25;0.001;0.001");
      const RunResult res = run_threads(make_schedule(s), in);
      std::string why;
      CAPTURE(alg);
      CHECK_MESSAGE(outputs_match(s, in, res.outputs, reference_outputs(s, in), &why), why);
    }
  }

  TEST_CASE("error_bound: exact ops have none; sums and products follow their formulas") {
    CHECK(error_bound(DType::float32, ReduceOp::min, {1.0, 2.0}) == 0);
    CHECK(error_bound(DType::float32, ReduceOp::max, {1.0, 2.0}) == 0);
    CHECK(error_bound(DType::int32, ReduceOp::sum, {1.0, 2.0}) == 0);
    const double u = std::ldexp(1.0, -11);
    const double eta = std::ldexp(1.0, -25);
    CHECK(error_bound(DType::float16, ReduceOp::sum, {1.0, -3.0}) == doctest::Approx((std::pow(1 + u, 2) - 1) * 4 + 2 * eta));
    CHECK(error_bound(DType::float16, ReduceOp::prod, {2.0, 3.0}) ==
          doctest::Approx((std::pow(1 + u, 2) - 1) * 6 + 2 * eta * 6));
    // float64's u = 2^-53 vanishes next to 1 in double: the bound must not.
    CHECK(error_bound(DType::float64, ReduceOp::sum, {1.0, 1.0}) >= 4 * std::ldexp(1.0, -53));
    CHECK(error_bound(DType::float64, ReduceOp::avg, {1.0, 1.0}) > 0);
    // A product's bound is relative to the product, far below the sum's bound.
    CHECK(error_bound(DType::float16, ReduceOp::prod, {0.001, 0.001}) <
          error_bound(DType::float16, ReduceOp::sum, {0.001, 0.001}));
  }

  TEST_CASE("the reference is exact for integers, beyond 2^53 and when wrapping") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 2, 1, DType::int64, ReduceOp::sum);
    RankData in = rows(s, "9007199254740993;2");
    int64_t v;
    std::memcpy(&v, reference_outputs(s, in)[0].data(), 8);
    CHECK(v == 9007199254740995);
    in = rows(s, "9223372036854775807;1");
    std::memcpy(&v, reference_outputs(s, in)[0].data(), 8);
    CHECK(v == std::numeric_limits<int64_t>::min());
    s.op = ReduceOp::avg;
    s.dtype = DType::int32;
    in = rows(s, "-7;2");
    int32_t w;
    std::memcpy(&w, reference_outputs(s, in)[0].data(), 4);
    CHECK(w == -2);  // -5 / 2 truncates toward zero
  }

  TEST_CASE("the bfloat16 reference rounds once from double (no double rounding through float)") {
    // 1 + 2^-8 + 2^-30 lies just above the tie between 1 and 1 + 2^-7:
    // rounded once it is 1 + 2^-7. Through float it would first become the
    // tie 1 + 2^-8, then round to even: 1.
    const CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 1, DType::bfloat16, ReduceOp::sum);
    RankData in(3, std::vector<std::byte>(2));
    kernels::store_double(s.dtype, in[0].data(), 0, 1.0);
    kernels::store_double(s.dtype, in[1].data(), 0, std::ldexp(1.0, -8));
    kernels::store_double(s.dtype, in[2].data(), 0, std::ldexp(1.0, -30));
    CHECK(at(s.dtype, reference_outputs(s, in)[0], 0) == 1 + std::ldexp(1.0, -7));
  }
}
