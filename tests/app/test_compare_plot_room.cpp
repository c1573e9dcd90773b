// The compare plot uses its room and its labels keep apart (issue 37,
// lecturer pass 6): lesson 09's recorded lab bars (beats 12-15) take the
// slide's width, with one Source line and "1 node"; the ratio strip's labels
// stay clear of the main plot's (lessons 03 and 05). Headless, the window's
// own frames; the geometry as the panels record it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/viz/compare_panel.h"
#include "app/viz/size_bars.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

namespace {

const std::string kLesson09 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/09-topology.yaml";

// Lesson `file`'s beat `beat` (1-based) on a 1280x720 slide at `px`.
void slide(Sized& h, App& app, const std::string& file, int beat, float px) {
  app.vs.font_px = px;
  app.vs.present = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(file));
  REQUIRE(app.lesson->go(beat - 1));
  frames(h, app, 3);
  REQUIRE(app.vs.view == View::compare);
}

std::vector<const ViewState::Drawn*> all(const App& app, const std::string& prefix) {
  std::vector<const ViewState::Drawn*> out;
  for (const auto& d : app.vs.compare_drawn)
    if (starts_with(d.what, prefix)) out.push_back(&d);
  return out;
}

}  // namespace

TEST_SUITE("compare_plot_room") {
  TEST_CASE("lesson 09 beats 12-15 at 18 and 28 px: the bars' box takes the width, the longest bar most of it") {
    setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {18.f, 28.f})
      for (const int beat : {12, 13, 14, 15}) {
        INFO("beat ", beat, " at ", px, " px");
        Sized h(px);
        App app;
        slide(h, app, kLesson09, beat, px);
        REQUIRE(compare_panel::one_size(app.compare));
        const auto* area = drawn(app.vs.compare_drawn, "area");
        const auto* axes = drawn(app.vs.compare_drawn, "sweep axes");
        REQUIRE(area);
        REQUIRE(axes);
        INFO("box ", show(axes->r), " in the area ", show(area->r));
        // The box: the area's width less the value's margin (it was 870 of 1264 px at beat 13).
        CHECK(axes->r.w >= 0.95f * area->r.w);
        float longest = 0;
        for (const auto* b : all(app, "size bar ")) {
          if (starts_with(b->what, "size bar label") || starts_with(b->what, "size bar value") ||
              starts_with(b->what, "size bar axis") || starts_with(b->what, "size bar model"))
            continue;
          longest = std::max(longest, b->r.w);
        }
        // The longest bar (its median, the axis from 0 to the largest p90 or model time): at
        // least 60% of the box (28 px, beat 13: 130 px of 748 beside its long label).
        CHECK(longest >= 0.6f * axes->r.w);
        // A label never covers a bar, another label or a value.
        const auto labels = all(app, "size bar label ");
        REQUIRE(labels.size() == app.compare.sweep.size());
        for (const auto* l : labels)
          for (const auto* o : all(app, "size bar ")) {
            if (o == l || starts_with(o->what, "size bar axis")) continue;
            INFO(l->what, " at ", show(l->r), " and ", o->what, " at ", show(o->r));
            CHECK_FALSE(l->r.overlaps(o->r));
          }
      }
    unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("lesson 09 beat 12 at 28 px: one Source line, '1 node', the header without the source") {
    setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    {
      Sized h(28.f);
      App app;
      slide(h, app, kLesson09, 12, 28.f);
      CHECK(compare_panel::brief_caption(app.compare) ==
            "Source: RECORDED lab run (1 node), 2026-12-07 · bars measured, ticks predicted");
      const auto* plot = drawn(app.vs.compare_drawn, "sweep plot");
      REQUIRE(plot);
      ImGui::NewFrame();  // (text widths)
      const std::string header = compare_panel::sweep_header_text(app, plot->r.w, true);
      ImGui::EndFrame();
      CHECK(header ==
            "Time at 4 MiB per rank: bars the median of 5 iterations (whiskers p10-p90), ticks the lab's model.");
    }
    {  // Two nodes stay plural.
      Sized h(28.f);
      App app;
      slide(h, app, kLesson09, 13, 28.f);
      CHECK(compare_panel::brief_caption(app.compare) ==
            "Source: RECORDED lab run (2 nodes), 2026-12-07 · bars measured, ticks predicted");
    }
    unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("labels_above: a label wider than a fifth of the box goes above its bar") {
    CHECK(compare_panel::labels_above(241, 1200));
    CHECK_FALSE(compare_panel::labels_above(240, 1200));
    CHECK_FALSE(compare_panel::labels_above(40, 1200));
  }

  TEST_CASE("lesson 03 beat 10 at 18 and 28 px: the ratio strip's labels keep a line's height from the main plot's") {
    setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      Sized h(px);
      App app;
      slide(h, app, kLesson03, 10, px);
      const auto* axes = drawn(app.vs.compare_drawn, "sweep axes");
      const auto* strip = drawn(app.vs.compare_drawn, "sweep ratio axes");
      REQUIRE(axes);
      REQUIRE(strip);
      const float lh = ImGui::GetTextLineHeight();
      INFO("plot ", show(axes->r), ", strip ", show(strip->r));
      // The main plot's x labels end by its box's right edge, the largest size's among them.
      const auto xl = all(app, "sweep x label ");
      REQUIRE(xl.size() >= 2);
      CHECK(xl.back()->what == "sweep x label 16 MiB");
      for (const auto* l : xl) {
        INFO(l->what, " at ", show(l->r));
        CHECK(l->r.right() <= axes->r.right() + 0.5f);
      }
      // The strip's labels ("1×", its sizes) lie right of the main box by a line's height at least.
      const auto rl = all(app, "sweep ratio ");
      REQUIRE(rl.size() >= 3);
      for (const auto* l : rl) {
        INFO(l->what, " at ", show(l->r));
        CHECK(l->r.x >= axes->r.right() + lh - 0.5f);
      }
    }
    unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
