// The hang lab: monitored barrier, flight recorder, MICRODDP_DEBUG logging
// and the fault-injected program (see core/labs/hang/hang.h).
#include "core/labs/hang/hang.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/ir/limits.h"
#include "core/exec/executor.h"
#include "core/ir/spec.h"

namespace microddp::hang {

using Clock = std::chrono::steady_clock;

// ---- logging -----------------------------------------------------------------

namespace {
std::mutex g_log_m;
std::function<void(const std::string&)> g_sink;
std::string_view level_name(LogLevel l) {
  switch (l) {
    case LogLevel::warn: return "WARN";
    case LogLevel::info: return "INFO";
    case LogLevel::trace: return "TRACE";
    default: return "NONE";
  }
}
}  // namespace

LogLevel parse_log_level(std::string_view s) {
  std::string u(s);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u.empty()) return LogLevel::none;
  if (u == "WARN") return LogLevel::warn;
  if (u == "INFO") return LogLevel::info;
  if (u == "TRACE") return LogLevel::trace;
  return LogLevel::warn;
}

LogLevel log_level_from_env() {
  const char* v = std::getenv("MICRODDP_DEBUG");
  return v ? parse_log_level(v) : LogLevel::none;
}

namespace {
// NCCL_DEBUG_SUBSYS names microddp has no lines for (NCCL 2.18 src/debug.cc
// ncclDebugInit; 2.2x adds the last few): they select kNcclOnly, so a list
// of them alone still lets WARN lines through, as in NCCL.
bool is_nccl_only_subsys(const std::string& u) {
  for (const char* n : {"SHM", "NET", "GRAPH", "ENV", "ALLOC", "ALLOC_HOST", "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG",
                        "PROFILE", "RAS", "DESTROY"})
    if (u == n) return true;
  return false;
}
}  // namespace

uint32_t parse_subsys(std::string_view s) {
  if (s.empty()) return kAllSubsys;
  // NCCL's rule: one '^' in front inverts the whole list.
  const bool invert = s.front() == '^';
  if (invert) s.remove_prefix(1);
  uint32_t mask = 0;
  while (true) {
    const size_t comma = s.find(',');
    std::string u(s.substr(0, comma));
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u == "INIT") mask |= kInit;
    else if (u == "COLL") mask |= kColl;
    else if (u == "P2P") mask |= kP2P;
    else if (u == "TUNING") mask |= kTuning;
    else if (u == "ALL") mask |= kAllSubsys;
    else if (is_nccl_only_subsys(u)) mask |= kNcclOnly;
    // any other name adds nothing: ignored, as NCCL ignores it
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return invert ? ~mask : mask;
}

uint32_t subsys_from_env() {
  const char* v = std::getenv("MICRODDP_DEBUG_SUBSYS");
  return v ? parse_subsys(v) : kAllSubsys;
}

void check_debug_env() {
  if (const char* v = std::getenv("MICRODDP_DEBUG"); v && *v) {
    std::string u(v);
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u != "WARN" && u != "INFO" && u != "TRACE")
      throw UsageError(fmt::format("MICRODDP_DEBUG '{}' is not a log level (expected WARN, INFO or TRACE, any case; "
                                   "unset or empty: no log)",
                                   v));
  }
  // MICRODDP_DEBUG_SUBSYS is not checked: as in NCCL, an unknown name is
  // ignored (README "Debug logging"; parse_subsys).
}

bool log_enabled(LogLevel level, uint32_t subsys) {
  if (level == LogLevel::none || level > log_level_from_env()) return false;
  const uint32_t enabled = subsys_from_env();
  return level == LogLevel::warn ? enabled != 0 : (enabled & subsys) != 0;
}

void set_log_sink(std::function<void(const std::string&)> sink) {
  std::lock_guard<std::mutex> lk(g_log_m);
  g_sink = std::move(sink);
}

void log_line(LogLevel level, int rank, const std::string& text, uint32_t subsys) {
  if (!log_enabled(level, subsys)) return;
  const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000;
  std::string line = fmt::format("microddp:{}:{} [{}] MICRODDP {} {}", static_cast<long>(::getpid()), tid, rank,
                                 level_name(level), text);
  std::lock_guard<std::mutex> lk(g_log_m);
  if (g_sink)
    g_sink(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

// ---- flight recorder -----------------------------------------------------------

std::string_view name(CallRecord::State s) {
  switch (s) {
    case CallRecord::State::started: return "started";
    case CallRecord::State::completed: return "completed";
    case CallRecord::State::failed: return "failed";
  }
  return "?";
}

void FlightRecorder::start(CallRecord r) {
  last_started = r.seq;
  calls.push_back(std::move(r));
  while (calls.size() > capacity) calls.pop_front();
}

void FlightRecorder::finish(bool ok, const std::string& error, double end_s) {
  if (calls.empty()) return;
  auto& c = calls.back();
  c.state = ok ? CallRecord::State::completed : CallRecord::State::failed;
  c.error = error;
  c.end_s = end_s;
  if (ok) last_completed = c.seq;
}

// ---- monitored barrier -----------------------------------------------------------

namespace {
std::string rank_list(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ", ")); }
std::string secs(double s) { return fmt::format("{:g} s", s); }
}  // namespace

void Heartbeat::beat() {
  last_ns_.store(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(),
                 std::memory_order_relaxed);
}

Clock::time_point Heartbeat::last() const {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(last_ns_.load(std::memory_order_relaxed))));
}

MonitoredBarrier::MonitoredBarrier(int world_size, double timeout_s, std::string label, Heartbeat* progress)
    : progress_(progress ? progress : &own_progress_),
      n_(world_size),
      timeout_s_(timeout_s),
      label_(std::move(label)),
      arrived_(world_size, false),
      fp_(world_size) {}

bool MonitoredBarrier::failed() const {
  std::lock_guard<std::mutex> lk(m_);
  return decided_ && !ok_;
}
bool MonitoredBarrier::has_arrived(int rank) const {
  std::lock_guard<std::mutex> lk(m_);
  return rank >= 0 && rank < n_ && arrived_[rank];
}
std::string MonitoredBarrier::error() const {
  std::lock_guard<std::mutex> lk(m_);
  return error_;
}

std::vector<int> MonitoredBarrier::missing() const {
  std::lock_guard<std::mutex> lk(m_);
  return missing_;
}
std::vector<int> MonitoredBarrier::mismatched() const {
  std::lock_guard<std::mutex> lk(m_);
  return mismatched_;
}

void MonitoredBarrier::decide_locked(std::string err, std::vector<int> missing, std::vector<int> mism) {
  if (decided_) return;
  decided_ = true;
  ok_ = err.empty();
  error_ = std::move(err);
  missing_ = std::move(missing);
  mismatched_ = std::move(mism);
  cv_.notify_all();
}

void MonitoredBarrier::cancel(const std::string& why) {
  std::lock_guard<std::mutex> lk(m_);
  decide_locked(fmt::format("monitored barrier '{}': {}", label_, why), {}, {});
}

void MonitoredBarrier::arrive(int rank, const std::string& fingerprint) {
  std::unique_lock<std::mutex> lk(m_);
  if (rank < 0 || rank >= n_) throw std::out_of_range(fmt::format("monitored barrier: rank {} out of range", rank));
  arrived_[rank] = true;
  fp_[rank] = fingerprint;
  progress_->beat();
  cv_.notify_all();
  const auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  // Waits until pred() holds or `quiet` has passed since the group's last
  // progress. Progress made elsewhere does not notify this barrier, so the
  // deadline is re-read each time the wait times out.
  auto wait_quiet = [&](Clock::duration quiet, auto pred) {
    for (;;) {
      const auto deadline = progress_->last() + quiet;
      if (pred() || Clock::now() >= deadline) return pred();
      cv_.wait_until(lk, deadline, pred);
    }
  };
  auto all_arrived = [&] { return std::all_of(arrived_.begin(), arrived_.end(), [](bool b) { return b; }); };
  if (rank == 0 && !decided_) {
    wait_quiet(timeout, [&] { return decided_ || all_arrived(); });
    if (!decided_) {
      std::vector<int> missing;
      for (int r = 0; r < n_; ++r)
        if (!arrived_[r]) missing.push_back(r);
      if (!missing.empty()) {
        decide_locked(fmt::format("monitored barrier '{}': rank{} {} did not arrive within {}", label_,
                                  missing.size() > 1 ? "s" : "", rank_list(missing), secs(timeout_s_)),
                      missing, {});
      } else {
        std::vector<int> mism;
        for (int r = 1; r < n_; ++r)
          if (fp_[r] != fp_[0]) mism.push_back(r);
        if (mism.empty()) {
          decide_locked("", {}, {});
        } else {
          std::string detail;
          for (int r : mism) detail += fmt::format("; rank {} called {}", r, fp_[r]);
          decide_locked(fmt::format("monitored barrier '{}': collective mismatch: rank 0 called {}{}", label_,
                                    fp_[0], detail),
                        {}, mism);
        }
      }
    }
  } else if (!decided_) {
    wait_quiet(timeout, [&] { return decided_ || arrived_[0]; });
    if (!decided_ && !arrived_[0]) {
      decide_locked(fmt::format("monitored barrier '{}': rank 0 did not arrive within {} (rank {} waited)", label_,
                                secs(timeout_s_), rank),
                    {0}, {});
    } else {
      // Rank 0 is there: its verdict comes within its own (quiet) timeout.
      wait_quiet(timeout * 2 + std::chrono::seconds(1), [&] { return decided_; });
      if (!decided_) decide_locked(fmt::format("monitored barrier '{}': no verdict from rank 0", label_), {0}, {});
    }
  }
  if (!ok_) throw BarrierError(error_, missing_, mismatched_);
}

// ---- the lab -------------------------------------------------------------------

std::string_view name(Fault f) {
  switch (f) {
    case Fault::none: return "none";
    case Fault::skip_collective: return "skip-collective";
    case Fault::wrong_count: return "wrong-count";
    case Fault::wrong_order: return "wrong-order";
    case Fault::sleep: return "sleep";
  }
  return "?";
}

Fault parse_fault(std::string_view s) {
  for (Fault f : {Fault::none, Fault::skip_collective, Fault::wrong_count, Fault::wrong_order, Fault::sleep})
    if (s == name(f)) return f;
  throw UsageError(fmt::format("unknown fault '{}' (none, skip-collective, wrong-count, wrong-order, sleep)", s));
}

void LabOptions::validate() const {
  if (ranks < 2) throw UsageError(fmt::format("ranks {}: the hang lab needs at least 2", ranks));
  check_ranks(ranks, "--ranks");
  if (!(timeout_s > 0) || timeout_s > 600) throw UsageError(fmt::format("timeout {} s: must be in (0, 600]", timeout_s));
  if (count < 4) throw UsageError(fmt::format("count {}: must be >= 4", count));
  if (fault_call < 0 || fault_call > 1) throw UsageError(fmt::format("fault call {}: must be 0 or 1", fault_call));
  if (fault != Fault::none && fault_ranks.empty()) throw UsageError("a fault needs at least one --rank");
  for (int r : fault_ranks)
    if (r < 0 || r >= ranks) throw UsageError(fmt::format("rank {} is out of range for {} ranks", r, ranks));
  const auto& algs = algorithms_for(Collective::all_reduce);
  if (std::find(algs.begin(), algs.end(), algorithm) == algs.end())
    throw UsageError(fmt::format("unknown all_reduce algorithm '{}'", algorithm));
  check_memory(buffer_bytes(), fmt::format("--count {} on {} ranks", count, ranks));
}

double LabOptions::buffer_bytes() const {
  // Call #0 (all_reduce of `count` floats) at its peak: every rank's input
  // vector, the deposited copy, run_threads' per-rank buffers (input,
  // output, scratch) and the copies of the result, about 8 copies of
  // n * count floats; the all_gather of count/4 floats per rank gives each
  // rank n * count/4 floats, held about 3 times over.
  const double n = ranks, c = static_cast<double>(count), f = sizeof(float);
  return 8 * n * c * f + 3 * n * n * (c / 4) * f;
}

namespace {

struct CallDef {
  std::string what;
  Collective collective;
  std::string algorithm;
  int64_t count;
};

std::string fingerprint(int64_t seq, const CallDef& c) {
  return fmt::format("#{} {} count {} float32", seq, name(c.collective), c.count);
}

CollectiveSpec spec_of(const CallDef& c, int n) {
  CollectiveSpec s;
  s.collective = c.collective;
  s.algorithm = c.algorithm;
  s.world_size = n;
  s.count = c.count;
  s.dtype = DType::float32;
  s.op = ReduceOp::sum;
  return s;
}

std::vector<int> peers_of(const Schedule& s, int rank) {
  std::set<int> p;
  for (const auto& st : s.steps)
    for (const auto& op : st.ranks[rank])
      if (is_comm(op.kind)) p.insert(op.peer);
  return {p.begin(), p.end()};
}

// The data exchange after a passed barrier: the last rank to deposit runs
// the collective for every rank with run_threads.
struct Exchange {
  std::mutex m;
  std::condition_variable cv;
  RankData inputs, outputs;
  int deposited = 0;
  bool done = false;
  std::string error;
};

}  // namespace

LabResult run_hang_lab(const LabOptions& o) {
  o.validate();
  const int n = o.ranks;
  const auto t_begin = Clock::now();
  auto now_s = [&] { return std::chrono::duration<double>(Clock::now() - t_begin).count(); };
  const std::vector<CallDef> program = {
      {"grad bucket 0", Collective::all_reduce, o.algorithm, o.count},
      {"grad bucket 1", Collective::all_reduce, o.algorithm, o.count / 2},
      {"params", Collective::all_gather, "ring", o.count / 4},
  };
  const int K = static_cast<int>(program.size());
  auto faulty = [&](int r) {
    return o.fault != Fault::none && std::find(o.fault_ranks.begin(), o.fault_ranks.end(), r) != o.fault_ranks.end();
  };
  auto program_of = [&](int r) {
    std::vector<CallDef> mine = program;
    if (faulty(r) && o.fault == Fault::wrong_count) mine[o.fault_call].count += 1;
    if (faulty(r) && o.fault == Fault::wrong_order) std::swap(mine[o.fault_call], mine[o.fault_call + 1]);
    return mine;
  };
  // Every schedule is built once, before the ranks start: built per rank,
  // hundreds of ranks on 2 cores spend seconds on the same schedule and
  // reach their first barrier long after rank 0.
  std::map<std::string, Schedule> schedules;
  auto key = [](const CallDef& c) { return fmt::format("{} {} {}", name(c.collective), c.algorithm, c.count); };
  for (int r = 0; r < n; ++r)
    for (const CallDef& c : program_of(r))
      if (!schedules.count(key(c))) schedules.emplace(key(c), make_schedule(spec_of(c, n)));

  // Every step a rank finishes beats `progress`; the barriers time out only
  // after a whole timeout without any.
  Heartbeat progress;
  std::vector<std::unique_ptr<MonitoredBarrier>> barriers;
  std::vector<std::unique_ptr<Exchange>> exchanges;
  for (int k = 0; k <= K; ++k) {
    barriers.push_back(std::make_unique<MonitoredBarrier>(
        n, o.timeout_s, k < K ? fmt::format("before call #{}", k) : std::string("end of step"), &progress));
    exchanges.push_back(std::make_unique<Exchange>());
    exchanges.back()->inputs.resize(n);
  }
  std::mutex stop_m;
  std::condition_variable stop_cv;
  bool stop = false;
  auto stop_all = [&](const std::string& why) {
    // Barriers first: a sleeper woken by `stop` must find its barrier
    // failed, not pass it with the other woken sleepers.
    for (auto& b : barriers) b->cancel(why);  // no-op on barriers already decided
    {
      std::lock_guard<std::mutex> lk(stop_m);
      stop = true;
    }
    stop_cv.notify_all();
  };
  // What each rank is doing, for the watchdog: a rank that waits (at a
  // barrier, for a collective) is not stuck by itself; the barrier speaks
  // for it.
  enum RankState : int { working = 0, waiting = 1, done = 2 };
  std::vector<std::atomic<int>> state(n);
  for (auto& x : state) x.store(working);
  std::atomic<int> collectives_running{0};

  LabResult res;
  res.ranks.resize(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      RankOutcome& out = res.ranks[r];
      out.rank = r;
      const std::vector<CallDef> mine = program_of(r);
      bool slept = false;
      log_line(LogLevel::info, r,
               fmt::format("init: rank {} nranks {} monitored barrier timeout {:g} s flight recorder {} calls", r, n,
                           o.timeout_s, out.recorder.capacity),
               kInit);
      progress.beat();
      try {
        for (int k = 0; k < K; ++k) {
          if (faulty(r) && k == o.fault_call && o.fault == Fault::skip_collective) {
            out.state = fmt::format("left the step before call #{} (skipped it and the rest: ran out of data)", k);
            log_line(LogLevel::warn, r, fmt::format("fault injected: skipping call #{} and the rest of the step", k));
            out.error = "this rank skipped its collectives; the others report it missing";
            state[r] = done;
            return;
          }
          if (faulty(r) && k == o.fault_call && o.fault == Fault::sleep) {
            log_line(LogLevel::warn, r, fmt::format("fault injected: sleeping before call #{}", k));
            out.state = fmt::format("sleeping before call #{} (not in any collective)", k);
            std::unique_lock<std::mutex> lk(stop_m);
            stop_cv.wait_for(lk, std::chrono::duration<double>(10 * o.timeout_s), [&] { return stop; });
            slept = true;
          }
          const CallDef& c = mine[k];
          const Schedule& sched = schedules.at(key(c));
          CallRecord rec;
          rec.seq = k;
          rec.what = c.what;
          rec.collective = std::string(name(c.collective));
          rec.algorithm = c.algorithm;
          rec.dtype = "float32";
          rec.count = c.count;
          rec.peers = peers_of(sched, r);
          rec.begin_s = now_s();
          out.recorder.start(rec);
          out.state = fmt::format("in call #{} ({} count {}, '{}')", k, rec.collective, c.count, c.what);
          log_line(LogLevel::info, r,
                   fmt::format("{}: seq {} '{}' algorithm {} count {} dtype float32 op sum nranks {} peers {}",
                               rec.collective, k, c.what, c.algorithm, c.count, n, fmt::join(rec.peers, ",")),
                   kColl);
          if (log_enabled(LogLevel::trace, kP2P)) log_line(LogLevel::trace, r, p2p_line(sched, r, k), kP2P);
          log_line(LogLevel::trace, r, fmt::format("arrives at monitored barrier before call #{}", k), kColl);
          try {
            state[r] = waiting;
            barriers[k]->arrive(r, fingerprint(k, c));
          } catch (const BarrierError& e) {
            out.recorder.finish(false, e.what(), now_s());
            out.state += slept ? " - it had slept past the barrier's timeout; failed with the others"
                               : " - failed at its monitored barrier";
            throw;
          }
          state[r] = working;
          progress.beat();
          log_line(LogLevel::trace, r, fmt::format("monitored barrier before call #{} passed", k), kColl);
          // The barrier passed: every rank is here with the same call.
          Exchange& ex = *exchanges[k];
          std::vector<float> in(static_cast<size_t>(c.count), static_cast<float>(r + 1));
          {
            std::unique_lock<std::mutex> lk(ex.m);
            ex.inputs[r].resize(in.size() * sizeof(float));
            std::memcpy(ex.inputs[r].data(), in.data(), ex.inputs[r].size());
            progress.beat();
            if (++ex.deposited == n) {
              ++collectives_running;
              try {
                check_schedule(sched);
                RunOptions ro;
                ro.mode = Mode::free;
                ro.record = false;
                ex.outputs = run_threads(sched, ex.inputs, ro).outputs;
              } catch (const std::exception& e) {
                ex.error = e.what();
              }
              --collectives_running;
              progress.beat();
              ex.done = true;
              ex.cv.notify_all();
            } else {
              state[r] = waiting;
              if (!ex.cv.wait_for(lk, std::chrono::seconds(60), [&] { return ex.done; }))
                throw std::runtime_error("collective did not complete in 60 s");
              state[r] = working;
            }
            if (!ex.error.empty()) throw std::runtime_error(ex.error);
          }
          // Check the result: a call that "succeeds" with wrong data is a failure.
          const auto& ob = exchanges[k]->outputs[r];
          std::vector<float> got(ob.size() / sizeof(float));
          std::memcpy(got.data(), ob.data(), ob.size());
          bool good = true;
          if (c.collective == Collective::all_reduce) {
            for (float v : got) good = good && v == static_cast<float>(n * (n + 1) / 2);
          } else {
            for (size_t i = 0; i < got.size(); ++i) good = good && got[i] == static_cast<float>(i / c.count + 1);
          }
          if (!good) {
            out.recorder.finish(false, "wrong result", now_s());
            throw std::runtime_error(fmt::format("call #{} ({}) gave a wrong result", k, c.what));
          }
          out.recorder.finish(true, "", now_s());
          progress.beat();
          log_line(LogLevel::trace, r, fmt::format("call #{} completed and verified", k), kColl);
        }
        out.state = "at the end-of-step barrier";
        state[r] = waiting;
        barriers[K]->arrive(r, "end of step");
        out.passed = true;
        out.state = "passed every call and the end-of-step barrier";
      } catch (const BarrierError& e) {
        out.error = e.what();
        log_line(LogLevel::warn, r, e.what());
        stop_all(e.what());
      } catch (const std::exception& e) {
        out.error = e.what();
        log_line(LogLevel::warn, r, e.what());
        stop_all(e.what());
      }
      state[r] = done;
      progress.beat();
    });
  }

  // The watchdog (as PyTorch's heartbeat monitor, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC):
  // when no rank has made progress for 2 timeouts and no collective is
  // running, the ranks that are neither waiting nor done are stuck. A
  // barrier cannot see this when every rank is stuck before it (nobody
  // arrives to time anything). It waits 2 timeouts, one more than the
  // barriers, so that a barrier that can name the missing ranks does first.
  std::string watchdog_verdict;
  std::vector<int> stuck;
  std::thread watchdog([&] {
    const auto quiet = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(2 * o.timeout_s));
    std::unique_lock<std::mutex> lk(stop_m);
    for (;;) {
      const bool all_done = std::all_of(state.begin(), state.end(), [](const std::atomic<int>& x) { return x == done; });
      if (stop || all_done) return;
      const auto deadline = progress.last() + quiet;
      if (Clock::now() >= deadline && collectives_running == 0) {
        for (int r = 0; r < n; ++r)
          if (state[r] == working) stuck.push_back(r);
        if (!stuck.empty()) {
          watchdog_verdict = fmt::format(
              "watchdog: no rank made progress for {}; rank{} {} {} stuck outside any collective{}", secs(2 * o.timeout_s),
              stuck.size() > 1 ? "s" : "", rank_list(stuck), stuck.size() > 1 ? "are" : "is",
              static_cast<int>(stuck.size()) == n ? " (every rank is stuck: no barrier can see a hang that nobody arrives at)" : "");
          lk.unlock();
          stop_all(watchdog_verdict);
          return;
        }
      }
      // Progress does not notify the watchdog: it looks again every tenth of a timeout.
      stop_cv.wait_for(lk, std::max(quiet / 20, Clock::duration(std::chrono::milliseconds(1))));
    }
  });
  for (auto& t : threads) t.join();
  {
    std::lock_guard<std::mutex> lk(stop_m);
    stop = true;
  }
  stop_cv.notify_all();
  watchdog.join();
  res.seconds = now_s();

  if (!watchdog_verdict.empty()) {
    res.verdict = watchdog_verdict;
    res.missing = stuck;
  } else {
    // The first barrier (in call order) that failed gives the verdict; later
    // ones were only cancelled because of it.
    for (int k = 0; k <= K; ++k) {
      if (!barriers[k]->failed()) continue;
      res.verdict = barriers[k]->error();
      res.missing = barriers[k]->missing();
      res.mismatched = barriers[k]->mismatched();
      break;
    }
  }
  res.all_passed = std::all_of(res.ranks.begin(), res.ranks.end(), [](const RankOutcome& x) { return x.passed; });
  res.all_failed = std::none_of(res.ranks.begin(), res.ranks.end(), [](const RankOutcome& x) { return x.passed; });
  return res;
}

std::string LabResult::report() const {
  std::string out;
  out += verdict.empty() ? "monitored barrier: every rank arrived with the same call; all calls verified\n"
                         : fmt::format("verdict: {}\n", verdict);
  if (!missing.empty()) out += fmt::format("missing ranks (ascending): {}\n", rank_list(missing));
  if (!mismatched.empty()) out += fmt::format("ranks whose call differs from rank 0's: {}\n", rank_list(mismatched));
  out += "per rank (seq: last started / last completed):\n";
  for (const auto& r : ranks) {
    auto seqs = [](int64_t s) { return s < 0 ? std::string("-") : fmt::format("#{}", s); };
    out += fmt::format("  rank {}: {} / {}  {}  {}\n", r.rank, seqs(r.recorder.last_started),
                       seqs(r.recorder.last_completed), r.passed ? "PASS" : "FAIL", r.state);
    for (const auto& c : r.recorder.calls)
      out += fmt::format("      flight recorder #{} {:<10} count {:<6} {} algorithm {} peers [{}] {:.3f}-{} s {}\n", c.seq,
                         c.collective, c.count, c.dtype, c.algorithm, fmt::join(c.peers, ","), c.begin_s,
                         c.end_s > 0 ? fmt::format("{:.3f}", c.end_s) : std::string("..."), name(c.state));
  }
  out += fmt::format("all ranks {} in {:.2f} s\n", all_passed ? "passed" : all_failed ? "failed together" : "did NOT agree", seconds);
  return out;
}

P2pTraffic p2p_traffic(const Schedule& s, int r) {
  P2pTraffic t;
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  for (const auto& st : s.steps)
    for (const auto& op : st.ranks[static_cast<size_t>(r)]) {
      if (op.kind == OpKind::send) {
        ++t.sends;
        t.sent += op.len * es;
        t.to.insert(op.peer);
      } else if (op.kind == OpKind::recv || op.kind == OpKind::recv_reduce) {
        ++t.recvs;
        t.received += op.len * es;
        t.from.insert(op.peer);
      }
    }
  return t;
}

std::string p2p_line(const Schedule& s, int r, int k) {
  const P2pTraffic t = p2p_traffic(s, r);
  return fmt::format("call #{} p2p: {} sends ({} B) to {}, {} recvs ({} B) from {}", k, t.sends, t.sent,
                     fmt::join(t.to, ","), t.recvs, t.received, fmt::join(t.from, ","));
}

}  // namespace microddp::hang
