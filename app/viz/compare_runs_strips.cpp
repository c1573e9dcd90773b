// --compare-runs' columns (issue 37): under each run's small topology, its
// buffers at the shown step (one bar per rank, chunk by chunk, as the
// buffers' crowd view colours them) and its timeline (a lane per rank, each
// op a bar in its kind's colour), so that two runs side by side show what
// each one did, not only its links. (compare_panel.h.)
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/viz/compare_panel.h"
#include "app/viz/scene.h"
#include "app/viz/units.h"
#include "assets/palette.h"
#include "core/record/printer.h"

namespace microddp::viz::compare_panel {

float run_strips_height(int ranks) {
  const float lh = ImGui::GetTextLineHeight(), sp = ImGui::GetStyle().ItemSpacing.y;
  // A caption line and a row per rank for each of the two strips.
  return 2 * (lh + sp) + float(ranks) * (std::round(lh) + 2) + float(ranks) * std::max(4.f, std::round(lh * 0.45f)) + 2 * sp;
}

void draw_run_strips(App& app, const std::string& alg, const Session& s, float width) {
  ViewState& vs = app.vs;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 ink = im(from_hex(assets::kInk));
  const float lh = ImGui::GetTextLineHeight();
  const int n = s.schedule().world_size();
  // Buffers: the crowd view's rows (a rank's most complete copy of the result).
  ImGui::TextUnformatted(fmt::format("buffers {}", position_label(s.position(), s.num_steps())).c_str());
  BuffersLayout lay;
  lay.width = width;
  lay.row_h = std::round(lh);  // a line: the rank's tag beside its bar
  lay.row_gap = 2;
  lay.char_w = ImGui::CalcTextSize("0").x;
  lay.tag_w = ImGui::CalcTextSize("R00").x + lay.char_w * 1.2f;
  CrowdScene cs = build_buffers_crowd(s, s.position(), lay, float(n) * (lay.row_h + lay.row_gap));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  for (const BufferRowDraw& row : cs.buffers.rows) {
    const float top = o.y + row.y;
    // The rank's colour and tag left of its bar, as the crowd view.
    dl->AddRectFilled(ImVec2(o.x + row.x, top), ImVec2(o.x + row.x + lay.char_w * 0.5f, top + lay.row_h),
                      im(row.is_switch ? from_hex(0xB0B0B0) : rank_color(row.rank)));
    dl->AddText(ImVec2(o.x + row.x + lay.char_w * 0.8f, top + (lay.row_h - ImGui::GetFontSize()) / 2), ink, row.tag.c_str());
    for (const CellDraw& c : row.cells)
      dl->AddRectFilled(ImVec2(o.x + c.x0, top), ImVec2(o.x + c.x1, top + lay.row_h), im(c.stripes.front()));
  }
  const float bh = std::max(cs.buffers.height, float(n) * (lay.row_h + lay.row_gap));
  rec(vs, alg + " buffers", o, ImVec2(o.x + width, o.y + bh));
  ImGui::Dummy(ImVec2(width, bh));
  // Timeline: each rank's ops on one axis (the run's display axis, µs).
  const TimelineScene tl = build_timeline(s);
  ImGui::TextUnformatted(fmt::format("timeline, 0 to {}, a lane per rank from R0", format_us(tl.span_us)).c_str());
  const ImVec2 t0 = ImGui::GetCursorScreenPos();
  const float lane = std::max(4.f, std::round(lh * 0.45f));
  const double scale = tl.span_us > 0 ? width / tl.span_us : 0;
  for (const TimelineBar& b : tl.bars) {
    if (b.rank >= n) continue;
    const float y = t0.y + float(b.rank) * lane;
    const float x0 = t0.x + float(b.begin_us * scale), x1 = std::max(x0 + 1, t0.x + float(b.end_us * scale));
    dl->AddRectFilled(ImVec2(x0, y + 1), ImVec2(x1, y + lane - 1), im(op_kind_color(b.kind)));
  }
  dl->AddLine(ImVec2(t0.x, t0.y + float(n) * lane), ImVec2(t0.x + width, t0.y + float(n) * lane), ink);
  rec(vs, alg + " timeline", t0, ImVec2(t0.x + width, t0.y + float(n) * lane));
  ImGui::Dummy(ImVec2(width, float(n) * lane + 2));
}

}  // namespace microddp::viz::compare_panel
