// The compare plot's ratio strip (moved from panel_compare_plot.cpp): each
// algorithm's predicted time over the fastest one's at each swept size.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/viz/compare_panel.h"
#include "assets/palette.h"

namespace microddp::viz::compare_panel {

void draw_ratio_strip(App& app, ImDrawList* dl, ImVec2 q0, ImVec2 q1, double xmin, double xmax, float right) {
  const Compare& cmp = app.compare;
  ViewState& vs = app.vs;
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  // x: the same sizes, log; y: predicted time over the fastest
  // algorithm's at that size, linear from 1x to a little over the largest.
  double rmax = 1;
  std::vector<double> best(cmp.sweep.front().bytes.size(), 1e300);
  for (const auto& c : cmp.sweep)
    for (size_t i = 0; i < c.predicted_us.size() && i < best.size(); ++i) best[i] = std::min(best[i], c.predicted_us[i]);
  for (const auto& c : cmp.sweep)
    for (size_t i = 0; i < c.predicted_us.size() && i < best.size(); ++i)
      rmax = std::max(rmax, c.predicted_us[i] / best[i]);
  rmax = std::ceil((1 + (rmax - 1) * 1.4) * 4) / 4;  // room at the top for the title
  const double sx0 = std::log10(xmin), sx1 = std::log10(std::max(xmax, xmin * 2));
  const auto SX = [&](double b) { return q0.x + 4 + float((std::log10(b) - sx0) / (sx1 - sx0)) * (q1.x - q0.x - 8); };
  const auto SY = [&](double ratio) { return q1.y - float((ratio - 1) / std::max(rmax - 1, 1e-9)) * (q1.y - q0.y); };
  dl->AddRect(q0, q1, faint);
  rec(vs, "sweep ratio axes", q0, q1);
  for (const auto& c : cmp.sweep) {
    if (c.predicted_us.size() != c.bytes.size()) continue;
    for (size_t i = 0; i + 1 < c.bytes.size() && i + 1 < best.size(); ++i)
      dl->AddLine(ImVec2(SX(c.bytes[i]), SY(c.predicted_us[i] / best[i])),
                  ImVec2(SX(c.bytes[i + 1]), SY(c.predicted_us[i + 1] / best[i + 1])), im(algorithm_color(c.algorithm)),
                  2.5f);
  }
  // The title, shortened where the strip is narrow (large text), and the
  // top label beside it only where both fit; never one over the other.
  const std::string one = "1×", top_label = fmt::format("{:g}×", rmax);
  const float room = q1.x - q0.x - 8, label_w = ImGui::CalcTextSize(top_label.c_str()).x;
  std::string title;
  for (const char* t : {"predicted ÷ fastest", "÷ fastest"})
    if (title.empty() && ImGui::CalcTextSize(t).x <= room) title = t;
  const float title_w = title.empty() ? 0.f : ImGui::CalcTextSize(title.c_str()).x;
  if (!title.empty()) {
    dl->AddText(ImVec2(q0.x + 4, q0.y + 2), ink, title.c_str());
    rec(vs, "sweep ratio title", ImVec2(q0.x + 4, q0.y + 2), ImVec2(q0.x + 4 + title_w, q0.y + 2 + lh));
  }
  // Beside the title, else on the line below it where the strip is tall enough.
  const bool beside = title_w + label_w + lh <= room;
  const float label_y = beside ? q0.y + 2 : q0.y + 2 + lh;
  const float one_w = ImGui::CalcTextSize(one.c_str()).x;
  dl->AddText(ImVec2(q0.x - one_w - 2, q1.y - lh), ink, one.c_str());
  rec(vs, "sweep ratio label 1x", ImVec2(q0.x - one_w - 2, q1.y - lh), ImVec2(q0.x - 2, q1.y));
  const std::string lo = human_bytes(cmp.sweep.front().bytes.front()), hi = human_bytes(cmp.sweep.front().bytes.back());
  const float hi_w = ImGui::CalcTextSize(hi.c_str()).x, hi_x = std::min(q1.x - hi_w, right - hi_w);
  // The smallest size only where it stays clear of the largest (a narrow strip at large text).
  if (const float lo_w = ImGui::CalcTextSize(lo.c_str()).x; q0.x + lo_w + lh * 0.5f <= hi_x) {
    dl->AddText(ImVec2(q0.x, q1.y + 4), ink, lo.c_str());
    rec(vs, "sweep ratio x label " + lo, ImVec2(q0.x, q1.y + 4), ImVec2(q0.x + lo_w, q1.y + 4 + lh));
  }
  dl->AddText(ImVec2(hi_x, q1.y + 4), ink, hi.c_str());
  rec(vs, "sweep ratio x label " + hi, ImVec2(hi_x, q1.y + 4), ImVec2(hi_x + hi_w, q1.y + 4 + lh));
  if (q1.y - q0.y >= (beside ? 3 : 4) * lh && label_w <= room) {
    dl->AddText(ImVec2(q1.x - label_w - 4, label_y), ink, top_label.c_str());
    rec(vs, "sweep ratio top label", ImVec2(q1.x - label_w - 4, label_y), ImVec2(q1.x - 4, label_y + lh));
  }
}

}  // namespace microddp::viz::compare_panel
