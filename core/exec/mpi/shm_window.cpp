// one_shot and two_shot over an MPI-3 shared-memory window: when every rank
// of the job is on one node, each rank's buffers live in one window that
// every other rank can load from, so a rank's fold reads its peers' inputs
// in place, in one pass (RankProgram's folds of direct reads, as on the
// threads backend), instead of receiving copies of them as messages.
//
// The MPI-3.1 standard's rules this follows:
//  - §11.2.3: MPI_Win_allocate_shared gives each process of a communicator
//    whose processes share memory a block of one window, and
//    MPI_Win_shared_query gives every process the base address (in its own
//    address space) and size of every other process's block; plain loads
//    and stores then reach them.
//  - §11.5.3 / §11.5.4: every rank opens one passive-target epoch on the
//    window for the whole run (MPI_Win_lock_all, MPI_MODE_NOCHECK: nobody
//    takes an exclusive lock), inside which MPI_Win_sync may be called.
//  - §11.7 (semantics of the unified memory model, which Open MPI's shared
//    windows have, MPI_WIN_MODEL = MPI_WIN_UNIFIED) and its example of
//    shared-memory synchronisation: a store by one process is seen by a load
//    of another when the writer calls MPI_Win_sync after its stores, the two
//    synchronise through some other MPI call (here a point-to-point
//    message), and the reader calls MPI_Win_sync before its loads.
//
// So each message of the schedule becomes, between sender S and receiver R:
//   S: (its stores into the buffer) MPI_Win_sync; MPI_Irecv(0 B from R);
//      MPI_Isend(offset of the bytes in S's block, 8 B, to R)
//   R: MPI_Irecv(8 B from S) ... wait; MPI_Win_sync; loads straight from
//      S's block (the fold); MPI_Win_sync; MPI_Isend(0 B to S)
//   S: wait_sent = wait for R's 0-byte answer; MPI_Win_sync; only then may
//      S store into the buffer again.
// Both messages carry the message's tag (tag_of), and the answer travels the
// other way (R -> S), so it matches no other message of the plan.
#include <cstdlib>
#include <cstring>

#include "core/exec/mpi/mpi_internal.h"

namespace microddp {

int64_t mpi_window_runs() { return mpi_detail::g_window_runs; }

namespace mpi_detail {

int64_t g_window_runs = 0;

namespace {
constexpr int64_t kAlign = 64;  // each storage on a cache line of its own
int64_t aligned(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// -1: not known yet; else whether MPI_COMM_TYPE_SHARED gave the whole world.
int g_one_node = -1;

// 1 (window), 0 (messages) or -1 (a value that is neither) from MICRODDP_MPI_SHM.
int shm_env(std::string* bad) {
  const char* e = std::getenv("MICRODDP_MPI_SHM");
  if (!e || !*e || std::string(e) == "1") return 1;
  if (std::string(e) == "0") return 0;
  *bad = e;
  return -1;
}
}  // namespace

bool shm_wanted(const Schedule& s) {
  if (s.spec.algorithm != "one_shot" && s.spec.algorithm != "two_shot") return false;
  if (g_one_node < 0) {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(g_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int in_node = 0, world = 0;
    MPI_Comm_size(node, &in_node);
    MPI_Comm_size(g_comm, &world);
    MPI_Comm_free(&node);
    g_one_node = in_node == world ? 1 : 0;
  }
  std::string bad;
  int mine = shm_env(&bad), all = 0;
  if (!g_one_node && mine == 1) mine = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, g_comm);
  if (all < 0)
    throw MpiJobUsageError(
        mine < 0 ? fmt::format("MICRODDP_MPI_SHM={}: give 0 (one_shot / two_shot as plain messages) or 1 (through a "
                               "shared-memory window, the default)",
                               bad)
                 : std::string("another rank's MICRODDP_MPI_SHM is neither 0 nor 1: give 0 (plain messages) or 1 "
                               "(shared-memory window)"));
  return all == 1;
}

ShmWindow::ShmWindow(const RankMemory& like, size_t esize, int copies) : esize_(esize) {
  for (int64_t n : like.layout.storage_size) {
    offsets_.push_back(per_copy_);
    per_copy_ += aligned(n * static_cast<int64_t>(esize));
  }
  int n = 0;
  MPI_Comm_rank(g_comm, &me_);
  MPI_Comm_size(g_comm, &n);
  MPI_Info info;
  MPI_Info_create(&info);
  // Each rank's block may sit on its own pages (NUMA-local first touch).
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  void* base = nullptr;
  const int64_t bytes = std::max<int64_t>(kAlign, per_copy_ * copies);
  MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, info, g_comm, &base, &win_);
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(win_, MPI_ERRORS_ARE_FATAL);
  peers_.resize(n);
  sizes_.resize(n);
  for (int r = 0; r < n; ++r) {
    MPI_Aint size = 0;
    int disp = 0;
    void* p = nullptr;
    MPI_Win_shared_query(win_, r, &size, &disp, &p);
    peers_[r] = static_cast<std::byte*>(p);
    sizes_[r] = static_cast<int64_t>(size);
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
}

void ShmWindow::close() {
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

RankMemory ShmWindow::placed(const RankMemory& from, int k) const {
  RankMemory m;
  m.layout = from.layout;
  for (size_t i = 0; i < offsets_.size(); ++i) {
    std::byte* p = mine() + k * per_copy_ + offsets_[i];
    const size_t b = static_cast<size_t>(from.layout.storage_size[i]) * esize_;
    if (b > 0) std::memcpy(p, from.base(static_cast<int>(i)), b);
    m.shared.push_back(p);
  }
  return m;
}

void MpiTransport::shm_post_send(int64_t msg, const void* data, int64_t bytes) {
  Slot& s = slots_[msg];
  const auto* p = static_cast<const std::byte*>(data);
  s.offset = p - window_->mine();
  if (s.offset < 0 || s.offset + bytes > window_->my_bytes())
    throw std::logic_error(fmt::format("rank {}: a send of {} B lies outside its shared-memory window", me_, bytes));
  MPI_Win_sync(window_->win());  // this rank's stores into the buffer, before the peer hears of it
  s.reqs.resize(2);
  const int peer = plan_.dst[msg], tag = tag_of(msg);
  // The answer's receive first, so it is posted before the peer can answer.
  MPI_Irecv(nullptr, 0, MPI_BYTE, peer, tag, g_comm, &s.reqs[0]);
  MPI_Isend(&s.offset, 1, MPI_INT64_T, peer, tag, g_comm, &s.reqs[1]);
}

void MpiTransport::shm_post_recv(int64_t msg, int64_t bytes) {
  Slot& s = slots_[msg];
  s.bytes = bytes;
  s.reqs.resize(1);
  MPI_Irecv(&s.offset, 1, MPI_INT64_T, plan_.src[msg], tag_of(msg), g_comm, &s.reqs[0]);
}

// After the 8-byte message arrived (MpiTransport::arrived waited for it).
const void* MpiTransport::shm_arrived(int64_t msg) {
  Slot& s = slots_[msg];
  const int from = plan_.src[msg];
  if (s.offset < 0 || s.offset + s.bytes > window_->peer_bytes(from))
    abort_job(fmt::format("rank {}: rank {} announced {} B at offset {} of its shared-memory window of {} B", me_,
                          from, s.bytes, s.offset, window_->peer_bytes(from)));
  MPI_Win_sync(window_->win());  // the sender's stores, before this rank's loads
  return window_->peer(from) + s.offset;
}

void MpiTransport::consumed(int, int64_t msg) {
  if (!window_) return;
  MPI_Win_sync(window_->win());  // this rank's loads, before the sender may store again
  // The sender posted the matching receive before its 8-byte message
  // (shm_post_send), so this completes without waiting for it.
  MPI_Request r;
  MPI_Isend(nullptr, 0, MPI_BYTE, plan_.src[msg], tag_of(msg), g_comm, &r);
  wait_reqs(&r, 1, mpi_timeout(), [&] {
    return fmt::format("rank {} waited {} s to answer rank {}'s message of step {}", me_, mpi_timeout(),
                       plan_.src[msg], plan_.step[msg]);
  });
}

}  // namespace mpi_detail
}  // namespace microddp
