// Lesson 03 beat 9 in the window (no --present, 1280x720, 18 px): the
// compare view above the lesson keeps its sweep plot at about a third of
// the window (issue 37: it was 55 px) and every control whole (the count
// field showed "26214" for 262144, the source picker "measured: shared
// memory (th").
#include <doctest/doctest.h>
#include <imgui.h>

#include <string>

#include "app/viz/compare_sources.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

TEST_SUITE("layout") {
  TEST_CASE("lesson 03 beat 9 in the 1280x720 window at 18 px: the sweep plot a third of the window, controls whole") {
    Sized h(18);
    App app;
    app.vs.font_px = 18;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
    REQUIRE(app.lesson->go(8));
    app.vs.edit = beat_target(app.lesson->current()).params;
    frames(h, app, 2);
    REQUIRE(app.vs.view == View::compare);
    REQUIRE(app.compare.sessions.size() == 3);
    REQUIRE(app.vs.edit.spec.count == 262144);
    // The beat's sweep, run here at small sizes so the test stays quick.
    app.compare.run_sweep(4096, 65536, 3, 1);
    frames(h, app, 4);
    check_compare(app, app.compare.base.spec.world_size);
    const auto* plot = drawn(app.vs.compare_drawn, "sweep plot");
    REQUIRE(plot != nullptr);
    INFO("sweep plot at ", show(plot->r));
    CHECK(plot->r.h >= 0.3f * 720);
    CHECK(plot->r.bottom() <= 720);
    const ImGuiStyle& st = ImGui::GetStyle();
    const auto* count = drawn(app.vs.controls_drawn, "count");
    REQUIRE(count != nullptr);
    INFO("count field at ", show(count->r));
    // Its eight digits (2^24, the largest count) beside the - and + buttons.
    CHECK(count->r.w >= ImGui::CalcTextSize("16777216").x + 2 * st.FramePadding.x + 2 * ImGui::GetFrameHeight());
    const auto* source = drawn(app.vs.controls_drawn, "compare source");
    REQUIRE(source != nullptr);
    INFO("source picker at ", show(source->r));
    const std::string label(picker_label(app.compare.sweep_source.kind));
    CHECK(label.rfind("measured: shared memory", 0) == 0);
    CHECK(source->r.w >= ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFrameHeight() + 2 * st.FramePadding.x - 0.5f);
    CHECK(source->r.x + source->r.w <= 1280);
  }
}
