// The lesson panel and the window tell the same story: a beat's checks do
// not answer its question before it is answered; a beat whose checks price
// with a preset is predicted with that preset in the window; the topology
// title names what runs (the one-buffer ring); the slider and the topology
// title count steps the same way; check values wrap between words only.
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

// Two beats on one setup: the first without checks' presets, the second's
// `faster` check priced with preset infiniband, both in the compare view on
// small sweeps (so the test stays fast).
const char* kPresetLesson = R"(title: presets
setup: {collective: all_reduce, algorithm: ring, ranks: 4, count: 1024}
beats:
  - at: end
    view: compare
    compare: {algorithms: [tree, ring], sizes: {min: 4K, max: 8K}}
    text: follows the run
    checks:
      - {check: steps, equals: 6}
  - at: end
    view: compare
    compare: {algorithms: [tree, ring], sizes: {min: 4K, max: 8K}}
    text: priced on infiniband
    checks:
      - {check: faster, preset: infiniband, algorithm: tree, than: ring}
  - at: end
    text: back to the step-through
)";

}  // namespace

TEST_SUITE("lesson_story") {
  TEST_CASE("a beat's checks are hidden until its question is answered (lesson 03 beat 1, lesson 02 beat 2)") {
    LessonView l03(lesson::load_lesson(kLessons + "03-naive-tree-ring.yaml"));
    REQUIRE(l03.current().question.has_value());
    CHECK(l03.checks_hidden());
    l03.wait_checks();
    REQUIRE(l03.results() != nullptr);
    REQUIRE(l03.results()->size() == 3);
    // What the panel shows meanwhile: the count, no value.
    const std::string summary = checks_summary(*l03.results());
    CHECK(summary == "3 of 3 checks pass");
    CHECK(summary.find("672") == std::string::npos);
    l03.submit("600");  // a wrong answer still answers: the checks show
    CHECK_FALSE(l03.checks_hidden());
    CHECK(check_line(l03.results()->at(0)) == "bytes R0 sent + received in the whole run: 672");

    LessonView l02(lesson::load_lesson(kLessons + "02-ring-double-buffering.yaml"));
    CHECK_FALSE(l02.checks_hidden());  // beat 1 has no question
    l02.next();
    REQUIRE(l02.current().question.has_value());
    CHECK(l02.checks_hidden());
    l02.choose(0);
    CHECK_FALSE(l02.checks_hidden());
    l02.previous();
    l02.next();
    CHECK_FALSE(l02.checks_hidden());  // the answer is kept per beat
  }

  TEST_CASE("check lines: passed, failed, skipped; the summary counts the decided ones") {
    lesson::CheckResult ok{true, false, "R0 accum after step 0", "[8, 10, 12]", "[8, 10, 12]", {}};
    lesson::CheckResult bad{false, false, "time", "1.5e-08", "1.40898e-08", {}};
    lesson::CheckResult lab{false, true, "lab time", "", "not run here", {}};
    CHECK(check_line(ok) == "R0 accum after step 0: [8, 10, 12]");
    CHECK(check_line(bad) == "time: expected 1.5e-08, got 1.40898e-08");
    CHECK(check_line(lab) == "lab time: not run here");
    CHECK(checks_summary({ok, bad, lab}) == "1 of 2 checks pass");
    CHECK(checks_summary({ok}) == "1 of 1 check passes");
  }

  TEST_CASE("wrap_words breaks at spaces only: a number stays whole") {
    const auto chars = [](std::string_view w) { return static_cast<float>(w.size()); };
    CHECK(wrap_words("R0 time: 1.40898e-08 s", 12, chars) == std::vector<std::string>{"R0 time:", "1.40898e-08", "s"});
    CHECK(wrap_words("a b c", 5, chars) == std::vector<std::string>{"a b c"});
    CHECK(wrap_words("a b c", 4, chars) == std::vector<std::string>{"a b", "c"});
    CHECK(wrap_words("1.40898e-08", 3, chars) == std::vector<std::string>{"1.40898e-08"});  // too wide: alone
    CHECK(wrap_words("  two   spaces ", 100, chars) == std::vector<std::string>{"two spaces"});
    CHECK(wrap_words("", 10, chars) == std::vector<std::string>{""});
  }

  TEST_CASE("the preset a beat's checks price with (lesson 03)") {
    const lesson::Lesson l = lesson::load_lesson(kLessons + "03-naive-tree-ring.yaml");
    REQUIRE(l.beats.size() == 11);
    CHECK(beat_preset(l.beats[0]) == "");  // bytes and result checks only
    CHECK(beat_preset(l.beats[2]) == "");
    for (size_t b = 3; b < 8; ++b) {
      INFO("beat " << b + 1);
      CHECK(beat_preset(l.beats[b]) == "nvlink");
      CHECK(beat_target(l.beats[b]).preset == "nvlink");
    }
    // The measured beats: shared memory (bytes, steps), the recorded lab run, the live lab.
    for (size_t b = 8; b < 11; ++b) CHECK(beat_preset(l.beats[b]) == "");
  }

  TEST_CASE("lesson 03 beat 4 in the window: cards and checks both priced on preset nvlink") {
    Headless h;
    App app;
    open(app, "03-naive-tree-ring.yaml");
    h.frame(app);
    CHECK(app.vs.source_follows_nodes);
    app.lesson->go(3);
    h.frame(app);
    CHECK(app.vs.view == View::compare);
    CHECK(app.vs.source.kind == PredictionSource::Kind::preset);
    CHECK(app.vs.source.preset == "nvlink");
    CHECK(app.session.prediction().source == "predicted (preset nvlink)");
    REQUIRE(app.compare.sessions.size() == 3);
    for (const auto& s : app.compare.sessions) {
      REQUIRE(s);
      CHECK(s->prediction().source == "predicted (preset nvlink)");
    }
    // The tree column's card and the check agree: 8.055 µs on nvlink.
    CHECK(app.compare.sessions[1]->schedule().spec.algorithm == "tree");
    CHECK(app.compare.sessions[1]->prediction().total_us == doctest::Approx(8.055).epsilon(1e-3));
  }

  TEST_CASE("a beat's preset is set as 'predict with' would, and given back on leaving unless the viewer picked one") {
    Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::parse_lesson(kPresetLesson, "presets.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    h.frame(app);
    LessonView& l = *app.lesson;
    CHECK(app.vs.source_follows_nodes);
    CHECK(app.vs.source.kind == PredictionSource::Kind::profile);

    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 1);
    CHECK_FALSE(app.vs.source_follows_nodes);
    CHECK(app.vs.source.kind == PredictionSource::Kind::preset);
    CHECK(app.vs.source.preset == "infiniband");
    CHECK(app.session.prediction().source == "predicted (preset infiniband)");
    CHECK(app.compare.sessions.at(0)->prediction().source == "predicted (preset infiniband)");

    h.press(app, Key::prev_beat);  // leaving: the source follows the run again
    REQUIRE(l.beat() == 0);
    CHECK(app.vs.source_follows_nodes);
    CHECK(app.vs.source.kind == PredictionSource::Kind::profile);
    CHECK(app.session.source().kind == PredictionSource::Kind::profile);

    h.press(app, Key::next_beat);
    REQUIRE(app.vs.source.preset == "infiniband");
    app.vs.source.preset = "nvlink";  // the viewer picks another source on the beat
    h.frame(app);
    h.press(app, Key::next_beat);  // it stays
    REQUIRE(l.beat() == 2);
    CHECK_FALSE(app.vs.source_follows_nodes);
    CHECK(app.vs.source.kind == PredictionSource::Kind::preset);
    CHECK(app.vs.source.preset == "nvlink");
    CHECK(app.session.prediction().source == "predicted (preset nvlink)");
  }

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
    CHECK(position_text(0, 2) == "before step 0 · 0 of 2 steps run");
    CHECK(position_text(1, 2) == "after step 0 · 1 of 2 steps run");
    CHECK(position_text(2, 2) == "after step 1 · 2 of 2 steps run");
    CHECK(position_text(5, 2) == "after step 1 · 2 of 2 steps run");
    CHECK(position_text(0, 0) == "no steps");
    // Lesson 02 beat 2 (after step 0): the topology title says "step 0 (1st of 2)".
    Headless h;
    App app;
    open(app, "02-ring-double-buffering.yaml");
    h.frame(app);
    app.lesson->go(1);
    h.frame(app);
    REQUIRE(app.session.position() == 1);
    const TopologyScene sc = build_topology(app.session, app.session.position(), Vec2{400, 300}, 1, nullptr);
    CHECK(sc.caption.rfind("step 0 (1st of 2) · phase ", 0) == 0);
    CHECK(position_text(app.session.position(), app.session.num_steps()) == "after step 0 · 1 of 2 steps run");
    app.session.seek(0);  // before any step: the title names the next one
    const TopologyScene before = build_topology(app.session, 0, Vec2{400, 300}, 1, nullptr);
    CHECK(before.caption.rfind("next: step 0 (1st of 2) · phase ", 0) == 0);
    CHECK(position_text(0, app.session.num_steps()) == "before step 0 · 0 of 2 steps run");
  }
}
