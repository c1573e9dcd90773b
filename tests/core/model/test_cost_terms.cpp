// The cost model's machine terms: the barrier b(n), the peer wait w(n),
// oversubscribed cores, a step's memory traffic and the memory-bus roofline;
// the profile's barrier and bus tables and its type checks; mode_estimate.
#include <doctest/doctest.h>

#include "approx.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "core/algorithms/registry.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "cost_specs.h"

using namespace microddp;
using namespace microddp::cost_test;

TEST_SUITE("cost_model") {
  TEST_CASE("barrier term: exactly steps·b(n) in lockstep, nothing in pipelined") {
    const Schedule s2 = make_schedule(spec(Collective::all_reduce, "ring", 2, 256));
    const Schedule s3 = make_schedule(spec(Collective::all_reduce, "ring", 3, 300));
    const CostParams base = lit();
    CostParams p = base;
    p.barrier_s = {1.0 / 512, 1.0 / 128};  // b(2), b(3)
    REQUIRE(s2.num_steps() == 2);
    REQUIRE(s3.num_steps() == 4);
    const Prediction a2 = predict(s2, base), b2 = predict(s2, p), a3 = predict(s3, base), b3 = predict(s3, p);
    CHECK(b2.lockstep_s == rel(a2.lockstep_s + 2.0 / 512).epsilon(1e-12));
    CHECK(b2.lockstep.barrier_s == 2.0 / 512);
    CHECK(b3.lockstep_s == rel(a3.lockstep_s + 4.0 / 128).epsilon(1e-12));
    CHECK(b2.pipelined_s == a2.pipelined_s);
    CHECK(b3.pipelined_s == a3.pipelined_s);
    CHECK(b2.step_s[0] == rel(a2.step_s[0] + 1.0 / 512).epsilon(1e-12));
    // the table and its extrapolation, linear in log2 n
    CHECK(p.barrier_for(1) == 0.0);
    CHECK(p.barrier_for(2) == 1.0 / 512);
    CHECK(p.barrier_for(3) == 1.0 / 128);
    const double slope = (1.0 / 128 - 1.0 / 512) / (std::log2(3.0) - 1.0);
    CHECK(p.barrier_for(8) == rel(1.0 / 128 + slope * (3.0 - std::log2(3.0))));
    CHECK(CostParams{}.barrier_for(4) == 0.0);
    for (const auto& pre : cost_presets()) {
      CHECK(pre.barrier_s.empty());
      CHECK(pre.mem_bw_Bps.empty());
    }
  }

  TEST_CASE("peer wait: w(n) once per rank-step that receives beside a busy core-mate, in lockstep and pipelined") {
    // tree all_reduce, n = 3 on 2 cores (R0 and R2 share core 0): step 0
    // the root receives two messages (the leaves only send), step 1 the
    // root sends and each leaf receives one. Every rank is busy in both
    // steps, so core 0 is crowded in both.
    const Schedule s = make_schedule(spec(Collective::all_reduce, "tree", 3, 256));
    REQUIRE(s.num_steps() == 2);
    CostParams p;
    p.alpha = 1.0 / (1 << 20);
    p.beta = 1.0 / (1 << 30);
    p.cores = 2;
    const Prediction a = predict(s, p);
    p.wait_s = {1.0 / 4096, 1.0 / 1024};  // w(2), w(3)
    const Prediction b = predict(s, p);
    CHECK(b.ranks[0][0].terms.wait_s == 1.0 / 1024);  // the root receives in step 0: one wait, not two
    CHECK(b.ranks[1][0].terms.wait_s == 0.0);         // a leaf only sends in step 0
    CHECK(b.ranks[1][1].terms.wait_s == 1.0 / 1024);
    CHECK(b.ranks[0][1].terms.wait_s == 0.0);
    CHECK(b.step_s[0] == rel(a.step_s[0] + 1.0 / 1024).epsilon(1e-12));
    // step 1 (papers' send model): the root's two sends, 2α + 2 KiB·β, and
    // leaf R2's receive, α + 1 KiB·β, share core 0, so both ranks' byte
    // terms stretch to 3 KiB·β; R2 also waits w(3)
    CHECK(b.step_s[1] == rel(std::max(2 * p.alpha + 3072 * p.beta, p.alpha + 3072 * p.beta + 1.0 / 1024)).epsilon(1e-12));
    CHECK(b.lockstep.wait_s == 2.0 / 1024);
    CHECK(b.lockstep_s == rel(b.step_s[0] + b.step_s[1]).epsilon(1e-12));
    CHECK(b.pipelined_s > a.pipelined_s + 1.0 / 1024);
    // a 2-rank ring: a core per rank, no wait; both ranks on one core: w(2)
    // per step; cores = 0 (one per rank, the papers): no wait
    const Schedule r2 = make_schedule(spec(Collective::all_reduce, "ring", 2, 256));
    CostParams q = p;
    q.wait_s.clear();
    CHECK(predict(r2, p).lockstep.wait_s == 0.0);
    CHECK(predict(r2, p).lockstep_s == predict(r2, q).lockstep_s);
    CostParams one_core = p;
    one_core.cores = 1;
    q.cores = 1;
    CHECK(predict(r2, one_core).lockstep_s == rel(predict(r2, q).lockstep_s + 2.0 / 4096).epsilon(1e-12));
    CostParams no_cores = p;
    no_cores.cores = 0;
    CHECK(predict(s, no_cores).lockstep.wait_s == 0.0);
    // naive n = 3: R0 pairs with R1 (steps 0, 2: cores 0 and 1, R2 idle:
    // no wait), then with R2 (steps 1, 3: both on core 0: the receiver waits)
    const Prediction nv = predict(make_schedule(spec(Collective::all_reduce, "naive", 3, 256)), p);
    REQUIRE(nv.ranks.size() == 4);
    CHECK(nv.ranks[0][0].terms.wait_s == 0.0);         // [step][rank]: R0 <- R1
    CHECK(nv.ranks[1][0].terms.wait_s == 1.0 / 1024);  // R0 <- R2
    CHECK(nv.ranks[2][1].terms.wait_s == 0.0);         // R1 <- R0
    CHECK(nv.ranks[3][2].terms.wait_s == 1.0 / 1024);  // R2 <- R0
    CHECK(nv.lockstep.wait_s == 2.0 / 1024);
    // naive n = 4 on 2 cores (R0, R2 | R1, R3): only R0-R2 shares a core
    CostParams p4 = p;
    p4.wait_s = {0.0, 1.0 / 1024, 1.0 / 512};
    const Prediction nv4 = predict(make_schedule(spec(Collective::all_reduce, "naive", 4, 256)), p4);
    REQUIRE(nv4.ranks.size() == 6);
    CHECK(nv4.lockstep.wait_s == 2.0 / 512);  // R0 <- R2 and R0 -> R2
    // the table and its extrapolation follow barrier_for's rules
    CHECK(p.wait_for(1) == 0.0);
    CHECK(p.wait_for(3) == 1.0 / 1024);
    const double slope = (1.0 / 1024 - 1.0 / 4096) / (std::log2(3.0) - 1.0);
    CHECK(p.wait_for(6) == rel(1.0 / 1024 + slope * (std::log2(6.0) - std::log2(3.0))));
    for (const auto& pre : cost_presets()) CHECK(pre.wait_s.empty());
    // the papers' model (sends cost α + m·β on the sender's port): a rank
    // whose sends outweigh its receives still pays w(n) for receiving
    CostParams lit2 = p;
    lit2.fused_recv_reduce = false;
    const Schedule bc = make_schedule(spec(Collective::all_reduce, "tree", 3, 256));
    CHECK(predict(bc, lit2).ranks[0][1].terms.wait_s == 0.0);  // the root only sends in step 1
    CHECK(predict(bc, lit2).ranks[1][1].terms.wait_s == 1.0 / 1024);
  }

  TEST_CASE("oversubscribed cores: rank r runs on core r mod cores; byte terms stretch to its core's work") {
    // ring_unchunked: every rank receives S and reduces it in every step,
    // the same work on every rank.
    CostParams p;
    p.alpha = 0;
    p.beta = 1.0 / (1 << 30);
    const auto step0 = [&](int n, int cores) {
      CostParams q = p;
      q.cores = cores;
      return predict(make_schedule(spec(Collective::all_reduce, "ring_unchunked", n, 256)), q).step_s[0];
    };
    const double one = 1024 * p.beta;  // one rank's step: 1 KiB received
    CHECK(step0(3, 0) == rel(one).epsilon(1e-12));  // a core per rank
    CHECK(step0(2, 2) == rel(one).epsilon(1e-12));
    CHECK(step0(3, 2) == rel(2 * one).epsilon(1e-12));  // two ranks share one core
    CHECK(step0(4, 2) == rel(2 * one).epsilon(1e-12));
    CHECK(step0(5, 2) == rel(3 * one).epsilon(1e-12));
    CHECK(step0(5, 4) == rel(2 * one).epsilon(1e-12));
    // unequal work, papers' send model (a send costs α + m·β): naive n = 3
    // runs one pair per step. Step 0 pairs R0 with R1 (cores 0 and 1):
    // nothing stretches. Step 1 pairs R0 with R2, both on core 0: the core
    // does both ranks' 1 KiB, although core 1 sits idle (an optimal packing
    // would have put them apart; the binding does not).
    CostParams q = p;
    q.alpha = 1e-6;
    q.cores = 2;
    const Schedule nv = make_schedule(spec(Collective::all_reduce, "naive", 3, 256));
    const Prediction pr = predict(nv, q);
    CHECK(pr.step_s[0] == rel(q.alpha + one).epsilon(1e-12));
    CHECK(pr.step_s[1] == rel(q.alpha + 2 * one).epsilon(1e-12));
    CHECK(pr.step_s[2] == rel(q.alpha + one).epsilon(1e-12));      // R0 -> R1
    CHECK(pr.step_s[3] == rel(q.alpha + 2 * one).epsilon(1e-12));  // R0 -> R2, core 0
    // fused (threads) model: the sender moves no bytes, so nothing stretches
    q.fused_recv_reduce = true;
    CostParams q0 = q;
    q0.cores = 0;
    CHECK(predict(nv, q).step_s[1] == rel(predict(nv, q0).step_s[1]).epsilon(1e-12));
  }

  TEST_CASE("memory traffic of a step: 2m per recv and copy, 3m per recv_reduce and reduce, 0 per send") {
    // ring n=2, 256 floats: step 0 each rank fills its 512 B chunk from the
    // input (copy) and recv-reduces 512 B; step 1 each rank receives 512 B.
    const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 2, 256));
    const Prediction pr = predict(s, lit());
    CHECK(pr.ranks[0][0].bytes_traffic == 2 * 512 + 3 * 512);
    CHECK(pr.ranks[0][1].bytes_traffic == 2 * 512 + 3 * 512);
    CHECK(pr.ranks[1][0].bytes_traffic == 2 * 512);
    CHECK(pr.bus_s == std::vector<double>{0.0, 0.0});  // no roofline without a bus table
  }

  TEST_CASE("roofline: the shared memory bus binds when traffic / B exceeds the slowest rank") {
    const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 2, 256));
    CostParams p;
    p.alpha = 1.0 / (1 << 20);
    p.beta = 1.0 / (1 << 30);
    p.cores = 2;
    const Prediction free = predict(s, p);
    const double rank0 = p.alpha + 512 * p.beta;  // each step: one message each way of 512 B
    CHECK(free.step_s[0] == rel(rank0).epsilon(1e-12));
    // B(2) = 2^28 B/s: step 0 moves 2·2560 B -> 5120 / 2^28 s > rank0; step 1 2·1024 B
    p.mem_bw_Bps = {1e30, double(1 << 28)};
    const Prediction pr = predict(s, p);
    CHECK(pr.bus_s[0] == 5120.0 / (1 << 28));
    CHECK(pr.step_s[0] == rel(5120.0 / (1 << 28)).epsilon(1e-12));
    CHECK(pr.step_s[1] == rel(2048.0 / (1 << 28)).epsilon(1e-12));
    CHECK(pr.lockstep_s == rel(7168.0 / (1 << 28)).epsilon(1e-12));
    CHECK(pr.lockstep.bus_s == rel(7168.0 / (1 << 28) - 2 * rank0).epsilon(1e-12));
    CHECK(pr.pipelined_s == rel(7168.0 / (1 << 28)).epsilon(1e-12));
    // a fast bus does not bind: the prediction is the per-rank one
    p.mem_bw_Bps = {1e30, 1e30};
    CHECK(predict(s, p).lockstep_s == free.lockstep_s);
    // oversubscribed: 4 ranks on 2 cores stream with B(min(n, cores)) = B(2)
    CHECK(p.bus_threads(4) == 2);
    p.cores = 0;
    CHECK(p.bus_threads(4) == 4);
    p.mem_bw_Bps = {1.0, 2.0};
    CHECK(p.mem_bw_for(4) == 2.0);  // clamped to the table
    CHECK(CostParams{}.mem_bw_for(2) == 0.0);
  }

  TEST_CASE("profile: barrier and bus tables round trip; old profiles load without them") {
    CostParams p;
    p.alpha = 2e-6;
    p.beta = 1e-10;
    p.barrier_s = {1e-6, 2e-6, 5e-6};
    p.wait_s = {0.0, 3e-6, 7e-6};
    p.mem_bw_Bps = {20e9, 30e9};
    const std::string path = "cost_model_test_profile2.json";
    write_profile(path, p, {});
    const CostParams q = load_profile(path);
    CHECK(q.barrier_s == p.barrier_s);
    CHECK(q.wait_s == p.wait_s);
    CHECK(q.mem_bw_Bps == p.mem_bw_Bps);
    {
      std::ofstream f(path);
      f << R"({"backend": "threads", "alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cores": 2})";
    }
    const CostParams old = load_profile(path);
    for (const char* bad : {R"("peer_wait_s_by_ranks": [0.0, "x", 1e-3])", R"("peer_wait_s_by_ranks": [0.0, -1e-3])",
                            R"("barrier_s_by_ranks": [1e300])", R"("peer_wait_s_by_ranks": "abc")",
                            R"("mem_bw_Bps_by_threads": [0])"}) {
      {
        std::ofstream f(path);
        f << R"({"backend": "threads", "alpha_s": 1e-6, "beta_s_per_byte": 1e-10, )" << bad << "}";
      }
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(path.c_str()), UsageError);
    }
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "peer_wait_s_by_ranks": [0.0, "x"]})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("peer_wait_s_by_ranks[1] = \"x\""), UsageError);
    CHECK(old.barrier_s.empty());
    CHECK(old.wait_s.empty());
    CHECK(old.mem_bw_Bps.empty());
    CHECK(old.barrier_for(2) == 0.0);
    std::remove(path.c_str());
  }

  TEST_CASE("profile: flags and labels of the wrong JSON type are refused, naming file, field and type") {
    const std::string path = "cost_model_test_profile3.json";
    const auto load_with = [&](const char* field) {
      {
        std::ofstream f(path);
        f << R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, )" << field << "}";
      }
      return load_profile(path);
    };
    CHECK_THROWS_WITH_AS(load_with(R"("quick": "yes")"),
                         ("profile '" + path + "': quick = \"yes\" (expected true or false)").c_str(), UsageError);
    CHECK_THROWS_WITH_AS(load_with(R"("fused_recv_reduce": 1)"),
                         ("profile '" + path + "': fused_recv_reduce = 1 (expected true or false)").c_str(), UsageError);
    CHECK_THROWS_WITH_AS(load_with(R"("calibrated_on": 20261201)"),
                         ("profile '" + path + "': calibrated_on = 20261201 (expected a date string \"YYYY-MM-DD\")")
                             .c_str(),
                         UsageError);
    CHECK_THROWS_WITH_AS(load_with(R"("backend": null)"),
                         ("profile '" + path + "': backend = null (expected a string)").c_str(), UsageError);
    // The right types load, and the flag is read.
    CHECK(load_with(R"("quick": true, "calibrated_on": "2026-12-01", "fused_recv_reduce": true)").fused_recv_reduce);
    CHECK_FALSE(load_with(R"("fused_recv_reduce": false)").fused_recv_reduce);
    std::remove(path.c_str());
  }

  TEST_CASE("mode_estimate: the densest half of the samples") {
    CHECK(mode_estimate({}) == 0.0);
    CHECK(mode_estimate({3.0}) == 3.0);
    CHECK(mode_estimate({1.0, 2.0, 3.0}) == 1.5);
    // bimodal: 6 fast samples near 1, 4 slow near 9 -> the fast mode
    CHECK(mode_estimate({9.0, 1.0, 1.1, 9.2, 0.9, 1.0, 9.1, 1.05, 8.9, 0.95}) == rel(1.0));
  }
}
