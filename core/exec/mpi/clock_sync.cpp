// Clock alignment (core/exec/mpi/backend_mpi.h, step 2 of a run).
#include <climits>
#include <cstdlib>
#include <fstream>

#include "core/exec/mpi/mpi_internal.h"

namespace microddp::mpi_detail {

// ---- clock alignment (Cristian's algorithm, best of kPingPongRounds) ----
// Which clock a process reads: processes under one kernel (same boot_id)
// read the same CLOCK_MONOTONIC, so their offset is exactly 0. 0 = unknown.
uint64_t clock_identity() {
  static const uint64_t id = [] {
    std::ifstream f("/proc/sys/kernel/random/boot_id");
    std::string boot;
    if (!(f >> boot) || boot.empty()) return uint64_t{0};
    return fnv1a(boot.data(), boot.size()) | 1;
  }();
  return id;
}
bool force_pingpong() {
  const char* e = std::getenv("MICRODDP_MPI_CLOCK");
  return e && std::string(e) == "pingpong";
}

ClockEntry sync_clocks(int me, int n) {
  ClockEntry c;
  struct Pong {
    int64_t t0;
    uint64_t id;
  };
  if (me == 0) {
    for (int r = 1; r < n; ++r)
      for (int k = 0; k < kPingPongRounds; ++k) {
        int32_t ping;
        recv_wait(&ping, sizeof ping, r, kTagPing, mpi_timeout(),
                  [&] { return fmt::format("rank 0 waited {} s for rank {}'s clock ping", mpi_timeout(), r); });
        const Pong p{clock_ns(), clock_identity()};
        send_wait(&p, sizeof p, r, kTagPong, mpi_timeout(),
                  [&] { return fmt::format("rank 0 waited {} s for rank {} to take its clock pong", mpi_timeout(), r); });
      }
    return c;
  }
  int64_t best = INT64_MAX;
  uint64_t root_id = 0;
  for (int k = 0; k < kPingPongRounds; ++k) {
    const int32_t ping = k;
    Pong p{};
    const int64_t a = clock_ns();
    MPI_Request reqs[2];
    MPI_Irecv(&p, sizeof p, MPI_BYTE, 0, kTagPong, g_comm, &reqs[1]);
    MPI_Isend(&ping, sizeof ping, MPI_BYTE, 0, kTagPing, g_comm, &reqs[0]);
    // Rank 0 serves the ranks one after another: wait for our turn.
    wait_reqs(reqs, 2, follower_timeout() * n, [&] {
      return fmt::format("rank {} waited for rank 0 to answer its clock ping (rank 0 is dead or hung)", me);
    });
    const int64_t b = clock_ns();
    root_id = p.id;
    if (b - a < best) {
      // Rank 0 read t0 somewhere in [a, b] of our clock: the offset lies
      // within (b - a) / 2 of the midpoint estimate.
      best = b - a;
      c.measured_offset = p.t0 - (a + b) / 2;
      c.measured_error = (b - a + 1) / 2;
    }
  }
  c.same_clock = root_id != 0 && root_id == clock_identity() && !force_pingpong();
  if (!c.same_clock) {
    c.offset = c.measured_offset;
    c.error = c.measured_error;
  }
  return c;
}

}  // namespace microddp::mpi_detail
