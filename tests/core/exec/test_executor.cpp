#include <doctest/doctest.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/record/data.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"

using namespace microddp;

namespace {
CollectiveSpec all_reduce_spec(const char* algorithm, int ranks, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = algorithm;
  s.world_size = ranks;
  s.count = count;
  return s;
}
}  // namespace

TEST_SUITE("executor") {
  TEST_CASE("CPU binding: thread t on allowed CPU number t mod C, distinct while t < C") {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    REQUIRE(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
    const int count = CPU_COUNT(&allowed);
    const std::vector<int> all = cpus_for_threads(count);
    REQUIRE(static_cast<int>(all.size()) == count);
    for (size_t i = 0; i < all.size(); ++i) {
      CHECK(CPU_ISSET(all[i], &allowed));
      if (i > 0) CHECK(all[i] > all[i - 1]);  // distinct, in order
    }
    CHECK(cpus_for_threads(1) == std::vector<int>{all.front()});
    // more threads than CPUs: round-robin, thread count on the first CPU again
    const std::vector<int> over = cpus_for_threads(2 * count + 1);
    REQUIRE(static_cast<int>(over.size()) == 2 * count + 1);
    for (int t = 0; t < 2 * count + 1; ++t) CHECK(over[t] == all[t % count]);
    CHECK(cpus_for_threads(0).empty());
    // a bound thread runs where it was bound
    std::thread t([&] {
      bind_this_thread(all.back());
      cpu_set_t now;
      CPU_ZERO(&now);
      REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof(now), &now) == 0);
      CHECK(CPU_COUNT(&now) == 1);
      CHECK(CPU_ISSET(all.back(), &now));
    });
    t.join();
  }

  TEST_CASE("waiting ranks spin while each has a CPU of its own, and only pause when they share") {
    const int count = allowed_cpu_count();
    CHECK(threads_spin_budget_ns(1) == 50'000);
    CHECK(threads_spin_budget_ns(count) == kThreadsSpinOwnCoreNs);
    CHECK(threads_spin_budget_ns(count + 1) == 0);
    CHECK(threads_spin_budget_ns(16 * count) == 0);
  }

  TEST_CASE("a rank that fails unwinds the others, spinning or not, with its own error") {
    // The last rank to reach step 0's barrier runs on_step, which throws: the
    // other rank waits at that barrier forever unless the abort reaches it
    // (through the spin, the yields and the sleeps). Its own error comes
    // back, not the 30 s watchdog's.
    const Schedule sch = make_schedule(all_reduce_spec("ring", 2, 1024));
    // rank 0 holds 1.0f everywhere, rank 1 2.0f: both end with 3.0f
    const auto filled = [](float v) {
      std::vector<std::byte> b(4096);
      for (size_t i = 0; i < 1024; ++i) std::memcpy(b.data() + 4 * i, &v, 4);
      return b;
    };
    const RankData in = {filled(1.0f), filled(2.0f)};
    // an hour of spin counts as the watchdog's 30 s: a waiting rank that
    // did not look at the abort flag while it spins would hold the run that
    // long. The bound below is a hang guard (the unwinding takes
    // milliseconds), not a speed claim.
    for (const int64_t spin : {RunOptions::kSpinAuto, int64_t{0}, int64_t{3'600'000'000'000}}) {
      CAPTURE(spin);
      RunOptions ro;
      ro.spin_ns = spin;
      ro.on_step = [](int) { throw std::runtime_error("on_step failed on purpose"); };
      const auto t0 = std::chrono::steady_clock::now();
      CHECK_THROWS_WITH_AS(run_threads(sch, in, ro), "on_step failed on purpose", std::runtime_error);
      CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
      // and the same options without the fault run to the right answer
      ro.on_step = nullptr;
      const RunResult ok = run_threads(sch, in, ro);
      CHECK(ok.outputs[0] == filled(3.0f));
      CHECK(ok.outputs[1] == filled(3.0f));
    }
  }

  TEST_CASE("spin_ns: a negative value other than kSpinAuto is refused, naming it") {
    const CollectiveSpec s = all_reduce_spec("ring", 2, 4);
    RunOptions ro;
    ro.spin_ns = -5;
    CHECK_THROWS_WITH_AS(run_threads(make_schedule(s), fill_data(s, "rank"), ro),
                         "spin_ns -5: give 0 (pause, then yield), a time in ns, or kSpinAuto", UsageError);
  }

  TEST_CASE("a cgroup's cpu.max in whole CPUs: floor(quota / period), at least 1; no quota, no number") {
    CHECK(cpu_quota_cpus("200000 100000") == 2);
    CHECK(cpu_quota_cpus("150000 100000\n") == 1);  // 1.5 CPUs run one spinning rank, not two
    CHECK(cpu_quota_cpus("50000 100000") == 1);
    CHECK(cpu_quota_cpus("1600000 100000") == 16);
    CHECK_FALSE(cpu_quota_cpus("max 100000").has_value());
    CHECK_FALSE(cpu_quota_cpus("").has_value());
    CHECK_FALSE(cpu_quota_cpus("-1 100000").has_value());
    CHECK_FALSE(cpu_quota_cpus("2e5 100000").has_value());
    CHECK_FALSE(cpu_quota_cpus("200000 0").has_value());
    CHECK_FALSE(cpu_quota_cpus("200000").has_value());
  }

  TEST_CASE("the seed example: ring_unchunked on [1,2,3] [4,5,6] [7,8,9]") {
    CollectiveSpec s = all_reduce_spec("ring_unchunked", 3, 3);
    s.dtype = DType::float32;
    const Schedule sch = make_schedule(s);
    check_schedule(sch);
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    const RunResult res = run_threads(sch, in);
    REQUIRE(sch.num_steps() == 2);
    for (int r = 0; r < 3; ++r)
      for (int i = 0; i < 3; ++i)
        CHECK(kernels::load_double(s.dtype, res.outputs[r].data(), i) == std::vector<double>{12, 15, 18}[i]);
    // R0's accum after step 0 is T0 + T2 = [8, 10, 12]
    REQUIRE(res.trace.snapshots);
    const auto& bufs = res.trace.steps[0][0].buffers;
    auto acc = std::find_if(bufs.begin(), bufs.end(), [](const BufferSnapshot& b) { return b.buf == Buf::accum; });
    REQUIRE(acc != bufs.end());
    CHECK(acc->values == std::vector<double>{8, 10, 12});
    CHECK(res.trace.bytes_sent == std::vector<int64_t>{24, 24, 24});
  }
}
