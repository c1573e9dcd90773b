// The order-exact verdict (core/ir/order_verdict.h) on the MPI backend, a
// small sample of tests/core/ir/test_order_property.cpp at the world size
// mpirun gave: every reducing collective and algorithm on overflow-prone
// float16 / bfloat16 / float32 inputs; each run equals its own order bit for
// bit, and one flipped bit is never ok. Part of suite mpi_reducing (no new
// mpirun launches).
#include <cmath>

#include "core/ir/order_arith.h"
#include "core/ir/order_verdict.h"
#include "core/algorithms/registry.h"
#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

TEST_SUITE("mpi_reducing") {
  TEST_CASE("hostile float inputs: every run equals its own order's exact result, a flipped bit does not") {
    const int n = mpi_world_size();
    std::mt19937_64 g(38);
    const double hostile[] = {65504, -65504, 300, 0, -0.0, 1e30, -3e38, 3e38, 2.5, NAN, INFINITY};
    int runs = 0;
    for (Collective c : {Collective::all_reduce, Collective::reduce, Collective::reduce_scatter})
      for (const auto& alg : algorithms_for(c))
        for (DType t : {DType::float16, DType::bfloat16, DType::float32}) {
          // nvls needs a switch endpoint, which only the threads backend runs
          if (const AlgorithmInfo* info = find_algorithm(alg, c); info && info->in_network) continue;
          CollectiveSpec s;
          s.collective = c;
          s.algorithm = alg;
          s.world_size = n;
          s.count = 3;
          s.dtype = t;
          s.op = (runs % 2) ? ReduceOp::prod : ReduceOp::sum;
          s.root = runs % n;
          s.in_place = runs % 3 == 0;
          ++runs;
          Schedule sch;
          if (!try_schedule(s, sch)) continue;
          RankData in(n);
          for (int r = 0; r < n; ++r) {
            in[r].resize(static_cast<size_t>(s.input_count(r)) * dtype_size(t));
            for (int64_t i = 0; i < s.input_count(r); ++i) {
              double v = hostile[g() % std::size(hostile)];
              if (t == DType::float16 && std::isfinite(v) && std::fabs(v) > 65504) v = std::copysign(65504.0, v);
              kernels::store_double(t, in[r].data(), i, v);
            }
          }
          RunOptions opt;
          opt.record = false;
          RunResult m = run_mpi(sch, in, opt);
          if (mpi_rank() != 0) continue;
          CAPTURE(name(c));
          CAPTURE(alg);
          CAPTURE(name(t));
          CAPTURE(name(s.op));
          const RunVerdict v = verify_run(sch, in, m.outputs);
          CAPTURE(v.why);
          CHECK(v.matches_order);
          CHECK((v.within_bound || v.order_dependent));
          for (int r = 0; r < n; ++r) {
            if (m.outputs[r].empty()) continue;
            const uint64_t x = order::load(t, m.outputs[r].data(), 0);
            const int bit = order::is_nan(t, x) ? static_cast<int>(dtype_size(t) * 8 - 2) : 0;
            order::store(t, m.outputs[r].data(), 0, x ^ (uint64_t{1} << bit));
            CHECK_FALSE(verify_run(sch, in, m.outputs).ok);
            break;
          }
        }
    CHECK(runs > 0);
  }
}
