// Property test: random specs (collective, algorithm, n, count or counts,
// dtype, op, root, in-place, segments) on random inputs with edge values
// (±0, subnormals, the largest finite value, NaN, ±inf, integer extremes),
// run on the threads backend and judged by core/ir/reference.h:
//  - every rank is within the documented error bound of the reference;
//  - ranks hold bit-identical results where the collective promises it and
//    the algorithm reduces each element once in one order;
//  - ok is true exactly when both hold, and the verdict's identical_ranks
//    agrees with a direct comparison of the ranks' bytes.
// Seeded: MICRODDP_PROPERTY_SEED (default 1), MICRODDP_PROPERTY_CASES
// (default 3000: about 6 s under ASan).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"

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
double smallest_subnormal(DType t) {
  switch (t) {
    case DType::float16: return std::ldexp(1.0, -24);
    case DType::bfloat16: return std::ldexp(1.0, -133);
    case DType::float32: return std::ldexp(1.0, -149);
    default: return std::numeric_limits<double>::denorm_min();
  }
}

// One element of rank input. Sums never see the largest finite value (a
// finite sum may then overflow in one order and not another: outside the
// bound's premise); products see no subnormals (an underflow to 0 in one
// order meets an infinity as NaN, in another as inf) and no large values.
void store_random(std::mt19937_64& rng, const CollectiveSpec& s, std::byte* base, int64_t i) {
  const DType t = s.dtype;
  const int pick = static_cast<int>(rng() % 16);
  const bool neg = rng() & 1;
  if (!is_floating(t)) {
    const int64_t lo = t == DType::int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const int64_t hi = t == DType::int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    int64_t v = static_cast<int64_t>(rng() % 17) - 8;
    if (pick == 0) v = lo;
    if (pick == 1) v = hi;
    if (pick == 2) v = 0;
    if (t == DType::int32) {
      const auto x = static_cast<int32_t>(v);
      std::memcpy(base + i * 4, &x, 4);
    } else {
      std::memcpy(base + i * 8, &v, 8);
    }
    return;
  }
  const bool movement = !is_reducing(s.collective);
  const bool prod = s.op == ReduceOp::prod;
  const bool sum = s.op == ReduceOp::sum;
  double v;
  switch (pick) {
    case 0: v = 0.0; break;
    case 1: v = std::numeric_limits<double>::quiet_NaN(); break;
    case 2: v = INFINITY; break;
    case 3: v = prod ? 0.5 : smallest_subnormal(t) * static_cast<double>(1 + rng() % 5); break;
    case 4: v = prod ? 2.0 : sum ? largest(t) / 64 : largest(t); break;
    case 5: v = prod ? 1.5 : std::ldexp(1.0, t == DType::float16 ? -14 : -126); break;  // smallest normal
    default: v = prod ? static_cast<double>(1 + rng() % 4) / 2 : static_cast<double>(rng() % 2001) / 8 - 125;
  }
  if (movement && pick == 1) v = std::numeric_limits<double>::quiet_NaN();
  if (neg) v = -v;
  kernels::store_double(t, base, i, v);
}

// An algorithm that reduces every element once, in one order, and copies
// the result: its ranks must be bit-identical. ring_unchunked reduces in a
// different order on every rank; recursive doubling and halving-doubling
// combine (a, b) on one rank and (b, a) on its partner, which differ only
// for min / max of +0 and -0 (the kernels keep dst on ties).
bool reduces_once(const CollectiveSpec& s, const RankData& in) {
  if (s.algorithm == "ring_unchunked") return false;
  if (s.op != ReduceOp::min && s.op != ReduceOp::max) return true;
  if (!is_floating(s.dtype)) return true;
  for (const auto& row : in)
    for (int64_t i = 0; i < static_cast<int64_t>(row.size() / dtype_size(s.dtype)); ++i)
      if (kernels::load_double(s.dtype, row.data(), i) == 0) return false;
  return true;
}

bool same_bits(DType t, const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  if (a.size() != b.size()) return false;
  const size_t es = dtype_size(t);
  for (size_t i = 0; i < a.size() / es; ++i) {
    if (std::memcmp(a.data() + i * es, b.data() + i * es, es) == 0) continue;
    if (is_floating(t) && std::isnan(kernels::load_double(t, a.data(), i)) &&
        std::isnan(kernels::load_double(t, b.data(), i)))
      continue;
    return false;
  }
  return true;
}

}  // namespace

TEST_SUITE("property") {
  TEST_CASE("random specs and edge-value inputs: within the bound, identical where promised, ok exactly then") {
    const uint64_t seed = env_or("MICRODDP_PROPERTY_SEED", 1);
    const uint64_t cases = env_or("MICRODDP_PROPERTY_CASES", 3000);
    std::mt19937_64 rng(seed);
    uint64_t ran = 0, tries = 0;
    while (ran < cases && tries < cases * 20) {
      ++tries;
      CollectiveSpec s;
      s.collective = all_collectives()[rng() % all_collectives().size()];
      const auto& algs = algorithms_for(s.collective);
      if (algs.empty()) continue;
      s.algorithm = algs[rng() % algs.size()];
      s.world_size = 1 + static_cast<int>(rng() % 9);
      s.count = static_cast<int64_t>(rng() % 7);
      s.dtype = all_dtypes()[rng() % all_dtypes().size()];
      s.op = all_ops()[rng() % all_ops().size()];
      s.root = static_cast<int>(rng() % s.world_size);
      s.in_place = rng() % 3 == 0;
      s.segments = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % 3) : 1;
      const bool v_variant = s.collective == Collective::gather || s.collective == Collective::scatter ||
                             s.collective == Collective::all_gather || s.collective == Collective::reduce_scatter;
      if (v_variant && rng() % 3 == 0)
        for (int r = 0; r < s.world_size; ++r) s.counts.push_back(static_cast<int64_t>(rng() % 5));
      if (s.collective == Collective::barrier) s.count = 0;
      Schedule sch;
      try {
        sch = make_schedule(s);
      } catch (const UsageError&) {
        continue;  // this algorithm refuses this spec (world size, segments, counts)
      }
      RankData in(s.world_size);
      for (int r = 0; r < s.world_size; ++r) {
        in[r].resize(static_cast<size_t>(s.input_count(r)) * dtype_size(s.dtype));
        for (int64_t i = 0; i < s.input_count(r); ++i) store_random(rng, s, in[r].data(), i);
      }
      RunOptions opt;
      opt.mode = rng() % 2 ? Mode::free : Mode::lockstep;
      opt.record = false;
      const RunResult res = run_threads(sch, in, opt);
      const RankData want = reference_outputs(s, in);
      const OutputVerdict v = verify_outputs(s, in, res.outputs, want);
      CAPTURE(ran);
      CAPTURE(name(s.collective));
      CAPTURE(s.algorithm);
      CAPTURE(s.world_size);
      CAPTURE(s.count);
      CAPTURE(name(s.dtype));
      CAPTURE(name(s.op));
      CAPTURE(s.root);
      CAPTURE(s.in_place);
      CAPTURE(s.segments);
      CAPTURE(v.why);
      CHECK(v.within_bound);
      // Integers and data movement: bit for bit (NaN payloads aside).
      if (!is_floating(s.dtype) || !is_reducing(s.collective))
        for (int r = 0; r < s.world_size; ++r) CHECK(same_bits(s.dtype, res.outputs[r], want[r]));
      bool identical = true;
      if (promises_identical_outputs(s.collective))
        for (int r = 1; r < s.world_size; ++r) identical = identical && same_bits(s.dtype, res.outputs[r], res.outputs[0]);
      CHECK(v.identical_ranks == identical);
      if (promises_identical_outputs(s.collective) && reduces_once(s, in)) CHECK(identical);
      CHECK(v.ok == (v.within_bound && v.identical_ranks));
      ++ran;
    }
    CHECK(ran == cases);
  }
}
