// The lesson panel and the window tell the same story: the topology title
// names what runs (the one-buffer ring); the slider and the topology title
// count steps the same way.
#include <doctest/doctest.h>
#include <imgui.h>

#include "app/headless.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/scene.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";

using test::Headless;

void open(App& app, const std::string& file) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + file));
  app.vs.edit = beat_target(app.lesson->current()).params;
}

}  // namespace

TEST_SUITE("lesson_story") {
  TEST_CASE("the one-buffer ring is named by what runs (lesson 02 beat 5)") {
    const lesson::Lesson l = lesson::load_lesson(kLessons + "02-ring-double-buffering.yaml");
    const BeatTarget broken = beat_target(l.beats[4]);
    REQUIRE(broken.params.broken.has_value());
    CHECK(broken.params.spec.algorithm == "ring_unchunked");
    CHECK(run_algorithm_name(broken.params) == "single_buffered_ring (one buffer, sends delayed)");
    RunParams undelayed = broken.params;
    undelayed.broken->max_delay_us = 0;
    CHECK(run_algorithm_name(undelayed) == "single_buffered_ring (one buffer)");
    CHECK(run_algorithm_name(beat_target(l.beats[0]).params) == "ring_unchunked");
    RunParams other = broken.params;  // the broken form applies to ring_unchunked only
    other.spec.algorithm = "ring";
    CHECK(run_algorithm_name(other) == "ring");
  }

  TEST_CASE("the slider counts steps as the topology title does (0-based, as the CLI prints them)") {
    CHECK(position_text(0, 2) == "before step 0 of 2");
    CHECK(position_text(1, 2) == "after step 0 of 2");
    CHECK(position_text(2, 2) == "after step 1 of 2");
    CHECK(position_text(5, 2) == "after step 1 of 2");
    CHECK(position_text(0, 0) == "no steps");
    // Lesson 02 beat 2 (after step 0): the topology title says "step 0 of 2".
    Headless h;
    App app;
    open(app, "02-ring-double-buffering.yaml");
    h.frame(app);
    app.lesson->go(1);
    h.frame(app);
    REQUIRE(app.session.position() == 1);
    const TopologyScene sc = build_topology(app.session, app.session.position(), Vec2{400, 300}, 1, nullptr);
    CHECK(sc.caption.rfind("step 0 of 2", 0) == 0);
    CHECK(position_text(app.session.position(), app.session.num_steps()) == "after step 0 of 2");
    app.session.seek(0);  // before any step: the title names the next one
    const TopologyScene before = build_topology(app.session, 0, Vec2{400, 300}, 1, nullptr);
    CHECK(before.caption.rfind("next: step 0 of 2", 0) == 0);
    CHECK(position_text(0, app.session.num_steps()) == "before step 0 of 2");
  }
}
