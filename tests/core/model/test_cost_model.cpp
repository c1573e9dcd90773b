// The cost model: schedule-derived predictions equal the literature's closed
// forms; the seed notes' example; presets; calibration's least-squares fit.
#include <doctest/doctest.h>

#include "approx.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "core/algorithms/registry.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, int segments = 1) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.segments = segments;
  return s;
}
CostParams lit() {  // distinct powers of two so that terms cannot compensate each other
  CostParams p;
  p.alpha = 1.0 / 1024;
  p.beta = 1.0 / (1 << 20);
  p.gamma = 1.0 / (1 << 22);
  return p;
}
}  // namespace

TEST_SUITE("cost_model") {
  TEST_CASE("seed example: ring all_reduce, 8 ranks, 1e9 bytes") {
    CostParams nv = preset("nvlink"), ib = preset("infiniband");
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 8, 250'000'000);  // float32: 1e9 bytes
    const double t_nv = closed_form(s, nv)->total(), t_ib = closed_form(s, ib)->total();
    // 2·7·α + 2·7/8·1e9/bandwidth: 14e-6 + 1.75e9/600e9 and 28e-6 + 1.75e9/25e9
    // (not the 0.0047 s and 0.14 s written in the seed's comments).
    CHECK(t_nv == rel(0.0029306667).epsilon(1e-7));
    CHECK(t_ib == rel(0.070028).epsilon(1e-9));
    CHECK(t_ib / t_nv == rel(23.895).epsilon(1e-4));
    CHECK(closed_form(s, nv)->alpha_s == rel(14e-6));
    // The schedule says the same.
    const Schedule sch = make_schedule(s);
    CHECK(predict(sch, nv).lockstep_s == rel(t_nv).epsilon(1e-12));
    CHECK(predict(sch, ib).lockstep_s == rel(t_ib).epsilon(1e-12));
  }

  TEST_CASE("schedule-derived prediction equals the closed form (power-of-two n, even chunks)") {
    const CostParams p = lit();
    int checked = 0;
    for (Collective c : all_collectives())
      for (const auto& alg : algorithms_for(c))
        for (int n : {1, 2, 4, 8, 16}) {
          CollectiveSpec s = spec(c, alg, n, 64 * 16);
          const auto cf = closed_form(s, p);
          if (!cf) continue;
          CAPTURE(name(c));
          CAPTURE(alg);
          CAPTURE(n);
          const Prediction pr = predict(make_schedule(s), p);
          CHECK(pr.lockstep_s == rel(cf->total()).epsilon(1e-12));
          CHECK(pr.lockstep.alpha_s == rel(cf->alpha_s).epsilon(1e-12));
          CHECK(pr.lockstep.beta_s == rel(cf->beta_s).epsilon(1e-12));
          CHECK(pr.lockstep.gamma_s == rel(cf->gamma_s).epsilon(1e-12));
          CHECK(pr.pipelined_s <= pr.lockstep_s + 1e-12);
          ++checked;
        }
    CHECK(checked >= 100);
  }

  TEST_CASE("closed forms come from the algorithm records, priced term by term") {
    CostParams p = lit();
    // ring all_reduce, n = 4, S = 1024 B: 6 messages of 256 B, 768 B reduced;
    // powers of two, so the terms are exact.
    const CollectiveSpec ring = spec(Collective::all_reduce, "ring", 4, 256);
    const auto cf = closed_form(ring, p);
    REQUIRE(cf);
    CHECK(cf->alpha_s == 6 * p.alpha);
    CHECK(cf->beta_s == 6 * 256 * p.beta);
    CHECK(cf->gamma_s == 3 * 256 * p.gamma);
    CHECK(cf->delta_s == 0);
    CHECK(closed_form_text(ring) == "2(n-1)·α + 2(n-1)/n·S·β + (n-1)/n·S·γ  (Patarasuk & Yuan 2009)");
    CHECK(closed_form_text(spec(Collective::all_reduce, "ring", 4, 256, 2)) ==
          "2(n-1)k·α + 2(n-1)/n·S·β + (n-1)/n·S·γ  (Patarasuk & Yuan 2009)");
    // The small-message line applies per message size: 256 B messages below
    // a 512 B break are priced with α_small and β_small.
    p.break_bytes = 512;
    p.alpha_small = 1.0 / 2048;
    p.beta_small = 1.0 / (1 << 21);
    CHECK(closed_form(ring, p)->alpha_s == 6 * p.alpha_small);
    CHECK(closed_form(ring, p)->beta_s == 6 * 256 * p.beta_small);
    // Texts follow the collective; a record without a closed form has none.
    CHECK(closed_form_text(spec(Collective::reduce, "binomial", 4, 8)) == "⌈lg n⌉·(α + S·β + S·γ)  (Thakur et al. 2005)");
    CHECK(closed_form_text(spec(Collective::broadcast, "binomial", 4, 8)) == "⌈lg n⌉·(α + S·β)  (Thakur et al. 2005)");
    CHECK(closed_form_text(spec(Collective::gather, "tree", 4, 8)).empty());
    CHECK_FALSE(closed_form(spec(Collective::gather, "tree", 4, 8), p));
    CHECK_FALSE(closed_form(spec(Collective::gather, "binomial", 6, 8), p));  // uneven subtrees
    CHECK(closed_form_text(spec(Collective::gather, "binomial", 6, 8)) == "⌈lg n⌉·α + (n-1)·S·β  (Thakur et al. 2005)");
    CHECK(closed_form(spec(Collective::gather, "tree", 1, 8), p)->total() == 0);  // one rank costs nothing
    CHECK_FALSE(closed_form(spec(Collective::all_reduce, "no_such", 4, 8), p));
  }

  TEST_CASE("segmented ring: k messages per step") {
    const CostParams p = lit();
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 4, 4 * 4 * 8, 4);
    CHECK(predict(make_schedule(s), p).lockstep_s == rel(closed_form(s, p)->total()).epsilon(1e-12));
    CHECK(closed_form(s, p)->alpha_s == rel(2 * 3 * 4 * p.alpha));
  }

  TEST_CASE("NCCL's algorithms: closed forms equal the schedule, with segments and channels, for every n") {
    const CostParams p = lit();
    // double_binary_tree: the sum over its k + 2h - 1 steps, counted from the
    // trees, is exact whenever 2·C·k divides the count (any n, not only 2^m)
    for (int n = 2; n <= 12; ++n)
      for (int k : {1, 3})
        for (int C : {1, 2}) {
          CollectiveSpec s = spec(Collective::all_reduce, "double_binary_tree", n, 2 * k * C * 16, k);
          s.channels = C;
          CAPTURE(n); CAPTURE(k); CAPTURE(C);
          const auto cf = closed_form(s, p);
          REQUIRE(cf);
          const Prediction pr = predict(make_schedule(s), p);
          CHECK(pr.lockstep.alpha_s == rel(cf->alpha_s).epsilon(1e-12));
          CHECK(pr.lockstep.beta_s == rel(cf->beta_s).epsilon(1e-12));
          CHECK(pr.lockstep.gamma_s == rel(cf->gamma_s).epsilon(1e-12));
        }
    // by hand, n = 4, k = 1: steps up (2 messages in + S/2·2 reduced), up to
    // the root (1 in, S/2 reduced), down from the root (1), down to the
    // leaves (2 out): 6 messages of S/2, 1.5 S reduced
    const CollectiveSpec d4 = spec(Collective::all_reduce, "double_binary_tree", 4, 256);
    CHECK(closed_form(d4, p)->alpha_s == 6 * p.alpha);
    CHECK(closed_form(d4, p)->beta_s == 6 * 512 * p.beta);
    CHECK(closed_form(d4, p)->gamma_s == 1536 * p.gamma);
    CHECK(closed_form_text(d4).starts_with("k + 2h − 1 = 4 steps (h = 2)"));
    // ring in C channels: 2(n-1)·C messages of S/(nC)
    for (int n : {3, 4, 8})
      for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
        CollectiveSpec s = spec(c, "ring", n, 3 * 8 * n);
        s.channels = 3;
        CAPTURE(n); CAPTURE(name(c));
        const Prediction pr = predict(make_schedule(s), p);
        CHECK(pr.lockstep_s == rel(closed_form(s, p)->total()).epsilon(1e-12));
        CHECK(pr.lockstep.alpha_s == rel(closed_form(s, p)->alpha_s).epsilon(1e-12));
      }
    CollectiveSpec r3 = spec(Collective::all_reduce, "ring", 4, 96);
    r3.channels = 3;
    CHECK(closed_form(r3, p)->alpha_s == 2 * 3 * 3 * p.alpha);
    CHECK(closed_form_text(r3) == "2(n-1)C·α + 2(n-1)/n·S·β + (n-1)/n·S·γ  (Patarasuk & Yuan 2009; C channels as in NCCL)");
    // one_shot and two_shot: one and two steps
    const CollectiveSpec o = spec(Collective::all_reduce, "one_shot", 4, 256);
    CHECK(closed_form(o, p)->alpha_s == 3 * p.alpha);
    CHECK(closed_form(o, p)->beta_s == 3 * 1024 * p.beta);
    CHECK(closed_form(o, p)->gamma_s == 3 * 1024 * p.gamma);
    const CollectiveSpec t = spec(Collective::all_reduce, "two_shot", 4, 256);
    CHECK(closed_form(t, p)->alpha_s == 6 * p.alpha);
    CHECK(closed_form(t, p)->beta_s == 6 * 256 * p.beta);
    CHECK(closed_form(t, p)->gamma_s == 3 * 256 * p.gamma);
    for (const CollectiveSpec& x : {o, t}) CHECK(predict(make_schedule(x), p).lockstep_s == rel(closed_form(x, p)->total()).epsilon(1e-12));
  }

  TEST_CASE("uneven chunks and non-power-of-two n: within one element per message") {
    const CostParams p = lit();
    for (Collective c : all_collectives())
      for (const auto& alg : algorithms_for(c))
        for (int n : {3, 5, 6, 7}) {
          CollectiveSpec s = spec(c, alg, n, 37);
          const auto cf = closed_form(s, p);
          if (!cf) continue;
          CAPTURE(name(c));
          CAPTURE(alg);
          CAPTURE(n);
          const Schedule sch = make_schedule(s);
          // one element per message a rank sends or receives in a step (the
          // ring: 2; one_shot and two_shot: 2(n-1)), over the steps
          const double elem = 4 * (p.beta + p.gamma);
          double messages = 0;
          for (const Step& st : sch.steps) {
            size_t most = 0;
            for (const auto& ops : st.ranks)
              most = std::max<size_t>(most, std::count_if(ops.begin(), ops.end(), [](const Op& o) { return is_comm(o.kind); }));
            messages += static_cast<double>(std::max<size_t>(most, 2));
          }
          const double slack = elem * messages;
          CHECK(std::abs(predict(sch, p).lockstep_s - cf->total()) <= slack + 1e-12);
        }
  }

  TEST_CASE("per-step prediction: ring all_reduce n=4, 1024 floats") {
    CostParams p;
    p.alpha = 1e-6;
    p.beta = 1e-9;
    p.gamma = 0.5e-9;
    const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 4, 1024));
    const auto us = predicted_step_us(s, p);
    REQUIRE(us.size() == 6);
    // scatter-reduce: α + 1024 B·β + 1024 B·γ; all-gather: α + 1024 B·β
    CHECK(us[0] == rel(1.0 + 1.024 + 0.512));
    CHECK(us[2] == rel(1.0 + 1.024 + 0.512));
    CHECK(us[3] == rel(1.0 + 1.024));
    CHECK(us[5] == rel(1.0 + 1.024));
    const Prediction pr = predict(s, p);
    CHECK(pr.ranks[0][0].sends == 1);
    CHECK(pr.ranks[0][0].bytes_sent == 1024);
    CHECK(pr.ranks[0][0].bytes_reduced == 1024);
    CHECK(pr.ranks[0][0].bytes_copied == 1024);  // the received chunk is first filled from the input (δ = 0 here)
  }

  TEST_CASE("pipelined: a tree's child forwards while the root still sends") {
    CostParams p;
    p.alpha = 1e-6;
    p.beta = 1e-9;
    const Schedule s = make_schedule(spec(Collective::broadcast, "tree", 7, 256));
    const Prediction pr = predict(s, p);
    // lockstep: 2 steps of 2 messages (1 KiB each) on the busiest rank
    CHECK(pr.lockstep_s == rel(2 * 2 * (1e-6 + 1024e-9)));
    // free-running: the root's first child starts forwarding after one
    // message, while the root sends its second: 3 messages on the critical
    // path. (Until 2026-12-02 this test said pipelined == lockstep; the
    // comparison's absolute tolerance, 1e-5 s, let it pass.)
    CHECK(pr.pipelined_s == rel(3 * (1e-6 + 1024e-9)));
  }

  TEST_CASE("δ charges local copies") {
    CostParams p;
    p.delta = 1e-9;
    const Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 2, 256));
    // each rank copies its own 512 B chunk to the output, at once (the
    // test said 1024 ns until 2026-12-02; an absolute tolerance hid it)
    CHECK(predict(s, p).lockstep_s == rel(512e-9));
  }

  TEST_CASE("small-message line below the break") {
    CostParams p;
    p.alpha = 10e-6;
    p.beta = 1e-9;
    p.break_bytes = 1000;
    p.alpha_small = 1e-6;
    p.beta_small = 2e-9;
    CHECK(p.message_s(100) == rel(1e-6 + 200e-9));
    CHECK(p.message_s(1000) == rel(10e-6 + 1000e-9));
  }

  TEST_CASE("presets and errors") {
    CHECK(cost_presets().size() == 5);
    CHECK(preset("infiniband").bandwidth() == rel(25e9));
    CHECK(preset("nvlink").n_half() == rel(600e3));
    CHECK_THROWS_WITH_AS(preset("token-ring"), doctest::Contains("token-ring"), UsageError);
    CHECK(busbw_factor(Collective::all_reduce, 4) == rel(1.5));
    CHECK(busbw_factor(Collective::broadcast, 4) == 1.0);
    CHECK(busbw_factor(Collective::all_gather, 4) == rel(0.75));
    CHECK(bench_bytes(spec(Collective::all_gather, "ring", 4, 10)) == 160);
    CHECK(bench_bytes(spec(Collective::all_reduce, "ring", 4, 10)) == 40);
  }

  TEST_CASE("least squares recovers α and β from noisy synthetic data within 2%") {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, 0.01);
    const double alpha = 3e-6, beta = 1.0 / 8e9;
    std::vector<FitPoint> pts;
    for (int64_t b = 1; b <= (int64_t{64} << 20); b *= 2)
      pts.push_back({b, (alpha + b * beta) * (1 + noise(rng))});
    const LineFit f = fit_line(pts);
    CHECK(f.alpha == rel(alpha).epsilon(0.02));
    CHECK(f.beta == rel(beta).epsilon(0.02));
    // Two regimes: a line that does not fit is split, and the break is found.
    std::vector<FitPoint> two;
    for (int64_t b = 1; b <= (int64_t{64} << 20); b *= 2) {
      const double t = b < 65536 ? 1e-6 + b * 1e-10 : 20e-6 + b * 2e-10;
      two.push_back({b, t * (1 + noise(rng))});
    }
    const CalibrationFit cf = fit_message_times(two);
    CHECK(cf.break_bytes == 65536);
    CHECK(cf.large.alpha == rel(20e-6).epsilon(0.02));
    CHECK(cf.large.beta == rel(2e-10).epsilon(0.02));
    CHECK(cf.small.alpha == rel(1e-6).epsilon(0.02));
  }

  TEST_CASE("profile JSON round trip and errors") {
    CostParams p;
    p.name = "threads";
    p.alpha = 2e-6;
    p.beta = 1e-10;
    p.gamma = 3e-10;
    p.delta = 4e-11;
    p.break_bytes = 4096;
    p.alpha_small = 1e-6;
    p.beta_small = 5e-10;
    const std::string path = "cost_model_test_profile.json";
    write_profile(path, p, {});
    const CostParams q = load_profile(path);
    CHECK(q.alpha == p.alpha);
    CHECK(q.beta == p.beta);
    CHECK(q.gamma == p.gamma);
    CHECK(q.delta == p.delta);
    CHECK(q.break_bytes == 4096);
    CHECK(q.alpha_small == p.alpha_small);
    {
      std::ofstream f(path);
      f << "{ not json";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(path.c_str()), UsageError);
    CHECK_THROWS_WITH_AS(load_profile("no/such/profile.json"), doctest::Contains("no/such/profile.json"),
                         UsageError);
    std::remove(path.c_str());
  }

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
