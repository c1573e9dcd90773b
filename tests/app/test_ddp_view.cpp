// The DDP view's draw structs, built from small REAL run_ddp results (no GL):
// one bar per layer per rank and pass, one comm bar per all-reduce call,
// everything inside its lane and in time order; the runner's background
// thread; one headless frame of the DDP view through draw_ui.
#include <doctest/doctest.h>
#include <imgui.h>

#include "app/headless.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/viz/ddp_view.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

// 2 ranks, 3 layers of 32 x 32: W_l is 4096 bytes, b_l 128 bytes.
ddp::Options small(double cap_mb, ddp::Overlap overlap = ddp::Overlap::bucketed) {
  ddp::Options o;
  o.ranks = 2;
  o.depth = 3;
  o.width = 32;
  o.batch = 8;
  o.iterations = 1;
  o.bucket_cap_mb = cap_mb;
  o.overlap = overlap;
  o.check_reference = false;
  return o;
}

int count(const DdpScene& sc, DdpBarKind k, int rank = -2) {
  return int(std::count_if(sc.bars.begin(), sc.bars.end(),
                           [&](const DdpBar& b) { return b.kind == k && (rank == -2 || b.rank == rank); }));
}

// A headless window in the DDP view, as the tests below draw it: the
// ImGui context first (it outlives the App), the default step-through run
// configured (draw_ui needs one), the view switched to DDP.
struct DdpWindow : test::Headless {
  App app;
  DdpWindow() {
    RunParams rp;
    app.vs.edit = rp;
    app.session.configure(rp);
    app.vs.view = View::ddp;
  }
  // A frame that requests the run the options say (when they changed),
  // the run, and a frame that draws its result.
  void train_and_draw() {
    frame(app);
    app.ddp.runner.wait();
    frame(app);
  }
};

}  // namespace

TEST_SUITE("ddp_view") {
  TEST_CASE("greedy_lines: items left to right, a new line when the next would pass the width") {
    CHECK(greedy_lines({}, 10, 200) == 0);
    CHECK(greedy_lines({100, 90}, 10, 200) == 1);       // 100 + 10 + 90 = 200: fits exactly
    CHECK(greedy_lines({100, 91}, 10, 200) == 2);
    CHECK(greedy_lines({100, 100, 100}, 10, 210) == 2);
    CHECK(greedy_lines({300}, 10, 200) == 1);           // too wide: a line of its own
    CHECK(greedy_lines({50, 300, 50}, 10, 200) == 3);
  }

  TEST_CASE("one bar per layer per rank, one comm bar per all-reduce, inside the lanes, in time order") {
    // cap 0.001 MB = 1048 bytes: every W_l closes its bucket -> {b2,W2}, {b1,W1}, {b0,W0}.
    const ddp::Result r = ddp::run_ddp(small(0.001));
    REQUIRE(r.buckets.size() == 3);
    REQUIRE(r.timelines.size() == 1);
    DdpLayout L;
    L.width = 800, L.label_w = 50, L.lane_h = 30, L.comm_h = 30, L.gap = 5;
    const DdpScene sc = build_ddp_scene(r, 0, L);
    REQUIRE(sc.lanes.size() == 3);  // R0, R1, comm
    CHECK(sc.lanes[0].label == "R0");
    CHECK(sc.lanes[2].label == "comm");
    CHECK(sc.lanes[2].rank == -1);
    CHECK(sc.height == doctest::Approx(3 * 30 + 2 * 5));
    for (int rank = 0; rank < 2; ++rank) {
      CHECK(count(sc, DdpBarKind::backward, rank) == 3);
      CHECK(count(sc, DdpBarKind::forward, rank) == 3);
      // Backward visits the layers in reverse, one after the other.
      std::vector<int> order;
      double last = -1;
      for (const DdpBar& b : sc.bars)
        if (b.kind == DdpBarKind::backward && b.rank == rank) {
          order.push_back(b.layer);
          CHECK(b.begin_ms >= last);
          CHECK(b.end_ms >= b.begin_ms);
          last = b.begin_ms;
        }
      CHECK(order == std::vector<int>{2, 1, 0});
    }
    CHECK(count(sc, DdpBarKind::comm) == 3);
    CHECK(r.iterations[0].calls == 3);
    std::vector<int> buckets;
    float last_x = -1;
    for (const DdpBar& b : sc.bars) {
      const DdpLane& lane = sc.lanes.at(size_t(b.lane));
      CHECK(b.y0 >= lane.y0);
      CHECK(b.y1 <= lane.y1);
      CHECK(b.x0 >= sc.plot_x0 - 1e-3f);
      CHECK(b.x1 <= sc.plot_x1 + 1e-3f);
      CHECK(b.x1 > b.x0);
      if (b.kind == DdpBarKind::comm) {
        CHECK(b.lane == 2);
        CHECK(b.x0 >= last_x);  // one communication stream: calls in sequence
        last_x = b.x0;
        buckets.push_back(b.bucket);
        CHECK(b.bytes == r.buckets[size_t(b.bucket)].bytes);
      } else {
        CHECK(b.lane == b.rank);
      }
    }
    CHECK(buckets == std::vector<int>{0, 1, 2});
    CHECK(r.buckets[0].bytes == 4096 + 128);
    // One fill marker per bucket per rank, on the rank's lane.
    CHECK(sc.markers.size() == 6);
    for (const DdpMarker& m : sc.markers) {
      CHECK(m.y0 >= sc.lanes[size_t(m.lane)].y0);
      CHECK(m.y1 <= sc.lanes[size_t(m.lane)].y1);
      CHECK(m.posted_ms >= m.ready_ms);
    }
    REQUIRE(!sc.ticks.empty());
    CHECK(sc.ticks.front().text == "0");
    CHECK(sc.ticks.front().x == doctest::Approx(50));
  }

  TEST_CASE("a smaller bucket cap gives more comm bars") {
    DdpLayout L;
    const DdpScene one = build_ddp_scene(ddp::run_ddp(small(25)), 0, L);
    const DdpScene three = build_ddp_scene(ddp::run_ddp(small(0.001)), 0, L);
    const DdpScene per_param = build_ddp_scene(ddp::run_ddp(small(25, ddp::Overlap::per_param)), 0, L);
    CHECK(count(one, DdpBarKind::comm) == 1);
    CHECK(count(three, DdpBarKind::comm) == 3);
    CHECK(count(per_param, DdpBarKind::comm) == 6);  // one per gradient (2 per layer)
  }

  TEST_CASE("the DDP view's defaults: a deeper, slower model than ddp::Options', 16 samples per rank") {
    const ddp::Options o = to_options(DdpParams{});
    CHECK(o.ranks == 4);
    CHECK(o.depth == 8);
    CHECK(o.width == 256);
    CHECK(o.batch == 64);
    CHECK(o.iterations == 3);
    CHECK(o.bucket_cap_mb == 0.25);
    CHECK(o.overlap == ddp::Overlap::bucketed);
    CHECK(o.layer_delay_us == 3000);
    CHECK(o.algorithm == "ring");
    CHECK_FALSE(o.sharded);
    CHECK(o.prefetch);
    CHECK(o.link_us_per_mb == 0);
    CHECK(o.lr == 0.05);
    CHECK(o.seed == 1);
    CHECK(o.check_reference);
    CHECK(o.shuffled_ready_rank == -1);
  }

  TEST_CASE("the runner trains on a background thread and reports bad values") {
    DdpRunner runner;
    DdpParams p;
    p.run.ranks = 2, p.run.depth = 2, p.run.width = 16, p.run.layer_delay_us = 0;
    p.run.iterations = 2, p.run.bucket_cap_mb = 25;
    runner.request(p);
    CHECK(runner.requested());
    runner.wait();
    CHECK_FALSE(runner.running());
    REQUIRE(runner.result() != nullptr);
    CHECK(runner.result_params() == p);
    CHECK(runner.result()->timelines.size() == 2);
    CHECK(runner.result()->replicas_identical);
    CHECK(runner.error().empty());
    DdpParams bad = p;
    bad.run.algorithm = "no_such_algorithm";
    runner.request(bad);
    runner.wait();
    CHECK(runner.error().find("no_such_algorithm") != std::string::npos);
    CHECK(runner.result_params() == p);  // the last good result stays
    CHECK(to_options(p).batch == 32);
  }

  TEST_CASE_FIXTURE(DdpWindow, "present mode: the clicker's keys step the DDP view's iterations") {
    ddp::Options& o = app.ddp.edit.run;
    o.ranks = 2, o.depth = 2, o.width = 16, o.layer_delay_us = 0, o.iterations = 3;
    app.vs.present = true;
    train_and_draw();
    REQUIRE(app.ddp.runner.result() != nullptr);
    REQUIRE(app.ddp.runner.result()->timelines.size() == 3);
    CHECK(app.ddp.iteration == -1);  // the last iteration
    press(app, Key::back);
    CHECK(app.ddp.iteration == 1);
    press(app, Key::page_up);
    CHECK(app.ddp.iteration == 0);
    press(app, Key::back);
    CHECK(app.ddp.iteration == 0);  // no iteration before the first
    press(app, Key::step);
    CHECK(app.ddp.iteration == 1);
    press(app, Key::page_down);
    CHECK(app.ddp.iteration == -1);
    press(app, Key::play);
    CHECK(app.ddp.iteration == -1);  // stays on the last
    press(app, Key::home);
    CHECK(app.ddp.iteration == 0);
    CHECK(app.session.position() == 0);  // the hidden step-through session did not move
    CHECK(app.vs.present);
  }

  TEST_CASE_FIXTURE(DdpWindow, "the DDP view draws headless through draw_ui") {
    ddp::Options& o = app.ddp.edit.run;
    o.ranks = 2, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
    CHECK_FALSE(app.ddp.runner.requested());
    frame(app);  // the first frame requests the run
    CHECK(app.ddp.runner.requested());
    app.ddp.runner.wait();
    frame(app);
    REQUIRE(app.ddp.runner.result() != nullptr);
    CHECK(app.ddp.runner.result()->options.ranks == 2);
    // Editing a control re-runs: the next frame requests the new parameters.
    app.ddp.edit.run.overlap = ddp::Overlap::none;
    train_and_draw();
    CHECK(app.ddp.runner.result_params().run.overlap == ddp::Overlap::none);
    CHECK(app.ddp.runner.result()->iterations.back().calls == 1);
    CHECK(app.vs.view == View::ddp);
  }

  TEST_CASE("a sharded run names its calls by collective: all-gather and reduce-scatter of layer k, apart in colour") {
    ddp::Options o = small(0.25);
    o.sharded = true;
    o.prefetch = true;
    const ddp::Result r = ddp::run_ddp(o);
    REQUIRE(r.timelines.size() == 1);
    DdpLayout L;
    L.width = 800, L.label_w = 50, L.lane_h = 30, L.comm_h = 30, L.gap = 5;
    const DdpScene sc = build_ddp_scene(r, 0, L);
    std::map<std::string, int> calls;
    for (const DdpBar& b : sc.bars) {
      if (b.kind != DdpBarKind::comm) continue;
      ++calls[b.collective];
      const auto it = std::find_if(r.timelines[0].comm.begin(), r.timelines[0].comm.end(),
                                   [&](const auto& c) { return c.call == b.call; });
      REQUIRE(it != r.timelines[0].comm.end());
      if (b.collective == "all_gather") {
        CHECK(b.label == "AG L" + std::to_string(it->layer));
        CHECK(b.color == from_hex(0x0072B2));
      } else {
        CHECK(b.collective == "reduce_scatter");
        CHECK(b.label == "RS L" + std::to_string(it->layer));
        CHECK(b.color == from_hex(0x009E73));
      }
      CHECK(b.short_label == "L" + std::to_string(it->layer));
    }
    // 3 layers: each all-gathered for forward and again for backward (the
    // parameters are dropped after use), one reduce-scatter per layer's gradients.
    CHECK(calls["all_gather"] == 6);
    CHECK(calls["reduce_scatter"] == 3);
    CHECK(calls.size() == 2);
    CHECK(ddp_calls_text(r.timelines[0]) == "6 all-gathers, 3 reduce-scatters");
    CHECK(collective_color("all_gather") != collective_color("reduce_scatter"));
    CHECK(collective_text("reduce_scatter") == "reduce-scatter");
    // DDP counts its all-reduces.
    const ddp::Result d = ddp::run_ddp(small(0.001));
    CHECK(ddp_calls_text(d.timelines[0]) == "3 all-reduces");
    CHECK(ddp_calls_text(ddp::IterationTimeline{}) == "0 collectives");
  }

  TEST_CASE("the legend: buckets for DDP, all-gather and reduce-scatter for a sharded run") {
    auto texts = [](bool sharded) {
      std::vector<std::string> t;
      for (const auto& i : ddp_legend(sharded)) t.push_back(i.text);
      return t;
    };
    CHECK(texts(false) == std::vector<std::string>{"forward", "backward", "all-reduce of bucket 0, 1, 2, …", "bucket full",
                                                   "waiting", "backward ends"});
    CHECK(texts(true) == std::vector<std::string>{"forward", "backward", "all-gather of layer k (AG Lk)",
                                                  "reduce-scatter of layer k (RS Lk)", "waiting", "backward ends"});
    // The bucket-full marker in the bucket colours, as the lanes draw each
    // bucket's marker (it was one gold triangle).
    CHECK(ddp_legend(false)[3].swatch == DdpSwatch::bucket_markers);
    CHECK(ddp_legend(false)[2].swatch == DdpSwatch::bucket_hues);
    const auto sharded = ddp_legend(true);
    CHECK(sharded[2].color == collective_color("all_gather"));
    CHECK(sharded[3].color == collective_color("reduce_scatter"));
  }

  TEST_CASE_FIXTURE(DdpWindow, "a sharded run in the DDP view: FSDP header, calls by collective, no bucket controls, labelled bars") {
    // Calls long enough to hold their labels at 1280 px: 1e6 us per MB of the
    // rank's buffer (a 32 x 32 layer and its bias, 4224 B; its shard 2112 B)
    // makes each call 2 to 4 ms beside 1 ms per layer and pass.
    ddp::Options& p = app.ddp.edit.run;
    p.ranks = 2, p.depth = 2, p.width = 32, p.layer_delay_us = 1000, p.iterations = 1;
    p.sharded = true, p.prefetch = true, p.link_us_per_mb = 1e6;
    train_and_draw();
    REQUIRE(app.ddp.runner.result() != nullptr);
    const DdpDrawn& d = app.ddp.drawn;
    CHECK_FALSE(d.bucket_controls);
    CHECK(d.header == "FSDP, 2 ranks, MLP 2 x (32 x 32), sharded, prefetch on, ring, iteration 1 of 1");
    CHECK(d.calls == "4 all-gathers, 2 reduce-scatters");
    CHECK(d.legend == std::vector<std::string>{"forward", "backward", "all-gather of layer k (AG Lk)",
                                               "reduce-scatter of layer k (RS Lk)", "waiting", "backward ends"});
    // Every call is labelled inside its bar, by collective and layer.
    std::vector<std::string> want;
    for (const auto& c : app.ddp.runner.result()->timelines[0].comm)
      want.push_back(fmt::format("{} L{}", c.collective == "all_gather" ? "AG" : "RS", c.layer));
    std::vector<std::string> got = d.bar_labels;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
    // Back to DDP: the bucket controls return, the calls are all-reduces.
    p.sharded = false, p.link_us_per_mb = 0, p.layer_delay_us = 0;
    train_and_draw();
    CHECK(d.bucket_controls);
    CHECK(d.header.rfind("DDP, 2 ranks", 0) == 0);
    CHECK(d.calls.find(" all-reduce") != std::string::npos);
    CHECK(d.legend[2] == "all-reduce of bucket 0, 1, 2, …");
  }
}
