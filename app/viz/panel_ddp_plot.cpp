// The DDP view's plot (draw_ddp, panel_ddp.cpp, calls it): one iteration's
// lanes, bars, bucket markers, waits and time axis, the note under the
// axis (with slow_call_note and the comm lane's idle gaps, DdpGap) and the
// hover text; moved out of panel_ddp.cpp.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "assets/palette.h"

namespace microddp::viz {

namespace {

std::string param_name(int p) { return fmt::format("{}{}", p % 2 == 0 ? "W" : "b", p / 2); }

std::string bucket_params(const ddp::Result& r, int bucket) {
  if (bucket < 0 || bucket >= int(r.buckets.size())) return "";
  const auto& ps = r.buckets[size_t(bucket)].params;
  std::string s;
  for (size_t i = 0; i < ps.size() && i < 8; ++i) s += (i ? ", " : "") + param_name(ps[i]);
  if (ps.size() > 8) s += fmt::format(", … ({} tensors)", ps.size());
  return s;
}

// The note under the axis (wrapped to the panel's width), with the
// sentence on a collective far slower than its peers (slow_call_note) and
// the one on the comm lane's longest idle gap after backward (DdpGap).
std::string note_text(const ddp::Result& r, int it, const std::vector<DdpGap>& gaps) {
  const int n = r.options.ranks, cpus = int(std::thread::hardware_concurrency());
  double load = -1;
  if (getloadavg(&load, 1) != 1) load = -1;
  const std::string slow = slow_call_note(r, it, cpus, load);
  const auto longest = std::max_element(gaps.begin(), gaps.end(), [](const DdpGap& a, const DdpGap& b) {
    return a.end_ms - a.begin_ms < b.end_ms - b.begin_ms;
  });
  const std::string gap = longest == gaps.end() ? "" : ddp_gap_sentence(*longest, n, cpus);
  return fmt::format("Measured on this machine ({} cores, threads backend): {} worker threads and the collective's "
                     "threads share the CPUs.{}{}{}{}",
                     cpus, n, slow.empty() ? "" : " ", slow, gap.empty() ? "" : " ", gap);
}

// The comm bars whose label does not fit inside them (ImGui's font at
// scale 1): the plot labels them in the row under the comm lane.
std::vector<const DdpBar*> strip_bars(const DdpScene& sc) {
  std::vector<const DdpBar*> bars;
  for (const DdpBar& b : sc.bars)
    if (b.kind == DdpBarKind::comm && !b.label.empty() && ImGui::CalcTextSize(b.label.c_str()).x + 4 > b.x1 - b.x0)
      bars.push_back(&b);
  return bars;
}

DdpLayout plot_layout(float width, float font_px) {
  DdpLayout L;
  L.width = width - 8;
  L.label_w = ImGui::CalcTextSize("comm ").x + 6;
  L.gap = ddp_lane_gap(font_px);
  return L;
}

}  // namespace

bool ddp_label_row_needed(const ddp::Result& r, int it, float width) {
  // (The bars' x do not depend on the lanes' height: a first scene tells.)
  return !strip_bars(build_ddp_scene(r, it, plot_layout(width, ImGui::GetFontSize()))).empty();
}

void draw_ddp_plot(const ddp::Result& r, int it, DdpDrawn& drawn) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight();
  const int n = r.options.ranks;
  const std::string note = note_text(r, it, build_ddp_scene(r, it, DdpLayout{}).gaps);
  drawn.note_text = note;
  float note_h = ImGui::CalcTextSize(note.c_str(), nullptr, false, avail.x).y + lh * 0.2f;
  const float axis_h = lh + 6;
  DdpLayout L = plot_layout(avail.x, fs);
  drawn.comm_labels.clear();
  std::fill(std::begin(drawn.strip_box), std::end(drawn.strip_box), 0.f);
  drawn.strip_rows = 0;
  drawn.labels_left_out = 0;
  // A comm call whose label does not fit in its bar is labelled in a strip
  // under the comm lane, one row, its label at the call's start (or as near
  // as the labels before it allow) with a leader up to its bar, at most
  // kDdpLabelMaxPx tall (ddp_label_px). (The bars' x do not depend on the
  // lanes' height: a first scene tells.)
  const float label_px = ddp_label_px(fs), label_scale = label_px / fs;
  bool strip = ddp_label_row_needed(r, it, avail.x);
  float strip_h = strip ? ddp_label_row_height(fs) : 0.f;
  const auto lane_h = [&](float note) {
    return (avail.y - axis_h - strip_h - note - 4 - L.gap * float(n)) / float(n + 1);
  };
  // The note is a footnote: it gives way when keeping it would leave a
  // lane shorter than its least height (large text above a lesson), where
  // lanes' labels and the bars' "L3" would be cramped or no longer drawn.
  drawn.note = lane_h(note_h) >= kDdpMinLaneLines * fs;
  if (!drawn.note) note_h = 0;
  // The label strip is worth a quarter line of each lane (lanes down to one
  // line of text, which still holds their names and "L3"); below that it
  // gives way: the labels that do not fit their bars are then left out,
  // never drawn over the lanes or cut; their bars keep the tooltip.
  // (Half a pixel of slack: panel_ddp.cpp hands over exactly one line a lane.)
  if (strip && lane_h(note_h) < fs - 0.5f) strip = false, strip_h = 0;
  L.lane_h = std::clamp(lane_h(note_h), 6.f, fs * 4.f);
  L.comm_h = L.lane_h;
  drawn.lane_h = L.lane_h;
  const DdpScene sc = build_ddp_scene(r, it, L);
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  auto P = [&](float x, float y) { return ImVec2(o.x + x, o.y + y); };

  // Lanes and grid.
  for (const DdpLane& l : sc.lanes) {
    dl->AddRectFilled(P(sc.plot_x0, l.y0), P(sc.plot_x1, l.y1), im(from_hex(assets::kPanel)));
    // Every lane keeps its name: in a lane thinner than the text, the name
    // shrinks to the lane (it used to be left out on every other lane).
    const float px = std::min(fs, std::max(8.f, l.y1 - l.y0));
    const float ty = l.y0 + (l.y1 - l.y0 - px) / 2;
    dl->AddText(ImGui::GetFont(), px, P(0, ty), ink, l.label.c_str());
  }
  // Tick labels that would run into the one before (large text in a narrow
  // view) are left out; the grid line stays.
  float last_right = -1e9f;
  for (const DdpTick& t : sc.ticks) {
    dl->AddLine(P(t.x, 0), P(t.x, sc.height + strip_h + 3), faint, 1);
    const float tw = ImGui::CalcTextSize(t.text.c_str()).x;
    const float tx = std::min(t.x - tw / 2, sc.plot_x1 - tw);
    if (tx < last_right + fs * 0.5f) continue;
    dl->AddText(P(tx, sc.height + strip_h + 4), ink, t.text.c_str());
    last_right = tx + tw;
  }
  // Bars (waits are drawn last: they shade the rank lane over nothing else).
  const DdpBar* hover_bar = nullptr;
  for (const DdpBar& b : sc.bars) {
    const ImVec2 a = P(b.x0, b.y0), e = P(b.x1, b.y1);
    dl->AddRectFilled(a, e, im(b.color));
    if (b.kind == DdpBarKind::wait) {
      dl->PushClipRect(a, e, true);
      const SmoothLines smooth(dl);  // diagonal hatching
      for (float x = a.x - (e.y - a.y); x < e.x; x += 8)
        dl->AddLine(ImVec2(x, e.y), ImVec2(x + (e.y - a.y), a.y), IM_COL32(213, 94, 0, 200), 1.5f);
      dl->PopClipRect();
    } else if (e.x - a.x >= 3) {  // a thin white edge separates neighbouring layers / calls
      dl->AddRect(a, e, IM_COL32(255, 255, 255, 255), 0, 0, 1);
    }
    if (b.kind == DdpBarKind::comm) {
      // Its label inside when it fits (in the bar's text colour), else in the strip (below).
      const ImVec2 ts = ImGui::CalcTextSize(b.label.c_str());
      if (!b.label.empty() && ts.x + 4 <= e.x - a.x) {
        const ImVec2 t((a.x + e.x - ts.x) / 2, (a.y + e.y - ts.y) / 2);
        dl->AddText(t, im(text_on(b.color)), b.label.c_str());
        drawn.bar_labels.push_back(b.label);
        drawn.comm_labels.push_back({b.label, {t.x, t.y, t.x + ts.x, t.y + ts.y}, false});
      }
    } else if (b.kind != DdpBarKind::wait) {
      // A layer's label inside its bar: the label, else the short one, when it fits.
      for (const std::string* text : {&b.label, &b.short_label}) {
        const ImVec2 ts = ImGui::CalcTextSize(text->c_str());
        if (text->empty() || ts.x + 4 > e.x - a.x || ts.y > e.y - a.y + 2) continue;
        dl->AddText(ImVec2((a.x + e.x - ts.x) / 2, (a.y + e.y - ts.y) / 2), im(text_on(b.color)), text->c_str());
        break;
      }
    }
    if (hovered_rect(a, e)) hover_bar = &b;
  }
  // The label strip: one row under the comm lane, every label whole, in
  // ink, in time order, none over another; a leader from each to its bar.
  // Labels that do not fit the row, even pushed together, are left out
  // (their bars keep the tooltip): none runs past the plot's right edge.
  const std::vector<const DdpBar*> bars = strip_bars(sc);
  if (strip) {
    const float y0 = sc.height + 3, ty = y0 + 2;
    std::vector<float> want, widths;
    for (const DdpBar* b : bars)
      want.push_back(b->x0), widths.push_back(ImGui::CalcTextSize(b->label.c_str()).x * label_scale);
    const DdpStrip at = ddp_strip_rows(want, widths, sc.plot_x0, sc.plot_x1, label_px * 0.5f, 1);
    drawn.strip_rows = at.rows;
    for (size_t i = 0; i < bars.size(); ++i) {
      const DdpBar& b = *bars[i];
      if (!at.at[i].shown) {
        ++drawn.labels_left_out;
        continue;
      }
      const float x = at.at[i].x;
      const float bx = (b.x0 + b.x1) / 2, lx = std::clamp(bx, x + 2, x + widths[i] - 2);
      dl->AddLine(P(bx, b.y1), P(lx, ty), im(b.color), 1.5f);
      dl->AddText(ImGui::GetFont(), label_px, P(x, ty), ink, b.label.c_str());
      drawn.bar_labels.push_back(b.label);
      const ImVec2 t = P(x, ty);
      drawn.comm_labels.push_back({b.label, {t.x, t.y, t.x + widths[i], t.y + label_px}, true});
    }
    const ImVec2 s0 = P(sc.plot_x0, y0), s1 = P(sc.plot_x1, y0 + strip_h);
    drawn.strip_box[0] = s0.x, drawn.strip_box[1] = s0.y, drawn.strip_box[2] = s1.x, drawn.strip_box[3] = s1.y;
  } else {
    drawn.labels_left_out = int(bars.size());
  }
  // The comm lane's idle gaps after backward: the longest of their labels
  // that fits, centred in the gap, in ink on the lane.
  for (const DdpGap& g : sc.gaps) {
    const DdpLane& lane = sc.lanes.back();
    for (const std::string& text : g.labels) {
      const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
      if (ts.x + 8 > g.x1 - g.x0 || ts.y > lane.y1 - lane.y0 + 2) continue;
      dl->AddText(P((g.x0 + g.x1 - ts.x) / 2, (lane.y0 + lane.y1 - ts.y) / 2), ink, text.c_str());
      drawn.gap_labels.push_back(text);
      break;
    }
  }
  // Bucket fill markers: a triangle at the top of the rank's lane.
  const DdpMarker* hover_marker = nullptr;
  const float tri = std::min(7.f, (sc.markers.empty() ? 7.f : sc.markers[0].y1 - sc.markers[0].y0));
  for (const DdpMarker& m : sc.markers) {
    const ImVec2 top = P(m.x, m.y0);
    dl->AddTriangleFilled(ImVec2(top.x - tri, top.y), ImVec2(top.x + tri, top.y), ImVec2(top.x, top.y + (m.y1 - m.y0)),
                          im(m.color));
    dl->AddLine(top, P(m.x, m.y1 + (sc.lanes[size_t(m.lane)].y1 - m.y1) * 0.5f), im(m.color), 2);
    if (hovered_rect(ImVec2(top.x - tri, top.y), ImVec2(top.x + tri, o.y + m.y1))) hover_marker = &m;
  }
  // Backward end: a dashed line across all lanes.
  for (float y = 0; y < sc.height; y += 8)
    dl->AddLine(P(sc.backward_end_x, y), P(sc.backward_end_x, std::min(y + 4, sc.height)), ink, 2);
  drawn.timeline_box[0] = o.x, drawn.timeline_box[1] = o.y;
  drawn.timeline_box[2] = o.x + avail.x, drawn.timeline_box[3] = o.y + sc.height + strip_h + axis_h;
  // Note under the axis.
  if (drawn.note) {
    dl->AddText(ImGui::GetFont(), fs, P(0, sc.height + strip_h + axis_h + 2), im(from_hex(0x606060)), note.c_str(), nullptr,
                avail.x);
  }
  ImGui::Dummy(ImVec2(avail.x, sc.height + strip_h + axis_h + note_h));
  if (ImGui::GetContentRegionAvail().y > lh * 3 && r.options.sharded) {
    ImGui::Spacing();
    ImGui::TextWrapped(
        "How to read it: each rank keeps one shard of every layer. Before using a layer (forward, then backward in "
        "reverse) the ranks all-gather its full parameters (AG, prefetched one layer ahead when prefetch is on); "
        "after a layer's backward they reduce-scatter its gradients (RS), each rank keeping the averaged block of its "
        "own shard. A rank blocked on an all-gather or, after backward, on the reduce-scatters, waits (shaded): "
        "exposed is the part of those waits while a collective ran, waited all of them (a slower rank included). "
        "overlap = 1 - exposed / comm.");
  } else if (ImGui::GetContentRegionAvail().y > lh * 3) {
    ImGui::Spacing();
    ImGui::TextWrapped(
        "How to read it: backward produces gradients from the last layer to the first. A bucket is full (triangle) once "
        "all its gradients are ready; it is posted in bucket order, and when every rank has posted it the communication "
        "thread all-reduces it while backward continues. A rank that finished backward waits (shaded) for its last "
        "result: waited. The part of that wait while an all-reduce ran is exposed communication (at most comm); the "
        "rest is waiting for a slower rank to post and for the hand-off. overlap = 1 - exposed / comm.");
  }

  const auto& tl = r.timelines[size_t(sc.iteration)];
  if (hover_marker) {
    ImGui::BeginTooltip();
    ImGui::Text("bucket %d full on R%d at %.2f ms", hover_marker->bucket, hover_marker->rank, hover_marker->ready_ms);
    ImGui::Text("posted at %.2f ms%s", hover_marker->posted_ms,
                hover_marker->posted_ms > hover_marker->ready_ms + 0.01 ? " (waited for an earlier bucket)" : "");
    if (hover_marker->bucket < int(r.buckets.size()))
      ImGui::Text("%s: %s", human_bytes(double(r.buckets[size_t(hover_marker->bucket)].bytes)).c_str(),
                  bucket_params(r, hover_marker->bucket).c_str());
    ImGui::EndTooltip();
  } else if (hover_bar) {
    const DdpBar& b = *hover_bar;
    ImGui::BeginTooltip();
    switch (b.kind) {
      case DdpBarKind::forward:
      case DdpBarKind::backward:
        ImGui::Text("R%d %s, layer %d", b.rank, std::string(name(b.kind)).c_str(), b.layer);
        break;
      case DdpBarKind::comm: {
        const auto it = std::find_if(tl.comm.begin(), tl.comm.end(), [&](const auto& c) { return c.call == b.call; });
        ImGui::Text("call %d: %s %s", b.call, it != tl.comm.end() ? it->collective.c_str() : "?",
                    it != tl.comm.end() ? it->what.c_str() : "");
        ImGui::Text("%s per rank, %s", human_bytes(double(b.bytes)).c_str(),
                    r.options.sharded ? "ring" : r.options.algorithm.c_str());
        if (b.bucket >= 0 && r.options.overlap == ddp::Overlap::bucketed)
          ImGui::Text("holds %s", bucket_params(r, b.bucket).c_str());
        const double hidden = std::max(0.0, std::min(b.end_ms, tl.backward_end_ms) - b.begin_ms);
        ImGui::Text("%.2f ms while backward still ran", hidden);
        break;
      }
      case DdpBarKind::wait:
        ImGui::Text("R%d waits for call %d's result (exposed while a collective runs)", b.rank, b.call);
        break;
    }
    ImGui::Text("%.2f -> %.2f ms (%.2f ms)", b.begin_ms, b.end_ms, b.end_ms - b.begin_ms);
    ImGui::EndTooltip();
  }
}

}  // namespace microddp::viz
