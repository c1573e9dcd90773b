// Fault drills for the MPI backend (run by CTest under mpirun, with
// MICRODDP_MPI_TIMEOUT set low). Usage: test_mpi_fault MODE VICTIM
//   absent  the victim never calls run_mpi (it sleeps): rank 0 must report
//           "rank 0 waited ... for rank VICTIM" and abort the job.
//   stuck   the victim hangs after step 0 of a lockstep ring: the first
//           rank to wait for it (its ring successor, or rank 0 at the
//           barrier after step 1) names it and aborts the job.
//   die     the victim kills itself after step 0: mpirun names it
//           ("process rank VICTIM") and ends the others.
// Every mode must end well within CTest's TIMEOUT; none may exit 0.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "core/algorithms/registry.h"
#include "core/exec/mpi/backend_mpi.h"

using namespace microddp;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s absent|stuck|die VICTIM\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int victim = std::atoi(argv[2]);
  mpi_init_once();
  const int me = mpi_rank();
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = mpi_world_size();
  s.count = 64;
  const Schedule sch = make_schedule(s);
  RankData in(s.world_size, std::vector<std::byte>(s.count * 4));
  if (mode == "absent" && me == victim) {
    std::this_thread::sleep_for(std::chrono::seconds(120));
    return 0;
  }
  RunOptions opt;
  opt.on_step = [&](int st) {
    if (me != victim || st != 0) return;
    if (mode == "stuck") std::this_thread::sleep_for(std::chrono::seconds(120));
    if (mode == "die") std::raise(SIGKILL);
  };
  run_mpi(sch, in, opt);
  std::printf("rank %d: the run finished although rank %d failed\n", me, victim);
  mpi_finalize_if_needed();
  return 0;
}
