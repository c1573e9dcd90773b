// A hang beat's own log: the `log` key of `hang:` (WARN | INFO | TRACE |
// none, carried to later beats like every hang key; a bad value is refused
// at file:line:column naming it) and the log_line check, evaluated on a
// constructed run (a fixed log, so that its order is the test's, not the
// scheduler's).
#include <doctest/doctest.h>

#include <string>

#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::lesson;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_lesson(text, "log.yaml");
  } catch (const LessonError& e) {
    return e.what();
  }
  return "(no error)";
}

// 4 ranks, rank 2 asleep before call #1: ranks 0 and 1 logged their seq 1
// lines, rank 1 the verdict, then rank 2 its seq 1 line, then its WARN.
hang::LabResult fake_run() {
  hang::LabResult r;
  r.ranks.resize(4);
  for (int k = 0; k < 4; ++k) {
    r.ranks[k].rank = k;
    r.ranks[k].recorder.last_started = 1;
    r.ranks[k].recorder.last_completed = 0;
  }
  r.missing = {2};
  r.all_failed = true;
  r.verdict = "monitored barrier 'before call #1': rank 2 did not arrive within 0.3 s";
  r.verdict_s = 0.3004;  // rank 1's barrier decided; its WARN line follows
  const auto seq1 = [](const char* peers) {
    return std::string("all_reduce: seq 1 'grad bucket 1' algorithm ring count 512 dtype float32 op sum nranks 4 peers ") + peers;
  };
  using L = hang::LogLevel;
  r.log = {{0, L::info, seq1("1,3"), 0.001}, {1, L::info, seq1("0,2"), 0.001},
           {2, L::warn, "fault injected: sleeping before call #1", 0.001}, {1, L::warn, r.verdict, 0.301},
           {2, L::info, seq1("1,3"), 0.302},  {2, L::warn, r.verdict, 0.302}};
  return r;
}

}  // namespace

TEST_SUITE("lesson_hang_log") {
  TEST_CASE("hang key 'log': WARN, INFO, TRACE keep the run's log; none does not; carried to later beats") {
    const Lesson l = parse_lesson(R"(title: log
hang: {ranks: 4, log: TRACE}
beats:
  - kind: hang
    text: top level
  - kind: hang
    hang: {log: INFO}
    text: info
  - kind: hang
    hang: {fault: sleep}
    text: carried
  - kind: hang
    hang: {log: WARN}
    text: warn
  - kind: hang
    hang: {log: none}
    text: none
)", "log.yaml");
    REQUIRE(l.beats.size() == 5u);
    CHECK(l.hang.log == hang::LogLevel::trace);
    CHECK(l.beats[0].hang.log == hang::LogLevel::trace);
    CHECK(l.beats[1].hang.log == hang::LogLevel::info);
    CHECK(l.beats[2].hang.log == hang::LogLevel::info);
    CHECK(l.beats[3].hang.log == hang::LogLevel::warn);
    CHECK_FALSE(l.beats[4].hang.log.has_value());
    const Lesson plain = parse_lesson("title: p\nbeats:\n  - kind: hang\n    text: t\n", "p.yaml");
    CHECK_FALSE(plain.beats[0].hang.log.has_value());
  }

  TEST_CASE("a bad 'log' value names file:line:column and the values") {
    CHECK(error_of("title: t\nbeats:\n  - kind: hang\n    hang: {fault: sleep, log: DEBUG}\n    text: t\n") ==
          "log.yaml:4:31: 'log' must be one of: WARN, INFO, TRACE, none; got 'DEBUG'");
    CHECK(error_of("title: t\nhang:\n  log: info\nbeats:\n  - kind: hang\n    text: t\n") ==
          "log.yaml:3:8: 'log' must be one of: WARN, INFO, TRACE, none; got 'info'");
    CHECK(error_of("title: t\nbeats:\n  - kind: hang\n    hang: {log: [INFO]}\n    text: t\n").rfind("log.yaml:4:17: ", 0) == 0);
  }

  TEST_CASE("a bad log_line check names file:line:column") {
    const std::string head = "title: t\nbeats:\n  - kind: hang\n    hang: {log: INFO}\n    text: t\n    checks:\n      - ";
    CHECK(error_of(head + "{check: log_line, rank: 2}\n") == "log.yaml:7:9: a 'log_line' check needs 'rank' and 'seq'");
    CHECK(error_of(head + "{check: log_line, rank: 4, seq: 1}\n") == "log.yaml:7:33: rank 4 is not below the world size 4");
    CHECK(error_of(head + "{check: log_line, rank: 2, seq: 1, after_verdict: maybe}\n").rfind("log.yaml:7:", 0) == 0);
    CHECK(error_of(head + "{check: log_line, rank: 2, seq: 3}\n").rfind("log.yaml:7:", 0) == 0);
    CHECK(error_of(head + "{check: log_line, rank: 2, seq: 1, after: true}\n").rfind("log.yaml:7:", 0) == 0);
  }

  TEST_CASE("a log_line check on a beat whose run keeps no INFO lines is refused at load, at the check") {
    const std::string need = "a 'log_line' check needs the beat's hang 'log: INFO' or 'log: TRACE' (its run's INFO "
                             "lines); this beat has ";
    const auto beat = [](const std::string& hang) {
      return "title: t\nbeats:\n  - kind: hang\n" + hang + "    text: t\n    checks:\n      - {check: log_line, rank: 2, seq: 1}\n";
    };
    CHECK(error_of(beat("")) == "log.yaml:6:9: " + need + "no log");
    CHECK(error_of(beat("    hang: {log: none}\n")) == "log.yaml:7:9: " + need + "no log");
    CHECK(error_of(beat("    hang: {log: WARN}\n")) == "log.yaml:7:9: " + need + "'log: WARN'");
    // Carried from the lesson's top-level hang options, like every hang key.
    CHECK(error_of("title: t\nhang: {log: WARN}\n" + beat("").substr(9)) == "log.yaml:7:9: " + need + "'log: WARN'");
    CHECK(error_of("title: t\nhang: {log: TRACE}\n" + beat("").substr(9)) == "(no error)");
  }

  TEST_CASE("log_line on a fixed log: before, after, missing") {
    const Lesson l = parse_lesson(R"(title: checks
hang: {ranks: 4, timeout_s: 0.3}
beats:
  - kind: hang
    hang: {fault: sleep, fault_ranks: 2, log: INFO}
    text: logged
    checks:
      - {check: log_line, rank: 2, seq: 1, after_verdict: true}
      - {check: log_line, rank: 0, seq: 1, after_verdict: false}
      - {check: log_line, rank: 0, seq: 1, after_verdict: true}
      - {check: log_line, rank: 1, seq: 1}
      - {check: log_line, rank: 3, seq: 1}
)", "checks.yaml");
    const hang::LabResult run = fake_run();
    CHECK(run.verdict_line() == 3u);
    const auto r = evaluate(l.beats[0], run);
    REQUIRE(r.size() == 5u);
    CHECK(r[0].what == "R2's INFO line for seq 1 in the run's log");
    CHECK(r[0].expected == "logged after the verdict");
    CHECK(r[0].actual == "line 5 of 6 at 0.302 s, after the verdict (at 0.300 s)");
    CHECK(r[0].pass);
    CHECK(r[1].expected == "logged before the verdict");
    CHECK(r[1].actual == "line 1 of 6 at 0.001 s, before the verdict (at 0.300 s)");
    CHECK(r[1].pass);
    CHECK_FALSE(r[2].pass);
    CHECK(r[3].expected == "logged");
    CHECK(r[3].pass);
    CHECK(r[4].actual == "no such line (of 6 lines)");
    CHECK_FALSE(r[4].pass);
  }

  TEST_CASE("log_line when the watchdog decides: by time stamps, not by which rank's verdict line comes first") {
    // Every rank asleep before call #1: the watchdog's verdict at 0.600 s
    // wakes them all; rank 0 happens to log its seq 1 line and its WARN
    // line of the verdict first, then rank 2 its seq 1 line. The first
    // WARN line of the verdict (line 3) is no boundary: rank 0's seq 1
    // line (line 2) was logged after the verdict too.
    const Lesson l = parse_lesson(R"(title: checks
hang: {ranks: 4, timeout_s: 0.3}
beats:
  - kind: hang
    hang: {fault: sleep, fault_ranks: [0, 1, 2, 3], log: INFO}
    text: logged
    checks:
      - {check: log_line, rank: 0, seq: 1, after_verdict: true}
      - {check: log_line, rank: 2, seq: 1, after_verdict: true}
      - {check: log_line, rank: 0, seq: 0, after_verdict: false}
)", "checks.yaml");
    hang::LabResult run;
    run.ranks.resize(4);
    run.missing = {0, 1, 2, 3};
    run.all_failed = true;
    run.verdict = "watchdog: no rank made progress for 0.6 s; ranks 0, 1, 2, 3 are stuck outside any collective";
    run.verdict_s = 0.6001;
    const std::string wd = "monitored barrier 'before call #1': " + run.verdict;
    using L = hang::LogLevel;
    run.log = {{0, L::info, "all_reduce: seq 0 'grad bucket 0' algorithm ring count 1024 dtype float32 op sum", 0.001},
               {0, L::info, "all_reduce: seq 1 'grad bucket 1' algorithm ring count 512 dtype float32 op sum", 0.6003},
               {0, L::warn, wd, 0.6004},
               {2, L::info, "all_reduce: seq 1 'grad bucket 1' algorithm ring count 512 dtype float32 op sum", 0.6005}};
    CHECK(run.verdict_line() == 2u);
    const auto r = evaluate(l.beats[0], run);
    REQUIRE(r.size() == 3u);
    CHECK(r[0].actual == "line 2 of 4 at 0.600 s, after the verdict (at 0.600 s)");
    CHECK(r[0].pass);
    CHECK(r[1].pass);
    CHECK(r[2].actual == "line 1 of 4 at 0.001 s, before the verdict (at 0.600 s)");
    CHECK(r[2].pass);
  }

  TEST_CASE("log_line on real runs: the monitor's verdict (rank 2 asleep) and the watchdog's (every rank asleep)") {
    // Each rank's seq 1 line: the sleepers' come after the verdict (it
    // wakes them), the awake ranks' before it; seq 0 before it in both.
    // 0.5 s timeouts: the awake ranks reach the barrier within it.
    const Lesson l = parse_lesson(R"(title: real
hang: {ranks: 4, timeout_s: 0.5, count: 64, log: INFO}
beats:
  - kind: hang
    hang: {fault: sleep, fault_ranks: 2}
    text: the monitor decides
    checks:
      - {check: failure, equals: timeout}
      - {check: log_line, rank: 0, seq: 1, after_verdict: false}
      - {check: log_line, rank: 1, seq: 1, after_verdict: false}
      - {check: log_line, rank: 2, seq: 1, after_verdict: true}
      - {check: log_line, rank: 3, seq: 1, after_verdict: false}
      - {check: log_line, rank: 2, seq: 0, after_verdict: false}
  - kind: hang
    hang: {fault: sleep, fault_ranks: [0, 1, 2, 3]}
    text: the watchdog decides
    checks:
      - {check: report, contains: "watchdog: "}
      - {check: log_line, rank: 0, seq: 1, after_verdict: true}
      - {check: log_line, rank: 1, seq: 1, after_verdict: true}
      - {check: log_line, rank: 2, seq: 1, after_verdict: true}
      - {check: log_line, rank: 3, seq: 1, after_verdict: true}
      - {check: log_line, rank: 0, seq: 0, after_verdict: false}
      - {check: log_line, rank: 3, seq: 0, after_verdict: false}
)", "real.yaml");
    REQUIRE(l.beats.size() == 2u);
    for (const Beat& b : l.beats) {
      const hang::LabResult run = hang::run_hang_lab(b.hang);
      for (const CheckResult& r : evaluate(b, run)) {
        INFO(b.text, r.what, " expected ", r.expected, ", got ", r.actual);
        CHECK(r.pass);
      }
    }
  }
}
