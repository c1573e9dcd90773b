// The gather of every rank's share of the result to rank 0
// (core/exec/mpi/backend_mpi.h, step 5 of a run).
#include "core/exec/mpi/mpi_internal.h"

namespace microddp::mpi_detail {

std::vector<std::vector<std::byte>> gather_blobs(int me, int n, std::vector<std::byte> mine,
                                                 const std::function<int64_t(int)>& max_bytes) {
  std::vector<std::vector<std::byte>> all(me == 0 ? n : 0);
  if (me != 0) {
    const int64_t size = static_cast<int64_t>(mine.size());
    send_wait(&size, sizeof size, 0, kTagGather, follower_timeout(),
              [&] { return fmt::format("rank {} waited {} s for rank 0 to gather its results", me, follower_timeout()); });
    send_wait(mine.data(), size, 0, kTagGather, follower_timeout(),
              [&] { return fmt::format("rank {} waited {} s for rank 0 to gather its results", me, follower_timeout()); });
    return all;
  }
  all[0] = std::move(mine);
  for (int r = 1; r < n; ++r) {
    int64_t size = 0;
    auto what = [&] { return fmt::format("rank 0 waited {} s for rank {}'s results (dead or hung)", mpi_timeout(), r); };
    recv_wait(&size, sizeof size, r, kTagGather, mpi_timeout(), what);
    const int64_t most = max_bytes(r);
    if (size < 0 || size > most)
      abort_job(fmt::format("rank {} announced {} bytes of results, but its share holds at most {} (corrupted message)",
                            r, size, most));
    all[r].resize(size);
    recv_wait(all[r].data(), size, r, kTagGather, mpi_timeout(), what);
  }
  return all;
}

}  // namespace microddp::mpi_detail
