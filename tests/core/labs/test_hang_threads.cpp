// The hang lab's per-rank-thread log capture under ThreadSanitizer (this
// suite's name, hang_threads, puts it in the tsan build's test_threads with
// the hang lab's sources, tests/CMakeLists.txt; it also runs in test_core).
// Four rank threads log at INFO into the run's own log (ThreadLog) while the
// monitor or the watchdog gives the verdict; two runs capture at once; a run
// without its own log prints through the global sink (MICRODDP_DEBUG=INFO).
// Counts are exact: every rank logs INIT, seq 0 and seq 1 at INFO; a
// sleeper logs its injected fault; every rank logs the verdict's WARN line.
// Timeouts that must expire are 1 s (test_hang.cpp's rule: it covers the
// skew of the awake ranks on a loaded machine).
#include <doctest/doctest.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/labs/hang/hang.h"

using namespace microddp;
using namespace microddp::hang;

namespace {

LabOptions asleep(std::vector<int> ranks, std::optional<LogLevel> log) {
  LabOptions o;
  o.ranks = 4;
  o.fault = Fault::sleep;
  o.fault_ranks = std::move(ranks);
  o.timeout_s = 1.0;
  o.count = 64;
  o.log = log;
  return o;
}

int count_of(const std::vector<LogEntry>& log, LogLevel level, const std::string& text) {
  int n = 0;
  for (const LogEntry& e : log) n += e.level == level && e.text.find(text) != std::string::npos;
  return n;
}

}  // namespace

TEST_SUITE("hang_threads") {
  TEST_CASE("two runs capture their 4 rank threads' INFO lines at once: the monitor's run and the watchdog's") {
    LabResult monitor, watchdog;
    std::thread a([&] { monitor = run_hang_lab(asleep({2}, LogLevel::info)); });
    std::thread b([&] { watchdog = run_hang_lab(asleep({0, 1, 2, 3}, LogLevel::info)); });
    a.join();
    b.join();
    CHECK(monitor.verdict == "monitored barrier 'before call #1': rank 2 did not arrive within 1 s");
    CHECK(monitor.missing == std::vector<int>{2});
    CHECK(monitor.all_failed);
    // 4 x (INIT, seq 0, seq 1) + rank 2's fault + 4 verdict lines.
    CHECK(monitor.log.size() == 17u);
    CHECK(watchdog.verdict.rfind("watchdog: no rank made progress for 2 s; ranks 0, 1, 2, 3 are stuck", 0) == 0);
    CHECK(watchdog.missing == std::vector<int>{0, 1, 2, 3});
    CHECK(watchdog.all_failed);
    // 4 x (INIT, seq 0, fault, seq 1, verdict).
    CHECK(watchdog.log.size() == 20u);
    for (const LabResult* r : {&monitor, &watchdog}) {
      CHECK(count_of(r->log, LogLevel::info, "init: rank ") == 4);
      CHECK(count_of(r->log, LogLevel::info, ": seq 0 'grad bucket 0'") == 4);
      CHECK(count_of(r->log, LogLevel::info, ": seq 1 'grad bucket 1'") == 4);
      CHECK(count_of(r->log, LogLevel::warn, r->verdict) == 4);
      for (size_t i = 1; i < r->log.size(); ++i) CHECK(r->log[i].t_s >= r->log[i - 1].t_s);
    }
    CHECK(count_of(watchdog.log, LogLevel::warn, "fault injected: sleeping before call #1") == 4);
    // The lines the verdict woke come after its time stamp (one clock).
    for (const LogEntry& e : watchdog.log)
      if (e.level == LogLevel::info) CHECK(watchdog.after_verdict(e) == (e.text.find(": seq 1 '") != std::string::npos));
    for (const LogEntry& e : monitor.log)
      if (e.level == LogLevel::info) CHECK(monitor.after_verdict(e) == (e.rank == 2 && e.text.find(": seq 1 '") != std::string::npos));
  }

  TEST_CASE("without its own log, 4 rank threads print through the global sink at MICRODDP_DEBUG=INFO") {
    std::mutex m;
    std::vector<std::string> lines;
    set_log_sink([&](const std::string& l) {
      std::lock_guard<std::mutex> lk(m);
      lines.push_back(l);
    });
    ::setenv("MICRODDP_DEBUG", "INFO", 1);
    const LabResult r = run_hang_lab(asleep({2}, std::nullopt));
    ::unsetenv("MICRODDP_DEBUG");
    set_log_sink(nullptr);
    CHECK(r.missing == std::vector<int>{2});
    CHECK(r.log.empty());
    CHECK(lines.size() == 17u);
    int info = 0;
    for (const std::string& l : lines) info += l.find(" MICRODDP INFO ") != std::string::npos;
    CHECK(info == 12);
  }
}
