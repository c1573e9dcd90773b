// The window at projector sizes with --present: no controls and its keys
// step (in the DDP view and lesson 10's FSDP beat too, their lanes a line of
// text tall; at 36 and 40 px and in 640x480 the lanes keep 1.25 lines and the
// texts above shrink); the compare view and a lesson under --present.
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
  TEST_CASE("--present in the DDP and FSDP views at 18 and 28 px: no controls, the timeline's lanes a line of text tall") {
    for (const float px : {18.f, 28.f}) {
      // The DDP view alone: the header, stats, legend and timeline take the window.
      {
        INFO("DDP at ", px, " px");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.present = true;
        app.vs.view = View::ddp;
        ddp::Options& o = app.ddp.edit.run;
        o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
        h.frame(app);  // requests the run: present mode still trains what the options say
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        const DdpDrawn& d = app.ddp.drawn;
        CHECK_FALSE(d.controls);
        CHECK_FALSE(d.bucket_controls);
        CHECK(app.vs.controls_drawn.empty());
        const auto* view = panel(app, "ddp");
        REQUIRE(view != nullptr);
        CHECK(show(view->r) == "(8, 8) 1264 x 704");
        const DdpBoxes boxes = check_ddp_boxes(d, view->r);
        const Rect &legend = boxes.legend, &timeline = boxes.timeline;
        INFO("legend ", show(legend), ", timeline ", show(timeline), ", lane ", d.lane_h);
        // Header, stats and legend take at most 5 lines: the rest is the timeline's.
        CHECK(legend.bottom() <= 8 + 5 * (px + 8));
        CHECK(d.lane_h >= px);
        CHECK(d.note);  // room for the note under the axis
        check_nothing_runs_off();
      }
      // Lesson 10's beat 4 (FSDP with prefetch): the timeline above, the
      // beat's text below, as the layout says.
      {
        INFO("FSDP at ", px, " px");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.present = true;
        app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
        app.lesson->go(3);
        h.frame(app);  // lesson_sync: the DDP view, the beat's sharded run requested
        REQUIRE(app.vs.view == View::ddp);
        REQUIRE(app.ddp.edit.run.sharded);
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        const DdpDrawn& d = app.ddp.drawn;
        CHECK_FALSE(d.controls);
        CHECK(d.header.rfind("FSDP, 4 ranks", 0) == 0);
        CHECK(d.legend.size() == 6);
        const auto* view = panel(app, "ddp");
        const auto* lesson = panel(app, "lesson");
        REQUIRE(view != nullptr);
        REQUIRE(lesson != nullptr);
        // At 28 px the beat's text needs more than the slide: the view
        // gives way to its least height, 344 px (the lanes a line tall,
        // 206, the comm label row, 34, and the header, stats and legend at
        // ddp_text_px, 20 px, on four lines with the window's 6 px
        // ItemSpacing, 104, as panel_ddp.cpp measures them: layout.cpp; at
        // 14 px they took three lines, 60), the text goes on over a
        // continuation page (never shrunk, present.h); it kept 432 before. At 18 px the text needs 240 px (216 and a line pointing
        // to the FSDP picture's "How to read it" paragraph, which has no
        // room above) and the view takes the rest.
        CHECK(show(view->r) == (px == 18 ? "(8, 8) 1264 x 458" : "(8, 8) 1264 x 344"));
        CHECK(show(lesson->r) == (px == 18 ? "(8, 472) 1264 x 240" : "(8, 358) 1264 x 354"));
        CHECK(app.vs.ddp_note_shown == false);
        CHECK_FALSE(app.vs.lesson_clipped);
        const Rect timeline = check_ddp_boxes(d, view->r).timeline;
        INFO("timeline ", show(timeline), ", lane ", d.lane_h);
        // 4 rank lanes and the comm lane, each at least a line of text
        // tall: every lane's label and the bars' "L3" are drawn.
        CHECK(d.lane_h >= px);
        CHECK(timeline.h >= 5 * px);
        CHECK(d.note == (px == 18.f));  // at 28 px the note gives way to the lanes
        check_all_inside(app);
        check_nothing_runs_off();
        // Esc: the controls return above the timeline, which shrinks at 18
        // px; at 28 px the view no longer gives way to the slide's text
        // (--present only): its lanes keep at least their line of text
        // below the controls (they grew from exactly one line while the
        // texts above sat at 14 px).
        const float present_lane = d.lane_h;
        h.press(app, Key::escape);
        CHECK(d.controls);
        if (px == 18.f) CHECK(d.lane_h < present_lane);
        else CHECK(d.lane_h >= px);
        app.lesson->wait_checks();
      }
    }
  }

  TEST_CASE("compute_layout, DDP view above a lesson: large text takes the lanes' least height and three lines, the lesson keeps four") {
    // 5 lanes (4 ranks and comm) of 1.25 lines, 4 gaps of a quarter line,
    // the axis (a line, 6 and 4 px).
    CHECK(ddp_timeline_min_height(5, 40) == doctest::Approx(5 * 50 + 4 * 10 + 40 + 10));
    CHECK(ddp_timeline_min_height(5, 18) == doctest::Approx(5 * 22.5 + 4 * 4.5 + 18 + 10));
    CHECK(ddp_timeline_min_height(0, 18) == 0);
    LayoutInput in;
    in.view = View::ddp;
    in.lesson = in.present = true;
    in.ddp_lanes = 5;
    // --present at 36 px and up: the lesson keeps six lines (its title, four
    // lines of text, the "continued" band; layout.h kDdpPresentLessonLines).
    // 36 px: 696 - (6 x 44 + 16) = 416 above (307 + 3 x 44 = 439 wanted).
    in.font_px = 36;
    viz::Layout L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 416");
    CHECK(show(L.side) == "(8, 432) 1264 x 280");
    // 40 px: 696 - (6 x 48 + 16) = 392 (340 + 3 x 48 = 484 wanted).
    in.font_px = 40;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 392");
    CHECK(show(L.side) == "(8, 408) 1264 x 304");
    // 17 lanes at 40 px do not fit: the lesson still keeps its 304 px.
    in.ddp_lanes = 17;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 392");
    // Without --present the lesson keeps its header and two lines (4 x 48 + 16).
    in.present = false;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 1264 x 488");
    in.present = true;
    // 640x480 at 18 px: 164.5 + 3 x 26 < 62% of 456: the split stays.
    in.ddp_lanes = 5;
    in.font_px = 18;
    in.width = 640, in.height = 480;
    L = compute_layout(in);
    CHECK(show(L.ddp) == "(8, 8) 624 x 282");
    CHECK(show(L.side) == "(8, 298) 624 x 174");
  }

  TEST_CASE("--present at 36 and 40 px (1280x720) and at 640x480 (18 px), DDP and FSDP: the lanes keep their least height, inside the window") {
    struct Size {
      float w, h, px;
    };
    for (const Size sz : {Size{1280, 720, 36}, Size{1280, 720, 40}, Size{640, 480, 18}})
      for (const bool fsdp : {false, true}) {
        INFO(sz.w, "x", sz.h, " at ", sz.px, " px, ", std::string(fsdp ? "FSDP (lesson 10 beat 4)" : "DDP"));
        Sized h(sz.px);
        ImGui::GetIO().DisplaySize = ImVec2(sz.w, sz.h);
        App app;
        app.vs.font_px = sz.px;
        app.vs.present = true;
        if (fsdp) {
          app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
          app.lesson->go(3);
        } else {
          app.vs.view = View::ddp;
          ddp::Options& o = app.ddp.edit.run;
          o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
        }
        h.frame(app);  // requests the run
        REQUIRE(app.vs.view == View::ddp);
        app.ddp.runner.wait();
        frames(h, app);
        REQUIRE(app.ddp.runner.result() != nullptr);
        REQUIRE(app.ddp.runner.result()->options.ranks == 4);
        const DdpDrawn& d = app.ddp.drawn;
        const Rect window{0, 0, sz.w, sz.h};
        const auto* view = panel(app, "ddp");
        REQUIRE(view != nullptr);
        CHECK(view->r.inside(window));
        const Rect timeline = check_ddp_boxes(d, view->r).timeline;
        INFO("view ", show(view->r), ", timeline ", show(timeline), ", lane ", d.lane_h, ", text scale ", d.text_scale,
             std::string(d.text_clipped ? " (cut off)" : ""));
        CHECK(timeline.inside(window));
        // A comm label row under the lanes takes up to a quarter line of
        // each, and above a lesson at 36-40 px the lanes give way to one
        // line before the texts above are cut (panel_ddp.cpp).
        const bool strip = d.strip_box[3] > d.strip_box[1];
        CHECK(d.lane_h >= (strip || fsdp ? 1.f : kDdpMinLaneLines) * sz.px - 0.5f);
        // 4 rank lanes and the comm lane, their gaps and the axis.
        CHECK(timeline.h >= ddp_timeline_height(5, sz.px, fsdp ? 1.f : kDdpMinLaneLines) - 4 - 0.5f);
        // The texts above gave way (the DDP view alone has room: 1 x), no
        // smaller than 14 px, and they fit whole.
        CHECK(d.text_scale * sz.px >= kDdpMinTextPx - 0.01f);
        CHECK(d.text_scale <= 1.f);
        if (!fsdp) CHECK(d.text_scale == 1.f);
        CHECK_FALSE(d.text_clipped);
        if (fsdp) {
          const auto* lesson = panel(app, "lesson");
          REQUIRE(lesson != nullptr);
          CHECK(lesson->r.inside(window));
          CHECK(view->r.bottom() < lesson->r.y);
        }
        app.ddp.runner.wait();
        if (app.lesson) app.lesson->wait_checks();
      }
  }

  TEST_CASE("--present: no controls, the view takes the window; clicker keys step, Esc leaves") {
    std::vector<std::string> args = {"microddp-viz", "--present", "--algorithm", "ring_unchunked",
                                     "--data", "1,2,3;4,5,6;7,8,9"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    Options o;
    REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
    CHECK(o.present);
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    apply_options(app, o);
    CHECK(app.vs.present);
    h.frame(app);
    CHECK(app.vs.controls_drawn.empty());
    REQUIRE(panel(app, "topology") != nullptr);
    CHECK(panel(app, "topology")->r.y == doctest::Approx(8));
    check_all_inside(app);
    CHECK(app.session.position() == 0);
    h.press(app, Key::page_down);
    CHECK(app.session.position() == 1);
    h.press(app, Key::page_up);
    CHECK(app.session.position() == 0);
    h.press(app, Key::play);  // Space steps in present mode (it plays outside it)
    CHECK(app.session.position() == 1);
    CHECK_FALSE(app.vs.playing);
    h.press(app, Key::step);
    CHECK(app.session.position() == 2);
    h.press(app, Key::back);
    CHECK(app.session.position() == 1);
    h.press(app, Key::home);
    CHECK(app.session.position() == 0);
    CHECK(app.vs.controls_drawn.empty());
    h.press(app, Key::escape);
    CHECK_FALSE(app.vs.present);
    CHECK_FALSE(app.vs.controls_drawn.empty());
    h.press(app, Key::present);  // F5 enters it again
    CHECK(app.vs.present);
    CHECK(app.vs.controls_drawn.empty());
  }

  TEST_CASE("--present in the compare view: no algorithm boxes, no sweep size, no Measure button") {
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.edit = seed_ring();
    app.vs.view = View::compare;
    frames(h, app, 2);
    const auto compare_controls = [&] {
      return std::count_if(app.vs.controls_drawn.begin(), app.vs.controls_drawn.end(),
                           [](const auto& d) { return starts_with(d.what, "compare "); });
    };
    CHECK(compare_controls() > 0);
    app.vs.present = true;
    frames(h, app, 2);
    CHECK(compare_controls() == 0);
    CHECK(app.vs.controls_drawn.empty());
    REQUIRE(app.compare.sessions.size() >= 2);  // the columns are still there
    app.vs.present = false;
    frames(h, app, 2);
    CHECK(compare_controls() > 0);
  }

  TEST_CASE("--present with a lesson: Page Down / Page Up move between beats, Home goes to the first") {
    Sized h(18);
    App app;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
    app.vs.edit = beat_target(app.lesson->current()).params;
    h.frame(app);
    CHECK(app.lesson->beat() == 0);
    h.press(app, Key::page_down);
    CHECK(app.lesson->beat() == 1);
    h.press(app, Key::play);
    CHECK(app.lesson->beat() == 2);
    h.press(app, Key::page_up);
    CHECK(app.lesson->beat() == 1);
    h.press(app, Key::home);
    CHECK(app.lesson->beat() == 0);
    CHECK(app.vs.controls_drawn.empty());
  }
}
