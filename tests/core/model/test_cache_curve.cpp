// The cache-aware model: steps priced at their footprint on hand-made curves
// of two machines, the bus ceiling, and the negative-intercept fit text.
// ε and φ: test_coherence.cpp; the sweep, profiles and KeepFreedMemory:
// test_cache_sweep.cpp.
#include <doctest/doctest.h>

#include "approx.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "cache_machines.h"

using namespace microddp;
using namespace microddp::cache_test;

TEST_SUITE("cache_curve") {
  TEST_CASE("CacheCurve::at: measured points exactly, log2-linear between, end values outside") {
    CacheCurve c;
    c.footprint_bytes = {8 * KiB, 32 * KiB, 1 * MiB};
    c.beta = {1.0, 3.0, 5.0};
    c.gamma = c.delta = c.beta;
    CHECK(c.at(c.beta, 8 * KiB) == 1.0);
    CHECK(c.at(c.beta, 32 * KiB) == 3.0);
    CHECK(c.at(c.beta, 16 * KiB) == rel(2.0));  // halfway in log2
    CHECK(c.at(c.beta, 1 * KiB) == 1.0);                    // below the first point
    CHECK(c.at(c.beta, 0) == 1.0);
    CHECK(c.at(c.beta, 1024 * MiB) == 5.0);  // beyond the last
  }

  TEST_CASE("footprint of a step: largest per-rank bytes read + written x ranks with traffic") {
    // ring all_reduce, 2 ranks, 4 MiB, 2 MiB chunks. Step 0: each rank copies
    // its own chunk to the output (reads 2, writes 2 MiB) and recv_reduces
    // the peer's chunk (reads 2 × 2, writes 2 MiB): 10 MiB, × 2 ranks = 20 MiB.
    // Step 1: each rank receives 2 MiB (reads 2, writes 2): 4 MiB × 2 = 8 MiB.
    const Prediction pr = predict(make_schedule(ring_all_reduce(2, 4 * MiB)), huge_l3());
    REQUIRE(pr.footprint_bytes.size() == 2);
    CHECK(pr.footprint_bytes[0] == 20 * MiB);
    CHECK(pr.footprint_bytes[1] == 8 * MiB);
    // 3 ranks, 3 MiB: 1 MiB chunks, every rank busy in every step; in the
    // two reduce-scatter steps each rank copies one chunk and recv_reduces
    // one (5 MiB), in the two all-gather steps it receives one (2 MiB)
    const Prediction p3 = predict(make_schedule(ring_all_reduce(3, 3 * MiB)), huge_l3());
    REQUIRE(p3.footprint_bytes.size() == 4);
    CHECK(p3.footprint_bytes[0] == 15 * MiB);
    CHECK(p3.footprint_bytes[1] == 15 * MiB);
    CHECK(p3.footprint_bytes[2] == 6 * MiB);
    CHECK(p3.footprint_bytes[3] == 6 * MiB);
  }

  TEST_CASE("each step is priced at the level its footprint fits: huge-L3 and small-L3 machines") {
    struct Want {
      int64_t bytes;
      bool huge;
      const Level *step0, *step1;
    };
    // Footprints (above): step 0 = 5 × size, step 1 = 2 × size.
    for (const Want& w : {
             Want{64 * 1024, true, &kL2, &kL2},  // 320 / 128 KiB: in L2 on both
             Want{64 * 1024, false, &kL2, &kL2},
             Want{4 << 20, true, &kL3, &kL3},  // 20 / 8 MiB: in the huge L3 ...
             Want{4 << 20, false, &kDram, &kDram},  // ... beyond the small one
             Want{128 << 20, true, &kDram, &kL3},   // 640 / 256 MiB: step 1 still fits the huge L3
             Want{128 << 20, false, &kDram, &kDram},
             Want{int64_t{1} << 30, true, &kDram, &kDram},
         }) {
      CAPTURE(w.bytes);
      CAPTURE(w.huge);
      const CostParams p = w.huge ? huge_l3() : small_l3();
      const Prediction pr = predict(make_schedule(ring_all_reduce(2, w.bytes)), p);
      REQUIRE(pr.ranks.size() == 2);
      const double chunk = static_cast<double>(w.bytes) / 2;
      // step 0: copy (chunk·δ) + fused recv_reduce (α + chunk·γ); step 1: recv (α + chunk·β)
      CHECK(pr.ranks[0][0].terms.gamma_s == rel(chunk * w.step0->gamma).epsilon(1e-12));
      CHECK(pr.ranks[0][0].terms.delta_s == rel(chunk * w.step0->delta).epsilon(1e-12));
      CHECK(pr.ranks[0][0].terms.beta_s == 0.0);
      CHECK(pr.ranks[1][0].terms.beta_s == rel(chunk * w.step1->beta).epsilon(1e-12));
      CHECK(pr.step_s[0] == rel(1e-6 + chunk * (w.step0->gamma + w.step0->delta)).epsilon(1e-12));
      CHECK(pr.step_s[1] == rel(1e-6 + chunk * w.step1->beta).epsilon(1e-12));
    }
  }

  TEST_CASE("the huge-L3 case in numbers: 4 MiB ring measured 469 us, the flat model said 959 us") {
    // The flat profile of that machine priced every byte at DRAM speed; the
    // curve prices both steps at L3 speed, about half.
    CostParams flat = huge_l3();
    flat.cache = {};
    const Schedule s = make_schedule(ring_all_reduce(2, 4 * MiB));
    const double t_flat = predict(s, flat).lockstep_s, t_curve = predict(s, huge_l3()).lockstep_s;
    CHECK(t_flat == rel(2e-6 + 2 * MiB * (kDram.gamma + kDram.delta + kDram.beta)).epsilon(1e-12));
    CHECK(t_curve == rel(2e-6 + 2 * MiB * (kL3.gamma + kL3.delta + kL3.beta)).epsilon(1e-12));
    CHECK(t_flat / t_curve == rel(2.05).epsilon(0.01));
  }

  TEST_CASE("old profiles without a curve keep the flat values; small messages keep the small line") {
    CostParams p = huge_l3();
    CHECK(p.beta_at(1 * MiB, 8 * KiB) == kL2.beta);
    p.break_bytes = 64 * 1024;
    p.alpha_small = 2e-7;
    p.beta_small = 1 / 30e9;
    CHECK(p.beta_at(1024, 8 * MiB) == p.beta_small);   // below the break: the small line
    CHECK(p.beta_at(1 * MiB, 8 * MiB) == kL3.beta);     // above: the curve
    p.cache = {};
    CHECK(p.beta_at(1 * MiB, 8 * KiB) == kDram.beta);  // no curve: flat
    CHECK(p.gamma_at(8 * KiB) == kDram.gamma);
    CHECK(p.delta_at(8 * KiB) == kDram.delta);
  }

  TEST_CASE("bus ceiling rises with the cache level: B x delta(beyond the caches) / delta(footprint)") {
    CostParams p = small_l3();
    p.mem_bw_Bps = {20e9, 30e9};
    CHECK(p.mem_bw_at(2, 64 * KiB) == rel(30e9 * 40 / 7.8));  // L2: δ 40/7.8 times the curve's last δ
    CHECK(p.mem_bw_at(2, 512 * MiB) == rel(30e9));             // DRAM: as measured
    // the reference is the curve's δ beyond the caches, not the flat δ
    // (measured at another footprint): a flat δ 10% slower changes nothing
    p.delta = kDram.delta * 1.1;
    CHECK(p.mem_bw_at(2, 512 * MiB) == rel(30e9));
    CHECK(p.mem_bw_at(2, 64 * KiB) == rel(30e9 * 40 / 7.8));
    p.cache = {};
    CHECK(p.mem_bw_at(1, 64 * KiB) == 20e9);
  }

  TEST_CASE("a negative intercept is reported as bandwidth only, never as a latency or a negative n½") {
    std::vector<FitPoint> pts;
    for (int64_t m : {int64_t{1} << 20, int64_t{2} << 20, int64_t{4} << 20, int64_t{8} << 20})
      pts.push_back({m, -2e-6 + m * 1e-10});
    const LineFit f = fit_line(pts);
    // the free line would be t = -2 µs + m·1e-10; the stored one goes through zero
    REQUIRE(f.through_zero);
    CHECK(f.alpha == 0);
    double num = 0, den = 0, ss = 0, worst = 0;
    for (const auto& p : pts) {
      num += p.bytes / p.seconds;
      den += double(p.bytes) * p.bytes / (p.seconds * p.seconds);
    }
    CHECK(f.beta == rel(num / den).epsilon(1e-12));
    CHECK(f.beta < 1e-10);  // slower than the free line's slope: the line must also cover the small sizes
    for (const auto& p : pts) {
      const double rel = (p.bytes * f.beta - p.seconds) / p.seconds;
      ss += rel * rel;
      worst = std::max(worst, std::abs(rel));
    }
    // the residuals printed are the stored line's
    CHECK(f.rms_rel == rel(std::sqrt(ss / 4)));
    CHECK(f.max_rel == rel(worst));
    CHECK(f.max_rel > 0.005);
    const std::string t = fit_line_text("large msgs ", f);
    CHECK(t.rfind(fmt::format("large msgs : bandwidth only, through zero: {:.3f} GB/s, residuals rms {:.1f}%",
                              1e-9 / f.beta, f.rms_rel * 100),
                  0) == 0);
    CHECK(t.find("intercept was below zero") != std::string::npos);
    CHECK(t.find("n½") == std::string::npos);
    CHECK(t.find('-') == std::string::npos);  // no negative number anywhere
    // the profile keeps no negative α: a large msgs line through zero takes
    // the small line's α (a message's fixed cost), a free one keeps its own
    CalibrationFit cf;
    cf.break_bytes = 1 << 20;
    cf.large = f;
    cf.small.alpha = 7e-7;
    cf.small.beta = 2e-11;
    CostParams p;
    set_message_lines(p, cf);
    CHECK(p.alpha == 7e-7);
    CHECK(p.beta == f.beta);
    CHECK(p.break_bytes == 1 << 20);
    CHECK(p.alpha_small == 7e-7);
    CHECK(p.beta_small == 2e-11);
    cf.large.through_zero = false;
    cf.large.alpha = 3e-7;
    set_message_lines(p, cf);
    CHECK(p.alpha == 3e-7);
    cf.small.alpha = -1e-7;  // a negative small intercept is kept at 0
    cf.large = f;
    set_message_lines(p, cf);
    CHECK(p.alpha_small == 0);
    CHECK(p.alpha == 0);
    // one line (no break) through zero: nothing to borrow, α = 0, no small line
    CalibrationFit one;
    one.one = f;
    set_message_lines(p, one);
    CHECK(p.alpha == 0);
    CHECK(p.beta == f.beta);
    CHECK(p.break_bytes == 0);
    CHECK(p.alpha_small == 0);
    LineFit good = f;
    good.through_zero = false;
    good.beta = 1e-10;
    good.alpha = 1e-6;
    CHECK(fit_line_text("one line   ", good).rfind("one line   : α = 1.000 µs, bandwidth = 10.000 GB/s, n½ = α/β = 10000 B", 0) == 0);
  }

}
