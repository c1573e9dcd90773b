// Internals shared by the files of the Open MPI backend (the public header
// is core/exec/mpi/backend_mpi.h): process-wide state, waits against a
// deadline, point-to-point helpers, the agreement header, clock alignment,
// the barrier through rank 0, the transport and the gather. Needs mpi.h:
// include it only from core/exec/mpi/*.cpp, which are compiled only when
// CMake found MPI (core/CMakeLists.txt).
#pragma once
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/exec/mpi/backend_mpi.h"
#include "core/exec/mpi/wire.h"
#include "core/exec/rank_program.h"

namespace microddp::mpi_detail {

using wire::Reader;
using wire::Writer;

// ---- world.cpp ----
int64_t clock_ns();

// ---- process-wide state (defined in world.cpp) ----
extern bool g_we_initialized;
extern bool g_finalized;
extern MPI_Comm g_comm;         // microddp's own traffic
extern int g_tag_ub;
extern double g_timeout_s;      // < 0: not decided yet
extern bool g_oversubscribed;   // more local ranks than cores: yield while polling
extern MpiClockSync g_sync;

// Tags below kTagData are the protocol's; data messages use kTagData + id.
enum Tag : int { kTagHeader = 1, kTagVerdict, kTagPing, kTagPong, kTagArrive, kTagRelease, kTagGather, kTagOptions,
                 kTagOptionsVerdict, kTagData = 64 };

// Large messages go in pieces: MPI counts are int.
constexpr int64_t kPiece = int64_t{1} << 30;

[[noreturn]] void abort_job(const std::string& msg);

// Polls until every request completed. Spinning on MPI_Test keeps Open MPI's
// shared-memory pipeline moving (large messages need progress calls from
// both sides), so a rank with a core of its own spins. When the ranks
// outnumber the cores, a spinning rank would only steal the core of the rank
// it waits for: after a few yields it sleeps between polls instead. A rank
// gone quiet for long is polled gently. Past the deadline: abort the job,
// naming what we waited for.
template <typename What>
void wait_reqs(MPI_Request* reqs, int count, double timeout_s, What what) {
  if (count == 0) return;
  const int64_t start = clock_ns();
  const int64_t deadline = start + static_cast<int64_t>(timeout_s * 1e9);
  for (uint64_t i = 0;; ++i) {
    int flag = 0;
    MPI_Testall(count, reqs, &flag, MPI_STATUSES_IGNORE);
    if (flag) return;
    if (g_oversubscribed) {
      if (i < 16) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    if ((i & 63) == 63 || g_oversubscribed) {
      const int64_t now = clock_ns();
      if (now > deadline) abort_job(what());
      if (now - start > 200'000'000) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
}

int tag_of(int64_t msg);

// Point-to-point helpers in pieces of at most kPiece bytes (same tag: MPI
// keeps their order).
void post_pieces(bool send, void* data, int64_t bytes, int peer, int tag, std::vector<MPI_Request>& out);
template <typename What>
void send_wait(const void* data, int64_t bytes, int peer, int tag, double timeout, What what) {
  std::vector<MPI_Request> r;
  post_pieces(true, const_cast<void*>(data), bytes, peer, tag, r);
  wait_reqs(r.data(), static_cast<int>(r.size()), timeout, what);
}
template <typename What>
void recv_wait(void* data, int64_t bytes, int peer, int tag, double timeout, What what) {
  std::vector<MPI_Request> r;
  post_pieces(false, data, bytes, peer, tag, r);
  wait_reqs(r.data(), static_cast<int>(r.size()), timeout, what);
}

// "rank 2" or "ranks 1, 3" for the requests (of ranks 1..n-1) still pending.
std::string pending_ranks(std::vector<MPI_Request>& reqs);

// Ranks other than 0 wait longer than rank 0 so that, when a rank is
// missing, rank 0 (which knows who) is the one to report it.
double follower_timeout();

uint64_t fnv1a(const void* p, size_t n, uint64_t h = 1469598103934665603ull);

int me_world();

// ---- agreement.cpp ----
// Every rank describes its call; rank 0 judges.
struct Header {
  int32_t kind;  // 1 = run_mpi, 2 = run_mpi_library
  int32_t collective, dtype, op, root, in_place, segments, world_size, mode, iterations, record, inputs_ok;
  int32_t repeat_steps = 0;  // RunOptions::repeat_steps
  int32_t channels = 1;      // CollectiveSpec::channels
  int64_t count, total, snapshot_limit, num_steps;
  uint64_t counts_hash, algo_hash;
  char algorithm[48];
};
static_assert(std::is_trivially_copyable_v<Header>);

Header make_header(int kind, const CollectiveSpec& sp, const RunOptions* opt, int num_steps, bool inputs_ok);

// Rank 0's memory of the last clock alignment (see clocks_need_sync).
extern bool g_clocks_known, g_clocks_shared;
extern int64_t g_clocks_at;

// Throws the same UsageError on every rank when the ranks disagree. Aborts
// the job when a rank never arrives.
// my_problem: this rank's own complaint (its inputs), thrown here instead of
// the general verdict.
// Returns whether run_mpi must align the clocks (the same answer on every rank).
bool agree(const Header& mine, const std::string& my_problem = "");

// ---- clock_sync.cpp: Cristian's algorithm, best of kPingPongRounds ----
bool force_pingpong();

using wire::ClockEntry;  // what travels to rank 0 (wire.h)
ClockEntry sync_clocks(int me, int n);

// ---- root_barrier.cpp ----
// A barrier through rank 0, so a missing rank can be named. The release
// carries rank 0's clock at the moment every rank had arrived.
int64_t root_barrier(int me, int n, const char* where, int step, const std::function<void(int)>* on_step = nullptr);
// The meeting before MPI_Finalize (which waits without a deadline): rank 0
// calls the others in, waits mpi_timeout() for their answers and names who
// is missing; the others wait for the call as long as it takes (rank 0
// alone prints the results).
void exit_barrier(int me, int n);

// ---- shm_window.cpp ----
// One MPI-3 shared-memory window over g_comm for one run_mpi call: every
// rank's `copies` placed RankMemory blocks, readable by every other rank
// (MPI-3.1 §11.2.3). Collective to build and to destroy. Between the two
// every rank holds a passive-target epoch on it (MPI_Win_lock_all), so
// MPI_Win_sync may order its loads and stores (§11.5.4, §11.7).
class ShmWindow {
 public:
  ShmWindow(const RankMemory& like, size_t esize, int copies);
  // Ends the epoch and frees the window: collective, every rank at the same
  // point. The destructor frees nothing (a rank unwinding from an error
  // alone must not wait in MPI_Win_free for the others: the job ends).
  void close();
  ~ShmWindow() = default;
  ShmWindow(const ShmWindow&) = delete;
  ShmWindow& operator=(const ShmWindow&) = delete;
  // A RankMemory in copy `k` of this rank's part, holding `from`'s contents.
  RankMemory placed(const RankMemory& from, int k) const;
  MPI_Win win() const { return win_; }
  std::byte* mine() const { return peers_[me_]; }
  int64_t my_bytes() const { return sizes_[me_]; }
  std::byte* peer(int r) const { return peers_[r]; }
  int64_t peer_bytes(int r) const { return sizes_[r]; }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
  int me_ = 0;
  size_t esize_;
  int64_t per_copy_ = 0;           // bytes of one placed RankMemory (64-byte aligned storages)
  std::vector<int64_t> offsets_;   // storage i's offset within one copy
  std::vector<std::byte*> peers_;  // every rank's base (MPI_Win_shared_query)
  std::vector<int64_t> sizes_;
};

// Whether run_mpi runs s through a ShmWindow: one_shot / two_shot, every
// rank of g_comm on one node (MPI_Comm_split_type MPI_COMM_TYPE_SHARED),
// MICRODDP_MPI_SHM not 0 on any rank. Collective (an MPI_Allreduce) when s
// is one_shot or two_shot. Throws MpiJobUsageError on every rank when a
// rank's MICRODDP_MPI_SHM is neither 0 nor 1.
bool shm_wanted(const Schedule& s);
extern int64_t g_window_runs;  // mpi_window_runs()

// ---- transport.cpp (messages) and shm_window.cpp (window) ----
class MpiTransport final : public Transport {
 public:
  // Without a window: every message is an MPI_Isend / MPI_Irecv of its
  // bytes. With one (all of this rank's RankMemory placed in it): a send
  // publishes where its bytes lie in the window (an 8-byte message), the
  // receiver reads them there directly (arrived() returns a pointer into the
  // sender's memory, valid until consumed(), which answers with a 0-byte
  // message that completes the send): direct_reads().
  MpiTransport(const Schedule& s, const MessagePlan& plan, int me, const ShmWindow* window = nullptr);

  void post_send(int, int64_t msg, const void* data, int64_t bytes) override;
  void post_recv(int, int64_t msg, void* dst, int64_t bytes, bool reduce) override;
  const void* arrived(int, int64_t msg) override;
  void consumed(int, int64_t msg) override;
  int64_t wait_sent(int, int64_t msg) override;
  bool direct_reads() const override { return window_ != nullptr; }
  void barrier(int) override { barrier_at(-1); }
  // Returns the release time (rank 0's clock, as root_barrier).
  int64_t barrier_at(int step, const std::function<void(int)>* on_step = nullptr);
  int64_t now_ns() const override { return clock_ns() - base_; }
  void set_base(int64_t base_ns) { base_ = base_ns; }

 private:
  struct Slot {
    std::vector<MPI_Request> reqs;
    std::vector<std::byte> staging;
    bool staged = false;
    int64_t offset = 0;  // window: where the bytes lie in the sender's part
    int64_t bytes = 0;
  };
  // The window's side of each call (shm_window.cpp).
  void shm_post_send(int64_t msg, const void* data, int64_t bytes);
  void shm_post_recv(int64_t msg, int64_t bytes);
  const void* shm_arrived(int64_t msg);
  const ShmWindow* window_;
  const MessagePlan& plan_;
  int me_;
  int64_t base_ = 0;
  std::vector<Slot> slots_;
};

// ---- trace_gather.cpp ----
// Rank 0 collects one blob from every other rank, in rank order. Before it
// allocates, rank 0 checks the size a rank announces against
// max_bytes(rank) and aborts the job, naming the rank and both sizes, when
// it is negative or larger.
std::vector<std::vector<std::byte>> gather_blobs(int me, int n, std::vector<std::byte> mine,
                                                 const std::function<int64_t(int)>& max_bytes);

}  // namespace microddp::mpi_detail
