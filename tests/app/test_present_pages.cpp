// The slides the lecturer's second review named (issue 37), in the window's
// own frames at 1280x720 (FontWindow, DejaVu Sans as --export-frames draws
// it): no text below 14 px (the topology's own chips aside: scene_topology
// is checked by its own tests), the lesson text at the --font-px, and
// every word of the beat's text, its answer and explanation drawn, on the
// slide or on its continuation pages (Page Down turns them before the next
// beat). Answer slides as --reveal shows them. Since lecturer pass 4 the
// lesson text is drawn at the font's own size (never shrunk: the picture
// gives way, then continuation pages). These fail on main at
// c3a3562 (text shrunk to 14 px at 28, the last words of lesson 07 beat 6
// cut, the buffers' labels at 11 px).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/keys.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";
constexpr float kMin = 14 - 0.01f;

struct Slide {
  const char* lesson;
  int beat;         // 1-based
  float px;         // --font-px
  bool answer;      // the answer slide (--reveal)
};

// The ASCII letters the last frame drew (spaces are no glyphs), and the smallest glyph outside the topology.
struct Drawn {
  std::string letters;
  float min_px = 1e9f, min_lesson_px = 1e9f;
  std::string where;
};
Drawn drawn() {
  Drawn d;
  for (const auto& g : test::drawn_glyphs()) {
    if (g.codepoint < 128) d.letters += char(g.codepoint);
    if (g.list.find("/topology_") != std::string::npos) continue;
    if (g.list.find("/beat_text_") != std::string::npos) d.min_lesson_px = std::min(d.min_lesson_px, g.px);
    if (g.px < d.min_px) {
      d.min_px = g.px;
      d.where = fmt::format("'{}' at ({:.0f}, {:.0f}) in {}", g.codepoint < 128 ? char(g.codepoint) : '?', g.x, g.y,
                            g.list);
    }
  }
  return d;
}

// The words of a lesson text, markup and non-ASCII characters left out.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string w;
  while (in >> w) {
    std::string a;
    for (char c : w)
      if (static_cast<unsigned char>(c) < 128 && c != '*' && c != '`') a += c;
    if (!a.empty()) out.push_back(a);
  }
  return out;
}

// The first word of `want` not found in `seen` in order ("" when all are).
std::string missing_word(const std::vector<std::string>& want, const std::string& seen) {
  size_t at = 0;
  for (const std::string& w : want) {
    const size_t f = seen.find(w, at);
    if (f == std::string::npos) return w;
    at = f + w.size();
  }
  return "";
}

void press(test::FontWindow& w, App& app, Key k) {
  ImGui::GetIO().KeysDown[static_cast<int>(k)] = true;
  w.frame(app);
  ImGui::GetIO().KeysDown[static_cast<int>(k)] = false;
  w.settle(app);
}

void check_slide(const Slide& s) {
  test::FontWindow w(s.px);
  App app;
  test::present_at(app, kLessons + "/" + s.lesson, s.beat - 1, s.px, s.answer);
  w.settle(app);
  app.ddp.runner.wait();
  app.lesson->wait_checks();
  w.settle(app);
  const lesson::Beat& beat = app.lesson->current();
  std::vector<std::string> want = words(beat.text);
  if (s.answer && beat.question)
    for (const std::string& x : words(app.lesson->right_answer() + " " + beat.question->explain)) want.push_back(x);
  // The checks' line, folded on a slide ("✓ 4 checks pass"), when they ran.
  if (s.answer && !beat.checks.empty() && !std::getenv("MICRODDP_VIZ_SKIP_CHECKS")) want.push_back("checkspass");
  std::string seen;
  int pages = 0;
  for (; pages < 6 && app.lesson->beat() == s.beat - 1; ++pages) {
    const Drawn d = drawn();
    INFO(std::string(s.lesson), " beat ", s.beat, s.answer ? " (answer)" : "", " at ", s.px, " px, page ", pages + 1, ": smallest ",
         d.min_px, " px, ", d.where);
    CHECK(d.min_px >= kMin);
    // The font's own size: the text gets room or pages, never smaller type,
    // but to save a last page of one or two lines (7/8 of it at least, slides8).
    CHECK(d.min_lesson_px >= lesson_tail_px(s.px) - 0.01f);
    seen += d.letters;
    press(w, app, Key::page_down);
  }
  INFO(std::string(s.lesson), " beat ", s.beat, s.answer ? " (answer)" : "", " at ", s.px, " px, over ", pages, " page(s): ", seen);
  CHECK(missing_word(want, seen) == "");
}

}  // namespace

TEST_SUITE("present_pages") {
  TEST_CASE("--present --font-px 28: lesson 03's compare beats and lesson 09's topology beats keep 21 px text, all of it shown") {
    const test::SkipLessonChecks skip;
    for (const Slide s : {Slide{"03-naive-tree-ring.yaml", 4, 28, false}, Slide{"03-naive-tree-ring.yaml", 10, 28, false},
                          Slide{"09-topology.yaml", 2, 28, false}, Slide{"09-topology.yaml", 4, 28, false},
                          Slide{"09-topology.yaml", 16, 28, false}})
      check_slide(s);
  }

  TEST_CASE("--present at 18 px: the answer slides of lessons 05, 07, 08, 10 (their checks run) and lesson 07's long beats show every word at 18 px") {
    for (const Slide s : {Slide{"05-alpha-beta.yaml", 7, 18, true}, Slide{"07-bucketing-overlap.yaml", 7, 18, true},
                          Slide{"07-bucketing-overlap.yaml", 5, 18, true}, Slide{"08-hunt-the-hang.yaml", 2, 18, true},
                          Slide{"10-fsdp-prefetch.yaml", 5, 18, true}})
      check_slide(s);
    const test::SkipLessonChecks skip;  // from here on
    for (const Slide s : {Slide{"10-fsdp-prefetch.yaml", 2, 18, false}, Slide{"07-bucketing-overlap.yaml", 6, 18, false},
                          Slide{"07-bucketing-overlap.yaml", 8, 18, false}})
      check_slide(s);
  }

  TEST_CASE("lesson 09 beat 2 at --font-px 28: the buffers panel shows its rows (R0 to R7), not only its legend") {
    const test::SkipLessonChecks skip;
    test::FontWindow w(28);
    App app;
    test::present_at(app, kLessons + "/09-topology.yaml", 1, 28);
    w.settle(app);
    std::string buffers;
    for (const auto& g : test::drawn_glyphs())
      if (g.list.find("/buffers_") != std::string::npos && g.codepoint < 128) buffers += char(g.codepoint);
    INFO(buffers);
    for (int r = 0; r < 8; ++r) CHECK(buffers.find(fmt::format("R{}", r)) != std::string::npos);
  }

  TEST_CASE("lesson 07 beat 7's answer at 18 px: the DDP picture's 'How to read it' paragraph whole, or left out with a pointer; never cut") {
    test::FontWindow w(18);
    App app;
    test::present_at(app, kLessons + "/07-bucketing-overlap.yaml", 6, 18, true);
    w.settle(app);
    app.ddp.runner.wait();
    app.lesson->wait_checks();
    w.settle(app);
    std::string ddp, all;
    for (const auto& g : test::drawn_glyphs())
      if (g.codepoint < 128) {
        all += char(g.codepoint);
        if (g.list.find("/ddp_") != std::string::npos) ddp += char(g.codepoint);
      }
    const std::vector<std::string> para = words(
        "How to read it: backward produces gradients from the last layer to the first. A bucket is full (triangle) once "
        "all its gradients are ready; it is posted in bucket order, and when every rank has posted it the communication "
        "thread all-reduces it while backward continues. A rank that finished backward waits (shaded) for its last "
        "result: waited. The part of that wait while an all-reduce ran is exposed communication (at most comm); the "
        "rest is waiting for a slower rank to post and for the hand-off. overlap = 1 - exposed / comm.");
    INFO("the DDP view drew: ", ddp);
    if (app.vs.ddp_note_shown) {
      CHECK(missing_word(para, ddp) == "");
    } else {
      CHECK(ddp.find("Howtoreadit") == std::string::npos);  // none of it: not a cut paragraph
      // The pointer, on this page of the lesson's text or a later one.
      std::string seen = all;
      for (int i = 0; i < 4 && app.lesson->beat() == 6; ++i) {
        press(w, app, Key::page_down);
        for (const auto& g : test::drawn_glyphs())
          if (g.codepoint < 128) seen += char(g.codepoint);
      }
      CHECK(missing_word(words(kDdpNotePointer), seen) == "");
    }
  }

  TEST_CASE("lesson 07 b5's answer at 18 px: the explanation's last line stays on page 1 when it fits there") {
    // Lecturer pass 6: page 2 held only "size." above the checks, while
    // page 1 had room for that line: the gap before the checks reached into
    // the "continued" band. (Lesson 09 b7's "from 1 MiB." does not fit
    // above the band: test_present_tail.cpp keeps it off a page of its own.)
    struct Case {
      const char* lesson;
      int beat;
    };
    for (const Case c : {Case{"07-bucketing-overlap.yaml", 5}}) {
      test::FontWindow w(18);
      App app;
      test::present_at(app, kLessons + "/" + c.lesson, c.beat - 1, 18, true);
      w.settle(app);
      app.ddp.runner.wait();
      app.lesson->wait_checks();
      w.settle(app);
      REQUIRE(app.lesson->current().question);
      std::string page1;
      for (const auto& g : test::drawn_glyphs())
        if (g.codepoint < 128) page1 += char(g.codepoint);
      INFO(c.lesson, " beat ", c.beat, " answer, ", app.presenter.pages, " page(s); page 1: ", page1);
      CHECK(missing_word(words(app.lesson->current().question->explain), page1) == "");
      CHECK(app.presenter.pages <= 2);
    }
  }

  TEST_CASE("lesson 07, every beat at 18 and 28 px: the DDP picture's 'How to read it' paragraph whole or absent") {
    // Lecturer pass 6: beats 6 and 7 (question slides) at 18 px cut it
    // after "for a slower rank to post and for the".
    const test::SkipLessonChecks skip;
    const std::vector<std::string> para = words(
        "How to read it: backward produces gradients from the last layer to the first. A bucket is full (triangle) once "
        "all its gradients are ready; it is posted in bucket order, and when every rank has posted it the communication "
        "thread all-reduces it while backward continues. A rank that finished backward waits (shaded) for its last "
        "result: waited. The part of that wait while an all-reduce ran is exposed communication (at most comm); the "
        "rest is waiting for a slower rank to post and for the hand-off. overlap = 1 - exposed / comm.");
    for (const float px : {18.f, 28.f}) {
      test::FontWindow w(px);
      App app;
      test::present_at(app, kLessons + "/07-bucketing-overlap.yaml", 0, px);
      const int beats = static_cast<int>(app.lesson->lesson().beats.size());
      CHECK(beats == 8);
      for (int b = 0; b < beats; ++b) {
        app.lesson->go(b);
        w.settle(app);
        app.ddp.runner.wait();
        w.settle(app);
        std::string ddp;
        for (const auto& g : test::drawn_glyphs())
          if (g.codepoint < 128 && g.list.find("/ddp_") != std::string::npos) ddp += char(g.codepoint);
        INFO("beat ", b + 1, " at ", px, " px, the DDP view drew: ", ddp);
        if (ddp.find("Howtoreadit") != std::string::npos) CHECK(missing_word(para, ddp) == "");
      }
    }
  }

  TEST_CASE("lesson 07 beat 5 at --font-px 28: each of the question's choices whole on one page") {
    // Lecturer pass 6: choice 1 ran over pages 1-2, choice 3 stood alone on page 3.
    const test::SkipLessonChecks skip;
    test::FontWindow w(28);
    App app;
    test::present_at(app, kLessons + "/07-bucketing-overlap.yaml", 4, 28);
    w.settle(app);
    app.ddp.runner.wait();
    w.settle(app);
    REQUIRE(app.lesson->current().question);
    const std::vector<std::string> choices = app.lesson->current().question->choices;
    REQUIRE(choices.size() == 3);
    std::vector<std::string> pages;
    for (int k = 0; k < 8 && app.lesson->beat() == 4; ++k) {
      std::string letters;
      for (const auto& g : test::drawn_glyphs())
        if (g.codepoint < 128) letters += char(g.codepoint);
      pages.push_back(letters);
      press(w, app, Key::page_down);
    }
    for (size_t c = 0; c < choices.size(); ++c) {
      const std::vector<std::string> want = words(fmt::format("{}) {}", c + 1, choices[c]));
      bool whole = false;
      for (const std::string& p : pages) whole = whole || missing_word(want, p) == "";
      INFO("choice ", c + 1, " over ", pages.size(), " page(s)");
      CHECK(whole);
    }
  }
}
