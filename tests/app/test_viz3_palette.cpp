// Colours used for text on the light theme (app/viz/palette.h): every rank's
// text colour, ranks 0..63, reads at WCAG AA (contrast >= 4.5:1) on each
// light background text is drawn on; yellow rank 3 was 1.18:1 on the panel.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <iterator>

#include "app/viz/palette.h"
#include "assets/palette.h"

using namespace microddp::viz;

namespace {
std::string hex(Rgba c) { return fmt::format("{:02X}{:02X}{:02X}", c.r, c.g, c.b); }
}  // namespace

TEST_SUITE("viz3_palette") {
  TEST_CASE("contrast_ratio: WCAG's figures for black, white, grey and the Okabe-Ito blue") {
    const Rgba black{0, 0, 0, 255}, white{255, 255, 255, 255};
    CHECK(contrast_ratio(black, white) == doctest::Approx(21.0));
    CHECK(contrast_ratio(white, black) == doctest::Approx(21.0));
    CHECK(contrast_ratio(white, white) == doctest::Approx(1.0));
    // #767676 is the lightest grey at 4.5:1 on white (4.54).
    CHECK(contrast_ratio(from_hex(0x767676), white) == doctest::Approx(4.54).epsilon(0.002));
    CHECK(contrast_ratio(from_hex(0x0072B2), white) == doctest::Approx(5.185).epsilon(0.001));
    // Yellow rank 3 on the panel and on an empty cell: the faint label of the issue.
    CHECK(contrast_ratio(rank_color(3), from_hex(microddp::assets::kPanel)) == doctest::Approx(1.232).epsilon(0.001));
    CHECK(contrast_ratio(rank_color(3), from_hex(microddp::assets::kEmpty)) == doctest::Approx(1.18).epsilon(0.003));
  }

  TEST_CASE("the light backgrounds are the theme's: window, panel, empty cell") {
    CHECK(std::size(kLightBackgrounds) == 3);
    CHECK(kLightBackgrounds[0] == microddp::assets::kBackground);
    CHECK(kLightBackgrounds[1] == microddp::assets::kPanel);
    CHECK(kLightBackgrounds[2] == microddp::assets::kEmpty);
  }

  TEST_CASE("ranks 0..63: each rank's text colour has contrast >= 4.5 on every light background") {
    for (int r = 0; r < 64; ++r)
      for (const uint32_t bg : kLightBackgrounds) {
        INFO("rank ", r, " text ", hex(rank_text_color(r)), " on ", fmt::format("{:06X}", bg));
        CHECK(contrast_ratio(rank_text_color(r), from_hex(bg)) >= 4.5);
      }
  }

  TEST_CASE("the text colours: the rank colour when it reads, else darkened by the least 5% step") {
    // Blue (rank 4) reads as it is: 4.63 on #F2F2F2.
    CHECK(rank_text_color(4) == rank_color(4));
    // 55% black on yellow: #F0E442 -> #6C671E; 40% on orange, 20% on bluish green.
    CHECK(hex(rank_text_color(3)) == "6C671E");
    CHECK(hex(rank_text_color(0)) == "8A5F00");
    CHECK(hex(rank_text_color(2)) == "007E5C");
    CHECK(hex(rank_text_color(1)) == "387597");
    CHECK(hex(rank_text_color(5)) == "B55000");
    CHECK(hex(rank_text_color(6)) == "995B7D");
    CHECK(hex(rank_text_color(7)) == "6B6B6B");
    // The lighter shade of yellow (rank 11) and the palest grey (rank 63).
    CHECK(hex(rank_text_color(11)) == "6F6C40");
    CHECK(hex(rank_text_color(63)) == "656565");
    // Predicted times' orange as text ("predicted" lane, stats, compare).
    CHECK(hex(text_color_on_light(predicted_color())) == "8A5F00");
    // Alpha is kept; black stays black.
    CHECK(text_color_on_light(from_hex(0xF0E442, 128)).a == 128);
    CHECK(text_color_on_light(Rgba{0, 0, 0, 255}) == Rgba{0, 0, 0, 255});
  }
}
