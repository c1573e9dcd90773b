// The cache-aware model: steps priced at their footprint on hand-made curves
// of two machines, the coherence term ε and the bytes it charges, the
// negative-intercept fit text, the cache curve's sweep
// and profile round trip, and the validation of every profile number.
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

using namespace microddp;

namespace {
constexpr double KiB = 1024, MiB = 1024 * 1024;

CollectiveSpec ring_all_reduce(int n, int64_t bytes) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = bytes / 4;  // float32
  return s;
}

Schedule schedule_of(Collective c, const char* alg, int n, int64_t count, bool in_place = false) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.in_place = in_place;
  return make_schedule(s);
}

// A calibrate-shaped curve (footprints 8 KiB .. 1 GiB, doubling) with three
// plateaus: `l2` up to l2_end, `l3` up to l3_end, `dram` beyond; β, γ and δ
// share the plateaus' speeds (bytes/s), scaled so they stay distinguishable.
struct Level {
  double beta, gamma, delta;  // s/B
};
CacheCurve plateau_curve(double l2_end, double l3_end, Level l2, Level l3, Level dram) {
  CacheCurve c;
  for (double f = 8 * KiB; f <= 1024 * MiB; f *= 2) {
    const Level& v = f <= l2_end ? l2 : f <= l3_end ? l3 : dram;
    c.footprint_bytes.push_back(f);
    c.beta.push_back(v.beta);
    c.gamma.push_back(v.gamma);
    c.delta.push_back(v.delta);
  }
  return c;
}

// Per-byte costs (s/B) of the three levels, the same on both machines so
// only the cache sizes differ: L2 40 GB/s, L3 16 GB/s, DRAM 7.8 GB/s (the
// flat profile's large-message bandwidth on the 2-core Intel Xeon with a
// 260 MiB L3); reductions a quarter slower, copies a quarter faster.
const Level kL2{1 / 40e9, 1.25 / 40e9, 0.75 / 40e9};
const Level kL3{1 / 16e9, 1.25 / 16e9, 0.75 / 16e9};
const Level kDram{1 / 7.8e9, 1.25 / 7.8e9, 0.75 / 7.8e9};

CostParams machine(const CacheCurve& c) {
  CostParams p;
  p.name = "threads";
  p.alpha = 1e-6;
  p.beta = kDram.beta;  // the flat values: what a profile without a curve uses
  p.gamma = kDram.gamma;
  p.delta = kDram.delta;
  p.fused_recv_reduce = true;
  p.cores = 2;
  p.cache = c;
  return p;
}
// 2 cores with 2 MiB of L2 each and a 260 MiB L3 (the Intel Xeon model 207).
CostParams huge_l3() { return machine(plateau_curve(2 * MiB, 256 * MiB, kL2, kL3, kDram)); }
// 2 cores with 512 KiB of L2 each and a 4 MiB L3.
CostParams small_l3() { return machine(plateau_curve(512 * KiB, 4 * MiB, kL2, kL3, kDram)); }

std::string write_tmp(const std::string& name, const std::string& text) {
  std::ofstream f(name);
  f << text;
  return name;
}
}  // namespace

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
    CHECK(fit_line_text("one line   ", good).rfind("one line   : α = 1.000 us, bandwidth = 10.000 GB/s, n½ = α/β = 10000 B", 0) == 0);
  }

  TEST_CASE("ε's bytes: writes over what a peer read since the writer's last write, the schedule repeating") {
    using Table = std::vector<std::vector<int64_t>>;
    // naive all_reduce, 2 ranks, 8 floats: in step 1 rank 1 reads rank 0's
    // output; in the next run's step 0 rank 0 copies its input over it
    // (32 B); its recv_reduce then writes the same bytes again (0 more).
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "naive", 2, 8)) == Table{{32, 0}, {0, 0}});
    // ring all_reduce, 2 ranks, 8 floats (chunks of 16 B): each rank's
    // reduced chunk is read by the peer in the all-gather and written over
    // by the next run's scatter-reduce; the all-gather's receives land in
    // the chunk the peer did not read.
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "ring", 2, 8)) == Table{{16, 16}, {0, 0}});
    // the same recv-reduce in a reduce-scatter: nobody reads the result
    CHECK(bytes_over_peer_reads(schedule_of(Collective::reduce_scatter, "ring", 2, 8)) == Table{{0, 0}});
    // ring all_gather, 3 ranks, 1 float each: in step 0 every rank copies
    // its input over its own chunk (read by the next rank in the run
    // before, 4 B) and receives over the chunk it forwarded in step 1 (4 B)
    const Schedule ag = schedule_of(Collective::all_gather, "ring", 3, 1);
    CHECK(bytes_over_peer_reads(ag) == Table{{8, 8, 8}, {0, 0, 0}});
    // on 2 cores rank 2 shares core 0 with its reader, rank 0: nothing to take away
    CHECK(bytes_over_peer_reads(ag, 2) == Table{{8, 8, 0}, {0, 0, 0}});
    // in place (input and output one buffer), ring all_reduce, 2 ranks, 8
    // floats: each rank sends chunk c in step 0 and receives over it in
    // step 1 (16 B), sends chunk c+1 in step 1 and recv-reduces over it in
    // the next run's step 0 (16 B)
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "ring", 2, 8, true)) == Table{{16, 16}, {16, 16}});
    // a broadcast writes nothing a peer read: the root only sends
    for (const auto& step : bytes_over_peer_reads(schedule_of(Collective::broadcast, "naive", 3, 9)))
      for (int64_t b : step) CHECK(b == 0);
  }

  TEST_CASE("ε's reuse distance: the traffic between the peer's read and the write, the rotation's runs included") {
    using Pieces = std::vector<PeerReadOverwrite>;
    const auto same = [](const Pieces& a, const Pieces& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i].bytes != b[i].bytes || a[i].distance_bytes != b[i].distance_bytes) return false;
      return true;
    };
    // ring all_reduce, 2 ranks, 8 floats (chunks of 16 B). Traffic: step 0
    // each rank copies 16 B (32) and recv-reduces 16 B (48): 160 in all;
    // step 1 each receives 16 B (32): 64; one run 224. Rank 0's copy in
    // step 0 writes over its output chunk 1, which rank 1 read in the
    // previous run's step 1: the traffic between is step 1's, 64 B.
    const Schedule ring = schedule_of(Collective::all_reduce, "ring", 2, 8);
    auto w = peer_read_overwrites(ring);
    CHECK(same(w[0][0], Pieces{{16, 64}}));
    CHECK(same(w[0][1], Pieces{{16, 64}}));
    CHECK(w[1][0].empty());
    CHECK(w[1][1].empty());
    // rotating 4 buffer sets: the other 3 sets' runs come in between
    w = peer_read_overwrites(ring, 0, 4);
    CHECK(same(w[0][0], Pieces{{16, 64 + 3 * 224}}));
    // in place: step 0 recv-reduces 16 B per rank (96 in all), step 1
    // receives 16 B per rank (64). A rank sends chunk c in step 0 and
    // receives over it in step 1 of the same run (96 B between: step 0's);
    // it sends chunk c+1 in step 1 and recv-reduces over it in the next
    // run's step 0 (64 B between, plus 2 × 160 with 3 sets).
    const Schedule ip = schedule_of(Collective::all_reduce, "ring", 2, 8, true);
    w = peer_read_overwrites(ip, 0, 3);
    CHECK(same(w[0][0], Pieces{{16, 64 + 2 * 160}}));
    CHECK(same(w[1][0], Pieces{{16, 96}}));  // a read in the same run: the rotation does not count
    // a read and a write in one step: that step's traffic
    CollectiveSpec spec;
    spec.collective = Collective::all_gather;  // only the shapes matter
    spec.algorithm = "naive";
    spec.world_size = 2;
    spec.count = 4;
    spec.dtype = DType::int32;
    ScheduleBuilder b(spec);
    b.step("read, then write over it");
    b.send(0, 1, {Buf::output, 0}, 4);
    b.recv(1, 0, {Buf::output, 0}, 4);             // 32 B of traffic
    b.copy(0, {Buf::input, 0}, {Buf::output, 0}, 4);  // 32 B
    w = peer_read_overwrites(b.finish(), 0, 5);
    CHECK(same(w[0][0], Pieces{{16, 64}}));
    // one write over two reads in different steps, partly overlapping: rank
    // 1 reads rank 0's output [0, 8) in step 0 and [4, 12) in step 1 (the
    // later read takes [4, 8) over); in step 2 rank 0 writes [2, 10): [2, 4)
    // was read in step 0 (distance: steps 0 and 1, 64 + 64 B), [4, 10) in
    // step 1 (64 B); [0, 2) and [10, 12) stay read and are not charged
    CollectiveSpec wide = spec;
    wide.count = 8;  // input 8, output 16 int32
    ScheduleBuilder two(wide);
    two.step("read [0, 8)");
    two.send(0, 1, {Buf::output, 0}, 8);
    two.recv(1, 0, {Buf::output, 0}, 8);  // 32 B moved: 64 B of traffic
    two.step("read [4, 12)");
    two.send(0, 1, {Buf::output, 4}, 8);
    two.recv(1, 0, {Buf::output, 0}, 8);  // 64 B of traffic
    two.step("write [2, 10)");
    two.copy(0, {Buf::input, 0}, {Buf::output, 2}, 8);  // 64 B of traffic
    const Schedule twice = two.finish();
    w = peer_read_overwrites(twice);
    CHECK(same(w[2][0], Pieces{{8, 128}, {24, 64}}));
    CHECK(w[0][0].empty());
    CHECK(w[1][0].empty());
    // the byte counts agree with bytes_over_peer_reads
    CHECK(bytes_over_peer_reads(ring) == std::vector<std::vector<int64_t>>{{16, 16}, {0, 0}});
    // φ's reads, the other way round: in step 1 each rank receives the
    // chunk its peer wrote in step 0 (160 B of traffic between: step 0's);
    // step 0 reads inputs nobody writes; the rotation does not count (the
    // write and the read fall in one run)
    auto f = fresh_peer_reads(ring, 0, 4);
    CHECK(f[0][0].empty());
    CHECK(f[0][1].empty());
    CHECK(same(f[1][0], Pieces{{16, 160}}));
    CHECK(same(f[1][1], Pieces{{16, 160}}));
    // in place: step 0 recv-reduces the chunk the peer received in the
    // previous run's step 1 (64 B, plus 2 runs of 160 with 3 sets); step 1
    // receives the chunk the peer recv-reduced in step 0 (96 B)
    f = fresh_peer_reads(ip, 0, 3);
    CHECK(same(f[0][0], Pieces{{16, 64 + 2 * 160}}));
    CHECK(same(f[1][0], Pieces{{16, 96}}));
    CHECK(same(f[1][1], Pieces{{16, 96}}));
    // a second read of the same bytes, with no write between, is not fresh:
    // rank 1 reads rank 0's output [0, 8) in step 0 and [4, 12) in step 1,
    // and only rank 0's write in step 2 makes [2, 10) fresh for the next
    // run's reads: [2, 8) in step 0 (64 B of traffic between: step 2's),
    // [8, 10) in step 1 (step 2's and step 0's, 128 B)
    f = fresh_peer_reads(twice);
    CHECK(same(f[0][1], Pieces{{24, 64}}));
    CHECK(same(f[1][1], Pieces{{8, 128}}));
    CHECK(f[2][1].empty());
  }

  TEST_CASE("ε is priced at the reuse distance, not at the step's footprint") {
    // ring all_reduce, 2 ranks, 8 MiB: ε high (100 ps/B) up to 16 MiB of
    // distance, 10 ps/B beyond; every step's footprint is 32 MiB or more
    // (bench's one buffer set), but the peer read the overwritten chunk in
    // the step just before (16 MiB of traffic between): ε = 100 ps/B.
    const Schedule s = schedule_of(Collective::all_reduce, "ring", 2, 2 * 1024 * 1024);
    CostParams p = small_l3();
    p.cache.coherence.clear();
    for (double f : p.cache.footprint_bytes) p.cache.coherence.push_back(f <= 16 * MiB ? 100e-12 : 10e-12);
    p.back_to_back = true;
    p.min_footprint_bytes = 32 * MiB;
    const Prediction one = predict(s, p);
    CHECK(one.footprint_bytes[0] >= 32 * MiB);
    CHECK(one.ranks[0][0].bytes_over_peer_reads == 4 * MiB);
    CHECK(one.ranks[0][0].terms.coherence_s == rel(4 * MiB * 100e-12));
    // 16 sets: 15 runs (840 MiB) between: ε = 10 ps/B
    p.rotation_sets = 16;
    CHECK(predict(s, p).ranks[0][0].terms.coherence_s == rel(4 * MiB * 10e-12));
  }

  TEST_CASE("ε: bytes written over a peer's reads cost ε(reuse distance) each, on top of β, γ, δ") {
    const Schedule s = schedule_of(Collective::all_reduce, "naive", 2, 8);
    CostParams without = small_l3();
    CostParams with = without;
    with.cache.coherence.assign(with.cache.footprint_bytes.size(), 1e-9);  // 1 ns per byte
    CHECK(predict(s, with).lockstep.coherence_s == 0);  // one run (run, the window): no ε
    without.back_to_back = with.back_to_back = true;    // bench's back-to-back iterations
    const Prediction a = predict(s, without), b = predict(s, with);
    CHECK(a.lockstep.coherence_s == 0);
    CHECK(b.ranks[0][0].bytes_over_peer_reads == 32);
    CHECK(b.ranks[0][0].terms.coherence_s == rel(32e-9));
    CHECK(b.ranks[1][0].terms.coherence_s == 0);
    CHECK(b.lockstep.coherence_s == rel(32e-9));  // rank 0 is step 0's slowest rank
    CHECK(b.lockstep_s - a.lockstep_s == rel(32e-9));
    // 3 ranks on 2 cores (ring all_gather, 1 float each): rank 2 shares core 0
    // with its reader, rank 0, and pays nothing
    const Prediction c = predict(schedule_of(Collective::all_gather, "ring", 3, 1), with);  // with.cores = 2 (small_l3)
    CHECK(c.ranks[0][0].bytes_over_peer_reads == 8);
    CHECK(c.ranks[0][1].bytes_over_peer_reads == 8);
    CHECK(c.ranks[0][2].bytes_over_peer_reads == 0);
    CHECK(c.ranks[0][2].terms.coherence_s == 0);
    // an ε array that does not match the footprints counts as not measured
    CostParams odd = with;
    odd.cache.coherence.pop_back();
    CHECK(predict(s, odd).lockstep.coherence_s == 0);
    // ε follows the curve: 0 where the curve says the peer's copy is gone.
    // naive, 2 ranks, 256 KiB: rank 1 reads rank 0's output in step 1 (512
    // KiB of traffic), one run moves 1.75 MiB; ε 1 ns/B up to 1 MiB, 0 beyond
    const Schedule big = schedule_of(Collective::all_reduce, "naive", 2, 64 * 1024);
    with.cache.coherence.clear();
    for (double f : with.cache.footprint_bytes) with.cache.coherence.push_back(f <= 1 * MiB ? 1e-9 : 0);
    CHECK(predict(big, with).lockstep.coherence_s == rel(256 * KiB * 1e-9));
    with.rotation_sets = 16;  // 15 runs of 1.75 MiB between the read and the write
    CHECK(predict(big, with).lockstep.coherence_s == 0);
  }

  TEST_CASE("φ: bytes received fresh from a peer's writes cost φ(reuse distance) each, apart from ε") {
    const Schedule s = schedule_of(Collective::all_reduce, "naive", 2, 8);
    CostParams p = small_l3();
    p.cache.fresh_read.assign(p.cache.footprint_bytes.size(), 1e-9);  // 1 ns per byte; no ε
    CHECK(predict(s, p).lockstep.coherence_s == 0);  // one run (run, the window): no φ
    p.back_to_back = true;
    const Prediction b = predict(s, p);
    // step 0: rank 0 copies and recv-reduces into its output (nothing read fresh);
    // step 1: rank 1 receives the 32 B rank 0 wrote in step 0
    CHECK(b.ranks[0][0].bytes_fresh_from_peers == 0);
    CHECK(b.ranks[0][0].bytes_over_peer_reads == 32);  // counted, but no ε measured: free
    CHECK(b.ranks[0][0].terms.coherence_s == 0);
    CHECK(b.ranks[1][1].bytes_fresh_from_peers == 32);
    CHECK(b.ranks[1][1].terms.coherence_s == rel(32e-9));
    CHECK(b.lockstep.coherence_s == rel(32e-9));
    // with ε too, each side pays its own curve: ε 2 ns on the write, φ 1 ns on the read
    p.cache.coherence.assign(p.cache.footprint_bytes.size(), 2e-9);
    const Prediction both = predict(s, p);
    CHECK(both.ranks[0][0].terms.coherence_s == rel(64e-9));
    CHECK(both.ranks[1][1].terms.coherence_s == rel(32e-9));
    p.cache.coherence.clear();
    // 3 ranks on 2 cores (ring all_gather, 1 float each; small_l3 has 2
    // cores): rank 0 receives from rank 2, on its own core, for free; ranks
    // 1 and 2 receive what ranks 0 and 1 (the other core) just wrote
    const Prediction c = predict(schedule_of(Collective::all_gather, "ring", 3, 1), p);
    CHECK(c.ranks[0][0].bytes_fresh_from_peers == 0);
    CHECK(c.ranks[0][1].bytes_fresh_from_peers == 4);
    CHECK(c.ranks[0][2].bytes_fresh_from_peers == 4);
    // a φ array that does not match the footprints counts as not measured
    CostParams odd = p;
    odd.cache.fresh_read.pop_back();
    CHECK(predict(s, odd).lockstep.coherence_s == 0);
    // φ follows its curve by distance: naive, 2 ranks, 256 KiB; rank 0's
    // step 0 moves 1.25 MiB (copy 2 x 256 KiB, recv-reduce 3 x 256 KiB)
    // between its write and rank 1's read; φ 1 ns/B up to 1 MiB, 0 from
    // 2 MiB: interpolated in log2 between
    const Schedule big = schedule_of(Collective::all_reduce, "naive", 2, 64 * 1024);
    p.cache.fresh_read.clear();
    for (double f : p.cache.footprint_bytes) p.cache.fresh_read.push_back(f <= 1 * MiB ? 1e-9 : 0);
    REQUIRE(p.fresh_read_at(2 * MiB) == 0);
    const double want = 256 * KiB * 1e-9 * (1 - std::log2(1.25));
    CHECK(predict(big, p).lockstep.coherence_s == rel(want));
    p.rotation_sets = 16;  // the write and the read fall in one run: the rotation does not count
    CHECK(predict(big, p).lockstep.coherence_s == rel(want));
  }

  TEST_CASE("after a split, calibrate says where the ping-pong's pool at the split fits, and claims no edge") {
    const DataCacheSizes epyc{48 * 1024, 1 << 20, int64_t{508} << 20};
    CHECK(split_cache_text(65536, epyc) ==
          "(this CPU's caches: L1d 48 KiB, L2 1 MiB, L3 508 MiB; at the split, 64 KiB messages, the ping-pong rotates 64 "
          "buffer slots, 4 MiB per rank, which fits in the L3: the split is where two lines fit best, not always a "
          "cache edge)");
    CHECK(split_cache_text(1024, {48 * 1024, 1 << 20, 0}) ==
          "(this CPU's caches: L1d 48 KiB, L2 1 MiB; at the split, 1 KiB messages, the ping-pong rotates 64 buffer "
          "slots, 64 KiB per rank, which fits in the L2: the split is where two lines fit best, not always a cache "
          "edge)");
    CHECK(split_cache_text(48, epyc).find("at the split, 48 B messages, the ping-pong rotates 64 buffer slots, 3 KiB "
                                          "per rank, which fits in the L1d:") != std::string::npos);
    // 64 MiB messages: one slot, past a 32 MiB L3
    CHECK(split_cache_text(int64_t{64} << 20, {0, 0, int64_t{32} << 20}) ==
          "(this CPU's caches: L3 32 MiB; at the split, 64 MiB messages, the ping-pong rotates 1 buffer slot, 64 MiB "
          "per rank, which fits in none of them: the split is where two lines fit best, not always a cache edge)");
    CHECK(split_cache_text(65536, DataCacheSizes{}).empty());  // no size known: no sentence
    // an L4 (some Intel parts' eDRAM) is named too, and is the largest
    const DataCacheSizes l4{32 * 1024, 256 * 1024, 6 << 20, 128 << 20};
    CHECK(l4.largest() == 128 << 20);
    CHECK(split_cache_text(int64_t{1} << 20, l4).find("L3 6 MiB, L4 128 MiB; at the split, 1 MiB messages, the "
                                                      "ping-pong rotates 32 buffer slots, 32 MiB per rank, which fits "
                                                      "in the L4:") != std::string::npos);
    CHECK(DataCacheSizes{}.largest() == 0);
    CHECK(ping_pong_slots(4) == 64);
    CHECK(ping_pong_slots(int64_t{1} << 20) == 32);
    CHECK(ping_pong_slots(int64_t{64} << 20) == 1);
  }

  TEST_CASE("sweep: a few KiB to at least 4x the last-level cache, within the memory budget") {
    const auto f = cache_sweep_footprints(32 << 20, 64e9);
    CHECK(f.front() == 8192);
    CHECK(f.back() == 128 * MiB);  // 4 × 32 MiB
    CHECK(f.size() == 15);
    const auto big = cache_sweep_footprints(260 << 20, 64e9);
    REQUIRE(big.size() == 18);
    CHECK(big.back() == 1040 * MiB);  // 4 × 260 MiB itself, not the 2 GiB above it
    CHECK(big[16] == 512 * MiB);
    CHECK(cache_sweep_footprints(1 << 20, 64e9).back() == 64 * MiB);      // at least 64 MiB
    CHECK(cache_sweep_footprints(0, 64e9).back() == 128 * MiB);           // unknown cache
    CHECK(cache_sweep_footprints(260 << 20, 1e9).back() == 64 * MiB);     // 8 × F <= 1 GB
    CHECK(cache_sweep_footprints(260 << 20, 8.0 * 128 * MiB).back() == 128 * MiB);  // 8 × F = budget: fits
    CHECK(cache_sweep_footprints(260 << 20, 1e3).size() == 2);            // never fewer than 2
    // a power of two is left out only within 1.25× below the end: 24 MiB of
    // L3 keeps 64 MiB before 96 MiB; 48 MiB keeps 128 before 192
    auto tail2 = [](int64_t llc) {
      const auto v = cache_sweep_footprints(llc, 64e9);
      return std::vector<double>(v.end() - 2, v.end());
    };
    CHECK(tail2(24 << 20) == std::vector<double>{64 * MiB, 96 * MiB});
    CHECK(tail2(48 << 20) == std::vector<double>{128 * MiB, 192 * MiB});
    CHECK(tail2(300 << 20) == std::vector<double>{512 * MiB, 1200 * MiB});  // 1024 within 1.25× of 1200: out
    CHECK(tail2(int64_t{205} << 20) == std::vector<double>{512 * MiB, 820 * MiB});  // 512 × 1.25 = 640 < 820: kept
    // an LLC that is no multiple of 4 KiB: the end rounds up to one
    CHECK(cache_sweep_footprints((int64_t{40} << 20) + 1000, 64e9).back() == 160 * MiB + 4096);
    // when the end does not fit the budget, the power of two it replaced still may
    CHECK(cache_sweep_footprints(384 << 20, 8320.0 * MiB).back() == 1024 * MiB);
    CHECK(cache_sweep_footprints(384 << 20, 8191.0 * MiB).back() == 512 * MiB);  // not even 1024 MiB
    // whatever the cache and budget: ascending, multiples of 4 KiB, at least 2
    for (int64_t llc : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{24} << 20, int64_t{96} << 20,
                        (int64_t{260} << 20) + 123, int64_t{1} << 30})
      for (double budget : {0.0, 1e6, 300.0 * MiB, 4160.0 * MiB, 64e9}) {
        const auto v = cache_sweep_footprints(llc, budget);
        CHECK(v.size() >= 2);
        for (size_t i = 0; i < v.size(); ++i) {
          CHECK(std::fmod(v[i], 4096.0) == 0);
          if (i > 0) CHECK(v[i] > v[i - 1]);
        }
      }
  }

  TEST_CASE("footprints above 64 MiB are measured in 3 rounds spread over the sweep, smaller ones in every round") {
    auto rounds_of = [](double F, int total) {
      std::vector<int> r;
      for (int i = 0; i < total; ++i)
        if (cache_curve_measures_in_round(F, i, total)) r.push_back(i);
      return r;
    };
    CHECK(rounds_of(64 * MiB, 9).size() == 9);
    CHECK(rounds_of(128 * MiB, 9) == std::vector<int>{0, 3, 6});
    CHECK(rounds_of(1040 * MiB, 15) == std::vector<int>{0, 5, 10});
    CHECK(rounds_of(128 * MiB, 1) == std::vector<int>{0});
    CHECK(rounds_of(128 * MiB, 3) == std::vector<int>{0, 1, 2});
    CHECK(rounds_of(128 * MiB, 4) == std::vector<int>{0, 1, 2});
    CHECK(rounds_of(128 * MiB, 10) == std::vector<int>{0, 3, 6});
    // no footprint is ever left without a sample: round 0 always counts
    for (int total : {-3, 0, 1, 2})
      CHECK(cache_curve_measures_in_round(1040 * MiB, 0, total));
    CHECK(rounds_of(128 * MiB, 2) == std::vector<int>{0, 1});
  }

  TEST_CASE("measure_cache_curve on two small footprints: positive costs, β never below δ") {
    CostParams flat;
    flat.alpha = 0;
    flat.beta = 1e-10;
    const CacheCurve c = measure_cache_curve({8 * KiB, 64 * KiB}, flat, 1, {}, 5);
    REQUIRE(c.footprint_bytes.size() == 2);
    REQUIRE(c.coherence.size() == 2);
    REQUIRE(c.fresh_read.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      CHECK(c.delta[i] > 0);
      CHECK(c.gamma[i] > 0);
      CHECK(c.beta[i] >= c.delta[i]);
    }
  }

  TEST_CASE("the coherence probes pair each slot's steps: step 3j + a against 3j + b, step 0 left out") {
    // 2 slots (6 steps), 2 iterations; sample value = 100 · iteration + step
    std::vector<double> t;
    for (int it = 0; it < 2; ++it)
      for (int step = 1; step < 6; ++step) t.push_back(100.0 * it + step);
    // φ's pairing: fresh read 3j + 1 against clean read 3j + 2, every slot
    CHECK(slot_step_differences(t, 6, 2, 2, 0, 1, 2) == std::vector<double>{-1, -1, -1, -1});
    // ε's: X step 3j against Z step 3j + 2, from slot 1 (slot 0's X is step 0)
    CHECK(slot_step_differences(t, 6, 2, 2, 1, 0, 2) == std::vector<double>{-2, -2});
    // the order and the values, not just the differences: the step each pair reads
    std::vector<double> u(t.size());
    for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<double>(i * i);  // sample i is step i % 5 + 1
    // iteration 1, slot 1: steps 4 and 5 are samples 8 and 9: 64 - 81
    CHECK(slot_step_differences(u, 6, 2, 2, 0, 1, 2).back() == -17);
    CHECK_THROWS_AS(slot_step_differences(t, 6, 2, 2, 0, 0, 2), std::out_of_range);  // step 0 is not sampled
  }

  TEST_CASE("profile round trip keeps the curve in its own object; a bad curve names the key") {
    const std::string path = "cache_curve_test_profile.json";
    CostParams p = huge_l3();
    write_profile(path, p, {});
    {
      std::ifstream f(path);
      const auto j = nlohmann::json::parse(f);
      REQUIRE(j.contains("cache_curve"));
      CHECK(j["cache_curve"]["footprint_bytes"].size() == p.cache.footprint_bytes.size());
    }
    const CostParams q = load_profile(path);
    CHECK(q.cache.footprint_bytes == p.cache.footprint_bytes);
    CHECK(q.cache.beta == p.cache.beta);
    CHECK(q.cache.gamma == p.cache.gamma);
    CHECK(q.cache.delta == p.cache.delta);
    CHECK(q.cache.coherence.empty());  // none measured, none written
    p.cache.coherence.assign(p.cache.footprint_bytes.size(), 2e-11);
    write_profile(path, p, {});
    CHECK(load_profile(path).cache.coherence == p.cache.coherence);
    CHECK(load_profile(path).cache.fresh_read.empty());
    p.cache.fresh_read.assign(p.cache.footprint_bytes.size(), 3e-11);
    write_profile(path, p, {});
    CHECK(load_profile(path).cache.fresh_read == p.cache.fresh_read);
    const std::string base = R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cache_curve": )";
    struct Bad {
      const char *curve, *says;
    };
    for (const Bad& b : {
             Bad{R"({"footprint_bytes": [8192, 4096], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0]})",
                 "cache_curve.footprint_bytes[1] = 4096 is not above"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0]})",
                 "one length"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [-1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0]})",
                 "cache_curve.beta_s_per_byte[0] = -1e-10"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [1e308], "delta_s_per_byte": [0]})",
                 "cache_curve.gamma_s_per_byte[0] = 1e+308"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0]})",
                 "cache_curve.delta_s_per_byte must be an array"},
             Bad{R"([1, 2])", "cache_curve must be an object"},
             Bad{R"({"footprint_bytes": [8192, 16384], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0], "coherence_s_per_byte": [0]})",
                 "one length (footprint_bytes 2, beta 2, gamma 2, delta 2, coherence 1)"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0], "coherence_s_per_byte": [-1e-12]})",
                 "cache_curve.coherence_s_per_byte[0] = -1e-12"},
             Bad{R"({"footprint_bytes": [8192, 16384], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0], "fresh_read_s_per_byte": [0, 0, 0]})",
                 "one length (footprint_bytes 2, beta 2, gamma 2, delta 2, fresh_read 3)"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0], "fresh_read_s_per_byte": ["x"]})",
                 "cache_curve.fresh_read_s_per_byte[0] = \"x\""},
         }) {
      CAPTURE(b.curve);
      write_tmp(path, base + b.curve + "}");
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(b.says), UsageError);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(path.c_str()), UsageError);
    }
    std::remove(path.c_str());
  }

  TEST_CASE("every number of a profile is checked: the error names the field and the file") {
    const std::string path = "cache_curve_test_bad_profile.json";
    const std::string ok = R"("alpha_s": 1e-6, "beta_s_per_byte": 1e-10)";
    write_tmp(path, "{" + ok + R"(, "bandwidth_Bps": 1e10, "gamma_s_per_byte": 0, "cores": 2, "points": [{"bytes": 4, "seconds": 1e-6}]})");
    CHECK(load_profile(path).cores == 2);
    struct Bad {
      std::string json, says;
    };
    for (const Bad& b : std::vector<Bad>{
             {R"({"alpha_s": -1, "beta_s_per_byte": 1e-10})", "alpha_s = -1"},
             {R"({"alpha_s": 1e308, "beta_s_per_byte": 1e-10})", "alpha_s = 1e+308"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": -1})", "beta_s_per_byte = -1"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": 0})", "beta_s_per_byte = 0"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e308})", "beta_s_per_byte = 1e+308"},
             {"{" + ok + R"(, "bandwidth_Bps": 0})", "bandwidth_Bps = 0"},
             {"{" + ok + R"(, "bandwidth_Bps": 1e308})", "bandwidth_Bps = 1e+308"},
             {"{" + ok + R"(, "gamma_s_per_byte": -1e-9})", "gamma_s_per_byte = -1e-09"},
             {"{" + ok + R"(, "delta_s_per_byte": -1})", "delta_s_per_byte = -1"},
             {"{" + ok + R"(, "delta_s_per_byte": "x"})", "delta_s_per_byte = \"x\""},
             {"{" + ok + R"(, "cores": -2})", "cores = -2"},
             {"{" + ok + R"(, "cores": 0})", "cores = 0"},
             {"{" + ok + R"(, "cores": 1.5})", "cores = 1.5"},
             {"{" + ok + R"(, "cores": 1e308})", "cores = 1e+308"},
             {"{" + ok + R"(, "break_bytes": -4})", "break_bytes = -4"},
             {"{" + ok + R"(, "alpha_small_s": -1e-6})", "alpha_small_s = -1e-06"},
             {"{" + ok + R"(, "beta_small_s_per_byte": 1e308})", "beta_small_s_per_byte = 1e+308"},
             {"{" + ok + R"(, "n_half_bytes": -140651})", "n_half_bytes = -140651"},
             {"{" + ok + R"(, "points": [{"bytes": 4, "seconds": -1}]})", "points[0]"},
         }) {
      CAPTURE(b.json);
      write_tmp(path, b.json);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(b.says.c_str()), UsageError);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(("profile '" + path + "'").c_str()), UsageError);
    }
    std::remove(path.c_str());
  }
}

// `microddp calibrate` and `bench` hold a KeepFreedMemory so that each probe
// reuses the pages of the last one (a first touch cost 13 µs per 4 KiB page
// on an EPYC guest).
// glibc's own counters (mallinfo2) say where a 64 MiB block lives: mmapped
// by default, from the heap and kept after free() under the guard, mmapped
// again once the guard is gone. A sanitizer's allocator has its own rules.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MICRODDP_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MICRODDP_OWN_ALLOCATOR 1
#endif
#endif
#ifndef MICRODDP_OWN_ALLOCATOR
#include <malloc.h>

#include <cstdlib>
#include <cstring>
TEST_CASE("KeepFreedMemory: a freed 64 MiB block stays in the process while the guard lives, and only then") {
  const size_t big = size_t{64} << 20;
  auto mapped_with_block = [&] {  // bytes in mmapped blocks while a fresh 64 MiB block is held
    void* p = std::malloc(big);
    REQUIRE(p != nullptr);
    std::memset(p, 1, 4096);
    const size_t mapped = mallinfo2().hblkhd;
    std::free(p);
    return mapped;
  };
  const size_t before = mallinfo2().hblkhd;
  CHECK(mapped_with_block() >= before + big);  // glibc's default: blocks this large are mmapped
  {
    const KeepFreedMemory keep;
    CHECK(mapped_with_block() < before + big);  // from the heap
    const struct mallinfo2 after_free = mallinfo2();
    CHECK(after_free.fordblks >= big);  // ... and, freed, still held by the process
    CHECK(after_free.arena >= big);
    {
      const KeepFreedMemory inner;  // guards nest: the inner one's end leaves the outer in force
    }
    CHECK(mapped_with_block() < before + big);
  }
  CHECK(mapped_with_block() >= before + big);  // blocks this large are mmapped again
}
#endif
