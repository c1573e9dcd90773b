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

#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "assets/palette.h"
#include "core/algorithms/registry.h"

namespace microddp::viz {

namespace {

void item_tip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
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

// hide_loss: the beat's open question is about the trained parameters
// (ddp_loss_withheld): the loss's place says it comes after the question.
std::vector<StatsPart> stats_parts(const ddp::Result& r, int it, bool hide_loss, DdpDrawn& drawn) {
  const ddp::IterationStats& s = r.iterations[size_t(it)];
  // The calls by their collective: a sharded run all-gathers and reduce-scatters.
  drawn.calls = ddp_calls_text(r.timelines[size_t(std::min(it, int(r.timelines.size()) - 1))]);
  std::vector<StatsPart> parts{
      {fmt::format("overlap {:.0f}%", 100 * s.overlap_fraction), ImVec4(0.0f, 0.45f, 0.70f, 1), false},
      {drawn.calls, {}, true},
      // exposed <= comm; waited also holds waiting for slower ranks (ddp.h).
      {fmt::format("compute {:.1f} ms  comm {:.1f} ms  exposed {:.1f} ms  waited {:.1f} ms", s.compute_ms, s.comm_ms,
                   s.exposed_comm_ms, s.waited_ms),
       {}, true},
      {fmt::format("replicas {}", r.replicas_identical ? "identical" : "DIFFER"),
       r.replicas_identical ? ImVec4(0, 0.5f, 0.3f, 1) : ImVec4(0.8f, 0.2f, 0, 1), false},
      {hide_loss ? kDdpLossWithheld : ddp_loss_text(r), ImVec4(0.45f, 0.45f, 0.45f, 1), !hide_loss},
  };
  drawn.stats.clear();
  for (const StatsPart& p : parts) drawn.stats.push_back(p.text);
  return parts;
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
      case DdpSwatch::bucket_markers: {
        // Three fill markers in the bucket colours, as the lanes draw them.
        const float w = (b.x - a.x) / 3, t = std::min(5.f, w / 2 - 1);
        for (int i = 0; i < 3; ++i) {
          const float x = a.x + w * (float(i) + 0.5f);
          dl->AddTriangleFilled(ImVec2(x - t, a.y), ImVec2(x + t, a.y), ImVec2(x, a.y + 8), im(bucket_color(i)));
          dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), im(bucket_color(i)), 2);
        }
        break;
      }
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
                               ? fmt::format("{} {:g} MiB -> {} bucket{}", ddp::name(rp.overlap), rp.bucket_cap_mb, r->buckets.size(),
                                             r->buckets.size() == 1 ? "" : "s")
                               : std::string(ddp::name(rp.overlap));
  // Sharded collectives always run the ring (ddp.h), whatever the algorithm option says.
  d.drawn.header = fmt::format("{}, {} ranks, MLP {} x ({} x {}), {}, {}, iteration {} of {}{}", rp.sharded ? "FSDP" : "DDP",
                               rp.ranks, rp.depth, rp.width, rp.width, mode, rp.sharded ? "ring" : rp.algorithm, it + 1,
                               r->timelines.size(), d.runner.running() ? "  (showing the previous run)" : "");
  d.drawn.bar_labels.clear();
  d.drawn.gap_labels.clear();
  const bool hide_loss = app.lesson && app.lesson->checks_hidden() && ddp_loss_withheld(app.lesson->current());
  const std::vector<StatsPart> parts = stats_parts(*r, it, hide_loss, d.drawn);
  // The lanes come first: the header, stats and legend get what their
  // least height leaves, at a smaller text size when they need it, cut off
  // below that.
  // The plot's least height counts the comm label row when the run needs
  // one (lesson 10 b4 at 28 px lost 5 of its 12 labels when the texts took
  // it); where the texts at their least size would still be cut, the lanes
  // give way to one line of text first (a 40 px slide above a lesson's
  // four lines, layout.h kDdpPresentLessonLines).
  const ImVec2 top = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  const float fs = ImGui::GetFontSize();
  const int lanes = r->options.ranks + 1;
  const float row = ddp_label_row_needed(*r, it, avail.x) ? ddp_label_row_height(fs) : 0.f;
  // The texts keep ddp_text_px (20 px at 28) while the lanes can give way
  // to one line; the layout counts them at that size (DdpDrawn::text_h).
  const float least_text = text_blocks_height(d.drawn.header, parts, rp.sharded, ddp_text_px(fs) / fs, avail.x);
  d.drawn.text_h = least_text;
  d.drawn.label_row = row > 0;
  float plot_min = ddp_timeline_min_height(lanes, fs) + row;
  if (avail.y - plot_min < least_text) plot_min = std::max(ddp_timeline_height(lanes, fs, 1.f) + row, avail.y - least_text);
  const float budget = std::max(fs, avail.y - plot_min);
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
  draw_ddp_plot(*r, it, d.drawn);
}

}  // namespace microddp::viz
