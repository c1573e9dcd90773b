// The hang lab: the fault-injected program and its report (see
// core/labs/hang/hang.h); logging and the flight recorder are in hang_log.cpp,
// the monitored barrier in hang_barrier.cpp.
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
#include <optional>
#include <set>
#include <thread>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/ir/limits.h"
#include "core/exec/executor.h"
#include "core/ir/spec.h"
#include "core/labs/hang/hang_text.h"

namespace microddp::hang {

using Clock = std::chrono::steady_clock;
using detail::rank_list;
using detail::secs;

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
  // The run's own log (LabOptions::log): each rank thread logs into it.
  std::optional<ThreadLog> own_log;
  if (o.log) own_log.emplace(*o.log, t_begin);  // one clock for its lines and the verdict (verdict_s)
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      std::optional<ThreadLog::Scope> log_scope;
      if (own_log) log_scope.emplace(*own_log);
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
  Clock::time_point watchdog_at{};
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
          watchdog_at = Clock::now();  // before stop_all wakes anyone
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
  if (own_log) res.log = own_log->entries();

  if (!watchdog_verdict.empty()) {
    res.verdict = watchdog_verdict;
    res.verdict_s = std::chrono::duration<double>(watchdog_at - t_begin).count();
    res.missing = stuck;
  } else {
    // The first barrier (in call order) that failed gives the verdict; later
    // ones were only cancelled because of it.
    for (int k = 0; k <= K; ++k) {
      if (!barriers[k]->failed()) continue;
      res.verdict = barriers[k]->error();
      res.verdict_s = std::chrono::duration<double>(barriers[k]->decided_at() - t_begin).count();
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
  if (!log.empty()) {
    out += "the run's log (its ranks' lines, in the order logged):\n";
    bool marked = verdict.empty() || verdict_s < 0;
    const std::string mark = fmt::format("  {:.3f} s ---- the verdict ----\n", verdict_s);
    for (const LogEntry& e : log) {
      if (!marked && after_verdict(e)) out += mark, marked = true;
      out += fmt::format("  {:.3f} s [{}] MICRODDP {} {}{}\n", e.t_s, e.rank, name(e.level), e.text,
                         after_verdict(e) && e.level != LogLevel::warn ? "   <- after the verdict" : "");
    }
    if (!marked) out += mark;
  }
  return out;
}

size_t LabResult::verdict_line() const {
  if (verdict.empty()) return log.size();
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].level == LogLevel::warn && log[i].text.find(verdict) != std::string::npos) return i;
  return log.size();
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
