// Internal to the compare view's panel (panel_compare.cpp: the columns and
// controls; panel_compare_plot.cpp: the sweep plot): the helpers both use.
#pragma once
#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

#include "app/viz/panels.h"

namespace microddp::viz::compare_panel {

inline void rec(ViewState& vs, std::string what, ImVec2 a, ImVec2 b) {
  vs.compare_drawn.push_back({std::move(what), Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
}
inline void rec_item(ViewState& vs, std::string what) { rec(vs, std::move(what), ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }
inline void rec_control(ViewState& vs, const std::string& what) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  vs.controls_drawn.push_back({what, Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
}

// Starts the next item on this line when `w` pixels still fit, else on the
// next line (large text wraps instead of running off the window).
inline void same_line_if_fits(float w) {
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
}


// The crossover in few words for the sweep's short header (the full
// sentence is Compare::crossover, on hover): "ring fastest from 256 KiB
// (1 MiB predicted)" or "ring not fastest up to 16 MiB" from the dots; a
// source without dots (the model) says only its line's: "ring fastest from
// 64 B (model)". "" when there is no crossover to say.
std::string short_crossover(const Compare& cmp);

// A column's text lines, (text, drawn in the predicted colour): the
// busiest rank's bytes, the stepped run's measured time ("one stepped run,
// with barriers: 17.9 ms", mid-run "(2 of 14 steps run)"; "stepped run:
// 17.9 ms" when that is wider than `width` pixels at the current font) and
// the prediction of the same steps. Needs an ImGui frame (text widths).
std::vector<std::pair<std::string, bool>> column_lines(const Session& s, float width);

// The sweep plot (header, legend, axes, dots, lines, crossovers) in `size`
// at the cursor; brief: the short header (a short area).
void draw_sweep_plot(App& app, ImVec2 size, bool brief);
// Height the sweep needs besides its plot box.
float sweep_overhead(const App& app, float width, bool brief);

}  // namespace microddp::viz::compare_panel
