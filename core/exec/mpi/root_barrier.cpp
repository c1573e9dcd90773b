// The barrier through rank 0 (start, iterations, lockstep steps).
#include "core/exec/mpi/mpi_internal.h"

namespace microddp::mpi_detail {

// ---- a barrier through rank 0, so a missing rank can be named ----
// The release carries rank 0's clock at the moment every rank had arrived.
int64_t root_barrier(int me, int n, const char* where, int step, const std::function<void(int)>* on_step) {
  int64_t t = 0;
  if (n == 1) {
    if (on_step && *on_step) (*on_step)(step);
    return clock_ns();
  }
  auto place = [&] { return step >= 0 ? fmt::format("{} after step {}", where, step) : std::string(where); };
  if (me == 0) {
    std::vector<int32_t> tokens(n);
    std::vector<MPI_Request> reqs(n - 1);
    for (int r = 1; r < n; ++r) MPI_Irecv(&tokens[r], 1, MPI_INT32_T, r, kTagArrive, g_comm, &reqs[r - 1]);
    wait_reqs(reqs.data(), n - 1, mpi_timeout(), [&] {
      return fmt::format("rank 0 waited {} s for {} at the {} (dead or hung)", mpi_timeout(), pending_ranks(reqs),
                         place());
    });
    // Every rank finished the step and none started the next: the moment
    // the threads backend calls on_step too.
    if (on_step && *on_step) (*on_step)(step);
    t = clock_ns();
    std::vector<MPI_Request> sends(n - 1);
    for (int r = 1; r < n; ++r) MPI_Isend(&t, 1, MPI_INT64_T, r, kTagRelease, g_comm, &sends[r - 1]);
    wait_reqs(sends.data(), n - 1, mpi_timeout(), [&] { return fmt::format("rank 0 could not release the {}", place()); });
  } else {
    const int32_t token = step;
    MPI_Request reqs[2];
    MPI_Irecv(&t, 1, MPI_INT64_T, 0, kTagRelease, g_comm, &reqs[1]);
    MPI_Isend(&token, 1, MPI_INT32_T, 0, kTagArrive, g_comm, &reqs[0]);
    wait_reqs(reqs, 2, follower_timeout(), [&] {
      return fmt::format("rank {} waited {} s for rank 0 to release the {} (rank 0 is dead or hung)", me,
                         follower_timeout(), place());
    });
    if (on_step && *on_step) (*on_step)(step);
  }
  return t;
}

}  // namespace microddp::mpi_detail

namespace microddp::mpi_detail {

// The meeting before MPI_Finalize. Rank 0 calls the others in, then waits
// mpi_timeout() for every answer and names the ranks that give none. The
// others wait for the call without a deadline: after a run rank 0 alone
// checks and prints the results, which takes as long as the data is large,
// so no deadline would tell "busy" from "gone" (were rank 0 to die, mpirun
// ends the job). Called in first, answering last: a rank stopped while it
// waits is one rank 0 names, and an answering rank goes straight on to
// MPI_Finalize.
void exit_barrier(int me, int n) {
  if (n == 1) return;
  int32_t token = 0;
  if (me == 0) {
    std::vector<MPI_Request> sends(n - 1);
    for (int r = 1; r < n; ++r) MPI_Isend(&token, 1, MPI_INT32_T, r, kTagRelease, g_comm, &sends[r - 1]);
    std::vector<int32_t> tokens(n);
    std::vector<MPI_Request> reqs(n - 1);
    for (int r = 1; r < n; ++r) MPI_Irecv(&tokens[r], 1, MPI_INT32_T, r, kTagArrive, g_comm, &reqs[r - 1]);
    wait_reqs(reqs.data(), n - 1, mpi_timeout(), [&] {
      return fmt::format("rank 0 waited {} s for {} at the exit (stopped or hung after its part of the work)",
                         mpi_timeout(), pending_ranks(reqs));
    });
    wait_reqs(sends.data(), n - 1, mpi_timeout(), [] { return std::string("rank 0 could not call the ranks to the exit"); });
  } else {
    int32_t call = 0;
    MPI_Request req;
    MPI_Irecv(&call, 1, MPI_INT32_T, 0, kTagRelease, g_comm, &req);
    for (int flag = 0; !flag;) {  // gently: rank 0 may print for a long time
      MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      if (!flag) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    send_wait(&token, sizeof token, 0, kTagArrive, follower_timeout(), [&] {
      return fmt::format("rank {} waited {} s for rank 0 to take its answer at the exit", me, follower_timeout());
    });
  }
}

}  // namespace microddp::mpi_detail
