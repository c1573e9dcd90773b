// --present compare slides at --font-px 16, 28 and 40 (issue 37, lecturer
// pass 4: at 40 px lesson 03's ratio strip drew its title over its top
// label): no two lines of text overlap. Through the window's own frames and
// the glyphs they drew (text_sizes.h), no GL: each run of glyphs of one
// draw list on one line, in drawing order, is a text box (its line's top to
// top + size, first glyph's left to last glyph's right); boxes of different
// lines must not share more than a pixel each way.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

struct Box {
  float x0, y0, x1, y1;
  std::string text, list;
};

std::vector<Box> text_boxes() {
  std::vector<Box> out;
  const test::DrawnGlyph* prev = nullptr;
  for (const test::DrawnGlyph& g : test::drawn_glyphs()) {
    const bool same_line = prev && prev->list == g.list && std::abs(prev->px - g.px) < 0.01f &&
                           std::abs(prev->line_top - g.line_top) < 0.5f && g.x >= prev->x - 0.5f &&
                           g.x - prev->x1 < 0.8f * g.px;
    if (!same_line) out.push_back(Box{g.x, g.line_top, g.x1, g.line_top + g.px, "", g.list});
    Box& b = out.back();
    b.x0 = std::min(b.x0, g.x);
    b.x1 = std::max(b.x1, g.x1);
    b.text += g.codepoint < 128 ? char(g.codepoint) : '?';
    prev = &g;
  }
  return out;
}

// "'a' over 'b'" for each pair of boxes that overlap by more than a pixel
// each way. `in_plot(box)`: drawn by the sweep plot itself
// (panel_compare_plot.cpp, another owner's); pairs of two such boxes go to
// *plot_own instead when it is given.
std::vector<std::string> overlaps(const std::function<bool(const Box&)>& in_plot = nullptr,
                                  std::vector<std::string>* plot_own = nullptr) {
  const std::vector<Box> boxes = text_boxes();
  std::vector<std::string> out;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const Box &a = boxes[i], &b = boxes[j];
      const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
      if (w <= 1 || h <= 1) continue;
      const std::string x = fmt::format("'{}' ({:.0f},{:.0f}) over '{}' ({:.0f},{:.0f})", a.text, a.x0, a.y0, b.text, b.x0, b.y0);
      if (plot_own && in_plot && in_plot(a) && in_plot(b)) plot_own->push_back(x);
      else out.push_back(x);
    }
  return out;
}

struct Slide {
  const char* lesson;
  int beat;  // 1-based
};

// The sweep plot's own text overlaps found so far (counted, not failed: its
// drawing is panel_compare_plot.cpp's; see the report of branch slides6).
int g_plot_own = 0;

void check_slide(const Slide& s, float px) {
  test::FontWindow w(px);
  App app;
  app.vs.font_px = px;
  app.vs.present = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/" + s.lesson));
  app.lesson->go(s.beat - 1);
  w.frame(app);
  // A measured sweep, quicker: one iteration a size, 4 KiB .. 16 MiB (the beats' range).
  if (app.compare.sweeping()) app.compare.run_sweep(4096, 16 << 20, 1, 0);
  for (int i = 0; i < 600 && app.compare.sweeping(); ++i) w.frame(app);
  w.settle(app);
  REQUIRE(app.vs.view == View::compare);
  // Below the columns and left of the ratio strip: the sweep plot's header, axes and labels.
  float columns_bottom = 0, ratio_x = 1e9f;
  for (const ViewState::Drawn& d : app.vs.compare_drawn) {
    if (d.what.rfind("column ", 0) == 0) columns_bottom = std::max(columns_bottom, d.r.bottom());
    if (d.what == "sweep ratio axes") ratio_x = d.r.x;
  }
  const auto in_plot = [&](const Box& b) { return b.y0 >= columns_bottom && b.x1 < ratio_x - 8; };
  std::vector<std::string> plot_own;
  const std::vector<std::string> o = overlaps(in_plot, &plot_own);
  for (const std::string& x : plot_own) MESSAGE(fmt::format("the sweep plot's own: {} beat {} at {} px: {}", s.lesson, s.beat, px, x));
  g_plot_own += int(plot_own.size());
  INFO(s.lesson, " beat ", s.beat, " at ", px, " px: ", o.size(), " overlap(s)");
  for (const std::string& x : o) INFO(x);
  CHECK(o.empty());
  if (!o.empty()) MESSAGE(fmt::format("{} beat {} at {} px: {}", s.lesson, s.beat, px, o.front()));
}

}  // namespace

TEST_SUITE("present_overlap") {
  TEST_CASE("the text-box reading: two lines of a wrapped paragraph are two boxes that do not overlap") {
    test::FontWindow w(18);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(300, 200));
    ImGui::Begin("t", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::TextUnformatted("first line");
    ImGui::TextUnformatted("second line");
    ImGui::GetWindowDrawList()->AddText(ImVec2(20, 8), 0xFF000000, "over");
    ImGui::End();
    ImGui::Render();
    const std::vector<Box> b = text_boxes();
    REQUIRE(b.size() == 3);
    CHECK(b[0].text == "firstline");
    CHECK(b[1].text == "secondline");
    CHECK(b[2].text == "over");
    const std::vector<std::string> o = overlaps();
    REQUIRE(o.size() == 1);  // "over" drawn across the first line
    CHECK(o[0].rfind("'firstline'", 0) == 0);
  }

  TEST_CASE("the compare slides the lecturer named (lesson 03 beats 6 and 7, 05 beat 6) at --font-px 16, 28 and 40, and lesson 09's recorded lab beat at 40: no text over other text") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {16.f, 28.f, 40.f})
      for (const Slide s : {Slide{"03-naive-tree-ring.yaml", 6}, Slide{"03-naive-tree-ring.yaml", 7}, Slide{"05-alpha-beta.yaml", 6}})
        check_slide(s, px);
    check_slide(Slide{"09-topology.yaml", 14}, 40);
    MESSAGE(fmt::format("{} overlap(s) inside the sweep plot's own drawing (panel_compare_plot.cpp)", g_plot_own));
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("a compare column's topology on a slide: readable (its ranks over 4 lines and more) or left out: lesson 05 beat 6 at 18 and 28 px") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {18.f, 28.f}) {
      test::FontWindow w(px);
      App app;
      app.vs.font_px = px;
      app.vs.present = true;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/05-alpha-beta.yaml"));
      app.lesson->go(5);
      w.frame(app);
      if (app.compare.sweeping()) app.compare.run_sweep(4096, 16 << 20, 1, 0);
      for (int i = 0; i < 600 && app.compare.sweeping(); ++i) w.frame(app);
      w.settle(app);
      REQUIRE(app.vs.compare_text_only.size() == 1);
      float top = 1e9f, bottom = -1e9f;
      int ranks = 0;
      bool note = false;
      for (const ViewState::Drawn& d : app.vs.compare_drawn) {
        if (d.what.rfind("ring R", 0) == 0) {
          ++ranks;
          top = std::min(top, d.r.y);
          bottom = std::max(bottom, d.r.bottom());
        }
        note = note || d.what == "ring no room note";
      }
      INFO(px, " px: ", ranks, " rank labels from y ", top, " to ", bottom, ", text only ", app.vs.compare_text_only[0]);
      if (app.vs.compare_text_only[0]) {
        CHECK(ranks == 0);  // no drawing squeezed below its least height (the note where the column has a line)
      } else {
        CHECK(ranks == 8);
        CHECK(bottom - top >= 4 * ImGui::GetTextLineHeightWithSpacing());
        CHECK_FALSE(note);
      }
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
