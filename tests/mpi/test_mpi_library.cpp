// Open MPI's own collectives beside ours: the same inputs give the same
// outputs (bit for bit where the order of operations cannot matter; within
// the reference's float tolerance otherwise), and --mpi-algorithm reaches
// coll/tuned.
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "core/ir/reference.h"
#include "core/model/bench.h"
#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

namespace {

// Reads an int or bool MCA variable through the MPI tool interface (MPI-3 MPI_T).
bool read_cvar(const char* want, int& value) {
  int provided = 0, num = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_cvar_get_num(&num);
  bool found = false;
  for (int i = 0; i < num && !found; ++i) {
    char name[256], desc[1024];
    int nlen = sizeof name, dlen = sizeof desc, verb = 0, bind = 0, scope = 0;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) != MPI_SUCCESS) continue;
    if (std::strcmp(name, want) != 0) continue;
    MPI_T_cvar_handle h;
    int count = 0;
    MPI_T_cvar_handle_alloc(i, nullptr, &h, &count);
    alignas(8) unsigned char buf[64] = {};
    MPI_T_cvar_read(h, buf);
    if (dt == MPI_INT) std::memcpy(&value, buf, sizeof value);
    else value = buf[0];  // a bool
    MPI_T_cvar_handle_free(&h);
    found = true;
  }
  MPI_T_finalize();
  return found;
}

void check_library(const CollectiveSpec& s) {
  const RankData in = mixed_inputs(s, 11);
  const MpiLibraryResult lib = run_mpi_library(s, in, 2, 1);
  CAPTURE(name(s.collective));
  CAPTURE(name(s.dtype));
  CAPTURE(name(s.op));
  CAPTURE(s.counts.size());
  CHECK(lib.function == mpi_library_function(s));
  CHECK(lib.seconds >= 0);
  CHECK(lib.outputs[mpi_rank()].size() == static_cast<size_t>(s.output_count(mpi_rank())) * dtype_size(s.dtype));
  if (mpi_rank() != 0) return;
  const RankData want = reference_outputs(s, in);
  const bool exact = !is_reducing(s.collective) || !is_floating(s.dtype) || s.op == ReduceOp::min ||
                     s.op == ReduceOp::max;
  if (exact) {
    CHECK(lib.outputs == want);
  } else {
    std::string why;
    CHECK_MESSAGE(outputs_match(s, in, lib.outputs, want, &why), why);
  }
}

}  // namespace

TEST_SUITE("mpi_library") {
  TEST_CASE("every collective through Open MPI equals the reference") {
    const int n = mpi_world_size();
    for (Collective c : all_collectives())
      for (DType t : {DType::float32, DType::int32, DType::float16, DType::bfloat16})
        for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::avg}) {
          if (!is_reducing(c) && op != ReduceOp::sum) continue;
          if (c == Collective::barrier && t != DType::float32) continue;
          CollectiveSpec s;
          s.collective = c;
          s.algorithm = "mpi";
          s.world_size = n;
          s.count = c == Collective::barrier ? 0 : 2 * n + 3;
          s.dtype = t;
          s.op = op;
          s.root = rooted(c) ? n - 1 : 0;
          check_library(s);
          if (has_v(c)) {
            for (int r = 0; r < n; ++r) s.counts.push_back(r == 1 ? 0 : r + 2);
            check_library(s);
          }
        }
  }
  TEST_CASE("function names") {
    CollectiveSpec s;
    s.collective = Collective::reduce_scatter;
    CHECK(mpi_library_function(s) == "MPI_Reduce_scatter_block");
    s.world_size = 2;
    s.counts = {1, 2};
    CHECK(mpi_library_function(s) == "MPI_Reduce_scatter");
    s.collective = Collective::all_reduce;
    CHECK(mpi_library_function(s) == "MPI_Allreduce");
  }
  TEST_CASE("--mpi-algorithm: names, refusals, and coll/tuned takes the choice") {
    const auto algs = mpi_library_algorithms(Collective::all_reduce);
    CHECK(algs == std::vector<std::string>{"basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                                           "segmented_ring", "rabenseifner"});
    CHECK_THROWS_WITH_AS(mpi_force_library_algorithm(Collective::all_reduce, "bogus"),
                         doctest::Contains("unknown Open MPI algorithm 'bogus' for all_reduce"), UsageError);
    // MPI is running: too late to choose.
    CHECK_THROWS_WITH_AS(mpi_force_library_algorithm(Collective::all_reduce, "ring"),
                         doctest::Contains("before MPI starts"), UsageError);
    if (const char* forced = std::getenv("MICRODDP_TEST_MPI_ALLREDUCE_ALGORITHM")) {
      int value = -1;
      REQUIRE(read_cvar("coll_tuned_allreduce_algorithm", value));
      const auto it = std::find(algs.begin(), algs.end(), std::string(forced));
      REQUIRE(it != algs.end());
      CHECK(value == static_cast<int>(it - algs.begin()) + 1);
      int dynamic = -1;
      REQUIRE(read_cvar("coll_tuned_use_dynamic_rules", dynamic));
      CHECK(dynamic == 1);
    }
  }
  TEST_CASE("the MCA settings bench names Open MPI's algorithm from, read through MPI_T") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.world_size = mpi_world_size();
    s.count = 1024;
    const MpiCollSettings st = mpi_coll_settings(s);
    REQUIRE(st.read);
    CHECK(st.function == "MPI_Allreduce");
    CHECK(st.library.rfind("Open MPI v", 0) == 0);
    CHECK(st.library.find('\n') == std::string::npos);
    int tuned = -1;
    REQUIRE(read_cvar("coll_tuned_priority", tuned));
    CHECK(st.tuned_priority == tuned);
    CHECK(st.forced_param == "coll_tuned_allreduce_algorithm");
    if (const char* forced = std::getenv("MICRODDP_TEST_MPI_ALLREDUCE_ALGORITHM")) {
      CHECK(st.dynamic_rules);
      CHECK(st.forced == forced);
      if (s.world_size > 1)
        CHECK(mpi_algorithm_label(st, Collective::all_reduce, s.world_size, 4096) ==
              std::string(forced) + " (forced: coll_tuned_allreduce_algorithm)");
    } else if (!std::getenv("OMPI_MCA_coll_tuned_use_dynamic_rules")) {
      CHECK_FALSE(st.dynamic_rules);
      CHECK(st.forced.empty());
    }
    // Both readers agree on every priority read.
    for (const auto& [comp, prio] : st.priorities) {
      int v = -1;
      CAPTURE(comp);
      REQUIRE(read_cvar(("coll_" + comp + "_priority").c_str(), v));
      CHECK(prio == v);
    }
  }
}
