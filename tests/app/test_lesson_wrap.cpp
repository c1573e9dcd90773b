// A beat's text laid out in lines (lesson_text.h wrap_runs, lesson_view.h
// wrap_words) and a slide's page breaks (present.h page_keep_next): an
// opening bracket stays with the code span it opens (lesson 12 beat 6), an
// explanation's `code` is a code run (lesson 09 beat 7), a word wider than
// the column breaks after an '_' (the checks' skip line at 28 px), and a
// heading never ends a page (lesson 07 beat 5 at --font-px 28).
#include <doctest/doctest.h>
#include <imgui.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/lesson_text.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/clipped_glyphs.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

// Every character 1 unit wide, a space 1 unit.
float chars(std::string_view s) { return static_cast<float>(s.size()); }

std::vector<std::string> texts(const RunLine& l) {
  std::vector<std::string> out;
  for (const RunPiece& p : l.pieces) out.push_back(p.text);
  return out;
}

}  // namespace

TEST_SUITE("lesson_text") {
  TEST_CASE("wrap_runs: an opening bracket stays with the code span it opens, the closing ')' with the span's end") {
    const auto runs = text_runs("row by row (`microddp predict --against FILE`; every table");
    REQUIRE(runs.size() == 3);
    CHECK(runs[1].code);
    // Width 12: "(microddp" does not fit after "row by row": the "(" goes down with it.
    const std::vector<RunLine> lines = wrap_runs(runs, 12, 1, chars);
    REQUIRE(lines.size() == 6);
    CHECK(texts(lines[0]) == std::vector<std::string>{"row", "by", "row"});
    CHECK(texts(lines[1]) == std::vector<std::string>{"(", "microddp"});
    CHECK(lines[1].pieces[1].run == 1);
    CHECK_FALSE(lines[1].pieces[1].gap);
    CHECK(texts(lines[2]) == std::vector<std::string>{"predict"});
    CHECK(texts(lines[3]) == std::vector<std::string>{"--against"});
    CHECK(texts(lines[4]) == std::vector<std::string>{"FILE", ";", "every"});
    CHECK(texts(lines[5]) == std::vector<std::string>{"table"});
    // Wide enough: one line, the pieces' gaps as written.
    const std::vector<RunLine> one = wrap_runs(runs, 200, 1, chars);
    REQUIRE(one.size() == 1);
    CHECK(one[0].pieces.size() == 11);
  }

  TEST_CASE("wrap_runs: paragraphs, emphasis and an indented line keep their lines") {
    const auto runs = text_runs("*Why.* A b c d\n\n  x = 1 + 2\ne f");
    const std::vector<RunLine> lines = wrap_runs(runs, 11, 1, chars);
    REQUIRE(lines.size() == 4);
    CHECK(texts(lines[0]) == std::vector<std::string>{"Why.", "A", "b", "c"});
    CHECK(lines[0].pieces[1].gap);
    CHECK(texts(lines[1]) == std::vector<std::string>{"d"});
    CHECK(texts(lines[2]) == std::vector<std::string>{"  x = 1 + 2"});  // 11 wide: as is
    CHECK(lines[2].paragraph);
    CHECK(texts(lines[3]) == std::vector<std::string>{"e", "f"});
    CHECK_FALSE(lines[3].paragraph);
    // An indented line wider than the column: broken at spaces, the rest 4 spaces further in.
    const std::vector<RunLine> pre = wrap_runs(text_runs("    a b c d e f g"), 12, 1, chars);
    REQUIRE(pre.size() == 4);
    CHECK(texts(pre[0]) == std::vector<std::string>{"    a b"});
    CHECK(texts(pre[1]) == std::vector<std::string>{"        c d"});
    CHECK(texts(pre[3]) == std::vector<std::string>{"        g"});
  }

  TEST_CASE("lesson 09 beat 7's explanation: its `microddp predict ...` command is a code run, not plain text") {
    const lesson::Lesson l = lesson::load_lesson(kLessons + "/09-topology.yaml");
    REQUIRE(l.beats.size() >= 7);
    REQUIRE(l.beats[6].question);
    int code = 0;
    for (const TextRun& r : text_runs(l.beats[6].question->explain)) {
      CHECK(r.text.find('`') == std::string::npos);
      if (r.code) {
        CHECK(r.text.rfind(++code == 1 ? "microddp predict --table" : "--algorithm auto", 0) == 0);
      }
    }
    CHECK(code == 2);
  }

  TEST_CASE("wrap_words: a word wider than the line breaks after its '_' into parts that fit") {
    const auto lines = wrap_words("checks skipped (MICRODDP_VIZ_SKIP_CHECKS is set)", 14, chars);
    CHECK(lines == std::vector<std::string>{"checks skipped", "(MICRODDP_VIZ_", "SKIP_CHECKS is", "set)"});
    // No '_' or '/': the word whole on a line of its own, as before.
    CHECK(wrap_words("a 1.40898e-08 b", 5, chars) == std::vector<std::string>{"a", "1.40898e-08", "b"});
  }
}

TEST_SUITE("present_pages") {
  TEST_CASE("--present --font-px 28, checks skipped: the skip line whole, and no page ends on a heading") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    test::FontWindow w(28);
    App app;
    app.vs.font_px = 28;
    app.vs.present = true;
    app.presenter.reveal_all = true;  // the checks shown, under their heading
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/07-bucketing-overlap.yaml"));
    app.lesson->go(4);
    w.settle(app);
    app.lesson->wait_checks();
    w.settle(app);
    int glued = 0;
    for (int page = 0; page < 6 && app.lesson->beat() == 4; ++page) {
      INFO("page ", page + 1, " of ", app.presenter.pages);
      for (const std::string& c : test::cut_glyphs("/beat_qa_")) FAIL_CHECK(c);  // at the right edge
      for (int col = 0; col < 2; ++col) {
        const Presenter::PageColumn& c = app.presenter.columns[col];
        REQUIRE(c.glued.size() == c.lines.size());
        for (char g : c.glued) glued += g;
        for (size_t k = 1; k < c.starts.size(); ++k)
          for (size_t i = 0; i < c.lines.size(); ++i)
            if (std::abs(c.lines[i] - c.starts[k]) < 0.5f) {
              INFO("column ", col, " page ", k + 1, " starts at line ", i);
              CHECK_FALSE(c.glued[i]);
            }
      }
      ImGui::GetIO().KeysDown[static_cast<int>(Key::page_down)] = true;
      w.frame(app);
      ImGui::GetIO().KeysDown[static_cast<int>(Key::page_down)] = false;
      w.settle(app);
    }
    CHECK(glued >= 1);  // the checks' heading glued its first line
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
