// Colours for the scene, from the compiled-in palette (assets/palette.h).
// Plain data, no ImGui: the scene stores these and the panels convert.
#pragma once
#include <cstdint>
#include <string>

#include "core/ir/schedule.h"

namespace microddp::viz {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  bool operator==(const Rgba&) const = default;
};

Rgba from_hex(uint32_t rgb, uint8_t alpha = 255);
// Rank r's colour: Okabe-Ito hue r mod 8, lighter for 8..15, darker for
// 16..23, and so on alternately.
Rgba rank_color(int rank);
Rgba complete_color();
// A layout part's colour (AlgorithmInfo::layout_part: the double binary
// tree's two trees): Okabe-Ito blue 0x0072B2 for part 0, vermillion 0xD55E00
// for part 1 (told apart under the common colour blindnesses by lightness
// too); parts 2.. cycle through bluish green, reddish purple, sky blue.
Rgba part_color(int part);
// Channel c's colour (CollectiveSpec::channels): Okabe-Ito bluish green,
// reddish purple, sky blue, yellow, blue, vermillion, then again.
Rgba channel_color(int channel);
// The protocol strip's flag word once set (this message's flag) and before
// (the last generation's): bluish green 0x009E73 and mid grey 0xB0B0B0.
Rgba flag_color(bool set);
// The timeline's colour for an op kind (Okabe-Ito hues).
Rgba op_kind_color(OpKind k);
// Predicted times wherever they are drawn (timeline bar and label, stats,
// compare columns): Okabe-Ito orange, a hue no op kind uses, so a predicted
// bar never reads as a reduce.
Rgba predicted_color();
// An algorithm's colour in the compare view, from its name alone, so that
// "ring" keeps its colour across collectives and column choices: naive,
// tree and ring first (blue, vermillion, bluish green), then the other
// names in registry order (every collective's list, first appearance),
// cycling through the remaining rank hues (orange is left to predicted).
Rgba algorithm_color(const std::string& name);
Rgba empty_color();
// A chunk that holds the contributions of `k` of `n` ranks, 2 <= k < n (the
// buffers' "partial sum" .. "most ranks"): violet 0x6000E0 mixed with
// white by 0.5·(1 - k/n), lavender for few ranks, deep violet for most.
// Violet is no Okabe-Ito hue: every such colour stays at least
// kStateRankDistance (RGB distance) from every rank colour 0..63 (issue 37:
// the blue it replaced was R4's, its pale end R1's).
Rgba crowd_color(int k, int n);
inline constexpr double kStateRankDistance = 60;
// Euclidean distance of two colours' R, G, B (0..441).
double rgb_distance(Rgba a, Rgba b);
// A value that is wrong (differs from what the correct algorithm holds):
// ColorBrewer's dark red 0xB2182B. Much darker than every rank hue but the
// blue, so it stays apart from them by lightness under the common colour
// blindnesses; the panels pair it with an outline and a label, never colour
// alone.
Rgba error_color();
// Black or white, whichever reads better on `bg` (WCAG relative luminance).
Rgba text_on(Rgba bg);
// WCAG 2 contrast ratio of two opaque colours, 1..21: (L1 + 0.05) / (L2 +
// 0.05) with L the relative luminance (sRGB linearised), L1 the lighter.
double contrast_ratio(Rgba a, Rgba b);
// The light backgrounds text is drawn on: the window (assets kBackground),
// the panels and lanes (kPanel) and empty buffer cells (kEmpty).
inline constexpr uint32_t kLightBackgrounds[] = {0xFFFFFF, 0xF7F7F4, 0xF2F2F2};
// A colour as text on those backgrounds: `c` itself when its contrast with
// every one is at least 4.5:1 (WCAG AA for normal text), else `c` mixed
// with black by the least multiple of 5% that reaches it (same hue,
// darker). Alpha is kept.
Rgba text_color_on_light(Rgba c);
// Rank r's colour for text (a rank's label in the hang view):
// text_color_on_light(rank_color(r)); yellow rank 3 becomes dark olive.
Rgba rank_text_color(int rank);
// ImGui's packed IM_COL32 layout (A in the high byte, R in the low byte).
inline uint32_t packed(Rgba c) {
  return (uint32_t(c.a) << 24) | (uint32_t(c.b) << 16) | (uint32_t(c.g) << 8) | uint32_t(c.r);
}
Rgba with_alpha(Rgba c, uint8_t a);
Rgba mix(Rgba a, Rgba b, float t);

}  // namespace microddp::viz
