// The monitored barrier names missing ranks (ascending) once its timeout
// has passed; the hang lab's faults are reported, never "succeed"; flight
// recorder and MICRODDP_DEBUG logging.
//
// Timing, so that these pass on a loaded machine (ctest -j, busy cores):
// - A timeout that is not meant to expire (everyone arrives) is kLong: it
//   only bounds a broken run, and a passing barrier returns as soon as the
//   last rank arrives, so its size costs nothing.
// - A timeout that must expire is asserted from below only (the barrier
//   cannot decide before it, whatever the scheduler does). That it does not
//   wait for the missing ranks is shown by what happens, not by a stopwatch:
//   the missing ranks never arrive here, a rank arriving after the verdict
//   fails with it, and the lab's sleeper (asleep for 10 timeouts) is cut short.
// - Present ranks must reach a barrier within one timeout of each other, or
//   they are "missing" by definition. barrier_run starts rank 0 first and
//   the others only once it has arrived; in the lab, where the ranks are its
//   own threads, kLabTimeout is the allowance for that skew (scheduling
//   delays of a loaded 2-core machine are tens of ms; it is 1 s).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/labs/hang/hang.h"
#include "core/ir/types.h"

using namespace microddp;
using namespace microddp::hang;
using Clock = std::chrono::steady_clock;

namespace {
constexpr double kLong = 30.0;       // never expires in a passing test
constexpr double kShort = 0.3;       // must expire: ranks that never come
constexpr double kLabTimeout = 1.0;  // must expire in the lab, and covers the skew of its healthy ranks

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Runs ranks `present` of the barrier b (n ranks); returns each rank's error
// ("" = passed, "absent" = not run). When rank 0 is present it arrives
// first: the others start only once it is waiting, so none of them can
// time out waiting for rank 0 however late the scheduler runs them.
std::vector<std::string> barrier_run(MonitoredBarrier& b, int n, const std::vector<int>& present,
                                     std::vector<std::vector<int>>* missing = nullptr,
                                     const std::vector<std::string>& fps = {}) {
  std::vector<std::string> err(n, "absent");
  if (missing) missing->assign(n, {});
  auto body = [&](int r) {
    try {
      b.arrive(r, fps.empty() ? "" : fps[r]);
      err[r] = "";
    } catch (const BarrierError& e) {
      err[r] = e.what();
      if (missing) (*missing)[r] = e.missing;
    }
  };
  std::vector<std::thread> t;
  const bool zero = std::find(present.begin(), present.end(), 0) != present.end();
  if (zero) {
    t.emplace_back(body, 0);
    while (!b.has_arrived(0) && !b.failed()) std::this_thread::yield();
  }
  for (int r : present)
    if (r != 0) t.emplace_back(body, r);
  for (auto& x : t) x.join();
  return err;
}
}  // namespace

TEST_SUITE("hang") {
  TEST_CASE("monitored barrier: everyone arrives, everyone passes") {
    MonitoredBarrier b(4, kLong, "test");
    const auto t0 = Clock::now();
    auto err = barrier_run(b, 4, {0, 1, 2, 3});
    for (auto& e : err) CHECK(e == "");
    CHECK(!b.failed());
    // It returned when the last rank came, not at its timeout.
    CHECK(since(t0) < kLong);
  }

  TEST_CASE("monitored barrier names the missing ranks, ascending, once its timeout has passed") {
    MonitoredBarrier b(5, kShort, "test");
    const auto t0 = Clock::now();
    std::vector<std::vector<int>> miss;
    auto err = barrier_run(b, 5, {0, 2, 4}, &miss);
    // Ranks 1 and 3 never arrive: returning at all is the bound. Rank 0
    // gave them its whole timeout first.
    CHECK(since(t0) >= kShort);
    for (int r : {0, 2, 4}) {
      CAPTURE(r);
      CHECK(err[r] == "monitored barrier 'test': ranks 1, 3 did not arrive within 0.3 s");
      CHECK(miss[r] == std::vector<int>{1, 3});
    }
    // A missing rank that turns up after the verdict fails with it at once.
    CHECK_THROWS_WITH_AS(b.arrive(3), "monitored barrier 'test': ranks 1, 3 did not arrive within 0.3 s",
                         BarrierError);
  }

  TEST_CASE("monitored barrier: a missing rank 0 is named by the others") {
    MonitoredBarrier b(3, kShort, "test");
    const auto t0 = Clock::now();
    std::vector<std::vector<int>> miss;
    auto err = barrier_run(b, 3, {1, 2}, &miss);
    CHECK(since(t0) >= kShort);
    CHECK(miss[1] == std::vector<int>{0});
    CHECK(miss[2] == std::vector<int>{0});
    CHECK(err[2].find("monitored barrier 'test': rank 0 did not arrive within 0.3 s") == 0);
  }

  TEST_CASE("monitored barrier: a differing fingerprint fails every rank") {
    MonitoredBarrier b(3, kLong, "test");
    auto err = barrier_run(b, 3, {0, 1, 2}, nullptr, {"all_reduce 8", "all_reduce 8", "all_reduce 9"});
    for (auto& e : err) CHECK(e == "monitored barrier 'test': collective mismatch: rank 0 called all_reduce 8; rank 2 called all_reduce 9");
  }

  TEST_CASE("hang lab: no fault passes and verifies every call") {
    LabOptions o;
    o.timeout_s = kLong;
    auto r = run_hang_lab(o);
    CHECK(r.all_passed);
    CHECK(r.verdict == "");
    for (auto& x : r.ranks) {
      CHECK(x.recorder.last_started == 2);
      CHECK(x.recorder.last_completed == 2);
    }
  }

  TEST_CASE("hang lab: sleep and skip-collective are named by the monitored barrier") {
    for (Fault f : {Fault::sleep, Fault::skip_collective}) {
      CAPTURE(name(f));
      LabOptions o;
      o.fault = f;
      o.fault_ranks = {3, 1};
      o.timeout_s = kLabTimeout;
      auto r = run_hang_lab(o);
      // Rank 0 gave the missing ranks its whole timeout ...
      CHECK(r.seconds >= kLabTimeout);
      // ... and the verdict woke the sleepers: they would sleep 10 timeouts.
      if (f == Fault::sleep) CHECK(r.seconds < 10 * kLabTimeout);
      CHECK(r.all_failed);
      CHECK(r.missing == std::vector<int>{1, 3});
      CHECK(r.verdict == "monitored barrier 'before call #1': ranks 1, 3 did not arrive within 1 s");
      // Who is stuck and where: ranks 0 and 2 started call #1, completed #0.
      for (int k : {0, 2}) {
        CHECK(r.ranks[k].recorder.last_started == 1);
        CHECK(r.ranks[k].recorder.last_completed == 0);
        CHECK(r.ranks[k].recorder.calls.back().state == CallRecord::State::failed);
      }
      CHECK(r.ranks[1].recorder.last_completed == 0);
    }
  }

  TEST_CASE("hang lab: wrong-count and wrong-order are reported, never succeed") {
    for (Fault f : {Fault::wrong_count, Fault::wrong_order}) {
      CAPTURE(name(f));
      LabOptions o;
      o.fault = f;
      o.fault_ranks = {2};
      o.timeout_s = kLong;  // every rank arrives; the fingerprints differ
      auto r = run_hang_lab(o);
      CHECK(r.all_failed);
      CHECK(r.mismatched == std::vector<int>{2});
      CHECK(r.missing.empty());
      const std::string want = f == Fault::wrong_count
          ? "monitored barrier 'before call #1': collective mismatch: rank 0 called #1 all_reduce count 512 float32; rank 2 called #1 all_reduce count 513 float32"
          : "monitored barrier 'before call #1': collective mismatch: rank 0 called #1 all_reduce count 512 float32; rank 2 called #1 all_gather count 256 float32";
      CHECK(r.verdict == want);
      for (auto& x : r.ranks) CHECK(x.recorder.last_completed == 0);
    }
  }

  TEST_CASE("flight recorder keeps the last calls and the sequence numbers") {
    FlightRecorder fr;
    fr.capacity = 2;
    for (int i = 0; i < 3; ++i) {
      CallRecord c;
      c.seq = i;
      fr.start(c);
      if (i < 2) fr.finish(true, "", 1.0);
    }
    CHECK(fr.calls.size() == 2u);
    CHECK(fr.calls.front().seq == 1);
    CHECK(fr.last_started == 2);
    CHECK(fr.last_completed == 1);
  }

  TEST_CASE("MICRODDP_DEBUG=INFO logs every call per rank with algorithm, count, dtype and peers") {
    std::vector<std::string> lines;
    std::mutex m;
    set_log_sink([&](const std::string& l) {
      std::lock_guard<std::mutex> lk(m);
      lines.push_back(l);
    });
    ::setenv("MICRODDP_DEBUG", "INFO", 1);
    LabOptions o;
    o.ranks = 3;
    o.timeout_s = kLong;
    run_hang_lab(o);
    ::unsetenv("MICRODDP_DEBUG");
    set_log_sink(nullptr);
    CHECK(lines.size() == 12u);  // 3 ranks x (1 INIT line + 3 calls)
    bool found = false;
    for (auto& l : lines)
      found = found || (l.find("[1] MICRODDP INFO all_reduce: seq 1 'grad bucket 1' algorithm ring count 512 dtype float32 op sum nranks 3 peers 0,2") != std::string::npos);
    CHECK(found);
    CHECK(parse_log_level("trace") == LogLevel::trace);
    CHECK(parse_log_level("") == LogLevel::none);
  }

  TEST_CASE("MICRODDP_DEBUG_SUBSYS filters by subsystem as NCCL_DEBUG_SUBSYS, '^' inverting the list") {
    CHECK(parse_subsys("") == kAllSubsys);
    CHECK(parse_subsys("INIT") == kInit);
    CHECK(parse_subsys("coll,P2P") == (kColl | kP2P));
    CHECK(parse_subsys("ALL") == kAllSubsys);
    CHECK(parse_subsys("^TUNING") == ~uint32_t{kTuning});
    CHECK(parse_subsys("^INIT,COLL") == ~uint32_t{kInit | kColl});  // one '^' inverts the whole list
    CHECK(parse_subsys("^ALL") == 0u);
    // NCCL's names microddp has no lines for select kNcclOnly (WARN lines
    // still print, as in NCCL); names neither knows are ignored.
    CHECK(parse_subsys("NET,BOGUS") == kNcclOnly);
    CHECK(parse_subsys("BOOTSTRAP") == kNcclOnly);
    CHECK(parse_subsys("BOGUS") == 0u);
    CHECK(parse_subsys("coll,TUNNING") == kColl);  // a typo adds nothing
    CHECK(parse_subsys("^^P2P") == kAllSubsys);  // '^P2P' after the one '^' is an unknown name
    // A command accepts every list (NCCL ignores unknown names): only the level is checked.
    ::setenv("MICRODDP_DEBUG", "INFO", 1);
    for (const char* v : {"BOOTSTRAP", "coll,NET", "^^P2P", "BOGUS", ",", "^"}) {
      ::setenv("MICRODDP_DEBUG_SUBSYS", v, 1);
      CHECK_NOTHROW(check_debug_env());
    }
    ::setenv("MICRODDP_DEBUG_SUBSYS", "^ALL", 1);
    CHECK_FALSE(log_enabled(LogLevel::warn, kColl));  // every subsystem off, WARN too
    ::setenv("MICRODDP_DEBUG_SUBSYS", "BOOTSTRAP", 1);
    CHECK(log_enabled(LogLevel::warn, kColl));   // NCCL: WARN passes any enabled subsystem
    CHECK_FALSE(log_enabled(LogLevel::info, kColl));
    ::unsetenv("MICRODDP_DEBUG_SUBSYS");
    ::unsetenv("MICRODDP_DEBUG");
    // Counts the lines of a 3-rank clean lab under MICRODDP_DEBUG=level and
    // MICRODDP_DEBUG_SUBSYS=subsys (nullptr: unset), by the text they carry.
    struct Count {
      int init = 0, coll = 0, p2p = 0, barrier = 0, all = 0;
    };
    auto run = [](const char* level, const char* subsys) {
      std::vector<std::string> lines;
      std::mutex m;
      set_log_sink([&](const std::string& l) {
        std::lock_guard<std::mutex> lk(m);
        lines.push_back(l);
      });
      ::setenv("MICRODDP_DEBUG", level, 1);
      if (subsys) ::setenv("MICRODDP_DEBUG_SUBSYS", subsys, 1);
      LabOptions o;
      o.ranks = 3;
      o.timeout_s = kLong;
      run_hang_lab(o);
      ::unsetenv("MICRODDP_DEBUG");
      ::unsetenv("MICRODDP_DEBUG_SUBSYS");
      set_log_sink(nullptr);
      Count c;
      for (const auto& l : lines) {
        ++c.all;
        c.init += l.find(" init: rank ") != std::string::npos;
        c.coll += l.find(": seq ") != std::string::npos;
        c.p2p += l.find(" p2p: ") != std::string::npos;
        c.barrier += l.find("monitored barrier before call") != std::string::npos;
      }
      return c;
    };
    const Count every = run("TRACE", nullptr);
    CHECK(every.init == 3);
    CHECK(every.coll == 9);
    CHECK(every.p2p == 9);
    CHECK(every.barrier == 18);  // arrives + passed, per rank per call
    CHECK(every.all == 3 + 9 + 9 + 18 + 9 + 0);  // + "completed and verified"
    const Count init = run("TRACE", "INIT");
    CHECK(init.all == 3);
    CHECK(init.init == 3);
    const Count p2p = run("TRACE", "p2p");
    CHECK(p2p.all == 9);
    CHECK(p2p.p2p == 9);
    const Count no_p2p = run("TRACE", "^P2P,INIT");
    CHECK(no_p2p.all == every.all - 12);
    CHECK(no_p2p.p2p == 0);
    CHECK(no_p2p.init == 0);
    CHECK(run("INFO", "P2P").all == 0);  // P2P lines are TRACE
    CHECK(run("TRACE", "^ALL").all == 0);
    CHECK(run("TRACE", "TUNING").all == 0);  // the lab chooses no algorithm
  }

  TEST_CASE("WARN lines pass any enabled subsystem") {
    std::vector<std::string> lines;
    set_log_sink([&](const std::string& l) { lines.push_back(l); });
    ::setenv("MICRODDP_DEBUG", "WARN", 1);
    ::setenv("MICRODDP_DEBUG_SUBSYS", "TUNING", 1);
    log_line(LogLevel::warn, 0, "w");
    log_line(LogLevel::info, 0, "i", kTuning);
    ::setenv("MICRODDP_DEBUG_SUBSYS", "^ALL", 1);
    log_line(LogLevel::warn, 0, "w2");
    ::unsetenv("MICRODDP_DEBUG");
    ::unsetenv("MICRODDP_DEBUG_SUBSYS");
    set_log_sink(nullptr);
    REQUIRE(lines.size() == 1u);
    CHECK(lines[0].find("MICRODDP WARN w") != std::string::npos);
  }

  TEST_CASE("monitored barrier waits for a late rank while the group makes progress") {
    // Rank 1 arrives 3 timeouts after rank 0, but the group beats all the
    // while (as healthy ranks on an oversubscribed machine do): late, not stuck.
    Heartbeat hb;
    MonitoredBarrier b(2, 0.5, "test", &hb);
    std::thread beater([&] {
      while (!b.has_arrived(0)) std::this_thread::yield();
      const auto t0 = Clock::now();
      while (since(t0) < 1.5) {
        hb.beat();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    std::vector<std::string> err;
    std::thread late([&] {
      beater.join();
      err = barrier_run(b, 2, {1});
    });
    auto first = barrier_run(b, 2, {0});
    late.join();
    CHECK(first[0] == "");
    CHECK(err[1] == "");
    CHECK_FALSE(b.failed());
  }

  TEST_CASE("hang lab: many ranks on few cores, no fault: nobody is named") {
    // Built per rank, the schedules kept 128 rank threads on 2 cores busy
    // for seconds before their first barrier; rank 0 named healthy ranks.
    LabOptions o;
    o.ranks = 128;
    o.timeout_s = kLabTimeout;
    auto r = run_hang_lab(o);
    CHECK(r.verdict == "");
    CHECK(r.missing.empty());
    CHECK(r.all_passed);
  }

  TEST_CASE("hang lab: every rank stuck is a hang, named by the watchdog") {
    LabOptions o;
    o.fault = Fault::sleep;
    o.fault_ranks = {0, 1, 2, 3};
    o.timeout_s = kShort;
    auto r = run_hang_lab(o);
    CHECK(r.all_failed);
    CHECK_FALSE(r.all_passed);
    CHECK(r.missing == std::vector<int>{0, 1, 2, 3});
    CHECK(r.verdict ==
          "watchdog: no rank made progress for 0.6 s; ranks 0, 1, 2, 3 are stuck outside any collective (every rank "
          "is stuck: no barrier can see a hang that nobody arrives at)");
    CHECK(r.seconds >= 2 * kShort);  // from below only: it cannot decide earlier
    for (auto& x : r.ranks) CHECK(x.recorder.last_completed == 0);
  }

  TEST_CASE("bad lab options name the value") {
    {
      LabOptions big;
      big.ranks = 1000;
      CHECK_THROWS_WITH_AS(big.validate(), "--ranks 1000 is more than this tool runs (at most 256)", UsageError);
      big.ranks = 4;
      big.count = 3000000000000;
      CHECK_THROWS_WITH_AS(big.validate(), doctest::Contains("--count 3000000000000 on 4 ranks needs"),
                           UsageError);
    }
    CHECK_THROWS_WITH_AS(parse_fault("explode"), doctest::Contains("explode"), UsageError);
    LabOptions o;
    o.fault = Fault::sleep;
    o.fault_ranks = {7};
    CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("rank 7"), UsageError);
  }
}
