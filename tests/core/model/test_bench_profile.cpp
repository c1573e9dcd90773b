// bench: the profile and peer-wait checks against this machine, stale
// profiles, threads_wait; calibrate on tiny sizes runs and produces a usable profile.
#include <fmt/format.h>
#include <doctest/doctest.h>

#include "approx.h"

#include <cmath>
#include <limits>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"

using namespace microddp;

TEST_SUITE("bench") {
  TEST_CASE("cpu_busy_fraction reads /proc/stat: a fraction of all CPU time") {
    const double f = cpu_busy_fraction(0.05);
    CHECK(f >= 0.0);  // -1 would mean /proc/stat did not parse
    CHECK(f <= 1.0);
  }

  TEST_CASE("profile check: within a factor of 1.5 either way matches, and the text says which") {
    ProfileCheck c;
    c.profile_s = 2e-6;
    c.now_s = 3e-6;
    c.cores_now = c.cores_profile = 2;
    CHECK(c.ratio() == 1.5);
    CHECK(c.matches());
    CHECK(profile_check_text(c) ==
          "profile check: a lockstep step of one 4-byte message between 2 ranks (message + barrier) takes 3.000 µs "
          "now, 2.000 µs by the profile (x1.50); 2 CPUs now, 2 in the profile: matches (only this step and the CPU "
          "count are checked)");
    c.now_s = 3.2e-6;
    CHECK(!c.matches());
    CHECK(profile_check_text(c).find("(x1.60); 2 CPUs now, 2 in the profile: does NOT match") != std::string::npos);
    CHECK(profile_check_text(c).find("(other work on the CPUs now or during the calibration, ") != std::string::npos);
    c.now_s = 1.0e-6;  // x0.50: faster than the profile is a different state too
    CHECK(!c.matches());
    c.now_s = 1.4e-6;  // x0.70
    CHECK(c.matches());
    c.cores_now = 1;  // taskset -c 1: rank r no longer on core r mod 2
    CHECK(!c.matches());
    CHECK(profile_check_text(c).find("1 CPUs now, 2 in the profile: does NOT match") != std::string::npos);
    CHECK(ProfileCheck{}.ratio() == 0.0);
  }

  TEST_CASE("profile check: a profile from before waiting ranks spin does not match, and the text says why") {
    ProfileCheck c;
    c.profile_s = 2e-6;
    c.now_s = 2e-6;
    c.cores_now = c.cores_profile = 2;
    c.profile_spins = false;
    CHECK(!c.matches());
    CHECK(profile_check_text(c) ==
          "profile check: a lockstep step of one 4-byte message between 2 ranks (message + barrier) takes 2.000 µs "
          "now, 2.000 µs by the profile (x1.00); 2 CPUs now, 2 in the profile: does NOT match: the profile is from "
          "before waiting ranks spin (it has no \"threads_wait\": \"spin\"): its barriers, peer waits and steps "
          "were measured with ranks that yielded at once, which this build's ranks no longer do, whatever this one "
          "step says; run `microddp calibrate` again");
  }

  TEST_CASE("peer-wait check: within 15% either way matches; a miss names the µs per step and its direction") {
    PeerWaitCheck c;
    c.ranks = 3;
    c.cores = 2;
    c.profile_s = 8e-6;
    c.wait_s = 4e-6;
    c.now_s = 9.1e-6;  // x1.14
    CHECK(c.matches());
    CHECK(peer_wait_check_text(c) ==
          "peer-wait check: a lockstep ring shift of one 4-byte message among 3 ranks on 2 CPUs (message + barrier + "
          "peer wait) takes 9.100 µs a step now, 8.000 µs by the profile (x1.14; its w(3) = 4.000 µs): matches (only "
          "this probe's step is checked; each algorithm's steps wait differently)");
    c.now_s = 9.6e-6;  // x1.20: the prediction is 1.6 µs low per step
    CHECK(!c.matches());
    CHECK(peer_wait_check_text(c) ==
          "peer-wait check: a lockstep ring shift of one 4-byte message among 3 ranks on 2 CPUs (message + barrier + "
          "peer wait) takes 9.600 µs a step now, 8.000 µs by the profile (x1.20; its w(3) = 4.000 µs): does NOT "
          "match: if it holds, each step at 3 ranks takes about 1.6 µs more than predicted (mostly its peer wait), so "
          "small sizes will read under-predicted; `microddp calibrate` again on an idle machine");
    c.now_s = 6.8e-6;  // x0.85, below 1 / 1.15
    CHECK(!c.matches());
    CHECK(peer_wait_check_text(c).find("about 1.2 µs less than predicted (mostly its peer wait), so small sizes will "
                                       "read over-predicted") != std::string::npos);
    CHECK(PeerWaitCheck{}.ratio() == 0.0);
    CHECK(!PeerWaitCheck{}.matches());
  }

  TEST_CASE("peer-wait check: only measured world sizes above this machine's CPU count, on the profile's CPUs") {
    // tables for n = 2 .. cores + 1, as a calibrate on this machine writes them (up to 8 ranks at least)
    const int cores = allowed_cpu_count();
    CostParams p;
    p.name = "threads";
    p.alpha = 1e-6;
    p.beta = 1e-10;
    p.cores = cores;
    for (int n = 2; n <= cores + 1; ++n) {
      p.barrier_s.push_back(1e-6 * n);
      p.wait_s.push_back(n > cores ? 4e-6 : 0.0);
    }
    CHECK(!check_peer_wait(p, cores));  // a core each: no wait predicted
    CHECK(!check_peer_wait(p, 1));
    CHECK(!check_peer_wait(p, cores + 2));  // beyond the tables: w(n) would be extrapolated, not measured
    CHECK(!check_peer_wait(preset("nvlink"), cores + 1));  // no tables
    CostParams no_wait = p;
    no_wait.wait_s.clear();
    CHECK(!check_peer_wait(no_wait, cores + 1));
    CostParams no_cores = p;
    no_cores.cores = 0;
    CHECK(!check_peer_wait(no_cores, cores + 1));
    CostParams other_cpus = p;  // measured on one CPU more than this run has: its ranks shared other cores
    other_cpus.cores = cores + 1;
    other_cpus.barrier_s.push_back(1e-6);
    other_cpus.wait_s.push_back(4e-6);
    CHECK(!check_peer_wait(other_cpus, cores + 2));
    CHECK_THROWS_WITH_AS(measure_ring_shift_step_s(1, 0.0, 1), "ring-shift step: 1 ranks (need >= 2)", UsageError);
    if (cores > 15) return;  // the measured case below runs cores + 1 threads
    // cores + 1 ranks: the profile's step is b(n) + α + w(n), and the step is measured (one round)
    const auto c = check_peer_wait(p, cores + 1, 1);
    REQUIRE(c);
    CHECK(c->ranks == cores + 1);
    CHECK(c->cores == cores);
    CHECK(c->wait_s == 4e-6);
    CHECK(c->profile_s == doctest::Approx(1e-6 * (cores + 1) + p.message_s(4) + 4e-6));
    CHECK(c->now_s > 0);  // 32 steps of cores + 1 threads outlast the one closing barrier taken out
  }

  TEST_CASE("stale_profile_note: only a threads profile with barriers and no threads_wait") {
    CostParams p;
    p.name = "threads";
    p.barrier_s = {1e-6};
    CHECK(stale_profile_note(p) ==
          "the profile is from before waiting ranks spin (it has no \"threads_wait\": \"spin\"): its barriers, peer "
          "waits and steps were measured with ranks that yielded at once; run `microddp calibrate` again");
    p.threads_wait = "spin";
    CHECK(stale_profile_note(p).empty());
    p.threads_wait.clear();
    p.barrier_s.clear();  // a hand-made line: no barrier was measured, nothing to be stale
    CHECK(stale_profile_note(p).empty());
    CHECK(stale_profile_note(preset("nvlink")).empty());
  }

  TEST_CASE("threads_wait: written and read back as \"spin\", absent in older profiles, anything else refused") {
    const std::string path = "/tmp/microddp-test-threads-wait.json";
    CostParams p;
    p.alpha = 1e-7;
    p.beta = 1e-10;
    write_profile(path, p, {});
    CHECK(load_profile(path).threads_wait.empty());  // a profile that says nothing: an older one
    p.threads_wait = "spin";
    write_profile(path, p, {});
    CHECK(load_profile(path).threads_wait == "spin");
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "threads_wait": "yield"})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path),
                         doctest::Contains("threads_wait = \"yield\" (expected \"spin\", or no such key)"),
                         UsageError);
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "threads_wait": 1})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("threads_wait = 1 (expected \"spin\")"), UsageError);
    std::remove(path.c_str());
  }

  TEST_CASE("calibrate on tiny sizes: a positive bandwidth and a loadable profile") {
    CalibrateOptions co;
    co.min_bytes = 4;
    co.max_bytes = 4096;
    co.warmup = 1;
    co.max_iters = 5;
    co.kernel_bytes = 1 << 20;
    co.rounds = 1;
    co.state_rounds = 1;
    co.max_barrier_ranks = 3;
    co.cache_curve = false;  // its sweep runs to 4x the last-level cache (test_cache_curve.cpp measures two points)
    const CalibrationResult r = calibrate(co);
    CHECK(r.params.cache.empty());
    CHECK(r.params.exchange_32k_s > 0);  // the state probe's both-ranks step, measured whatever the sizes
    REQUIRE(r.barrier_s.size() == 2);  // n = 2, 3
    for (double b : r.barrier_s) CHECK(b > 0);
    CHECK(r.params.barrier_s == r.barrier_s);
    REQUIRE(r.peer_wait_s.size() == 2);  // n = 2, 3
    for (double w : r.peer_wait_s) CHECK(w >= 0);
    CHECK(r.params.wait_s == r.peer_wait_s);
    REQUIRE(!r.mem_bw_Bps.empty());
    CHECK(r.mem_bw_Bps.size() == static_cast<size_t>(std::min(r.params.cores, 16)));
    for (double B : r.mem_bw_Bps) CHECK(B > 0);
    CHECK(r.points.size() == 11);
    CHECK(r.points.front().bytes == 4);
    CHECK(r.points.back().bytes == 4096);
    for (const auto& p : r.points) CHECK(p.seconds > 0);
    CHECK(r.params.fused_recv_reduce);
    CHECK(r.params.threads_wait == "spin");  // the wait its barriers and steps were measured with
    CHECK(r.params.gamma > 0);
    CHECK(r.params.delta > 0);
    // tables are kept non-decreasing (a dip is noise)
    for (size_t i = 1; i < r.barrier_s.size(); ++i) CHECK(r.barrier_s[i] >= r.barrier_s[i - 1]);
    for (size_t i = 1; i < r.peer_wait_s.size(); ++i) CHECK(r.peer_wait_s[i] >= r.peer_wait_s[i - 1]);
    CHECK(r.params.mem_bw_Bps == r.mem_bw_Bps);  // as measured
    CHECK(r.params.cores == allowed_cpu_count());
    // the profile check compares the same step, measured now, with the profile
    const auto check = check_profile(r.params, 1);
    REQUIRE(check);
    CHECK(check->profile_s == r.params.message_s(4) + r.params.barrier_for(2));
    CHECK(check->now_s > 0);
    CHECK(check->cores_now == allowed_cpu_count());
    CHECK(check->cores_profile == r.params.cores);
    CHECK(!check_profile(preset("nvlink")));  // nothing to check: no barrier table
    CostParams zero;                          // a table, but no time for the step
    zero.barrier_s = {0.0};
    CHECK(!check_profile(zero));
    CHECK_THROWS_WITH_AS(
        [] {
          CalibrateOptions bad;
          bad.backend = "abacus";
          calibrate(bad);
        }(),
        doctest::Contains("abacus"), UsageError);
  }
}
