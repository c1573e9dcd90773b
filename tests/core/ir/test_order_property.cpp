// Property test of the order-exact verdict (core/ir/order_verdict.h): random
// specs over every registered algorithm and collective, world sizes 1..9,
// uneven counts, every dtype and op, in place or not, with overflow-prone
// inputs (each dtype's largest finite value and its half, zeros of both
// signs, mixed signs, NaN, ±inf, subnormals, products that overflow
// float16), run for real on the threads backend:
//  - no correct run is called wrong: every run equals its own order's exact
//    result bit for bit (matches_order), ok unless ranks differ where the
//    algorithm combines in a rank-dependent order (ring_unchunked; min / max
//    of +0 and -0 under the pairwise exchanges), and where the run leaves the
//    double reference's bound the verdict says order_dependent with a note;
//  - no wrong run is called correct: one bit of one output element flipped
//    (a NaN's top exponent bit, so that it stops being a NaN) is not ok.
// Seeded: MICRODDP_ORDER_SEED (default 1), MICRODDP_ORDER_CASES (default
// 600); the seed, case number and spec are printed on a failure.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "core/algorithms/alternatives.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/order_arith.h"
#include "core/ir/order_verdict.h"

using namespace microddp;

namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

double largest(DType t) {
  switch (t) {
    case DType::float16: return 65504.0;
    case DType::bfloat16: return 3.3895313892515355e38;
    case DType::float32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// One overflow-prone element.
void store_hostile(std::mt19937_64& rng, DType t, std::byte* base, int64_t i) {
  const int pick = static_cast<int>(rng() % 12);
  const bool neg = rng() & 1;
  if (!is_floating(t)) {
    const bool i32 = t == DType::int32;
    int64_t v = static_cast<int64_t>(rng() % 17) - 8;
    if (pick == 0) v = i32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    if (pick == 1) v = i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    if (pick == 2) v = i32 ? 46341 : 3037000500;  // squares overflow
    if (i32) {
      const auto x = static_cast<int32_t>(v);
      std::memcpy(base + i * 4, &x, 4);
    } else {
      std::memcpy(base + i * 8, &v, 8);
    }
    return;
  }
  double v;
  switch (pick) {
    case 0: v = 0.0; break;  // and -0 when neg
    case 1: v = std::numeric_limits<double>::quiet_NaN(); break;
    case 2: v = INFINITY; break;
    case 3: v = largest(t); break;
    case 4: v = largest(t) / 2; break;
    case 5: v = 300; break;  // 300 × 300 overflows float16
    case 6: v = t == DType::float16 ? std::ldexp(1.0, -24)
              : t == DType::bfloat16 ? std::ldexp(1.0, -133)
              : t == DType::float32 ? std::ldexp(1.0, -149)
                                    : std::numeric_limits<double>::denorm_min();
      break;  // the smallest subnormal: products of two underflow
    case 7: v = std::sqrt(largest(t)) * 1.5; break;  // a square overflows
    default: v = static_cast<double>(rng() % 2001) / 8 - 125;
  }
  if (neg) v = -v;
  kernels::store_double(t, base, i, v);
}

// Ranks may hold different bits, each equal to its own order's: the unchunked
// ring reduces in another order on every rank; recursive doubling and
// halving-doubling combine (a, b) on one rank and (b, a) on its partner,
// which differ for min / max of +0 and -0 (ties keep dst).
bool ranks_may_differ(const CollectiveSpec& s, const RankData& in) {
  if (s.algorithm == "ring_unchunked") return true;
  if ((s.op != ReduceOp::min && s.op != ReduceOp::max) || !is_floating(s.dtype)) return false;
  for (const auto& row : in)
    for (int64_t i = 0; i < static_cast<int64_t>(row.size() / dtype_size(s.dtype)); ++i)
      if (order::value(s.dtype, order::load(s.dtype, row.data(), i)) == 0) return true;
  return false;
}

// Flip one bit of element i: a NaN's top exponent bit (it stops being NaN),
// else a bit chosen by the generator.
void corrupt(std::mt19937_64& rng, DType t, std::byte* base, int64_t i) {
  const uint64_t x = order::load(t, base, i);
  const int bits = static_cast<int>(dtype_size(t) * 8);
  const int top_exp = bits - 2;  // the exponent's highest bit (sign is bits - 1)
  const int bit = order::is_nan(t, x) ? top_exp : static_cast<int>(rng() % bits);
  order::store(t, base, i, x ^ (uint64_t{1} << bit));
}

}  // namespace

TEST_SUITE("order_property") {
  TEST_CASE("random hostile specs on threads: every run equals its own order, a flipped bit never does") {
    const uint64_t seed = env_or("MICRODDP_ORDER_SEED", 1);
    const uint64_t cases = env_or("MICRODDP_ORDER_CASES", 600);
    std::mt19937_64 rng(seed);
    uint64_t ran = 0, tries = 0, dependent = 0;
    while (ran < cases && tries < cases * 20) {
      ++tries;
      CollectiveSpec s;
      s.collective = all_collectives()[rng() % all_collectives().size()];
      const auto& algs = algorithms_for(s.collective);
      if (algs.empty()) continue;
      s.algorithm = algs[rng() % algs.size()];
      s.world_size = 1 + static_cast<int>(rng() % 9);
      s.count = static_cast<int64_t>(rng() % 6);
      s.dtype = all_dtypes()[rng() % all_dtypes().size()];
      s.op = all_ops()[rng() % all_ops().size()];
      s.root = static_cast<int>(rng() % s.world_size);
      s.in_place = rng() % 2 == 0;
      s.segments = rng() % 4 == 0 ? 2 : 1;
      const bool v_variant = s.collective == Collective::gather || s.collective == Collective::scatter ||
                             s.collective == Collective::all_gather || s.collective == Collective::reduce_scatter;
      if (v_variant && rng() % 2 == 0)
        for (int r = 0; r < s.world_size; ++r) s.counts.push_back(static_cast<int64_t>(rng() % 4));
      if (s.collective == Collective::barrier) s.count = 0;
      Schedule sch;
      try {
        sch = make_schedule(s);
      } catch (const UsageError&) {
        continue;  // the algorithm refuses this spec
      }
      RankData in(s.world_size);
      for (int r = 0; r < s.world_size; ++r) {
        in[r].resize(static_cast<size_t>(s.input_count(r)) * dtype_size(s.dtype));
        for (int64_t i = 0; i < s.input_count(r); ++i) store_hostile(rng, s.dtype, in[r].data(), i);
      }
      RunOptions opt;
      opt.mode = rng() % 2 ? Mode::free : Mode::lockstep;
      opt.record = false;
      RunResult res = run_threads(sch, in, opt);
      const RunVerdict v = verify_run(sch, in, res.outputs, [&] { return other_algorithm_schedules(s); });
      CAPTURE(seed);
      CAPTURE(ran);
      CAPTURE(name(s.collective));
      CAPTURE(s.algorithm);
      CAPTURE(s.world_size);
      CAPTURE(s.count);
      CAPTURE(s.counts.size());
      CAPTURE(name(s.dtype));
      CAPTURE(name(s.op));
      CAPTURE(s.root);
      CAPTURE(s.in_place);
      CAPTURE(s.segments);
      CAPTURE(v.why);
      CHECK(v.matches_order);
      CHECK(v.ok == (v.matches_order && v.identical_ranks));
      if (!ranks_may_differ(s, in)) CHECK(v.identical_ranks);
      // Equal to its order, it is within the double bound or says why not.
      CHECK((v.within_bound || v.order_dependent));
      if (v.order_dependent) {
        ++dependent;
        CHECK(v.note.rank >= 0);
        CHECK(v.note.why.find(fmt::format("rank {}, element {}: ", v.note.rank, v.note.index)) == 0);
      }
      // A flipped bit anywhere in any rank's output is caught.
      std::vector<int> with_output;
      for (int r = 0; r < s.world_size; ++r)
        if (!res.outputs[r].empty()) with_output.push_back(r);
      if (!with_output.empty()) {
        const int r = with_output[rng() % with_output.size()];
        const auto m = static_cast<int64_t>(res.outputs[r].size() / dtype_size(s.dtype));
        corrupt(rng, s.dtype, res.outputs[r].data(), static_cast<int64_t>(rng() % m));
        const RunVerdict bad = verify_run(sch, in, res.outputs);
        CHECK_FALSE(bad.ok);
        CHECK_FALSE(bad.matches_order);
        CHECK(bad.wrong_elements >= 1);
      }
      ++ran;
    }
    CHECK(ran == cases);
    CHECK(dependent > 0);  // the inputs do reach order-dependent results
    MESSAGE(fmt::format("seed {}: {} cases, {} order-dependent", seed, ran, dependent));
  }
}
