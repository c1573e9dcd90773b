// The Open MPI backend's process: MPI setup and teardown, the process-wide
// state, waits and point-to-point helpers (core/exec/mpi/backend_mpi.h).
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/exec/mpi/mpi_internal.h"

namespace microddp {
namespace mpi_detail {

int64_t clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- process-wide state ----
bool g_we_initialized = false;
bool g_finalized = false;
MPI_Comm g_comm = MPI_COMM_NULL;  // microddp's own traffic
int g_tag_ub = 32767;
double g_timeout_s = -1;         // < 0: not decided yet
bool g_oversubscribed = false;   // more local ranks than cores: yield while polling
MpiClockSync g_sync;

[[noreturn]] void abort_job(const std::string& msg) {
  std::fprintf(stderr, "error: mpi backend: %s\n", msg.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

int tag_of(int64_t msg) { return kTagData + static_cast<int>(msg % (g_tag_ub - kTagData)); }

// Point-to-point helpers in pieces of at most kPiece bytes (same tag: MPI
// keeps their order).
void post_pieces(bool send, void* data, int64_t bytes, int peer, int tag, std::vector<MPI_Request>& out) {
  int64_t off = 0;
  do {
    const int len = static_cast<int>(std::min(kPiece, bytes - off));
    MPI_Request r;
    if (send) MPI_Isend(static_cast<std::byte*>(data) + off, len, MPI_BYTE, peer, tag, g_comm, &r);
    else MPI_Irecv(static_cast<std::byte*>(data) + off, len, MPI_BYTE, peer, tag, g_comm, &r);
    out.push_back(r);
    off += len;
  } while (off < bytes);
}

// "rank 2" or "ranks 1, 3" for the requests (of ranks 1..n-1) still pending.
std::string pending_ranks(std::vector<MPI_Request>& reqs) {
  std::vector<int> missing;
  for (size_t i = 0; i < reqs.size(); ++i) {
    int flag = 0;
    MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
    if (!flag) missing.push_back(static_cast<int>(i) + 1);
  }
  std::string list;
  for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return (missing.size() == 1 ? "rank " : "ranks ") + list;
}

double follower_timeout() { return mpi_timeout() * 1.5 + 1.0; }

uint64_t fnv1a(const void* p, size_t n, uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

int me_world() {
  int me;
  MPI_Comm_rank(g_comm, &me);
  return me;
}

}  // namespace mpi_detail

using namespace mpi_detail;

// ============================================================ setup

bool mpi_available() { return true; }

bool mpi_launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (const char* e = std::getenv(v); e && *e) return true;
  return false;
}

namespace {

// The rank mpirun gave this process, read before MPI can say it.
std::string launch_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* e = std::getenv(v); e && *e) return e;
  return "?";
}

// MPI_Init and MPI_Finalize wait for every rank of the job without a
// deadline (Open MPI's PMIx fence). A rank that never arrives (stopped,
// hung, or exited without starting MPI) would keep the others there
// forever: while such a call runs, this thread waits `seconds` and then
// ends the process with exit code 3, which makes mpirun end the job.
class Watchdog {
 public:
  Watchdog(double seconds, std::string what) : what_(std::move(what)) {
    thread_ = std::thread([this, seconds] {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
      std::fprintf(stderr, "error: mpi backend: rank %s waited %g s %s\n", launch_rank().c_str(), seconds,
                   what_.c_str());
      std::fflush(stderr);
      std::_Exit(3);
    });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Starting processes on a loaded machine is slower than any message: the
// start gets the followers' timeout plus 10 s.
double start_timeout() { return follower_timeout() + 10; }

}  // namespace

void mpi_init_once() {
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (fin) throw std::runtime_error("mpi backend: MPI was already finalized");
  mpi_timeout();  // a bad MICRODDP_MPI_TIMEOUT is refused before MPI starts
  if (!inited) {
    // Keep freed memory in the heap: Open MPI's collectives malloc and free
    // their temporary buffers on every call, and glibc would hand large ones
    // back to the kernel each time; Open MPI's single-copy (CMA) transfers
    // into fresh pages then cost ~10x more (measured here: MPI_Allreduce of
    // 64 MiB, 377 ms vs 21 ms). A long-running application keeps its heap warm.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    int provided = 0;
    Watchdog dog(start_timeout(), "in MPI_Init for the other ranks of the job to start MPI (one is stopped, hung, "
                                  "or never started MPI)");
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    g_we_initialized = true;
    std::atexit([] { mpi_finalize_if_needed(); });
  }
  if (g_comm == MPI_COMM_NULL) {
    // MPI_Comm_dup is collective and has no deadline either.
    Watchdog dog(start_timeout(), "in MPI_Comm_dup for the other ranks (one is stopped or hung)");
    MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
    MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_ARE_FATAL);
    int* ub = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag && ub) g_tag_ub = *ub;
    // Ranks on this node vs cores: Open MPI exports the local size.
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    g_oversubscribed = local && std::atoi(local) > static_cast<int>(cores);
  }
}

void mpi_finalize_if_needed() {
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (!inited || fin || g_finalized || !g_we_initialized) return;
  g_finalized = true;
  if (g_comm != MPI_COMM_NULL) {
    // MPI_Finalize waits for every rank without a deadline: meet at a
    // barrier through rank 0 first, so that rank 0 names a rank that never
    // comes (stopped, hung) instead of waiting in MPI_Finalize forever.
    int n = 1;
    MPI_Comm_size(g_comm, &n);
    exit_barrier(me_world(), n);
    MPI_Comm_free(&g_comm);
  }
  // Every rank is at the exit now; one stopped right after answering would
  // still keep the others here: bounded like the start.
  Watchdog dog(start_timeout(), "in MPI_Finalize for the other ranks of the job (one is stopped or hung)");
  MPI_Finalize();
}

[[noreturn]] void mpi_leave_job(const std::string& error, int code) {
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::fflush(stderr);
  }
  std::fflush(stdout);
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (!fin && mpi_launched()) {
    if (!inited) {
      try {
        mpi_init_once();
      } catch (const std::exception& e) {  // a bad MICRODDP_MPI_TIMEOUT: a non-zero exit ends the job too
        if (error.find(e.what()) == std::string::npos) std::fprintf(stderr, "error: %s\n", e.what());
        std::fflush(stderr);
        std::_Exit(code != 0 ? code : 2);
      }
    }
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n > 1) MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::exit(code);
}

int mpi_rank() {
  int inited = 0, fin = 0, r = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (inited && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int mpi_world_size() {
  int inited = 0, fin = 0, n = 1;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (inited && !fin) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

double parse_mpi_timeout(const std::string& text) {
  const std::string shown = text.empty() ? "'' (empty)" : "'" + text + "'";
  auto refuse = [&](const char* why) {
    return UsageError(fmt::format("MICRODDP_MPI_TIMEOUT={}: {}; give a number of seconds, > 0 and at most {} (one "
                                  "day)",
                                  shown, why, kMaxMpiTimeoutSeconds));
  };
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0])))
    throw refuse("not a number");
  if (std::isnan(v)) throw refuse("not a number");
  if (!(v > 0)) throw refuse("not above 0");
  if (std::isinf(v) || v > kMaxMpiTimeoutSeconds) throw refuse("more than one day");
  return v;
}

double mpi_timeout() {
  if (g_timeout_s < 0) {
    const char* e = std::getenv("MICRODDP_MPI_TIMEOUT");
    g_timeout_s = e ? parse_mpi_timeout(e) : 30;
  }
  return g_timeout_s;
}
void mpi_set_timeout(double seconds) {
  if (!(seconds > 0) || !(seconds <= kMaxMpiTimeoutSeconds))
    throw UsageError(fmt::format("mpi timeout must be > 0 and at most {} seconds, not {}", kMaxMpiTimeoutSeconds,
                                 seconds));
  g_timeout_s = seconds;
}

const MpiClockSync& mpi_last_clock_sync() { return g_sync; }

}  // namespace microddp
