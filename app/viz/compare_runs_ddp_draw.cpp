// Two DDP / FSDP records drawn one above the other on one time axis
// (compare_runs_ddp.h): each run's lanes come from the DDP view's scene
// (build_ddp_scene, ddp_view.h), built with a plot width in proportion to
// the run's span, so that a millisecond is as wide in both.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "app/viz/compare_runs_ddp.h"
#include "app/viz/ddp_view.h"
#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "assets/palette.h"

namespace microddp::viz {

namespace {

// The time a run's last iteration spans (as build_ddp_scene measures it).
double span_ms(const ddp::Result& r) {
  const ddp::IterationTimeline& tl = r.timelines.back();
  double s = tl.end_ms;
  for (const auto& c : tl.comm) s = std::max(s, c.end_ms);
  for (const auto& l : tl.layers) s = std::max(s, l.end_ms);
  for (const auto& w : tl.waits) s = std::max(s, w.end_ms);
  return s > 0 ? s : 1;
}

// Text wrapped to `w` (its height), drawn at (x, y) when `draw`.
float text_block(ImDrawList* dl, float x, float y, float w, const std::string& s, ImU32 col, bool draw) {
  ImFont* f = ImGui::GetFont();
  const float fs = ImGui::GetFontSize();
  const ImVec2 sz = f->CalcTextSizeA(fs, FLT_MAX, w, s.c_str());
  if (draw) dl->AddText(f, fs, ImVec2(x, y), col, s.c_str(), nullptr, w);
  return sz.y;
}

}  // namespace

void draw_ddp_runs(App& app, float x, float y, float w, float h) {
  DdpRunsCompare& c = app.ddp_runs;
  if (!c.active()) return;
  DdpRunsDrawn& d = c.drawn;
  d = DdpRunsDrawn{};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight(), sp = ImGui::GetStyle().ItemSpacing.y;
  d.text_px = fs;
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  const bool both_sharded = c.runs[0].run.options.sharded && c.runs[1].run.options.sharded;
  const bool any_sharded = c.runs[0].run.options.sharded || c.runs[1].run.options.sharded;

  d.header = "Two training runs (--compare-runs), the last timed iteration of each, on one time axis";
  for (const auto& it : ddp_legend(any_sharded && both_sharded))
    if (it.swatch != DdpSwatch::bucket_markers && it.swatch != DdpSwatch::dashed) d.legend.push_back(it.text);
  if (any_sharded && !both_sharded) {  // one of each: both kinds of call named
    d.legend = {"forward", "backward", "all-reduce of bucket 0, 1, 2, …", "all-gather of layer k (AG Lk)",
                "reduce-scatter of layer k (RS Lk)", "waiting"};
  }
  // Heights of the text blocks first; the lanes get the rest.
  const float header_h = text_block(dl, 0, 0, w, d.header, ink, false);
  float titles_h = 0;
  for (const auto& t : c.titles) titles_h += text_block(dl, 0, 0, w, t, ink, false) + sp;
  float diff_h = 0;
  for (const auto& s : c.difference) diff_h += text_block(dl, 0, 0, w, s, ink, false);
  const float swatch = std::round(fs * 0.8f), item_gap = fs;
  float legend_w = 0;
  int legend_lines = 1;
  for (const auto& t : d.legend) {
    const float iw = swatch + 4 + ImGui::CalcTextSize(t.c_str()).x + item_gap;
    if (legend_w > 0 && legend_w + iw > w) ++legend_lines, legend_w = 0;
    legend_w += iw;
  }
  const float legend_h = float(legend_lines) * lh, axis_h = lh + 6;
  const int lanes = c.runs[0].run.options.ranks + 1 + c.runs[1].run.options.ranks + 1;
  const float gap = std::max(2.f, std::round(fs * 0.15f));
  const float text_h = header_h + sp + legend_h + sp + titles_h + axis_h + sp + diff_h + 2 * sp;
  float lane_h = (h - text_h - gap * float(lanes)) / float(lanes);
  if (lane_h < 4) d.clipped = true;
  lane_h = std::clamp(lane_h, 4.f, fs * 3.f);
  d.lane_h = lane_h;

  float cy = y;
  cy += text_block(dl, x, cy, w, d.header, ink, true) + sp;
  // The legend: a swatch and its text, wrapped.
  {
    float lx = x, ly = cy;
    const auto color_of = [&](const std::string& t) -> Rgba {
      if (t == "forward") return ddp_kind_color(DdpBarKind::forward);
      if (t == "backward") return ddp_kind_color(DdpBarKind::backward);
      if (t.rfind("all-gather", 0) == 0) return collective_color("all_gather");
      if (t.rfind("reduce-scatter", 0) == 0) return collective_color("reduce_scatter");
      if (t.rfind("all-reduce", 0) == 0) return bucket_color(0);
      return ddp_kind_color(DdpBarKind::wait);
    };
    for (const auto& t : d.legend) {
      const float iw = swatch + 4 + ImGui::CalcTextSize(t.c_str()).x + item_gap;
      if (lx > x && lx + iw > x + w) lx = x, ly += lh;
      const float sy = ly + (lh - swatch) / 2;
      if (t.rfind("all-reduce", 0) == 0) {  // the bucket hues in turn
        for (int k = 0; k < 3; ++k)
          dl->AddRectFilled(ImVec2(lx + swatch * float(k) / 3, sy), ImVec2(lx + swatch * float(k + 1) / 3, sy + swatch),
                            im(bucket_color(k)));
      } else {
        dl->AddRectFilled(ImVec2(lx, sy), ImVec2(lx + swatch, sy + swatch), im(color_of(t)));
      }
      dl->AddText(ImVec2(lx + swatch + 4, ly), ink, t.c_str());
      lx += iw;
    }
    cy = ly + lh + sp;
  }
  // One axis: the longer run's span over the whole plot width; the other
  // run's plot is as much shorter as its span.
  const double sa = span_ms(c.runs[0].run), sb = span_ms(c.runs[1].run), axis = std::max(sa, sb);
  d.axis_ms = float(axis);
  const float label_w = ImGui::CalcTextSize("comm ").x + 6;
  std::vector<DdpScene> scenes;
  for (int i = 0; i < 2; ++i) {
    const ddp::Result& r = c.runs[size_t(i)].run;
    DdpLayout L;
    L.label_w = label_w;
    L.width = label_w + (w - label_w) * float(span_ms(r) / axis);
    L.lane_h = L.comm_h = lane_h;
    L.gap = gap;
    scenes.push_back(build_ddp_scene(r, int(r.timelines.size()) - 1, L));
  }
  // The longer run's ticks are the shared axis's.
  const DdpScene& longest = scenes[sa >= sb ? 0 : 1];
  for (int i = 0; i < 2; ++i) {
    const DdpScene& sc = scenes[size_t(i)];
    cy += text_block(dl, x, cy, w, c.titles[size_t(i)], ink, true) + sp;
    d.titles.push_back(c.titles[size_t(i)]);
    const auto P = [&](float px, float py) { return ImVec2(x + px, cy + py); };
    // The axis's plot area and its grid, then the run's lanes over it.
    for (const DdpLane& l : sc.lanes) {
      dl->AddRectFilled(P(label_w, l.y0), P(w, l.y1), im(from_hex(assets::kPanel)));
      const float px = std::min(fs, std::max(8.f, l.y1 - l.y0));
      dl->AddText(ImGui::GetFont(), px, P(0, l.y0 + (l.y1 - l.y0 - px) / 2), ink, l.label.c_str());
    }
    for (const DdpTick& t : longest.ticks) dl->AddLine(P(t.x, 0), P(t.x, sc.height), faint, 1);
    for (const DdpBar& b : sc.bars) {
      const ImVec2 a = P(b.x0, b.y0), e = P(b.x1, b.y1);
      dl->AddRectFilled(a, e, im(b.color));
      if (b.kind == DdpBarKind::wait) {
        dl->PushClipRect(a, e, true);
        for (float hx = a.x - (e.y - a.y); hx < e.x; hx += 8)
          dl->AddLine(ImVec2(hx, e.y), ImVec2(hx + (e.y - a.y), a.y), IM_COL32(213, 94, 0, 200), 1.5f);
        dl->PopClipRect();
        continue;
      }
      if (e.x - a.x >= 3) dl->AddRect(a, e, IM_COL32(255, 255, 255, 255), 0, 0, 1);
      for (const std::string* t : {&b.label, &b.short_label}) {
        const ImVec2 ts = ImGui::CalcTextSize(t->c_str());
        if (t->empty() || ts.x + 4 > e.x - a.x || ts.y > e.y - a.y + 2) continue;
        dl->AddText(ImVec2((a.x + e.x - ts.x) / 2, (a.y + e.y - ts.y) / 2), im(text_on(b.color)), t->c_str());
        break;
      }
    }
    // The end of the run's iteration: a line across its lanes.
    const float ex = sc.plot_x1;
    dl->AddLine(P(ex, -2), P(ex, sc.height + 2), ink, 2);
    const ImVec2 b0 = P(label_w, 0), b1 = P(w, sc.height);
    d.timeline_box[i][0] = b0.x, d.timeline_box[i][1] = b0.y, d.timeline_box[i][2] = b1.x, d.timeline_box[i][3] = b1.y;
    d.plot_x[i][0] = x + sc.plot_x0, d.plot_x[i][1] = x + sc.plot_x1;
    cy += sc.height + sp;
  }
  // The shared axis under the second run (its grid drawn in each run).
  const float axis_y = cy;
  float last_right = -1e9f;
  for (const DdpTick& t : longest.ticks) {
    dl->AddLine(ImVec2(x + t.x, axis_y - sp), ImVec2(x + t.x, axis_y + 2), ink, 1);
    const float tw = ImGui::CalcTextSize(t.text.c_str()).x;
    const float tx = std::min(x + t.x - tw / 2, x + w - tw);
    if (tx < last_right + fs * 0.5f) continue;
    dl->AddText(ImVec2(tx, axis_y + 2), ink, t.text.c_str());
    last_right = tx + tw;
  }
  cy += axis_h + sp;
  for (const auto& s : c.difference) {
    cy += text_block(dl, x, cy, w, s, ink, true);
    d.difference.push_back(s);
  }
  if (cy > y + h + 1) d.clipped = true;
  app.vs.panels_drawn.push_back({"compare runs", {x, y, w, h}});
}

}  // namespace microddp::viz
