// The PDF handout's picture (issue 37, item 4): the page prints the beat's
// text once, below the picture, so the picture is the window cut above the
// lesson panel (handout.h handout_picture_rows, top_rows): none of the
// panel's text (beat heading, question, "Checks:") is left in it. Through
// the window's own frames and the glyphs they drew (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/handout.h"
#include "app/viz/lesson_view.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

// The letters drawn above window row y (spaces left out), and below it.
std::string letters(bool above, float y) {
  std::string out;
  for (const auto& g : test::drawn_glyphs())
    if (g.codepoint < 128 && (g.y < y) == above) out += char(g.codepoint);
  return out;
}

}  // namespace

TEST_SUITE("handout_picture") {
  TEST_CASE("handout_picture_rows: the rows above the lesson panel, at the read-back's scale; all without a panel") {
    CHECK(handout_picture_rows(400, 720, 720, 4) == 396);
    CHECK(handout_picture_rows(400, 720, 1440, 4) == 792);  // a HiDPI framebuffer: twice the rows
    CHECK(handout_picture_rows(-1, 720, 720, 4) == 720);    // no lesson panel drawn
    CHECK(handout_picture_rows(2, 720, 720, 4) == 1);       // never empty
    CHECK(handout_picture_rows(9000, 720, 720, 4) == 720);  // never past the picture
    const std::vector<uint8_t> px = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};  // 2 x 2 pixels
    CHECK(top_rows(px, 2, 1) == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(top_rows(px, 2, 2) == px);
    CHECK_THROWS_AS(top_rows(px, 2, 3), std::invalid_argument);
  }

  TEST_CASE("a handout page's picture holds no lesson-panel text: lesson 02 beat 2 (main view), lesson 03 beat 4 (compare)") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    struct Slide {
      const char* lesson;
      int beat;
      const char* picture;  // a word the picture itself draws
    };
    for (const Slide s : {Slide{"02-ring-double-buffering.yaml", 2, "send_buff"},
                          Slide{"03-naive-tree-ring.yaml", 4, "busiestrank"}}) {
      test::FontWindow w(18);
      App app;
      app.vs.present = true;
      app.vs.handout = true;  // as export_handout sets them
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/" + s.lesson));
      app.lesson->go(s.beat - 1);
      w.settle(app);
      const float top = app.presenter.lesson_top;
      INFO(std::string(s.lesson), " beat ", s.beat, ": lesson panel at y = ", top);
      REQUIRE(top > 200);  // the picture keeps at least the upper part of the window
      CHECK(top < 720);
      const std::string above = letters(true, top), below = letters(false, top);
      INFO("above: ", above);
      INFO("below: ", below);
      CHECK(above.find(s.picture) != std::string::npos);
      CHECK(below.find("Beat" + std::to_string(s.beat) + "of") != std::string::npos);  // the panel's heading
      CHECK(above.find("Beat" + std::to_string(s.beat) + "of") == std::string::npos);
      CHECK(above.find("Checks") == std::string::npos);
      CHECK(above.find("Question") == std::string::npos);
      // The page's picture ends 3 px (half the panels' 6 px gap) above the panel.
      CHECK(ImGui::GetStyle().ItemSpacing.y == 6);
      CHECK(handout_picture_rows(top, 720, 720, ImGui::GetStyle().ItemSpacing.y / 2) == int(top) - 3);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("the picture prints at readable sizes: A4 landscape, the default window's 18 px text at 11 pt, the 14 px least text at 8.6 pt") {
    // 841.89 - 2 x 28 = 785.89 pt for 1280 px (A4 portrait printed 511 pt: 7.2 and 5.6 pt).
    CHECK(handout_picture_scale(1280, 400) == doctest::Approx(785.89 / 1280));
    CHECK(handout_text_pt(18, 1280, 400) == doctest::Approx(11.05).epsilon(0.01));
    CHECK(handout_text_pt(14, 1280, 400) == doctest::Approx(8.60).epsilon(0.01));
    CHECK(handout_text_pt(28, 1280, 400) > 17);
    // The whole window (a view without a lesson panel): still the page's width.
    CHECK(handout_picture_scale(1280, 720) == doctest::Approx(785.89 / 1280));
    // A picture taller than the page leaves the heading and four lines below it.
    const double tall = handout_picture_scale(400, 2000);
    CHECK(tall * 2000 == doctest::Approx(595.28 - 56 - 13 * 1.35 - 4 * 10.5 * 1.35 - 18));
    CHECK(tall < 785.89 / 400);
  }

  TEST_CASE("a beat whose text does not fit its page goes on over a continuation page, every line printed") {
    const std::string path = (std::filesystem::temp_directory_path() / "microddp_handout_continued.pdf").string();
    std::string text;
    for (int i = 0; i < 60; ++i) text += "Line " + std::to_string(i) + " of a long beat.\n\n";
    const std::vector<uint8_t> px(size_t(1280) * 400 * 4, 255);
    {
      HandoutPdf pdf(path);
      pdf.page(px, 1280, 400, "short", "One line.", {"Question: which?", "  1. this", "  2. that"});
      CHECK(pdf.pages() == 1);
      CHECK(pdf.continued() == 0);
      pdf.page(px, 1280, 400, "long", text, {});
      // Below a 246 pt picture, 60 paragraphs of 20 pt need three pages.
      CHECK(pdf.pages() == 4);
      CHECK(pdf.continued() == 2);
      pdf.finish();
    }
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(bytes.rfind("%PDF-", 0) == 0);
    std::filesystem::remove(path);
  }
}
