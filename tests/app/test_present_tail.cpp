// --present's lesson panel over every shipped lesson (issue 37, slides8):
// no continuation page holds one or two lines (lesson 09 b7's answer left
// "from 1 MiB." alone on page 2: the text is shrunk a little, down to
// lesson_tail_px, or the last page starts earlier), and no line of the
// panel is wider than the panel (at --font-px 28 the "Checks (real run,
// model)" heading was cut at its right edge). The panel alone at the most
// of a 1280x720 window the main view's layout gives it, each beat's
// question slide and its answer slide, through the window's own frames
// (DejaVu Sans at the --font-px), no GL and no run driven.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/clipped_glyphs.h"
#include "app/text_sizes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

std::vector<fs::path> lesson_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kLessons))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Glyphs of the lesson panel (its header and columns) cut at the right
// edge of the rectangle they are clipped to (clipped_glyphs.h).
std::vector<std::string> cut_at_right() { return test::cut_glyphs("/lesson_"); }

// Each paged column's last page: "column 1: 1 line on page 2 of 2 (9 lines in all)" when it holds fewer
// than kTailLines and the column has twice that many lines.
std::vector<std::string> short_tails(const App& app) {
  std::vector<std::string> out;
  const Presenter& p = app.presenter;
  for (int i = 0; i < 2; ++i) {
    const Presenter::PageColumn& c = p.columns[i];
    if (!p.columns_drawn[i] || c.starts.size() < 2) continue;
    int on_last = 0;
    for (float t : c.lines) on_last += t >= c.starts.back() - 0.5f;
    if (on_last < Presenter::kTailLines && c.lines.size() >= 2 * size_t(Presenter::kTailLines))
      out.push_back(fmt::format("column {}: {} line(s) on page {} of {} ({} lines in all)", i, on_last, c.starts.size(),
                                c.starts.size(), c.lines.size()));
  }
  return out;
}

float smallest_lesson_px() {
  float m = 1e9f;
  for (const auto& g : test::drawn_glyphs())
    if (g.list.find("/lesson_") != std::string::npos) m = std::min(m, g.px);
  return m;
}

}  // namespace

TEST_SUITE("present_tail") {
  TEST_CASE("lesson_tail_px: 7/8 of the font, never below 14 px") {
    CHECK(lesson_tail_px(18) == doctest::Approx(15.75));
    CHECK(lesson_tail_px(28) == doctest::Approx(24.5));
    CHECK(lesson_tail_px(14) == doctest::Approx(14));
    CHECK(lesson_tail_px(12) == doctest::Approx(14));  // a font below the floor is not shrunk at all
  }

  TEST_CASE("every shipped lesson at 18 and 28 px: no continuation page of one or two lines, no line wider than the panel") {
    const test::SkipLessonChecks skip;
    const std::vector<fs::path> files = lesson_files();
    REQUIRE(files.size() == 12);
    for (const float px : {18.f, 28.f}) {
      test::FontWindow w(px);
      test::PanelOnly panel{w, test::PanelOnly::most_h()};
      int slides = 0, paged = 0, squeezed = 0, balanced = 0;
      for (const fs::path& f : files) {
        App app;
        test::present_at(app, f.string(), 0, px);
        LessonView& L = *app.lesson;
        for (int b = 0; b < L.num_beats(); ++b) {
          L.go(b);
          app.vs.lesson_note = beat_target(L.current()).note;
          for (int answer = 0; answer < (L.current().question ? 2 : 1); ++answer) {
            if (answer) action_reveal(app);
            panel.settle(app);
            INFO(f.filename().string(), " beat ", b + 1, answer ? " (answer)" : "", " at ", px, " px: ",
                 app.presenter.pages, " page(s), text scale ", app.vs.lesson_scale);
            CHECK_FALSE(app.vs.lesson_fitting);
            CHECK(short_tails(app) == std::vector<std::string>{});
            CHECK(cut_at_right() == std::vector<std::string>{});
            CHECK(smallest_lesson_px() >= lesson_tail_px(px) - 0.01f);
            ++slides;
            paged += app.presenter.pages > 1;
            squeezed += app.vs.lesson_scale < 1;
            balanced += app.presenter.tail_balance;
          }
        }
      }
      MESSAGE(px, " px: ", slides, " slides, ", paged, " on continuation pages, ", squeezed,
              " shrunk to save a short last page, ", balanced, " with their last page started earlier");
      CHECK(slides == 135);  // 95 beats and 40 answers
    }
  }

  TEST_CASE("no line of the lesson panel wider than the panel at 40 px (every shipped lesson's answer slides)") {
    const test::SkipLessonChecks skip;
    test::FontWindow w(40);
    test::PanelOnly panel{w, test::PanelOnly::most_h()};
    int slides = 0;
    for (const fs::path& f : lesson_files()) {
      App app;
      test::present_at(app, f.string(), 0, 40, true);
      LessonView& L = *app.lesson;
      for (int b = 0; b < L.num_beats(); ++b) {
        L.go(b);
        panel.settle(app);
        // Every page: a page's lines are drawn (shifted) on each, so one frame per page sees them all.
        for (int k = 0; k < app.presenter.pages; ++k) {
          app.presenter.page = k;
          panel.draw(app);
          INFO(f.filename().string(), " beat ", b + 1, " page ", k + 1);
          CHECK(cut_at_right() == std::vector<std::string>{});
        }
        ++slides;
      }
    }
    CHECK(slides == 95);
  }

  TEST_CASE("lesson 09 b7's answer at 18 px in the window: its explanation's last line not alone on a page") {
    const test::SkipLessonChecks skip;
    test::FontWindow w(18);
    App app;
    test::present_at(app, kLessons + "/09-topology.yaml", 6, 18, true);
    w.settle(app);
    w.settle(app);
    INFO(app.presenter.pages, " page(s), text scale ", app.vs.lesson_scale);
    CHECK_FALSE(app.vs.lesson_fitting);
    CHECK(short_tails(app) == std::vector<std::string>{});
    // The words "from 1 MiB." close the explanation: on page 1, or with at least two lines before them.
    CHECK(app.vs.lesson_scale >= lesson_tail_px(18) / 18 - 1e-4f);
  }
}
