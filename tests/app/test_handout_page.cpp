// The PDF handout's page geometry (issue 37, slides8): the beat's picture
// uses the A4 landscape page (it filled about its top 35%: the window cut
// above the lesson panel's default share), at the page's width so that the
// window's 18 px text prints at 11 pt, as tall as the words below it leave
// room for (handout.h handout_picture_h, HandoutPdf::words_pt). Through the
// window's own frames (export_handout's steps without GL) and cairo's PDF
// surface.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/viz/handout.h"
#include "app/viz/lesson_view.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "core/labs/lesson/plan.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";
constexpr double kUsableH = HandoutPdf::kPageH - 2 * HandoutPdf::kMargin;  // 539.28 pt
constexpr double kWidth = HandoutPdf::kPageW - 2 * HandoutPdf::kMargin;    // 785.89 pt

}  // namespace

TEST_SUITE("handout_page") {
  TEST_CASE("handout_picture_h: the page's height less the words, at the width's scale; 0 when no more than the default") {
    // 1280 px at 785.89 pt: 0.614 pt a pixel. 100 pt of words leave 439.28 pt = 715.5 px; 2 px under.
    CHECK(handout_picture_h(100, 1280, 380, 720) == doctest::Approx(713));
    CHECK(handout_picture_h(300, 1280, 380, 720) == doctest::Approx(387));  // 239.28 pt = 389.7 px
    CHECK(handout_picture_h(320, 1280, 380, 720) == 0);                     // 357 px: the default's 380 stay
    CHECK(handout_picture_h(10, 1280, 380, 720) == 720);                    // never past the window
    CHECK(handout_picture_h(100, 2560, 380, 1440) == doctest::Approx(1428));  // a window twice as wide: 1430.9 px
  }

  TEST_CASE("lesson 02 beat 2's page: the picture at the page's width (18 px text at 11 pt), the words below, 80% of the page or more, one page") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    test::FontWindow w(18);
    App app;
    app.vs.present = true;
    app.vs.handout = true;  // as export_handout sets them
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/02-ring-double-buffering.yaml"));
    app.lesson->go(1);
    w.settle(app);
    const float gap = ImGui::GetStyle().ItemSpacing.y / 2;
    const float default_h = app.presenter.lesson_top - gap;
    CHECK(default_h < 400);  // the default split: about half the window
    const lesson::Beat& beat = app.lesson->current();
    REQUIRE(beat.question);
    std::vector<std::string> q = {"Question: " + lesson::plain_text(beat.question->ask)};
    for (size_t i = 0; i < beat.question->choices.size(); ++i)
      q.push_back(fmt::format("  {}. {}", i + 1, lesson::plain_text(beat.question->choices[i])));
    const std::string heading = "The 3-rank ring - beat 2 of 6";
    const std::string path = (std::filesystem::temp_directory_path() / "microddp_handout_page.pdf").string();
    HandoutPdf pdf(path);
    const double words = pdf.words_pt(heading, beat.text, q);
    CHECK(words > 100);
    CHECK(words < 200);
    app.presenter.handout_picture_h = handout_picture_h(words, 1280, default_h, 720);
    REQUIRE(app.presenter.handout_picture_h > default_h + 150);
    w.settle(app);
    const int rows = handout_picture_rows(app.presenter.lesson_top, 720, 720, gap);
    INFO("words ", words, " pt; picture asked ", app.presenter.handout_picture_h, " px, got ", rows, " rows (default ",
         default_h, ")");
    CHECK(rows <= app.presenter.handout_picture_h + 1);
    CHECK(rows >= app.presenter.handout_picture_h - 8);
    const std::vector<uint8_t> px(size_t(1280) * size_t(rows) * 4, 200);
    pdf.page(px, 1280, rows, heading, beat.text, q);
    const auto [pw, ph] = pdf.picture_pt();
    CHECK(pw == doctest::Approx(kWidth));                            // the page's width
    CHECK(handout_text_pt(18, 1280, rows) >= 11 - 1e-6);             // the window's text at 11 pt at least
    CHECK(ph == doctest::Approx(rows * kWidth / 1280));              // aspect kept
    CHECK(ph + words >= 0.8 * kUsableH);                             // the page used
    CHECK(ph / HandoutPdf::kPageH > 0.6);                            // was about 0.35
    CHECK(pdf.pages() == 1);                                         // the words still fit under it
    CHECK(pdf.continued() == 0);
    pdf.finish();
    std::filesystem::remove(path);
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("a long text keeps the default picture (handout_picture_h 0) and goes on over a continuation page") {
    const std::string path = (std::filesystem::temp_directory_path() / "microddp_handout_long.pdf").string();
    std::string text;
    for (int i = 0; i < 30; ++i) text += "Paragraph " + std::to_string(i) + " of a long beat.\n\n";
    HandoutPdf pdf(path);
    const double words = pdf.words_pt("long", text, {});
    // The heading (17.55 + 4), the gap under the picture (14), 30 lines of 14.175 pt and 29 gaps of 6.3 pt.
    CHECK(words == doctest::Approx(13 * 1.35 + 4 + 14 + 30 * 10.5 * 1.35 + 29 * 10.5 * 0.6));
    CHECK(handout_picture_h(words, 1280, 380, 720) == 0);
    pdf.finish();
    std::filesystem::remove(path);
  }
}
