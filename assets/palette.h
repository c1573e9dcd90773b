// microddp-viz palette and theme colours, compiled into the app.
//
// Rank colours: the Okabe-Ito palette (Okabe & Ito, "Color Universal Design",
// 2008), chosen because it stays distinguishable under the common forms of
// colour blindness (protanopia, deuteranopia, tritanopia) and on washed-out
// projectors. Beyond 8 ranks the app cycles through the same hues at a
// lighter and then a darker shade (see rank_color in app/viz/palette.cpp).
// Colours are 0xRRGGBB.
#pragma once
#include <cstdint>

namespace microddp::assets {

inline constexpr uint32_t kRankColors[8] = {
    0xE69F00,  // orange
    0x56B4E9,  // sky blue
    0x009E73,  // bluish green
    0xF0E442,  // yellow
    0x0072B2,  // blue
    0xD55E00,  // vermillion
    0xCC79A7,  // reddish purple
    0x999999,  // grey (Okabe-Ito's black is kept for "complete")
};

// A chunk that holds every rank's contribution (a fully reduced chunk).
inline constexpr uint32_t kComplete = 0x1A1A1A;
// Elements never written yet.
inline constexpr uint32_t kEmpty = 0xF2F2F2;
// Window and panel colours (light theme: reads best on classroom projectors).
inline constexpr uint32_t kBackground = 0xFFFFFF;
inline constexpr uint32_t kPanel = 0xF7F7F4;
inline constexpr uint32_t kInk = 0x202020;        // text, node outlines
inline constexpr uint32_t kFaint = 0xC8C8C8;      // idle links, grid lines
inline constexpr uint32_t kActive = 0x0072B2;     // active links, highlights
inline constexpr uint32_t kPredicted = 0xE69F00;  // predicted times (no op kind uses it)
inline constexpr uint32_t kMeasured = 0x0072B2;   // measured times

}  // namespace microddp::assets
