// Shared by the cache-aware model's tests (test_cache_curve.cpp,
// test_coherence.cpp, test_cache_sweep.cpp): KiB / MiB, schedules by
// collective and algorithm, and the two hand-made machines (huge_l3,
// small_l3) whose cache curves have three plateaus.
#pragma once

#include <cstdint>
#include <string>

#include "core/algorithms/registry.h"
#include "core/model/cost_model.h"

namespace microddp::cache_test {

inline constexpr double KiB = 1024, MiB = 1024 * 1024;

inline CollectiveSpec ring_all_reduce(int n, int64_t bytes) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = bytes / 4;  // float32
  return s;
}

inline Schedule schedule_of(Collective c, const char* alg, int n, int64_t count, bool in_place = false) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.in_place = in_place;
  return make_schedule(s);
}

// A calibrate-shaped curve (footprints 8 KiB .. 1 GiB, doubling) with three
// plateaus: `l2` up to l2_end, `l3` up to l3_end, `dram` beyond; β, γ and δ
// share the plateaus' speeds (bytes/s), scaled so they stay distinguishable.
struct Level {
  double beta, gamma, delta;  // s/B
};
inline CacheCurve plateau_curve(double l2_end, double l3_end, Level l2, Level l3, Level dram) {
  CacheCurve c;
  for (double f = 8 * KiB; f <= 1024 * MiB; f *= 2) {
    const Level& v = f <= l2_end ? l2 : f <= l3_end ? l3 : dram;
    c.footprint_bytes.push_back(f);
    c.beta.push_back(v.beta);
    c.gamma.push_back(v.gamma);
    c.delta.push_back(v.delta);
  }
  return c;
}

// Per-byte costs (s/B) of the three levels, the same on both machines so
// only the cache sizes differ: L2 40 GB/s, L3 16 GB/s, DRAM 7.8 GB/s (the
// flat profile's large-message bandwidth on the 2-core Intel Xeon with a
// 260 MiB L3); reductions a quarter slower, copies a quarter faster.
const Level kL2{1 / 40e9, 1.25 / 40e9, 0.75 / 40e9};
const Level kL3{1 / 16e9, 1.25 / 16e9, 0.75 / 16e9};
const Level kDram{1 / 7.8e9, 1.25 / 7.8e9, 0.75 / 7.8e9};

inline CostParams machine(const CacheCurve& c) {
  CostParams p;
  p.name = "threads";
  p.alpha = 1e-6;
  p.beta = kDram.beta;  // the flat values: what a profile without a curve uses
  p.gamma = kDram.gamma;
  p.delta = kDram.delta;
  p.fused_recv_reduce = true;
  p.cores = 2;
  p.cache = c;
  return p;
}
// 2 cores with 2 MiB of L2 each and a 260 MiB L3 (the Intel Xeon model 207).
inline CostParams huge_l3() { return machine(plateau_curve(2 * MiB, 256 * MiB, kL2, kL3, kDram)); }
// 2 cores with 512 KiB of L2 each and a 4 MiB L3.
inline CostParams small_l3() { return machine(plateau_curve(512 * KiB, 4 * MiB, kL2, kL3, kDram)); }

}  // namespace microddp::cache_test
