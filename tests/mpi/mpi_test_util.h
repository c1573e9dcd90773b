// Shared by the MPI suites: inputs whose float sums depend on the order of
// the additions (so "bit-identical to the threads backend" means the same
// order of operations, not just the same numbers), and a runner that
// compares run_mpi with run_threads on rank 0.
#pragma once
#include <doctest/doctest.h>

#include <random>

#include "core/algorithms/registry.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/exec/executor.h"

namespace microddp::mpitest {

inline RankData mixed_inputs(const CollectiveSpec& s, uint64_t seed) {
  RankData in(s.world_size);
  std::mt19937_64 g(seed);
  for (int r = 0; r < s.world_size; ++r) {
    const int64_t c = s.input_count(r);
    in[r].resize(static_cast<size_t>(c) * dtype_size(s.dtype));
    for (int64_t i = 0; i < c; ++i) {
      const double u = static_cast<double>(g() % 2001) / 1000.0 - 1.0;  // -1..1, not exact in binary
      double v = u * 3.7;
      if (s.op == ReduceOp::prod) v = 1.0 + u / 8;
      if (!is_floating(s.dtype)) v = static_cast<double>(static_cast<int64_t>(g() % 2000001) - 1000000);
      if (s.op == ReduceOp::prod && !is_floating(s.dtype)) v = static_cast<double>(g() % 7) - 3;
      kernels::store_double(s.dtype, in[r].data(), i, v);
    }
  }
  return in;
}

// make_schedule is deterministic, so when it refuses a spec every rank
// refuses it alike and skips together.
inline bool try_schedule(const CollectiveSpec& s, Schedule& out) {
  try {
    out = make_schedule(s);
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

// Runs on MPI (collective) and, on rank 0, on threads; checks every rank's
// output bit for bit. Returns the number of runs (0 when skipped).
inline int same_as_threads(const CollectiveSpec& s, Mode mode, uint64_t seed) {
  Schedule sch;
  if (!try_schedule(s, sch)) return 0;
  const RankData in = mixed_inputs(s, seed);
  RunOptions opt;
  opt.mode = mode;
  opt.record = false;
  const RunResult m = run_mpi(sch, in, opt);
  if (mpi_rank() == 0) {
    const RunResult t = run_threads(sch, in, opt);
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
    CAPTURE(s.channels);
    CAPTURE(name(mode));
    for (int r = 0; r < s.world_size; ++r) {
      CAPTURE(r);
      CHECK(m.outputs[r] == t.outputs[r]);
    }
  }
  return 1;
}

inline bool rooted(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter;
}
inline bool has_v(Collective c) {
  return c == Collective::gather || c == Collective::scatter || c == Collective::all_gather ||
         c == Collective::reduce_scatter;
}

}  // namespace microddp::mpitest
