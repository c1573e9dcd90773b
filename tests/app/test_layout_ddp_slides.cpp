// The DDP view on slides (issue 37): at --font-px 28 the view gives way
// down to its least height, the comm label row and the header counted, so
// lesson 07's beats take at most 2 pages each (they took 3-5) while lesson
// 10's FSDP beats keep every comm label whole (a first give-way, reverted
// in 0bcbdec, took the label row: 5 of 12 labels lost); at 40 px lesson 10
// b5's labels stay inside the plot and its text gets three lines a page
// under a two-line title (it got one).
// Pages counted as present_pages counts them: Page Down until the beat
// changes.
#include <doctest/doctest.h>
#include <imgui.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "app/text_sizes.h"
#include "app/viz/present.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using microddp::viz::test::panel;
using microddp::viz::test::show;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

void press(test::FontWindow& w, App& app, Key k) {
  ImGui::GetIO().KeysDown[static_cast<int>(k)] = true;
  w.frame(app);
  ImGui::GetIO().KeysDown[static_cast<int>(k)] = false;
  w.settle(app);
}

void open_beat(test::FontWindow& w, App& app, int beat) {
  app.lesson->go(beat - 1);
  w.settle(app);
  app.ddp.runner.wait();
  w.settle(app);
}

// The lines of beat text the last frame drew (both columns: rows by their top).
int text_lines() {
  std::set<int> rows;
  for (const auto& g : test::drawn_glyphs())
    if (g.list.find("/beat_text_") != std::string::npos) rows.insert(int(std::lround(g.line_top)));
  return int(rows.size());
}

struct SkipChecks {  // the pictures are tested, not the beats' checks
  SkipChecks() { ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipChecks() { ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
};

}  // namespace

TEST_SUITE("layout") {
  TEST_CASE("compute_layout at 28 px: the DDP view gives way to its least height (lanes, label row, three lines) or half the body") {
    LayoutInput in;
    in.view = View::ddp;
    in.lesson = in.present = true;
    in.ddp_lanes = 5;
    in.font_px = 28;
    in.lesson_want_h = 600;  // more than the slide has: continuation pages
    // 206 (5 lanes of a line, 28 px, 4 gaps of 7, the axis 38) + 34 (the
    // label row) + 3 x (20 + 8) (the texts above at ddp_text_px, 20 px).
    CHECK(ddp_view_min_height(5, 28, 8) == doctest::Approx(324));
    viz::Layout L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 324");
    CHECK(show(L.side) == "(8, 340) 1264 x 372");
    // A text that fits below the usual split leaves the view its height.
    in.lesson_want_h = 200;
    L = compute_layout(in);
    CHECK(L.ddp.h > 324);
    // 40 px: the view's least height, 290 + 34 + 3 x (28.6 + 8), is more
    // than the lesson's six lines leave (696 - 6 x 48 - 16): the texts above
    // shrink to what is left (panel_ddp.cpp).
    in.font_px = 40;
    in.lesson_want_h = 600;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 392");
    CHECK(show(L.side) == "(8, 408) 1264 x 304");
    // The label row's text stops at 28 px.
    CHECK(ddp_label_row_height(18) == 24);
    CHECK(ddp_label_row_height(40) == 34);
    CHECK(ddp_timeline_height(5, 40, 1) == doctest::Approx(5 * 40 + 4 * 10 + 50));
  }

  TEST_CASE("lesson 07 at --present --font-px 28: each beat over at most 2 pages") {
    SkipChecks skip;
    test::FontWindow w(28);
    App app;
    app.vs.font_px = 28;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/07-bucketing-overlap.yaml"));
    const int beats = static_cast<int>(app.lesson->lesson().beats.size());
    REQUIRE(beats == 8);
    for (int b = 1; b <= beats; ++b) {
      open_beat(w, app, b);
      const float view_h = panel(app, "ddp") ? panel(app, "ddp")->r.h : -1;
      // (The last beat's last page: Page Down stays on it.)
      int pages = 1;
      while (pages < 6) {
        const int page = app.presenter.page;
        press(w, app, Key::page_down);
        if (app.lesson->beat() != b - 1 || app.presenter.page == page) break;
        ++pages;
      }
      INFO("beat ", b, " over ", pages, " page(s) (", app.presenter.pages, " counted), the DDP view ", view_h, " px tall");
      CHECK(pages <= 2);
    }
    app.ddp.runner.wait();
  }

  TEST_CASE("lesson 10 b5 at --present --font-px 40: every comm label drawn inside the plot, three lines of text a page or more") {
    SkipChecks skip;
    test::FontWindow w(40);
    App app;
    app.vs.font_px = 40;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/10-fsdp-prefetch.yaml"));
    open_beat(w, app, 5);
    REQUIRE(app.vs.view == View::ddp);
    REQUIRE(app.ddp.runner.result() != nullptr);
    const DdpDrawn& d = app.ddp.drawn;
    const Rect plot{d.timeline_box[0], d.timeline_box[1], d.timeline_box[2] - d.timeline_box[0],
                    d.timeline_box[3] - d.timeline_box[1]};
    const Rect win{0, 0, 1280, 720};
    CHECK(d.comm_labels.size() + size_t(d.labels_left_out) == 12u);
    for (const auto& l : d.comm_labels) {
      const Rect a{l.box[0], l.box[1], l.box[2] - l.box[0], l.box[3] - l.box[1]};
      INFO(l.text, " at (", a.x, ", ", a.y, ") ", a.w, " x ", a.h, ", plot ", show(plot));
      CHECK(a.inside(plot));
      CHECK(a.inside(win));
      CHECK(a.h >= 14);
    }
    // The lanes a line of text tall at least; the texts above not cut.
    CHECK(d.lane_h >= 40 - 0.5f);
    CHECK_FALSE(d.text_clipped);
    REQUIRE(panel(app, "lesson") != nullptr);
    INFO("lesson panel ", show(panel(app, "lesson")->r), ", ", app.presenter.pages, " page(s)");
    // Three lines of text a page under the beat's title, which wraps over
    // two lines at 40 px (four under a one-line title; main drew one).
    CHECK(text_lines() >= 3);
    app.ddp.runner.wait();
  }
}
