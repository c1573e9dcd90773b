// The compare view at projector sizes, alone and above lesson 03: its
// controls, its columns' text, its sweep plot and the small topologies' rank
// labels are where they can be read; the crossover question; the tie hint.
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
  TEST_CASE("the compare view at 1280x720, 18 and 28 px: controls, columns' text, the sweep and the small topologies") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, alone, 8 ranks");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();
      app.vs.edit.data = "iota";
      app.vs.edit.spec.world_size = 8;
      app.vs.edit.spec.count = 8;
      app.vs.view = View::compare;
      frames(h, app, 2);
      REQUIRE(app.compare.sessions.size() == 3);
      check_compare(app, 8);  // before a sweep: the prompt in the box
      app.compare.run_sweep(64, 16384, 3, 1);  // 64 B .. 16 KiB: 6 sizes
      app.vs.collect_probes = true;
      frames(h, app, 2);
      check_compare(app, 8);
      check_bars_apart(app);
      check_nothing_runs_off();
      // Alone at 18 px the columns have room for their drawings.
      if (px == 18.f) CHECK(app.vs.compare_text_only == std::vector<bool>{false, false, false});
      // 16 ranks: drawn with every label apart, or as text.
      app.vs.edit.spec.world_size = 16;
      app.vs.edit.spec.count = 16;
      frames(h, app, 2);
      REQUIRE(app.compare.base.spec.world_size == 16);
      check_compare(app, 16);
    }
  }

  TEST_CASE("compare above lesson 03's beat 4 at 18 and 28 px: text whole, the sweep plot legible") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, lesson 03 beat 4");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
      REQUIRE(app.lesson->go(3));
      app.vs.edit = beat_target(app.lesson->current()).params;
      frames(h, app, 2);
      REQUIRE(app.vs.view == View::compare);
      REQUIRE(app.compare.sessions.size() == 3);
      // The beat's sweep, run here at small sizes so the test stays quick.
      app.compare.run_sweep(4096, 65536, 3, 1);
      frames(h, app, 2);
      check_compare(app, app.compare.base.spec.world_size);
    }
  }

  TEST_CASE("lesson 03 beat 5 asks where the crossover is: the sweep hides it from beat 4 until the answer") {
    Sized h(18.f);
    App app;
    app.vs.font_px = 18.f;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
    REQUIRE(app.lesson->go(3));  // beat 4: no question of its own; beat 5 asks for the crossover
    REQUIRE_FALSE(app.lesson->current().question.has_value());
    app.vs.edit = beat_target(app.lesson->current()).params;
    frames(h, app, 2);
    REQUIRE(app.vs.view == View::compare);
    app.compare.run_sweep(4096, 4 << 20, 4, 1);  // up to 4 MiB: past the nvlink crossover (373 KiB)
    frames(h, app, 2);
    REQUIRE(app.compare.crossover_predicted_bytes > 0);
    // Its dashed line, with its label where the desk's short box has a spot
    // clear of the dots and lines (compare_plot_labels.cpp leaves it out else).
    const auto crossover_drawn = [&] {
      return std::any_of(app.vs.compare_drawn.begin(), app.vs.compare_drawn.end(), [](const auto& d) {
        return starts_with(d.what, "sweep crossover") || starts_with(d.what, "sweep segment crossover");
      });
    };
    CHECK_FALSE(app.lesson->checks_hidden());
    CHECK_FALSE(crossover_drawn());
    REQUIRE(app.lesson->go(4));  // beat 5: the same sweep, kept
    frames(h, app, 2);
    REQUIRE(app.lesson->current().question.has_value());
    REQUIRE(app.compare.crossover_predicted_bytes > 0);
    CHECK(app.lesson->checks_hidden());
    CHECK_FALSE(crossover_drawn());
    app.lesson->submit("380");
    frames(h, app, 2);
    CHECK(crossover_drawn());
    app.lesson->wait_checks();
  }

  TEST_CASE("compare at 3 ranks: naive and tree tie, a line says so and \"Use 8 ranks\" sets 8; at 8 no hint") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.edit = seed_ring();  // 3 ranks, explicit rows
      app.vs.view = View::compare;
      frames(h, app, 2);
      REQUIRE(app.compare.base.spec.world_size == 3);
      const auto* hint = drawn(app.vs.compare_drawn, "hint");
      const auto* use8 = drawn(app.vs.controls_drawn, "compare use 8 ranks");
      REQUIRE(hint != nullptr);
      REQUIRE(use8 != nullptr);
      CHECK(use8->r.inside(Rect{0, 0, 1280, 720}));
      check_compare(app, 3);
      ImGuiIO& io = ImGui::GetIO();
      io.MousePos = ImVec2(use8->r.x + use8->r.w / 2, use8->r.y + use8->r.h / 2);
      h.frame(app);
      io.MouseDown[0] = true;
      h.frame(app);
      io.MouseDown[0] = false;
      frames(h, app, 3);
      CHECK(app.vs.edit.spec.world_size == 8);
      CHECK(app.compare.base.spec.world_size == 8);
      CHECK(app.compare.base.spec.count == 8);
      CHECK(app.compare.base.data == "iota");
      CHECK(drawn(app.vs.compare_drawn, "hint") == nullptr);
      CHECK(drawn(app.vs.controls_drawn, "compare use 8 ranks") == nullptr);
      // At 8 ranks naive's busiest rank moves 448 B, tree's 192 B.
      CHECK(build_stats(*app.compare.sessions[0]).busiest_rank_bytes == 448);
      CHECK(build_stats(*app.compare.sessions[1]).busiest_rank_bytes == 192);
      check_compare(app, 8);
    }
  }
}
