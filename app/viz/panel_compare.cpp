// Compare view: chosen algorithms of one collective side by side on the same
// input, stepping together, each with its totals; beneath, time against
// message size (measured points from a quick sweep, predicted lines when the
// cost model is available) with the crossover where the ring wins.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/viz/panels.h"
#include "assets/palette.h"
#include "core/algorithms/registry.h"

namespace microddp::viz {

namespace {

void draw_sweep_plot(App& app, ImVec2 size) {
  Compare& cmp = app.compare;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  const float lh = ImGui::GetTextLineHeight();
  const float left = ImGui::CalcTextSize("100 ms ").x, bottom = lh * 1.4f, top = lh * 1.4f;
  const ImVec2 p0(o.x + left, o.y + top), p1(o.x + size.x - ImGui::CalcTextSize("256 KiB").x * 0.6f, o.y + size.y - bottom);
  dl->AddRect(p0, p1, faint);
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& c : cmp.sweep) {
    for (size_t i = 0; i < c.bytes.size(); ++i) {
      xmin = std::min(xmin, c.bytes[i]), xmax = std::max(xmax, c.bytes[i]);
      ymin = std::min(ymin, c.measured_us[i]), ymax = std::max(ymax, c.measured_us[i]);
      if (i < c.p10_us.size() && c.p10_us[i] > 0) ymin = std::min(ymin, c.p10_us[i]), ymax = std::max(ymax, c.p90_us[i]);
      if (i < c.predicted_us.size()) ymin = std::min(ymin, c.predicted_us[i]), ymax = std::max(ymax, c.predicted_us[i]);
    }
  }
  // The bars' meaning is in the title: the p10-p90 of the timed iterations
  // behind each dot (the median), as `microddp bench` reports them.
  int iters = 0;
  for (const auto& c : cmp.sweep)
    for (int n : c.samples) iters = std::max(iters, n);
  const std::string title =
      iters > 0 ? fmt::format("Time against message size (log-log): dots measured on this machine (median of {} "
                              "iterations, bars p10-p90), lines predicted",
                              iters)
                : std::string("Time against message size (log-log): dots measured on this machine, lines predicted");
  dl->AddText(ImVec2(o.x, o.y), ink, title.c_str());
  if (cmp.sweep.empty() || xmax <= 0) {
    dl->AddText(ImVec2(p0.x + 8, p0.y + 8), ink, "Press \"Measure sweep\" to time every algorithm over message sizes.");
    ImGui::Dummy(size);
    return;
  }
  const double lx0 = std::log10(xmin), lx1 = std::log10(std::max(xmax, xmin * 2));
  const double ly0 = std::floor(std::log10(std::max(ymin, 1e-3))), ly1 = std::ceil(std::log10(std::max(ymax, ymin * 2)));
  auto X = [&](double b) { return p0.x + float((std::log10(b) - lx0) / (lx1 - lx0)) * (p1.x - p0.x); };
  auto Y = [&](double us) {
    return p1.y - float((std::log10(std::max(us, 1e-3)) - ly0) / std::max(ly1 - ly0, 1e-9)) * (p1.y - p0.y);
  };
  for (double d = ly0; d <= ly1; d += 1) {
    const float y = Y(std::pow(10, d));
    dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), faint);
    const std::string t = format_us(std::pow(10, d));
    dl->AddText(ImVec2(o.x, y - lh / 2), ink, t.c_str());
  }
  for (size_t i = 0; i < cmp.sweep.front().bytes.size(); ++i) {
    const double b = cmp.sweep.front().bytes[i];
    const std::string t = human_bytes(b);
    const float x = X(b);
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x, p1.y + 4), ink);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(t.c_str()).x / 2, p1.y + 4), ink, t.c_str());
  }
  float legend_x = p0.x + 8;
  const SmoothLines smooth(dl);  // the plot's diagonals and dots: anti-aliased
  for (size_t k = 0; k < cmp.sweep.size(); ++k) {
    const auto& c = cmp.sweep[k];
    const Rgba col = algorithm_color(c.algorithm);
    for (size_t i = 0; i + 1 < c.predicted_us.size(); ++i)
      dl->AddLine(ImVec2(X(c.bytes[i]), Y(c.predicted_us[i])), ImVec2(X(c.bytes[i + 1]), Y(c.predicted_us[i + 1])),
                  im(col), 2.5f);
    for (size_t i = 0; i < c.bytes.size(); ++i) {
      const ImVec2 p(X(c.bytes[i]), Y(c.measured_us[i]));
      // Error bar p10..p90: whole pixels (filled rectangles, not lines), so
      // that a pixel probe at a cap sees the algorithm's colour exactly.
      const bool spread = i < c.p10_us.size() && c.p10_us[i] > 0 && c.p90_us[i] > 0;
      if (spread) {
        const float x = std::floor(p.x), lo = std::floor(Y(c.p10_us[i])), hi = std::floor(Y(c.p90_us[i]));
        const float cap = std::max(3.f, std::floor(lh * 0.3f));
        dl->AddRectFilled(ImVec2(x - 1, hi), ImVec2(x + 1, lo + 1), im(col));
        dl->AddRectFilled(ImVec2(x - cap, hi - 1), ImVec2(x + cap + 1, hi + 1), im(col));
        dl->AddRectFilled(ImVec2(x - cap, lo - 1), ImVec2(x + cap + 1, lo + 1), im(col));
        if (app.vs.collect_probes) {
          // The caps' end pixels, clear of the dot (radius lh·0.28 < cap).
          const std::string at = fmt::format("{} {}", c.algorithm, human_bytes(c.bytes[i]));
          app.vs.probes.push_back(Probe{int(x + cap), int(hi - 1), col, "error bar p90 " + at});
          app.vs.probes.push_back(Probe{int(x + cap), int(lo - 1), col, "error bar p10 " + at});
        }
      }
      dl->AddCircleFilled(p, lh * 0.28f, im(col), 16);
      if (i + 1 < c.bytes.size() && c.predicted_us.empty())
        dl->AddLine(p, ImVec2(X(c.bytes[i + 1]), Y(c.measured_us[i + 1])), im(with_alpha(col, 110)), 1.5f);
      if (hovered_rect(ImVec2(p.x - 6, p.y - 6), ImVec2(p.x + 6, p.y + 6)))
        ImGui::SetTooltip("%s, %s: measured %s (p10 %s, p90 %s, min %s, max %s over %d iterations), predicted %s",
                          c.algorithm.c_str(), human_bytes(c.bytes[i]).c_str(), format_us(c.measured_us[i]).c_str(),
                          format_us(spread ? c.p10_us[i] : -1).c_str(), format_us(spread ? c.p90_us[i] : -1).c_str(),
                          format_us(spread ? c.min_us[i] : -1).c_str(), format_us(spread ? c.max_us[i] : -1).c_str(),
                          i < c.samples.size() ? c.samples[i] : 0,
                          format_us(i < c.predicted_us.size() ? c.predicted_us[i] : -1).c_str());
    }
    dl->AddCircleFilled(ImVec2(legend_x + lh * 0.3f, p0.y + lh * 0.7f), lh * 0.3f, im(col), 16);
    dl->AddText(ImVec2(legend_x + lh * 0.8f, p0.y + lh * 0.2f), ink, c.algorithm.c_str());
    legend_x += lh * 1.5f + ImGui::CalcTextSize(c.algorithm.c_str()).x + lh;
  }
  // The crossover: a dashed line at the size from which ring is fastest,
  // measured (ring's dot ringed) and predicted (on ring's line).
  if (auto ring = std::find_if(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) { return c.algorithm == "ring"; });
      ring != cmp.sweep.end()) {
    auto vline = [&](double b, ImU32 col, const char* label, float row) {
      const float x = X(b);
      for (float y = p0.y; y < p1.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 4, p1.y)), col, 1.5f);
      // Right of the line, or left of it when it would run past the plot.
      const float w = ImGui::CalcTextSize(label).x;
      dl->AddText(ImVec2(x + 3 + w > p1.x ? x - 3 - w : x + 3, p0.y + lh * (1.3f + row)), col, label);
    };
    if (const int j = cmp.crossover_measured; j >= 0 && j < int(ring->bytes.size())) {
      vline(ring->bytes[j], ink, "crossover (measured)", 0);
      dl->AddCircle(ImVec2(X(ring->bytes[j]), Y(ring->measured_us[j])), lh * 0.6f, ink, 20, 2.f);
    }
    if (const int j = cmp.crossover_predicted; j >= 0 && j < int(ring->predicted_us.size())) {
      vline(ring->bytes[j], im(predicted_color()), "crossover (predicted)", 1);
      const ImVec2 q(X(ring->bytes[j]), Y(ring->predicted_us[j]));
      dl->AddRect(ImVec2(q.x - lh * 0.45f, q.y - lh * 0.45f), ImVec2(q.x + lh * 0.45f, q.y + lh * 0.45f),
                  im(predicted_color()), 0, 0, 2.f);
    }
  }
  const bool pred = std::any_of(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) { return !c.predicted_us.empty(); });
  // The lines say what they are based on (the columns share one source).
  std::string based;
  for (const auto& s : cmp.sessions)
    if (s) {
      based = s->prediction().source;
      break;
    }
  std::string note = cmp.crossover + (pred ? "   lines: " + based : "   (" + based + ")");
  dl->AddText(ImVec2(legend_x + lh, p0.y + lh * 0.2f), ink, note.c_str());
  ImGui::Dummy(size);
}

}  // namespace

void draw_compare(App& app) {
  ViewState& vs = app.vs;
  Compare& cmp = app.compare;
  const auto& algs = algorithms_for(vs.edit.spec.collective);
  ImGui::TextUnformatted("Algorithms:");
  bool changed = false;
  for (const auto& a : algs) {
    ImGui::SameLine();
    bool on = std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a) != vs.compare_algorithms.end();
    if (ImGui::Checkbox(a.c_str(), &on)) {
      changed = true;
      if (on) vs.compare_algorithms.push_back(a);
      else vs.compare_algorithms.erase(std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a));
    }
  }
  if (changed) {
    std::vector<std::string> ordered;
    for (const auto& a : algs)
      if (std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a) != vs.compare_algorithms.end())
        ordered.push_back(a);
    vs.compare_algorithms = ordered;
    cmp.configure(vs.edit, vs.compare_algorithms);
  }
  ImGui::SameLine(0, 30);
  // The largest size on a log slider (powers of two, 1 KiB .. 256 MiB).
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  const std::string max_label = "up to " + human_bytes(std::ldexp(1.0, vs.compare_sweep_max_log2));
  ImGui::SliderInt("##sweep_max", &vs.compare_sweep_max_log2, 10, 28, max_label.c_str());
  ImGui::SameLine();
  const int64_t max_bytes = int64_t{1} << vs.compare_sweep_max_log2;
  if (ImGui::Button("Measure sweep") || (vs.compare_sweep_requested && cmp.sweep.empty() && !cmp.sweeping())) {
    vs.compare_sweep_requested = false;
    cmp.start_sweep(kSweepMinBytes, max_bytes);
  }
  // One point per frame keeps the window drawing; a still frame waits for all.
  if (cmp.sweeping()) {
    if (vs.static_frame) while (cmp.sweep_step()) {}
    else cmp.sweep_step();
  }
  if (cmp.sweeping()) {
    ImGui::SameLine();
    ImGui::ProgressBar(float(cmp.sweep_progress()), ImVec2(ImGui::GetFontSize() * 8, 0), "measuring");
  }
  const size_t cols = std::max<size_t>(1, cmp.sessions.size());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float col_h = std::floor(avail.y * 0.58f);
  const float col_w = std::floor((avail.x - ImGui::GetStyle().ItemSpacing.x * float(cols - 1)) / float(cols));
  for (size_t i = 0; i < cmp.sessions.size(); ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginChild(fmt::format("col{}", i).c_str(), ImVec2(col_w, col_h), true, ImGuiWindowFlags_NoScrollbar);
    const Session* s = cmp.sessions[i].get();
    if (!s) {
      ImGui::Text("%s", cmp.algorithms[i].c_str());
      ImGui::TextWrapped("refused: %s", cmp.errors[i].c_str());
      ImGui::EndChild();
      continue;
    }
    const float text_h = ImGui::GetTextLineHeightWithSpacing() * 3.2f;
    const ImVec2 a = ImGui::GetContentRegionAvail();
    draw_topology(app, *s, s->position(), ImVec2(a.x, a.y - text_h), true);
    const Stats st = build_stats(*s);
    ImGui::Text("steps %d   busiest rank R%d: %s", st.steps, st.busiest_rank, human_bytes(double(st.busiest_rank_bytes)).c_str());
    // Mid-run both lines are of the same steps; the full-run prediction follows.
    const std::string part = st.finished ? "" : fmt::format(" ({} of {} steps)", st.steps_run, st.steps);
    ImGui::Text("measured %s%s", format_us(st.measured_us).c_str(), part.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, im(predicted_color()));
    if (st.finished || st.steps_run == 0 || st.predicted_run_us < 0)
      ImGui::Text("predicted %s", format_us(st.predicted_us).c_str());
    else
      ImGui::Text("predicted %s%s; all: %s", format_us(st.predicted_run_us).c_str(), part.c_str(),
                  format_us(st.predicted_us).c_str());
    ImGui::PopStyleColor();
    ImGui::EndChild();
  }
  draw_sweep_plot(app, ImGui::GetContentRegionAvail());
}

}  // namespace microddp::viz
