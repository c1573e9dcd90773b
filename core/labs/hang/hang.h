// The hang lab: faults that make distributed jobs hang or go
// wrong, run for real on threads and bounded in time, and the tools that
// find them: a monitored barrier, per-rank collective sequence numbers with
// a small flight recorder, and NCCL_DEBUG-style logging (MICRODDP_DEBUG,
// filtered by MICRODDP_DEBUG_SUBSYS as NCCL_DEBUG_SUBSYS).
//
// The model, in the spirit of PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL
// (which wraps each collective in a monitored barrier plus a check of the
// collective's type and shape): every rank is a thread; before each of its
// collectives a rank enters a monitored barrier carrying the call's
// fingerprint (sequence number, collective, count, dtype). Rank 0 waits
// for every rank until a whole timeout has passed with no progress from any
// rank (so that ranks slowed by an oversubscribed machine are late, not
// stuck), then names every rank that did not arrive, in ascending order, or
// every rank whose fingerprint differs from rank 0's; the barrier's verdict
// fails ALL ranks together (late arrivals included), none pass. A watchdog
// catches what no barrier can: every rank stuck before the same barrier. Only when it passes does the collective run, for
// real, with run_threads (core/exec/executor.h).
// Limits (say them when teaching): the fingerprint holds type, count and
// dtype, so two calls of the same shape in the wrong order are NOT caught
// (neither are they by PyTorch's check); NCCL itself checks nothing and
// would hang or silently mix data.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp::hang {

// ---- MICRODDP_DEBUG logging ------------------------------------------------
// Levels as NCCL_DEBUG: WARN (failures), INFO (one line per rank per call:
// collective, algorithm, count, dtype, op, peers), TRACE (also barrier
// arrivals and verdicts). Lines: "microddp:<pid>:<tid> [<rank>] MICRODDP
// <LEVEL> <text>", to stderr unless a sink is set.
enum class LogLevel { none = 0, warn = 1, info = 2, trace = 3 };
// Unset or empty: none. Unknown values: warn (the library's reading;
// microddp and microddp-viz refuse them first, check_debug_env below).
LogLevel parse_log_level(std::string_view s);
LogLevel log_level_from_env();  // reads MICRODDP_DEBUG each call

// Subsystems, as NCCL_DEBUG_SUBSYS filters NCCL's INFO/TRACE lines:
//   INIT    a rank joins the job (the hang lab's start: rank, world size,
//           barrier timeout)
//   COLL    one line per collective call per rank (INFO), its monitored
//           barrier and its completion (TRACE)
//   P2P     the point-to-point messages a call makes on a rank (TRACE)
//   TUNING  the algorithm choice of `--algorithm auto` (INFO)
//   ALL     every subsystem
// MICRODDP_DEBUG_SUBSYS is a comma list of these names (case-insensitive);
// a leading '^' inverts the whole list ("^P2P,TUNING": all but those), as
// in NCCL. NCCL's other names (NET, SHM, BOOTSTRAP, ENV, ...) select
// kNcclOnly, under which microddp logs nothing; any other name is ignored,
// as NCCL ignores it (NCCL 2.18 src/debug.cc: a name that matches none adds
// nothing to the mask), so a list of unknown names alone enables nothing,
// not even WARN. Unset or empty: ALL,
// unlike NCCL's default (INIT,BOOTSTRAP,ENV): microddp logs few lines and
// MICRODDP_DEBUG=INFO alone shows each call. WARN lines belong to every
// subsystem: they print unless the list enables none (e.g. "^ALL").
enum Subsys : uint32_t {
  kInit = 1u << 0,
  kColl = 1u << 1,
  kP2P = 1u << 2,
  kTuning = 1u << 3,
  kNcclOnly = 1u << 4,  // NCCL's subsystems microddp has no lines for
  kAllSubsys = ~0u
};
uint32_t parse_subsys(std::string_view s);
uint32_t subsys_from_env();  // reads MICRODDP_DEBUG_SUBSYS each call
// True when a line of this level and subsystem would be printed now.
bool log_enabled(LogLevel level, uint32_t subsys);

// The logging level, for a command that runs collectives (run, hang-lab,
// lesson; microddp-viz): MICRODDP_DEBUG must be unset, empty or WARN /
// INFO / TRACE (any case). The library reads an unknown level as WARN,
// which would leave a typo silent (WARN logs only failures); a command
// refuses it instead: throws UsageError naming the variable, the value and
// the valid ones. MICRODDP_DEBUG_SUBSYS is not checked: unknown names are
// ignored, as in NCCL (parse_subsys).
void check_debug_env();

void set_log_sink(std::function<void(const std::string&)> sink);  // nullptr: stderr
std::string_view name(LogLevel l);  // "NONE", "WARN", "INFO", "TRACE"

// One log line as a run's own log keeps it (LabOptions::log): the rank,
// the level, the text after "MICRODDP <LEVEL> " and when it was logged.
struct LogEntry {
  int rank = 0;
  LogLevel level = LogLevel::warn;
  std::string text;
  double t_s = 0;  // seconds since the capture's t0 (the lab's start: the clock of LabResult::verdict_s)
};

// A log of the lines some threads log, at a level of its own: while a
// thread holds a ThreadLog::Scope, its log_enabled and log_line read the
// capture's level (every subsystem enabled) instead of MICRODDP_DEBUG /
// MICRODDP_DEBUG_SUBSYS, and its lines go to the capture instead of the
// sink or stderr. Other threads are not affected (the process environment
// and the sink stay as they are), so two runs may capture at once.
// Thread-safe: any number of threads may log into one capture; entries()
// copies them in the order they were logged (under the capture's mutex).
// Each line's time stamp (steady_clock, seconds since t0) is taken under
// that mutex, so the entries' t_s never decrease.
class ThreadLog {
 public:
  explicit ThreadLog(LogLevel level, std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now());
  LogLevel level() const { return level_; }
  std::vector<LogEntry> entries() const;
  void add(int rank, LogLevel level, std::string text);
  // Redirects the calling thread's logging to `log` for the scope's life
  // (a scope opened inside another restores it on exit).
  class Scope {
   public:
    explicit Scope(ThreadLog& log);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ThreadLog* previous_;
  };

 private:
  LogLevel level_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::mutex m_;
  std::vector<LogEntry> entries_;
};
// No-op above the env level or outside the enabled subsystems; WARN lines
// pass any enabled subsystem. On a thread inside a ThreadLog::Scope: no-op
// above that log's level, else the line goes to it.
void log_line(LogLevel level, int rank, const std::string& text, uint32_t subsys = kAllSubsys);

// A rank's point-to-point traffic over a whole schedule (what the P2P debug
// line reports): messages and bytes sent and received, and the peers.
struct P2pTraffic {
  int sends = 0, recvs = 0;
  int64_t sent = 0, received = 0;  // bytes
  std::set<int> to, from;
};
P2pTraffic p2p_traffic(const Schedule& s, int rank);
// "call #k p2p: 2 sends (8 B) to 2,3, 0 recvs (0 B) from " (a TRACE line's text).
std::string p2p_line(const Schedule& s, int rank, int k);

// ---- flight recorder -------------------------------------------------------

struct CallRecord {
  int64_t seq = 0;          // the rank's collective sequence number (0-based)
  std::string what;         // "grad bucket 1"
  std::string collective, algorithm, dtype;
  int64_t count = 0;        // elements per rank
  std::vector<int> peers;   // ranks this rank sends to or receives from (from the schedule)
  enum class State { started, completed, failed } state = State::started;
  std::string error;        // when failed
  double begin_s = 0, end_s = 0;  // seconds since the lab began (end 0 while running)
};
std::string_view name(CallRecord::State s);

// The last `capacity` calls of one rank, plus its sequence counters.
struct FlightRecorder {
  size_t capacity = 8;
  std::deque<CallRecord> calls;
  int64_t last_started = -1, last_completed = -1;
  void start(CallRecord r);               // records seq as started
  void finish(bool ok, const std::string& error, double end_s);
};

// ---- progress --------------------------------------------------------------

// The time of the last sign of life any rank of a group gave (arriving at a
// barrier, finishing a step of its program). It tells "late" from "stuck":
// on an oversubscribed machine (hundreds of rank threads on 2 cores) a
// healthy rank can take longer than any fixed timeout to reach a barrier,
// but while the group beats, somebody is moving; a group silent for a
// whole timeout is stuck. Thread-safe; beat() is one atomic store.
class Heartbeat {
 public:
  Heartbeat() { beat(); }
  void beat();
  std::chrono::steady_clock::time_point last() const;

 private:
  std::atomic<int64_t> last_ns_{0};
};

// ---- monitored barrier -----------------------------------------------------

struct BarrierError : std::runtime_error {
  std::vector<int> missing;     // ascending; empty for a mismatch
  std::vector<int> mismatched;  // ranks whose fingerprint differs from rank 0's
  BarrierError(const std::string& what, std::vector<int> miss, std::vector<int> mis)
      : std::runtime_error(what), missing(std::move(miss)), mismatched(std::move(mis)) {}
};

// One use of a monitored barrier by n rank threads (make one per use).
// arrive() returns when every rank arrived with rank 0's fingerprint, and
// throws BarrierError otherwise. Timeouts count from the group's last
// progress (`progress`, which every arrival beats; without one, arrivals
// at this barrier are the only progress), so ranks that trickle in late
// on a busy machine are waited for and only a silent group times out:
//  - rank 0 waits until timeout_s has passed with no progress, then names
//    the missing ranks, ascending: "monitored barrier 'LABEL': ranks 1, 3
//    did not arrive within 0.3 s";
//  - ranks != 0 wait for rank 0's verdict; if rank 0 itself has not arrived
//    within timeout_s of the last progress, they fail naming rank 0;
//  - a rank arriving after a failed verdict fails with it (all fail together).
// Bound: a rank returns or throws within 2 * timeout_s + 1 s of the group's
// last progress, plus scheduling noise. cancel() fails every waiter at once.
// `progress`, when given, must outlive the barrier.
class MonitoredBarrier {
 public:
  MonitoredBarrier(int world_size, double timeout_s, std::string label = "barrier", Heartbeat* progress = nullptr);
  void arrive(int rank, const std::string& fingerprint = "");
  void cancel(const std::string& why);
  bool failed() const;
  // Whether `rank` has called arrive() (so a caller can order arrivals, as
  // the tests do to make "rank 0 is there first" certain).
  bool has_arrived(int rank) const;
  std::string error() const;
  // When the verdict was given (steady_clock; the epoch while undecided).
  std::chrono::steady_clock::time_point decided_at() const;
  std::vector<int> missing() const;     // after a failed verdict
  std::vector<int> mismatched() const;

 private:
  void decide_locked(std::string err, std::vector<int> missing, std::vector<int> mism);
  Heartbeat own_progress_;
  Heartbeat* progress_;
  int n_;
  double timeout_s_;
  std::string label_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<bool> arrived_;
  std::vector<std::string> fp_;
  bool decided_ = false, ok_ = false;
  std::chrono::steady_clock::time_point decided_at_{};
  std::string error_;
  std::vector<int> missing_, mismatched_;
};

// ---- the lab -----------------------------------------------------------------

enum class Fault {
  none,
  skip_collective,  // the rank skips call `fault_call` and the rest of the step (ran out of data)
  wrong_count,      // the rank's call `fault_call` has count + 1
  wrong_order,      // the rank issues calls fault_call and fault_call + 1 swapped
  sleep             // the rank sleeps (10 x timeout, interrupted when the lab ends) before call fault_call
};
std::string_view name(Fault f);
Fault parse_fault(std::string_view s);  // throws UsageError naming s

struct LabOptions {
  int ranks = 4;
  Fault fault = Fault::none;
  std::vector<int> fault_ranks = {2};
  double timeout_s = 2.0;
  int64_t count = 1024;          // call 0's count; call 1 has count/2, call 2 count/4
  std::string algorithm = "ring";
  int fault_call = 1;            // 0..1 (wrong_order swaps it with the next one)
  // The run's own log level: set, every rank logs at this level (every
  // subsystem) into LabResult::log and prints nothing (ThreadLog; the
  // environment is not read); unset, the ranks log as MICRODDP_DEBUG says.
  std::optional<LogLevel> log;
  // Throws UsageError naming the bad value: ranks outside 2..kMaxRanks,
  // or buffers beyond the memory budget (core/ir/limits.h).
  void validate() const;
  // An upper estimate of the bytes the lab's buffers take at their peak.
  double buffer_bytes() const;
};

struct RankOutcome {
  int rank = 0;
  bool passed = false;
  std::string error;   // why it failed
  std::string state;   // "failed in call 1 (all_reduce count 512) at its monitored barrier", ...
  FlightRecorder recorder;
};

struct LabResult {
  std::vector<RankOutcome> ranks;
  std::vector<int> missing;     // from the first failed barrier, ascending
  std::vector<int> mismatched;
  std::string verdict;          // the first failed barrier's message ("" = all passed)
  bool all_passed = false, all_failed = false;
  double seconds = 0;           // wall time of the whole lab
  // With LabOptions::log: every rank's lines in the order they were logged
  // (empty otherwise).
  std::vector<LogEntry> log;
  // When the verdict was given, in seconds since the lab began, on the
  // clock of the log's LogEntry::t_s (steady_clock, one t0): the failed
  // barrier's decision, or the watchdog's. -1 without a verdict.
  double verdict_s = -1;
  // Whether a log line was logged at or after the verdict's time stamp.
  // The verdict is decided before anything it wakes logs (a sleeper's
  // line for its call), so such a line is after it whichever thread
  // writes first; the order of the ranks' lines in `log` is not used (when
  // the watchdog gives the verdict, every rank logs its own WARN line of it
  // in whatever order the scheduler wakes them). False without a verdict.
  bool after_verdict(const LogEntry& e) const { return !verdict.empty() && verdict_s >= 0 && e.t_s >= verdict_s; }
  // The first line of `log` holding the verdict's text (a WARN line), to
  // show beside a call's lines; log.size() when there is none. It does not
  // tell which lines came after the verdict: after_verdict does.
  size_t verdict_line() const;
  // Multi-line text for the terminal; with `log`, its lines too, a line
  // "---- the verdict ----" at verdict_s and the tag "<- after the verdict"
  // on each non-WARN line logged after it.
  std::string report() const;
};

// Program of every rank: call 0 all_reduce(count) "grad bucket 0", call 1
// all_reduce(count/2) "grad bucket 1", call 2 all_gather(count/4)
// "params", then a monitored barrier "end of step". Inputs: rank r's
// elements are r + 1 (float32, op sum); outputs are checked (all_reduce:
// n(n+1)/2 everywhere; all_gather: block q holds q + 1).
// A watchdog names the ranks stuck outside any collective when no rank has
// made progress for 2 * timeout_s (every rank asleep: no barrier sees it);
// its verdict starts "watchdog:" and `missing` lists those ranks.
// Bounded: returns within about 3 * timeout_s of the last progress (+ the
// collectives' time).
LabResult run_hang_lab(const LabOptions& o);

}  // namespace microddp::hang
