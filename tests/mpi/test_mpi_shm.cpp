// one_shot and two_shot through the MPI shared-memory window
// (core/exec/mpi/shm_window.cpp) at the world size mpirun gave (all ranks
// on this machine: one node): every dtype x op, in place and out of place,
// lockstep and free; the window path is taken (mpi_window_runs counts it)
// and every rank's output equals the order-exact reference bit for bit.
// The same with MICRODDP_MPI_SHM=0 (set alike on every rank) takes the
// message path. A value other than 0 / 1 is refused on every rank.
#include <algorithm>
#include <cstdlib>

#include "core/ir/order_reference.h"
#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

namespace {

// Sets MICRODDP_MPI_SHM for one scope (every rank does the same).
struct ShmEnv {
  explicit ShmEnv(const char* v) {
    if (v) setenv("MICRODDP_MPI_SHM", v, 1);
    else unsetenv("MICRODDP_MPI_SHM");
  }
  ~ShmEnv() { unsetenv("MICRODDP_MPI_SHM"); }
};

// Runs s on MPI; checks that it went through the window exactly when
// `window`, and (rank 0, which holds every output) that the outputs equal
// the order-exact reference. Returns the number of runs.
int check_run(const CollectiveSpec& s, bool window, const RunOptions& opt, uint64_t seed) {
  const Schedule sch = make_schedule(s);
  const RankData in = mixed_inputs(s, seed);
  const int64_t before = mpi_window_runs();
  const RunResult m = run_mpi(sch, in, opt);
  CAPTURE(s.algorithm);
  CAPTURE(s.world_size);
  CAPTURE(s.count);
  CAPTURE(name(s.dtype));
  CAPTURE(name(s.op));
  CAPTURE(s.in_place);
  CAPTURE(window);
  CHECK(mpi_window_runs() - before == (window ? 1 : 0));
  if (mpi_rank() == 0) {
    // In place, every iteration on buffer set 0 (0, sets, 2·sets, ...)
    // reduces the previous one's result again.
    const int sets = std::max(1, opt.buffer_sets), its = std::max(1, opt.iterations);
    const int rounds = s.in_place ? (its + sets - 1) / sets : 1;
    RankData want = in;
    for (int k = 0; k < rounds; ++k) want = order_exact_outputs(sch, want);
    REQUIRE(m.outputs.size() == want.size());
    for (int r = 0; r < s.world_size; ++r) {
      CAPTURE(r);
      CHECK(m.outputs[r].size() == static_cast<size_t>(s.output_count(r)) * dtype_size(s.dtype));
      CHECK(m.outputs[r] == want[r]);
    }
  }
  return 1;
}

int every_dtype_and_op(bool window) {
  const int n = mpi_world_size();
  int runs = 0, combo = 0;
  for (const char* alg : {"one_shot", "two_shot"})
    for (DType t : all_dtypes())
      for (ReduceOp op : all_ops())
        for (bool in_place : {false, true}) {
          ++combo;
          CollectiveSpec s;
          s.collective = Collective::all_reduce;
          s.algorithm = alg;
          s.world_size = n;
          s.count = combo % 5 == 0 ? n - 1 : 2 * n + 3;  // uneven blocks; some empty for two_shot
          s.dtype = t;
          s.op = op;
          s.in_place = in_place;
          RunOptions opt;
          opt.record = false;
          opt.mode = combo % 4 == 3 ? Mode::free : Mode::lockstep;
          runs += check_run(s, window, opt, 500 + combo);
        }
  return runs;
}

}  // namespace

TEST_SUITE("mpi_shm") {
  TEST_CASE("one_shot and two_shot read through the shared-memory window: every dtype and op, equal to the order") {
    ShmEnv env(nullptr);
    const int runs = every_dtype_and_op(true);
    CHECK(runs == 2 * static_cast<int>(all_dtypes().size() * all_ops().size()) * 2);
  }

  TEST_CASE("MICRODDP_MPI_SHM=0: the same runs as plain messages, the same bits") {
    ShmEnv env("0");
    const int runs = every_dtype_and_op(false);
    CHECK(runs == 2 * static_cast<int>(all_dtypes().size() * all_ops().size()) * 2);
  }

  TEST_CASE("the window holds every buffer set and the step repetitions' copy") {
    ShmEnv env("1");
    const int n = mpi_world_size();
    for (const char* alg : {"one_shot", "two_shot"}) {
      CollectiveSpec s;
      s.collective = Collective::all_reduce;
      s.algorithm = alg;
      s.world_size = n;
      s.count = 3 * n + 1;
      s.dtype = DType::float32;
      RunOptions opt;
      opt.iterations = 3;
      opt.buffer_sets = 2;
      opt.repeat_steps = 2;
      opt.record = true;
      check_run(s, true, opt, 7);
      s.in_place = true;
      check_run(s, true, opt, 8);
    }
  }

  TEST_CASE("other algorithms keep their messages") {
    ShmEnv env(nullptr);
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = mpi_world_size();
    s.count = 11;
    RunOptions opt;
    opt.record = false;
    check_run(s, false, opt, 9);
  }

  TEST_CASE("MICRODDP_MPI_SHM=2 is refused on every rank, naming the value") {
    ShmEnv env("2");
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "one_shot";
    s.world_size = mpi_world_size();
    s.count = 4;
    const Schedule sch = make_schedule(s);
    const RankData in = mixed_inputs(s, 3);
    CHECK_THROWS_WITH_AS(run_mpi(sch, in), doctest::Contains("MICRODDP_MPI_SHM=2: give 0"), UsageError);
  }

  TEST_CASE("a bad MICRODDP_MPI_SHM on the last rank alone: every rank refuses, that rank naming the value") {
    const int n = mpi_world_size(), me = mpi_rank();
    ShmEnv env(me == n - 1 ? "yes" : nullptr);
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "two_shot";
    s.world_size = n;
    s.count = 5;
    const Schedule sch = make_schedule(s);
    const RankData in = mixed_inputs(s, 4);
    const char* says = me == n - 1 ? "MICRODDP_MPI_SHM=yes: give 0" : "another rank's MICRODDP_MPI_SHM is neither";
    CHECK_THROWS_WITH_AS(run_mpi(sch, in), doctest::Contains(says), UsageError);
    // The job goes on: the next run takes the window on every rank.
    unsetenv("MICRODDP_MPI_SHM");
    RunOptions opt;
    opt.record = false;
    check_run(s, true, opt, 5);
  }
}
