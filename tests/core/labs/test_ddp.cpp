// The DDP lab: gradient buckets (PyTorch DDP's assignment), overlap modes giving
// the same parameters, in-order bucket launches, FSDP-style sharding.
// Models are tiny so that every case takes well under a second.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "core/labs/ddp/ddp.h"
#include "core/labs/ddp/summary.h"
#include "core/model/stats.h"
#include "core/ir/types.h"

using namespace microddp;
using namespace microddp::ddp;

namespace {
Options small(Overlap ov, const std::string& alg = "naive") {
  Options o;
  o.ranks = 4;
  o.depth = 3;
  o.width = 16;
  o.batch = 16;
  o.iterations = 2;
  o.lr = 0.1;
  o.overlap = ov;
  o.algorithm = alg;
  // W: 16*16*4 = 1024 B, b: 64 B; cap 0.0015 MB = 1572.864 B.
  o.bucket_cap_mb = 0.0015;
  return o;
}
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
}  // namespace

TEST_SUITE("ddp") {
  TEST_CASE("waited vs exposed: a rank that waits for a slower peer waits longer than the communication, exposed stays within it") {
    // Constructed records (ms). 2 ranks, one all-reduce after backward
    // (overlap none): R0 ends backward at 10, R1 at 14; the call runs from
    // 14.5 to 15.5 once both posted; R0's result arrives at 16, R1's at 16.2.
    Options o;
    o.ranks = 2;
    detail::RankRecord r0, r1;
    r0.backward_end_ms = 10, r0.end_ms = 16.5, r0.waits = {{0, 0, 10.5, 16}};
    r1.backward_end_ms = 14, r1.end_ms = 16.5, r1.waits = {{1, 0, 14.2, 16.2}};
    CommSpan c;
    c.begin_ms = 14.5, c.end_ms = 15.5;
    Result res;
    detail::summarize_iteration(o, {r0, r1}, {c}, 1, true, res);
    const IterationStats& s = res.iterations.at(0);
    CHECK(s.comm_ms == doctest::Approx(1));
    CHECK(s.waited_ms == doctest::Approx((6 + 2.2) / 2));  // R0 waited 4 ms for R1 before the call began
    CHECK(s.waited_ms > s.comm_ms);
    CHECK(s.exposed_comm_ms == doctest::Approx(1));        // each rank waited through the whole call
    CHECK(s.overlap_fraction == 0.0);                      // exactly: nothing hidden
    CHECK(s.compute_ms == doctest::Approx((16.5 - 6 + 16.5 - 2.2) / 2));

    // Two buckets: the first all-reduce (5..7) runs during backward, the
    // second (12..13) after R0's backward (10) and half after R1's (12.5).
    r0.backward_end_ms = 10, r0.waits = {{0, 0, 10.2, 10.3}, {0, 1, 10.3, 13.4}};
    r1.backward_end_ms = 12.5, r1.waits = {{1, 0, 12.6, 12.7}, {1, 1, 12.7, 13.2}};
    CommSpan c0 = c, c1 = c;
    c0.begin_ms = 5, c0.end_ms = 7, c1.call = 1, c1.begin_ms = 12, c1.end_ms = 13;
    detail::summarize_iteration(o, {r0, r1}, {c0, c1}, 2, true, res);
    const IterationStats& b = res.iterations.at(1);
    CHECK(b.comm_ms == doctest::Approx(3));
    CHECK(b.waited_ms == doctest::Approx((3.4 + 0.7) / 2));
    CHECK(b.exposed_comm_ms == doctest::Approx((1 + 0.5) / 2));
    CHECK(b.overlap_fraction == doctest::Approx(0.75));    // 1 - 0.75 / 3

    // Sharded (waits inside forward and backward): R0 blocked 1..2 and 5..6
    // while calls ran 1.5..2.5 and 4..5.5: 2 ms waited, 1 ms of it exposed.
    o.ranks = 1;
    detail::RankRecord f;
    f.backward_end_ms = 7, f.end_ms = 8, f.waits = {{0, 0, 1, 2}, {0, 1, 5, 6}};
    c0.begin_ms = 1.5, c0.end_ms = 2.5, c1.begin_ms = 4, c1.end_ms = 5.5;
    detail::summarize_iteration(o, {f}, {c0, c1}, 2, false, res);
    const IterationStats& sh = res.iterations.at(2);
    CHECK(sh.comm_ms == doctest::Approx(2.5));
    CHECK(sh.waited_ms == doctest::Approx(2));
    CHECK(sh.exposed_comm_ms == doctest::Approx(1));
    CHECK(sh.overlap_fraction == doctest::Approx(0.6));
  }

  TEST_CASE("buckets: reverse parameter order, closed at the cap, last partial bucket kept") {
    // params (elements): 0:100 1:10 2:100 3:10 4:100 5:10; 4-byte elements.
    const std::vector<int64_t> e = {100, 10, 100, 10, 100, 10};
    const double cap = 400.0 / (1024 * 1024);  // 400 bytes
    auto b = assign_buckets(e, 4, cap);
    REQUIRE(b.size() == 3);
    CHECK(b[0].params == std::vector<int>{5, 4});   // 40 + 400 = 440 >= 400: closed
    CHECK(b[0].offsets == std::vector<int64_t>{0, 10});
    CHECK(b[0].bytes == 440);
    CHECK(b[1].params == std::vector<int>{3, 2});
    CHECK(b[1].bytes == 440);
    CHECK(b[2].params == std::vector<int>{1, 0});  // the last bucket
    CHECK(b[2].elements == 110);
    int64_t total = 0;
    for (auto& x : b) total += x.elements;
    CHECK(total == 330);  // nothing forgotten

    auto tail = assign_buckets({1, 100, 10, 100, 10}, 4, cap);  // a last partial bucket of 4 bytes
    REQUIRE(tail.size() == 3);
    CHECK(tail[1].params == std::vector<int>{2, 1});
    CHECK(tail[2].params == std::vector<int>{0});
    CHECK(tail[2].bytes == 4);

    auto huge = assign_buckets(e, 4, 25);  // PyTorch default: everything in one
    REQUIRE(huge.size() == 1);
    CHECK(huge[0].params == std::vector<int>{5, 4, 3, 2, 1, 0});
    CHECK(huge[0].bytes == 1320);
    CHECK_THROWS_AS(assign_buckets(e, 4, 0), UsageError);
  }

  TEST_CASE("smaller buckets mean more all-reduce calls") {
    Options o = small(Overlap::bucketed);
    o.iterations = 1;
    o.check_reference = false;
    o.bucket_cap_mb = 25;
    CHECK(run_ddp(o).iterations[0].calls == 1);
    o.bucket_cap_mb = 0.0015;  // W(1024 B) + b(64 B) = 1088 < 1572.9; + next b closes
    auto r = run_ddp(o);
    // reverse order: b2 W2 b1 | W1 b0 W0 ... -> bytes 64+1024+64=1152 <1573, +1024 = 2176 closes
    REQUIRE(r.buckets.size() == 2);
    CHECK(r.buckets[0].params == std::vector<int>{5, 4, 3, 2});
    CHECK(r.buckets[1].params == std::vector<int>{1, 0});
    CHECK(r.iterations[0].calls == 2);
    o.overlap = Overlap::per_param;
    CHECK(run_ddp(o).iterations[0].calls == 6);
    o.overlap = Overlap::none;
    CHECK(run_ddp(o).iterations[0].calls == 1);
  }

  TEST_CASE("per-param, bucketed and none give identical parameters (naive, tree)") {
    for (std::string alg : {"naive", "tree"}) {
      CAPTURE(alg);
      auto none = run_ddp(small(Overlap::none, alg));
      auto per = run_ddp(small(Overlap::per_param, alg));
      auto buck = run_ddp(small(Overlap::bucketed, alg));
      CHECK(none.replicas_identical);
      CHECK(per.replicas_identical);
      CHECK(buck.replicas_identical);
      CHECK(same_bits(none.final_params, per.final_params));
      CHECK(same_bits(none.final_params, buck.final_params));
      CHECK(none.max_reference_rel_error < 1e-4);
      CHECK(buck.max_reference_rel_error < 1e-4);
    }
  }

  TEST_CASE("ring: replicas bit-identical in every mode; modes agree within float tolerance") {
    auto none = run_ddp(small(Overlap::none, "ring"));
    auto buck = run_ddp(small(Overlap::bucketed, "ring"));
    CHECK(none.replicas_identical);
    CHECK(buck.replicas_identical);
    REQUIRE(none.final_params.size() == buck.final_params.size());
    for (size_t i = 0; i < none.final_params.size(); ++i)
      CHECK(std::abs(none.final_params[i] - buck.final_params[i]) <= 1e-5f * (1 + std::abs(none.final_params[i])));
  }

  TEST_CASE("overlap: none hides nothing; small buckets hide some communication") {
    Options o = small(Overlap::none);
    o.iterations = 1;
    o.depth = 6;
    o.layer_delay_us = 3000;  // 3 ms per layer: later layers' backward outlasts the first all-reduce
    o.check_reference = false;
    // overlap none: every rank posts after its backward ended and the
    // collective starts only when all have posted, so each rank waits at
    // least the whole communication: the fraction is 0 by construction,
    // whatever the machine's load.
    auto n = run_ddp(o);
    CHECK(n.iterations[0].overlap_fraction == 0.0);
    CHECK(n.timelines[0].comm.size() == 1);
    CHECK(n.timelines[0].comm[0].begin_ms >= n.timelines[0].backward_end_ms - 1e-9);
    o.overlap = Overlap::per_param;
    // per_param: the schedule posts every gradient during backward (the
    // order of the posts and the end of backward is program order on each
    // rank, so this holds on any machine) ...
    auto p = run_ddp(o);
    // Bucket k holds parameter 11 - k; layer 0 (parameters 1, 0) fills
    // buckets 10 and 11, so buckets 0..9 are posted before layer 0's
    // backward begins.
    int early = 0;
    for (const BucketFill& f : p.timelines[0].fills) {
      double layer0_begin = -1;
      for (const LayerSpan& s : p.timelines[0].layers)
        if (s.rank == f.rank && s.backward && s.layer == 0) layer0_begin = s.begin_ms;
      CAPTURE(f.rank);
      CAPTURE(f.bucket);
      CHECK(f.posted_ms >= f.ready_ms);
      if (f.bucket < 10) {
        CHECK(f.posted_ms <= layer0_begin);
        ++early;
      }
    }
    CHECK(early == 4 * 10);
    // ... and whether the communication thread then ran a call while
    // backward was still computing is a question for the clock: on a
    // loaded machine it may be scheduled late in one run. Overlap cannot
    // appear by accident (with none it is exactly 0, above), so one run of
    // up to three that shows it is evidence of it; all three failing is a
    // real regression.
    bool overlapped = false;
    for (int attempt = 0; attempt < 3 && !overlapped; ++attempt) {
      if (attempt) p = run_ddp(o);
      overlapped = p.iterations[0].overlap_fraction > 0.0 &&
                   p.timelines[0].comm.front().begin_ms < p.timelines[0].backward_end_ms;
    }
    CHECK(overlapped);
    // The timeline has what the app draws: per rank every layer both ways,
    // every bucket's fill on every rank, every bucket's all-reduce.
    CHECK(p.timelines[0].layers.size() == size_t(4 * 6 * 2));
    CHECK(p.timelines[0].fills.size() == size_t(4 * 12));
    CHECK(p.timelines[0].comm.size() == 12u);
  }

  TEST_CASE("timeline order: a bucket's all-reduce starts after its last gradient; the last after backward ends") {
    // Lesson 07 b1 showed the one bucket starting before the "backward
    // ends" line: backward's end was stamped after the last post. These
    // orders are causal (a call starts once every rank posted it, and a
    // rank posts after stamping), so they hold on any machine.
    for (const Overlap ov : {Overlap::none, Overlap::bucketed, Overlap::per_param}) {
      Options o = small(ov);
      o.bucket_cap_mb = ov == Overlap::none ? 25 : 0.0015;
      o.check_reference = false;
      const Result res = run_ddp(o);
      CAPTURE(static_cast<int>(ov));
      REQUIRE(res.timelines.size() == 2u);
      for (const IterationTimeline& tl : res.timelines) {
        REQUIRE(!tl.comm.empty());
        const CommSpan* last = nullptr;
        for (const CommSpan& c : tl.comm) {
          double ready = -1;
          int ranks = 0;
          for (const BucketFill& f : tl.fills)
            if (f.bucket == c.bucket) ready = std::max(ready, f.ready_ms), ++ranks;
          CAPTURE(c.bucket);
          CHECK(ranks == 4);
          CHECK(c.begin_ms >= ready);
          if (!last || c.bucket > last->bucket) last = &c;
        }
        CHECK(last->bucket == static_cast<int>(res.buckets.size()) - 1);
        CHECK(last->begin_ms >= tl.backward_end_ms);
        // Every rank's backward end is its layer 0 backward's end, and its
        // first wait starts no earlier than its last post.
        double latest_layer0_end = -1;
        for (int r = 0; r < 4; ++r) {
          double layer0_end = -1, posted = -1, first_wait = -1;
          for (const LayerSpan& s : tl.layers)
            if (s.rank == r && s.backward && s.layer == 0) layer0_end = s.end_ms;
          for (const BucketFill& f : tl.fills)
            if (f.rank == r) posted = std::max(posted, f.posted_ms);
          for (const WaitSpan& w : tl.waits)
            if (w.rank == r && w.call == 0) first_wait = w.begin_ms;
          latest_layer0_end = std::max(latest_layer0_end, layer0_end);
          CHECK(first_wait >= posted);
        }
        CHECK(tl.backward_end_ms == latest_layer0_end);
      }
    }
  }

  TEST_CASE("the model clock replays the run's schedule with exact layer and link times") {
    // Lesson 07's overlap model, shorter: 4 layers of 256, 10 ms per layer
    // and pass, 20 ms per MB. A layer's W + b = 65792 floats = 263168 B,
    // so one bucket per layer lasts 20 * 263168 / 2^20 = 5.01953125 ms.
    Options o;
    o.ranks = 2;
    o.depth = 4;
    o.width = 256;
    o.batch = 4;
    o.iterations = 1;
    o.algorithm = "ring";
    o.layer_delay_us = 10000;
    o.link_us_per_mb = 20000;
    o.check_reference = false;
    o.overlap = Overlap::bucketed;
    o.bucket_cap_mb = 0.25;
    const double bucket_ms = 5.01953125;
    // Bucket k is posted after backward layer 3 - k: at 50, 60, 70, 80 ms;
    // each ends 5.02 ms later, so only the last one is exposed.
    const auto b = run_ddp(o);
    REQUIRE(b.buckets.size() == 4u);
    CHECK(b.iterations[0].model_comm_ms == doctest::Approx(4 * bucket_ms).epsilon(1e-12));
    CHECK(b.iterations[0].model_exposed_comm_ms == doctest::Approx(bucket_ms).epsilon(1e-12));
    CHECK(b.iterations[0].model_overlap_fraction == doctest::Approx(0.75).epsilon(1e-12));
    for (const BucketFill& f : b.timelines[0].fills) CHECK(f.layers_done == f.bucket + 1);
    // overlap none: one bucket posted after backward, all of it exposed.
    o.overlap = Overlap::none;
    const auto n = run_ddp(o);
    CHECK(n.iterations[0].model_exposed_comm_ms == doctest::Approx(4 * bucket_ms).epsilon(1e-12));
    CHECK(n.iterations[0].model_overlap_fraction == 0.0);
    // A rank that marks its gradients ready only after backward posts every
    // bucket late: the model reads that from the run, not from the options.
    o.overlap = Overlap::bucketed;
    o.shuffled_ready_rank = 1;
    const auto late = run_ddp(o);
    CHECK(late.iterations[0].model_exposed_comm_ms == doctest::Approx(4 * bucket_ms).epsilon(1e-12));
    CHECK(late.iterations[0].model_overlap_fraction == 0.0);
    // Sharded runs have no model clock.
    o.shuffled_ready_rank = -1;
    o.sharded = true;
    CHECK(std::isnan(run_ddp(o).iterations[0].model_exposed_comm_ms));
  }

  TEST_CASE("a rank whose gradients become ready in another order reduces the same buckets in the same order") {
    Options o = small(Overlap::per_param);
    auto plain = run_ddp(o);
    o.shuffled_ready_rank = 2;
    auto shuffled = run_ddp(o);
    const std::vector<int> in_order = {0, 1, 2, 3, 4, 5};
    CHECK(plain.launch_order == in_order);
    CHECK(shuffled.launch_order == in_order);
    CHECK(shuffled.replicas_identical);
    CHECK(same_bits(plain.final_params, shuffled.final_params));
  }

  TEST_CASE("sharded (FSDP-style): same loss as the reference, 3 calls per layer, prefetch posted early") {
    Options o = small(Overlap::bucketed, "ring");
    o.sharded = true;
    o.ranks = 3;
    o.batch = 12;
    for (bool pre : {true, false}) {
      CAPTURE(pre);
      o.prefetch = pre;
      auto r = run_ddp(o);
      CHECK(r.replicas_identical);
      CHECK(r.max_reference_rel_error < 1e-4);
      CHECK(r.iterations[0].calls == 9);
      const auto& c = r.timelines.back().comm;
      REQUIRE(c.size() == 9u);
      int prefetches = 0, rs = 0;
      for (auto& x : c) {
        prefetches += x.what.find("prefetch") != std::string::npos;
        rs += x.collective == "reduce_scatter";
      }
      CHECK(rs == 3);
      CHECK(prefetches == (pre ? 4 : 0));
    }
    // Sharded and replicated training follow the same reference.
    Options d = small(Overlap::bucketed, "ring");
    d.ranks = 3;
    d.batch = 12;
    auto rep = run_ddp(d);
    o.prefetch = true;
    auto sh = run_ddp(o);
    for (size_t i = 0; i < rep.final_params.size(); ++i)
      CHECK(std::abs(rep.final_params[i] - sh.final_params[i]) <= 1e-5f * (1 + std::abs(rep.final_params[i])));
  }

  TEST_CASE("the sleeps' lower bound on a run's time: layer delays, link delays, the larger one named") {
    Options o;  // no delays: nothing to add up
    CHECK(min_sleep_time(o).seconds() == 0);
    o.iterations = 100;
    o.layer_delay_us = 100000;  // 100 ms, forward and backward of 4 layers
    SleepEstimate e = min_sleep_time(o);
    CHECK(e.compute_s == doctest::Approx(80.0));
    CHECK(e.link_s == 0);
    CHECK(e.str(o, {}) == "iterations 100 × 2 passes × depth 4 × layer_delay_us 100000 = 80 s");
    CHECK(e.str(o, {"--iterations", "--depth", "--layer-delay-us", "--link"}) ==
          "--iterations 100 × 2 passes × --depth 4 × --layer-delay-us 100000 = 80 s");
    // DDP all-reduces every gradient once: 4 layers of 1024 x 1024 + 1024
    // floats = 16793600 B = 16.015625 MB per iteration, at 0.1 s per MB.
    o.layer_delay_us = 0;
    o.width = 1024;
    o.link_us_per_mb = 100000;
    e = min_sleep_time(o);
    CHECK(e.link_mb_per_iteration == doctest::Approx(16.015625));
    CHECK(e.link_s == doctest::Approx(160.15625));
    CHECK(e.seconds() == doctest::Approx(160.15625));
    CHECK(e.str(o, {}) == "iterations 100 × link_us_per_mb 100000 × 16 MB of collectives per iteration = 160 s");
    // Sharded on 3 ranks: per layer two all-gathers of rank 0's block
    // (272 = 91 + 91 + 90 elements) and a reduce-scatter of all 272.
    o.sharded = true;
    o.ranks = 3;
    o.width = 16;
    o.depth = 2;
    e = min_sleep_time(o);
    CHECK(e.link_mb_per_iteration * 1024 * 1024 == doctest::Approx(2 * (2 * 91 + 272) * 4.0));
  }

  TEST_CASE("the bound holds on real runs: the communication thread's sleeps, every rank's layer delays") {
    for (bool sharded : {false, true}) {
      CAPTURE(sharded);
      Options o = small(Overlap::bucketed);
      o.ranks = 2;
      o.depth = 2;
      o.width = 64;
      o.iterations = 1;
      o.sharded = sharded;
      o.link_us_per_mb = 200000;  // DDP: 33280 B -> 6.3 ms; sharded: 66560 B -> 12.7 ms
      o.layer_delay_us = 2000;    // 2 passes x 2 layers -> 8 ms
      const SleepEstimate e = min_sleep_time(o);
      CHECK(e.link_s * 1e3 == doctest::Approx(sharded ? 12.6953125 : 6.34765625));
      CHECK(e.compute_s * 1e3 == doctest::Approx(8.0));
      const Result r = run_ddp(o);
      CHECK(r.iterations[0].comm_ms >= e.link_s * 1e3);
      CHECK(r.timelines[0].end_ms >= e.seconds() * 1e3);
    }
  }

  TEST_CASE("the warm-up iterations run every collective, are not counted, and change no parameter") {
    for (bool sharded : {false, true}) {
      CAPTURE(sharded);
      Options o = small(Overlap::bucketed);  // 2 buckets; sharded: 3 layers x 3 calls
      o.sharded = sharded;
      if (sharded) {
        o.algorithm = "ring";
        o.ranks = 3;
        o.batch = 12;
      }
      const int calls = sharded ? 9 : 2;
      o.warmup = 0;
      const Result cold = run_ddp(o);
      CHECK(cold.warmup_iterations == 0);
      CHECK(cold.warmup_calls == 0);
      for (int w : {1, 3}) {
        CAPTURE(w);
        o.warmup = w;
        const Result warm = run_ddp(o);
        CHECK(warm.warmup_iterations == w);
        CHECK(warm.warmup_calls == w * calls);  // the collectives the communication thread ran
        // the timed iterations only, and the same training: no SGD step in the warm-up
        REQUIRE(warm.iterations.size() == 2u);
        CHECK(warm.timelines.size() == 2u);
        CHECK(warm.iterations[0].calls == calls);
        CHECK(warm.timelines[0].comm.size() == static_cast<size_t>(calls));
        for (size_t i = 0; i < 2; ++i) CHECK(warm.iterations[i].loss == cold.iterations[i].loss);
        CHECK(same_bits(warm.final_params, cold.final_params));
        CHECK(warm.max_reference_rel_error < 1e-4);
      }
    }
    Options d;
    CHECK(d.warmup == 1);  // the default: iteration 0 is warm
  }

  TEST_CASE("bad options name the value") {
    Options w;
    w.warmup = 11;
    CHECK_THROWS_WITH_AS(w.validate(), "warmup 11: must be in 0..10", UsageError);
    w.warmup = -1;
    CHECK_THROWS_WITH_AS(w.validate(), "warmup -1: must be in 0..10", UsageError);
    Options o;
    o.batch = 10;
    o.ranks = 4;
    CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("batch 10"), UsageError);
    o = Options{};
    o.algorithm = "bogus";
    CHECK_THROWS_WITH_AS(o.validate(), doctest::Contains("bogus"), UsageError);
    CHECK_THROWS_WITH_AS(parse_overlap("sometimes"), doctest::Contains("sometimes"), UsageError);
    CHECK(parse_overlap("per-param") == Overlap::per_param);
  }

  TEST_CASE("a learning rate that is not a positive finite number is refused, NaN included") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::pair<double, const char*> bad[] = {
        {inf, "lr inf: must be a positive finite number"},
        {-inf, "lr -inf: must be a positive finite number"},
        {nan, "lr nan: must be a positive finite number"},
        {0.0, "lr 0: must be a positive finite number"},
        {-1.0, "lr -1: must be a positive finite number"}};
    for (const auto& [lr, msg] : bad) {
      Options o;
      o.lr = lr;
      CHECK_THROWS_WITH_AS(o.validate(), msg, UsageError);
    }
    Options o;
    o.bucket_cap_mb = inf;
    CHECK_THROWS_WITH_AS(o.validate(), "bucket cap inf MB: must be a positive finite number", UsageError);
    o = Options{};
    o.layer_delay_us = 2000000;
    CHECK_THROWS_WITH_AS(o.validate(), "layer delay 2000000 us: must be in 0..1000000", UsageError);
  }

  TEST_CASE("median and MAD of samples with a NaN are NaN, so every claim made on them fails") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(std::isnan(median({1.0, nan, 2.0})));
    CHECK(std::isnan(mad({1.0, 2.0, nan})));
  }

  TEST_CASE("a loss that is not finite never matches the reference (std::max drops NaN)") {
    // A finite but huge rate: the losses overflow to inf, then NaN, in the
    // ranks and in the reference alike.
    for (bool sharded : {false, true}) {
      CAPTURE(sharded);
      Options o = small(Overlap::bucketed);
      o.sharded = sharded;
      o.lr = 1e30;
      o.iterations = 3;
      auto r = run_ddp(o);
      CHECK_FALSE(std::isfinite(r.iterations.back().loss));
      CHECK(r.max_reference_rel_error == std::numeric_limits<double>::infinity());
      CHECK_FALSE(r.max_reference_rel_error <= 1e-3);
    }
  }
}
