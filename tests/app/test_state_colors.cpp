// The buffers' legend states (a partial sum .. most ranks: crowd_color,
// palette.h) stay apart from every rank colour: lesson 03 beat 1's "most
// ranks" was exactly R4's blue and "partial sum" within 4 of R28's pale
// blue (issue 37).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "app/viz/palette.h"
#include "app/viz/scene.h"

using namespace microddp::viz;

namespace {
std::string hex(Rgba c) { return fmt::format("{:02X}{:02X}{:02X}", c.r, c.g, c.b); }
}  // namespace

TEST_SUITE("state_colors") {
  TEST_CASE("crowd_color: violet, lavender for 2 of 7 ranks, deep violet for 6 of 7") {
    CHECK(hex(crowd_color(2, 7)) == "995BEB");
    CHECK(hex(crowd_color(6, 7)) == "6B12E2");
    CHECK(hex(crowd_color(7, 7)) == "6000E0");
    // The buffers' fill goes through it (scene.h crowd_fill).
    CHECK(crowd_fill(0b11, 7, false) == crowd_color(2, 7));
    CHECK(crowd_fill(0b111111, 7, false) == crowd_color(6, 7));
    CHECK(crowd_fill(0b1, 7, false) == rank_color(0));
  }

  TEST_CASE("rgb_distance: Euclidean over R, G, B") {
    CHECK(rgb_distance(from_hex(0x000000), from_hex(0xFFFFFF)) == doctest::Approx(441.673).epsilon(1e-5));
    CHECK(rgb_distance(from_hex(0x0072B2), from_hex(0x0072B2)) == 0);
    CHECK(rgb_distance(from_hex(0x030400), from_hex(0x000000)) == doctest::Approx(5.0));
  }

  TEST_CASE("every state colour, 2..n-1 of n ranks for n up to 64, is at least 60 from every rank colour 0..63") {
    double closest = 1e9;
    for (int n = 3; n <= 64; ++n)
      for (int k = 2; k < n; ++k)
        for (int r = 0; r < 64; ++r) {
          const double d = rgb_distance(crowd_color(k, n), rank_color(r));
          closest = std::min(closest, d);
          if (d < kStateRankDistance) {
            INFO(fmt::format("{} of {} ranks: {} is {:.1f} from R{} {}", k, n, hex(crowd_color(k, n)), d, r,
                             hex(rank_color(r))));
            CHECK(d >= kStateRankDistance);
          }
        }
    CHECK(closest >= kStateRankDistance);
    // The states and "all ranks" (the complete colour) stay apart too.
    CHECK(rgb_distance(crowd_color(6, 7), complete_color()) > 100);
    // The old blue's "most ranks" at 7 ranks (0x0072B2 mixed with 11% white)
    // was 32 from R4.
    CHECK(rgb_distance(mix(from_hex(0x0072B2), Rgba{255, 255, 255, 255}, 0.75f / 7), rank_color(4)) < 35);
  }
}
