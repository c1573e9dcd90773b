// doctest under mpirun: every rank runs the same test cases in the same
// order (each run_mpi call is collective), so tests use CHECK, never
// REQUIRE, around collective calls. Rank 0 prints the full report; the
// others print only their failures.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/exec/mpi/backend_mpi.h"

int main(int argc, char** argv) {
  // Test-only: force coll/tuned's choice before MPI starts, as
  // `microddp bench --mpi-algorithm` does (tests/mpi/test_mpi_library.cpp
  // checks that Open MPI took it).
  if (const char* a = std::getenv("MICRODDP_TEST_MPI_ALLREDUCE_ALGORITHM"))
    microddp::mpi_force_library_algorithm(microddp::Collective::all_reduce, a);
  microddp::mpi_init_once();
  doctest::Context ctx;
  ctx.setOption("no-colors", true);
  if (microddp::mpi_rank() != 0) ctx.setOption("minimal", true);
  ctx.applyCommandLine(argc, argv);
  const int rc = ctx.run();
  microddp::mpi_finalize_if_needed();
  return rc;
}
