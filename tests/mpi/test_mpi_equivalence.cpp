// The MPI backend computes exactly what the threads backend computes: same
// RankProgram, same kernels, same order of reductions; only the transport
// differs. Every collective x algorithm, at the world size mpirun gave,
// over counts (including 0 and counts below n), roots, in-place, dtypes
// and ops, both modes.
#include "core/algorithms/registry.h"
#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

namespace {

struct DT {
  DType dtype;
  ReduceOp op;
};

int run_family(bool reducing) {
  const int n = mpi_world_size();
  // Every dtype and every op appear; pairs chosen so the order of float
  // operations matters (sum, avg of non-exact values) and so 2-byte types
  // round per hop.
  const std::vector<DT> red = {{DType::float32, ReduceOp::sum}, {DType::float16, ReduceOp::sum},
                               {DType::bfloat16, ReduceOp::avg}, {DType::float64, ReduceOp::prod},
                               {DType::int32, ReduceOp::avg},    {DType::int64, ReduceOp::max},
                               {DType::float32, ReduceOp::min}};
  const std::vector<DT> mov = {{DType::float32, ReduceOp::sum}, {DType::float16, ReduceOp::sum},
                               {DType::int64, ReduceOp::sum}};
  int runs = 0, combo = 0;
  for (Collective c : all_collectives()) {
    if (is_reducing(c) != reducing) continue;
    for (const auto& alg : algorithms_for(c)) {
      const auto& dts = reducing ? red : mov;
      // An in-network algorithm (nvls) needs a switch endpoint, which only
      // the threads backend runs: the mpi backend refuses it (tested apart).
      if (const AlgorithmInfo* info = find_algorithm(alg, c); info && info->in_network) continue;
      // NCCL's algorithms (issue 35) on a small sample: every other dtype
      // (one_shot / two_shot through the shared-memory window here, the
      // job being on one node; tests/mpi/test_mpi_shm.cpp covers them).
      const bool sample = alg == "double_binary_tree" || alg == "one_shot" || alg == "two_shot";
      for (int64_t count : {int64_t{0}, int64_t{1}, int64_t(n + 1), int64_t{37}})
        for (size_t d = 0; d < dts.size(); ++d) {
          if (count == 0 && d > 0) continue;  // empty buffers: once is enough
          if (sample && d % 2 == 1) continue;
          if (c == Collective::barrier && (count > 0 || d > 0)) continue;
          ++combo;
          CollectiveSpec s;
          s.collective = c;
          s.algorithm = alg;
          s.world_size = n;
          s.count = count;
          s.dtype = dts[d].dtype;
          s.op = dts[d].op;
          s.root = rooted(c) ? (combo % n) : 0;
          s.in_place = combo % 3 == 1;
          s.segments = ((alg == "ring" || alg == "double_binary_tree") && combo % 2 == 0) ? 2 : 1;
          // channels: the ring unsegmented, the double tree with or without segments
          if ((alg == "ring" && s.segments == 1) || alg == "double_binary_tree") s.channels = combo % 3 == 0 ? 2 : 1;
          const Mode mode = combo % 4 == 3 ? Mode::free : Mode::lockstep;
          runs += same_as_threads(s, mode, 1000 + combo);
        }
      // The "v" variants: uneven blocks, one of them empty.
      if (has_v(c)) {
        CollectiveSpec s;
        s.collective = c;
        s.algorithm = alg;
        s.world_size = n;
        for (int r = 0; r < n; ++r) s.counts.push_back(r == 1 ? 0 : 2 * r + 3);
        s.dtype = reducing ? DType::float32 : DType::int32;
        s.root = rooted(c) ? n - 1 : 0;
        runs += same_as_threads(s, Mode::lockstep, 77);
        s.in_place = true;
        runs += same_as_threads(s, Mode::free, 78);
      }
    }
  }
  return runs;
}

}  // namespace

TEST_SUITE("mpi_reducing") {
  TEST_CASE("reduce, all_reduce, reduce_scatter: every algorithm bit-identical to threads") {
    CHECK(run_family(true) > 0);
  }
  TEST_CASE("a large all_reduce (pieces of many chunks, staged recv_reduce) matches threads") {
    const int n = mpi_world_size();
    for (const char* alg : {"ring", "halving_doubling"}) {
      CollectiveSpec s;
      s.collective = Collective::all_reduce;
      s.algorithm = alg;
      s.world_size = n;
      s.count = 100003;
      s.segments = std::string(alg) == "ring" ? 3 : 1;
      same_as_threads(s, Mode::free, 5);
    }
  }
  TEST_CASE("iterations repeat the run and give the same bits") {
    const int n = mpi_world_size();
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = n;
    s.count = 29;
    const Schedule sch = make_schedule(s);
    const RankData in = mixed_inputs(s, 9);
    RunOptions once, thrice;
    thrice.iterations = 3;
    thrice.mode = Mode::free;
    const RunResult a = run_mpi(sch, in, once);
    const RunResult b = run_mpi(sch, in, thrice);
    CHECK(a.outputs[mpi_rank()] == b.outputs[mpi_rank()]);
    if (mpi_rank() == 0) CHECK(a.outputs == b.outputs);
    // Per-iteration times, the same on every rank (rank 0's clock).
    CHECK(a.trace.iteration_ns.size() == 1);
    REQUIRE(b.trace.iteration_ns.size() == 3);
    for (int64_t t : b.trace.iteration_ns) CHECK(t > 0);
  }
  TEST_CASE("buffer rotation: every set computes the same bits as threads") {
    const int n = mpi_world_size();
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = n;
    s.count = 31;
    s.dtype = DType::float16;
    const Schedule sch = make_schedule(s);
    const RankData in = mixed_inputs(s, 12);
    RunOptions opt;
    opt.iterations = 5;
    opt.buffer_sets = 3;
    opt.record = false;
    const RunResult m = run_mpi(sch, in, opt);
    CHECK(m.trace.iteration_ns.size() == 5);
    if (mpi_rank() == 0) CHECK(m.outputs == run_threads(sch, in, opt).outputs);
  }
}

TEST_SUITE("mpi_moving") {
  TEST_CASE("broadcast, gather, scatter, all_gather, all_to_all, barrier: every algorithm bit-identical to threads") {
    CHECK(run_family(false) > 0);
  }
}
