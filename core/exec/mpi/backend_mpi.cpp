// The Open MPI backend (see core/backend_mpi.h for the protocol of one run).
// Compiled only when CMake found MPI (core/CMakeLists.txt).
#include "core/exec/mpi/backend_mpi.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>

#include "core/exec/rank_program.h"

namespace microddp {
namespace {

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

// Tags below kTagData are the protocol's; data messages use kTagData + id.
enum Tag : int { kTagHeader = 1, kTagVerdict, kTagPing, kTagPong, kTagArrive, kTagRelease, kTagGather, kTagData = 64 };

// Large messages go in pieces: MPI counts are int.
constexpr int64_t kPiece = int64_t{1} << 30;

[[noreturn]] void abort_job(const std::string& msg) {
  std::fprintf(stderr, "error: mpi backend: %s\n", msg.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::_Exit(3);
}

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

// Ranks other than 0 wait longer than rank 0 so that, when a rank is
// missing, rank 0 (which knows who) is the one to report it.
double follower_timeout() { return mpi_timeout() * 1.5 + 1.0; }

uint64_t fnv1a(const void* p, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

// ---- agreement: every rank describes its call; rank 0 judges ----
struct Header {
  int32_t kind;  // 1 = run_mpi, 2 = run_mpi_library
  int32_t collective, dtype, op, root, in_place, segments, world_size, mode, iterations, record, inputs_ok;
  int32_t pad = 0;
  int64_t count, total, snapshot_limit, num_steps;
  uint64_t counts_hash, algo_hash;
  char algorithm[48];
};
static_assert(std::is_trivially_copyable_v<Header>);

struct Verdict {
  int32_t bad_rank;  // -1: all agree
  int32_t sync_clocks = 1;  // run_mpi: measure the clocks again (rank 0 decides)
  Header first, bad;
};

Header make_header(int kind, const CollectiveSpec& sp, const RunOptions* opt, int num_steps, bool inputs_ok) {
  Header h{};
  h.kind = kind;
  h.collective = static_cast<int32_t>(sp.collective);
  h.dtype = static_cast<int32_t>(sp.dtype);
  h.op = static_cast<int32_t>(sp.op);
  h.root = sp.root;
  h.in_place = sp.in_place;
  h.segments = sp.segments;
  h.world_size = sp.world_size;
  h.count = sp.count;
  h.total = sp.total();
  h.counts_hash = fnv1a(sp.counts.data(), sp.counts.size() * sizeof(int64_t));
  h.num_steps = num_steps;
  h.inputs_ok = inputs_ok;
  if (kind == 1) {
    h.algo_hash = fnv1a(sp.algorithm.data(), sp.algorithm.size());
    std::snprintf(h.algorithm, sizeof h.algorithm, "%s", sp.algorithm.c_str());
  }
  if (opt) {
    h.mode = static_cast<int32_t>(opt->mode);
    h.iterations = opt->iterations;
    h.record = opt->record;
    h.snapshot_limit = opt->snapshot_limit;
  }
  return h;
}

// Names the first field where b differs from a ("" when none).
std::string difference(const Header& a, const Header& b, int rank_b) {
  auto say = [&](const char* field, const std::string& va, const std::string& vb) {
    return fmt::format("rank {} called with {} {} but rank 0 with {} {}", rank_b, field, vb, field, va);
  };
  auto coll = [](int32_t c) { return std::string(name(static_cast<Collective>(c))); };
  if (a.kind != b.kind)
    return fmt::format("rank {} called {} but rank 0 called {}", rank_b, b.kind == 1 ? "run_mpi" : "the library collective",
                       a.kind == 1 ? "run_mpi" : "the library collective");
  if (a.collective != b.collective) return say("collective", coll(a.collective), coll(b.collective));
  if (a.algo_hash != b.algo_hash) return say("algorithm", a.algorithm, b.algorithm);
  if (a.world_size != b.world_size)
    return say("world size", std::to_string(a.world_size), std::to_string(b.world_size));
  if (a.count != b.count) return say("count", std::to_string(a.count), std::to_string(b.count));
  if (a.counts_hash != b.counts_hash || a.total != b.total)
    return say("counts totalling", std::to_string(a.total), std::to_string(b.total));
  if (a.dtype != b.dtype)
    return say("dtype", std::string(name(static_cast<DType>(a.dtype))), std::string(name(static_cast<DType>(b.dtype))));
  if (a.op != b.op)
    return say("op", std::string(name(static_cast<ReduceOp>(a.op))), std::string(name(static_cast<ReduceOp>(b.op))));
  if (a.root != b.root) return say("root", std::to_string(a.root), std::to_string(b.root));
  if (a.in_place != b.in_place) return say("in_place", std::to_string(a.in_place), std::to_string(b.in_place));
  if (a.segments != b.segments) return say("segments", std::to_string(a.segments), std::to_string(b.segments));
  if (a.num_steps != b.num_steps) return say("a schedule of steps", std::to_string(a.num_steps), std::to_string(b.num_steps));
  if (a.mode != b.mode)
    return say("mode", std::string(name(static_cast<Mode>(a.mode))), std::string(name(static_cast<Mode>(b.mode))));
  if (a.iterations != b.iterations) return say("iterations", std::to_string(a.iterations), std::to_string(b.iterations));
  if (a.record != b.record) return say("record", std::to_string(a.record), std::to_string(b.record));
  if (a.snapshot_limit != b.snapshot_limit)
    return say("snapshot limit", std::to_string(a.snapshot_limit), std::to_string(b.snapshot_limit));
  if (!b.inputs_ok) return fmt::format("rank {} was given inputs of the wrong shape", rank_b);
  return "";
}

// Throws the same UsageError on every rank when the ranks disagree. Aborts
// the job when a rank never arrives.
// my_problem: this rank's own complaint (its inputs), thrown here instead of
// the general verdict.
// Rank 0's memory of the last clock alignment: on one machine the offsets
// are exactly 0 for good; otherwise they are measured again when older than
// kResyncNs (clocks drift by some ppm).
bool g_clocks_known = false, g_clocks_shared = false;
int64_t g_clocks_at = 0;
constexpr int64_t kResyncNs = 10'000'000'000;
bool force_pingpong();
bool clocks_need_sync() {
  return !g_clocks_known || force_pingpong() || (!g_clocks_shared && clock_ns() - g_clocks_at > kResyncNs);
}

// Returns whether run_mpi must align the clocks (the same answer on every rank).
bool agree(const Header& mine, const std::string& my_problem = "") {
  int me, n;
  MPI_Comm_rank(g_comm, &me);
  MPI_Comm_size(g_comm, &n);
  Verdict v{};
  v.bad_rank = -1;
  if (me == 0) {
    std::vector<Header> all(n);
    all[0] = mine;
    std::vector<MPI_Request> reqs(n - 1);
    for (int r = 1; r < n; ++r) MPI_Irecv(&all[r], sizeof(Header), MPI_BYTE, r, kTagHeader, g_comm, &reqs[r - 1]);
    wait_reqs(reqs.data(), n - 1, mpi_timeout(), [&] {
      const std::string missing = pending_ranks(reqs);
      return fmt::format("rank 0 waited {} s for {} to join the collective (dead, hung, or running something else)",
                         mpi_timeout(), missing);
    });
    v.first = mine;
    v.bad = mine;
    v.sync_clocks = clocks_need_sync();
    if (!mine.inputs_ok) v.bad_rank = 0;
    for (int r = 1; r < n && v.bad_rank < 0; ++r)
      if (!difference(mine, all[r], r).empty()) {
        v.bad_rank = r;
        v.bad = all[r];
      }
    std::vector<MPI_Request> sends(n - 1);
    for (int r = 1; r < n; ++r) MPI_Isend(&v, sizeof v, MPI_BYTE, r, kTagVerdict, g_comm, &sends[r - 1]);
    wait_reqs(sends.data(), n - 1, mpi_timeout(), [&] { return std::string("rank 0 could not deliver its verdict"); });
  } else {
    send_wait(&mine, sizeof mine, 0, kTagHeader, follower_timeout(),
              [&] { return fmt::format("rank {} waited {} s for rank 0 to take its call header", me, follower_timeout()); });
    recv_wait(&v, sizeof v, 0, kTagVerdict, follower_timeout(), [&] {
      return fmt::format("rank {} waited {} s for rank 0 to judge the call (rank 0 is dead or hung)", me,
                         follower_timeout());
    });
  }
  if (v.bad_rank >= 0 && !my_problem.empty()) throw UsageError(my_problem);
  if (v.bad_rank == 0) throw UsageError("mpi backend: ranks disagree: rank 0 was given inputs of the wrong shape");
  if (v.bad_rank > 0) throw UsageError("mpi backend: ranks disagree: " + difference(v.first, v.bad, v.bad_rank));
  return v.sync_clocks != 0;
}

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

struct ClockEntry {
  int64_t offset = 0, error = 0;                    // applied
  int64_t measured_offset = 0, measured_error = 0;  // the ping-pong estimate
  int64_t same_clock = 1;
};

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

// ---- a barrier through rank 0, so a missing rank can be named ----
// The release carries rank 0's clock at the moment every rank had arrived.
int64_t root_barrier(int me, int n, const char* where, int step, const std::function<void(int)>* on_step = nullptr) {
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

class MpiTransport final : public Transport {
 public:
  MpiTransport(const Schedule& s, const MessagePlan& plan, int me)
      : plan_(plan), me_(me), slots_(plan.num_messages) {
    // Staging for every recv_reduce of this rank, allocated (and its pages
    // touched) before the clock starts, as the threads backend needs none.
    const size_t es = dtype_size(s.spec.dtype);
    for (int st = 0; st < s.num_steps(); ++st) {
      const auto& ops = s.steps[st].ranks[me];
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::recv_reduce) slots_[plan.msg[st][me][i]].staging.resize(ops[i].len * es);
    }
  }

  void post_send(int, int64_t msg, const void* data, int64_t bytes) override {
    Slot& s = slots_[msg];
    s.reqs.clear();
    post_pieces(true, const_cast<void*>(data), bytes, plan_.dst[msg], tag_of(msg), s.reqs);
  }
  void post_recv(int, int64_t msg, void* dst, int64_t bytes, bool reduce) override {
    Slot& s = slots_[msg];
    s.reqs.clear();
    s.staged = reduce;
    void* target = dst;
    if (reduce) {
      if (s.staging.size() < static_cast<size_t>(bytes)) s.staging.resize(bytes);
      target = s.staging.data();
    }
    post_pieces(false, target, bytes, plan_.src[msg], tag_of(msg), s.reqs);
  }
  const void* arrived(int, int64_t msg) override {
    Slot& s = slots_[msg];
    wait_reqs(s.reqs.data(), static_cast<int>(s.reqs.size()), mpi_timeout(), [&] {
      return fmt::format("rank {} waited {} s for the message from rank {} in step {} (rank {} is dead or hung)", me_,
                         mpi_timeout(), plan_.src[msg], plan_.step[msg], plan_.src[msg]);
    });
    return s.staged ? s.staging.data() : nullptr;
  }
  void consumed(int, int64_t) override {}
  int64_t wait_sent(int, int64_t msg) override {
    Slot& s = slots_[msg];
    wait_reqs(s.reqs.data(), static_cast<int>(s.reqs.size()), mpi_timeout(), [&] {
      return fmt::format("rank {} waited {} s for rank {} to receive its message of step {} (rank {} is dead or hung)",
                         me_, mpi_timeout(), plan_.dst[msg], plan_.step[msg], plan_.dst[msg]);
    });
    return now_ns();
  }
  void barrier(int) override { barrier_at(-1); }
  void barrier_at(int step, const std::function<void(int)>* on_step = nullptr) {
    int n;
    MPI_Comm_size(g_comm, &n);
    root_barrier(me_, n, "barrier", step, on_step);
  }
  int64_t now_ns() const override { return clock_ns() - base_; }
  void set_base(int64_t base_ns) { base_ = base_ns; }

 private:
  struct Slot {
    std::vector<MPI_Request> reqs;
    std::vector<std::byte> staging;
    bool staged = false;
  };
  const MessagePlan& plan_;
  int me_;
  int64_t base_ = 0;
  std::vector<Slot> slots_;
};

// ---- (de)serialisation of one rank's share of the result ----
class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    buf.insert(buf.end(), b, b + n);
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    put<int64_t>(static_cast<int64_t>(v.size()));
    bytes(v.data(), v.size() * sizeof(T));
  }
  std::vector<std::byte> buf;
};
class Reader {
 public:
  explicit Reader(const std::vector<std::byte>& b) : b_(b) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <typename T>
  std::vector<T> vec() {
    const auto n = static_cast<size_t>(get<int64_t>());
    std::vector<T> v(n);
    std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return v;
  }

 private:
  const std::vector<std::byte>& b_;
  size_t pos_ = 0;
};

static_assert(std::is_trivially_copyable_v<Event>);

void put_record(Writer& w, const RankStepRecord& r) {
  w.put(r.begin_ns);
  w.put(r.end_ns);
  w.put<int64_t>(static_cast<int64_t>(r.buffers.size()));
  for (const auto& b : r.buffers) {
    w.put(b.buf);
    w.put<int32_t>(b.storage);
    w.vec(b.values);
  }
}
RankStepRecord get_record(Reader& rd) {
  RankStepRecord r;
  r.begin_ns = rd.get<int64_t>();
  r.end_ns = rd.get<int64_t>();
  const auto nb = rd.get<int64_t>();
  for (int64_t i = 0; i < nb; ++i) {
    BufferSnapshot b;
    b.buf = rd.get<Buf>();
    b.storage = rd.get<int32_t>();
    b.values = rd.vec<double>();
    r.buffers.push_back(std::move(b));
  }
  return r;
}

// Rank 0 collects one blob from every other rank, in rank order.
std::vector<std::vector<std::byte>> gather_blobs(int me, int n, std::vector<std::byte> mine) {
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
    all[r].resize(size);
    recv_wait(all[r].data(), size, r, kTagGather, mpi_timeout(), what);
  }
  return all;
}

int me_world() {
  int me;
  MPI_Comm_rank(g_comm, &me);
  return me;
}

}  // namespace

// ============================================================ setup

bool mpi_available() { return true; }

void mpi_init_once() {
  int inited = 0, fin = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (fin) throw std::runtime_error("mpi backend: MPI was already finalized");
  if (!inited) {
    // Keep freed memory in the heap: Open MPI's collectives malloc and free
    // their temporary buffers on every call, and glibc would hand large ones
    // back to the kernel each time; Open MPI's single-copy (CMA) transfers
    // into fresh pages then cost ~10x more (measured here: MPI_Allreduce of
    // 64 MiB, 377 ms vs 21 ms). A long-running application keeps its heap warm.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    g_we_initialized = true;
    std::atexit([] { mpi_finalize_if_needed(); });
  }
  if (g_comm == MPI_COMM_NULL) {
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
  if (g_comm != MPI_COMM_NULL) MPI_Comm_free(&g_comm);
  MPI_Finalize();
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

double mpi_timeout() {
  if (g_timeout_s < 0) {
    g_timeout_s = 30;
    if (const char* e = std::getenv("MICRODDP_MPI_TIMEOUT")) {
      const double v = std::atof(e);
      if (v > 0) g_timeout_s = v;
    }
  }
  return g_timeout_s;
}
void mpi_set_timeout(double seconds) {
  if (!(seconds > 0)) throw UsageError(fmt::format("mpi timeout must be > 0 seconds, not {}", seconds));
  g_timeout_s = seconds;
}

const MpiClockSync& mpi_last_clock_sync() { return g_sync; }

// ============================================================ run_mpi

RunResult run_mpi(const Schedule& s, const RankData& inputs, const RunOptions& opt) {
  mpi_init_once();
  const int me = me_world();
  const int np = mpi_world_size();
  const auto& sp = s.spec;
  const size_t es = dtype_size(sp.dtype);
  const int n = s.world_size();

  const bool inputs_ok = me < n && static_cast<int>(inputs.size()) == n &&
                         inputs[me].size() == static_cast<size_t>(sp.input_count(me)) * es;
  std::string problem;
  if (!inputs_ok && me < n)
    problem = static_cast<int>(inputs.size()) != n
                  ? fmt::format("{} input rows for world size {}", inputs.size(), n)
                  : fmt::format("rank {} input has {} elements but {} needs {}", me, inputs[me].size() / es,
                                name(sp.collective), sp.input_count(me));
  const bool sync_now = agree(make_header(1, sp, &opt, s.num_steps(), inputs_ok || me >= n), problem);
  if (np != n)
    throw UsageError(fmt::format("the schedule is for world size {} but mpirun started {} ranks (use mpirun -n {})", n,
                                 np, n));

  const MessagePlan plan = plan_messages(s);
  RankMemory mem = make_rank_memory(s, me);
  const auto& iv = mem.layout.view[static_cast<int>(Buf::input)];
  if (iv.size > 0) {
    void* p = mem.ptr(iv, 0, es);
    std::memcpy(p, inputs[me].data(), inputs[me].size());
    if (needs_premul(sp)) kernels::premul_avg(sp.dtype, p, p, iv.size, n);
  }

  // Same shape and snapshot decision as the threads backend.
  Trace trace = new_trace(s, opt, "mpi");
  alloc_snapshots(trace, s, mem.layout, me);

  static ClockEntry last_clock;  // this rank's entry of the last alignment
  if (sync_now) last_clock = sync_clocks(me, n);
  const ClockEntry clock = last_clock;
  const int64_t offset = clock.offset;
  // Everyone has arrived once rank 0 reads its clock: t_start (rank 0's clock)
  // is the zero of the merged timeline; locally that is t_start - offset.
  // Buffer rotation (RunOptions::buffer_sets): extra copies of this rank's
  // memory, inputs loaded, each with its own program; set 0 gives the outputs.
  const int sets = std::max(1, opt.buffer_sets);
  std::vector<RankMemory> extra(sets - 1, mem);
  MpiTransport transport(s, plan, me);
  const int64_t t_start = root_barrier(me, n, "start", -1);
  transport.set_base(t_start - offset);
  std::vector<std::unique_ptr<RankProgram>> programs;
  programs.push_back(std::make_unique<RankProgram>(s, plan, me, mem, transport, opt, &trace));
  for (auto& m : extra) programs.push_back(std::make_unique<RankProgram>(s, plan, me, m, transport, opt, &trace));
  if (trace.snapshots) programs[0]->snapshot(trace.initial[me]);

  // Iteration times as the threads backend takes them: from the barrier that
  // starts an iteration (only when there are several) to the one that ends
  // it, both read on rank 0's clock and known to every rank.
  const int iterations = std::max(1, opt.iterations);
  trace.iteration_ns.assign(iterations, 0);
  int64_t iter_start = t_start;
  for (int it = 0; it < iterations; ++it) {
    RankProgram& program = *programs[it % sets];
    program.reset_views();
    if (iterations > 1) iter_start = root_barrier(me, n, "start of an iteration", -1);
    for (int st = 0; st < s.num_steps(); ++st) {
      program.run_step(st);
      if (opt.mode == Mode::lockstep) transport.barrier_at(st, &opt.on_step);
    }
    trace.iteration_ns[it] = root_barrier(me, n, "end of an iteration", -1) - iter_start;
  }
  const int64_t end_ns = transport.now_ns();

  const auto& ov = mem.layout.view[static_cast<int>(Buf::output)];
  std::vector<std::byte> out;
  if (ov.size > 0) {
    std::byte* p = mem.ptr(ov, 0, es);
    if (needs_finish_avg(sp)) kernels::finish_avg(sp.dtype, p, ov.size, n);
    out.assign(p, p + ov.size * es);
  }

  Writer w;
  w.put(end_ns);
  w.put(clock);
  w.vec(out);
  if (opt.record) {
    w.vec(trace.events[me]);
    for (int st = 0; st < s.num_steps(); ++st) put_record(w, trace.steps[st][me]);
    put_record(w, trace.initial[me]);
  }
  auto blobs = gather_blobs(me, n, std::move(w.buf));

  RunResult res;
  res.outputs.resize(n);
  g_sync = MpiClockSync{};
  auto keep = [](const ClockEntry& c) {
    g_sync.offset_ns.push_back(c.offset);
    g_sync.error_ns.push_back(c.error);
    g_sync.measured_offset_ns.push_back(c.measured_offset);
    g_sync.measured_error_ns.push_back(c.measured_error);
    g_sync.same_clock.push_back(c.same_clock != 0);
    g_sync.max_error_ns = std::max(g_sync.max_error_ns, c.error);
  };
  if (me != 0) {
    res.outputs[me] = std::move(out);
    keep(clock);
    trace.total_ns = end_ns;
    res.trace = std::move(trace);
    return res;
  }
  int64_t last_end = 0;
  for (int r = 0; r < n; ++r) {
    Reader rd(blobs[r]);
    last_end = std::max(last_end, rd.get<int64_t>());
    keep(rd.get<ClockEntry>());
    if (sync_now) g_clocks_shared = (r == 0 ? true : g_clocks_shared) && g_sync.same_clock.back();
    res.outputs[r] = rd.vec<std::byte>();
    if (opt.record && r != 0) {
      trace.events[r] = rd.vec<Event>();
      for (int st = 0; st < s.num_steps(); ++st) trace.steps[st][r] = get_record(rd);
      trace.initial[r] = get_record(rd);
    }
  }
  if (sync_now) {
    g_clocks_known = true;
    g_clocks_at = clock_ns();
  }
  trace.total_ns = last_end;
  if (opt.record && !trace.steps.empty()) {
    int64_t first = INT64_MAX, last = 0;
    for (const auto& st : trace.steps)
      for (const auto& r : st) {
        first = std::min(first, r.begin_ns);
        last = std::max(last, r.end_ns);
      }
    trace.total_ns = last - first;
  }
  res.trace = std::move(trace);
  return res;
}

// ============================================================ the library

namespace {

struct LibCall {
  const char* param;                  // coll_tuned_<param>_algorithm
  std::vector<std::string> names;     // index = Open MPI's number
};
// From `ompi_info --param coll tuned --level 9` (Open MPI 4.1.4).
const std::vector<LibCall>& lib_params(Collective c) {
  static const std::vector<LibCall> allreduce{
      {"allreduce",
       {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"}}};
  static const std::vector<LibCall> bcast{{"bcast",
                                           {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree",
                                            "binary_tree", "binomial", "knomial", "scatter_allgather",
                                            "scatter_allgather_ring"}}};
  static const std::vector<LibCall> reduce{
      {"reduce",
       {"ignore", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"}}};
  static const std::vector<LibCall> allgather{
      {"allgather", {"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"}},
      {"allgatherv", {"ignore", "default", "bruck", "ring", "neighbor", "two_proc"}}};
  static const std::vector<LibCall> reduce_scatter{
      {"reduce_scatter_block", {"ignore", "basic_linear", "recursive_doubling", "recursive_halving", "butterfly"}},
      {"reduce_scatter", {"ignore", "non-overlapping", "recursive_halving", "ring", "butterfly"}}};
  static const std::vector<LibCall> gather{{"gather", {"ignore", "basic_linear", "binomial", "linear_sync"}}};
  static const std::vector<LibCall> scatter{{"scatter", {"ignore", "basic_linear", "binomial", "linear_nb"}}};
  static const std::vector<LibCall> alltoall{
      {"alltoall", {"ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}}};
  static const std::vector<LibCall> barrier{
      {"barrier", {"ignore", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"}}};
  switch (c) {
    case Collective::all_reduce: return allreduce;
    case Collective::broadcast: return bcast;
    case Collective::reduce: return reduce;
    case Collective::all_gather: return allgather;
    case Collective::reduce_scatter: return reduce_scatter;
    case Collective::gather: return gather;
    case Collective::scatter: return scatter;
    case Collective::all_to_all: return alltoall;
    case Collective::barrier: return barrier;
  }
  return barrier;
}

// The reduction MPI should apply for float16 / bfloat16 (no MPI type).
DType g_user_dtype = DType::float16;
ReduceOp g_user_op = ReduceOp::sum;
void user_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  kernels::reduce(g_user_dtype, g_user_op, inout, in, *len);
}

int as_int(int64_t v, const char* what) {
  if (v > INT_MAX) throw UsageError(fmt::format("{} {} is beyond what one MPI call takes (2^31-1)", what, v));
  return static_cast<int>(v);
}

}  // namespace

std::string mpi_library_function(const CollectiveSpec& sp) {
  const bool v = !sp.counts.empty();
  switch (sp.collective) {
    case Collective::all_reduce: return "MPI_Allreduce";
    case Collective::broadcast: return "MPI_Bcast";
    case Collective::reduce: return "MPI_Reduce";
    case Collective::all_gather: return v ? "MPI_Allgatherv" : "MPI_Allgather";
    case Collective::reduce_scatter: return v ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
    case Collective::gather: return v ? "MPI_Gatherv" : "MPI_Gather";
    case Collective::scatter: return v ? "MPI_Scatterv" : "MPI_Scatter";
    case Collective::all_to_all: return "MPI_Alltoall";
    case Collective::barrier: return "MPI_Barrier";
  }
  return "?";
}

std::vector<std::string> mpi_library_algorithms(Collective c) {
  std::vector<std::string> out;
  for (const auto& p : lib_params(c))
    for (size_t i = 1; i < p.names.size(); ++i)
      if (std::find(out.begin(), out.end(), p.names[i]) == out.end()) out.push_back(p.names[i]);
  return out;
}

void mpi_force_library_algorithm(Collective c, const std::string& algorithm) {
  const auto names = mpi_library_algorithms(c);
  if (std::find(names.begin(), names.end(), algorithm) == names.end()) {
    std::string list;
    for (const auto& a : names) list += (list.empty() ? "" : ", ") + a;
    throw UsageError(fmt::format("unknown Open MPI algorithm '{}' for {} (expected one of: {})", algorithm, name(c), list));
  }
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited)
    throw UsageError(fmt::format("--mpi-algorithm {} must be chosen before MPI starts", algorithm));
  for (const auto& p : lib_params(c)) {
    auto it = std::find(p.names.begin() + 1, p.names.end(), algorithm);
    if (it == p.names.end()) continue;
    // Numbers rather than names: every Open MPI version parses those.
    setenv(fmt::format("OMPI_MCA_coll_tuned_{}_algorithm", p.param).c_str(),
           std::to_string(it - p.names.begin()).c_str(), 1);
  }
  setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
}

MpiLibraryResult run_mpi_library(const CollectiveSpec& sp, const RankData& inputs, int iterations, int warmup) {
  mpi_init_once();
  sp.validate();
  const int me = me_world();
  const int n = sp.world_size;
  const int np = mpi_world_size();
  const size_t es = dtype_size(sp.dtype);
  const bool inputs_ok = me < n && static_cast<int>(inputs.size()) == n &&
                         inputs[me].size() == static_cast<size_t>(sp.input_count(me)) * es;
  RunOptions o;
  o.iterations = iterations;
  agree(make_header(2, sp, &o, warmup, inputs_ok || me >= n),
        inputs_ok || me >= n ? "" : fmt::format("rank {} input has the wrong shape for {}", me, name(sp.collective)));
  if (np != n)
    throw UsageError(fmt::format("the spec is for world size {} but mpirun started {} ranks (use mpirun -n {})", n, np, n));
  if (iterations < 1) throw UsageError(fmt::format("iterations must be >= 1, not {}", iterations));

  std::vector<std::byte> in = inputs[me];
  std::vector<std::byte> out(static_cast<size_t>(sp.output_count(me)) * es);
  if (needs_premul(sp) && !in.empty()) kernels::premul_avg(sp.dtype, in.data(), in.data(), sp.input_count(me), n);

  // Types and ops.
  MPI_Datatype type = MPI_BYTE;
  MPI_Datatype owned = MPI_DATATYPE_NULL;
  switch (sp.dtype) {
    case DType::int32: type = MPI_INT32_T; break;
    case DType::int64: type = MPI_INT64_T; break;
    case DType::float32: type = MPI_FLOAT; break;
    case DType::float64: type = MPI_DOUBLE; break;
    case DType::float16:
    case DType::bfloat16:
      MPI_Type_contiguous(2, MPI_BYTE, &owned);
      MPI_Type_commit(&owned);
      type = owned;
      break;
  }
  MPI_Op op = MPI_SUM;
  MPI_Op owned_op = MPI_OP_NULL;
  if (owned != MPI_DATATYPE_NULL) {
    g_user_dtype = sp.dtype;
    g_user_op = sp.op;
    MPI_Op_create(&user_reduce, 1, &owned_op);
    op = owned_op;
  } else {
    switch (sp.op) {
      case ReduceOp::sum:
      case ReduceOp::avg: op = MPI_SUM; break;
      case ReduceOp::prod: op = MPI_PROD; break;
      case ReduceOp::min: op = MPI_MIN; break;
      case ReduceOp::max: op = MPI_MAX; break;
    }
  }

  std::vector<int> counts(n), displs(n);
  for (int r = 0; r < n; ++r) {
    counts[r] = as_int(sp.block(r), "block");
    displs[r] = as_int(sp.displ(r), "displacement");
  }
  const int count = as_int(sp.count, "count");
  const bool v = !sp.counts.empty();
  const int root = sp.root;
  void* ip = in.empty() ? nullptr : in.data();
  void* op_ = out.empty() ? nullptr : out.data();
  if (sp.collective == Collective::broadcast && me == root) std::memcpy(op_, ip, out.size());

  auto call = [&] {
    switch (sp.collective) {
      case Collective::all_reduce: MPI_Allreduce(ip, op_, count, type, op, g_comm); break;
      case Collective::broadcast: MPI_Bcast(op_, count, type, root, g_comm); break;
      case Collective::reduce: MPI_Reduce(ip, op_, count, type, op, root, g_comm); break;
      case Collective::all_gather:
        if (v) MPI_Allgatherv(ip, counts[me], type, op_, counts.data(), displs.data(), type, g_comm);
        else MPI_Allgather(ip, count, type, op_, count, type, g_comm);
        break;
      case Collective::reduce_scatter:
        if (v) MPI_Reduce_scatter(ip, op_, counts.data(), type, op, g_comm);
        else MPI_Reduce_scatter_block(ip, op_, count, type, op, g_comm);
        break;
      case Collective::gather:
        if (v) MPI_Gatherv(ip, counts[me], type, op_, counts.data(), displs.data(), type, root, g_comm);
        else MPI_Gather(ip, count, type, op_, count, type, root, g_comm);
        break;
      case Collective::scatter:
        if (v) MPI_Scatterv(ip, counts.data(), displs.data(), type, op_, counts[me], type, root, g_comm);
        else MPI_Scatter(ip, count, type, op_, count, type, root, g_comm);
        break;
      case Collective::all_to_all: MPI_Alltoall(ip, count, type, op_, count, type, g_comm); break;
      case Collective::barrier: MPI_Barrier(g_comm); break;
    }
  };
  for (int i = 0; i < warmup; ++i) call();
  MPI_Barrier(g_comm);
  const int64_t t0 = clock_ns();
  for (int i = 0; i < iterations; ++i) call();
  const int64_t mine = clock_ns() - t0;
  int64_t slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_INT64_T, MPI_MAX, g_comm);

  if (owned_op != MPI_OP_NULL) MPI_Op_free(&owned_op);
  if (owned != MPI_DATATYPE_NULL) MPI_Type_free(&owned);
  if (needs_finish_avg(sp) && !out.empty()) kernels::finish_avg(sp.dtype, out.data(), sp.output_count(me), n);

  MpiLibraryResult res;
  res.function = mpi_library_function(sp);
  res.seconds = static_cast<double>(slowest) * 1e-9 / iterations;
  res.outputs.resize(n);
  auto blobs = gather_blobs(me, n, out);
  if (me == 0)
    for (int r = 0; r < n; ++r) res.outputs[r] = std::move(blobs[r]);
  else
    res.outputs[me] = std::move(out);
  return res;
}

}  // namespace microddp
