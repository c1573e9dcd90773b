// The window at projector sizes: 1280x720 with 18 and 28 px text, in the
// main and DDP views and with a lesson open: compute_layout puts every panel
// inside the window, every control and panel lies inside it, the seed's
// three ranks' buffer rows are inside the buffers panel, the Setup popup.
// Also: test_layout_present.cpp (--present), test_layout_labels.cpp (rank
// labels, cell values), test_layout_compare.cpp (the compare view).
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

TEST_SUITE("layout") {
  TEST_CASE("compute_layout: every panel inside the window, the main view's four apart") {
    for (const float px : {12.f, 18.f, 28.f, 40.f})
      for (const bool lesson : {false, true})
        for (const bool present : {false, true}) {
          LayoutInput in;
          in.font_px = px;
          in.view = View::main;
          in.lesson = lesson;
          in.present = present;
          in.controls_bottom = present ? 0 : px * 4;
          const viz::Layout L = compute_layout(in);
          INFO(px, " px, lesson ", lesson, ", present ", present);
          CHECK(L.body.y == doctest::Approx(present ? 8 : px * 4));
          std::vector<Rect> rs = {L.topology, L.buffers, L.side};
          if (L.timeline.w > 0) rs.push_back(L.timeline);
          for (size_t i = 0; i < rs.size(); ++i) {
            CHECK(rs[i].inside(L.window));
            CHECK(rs[i].inside(L.body));
            for (size_t j = i + 1; j < rs.size(); ++j) CHECK_FALSE(rs[i].overlaps(rs[j]));
          }
          // The lesson takes the lower half; with large text the whole width.
          if (lesson) CHECK(L.side.h == doctest::Approx(L.body.h - 8 - std::floor((L.body.h - 8) * 0.5f)));
          if (lesson && px >= 24) CHECK(L.side.w == doctest::Approx(L.body.w));
        }
    LayoutInput in;
    in.view = View::compare;
    in.controls_bottom = 100;
    const viz::Layout L = compute_layout(in);
    CHECK(L.compare.x == 8);
    CHECK(L.compare.y == 100);
    CHECK(L.compare.right() == 1272);
    CHECK(L.compare.bottom() == 712);
    CHECK_FALSE(compact_controls(1280, 18));
    CHECK(compact_controls(1280, 28));
  }

  TEST_CASE("compute_layout, DDP view: the body from the top (its controls are inside), 62% above a lesson") {
    for (const float px : {18.f, 28.f})
      for (const bool present : {false, true}) {
        INFO(px, " px, present ", present);
        LayoutInput in;
        in.font_px = px;
        in.view = View::ddp;
        in.present = present;
        in.controls_bottom = 100;  // the step-through's controls are not drawn above the DDP view
        viz::Layout L = compute_layout(in);
        CHECK(show(L.ddp) == "(8, 8) 1264 x 704");
        CHECK(L.side.h == 0);
        in.lesson = true;
        L = compute_layout(in);
        // floor((704 - 8) * 0.62) = 431 above, the gap, then the lesson to 712.
        CHECK(show(L.ddp) == "(8, 8) 1264 x 431");
        CHECK(show(L.side) == "(8, 447) 1264 x 265");
      }
  }

  TEST_CASE("1280x720 at 18 and 28 px: controls and panels inside, the seed's rows in view") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.vs.collect_probes = true;
      h.frame(app);
      REQUIRE(app.session.configured());
      app.session.seek(2);  // every buffer written: a probe in each row
      frames(h, app);
      CHECK(app.vs.controls_drawn.size() >= 10);
      CHECK(panel(app, "topology") != nullptr);
      CHECK(panel(app, "timeline") != nullptr);
      CHECK(panel(app, "stats") != nullptr);
      check_all_inside(app);
      check_nothing_runs_off();
      check_fixed_panels_hold_their_content();
      check_seed_rows_visible(app, px);
      // Large text folds the run's parameters into the Setup popup.
      bool setup = false;
      for (const auto& d : app.vs.controls_drawn) setup = setup || d.what == "setup";
      CHECK(setup == (px == 28.f));

      app.vs.view = View::compare;
      frames(h, app);
      check_all_inside(app);
      check_nothing_runs_off();
      const auto* cmp = panel(app, "compare");
      REQUIRE(cmp != nullptr);
      CHECK(cmp->r.bottom() == doctest::Approx(712));
    }
  }

  TEST_CASE("the DDP view at 18 and 28 px: its controls and lines stay inside the window") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.session.configure(app.vs.edit);
      app.vs.view = View::ddp;
      ddp::Options& o = app.ddp.edit.run;
      o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
      h.frame(app);  // requests the run
      app.ddp.runner.wait();
      frames(h, app);
      REQUIRE(app.ddp.runner.result() != nullptr);
      check_nothing_runs_off();
    }
  }

  TEST_CASE("28 px: the Setup button opens the run's controls in a popup inside the window") {
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.edit = seed_ring();
    frames(h, app, 2);
    const ViewState::Drawn* setup = nullptr;
    for (const auto& d : app.vs.controls_drawn)
      if (d.what == "setup") setup = &d;
    REQUIRE(setup != nullptr);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(setup->r.x + setup->r.w / 2, setup->r.y + setup->r.h / 2);
    h.frame(app);
    io.MouseDown[0] = true;
    h.frame(app);
    io.MouseDown[0] = false;
    frames(h, app, 3);
    ImGuiWindow* popup = nullptr;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (w->Active && (w->Flags & ImGuiWindowFlags_Popup)) popup = w;
    REQUIRE(popup != nullptr);
    INFO("popup at (", popup->Pos.x, ", ", popup->Pos.y, ") ", popup->Size.x, " x ", popup->Size.y);
    CHECK(popup->Pos.x >= 0);
    CHECK(popup->Pos.y >= 0);
    CHECK(popup->Pos.x + popup->Size.x <= 1280);
    CHECK(popup->Pos.y + popup->Size.y <= 720);
    // What it holds (the run row, the prediction source, speed and text
    // size: several lines at 28 px) wrapped inside it.
    CHECK(popup->DC.CursorMaxPos.x <= popup->Pos.x + popup->Size.x);
    CHECK(popup->Size.y >= 3 * 28);
    // With the popup open the edits still apply (a fill, then 4 ranks).
    app.vs.edit.data = "iota";
    app.vs.edit.spec.world_size = 4;
    h.frame(app);
    CHECK(app.vs.error.empty());
    CHECK(app.session.schedule().world_size() == 4);
  }

  TEST_CASE("a lesson open at 18 and 28 px: the lesson panel in the lower half, the rows in view") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
      app.vs.edit = beat_target(app.lesson->current()).params;
      app.vs.collect_probes = true;
      frames(h, app);
      REQUIRE(app.session.configured());
      app.session.seek(app.session.num_steps());
      frames(h, app);
      check_all_inside(app);
      check_nothing_runs_off();
      check_fixed_panels_hold_their_content();
      const auto* lesson = panel(app, "lesson");
      REQUIRE(lesson != nullptr);
      CHECK(lesson->r.bottom() == doctest::Approx(712));
      CHECK(lesson->r.y >= 360 - 1);
      CHECK((panel(app, "timeline") != nullptr) == (px == 18.f));
      if (app.session.schedule().world_size() == 3) check_seed_rows_visible(app, px);
    }
  }
}
