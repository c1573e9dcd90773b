// --mpi-algorithm's name -> (MCA parameter, number) mapping: the variable
// must be the one that tunes the call bench makes (equal counts), with that
// variable's own numbering. Numbers from `ompi_info --param coll tuned
// --level 9` (Open MPI 4.1.4). Pure lookup: no MPI started.
#include <doctest/doctest.h>

#include "core/exec/mpi/backend_mpi.h"

using namespace microddp;

TEST_SUITE("mpi_tuned_choice") {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  TEST_CASE("reduce_scatter: MPI_Reduce_scatter_block's variable and numbering") {
    CHECK(mpi_library_algorithms(Collective::reduce_scatter) ==
          std::vector<std::string>{"basic_linear", "recursive_doubling", "recursive_halving", "butterfly"});
    const char* block = "coll_tuned_reduce_scatter_block_algorithm";
    const std::pair<const char*, int> want[] = {
        {"basic_linear", 1}, {"recursive_doubling", 2}, {"recursive_halving", 3}, {"butterfly", 4}};
    for (const auto& [alg, number] : want) {
      CAPTURE(alg);
      const MpiTunedChoice c = mpi_tuned_choice(Collective::reduce_scatter, alg);
      CHECK(c.param == block);
      CHECK(c.number == number);  // coll_tuned_reduce_scatter_algorithm numbers them 2 and 4 (halving, butterfly)
    }
    // MPI_Reduce_scatter's names that the block variant lacks.
    CHECK_THROWS_WITH_AS(mpi_tuned_choice(Collective::reduce_scatter, "ring"),
                         "Open MPI algorithm 'ring' is MPI_Reduce_scatter's (counts that differ per rank), but bench "
                         "calls MPI_Reduce_scatter_block (equal counts), whose "
                         "coll_tuned_reduce_scatter_block_algorithm has no 'ring' (expected one of: basic_linear, "
                         "recursive_doubling, recursive_halving, butterfly)",
                         UsageError);
    CHECK_THROWS_WITH_AS(mpi_tuned_choice(Collective::reduce_scatter, "non-overlapping"),
                         doctest::Contains("'non-overlapping' is MPI_Reduce_scatter's"), UsageError);
    CHECK_THROWS_WITH_AS(mpi_tuned_choice(Collective::reduce_scatter, "bogus"),
                         "unknown Open MPI algorithm 'bogus' for reduce_scatter (expected one of: basic_linear, "
                         "recursive_doubling, recursive_halving, butterfly)",
                         UsageError);
  }
  TEST_CASE("all_gather: MPI_Allgather's variable; allgatherv's 'default' is refused") {
    const MpiTunedChoice ring = mpi_tuned_choice(Collective::all_gather, "ring");
    CHECK(ring.param == "coll_tuned_allgather_algorithm");
    CHECK(ring.number == 4);  // allgatherv numbers ring 3
    CHECK(mpi_tuned_choice(Collective::all_gather, "two_proc").number == 6);
    CHECK_THROWS_WITH_AS(mpi_tuned_choice(Collective::all_gather, "default"),
                         doctest::Contains("bench calls MPI_Allgather (equal counts), whose "
                                           "coll_tuned_allgather_algorithm has no 'default'"),
                         UsageError);
  }
  TEST_CASE("two_proc runs on 2 ranks only: any other world size is refused before MPI starts") {
    for (Collective c : {Collective::all_gather, Collective::all_to_all, Collective::barrier}) {
      CAPTURE(name(c));
      CHECK_NOTHROW(mpi_check_library_algorithm_ranks(c, "two_proc", 2));
    }
    CHECK_THROWS_WITH_AS(mpi_check_library_algorithm_ranks(Collective::all_gather, "two_proc", 3),
                         "Open MPI algorithm 'two_proc' (coll_tuned_allgather_algorithm 6) runs on exactly 2 ranks, "
                         "not on 3: Open MPI fails the call (MPI_ERR_UNSUPPORTED_OPERATION) and aborts the job; run it "
                         "under mpirun -n 2, or force another all_gather algorithm: linear, bruck, recursive_doubling, "
                         "ring, neighbor",
                         UsageError);
    CHECK_THROWS_WITH_AS(mpi_check_library_algorithm_ranks(Collective::barrier, "two_proc", 1),
                         doctest::Contains("(coll_tuned_barrier_algorithm 5) runs on exactly 2 ranks, not on 1: "
                                           "coll/self serves a 1-rank call, so two_proc would never run;"),
                         UsageError);
    // Other algorithms take any size; an unknown name is still refused by name.
    CHECK_NOTHROW(mpi_check_library_algorithm_ranks(Collective::all_gather, "ring", 3));
    CHECK_THROWS_WITH_AS(mpi_check_library_algorithm_ranks(Collective::all_reduce, "two_proc", 2),
                         doctest::Contains("unknown Open MPI algorithm 'two_proc' for all_reduce"), UsageError);
  }
  TEST_CASE("all_reduce and barrier: one variable each") {
    const MpiTunedChoice rd = mpi_tuned_choice(Collective::all_reduce, "recursive_doubling");
    CHECK(rd.param == "coll_tuned_allreduce_algorithm");
    CHECK(rd.number == 3);
    CHECK(mpi_tuned_choice(Collective::all_reduce, "rabenseifner").number == 6);
    const MpiTunedChoice tree = mpi_tuned_choice(Collective::barrier, "tree");
    CHECK(tree.param == "coll_tuned_barrier_algorithm");
    CHECK(tree.number == 6);
  }
#endif
}
