// The cost model: schedule-derived predictions equal the literature's closed
// forms; the seed notes' example; presets; calibration's least-squares fit;
// the profile's JSON. The barrier, peer-wait, core and bus terms: test_cost_terms.cpp.
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

}
