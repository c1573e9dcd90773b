// The order-exact reference (core/ir/order_reference.h) and the verdict
// built on it (core/ir/order_verdict.h): its own arithmetic agrees with the
// kernels' documented rules, the order-dependent inputs are ok and
// explained, and a kernel that rounds one element the wrong way is caught
// where the double-precision check alone passes it.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/algorithms/alternatives.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/order_arith.h"
#include "core/ir/order_reference.h"
#include "core/ir/order_verdict.h"
#include "core/record/data.h"

using namespace microddp;

namespace {
CollectiveSpec spec(const std::string& alg, int n, DType t, ReduceOp op, int64_t count = 1) {
  CollectiveSpec s;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  return s;
}

struct Ran {
  Schedule sch;
  RankData in;
  RunResult res;
};
Ran run(const CollectiveSpec& s, const std::string& data) {
  Ran r{make_schedule(s), parse_data(s, data), {}};
  RunOptions opt;
  opt.record = false;
  r.res = run_threads(r.sch, r.in, opt);
  return r;
}
RunVerdict judge(const Ran& r) {
  return verify_run(r.sch, r.in, r.res.outputs, [&] { return other_algorithm_schedules(r.sch.spec); });
}
}  // namespace

TEST_SUITE("order_reference") {
  TEST_CASE("float16 and bfloat16 conversions agree with the kernels' on every pattern and a float sweep") {
    for (uint32_t h = 0; h < 65536; ++h) {
      const auto x = static_cast<uint16_t>(h);
      REQUIRE(std::bit_cast<uint32_t>(order::half_to_float(x)) == std::bit_cast<uint32_t>(kernels::half_to_float(x)));
      REQUIRE(std::bit_cast<uint32_t>(order::bf16_to_float(x)) == std::bit_cast<uint32_t>(kernels::bf16_to_float(x)));
    }
    // every 4099th float bit pattern (about a million), and the boundaries
    std::vector<uint32_t> pats = {0x477fefffu, 0x477ff000u, 0x477ff001u, 0x33000000u, 0x33000001u, 0x387fe000u,
                                  0x7f7f7fffu, 0x7f7f8000u, 0x7f7fffffu, 0x80000001u, 0x7f800001u, 0xffc00001u};
    for (uint64_t p = 0; p < (uint64_t{1} << 32); p += 4099) pats.push_back(static_cast<uint32_t>(p));
    for (uint32_t p : pats) {
      const float f = std::bit_cast<float>(p);
      CAPTURE(p);
      REQUIRE(order::float_to_half(f) == kernels::float_to_half(f));
      REQUIRE(order::float_to_bf16(f) == kernels::float_to_bf16(f));
    }
    CHECK(order::float_to_half(65519.99f) == 0x7bffu);  // rounds down to 65504
    CHECK(order::float_to_half(65520.0f) == 0x7c00u);   // the tie rounds to even: infinity
    CHECK(order::float_to_half(std::ldexp(1.0f, -25)) == 0);  // half the smallest subnormal: ties to 0
  }

  TEST_CASE("one element op agrees with kernels::reduce for every dtype and op on hostile pairs") {
    std::mt19937_64 rng(7);
    for (DType t : all_dtypes())
      for (ReduceOp op : all_ops()) {
        const size_t es = dtype_size(t);
        for (int k = 0; k < 4000; ++k) {
          uint64_t a = rng(), b = rng();
          if (k % 3 == 0) b = a ^ (rng() & 0xff);  // near each other: cancellation, ties
          if (is_floating(t) && k % 5 == 0) {      // near the largest finite value
            const double big = t == DType::float16 ? 65504 : t == DType::bfloat16 ? 3.38e38 : 3.4e38;
            std::byte buf[8];
            kernels::store_double(t, buf, 0, (k & 8 ? -big : big) * (0.5 + (rng() % 100) / 200.0));
            a = order::load(t, buf, 0);
          }
          std::byte d[8] = {}, s[8] = {};
          order::store(t, d, 0, a);
          order::store(t, s, 0, b);
          kernels::reduce(t, op, d, s, 1);
          const uint64_t want = order::load(t, d, 0);
          const uint64_t got = order::combine(t, op, order::load(t, (order::store(t, d, 0, a), d), 0), b);
          CAPTURE(name(t));
          CAPTURE(name(op));
          CAPTURE(a);
          CAPTURE(b);
          REQUIRE(order::same(t, got, want));
          (void)es;
        }
        if (is_floating(t))
          for (int n = 1; n <= 9; ++n) {
            const uint64_t x = rng();
            std::byte d[8] = {};
            order::store(t, d, 0, x);
            kernels::premul_avg(t, d, d, 1, n);
            REQUIRE(order::same(t, order::premul(t, x, n), order::load(t, d, 0)));
          }
      }
  }

  TEST_CASE("the issue's order-dependent inputs: ok, order_dependent, and the overflow named") {
    {
      const Ran r = run(spec("naive", 3, DType::float16, ReduceOp::prod), "300;300;0");
      const RunVerdict v = judge(r);
      CHECK(v.ok);
      CHECK(v.matches_order);
      CHECK_FALSE(v.within_bound);
      CHECK(v.order_dependent);
      CHECK(v.note.rank == 0);
      CHECK(v.note.index == 0);
      CHECK(v.note.why ==
            "rank 0, element 0: 300 × 300 = 90000 overflows float16 at step 0 on rank 0 (naive's order gives nan, the "
            "double-precision reference 0); double_binary_tree's order gives 0");
    }
    {  // four ranks: the tree multiplies 300 by 0 before the second 300
      const Ran r = run(spec("naive", 4, DType::float16, ReduceOp::prod), "300;1;300;0");
      const RunVerdict v = judge(r);
      CHECK(v.ok);
      CHECK(v.order_dependent);
      CHECK(v.note.why ==
            "rank 0, element 0: 300 × 300 = 90000 overflows float16 at step 1 on rank 0 (naive's order gives nan, the "
            "double-precision reference 0); tree's order gives 0");
    }
    {
      const Ran r = run(spec("ring", 3, DType::float16, ReduceOp::sum), "65504;65504;-65504");
      const RunVerdict v = judge(r);
      CHECK(v.ok);
      CHECK(v.order_dependent);
      CHECK(v.note.why.find("65504 + 65504 = 131008 overflows float16 at step 0 on rank 1 (ring's order gives inf, "
                            "the double-precision reference 65504)") != std::string::npos);
    }
    {  // the other order of the same values is not order-dependent
      const Ran r = run(spec("ring", 3, DType::float16, ReduceOp::sum), "-65504;65504;65504");
      const RunVerdict v = judge(r);
      CHECK(v.ok);
      CHECK(v.within_bound);
      CHECK_FALSE(v.order_dependent);
      CHECK(v.note.why.empty());
    }
    for (DType t : {DType::bfloat16, DType::float32}) {
      const RunVerdict p = judge(run(spec("ring", 3, t, ReduceOp::prod), "1e30;1e30;0"));
      CHECK(p.ok);
      CHECK(p.order_dependent);
      // 1e30 is 1.00026e30 in bfloat16
      CHECK(p.note.why.find(fmt::format("1e+30 × 1e+30 = {} overflows {}",
                                        t == DType::float32 ? "1e+60" : "1.00051e+60", name(t))) != std::string::npos);
      const RunVerdict s = judge(run(spec("ring", 3, t, ReduceOp::sum), "3e38;3e38;-3e38"));
      CHECK(s.ok);
      CHECK(s.order_dependent);
      CHECK(s.note.why.find("overflows " + std::string(name(t))) != std::string::npos);
    }
  }

  TEST_CASE("a kernel that rounds one element the wrong way is caught bit for bit, not by the double check") {
    // 1 + 1 + 1 in float32: every partial sum is exact, a flipped last bit
    // (2 or 3 one ulp up) survives the later additions, and one ulp of 3 is
    // well within the double reference's bound (3·2^-24·3).
    const CollectiveSpec s = spec("ring", 3, DType::float32, ReduceOp::sum, 3);
    const std::string data = "1,1,1;1,1,1;1,1,1";
    kernels::test_corrupt_reduce(0);
    const Ran bad = run(s, data);
    kernels::test_corrupt_reduce(-1);
    const OutputVerdict second = verify_outputs(s, bad.in, bad.res.outputs, reference_outputs(s, bad.in));
    CHECK(second.ok);  // the double-precision check alone passes it
    const RunVerdict v = judge(bad);
    CHECK_FALSE(v.ok);
    CHECK_FALSE(v.matches_order);
    CHECK(v.within_bound);
    CHECK(v.wrong_elements >= 1);
    CHECK(v.why.find("= 3.0000002 but ring's order gives 3 (the double-precision reference 3)") != std::string::npos);
    // Unarmed, the same run is ok: the hook left nothing behind.
    CHECK(judge(run(s, data)).ok);
  }

  TEST_CASE("the unchunked ring equals its own order on every rank, and still breaks the identical-ranks promise") {
    const Ran r = run(spec("ring_unchunked", 3, DType::float32, ReduceOp::sum), "16777216;1;1");
    const RunVerdict v = judge(r);
    CHECK(v.matches_order);
    CHECK_FALSE(v.identical_ranks);
    CHECK_FALSE(v.ok);
    CHECK(v.differing_ranks == std::vector<int>{2});
    CHECK(v.why ==
          "rank 2 holds different bits from rank 0 (all_reduce promises every rank the same result; ring_unchunked "
          "adds in a different order on each rank)");
  }

  TEST_CASE("recvs posted before their sends, and two recv-reduces into one element, follow list order") {
    // min(+0, -0) keeps dst: the order of the two recv-reduces decides the sign.
    CollectiveSpec s = spec("toy", 3, DType::float32, ReduceOp::min);
    ScheduleBuilder b(s);
    b.step("reduce");
    b.copy(0, {Buf::input, 0}, {Buf::output, 0}, 1);
    b.recv_reduce(0, 2, {Buf::output, 0}, 1);  // posted first: applied first
    b.recv_reduce(0, 1, {Buf::output, 0}, 1);
    b.send(1, 0, {Buf::input, 0}, 1);
    b.send(2, 0, {Buf::input, 0}, 1);
    b.step("broadcast");
    b.recv(1, 0, {Buf::output, 0}, 1);  // recv before send on both sides
    b.recv(2, 0, {Buf::output, 0}, 1);
    b.send(0, 1, {Buf::output, 0}, 1);
    b.send(0, 2, {Buf::output, 0}, 1);
    const Schedule sch = b.finish();
    RankData in = parse_data(s, "1;-0;0");
    const RankData out = order_exact_outputs(sch, in);
    for (int r = 0; r < 3; ++r) CHECK(std::signbit(kernels::load_double(DType::float32, out[r].data(), 0)) == false);
    in = parse_data(s, "1;0;-0");
    const RankData out2 = order_exact_outputs(sch, in);
    CHECK(std::signbit(kernels::load_double(DType::float32, out2[0].data(), 0)));
    RunOptions opt;
    opt.record = false;
    const RunResult res = run_threads(sch, in, opt);
    CHECK(res.outputs == out2);
  }
}
