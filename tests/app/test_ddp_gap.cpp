// The DDP view's idle gaps of the comm lane after backward (DdpGap,
// app/viz/ddp_view.h) on hand-made records: lesson 07 beat 5's picture (all
// buckets posted by 0.3 ms, the first all-reduce started at 12.4 ms: the
// communication thread, started with the iteration, waited for a CPU), a late post (overlap none), the
// SGD step after the last call; exact texts and pixel extents, and the
// label the plot draws in the gap at 20 px.
#include <doctest/doctest.h>
#include <imgui.h>

#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/ddp_view.h"
#include "app/viz/panels.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

ddp::CommSpan call(int k, double b, double e) {
  ddp::CommSpan c;
  c.call = k;
  c.collective = "all_reduce";
  c.what = "bucket " + std::to_string(k);
  c.bucket = k;
  c.bytes = k % 2 ? 1024 : 64;
  c.begin_ms = b;
  c.end_ms = e;
  return c;
}

// Lesson 07 beat 5 as the slide showed it (4 ranks, per-parameter buckets,
// naive): backward over at 0.5 ms, every bucket posted by 0.31 ms (R2 last),
// b0 from 12.4 ms, the others back to back, the iteration over at 105 ms.
ddp::Result beat5() {
  ddp::Result r;
  r.options.ranks = 4;
  ddp::IterationTimeline t;
  for (int rank = 0; rank < 4; ++rank) {
    t.layers.push_back({rank, 0, true, 0.1, 0.5});
    for (int k = 0; k < 6; ++k) t.fills.push_back({rank, k, 0.2, rank == 2 ? 0.31 : 0.25, 3});
    t.waits.push_back({rank, 0, 0.5, 15.0});
  }
  const double at[] = {12.4, 15.0, 22.0, 37.0, 53.0, 71.0, 104.8};
  for (int k = 0; k < 6; ++k) t.comm.push_back(call(k, at[k] + (k ? 0.04 : 0), at[k + 1]));
  t.backward_end_ms = 0.5;
  t.end_ms = 105.0;
  r.timelines = {t, t};
  return r;
}

DdpLayout layout() {
  DdpLayout L;
  L.width = 1000;
  L.label_w = 60;
  return L;
}

}  // namespace

TEST_SUITE("ddp_gap") {
  TEST_CASE("lesson 07 beat 5: the lane idle from backward's end to b0, every bucket posted: waiting for a CPU") {
    const DdpScene sc = build_ddp_scene(beat5(), 1, layout());
    REQUIRE(sc.gaps.size() == 1);  // the 0.04 ms hand-offs and the 0.2 ms tail are under 3% of 105 ms
    const DdpGap& g = sc.gaps[0];
    CHECK(g.cause == DdpGapCause::cpu);
    CHECK(g.call == 0);
    CHECK(g.bucket == 0);
    CHECK(g.begin_ms == 0.5);
    CHECK(g.end_ms == 12.4);
    CHECK(g.ready_ms == 0.31);
    // Plot pixels: 940 px for 105 ms from x = 60.
    CHECK(g.x0 == doctest::Approx(60 + 0.5 * 940 / 105.0));
    CHECK(g.x1 == doctest::Approx(60 + 12.4 * 940 / 105.0));
    CHECK(g.labels == std::vector<std::string>{"idle 11.9 ms: b0 posted at 0.3 ms, waiting for a CPU to start it",
                                               "idle 11.9 ms: waiting for a CPU", "waiting for a CPU", "no CPU yet"});
    CHECK(ddp_gap_sentence(g, 4, 2) ==
          "The comm lane is idle from 0.5 to 12.4 ms: every rank had posted b0 by 0.3 ms and waits for its result "
          "(shaded), but the communication thread, started with the iteration, began it only at 12.4 ms: it waited "
          "11.9 ms for a CPU (4 worker threads, the collective's threads and the window share 2 CPUs).");
    // A later call: the thread was woken by the last post, not started.
    DdpGap later = g;
    later.call = 3, later.bucket = 3;
    CHECK(ddp_gap_sentence(later, 4, 2) ==
          "The comm lane is idle from 0.5 to 12.4 ms: every rank had posted b3 by 0.3 ms and waits for its result "
          "(shaded), but the communication thread began it only at 12.4 ms: it waited 11.9 ms for a CPU (4 worker "
          "threads, the collective's threads and the window share 2 CPUs).");
  }

  TEST_CASE("overlap none: a rank posting late, then the SGD step after the last call") {
    ddp::Result r = beat5();
    ddp::IterationTimeline& t = r.timelines[0];
    t.backward_end_ms = 40;
    t.fills.clear();
    for (int rank = 0; rank < 4; ++rank) t.fills.push_back({rank, 0, 39, rank == 1 ? 46 : 40.2, 3});
    t.comm = {call(0, 46.1, 60)};
    t.end_ms = 70;
    const DdpScene sc = build_ddp_scene(r, 0, layout());
    REQUIRE(sc.gaps.size() == 2);  // 46 -> 46.1 is under 3% of 70 ms
    CHECK(sc.gaps[0].cause == DdpGapCause::posting);
    CHECK(sc.gaps[0].rank == 1);
    CHECK(sc.gaps[0].begin_ms == 40);
    CHECK(sc.gaps[0].end_ms == 46);
    CHECK(sc.gaps[0].labels[0] == "idle 6.0 ms: waiting for R1 to post b0");
    CHECK(ddp_gap_sentence(sc.gaps[0], 4, 2) ==
          "The comm lane is idle from 40.0 to 46.0 ms: R1 posted b0 only at 46.0 ms, and a call starts when every rank "
          "has posted it.");
    CHECK(sc.gaps[1].cause == DdpGapCause::step);
    CHECK(sc.gaps[1].begin_ms == 60);
    CHECK(sc.gaps[1].end_ms == 70);
    CHECK(sc.gaps[1].x1 == doctest::Approx(1000));
    CHECK(sc.gaps[1].labels == std::vector<std::string>{"SGD step, 10.0 ms: nothing left to send", "SGD step", "step"});
    CHECK(ddp_gap_sentence(sc.gaps[1], 4, 2) ==
          "From 60.0 to 70.0 ms the ranks copy the averaged gradients and take the SGD step: nothing left to send.");
  }

  TEST_CASE("no gap: back-to-back calls, a sharded run, no calls") {
    ddp::Result r = beat5();
    r.timelines[0].comm[0].begin_ms = 0.52;
    CHECK(build_ddp_scene(r, 0, layout()).gaps.empty());
    ddp::Result sharded = beat5();
    for (auto& c : sharded.timelines[0].comm) c.bucket = -1, c.layer = 0;
    CHECK(build_ddp_scene(sharded, 0, layout()).gaps.empty());
    ddp::Result none = beat5();
    none.timelines[0].comm.clear();
    CHECK(build_ddp_scene(none, 0, layout()).gaps.empty());
  }

  TEST_CASE("the plot draws the longest label that fits in the gap, at 20 px") {
    test::FontWindow w(20);
    const ddp::Result r = beat5();
    DdpDrawn drawn;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1280, 400));
    ImGui::Begin("plot", nullptr, ImGuiWindowFlags_NoDecoration);
    draw_ddp_plot(r, 1, drawn);
    // The scene the plot drew, rebuilt from its box (as draw_ddp_plot lays it out).
    DdpLayout L;
    L.width = drawn.timeline_box[2] - drawn.timeline_box[0] - 8;
    L.label_w = ImGui::CalcTextSize("comm ").x + 6;
    const DdpScene sc = build_ddp_scene(r, 1, L);
    REQUIRE(sc.gaps.size() == 1);
    const DdpGap& g = sc.gaps[0];
    size_t fit = g.labels.size();
    for (size_t i = 0; i < g.labels.size() && fit == g.labels.size(); ++i)
      if (ImGui::CalcTextSize(g.labels[i].c_str()).x + 8 <= g.x1 - g.x0) fit = i;
    ImGui::End();
    ImGui::Render();
    INFO("gap ", g.x1 - g.x0, " px");
    REQUIRE(fit < g.labels.size());
    CHECK(fit > 0);  // the whole sentence does not fit in 12 ms of 105 at 1280 px
    CHECK(drawn.gap_labels == std::vector<std::string>{g.labels[fit]});
    CHECK(drawn.note_text.find("it waited 11.9 ms for a CPU (4 worker threads") != std::string::npos);
  }
}
