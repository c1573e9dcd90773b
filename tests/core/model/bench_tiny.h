// Small bench options for the bench tests (test_bench*.cpp): tiny(c, n) runs
// every algorithm of c on n ranks at 64 .. 1024 B (factor 4, 2 iterations,
// checked, α = 1 µs, β = 1 ns/B); three_sizes(): naive and ring all-reduce
// on 2 ranks at 1024, 2048 and 4096 B.
#pragma once

#include "core/algorithms/registry.h"
#include "core/model/bench.h"

namespace microddp::bench_test {

inline BenchOptions tiny(Collective c, int n) {
  BenchOptions o;
  o.collective = c;
  o.algorithms = algorithms_for(c);
  o.world_size = n;
  o.min_bytes = 64;
  o.max_bytes = 1024;
  o.factor = 4;
  o.iters = 2;
  o.warmup = 1;
  o.check = true;
  CostParams p;
  p.alpha = 1e-6;
  p.beta = 1e-9;
  o.params = p;
  return o;
}
// naive and ring all-reduce on 2 ranks over 1024, 2048 and 4096 B.
inline BenchOptions three_sizes() {
  BenchOptions o = tiny(Collective::all_reduce, 2);
  o.algorithms = {"naive", "ring"};
  o.min_bytes = 1024;
  o.max_bytes = 4096;
  o.factor = 2;
  return o;
}

}  // namespace microddp::bench_test
