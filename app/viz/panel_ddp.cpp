// DDP view: data-parallel training run for real (ddp::run_ddp on a
// background thread), drawn as a timeline of one iteration: a lane per rank
// with forward and backward per layer, the moment each gradient bucket is
// full, each bucket's all-reduce on the communication lane, and the time a
// rank waits for results shaded (exposed while a collective runs). A sharded run
// (FSDP-style, a lesson's beat) has no buckets: its communication lane shows
// each layer's all-gather and reduce-scatter in their own colours, and the
// bucket controls are hidden. Changing a control re-runs the training; hover
// shows the numbers.
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
#include "core/algorithms/registry.h"

namespace microddp::viz {

namespace {

void item_tip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

std::string param_name(int p) { return fmt::format("{}{}", p % 2 == 0 ? "W" : "b", p / 2); }

std::string bucket_params(const ddp::Result& r, int bucket) {
  if (bucket < 0 || bucket >= int(r.buckets.size())) return "";
  const auto& ps = r.buckets[size_t(bucket)].params;
  std::string s;
  for (size_t i = 0; i < ps.size() && i < 8; ++i) s += (i ? ", " : "") + param_name(ps[i]);
  if (ps.size() > 8) s += fmt::format(", … ({} tensors)", ps.size());
  return s;
}

// The next item on this line when `w` pixels (plus its label) still fit,
// else on the next: large text wraps instead of running off the window.
// Decided before moving the cursor: a SameLine taken back with NewLine
// would leave the window's (and a group's) extent at the gap past the edge.
void wrap_for(float w, const char* label = "", float gap = -1) {
  const float g = gap < 0 ? ImGui::GetStyle().ItemSpacing.x : gap;
  const float lw = *label ? ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x : 0;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + g + w + lw <= right) ImGui::SameLine(0, gap);
}

void controls(App& app) {
  DdpView& d = app.ddp;
  ddp::Options& p = d.edit.run;
  const float em = ImGui::GetFontSize();
  // Row 1: what trains. A sharded run has no buckets and always runs the
  // ring (ddp.h): its overlap, bucket and algorithm controls would change
  // nothing, so they are not shown.
  d.drawn.bucket_controls = !p.sharded;
  if (!p.sharded) {
    static const ddp::Overlap modes[] = {ddp::Overlap::none, ddp::Overlap::per_param, ddp::Overlap::bucketed};
    ImGui::SetNextItemWidth(em * 7);
    if (ImGui::BeginCombo("##overlap", std::string(ddp::name(p.overlap)).c_str())) {
      for (ddp::Overlap m : modes)
        if (ImGui::Selectable(std::string(ddp::name(m)).c_str(), m == p.overlap)) p.overlap = m;
      ImGui::EndCombo();
    }
    item_tip("overlap mode\nnone: one all-reduce of every gradient after backward\n"
             "per-param: one all-reduce per gradient as soon as it is ready\n"
             "bucketed: one all-reduce per bucket as soon as it is full (PyTorch DDP)");
  }
  if (!p.sharded) {
    wrap_for(em * 9, "bucket");
    ImGui::BeginDisabled(p.overlap != ddp::Overlap::bucketed);
    ImGui::SetNextItemWidth(em * 9);
    float cap = float(p.bucket_cap_mb);
    if (ImGui::SliderFloat("bucket", &cap, 0.05f, 25.f, "%.3g MB", ImGuiSliderFlags_Logarithmic))
      p.bucket_cap_mb = std::clamp(double(cap), 0.05, 25.0);
    ImGui::EndDisabled();
    item_tip("bucket cap (bucket_cap_mb; 1 MB = 2^20 bytes). A bucket closes once it reaches the cap.");
    wrap_for(em * 5, "ranks", em);
  }
  ImGui::SetNextItemWidth(em * 5);
  ImGui::InputInt("ranks", &p.ranks, 1, 2);
  p.ranks = std::clamp(p.ranks, 1, 16);
  wrap_for(em * 5, "depth", em);
  ImGui::SetNextItemWidth(em * 5);
  ImGui::InputInt("depth", &p.depth, 1, 4);
  p.depth = std::clamp(p.depth, 1, 32);
  item_tip("linear layers");
  wrap_for(em * 6, "width", em);
  ImGui::SetNextItemWidth(em * 6);
  ImGui::InputInt("width", &p.width, 32, 128);
  p.width = std::clamp(p.width, 8, 1024);
  item_tip("every layer is width x width (float32)");
  wrap_for(em * 6.5f, "delay µs", em);
  ImGui::SetNextItemWidth(em * 6.5f);
  ImGui::InputInt("delay µs", &p.layer_delay_us, 500, 2000);
  p.layer_delay_us = std::clamp(p.layer_delay_us, 0, 20000);
  item_tip("extra compute per layer and pass (a sleep, microseconds): a bigger model's proportions");
  if (!p.sharded) {
    wrap_for(em * 9, "", em);
    const auto& algs = algorithms_for(Collective::all_reduce);
    ImGui::SetNextItemWidth(em * 9);
    if (ImGui::BeginCombo("##ddp_algorithm", p.algorithm.c_str())) {
      for (const auto& a : algs)
        if (ImGui::Selectable(a.c_str(), a == p.algorithm)) p.algorithm = a;
      ImGui::EndCombo();
    }
    item_tip("all-reduce algorithm the communication thread runs");
  }

  // Row 2: the view switch, text size, what runs.
  int view = 2;
  const float radio = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::RadioButton("Step-through", &view, 0);
  wrap_for(radio, "Compare");
  ImGui::RadioButton("Compare", &view, 1);
  wrap_for(radio, "DDP");
  ImGui::RadioButton("DDP", &view, 2);
  if (view != 2) {
    app.vs.view = view == 1 ? View::compare : View::main;
    app.vs.playing = false;
    app.vs.anim = 1;
  }
  wrap_for(em * 5, "text");
  ImGui::SetNextItemWidth(em * 5);
  float fp = app.vs.font_px;
  if (ImGui::SliderFloat("text", &fp, 12.f, 40.f, "%.0f px")) app.vs.font_px = fp;
  const auto r = d.runner.result();
  if (r && r->timelines.size() > 1) {
    wrap_for(em * 8);
    int shown = d.iteration < 0 ? int(r->timelines.size()) : d.iteration + 1;
    ImGui::SetNextItemWidth(em * 8);
    const std::string f = fmt::format("iteration %d of {}", r->timelines.size());
    if (ImGui::SliderInt("##ddp_iter", &shown, 1, int(r->timelines.size()), f.c_str()))
      d.iteration = shown == int(r->timelines.size()) ? -1 : shown - 1;
    item_tip("an untimed warm-up iteration ran before the first one shown (threads starting, first touch of buffers), so every iteration here is warm");
  }
  if (d.runner.running()) {
    const std::string t =
        fmt::format("running… ({} worker threads, training for real)", d.runner.running_params().run.ranks);
    wrap_for(ImGui::CalcTextSize(t.c_str()).x);
    ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "%s", t.c_str());
  } else if (r) {
    const std::string t = fmt::format("ran in {:.2f} s", d.runner.last_run_seconds());
    wrap_for(ImGui::CalcTextSize(t.c_str()).x);
    ImGui::TextDisabled("%s", t.c_str());
  }
}

// The stats line's parts, each kept whole and placed on the line while it
// fits (wrap_for): the overlap, the calls, the times, the replicas' check
// and the loss.
struct StatsPart {
  std::string text;
  ImVec4 color;
  bool plain = true;  // in the text colour, else in `color`
};
constexpr float kStatsGap = 14, kLegendGap = 16;

std::vector<StatsPart> stats_parts(const ddp::Result& r, int it, DdpDrawn& drawn) {
  const ddp::IterationStats& s = r.iterations[size_t(it)];
  // The calls by their collective: a sharded run all-gathers and reduce-scatters.
  drawn.calls = ddp_calls_text(r.timelines[size_t(std::min(it, int(r.timelines.size()) - 1))]);
  const std::string ref = std::isnan(r.max_reference_rel_error)
                              ? std::string()
                              : fmt::format(" (vs 1 process: {:.1e})", r.max_reference_rel_error);
  return {
      {fmt::format("overlap {:.0f}%", 100 * s.overlap_fraction), ImVec4(0.0f, 0.45f, 0.70f, 1), false},
      {drawn.calls, {}, true},
      // exposed <= comm; waited also holds waiting for slower ranks (ddp.h).
      {fmt::format("compute {:.1f} ms  comm {:.1f} ms  exposed {:.1f} ms  waited {:.1f} ms", s.compute_ms, s.comm_ms,
                   s.exposed_comm_ms, s.waited_ms),
       {}, true},
      {fmt::format("replicas {}", r.replicas_identical ? "identical" : "DIFFER"),
       r.replicas_identical ? ImVec4(0, 0.5f, 0.3f, 1) : ImVec4(0.8f, 0.2f, 0, 1), false},
      {fmt::format("loss {:.6g} -> {:.6g}{}", r.iterations.front().loss, r.iterations.back().loss, ref), {}, true},
  };
}

void stats_line(const std::vector<StatsPart>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) wrap_for(ImGui::CalcTextSize(parts[i].text.c_str()).x, "", kStatsGap);
    if (parts[i].plain)
      ImGui::TextUnformatted(parts[i].text.c_str());
    else
      ImGui::TextColored(parts[i].color, "%s", parts[i].text.c_str());
  }
}

void legend(bool sharded, DdpDrawn& drawn) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sz = ImGui::GetTextLineHeight();
  bool first = true;
  drawn.legend.clear();
  ImGui::BeginGroup();
  for (const DdpLegendItem& item : ddp_legend(sharded)) {
    const char* label = item.text.c_str();
    if (!first) wrap_for(sz * 1.4f + 4 + ImGui::CalcTextSize(label).x, "", kLegendGap);
    first = false;
    const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + sz * 1.4f, a.y + sz);
    const float cx = (a.x + b.x) / 2;
    switch (item.swatch) {
      case DdpSwatch::fill:
        dl->AddRectFilled(a, b, im(item.color));
        break;
      case DdpSwatch::bucket_hues: {
        const float w = (b.x - a.x) / 3;
        for (int i = 0; i < 3; ++i)
          dl->AddRectFilled(ImVec2(a.x + w * i, a.y), ImVec2(a.x + w * (i + 1), b.y), im(bucket_color(i)));
        break;
      }
      case DdpSwatch::marker:
        dl->AddTriangleFilled(ImVec2(cx - 6, a.y), ImVec2(cx + 6, a.y), ImVec2(cx, a.y + 9), im(item.color));
        dl->AddLine(ImVec2(cx, a.y), ImVec2(cx, b.y), im(item.color), 2);
        break;
      case DdpSwatch::hatch:
        dl->AddRectFilled(a, b, im(item.color));
        break;
      case DdpSwatch::dashed:
        for (float y = a.y; y < b.y; y += 6) dl->AddLine(ImVec2(cx, y), ImVec2(cx, std::min(y + 3, b.y)), im(item.color), 2);
        break;
    }
    ImGui::Dummy(ImVec2(sz * 1.4f + 4, sz));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(label);
    drawn.legend.push_back(item.text);
  }
  ImGui::EndGroup();
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  drawn.legend_box[0] = a.x, drawn.legend_box[1] = a.y, drawn.legend_box[2] = b.x, drawn.legend_box[3] = b.y;
}

// The height the header, the stats and the legend take at `scale` times
// the text size in a region `avail_w` wide, spacing included: the header
// wrapped as TextWrapped wraps it, the stats' parts and the legend's items
// as wrap_for places them (greedy_lines), each line a line of text.
float text_blocks_height(const std::string& header, const std::vector<StatsPart>& parts, bool sharded, float scale,
                         float avail_w) {
  ImFont* font = ImGui::GetFont();
  const float px = ImGui::GetFontSize() * scale, sp = ImGui::GetStyle().ItemSpacing.y;
  // Rounded up as ImGui::CalcTextSize rounds, and a pixel more: at the scale
  // where a line just fits, a part that wraps after all adds a line.
  const auto width = [&](const std::string& t) {
    return std::floor(font->CalcTextSizeA(px, FLT_MAX, 0, t.c_str()).x + 0.95f) + 1;
  };
  const float header_h = font->CalcTextSizeA(px, FLT_MAX, avail_w, header.c_str(), nullptr).y;
  std::vector<float> stats_w, legend_w;
  for (const StatsPart& p : parts) stats_w.push_back(width(p.text));
  for (const DdpLegendItem& item : ddp_legend(sharded)) legend_w.push_back(px * 1.4f + 4 + width(item.text));
  const int lines = greedy_lines(stats_w, kStatsGap, avail_w) + greedy_lines(legend_w, kLegendGap, avail_w);
  return header_h + sp + float(lines) * (px + sp);
}

// The largest text scale (at most 1) at which the text blocks fit `budget`
// pixels of height (bisection, as buffers_fit_scale does for the buffers),
// the text no smaller than kDdpMinTextPx; that least scale when none fits.
float text_blocks_scale(const std::string& header, const std::vector<StatsPart>& parts, bool sharded, float budget,
                        float avail_w) {
  const auto fits = [&](float s) { return text_blocks_height(header, parts, sharded, s, avail_w) <= budget; };
  if (fits(1)) return 1;
  float lo = std::min(1.f, kDdpMinTextPx / ImGui::GetFontSize()), hi = 1;
  if (!fits(lo)) return lo;
  for (int i = 0; i < 12; ++i) {
    const float mid = (lo + hi) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The note under the axis (wrapped to the panel's width), with the
// sentence on a collective far slower than its peers (slow_call_note).
std::string note_text(const ddp::Result& r, int it) {
  const int n = r.options.ranks, cpus = int(std::thread::hardware_concurrency());
  double load = -1;
  if (getloadavg(&load, 1) != 1) load = -1;
  const std::string slow = slow_call_note(r, it, cpus, load);
  return fmt::format("Measured on this machine ({} cores, threads backend): {} worker threads and the collective's "
                     "threads share the CPUs.{}{}",
                     cpus, n, slow.empty() ? "" : " ", slow);
}

void draw_plot(const ddp::Result& r, int it, DdpDrawn& drawn) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fs = ImGui::GetFontSize(), lh = ImGui::GetTextLineHeight();
  const int n = r.options.ranks;
  const std::string note = note_text(r, it);
  drawn.note_text = note;
  float note_h = ImGui::CalcTextSize(note.c_str(), nullptr, false, avail.x).y + lh * 0.2f;
  const float axis_h = lh + 6;
  DdpLayout L;
  L.width = avail.x - 8;
  L.label_w = ImGui::CalcTextSize("comm ").x + 6;
  L.gap = ddp_lane_gap(fs);
  const auto lane_h = [&](float note) { return (avail.y - axis_h - note - 4 - L.gap * float(n)) / float(n + 1); };
  // The note is a footnote: it gives way when keeping it would leave a
  // lane shorter than its least height (large text above a lesson), where
  // lanes' labels and the bars' "L3" would be cramped or no longer drawn.
  drawn.note = lane_h(note_h) >= kDdpMinLaneLines * fs;
  if (!drawn.note) note_h = 0;
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
    dl->AddLine(P(t.x, 0), P(t.x, sc.height + 3), faint, 1);
    const float tw = ImGui::CalcTextSize(t.text.c_str()).x;
    const float tx = std::min(t.x - tw / 2, sc.plot_x1 - tw);
    if (tx < last_right + fs * 0.5f) continue;
    dl->AddText(P(tx, sc.height + 4), ink, t.text.c_str());
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
    if (b.kind != DdpBarKind::wait) {
      // The full label when it fits, else the short one ("L3" for "AG L3":
      // the colour still tells the collective).
      bool labelled = false;
      for (const std::string* text : {&b.label, &b.short_label}) {
        if (text->empty()) continue;
        const ImVec2 ts = ImGui::CalcTextSize(text->c_str());
        if (ts.x + 4 <= e.x - a.x && ts.y <= e.y - a.y + 2) {
          dl->AddText(ImVec2((a.x + e.x - ts.x) / 2, (a.y + e.y - ts.y) / 2), im(text_on(b.color)), text->c_str());
          if (b.kind == DdpBarKind::comm) drawn.bar_labels.push_back(*text);
          labelled = true;
          break;
        }
      }
      // A call too short for its label (a fast all-gather) is labelled just
      // after its bar, in ink, when no other call's bar lies there.
      if (!labelled && b.kind == DdpBarKind::comm) {
        for (const std::string* text : {&b.label, &b.short_label}) {
          if (text->empty()) continue;
          const ImVec2 ts = ImGui::CalcTextSize(text->c_str());
          const float tx0 = b.x1 + 2, tx1 = tx0 + ts.x + 2;
          const bool free = tx1 <= sc.plot_x1 && ts.y <= e.y - a.y + 2 &&
                            std::none_of(sc.bars.begin(), sc.bars.end(), [&](const DdpBar& o2) {
                              return o2.kind == DdpBarKind::comm && &o2 != &b && o2.x0 < tx1 && o2.x1 > tx0;
                            });
          if (free) {
            dl->AddText(P(tx0, (b.y0 + b.y1 - ts.y) / 2), ink, text->c_str());
            drawn.bar_labels.push_back(*text);
            break;
          }
        }
      }
    }
    if (hovered_rect(a, e)) hover_bar = &b;
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
  drawn.timeline_box[2] = o.x + avail.x, drawn.timeline_box[3] = o.y + sc.height + axis_h;
  // Note under the axis.
  if (drawn.note) {
    dl->AddText(ImGui::GetFont(), fs, P(0, sc.height + axis_h + 2), im(from_hex(0x606060)), note.c_str(), nullptr, avail.x);
  }
  ImGui::Dummy(ImVec2(avail.x, sc.height + axis_h + note_h));
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

}  // namespace

void draw_ddp(App& app) {
  DdpView& d = app.ddp;
  d.runner.poll();
  // Present mode folds the controls away, as the main view does: the room
  // sees the run's header, stats, legend and timeline (a lesson's beat
  // text below). A run's error still shows.
  d.drawn.controls = !app.vs.present;
  d.drawn.bucket_controls = false;
  if (d.drawn.controls) controls(app);
  if (!d.runner.error().empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(200, 40, 0, 255));
    ImGui::TextWrapped("%s", d.runner.error().c_str());
    ImGui::PopStyleColor();
  }
  if (d.drawn.controls) ImGui::Separator();
  // A control or a lesson beat changed the options: train again.
  if (!d.runner.requested() || !(d.edit == d.runner.last_requested())) d.runner.request(d.edit);
  const auto r = d.runner.result();
  if (!r || r->timelines.empty() || r->iterations.empty()) {
    ImGui::TextUnformatted(d.runner.running() ? "running run_ddp for real…" : "no result yet");
    return;
  }
  const int it = d.iteration < 0 ? int(r->timelines.size()) - 1 : std::min(d.iteration, int(r->timelines.size()) - 1);
  const ddp::Options& rp = d.runner.result_params().run;
  // A sharded run (a lesson's FSDP beat) has no buckets: say what it is instead.
  const std::string mode = rp.sharded ? fmt::format("sharded, prefetch {}", rp.prefetch ? "on" : "off")
                           : rp.overlap == ddp::Overlap::bucketed
                               ? fmt::format("{} {:.3g} MB -> {} buckets", ddp::name(rp.overlap), rp.bucket_cap_mb, r->buckets.size())
                               : std::string(ddp::name(rp.overlap));
  // Sharded collectives always run the ring (ddp.h), whatever the algorithm option says.
  d.drawn.header = fmt::format("{}, {} ranks, MLP {} x ({} x {}), {}, {}, iteration {} of {}{}", rp.sharded ? "FSDP" : "DDP",
                               rp.ranks, rp.depth, rp.width, rp.width, mode, rp.sharded ? "ring" : rp.algorithm, it + 1,
                               r->timelines.size(), d.runner.running() ? "  (showing the previous run)" : "");
  d.drawn.bar_labels.clear();
  const std::vector<StatsPart> parts = stats_parts(*r, it, d.drawn);
  // The lanes come first: the header, stats and legend get what their
  // least height leaves, at a smaller text size when they need it, cut off
  // below that.
  const ImVec2 top = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  const float budget =
      std::max(ImGui::GetFontSize(), avail.y - ddp_timeline_min_height(r->options.ranks + 1, ImGui::GetFontSize()));
  d.drawn.text_scale = text_blocks_scale(d.drawn.header, parts, rp.sharded, budget, avail.x);
  ImGui::SetWindowFontScale(d.drawn.text_scale);
  ImGui::PushClipRect(top, ImVec2(top.x + avail.x, top.y + budget), true);
  ImGui::TextWrapped("%s", d.drawn.header.c_str());
  stats_line(parts);
  legend(rp.sharded, d.drawn);
  ImGui::PopClipRect();
  d.drawn.text_clipped = ImGui::GetCursorScreenPos().y > top.y + budget + 0.5f;
  if (d.drawn.text_clipped) {
    // What did not fit stays cut off, and says so at the edge.
    const char* more = "…";
    const ImVec2 ts = ImGui::CalcTextSize(more);
    ImGui::GetWindowDrawList()->AddText(ImVec2(top.x + avail.x - ts.x, top.y + budget - ts.y),
                                        im(from_hex(assets::kInk)), more);
    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + budget));
    for (const int i : {1, 3}) d.drawn.legend_box[i] = std::min(d.drawn.legend_box[i], top.y + budget);
  }
  ImGui::SetWindowFontScale(1);
  draw_plot(*r, it, d.drawn);
}

}  // namespace microddp::viz
