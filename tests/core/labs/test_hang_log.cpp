// A run's own log (LabOptions::log, ThreadLog): the lines of the threads
// inside a ThreadLog::Scope go to that log at its level, and nowhere else;
// other threads, the process environment and the global sink are left as
// they are. The lab's sleeping rank logs its line for the call it slept
// before only after the verdict (its time stamp, LabResult::verdict_s, and
// the lines' share one clock): the verdict is what wakes it (timing rules as in test_hang.cpp: the timeout that must expire
// is 1 s, which also covers the skew of the ranks that are awake).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/labs/hang/hang.h"

using namespace microddp;
using namespace microddp::hang;

namespace {

// The global sink, collecting (it must stay empty while a ThreadLog captures).
struct SinkLines {
  std::mutex m;
  std::vector<std::string> lines;
  SinkLines() {
    set_log_sink([this](const std::string& l) {
      std::lock_guard<std::mutex> lk(m);
      lines.push_back(l);
    });
  }
  ~SinkLines() { set_log_sink(nullptr); }
  SinkLines(const SinkLines&) = delete;
  SinkLines& operator=(const SinkLines&) = delete;
};

// MICRODDP_DEBUG set for the test's life (unset after).
struct DebugEnv {
  explicit DebugEnv(const char* v) { ::setenv("MICRODDP_DEBUG", v, 1); }
  ~DebugEnv() { ::unsetenv("MICRODDP_DEBUG"); }
  DebugEnv(const DebugEnv&) = delete;
  DebugEnv& operator=(const DebugEnv&) = delete;
};

// The index of rank r's INFO line for call #seq in log, or log.size().
size_t info_line(const std::vector<LogEntry>& log, int r, int seq) {
  const std::string want = ": seq " + std::to_string(seq) + " '";
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].rank == r && log[i].level == LogLevel::info && log[i].text.find(want) != std::string::npos) return i;
  return log.size();
}

}  // namespace

TEST_SUITE("hang_log") {
  TEST_CASE("a ThreadLog keeps its threads' lines at its own level; other threads log as MICRODDP_DEBUG says") {
    SinkLines sink;
    const DebugEnv env("WARN");
    ThreadLog log(LogLevel::info);
    std::thread captured([&] {
      const ThreadLog::Scope scope(log);
      CHECK(log_enabled(LogLevel::info, kColl));
      CHECK_FALSE(log_enabled(LogLevel::trace, kP2P));
      log_line(LogLevel::warn, 1, "w1");
      log_line(LogLevel::info, 1, "i1", kColl);
      log_line(LogLevel::trace, 1, "t1", kColl);  // above INFO: dropped
      {
        ThreadLog inner(LogLevel::trace);
        const ThreadLog::Scope nested(inner);
        log_line(LogLevel::trace, 1, "t2", kP2P);
        CHECK(inner.entries().size() == 1u);
      }
      log_line(LogLevel::info, 1, "i2", kInit);  // the outer log again
    });
    captured.join();
    std::thread plain([] {
      log_line(LogLevel::warn, 2, "w2");
      log_line(LogLevel::info, 2, "i3", kColl);  // above the environment's WARN: dropped
    });
    plain.join();
    const std::vector<LogEntry> e = log.entries();
    REQUIRE(e.size() == 3u);
    CHECK(e[0].rank == 1);
    CHECK(e[0].level == LogLevel::warn);
    CHECK(e[0].text == "w1");
    CHECK(e[1].text == "i1");
    CHECK(e[1].level == LogLevel::info);
    CHECK(e[2].text == "i2");
    CHECK(e[0].t_s >= 0);
    CHECK(e[2].t_s >= e[0].t_s);
    REQUIRE(sink.lines.size() == 1u);  // only the plain thread's WARN line
    CHECK(sink.lines[0].find("[2] MICRODDP WARN w2") != std::string::npos);
    CHECK(name(LogLevel::trace) == "TRACE");
    CHECK(name(LogLevel::none) == "NONE");
  }

  TEST_CASE("the lab's own log: rank 2 asleep, its line for seq 1 after the verdict; nothing printed, env untouched") {
    SinkLines sink;
    const DebugEnv env("TRACE");  // would print every line to the sink without the run's own log
    LabOptions o;
    o.ranks = 4;
    o.fault = Fault::sleep;
    o.fault_ranks = {2};
    o.timeout_s = 1.0;
    o.count = 64;
    o.log = LogLevel::info;
    const LabResult r = run_hang_lab(o);
    REQUIRE(r.missing == std::vector<int>{2});
    CHECK(sink.lines.empty());
    CHECK(std::string(std::getenv("MICRODDP_DEBUG")) == "TRACE");
    // 4 ranks x (INIT, seq 0, seq 1), rank 2's injected-fault WARN, every rank's verdict WARN.
    CHECK(r.log.size() == 17u);
    for (const LogEntry& e : r.log) CHECK(e.level != LogLevel::trace);
    const size_t v = r.verdict_line();
    REQUIRE(v < r.log.size());
    CHECK(r.log[v].level == LogLevel::warn);
    CHECK(r.log[v].text == "monitored barrier 'before call #1': rank 2 did not arrive within 1 s");
    for (int k : {0, 1, 3}) CHECK(info_line(r.log, k, 1) < v);
    for (int k : {0, 1, 3}) CHECK_FALSE(r.after_verdict(r.log[info_line(r.log, k, 1)]));
    const size_t late = info_line(r.log, 2, 1);
    REQUIRE(late < r.log.size());
    CHECK(late > v);
    // One clock: the barrier decided at verdict_s, before its WARN line and the line it woke.
    CHECK(r.verdict_s >= 1.0);
    CHECK(r.verdict_s <= r.log[v].t_s);
    CHECK(r.after_verdict(r.log[late]));
    CHECK_FALSE(r.after_verdict(r.log[info_line(r.log, 2, 0)]));
    CHECK(r.log[late].text == "all_reduce: seq 1 'grad bucket 1' algorithm ring count 32 dtype float32 op sum nranks 4 peers 1,3");
    const std::string rep = r.report();
    CHECK(rep.find("the run's log (its ranks' lines, in the order logged):\n") != std::string::npos);
    CHECK(rep.find("[2] MICRODDP INFO all_reduce: seq 1 'grad bucket 1' algorithm ring count 32 dtype float32 op sum "
                   "nranks 4 peers 1,3   <- after the verdict\n") != std::string::npos);
    size_t marks = 0;
    for (size_t p = rep.find("<- after the verdict"); p != std::string::npos; p = rep.find("<- after the verdict", p + 1)) ++marks;
    CHECK(marks == 1u);
    CHECK(rep.find(fmt::format("  {:.3f} s ---- the verdict ----\n", r.verdict_s)) != std::string::npos);
  }

  TEST_CASE("the lab's own log when the watchdog decides (every rank asleep): each seq 1 line after its time stamp") {
    // No barrier decides: the watchdog's verdict wakes every rank, and
    // each logs its seq 1 line and its WARN line of the verdict in the
    // order the scheduler wakes them; by time stamps every seq 1 line is
    // after the verdict and every seq 0 line before it, whatever that order.
    LabOptions o;
    o.ranks = 4;
    o.fault = Fault::sleep;
    o.fault_ranks = {0, 1, 2, 3};
    o.timeout_s = 0.5;
    o.count = 64;
    o.log = LogLevel::info;
    const LabResult r = run_hang_lab(o);
    REQUIRE(r.verdict.rfind("watchdog: no rank made progress for 1 s; ranks 0, 1, 2, 3 are stuck", 0) == 0);
    // 4 ranks x (INIT, seq 0, injected fault, seq 1, verdict WARN).
    REQUIRE(r.log.size() == 20u);
    CHECK(r.verdict_s >= 1.0);
    for (int k = 0; k < 4; ++k) {
      const size_t s0 = info_line(r.log, k, 0), s1 = info_line(r.log, k, 1);
      REQUIRE(s1 < r.log.size());
      CHECK_FALSE(r.after_verdict(r.log[s0]));
      CHECK(r.after_verdict(r.log[s1]));
    }
    const std::string rep = r.report();
    size_t marks = 0;
    for (size_t p = rep.find("<- after the verdict"); p != std::string::npos; p = rep.find("<- after the verdict", p + 1)) ++marks;
    CHECK(marks == 4u);
    // The verdict's line sits after the 4 INIT, 4 seq 0 and 4 fault lines.
    const size_t at = rep.find(" ---- the verdict ----\n");
    REQUIRE(at != std::string::npos);
    size_t before = 0;
    for (size_t p = rep.find(" MICRODDP "); p < at; p = rep.find(" MICRODDP ", p + 1)) ++before;
    CHECK(before == 12u);
  }

  TEST_CASE("without LabOptions::log the run keeps no log and verdict_line is its size") {
    LabOptions o;
    o.ranks = 2;
    o.fault_ranks = {1};  // the default (2) is not a rank of 2; no fault is injected
    o.timeout_s = 30;
    o.count = 16;
    const LabResult r = run_hang_lab(o);
    CHECK(r.all_passed);
    CHECK(r.log.empty());
    CHECK(r.verdict_line() == 0u);
    CHECK(r.report().find("the run's log") == std::string::npos);
    LabResult fake;
    fake.verdict = "monitored barrier 'x': rank 1 did not arrive within 1 s";
    fake.log = {{0, LogLevel::warn, "fault injected: sleeping before call #1", 0.0},
                {0, LogLevel::warn, "monitored barrier 'x': watchdog: " + fake.verdict, 0.1},
                {1, LogLevel::warn, fake.verdict, 0.2}};
    CHECK(fake.verdict_line() == 1u);  // the first WARN line holding the verdict's text
  }
}
