// The compare view's picture when every curve has one size only (a lab
// beat's recorded run, lab_recorded.h: lesson 09's runs at 4 MiB): one
// horizontal bar per curve instead of a log-log plot with one column of
// dots. Bar = the median (µs, linear axis from 0, its value written at its
// end), whisker = p10-p90, a tick in the prediction colour = the curve's
// model time when it has one. Internal to the compare panel.
#pragma once
#include <imgui.h>

#include <string>

#include "app/viz/compare.h"
#include "app/viz/panels.h"

namespace microddp::viz::compare_panel {

// True when the sweep has curves and every one has exactly one point, all
// at the same size.
bool one_size(const Compare& cmp);
// The header over the bars: "Time at 4 MiB per rank: bars the median of 5
// iterations (whiskers p10-p90), ticks the lab's model."
std::string size_bars_header(const Compare& cmp);
// Do the bars' labels go on a line above each bar (a label wider than a
// fifth of the box, `box_w` pixels) rather than in a column beside them?
bool labels_above(float label_w, float box_w);
// The bars inside the box p0..p1 (the plot's box, already outlined).
void draw_size_bars(App& app, ImDrawList* dl, ImVec2 p0, ImVec2 p1);

}  // namespace microddp::viz::compare_panel
