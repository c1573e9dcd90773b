// The DDP view of a ddp beat whose measured times a check claims
// something about (lesson_sync.cpp show_picture): once the checks are
// done, it draws the median one of the runs they made, at that run's
// iteration nearest its figure, and the note is the caption saying where
// the run stands (core/labs/lesson/picture_runs.h). A beat with an open
// question holds the caption back until it is answered. Tiny runs (2
// ranks, 16 x 16): which run is drawn is exact whatever the machine's load.
#include <doctest/doctest.h>

#include <memory>

#include "app/headless.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const char* kLesson = R"(title: picture
ddp: {ranks: 2, depth: 2, width: 16, batch: 4, iterations: 2, algorithm: ring}
beats:
  - kind: ddp
    name: few
    ddp: {overlap: none}
    text: one call
    checks:
      - {check: allreduce_calls, equals: 1}
  - kind: ddp
    ddp: {overlap: per_param}
    text: four calls
    checks:
      - {check: comm_ms, greater_than: {run: few}}
  - kind: ddp
    text: asked
    question:
      ask: "How many calls?"
      answer: 4
    checks:
      - {check: comm_ms, greater_than: {run: few}}
)";

// Frames until the view shows the beat's picture (the checks, then the
// view's own run, waited for as the slide export waits).
void settle(test::Headless& h, App& app) {
  app.lesson->wait_checks();
  for (int i = 0; i < 4; ++i) {
    app.ddp.runner.wait();
    h.frame(app);
  }
}

void check_median_drawn(const App& app) {
  const lesson::PictureRuns* p = app.lesson->picture();
  REQUIRE(p != nullptr);
  REQUIRE(!p->figures.empty());
  CHECK(p->shown == lesson::timing::median_run(p->figures));
  CHECK(app.ddp.runner.result() == p->run);  // the very run, not a rerun
  CHECK(lesson::run_figure(p->rule.figure, *app.ddp.runner.result()) == p->figures[p->shown]);
  CHECK(app.ddp.iteration == p->iteration);
  CHECK(app.ddp.runner.result_params() == app.ddp.edit);
}

}  // namespace

TEST_SUITE("ddp_picture") {
  TEST_CASE("the DDP view draws the median of the check's runs, and the note says where it stands") {
    test::Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::parse_lesson(kLesson, "picture.yaml"));
    app.vs.view = View::ddp;
    h.frame(app);
    settle(h, app);
    LessonView& l = *app.lesson;
    // Beat 1: 5 runs made for the picture (beat 2 compares with it).
    check_median_drawn(app);
    CHECK(l.picture()->figures.size() == lesson::kPictureRuns);
    CHECK(app.vs.lesson_note == lesson::picture_caption(*l.picture()));
    CHECK(app.vs.lesson_note.rfind("the picture: the median of 5 runs of this beat (comm per iteration): this run ", 0) == 0);
    CHECK(app.vs.lesson_note.find("; beat 2 compares this figure on runs of its own") != std::string::npos);
    const lesson::PictureRuns* beat1 = l.picture();

    // Beat 2: the check's own runs, 5 or 10 of each side.
    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 1);
    settle(h, app);
    check_median_drawn(app);
    const size_t n = l.picture()->figures.size();
    CHECK((n == 5 || n == 10));
    CHECK(app.vs.lesson_note == lesson::picture_caption(*l.picture()));
    const auto* rs = l.results();
    REQUIRE(rs != nullptr);
    REQUIRE(rs->size() == 1);
    // The caption's verdict is the check's.
    const bool not_shown = app.vs.lesson_note.rfind("not shown on this run: ", 0) == 0;
    CHECK(not_shown == rs->front().not_shown);

    // Beat 3: the question is open, so the caption waits with the checks.
    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 2);
    settle(h, app);
    check_median_drawn(app);
    const std::string caption = lesson::picture_caption(*l.picture());
    CHECK(app.vs.lesson_note != caption);
    CHECK(l.held_note == caption);
    l.submit("4");
    h.frame(app);
    CHECK(app.vs.lesson_note == caption);

    // Back to beat 1: the same run again, not a new one.
    h.press(app, Key::prev_beat);
    h.press(app, Key::prev_beat);
    REQUIRE(l.beat() == 0);
    settle(h, app);
    check_median_drawn(app);
    CHECK(l.picture() == beat1);
  }
}
