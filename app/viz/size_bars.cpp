#include "app/viz/size_bars.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/viz/compare_panel.h"
#include "app/viz/palette.h"
#include "app/viz/units.h"
#include "assets/palette.h"

namespace microddp::viz::compare_panel {

bool one_size(const Compare& cmp) {
  if (cmp.sweep.empty()) return false;
  for (const auto& c : cmp.sweep)
    if (c.bytes.size() != 1 || c.measured_us.size() != 1 || c.bytes[0] != cmp.sweep.front().bytes[0]) return false;
  return true;
}

std::string size_bars_header(const Compare& cmp) {
  int iters = 0;
  bool pred = false;
  for (const auto& c : cmp.sweep) {
    for (int n : c.samples) iters = std::max(iters, n);
    pred = pred || !c.predicted_us.empty();
  }
  return fmt::format("Time at {} per rank: bars the median{} (whiskers p10-p90){}.",
                     human_bytes(cmp.sweep.front().bytes[0]),
                     iters > 0 ? fmt::format(" of {} iterations", iters) : std::string(),
                     pred ? ", ticks the lab's model" : "");
}

bool labels_above(float label_w, float box_w) { return label_w > box_w * 0.2f; }

void draw_size_bars(App& app, ImDrawList* dl, ImVec2 p0, ImVec2 p1) {
  ViewState& vs = app.vs;
  const Compare& cmp = app.compare;
  const ImU32 ink = im(from_hex(assets::kInk)), faint = im(from_hex(assets::kFaint));
  const float lh = ImGui::GetTextLineHeight();
  double tmax = 0;
  float label_w = 0;
  for (const auto& c : cmp.sweep) {
    tmax = std::max(tmax, c.measured_us[0]);
    if (!c.p90_us.empty() && c.p90_us[0] > 0) tmax = std::max(tmax, c.p90_us[0]);
    if (!c.predicted_us.empty()) tmax = std::max(tmax, c.predicted_us[0]);
    label_w = std::max(label_w, ImGui::CalcTextSize(c.algorithm.c_str()).x);
  }
  const float value_w = ImGui::CalcTextSize("888 ms").x + lh;
  // A long label ("ring, run 'one_node' (1 node x 2 ranks)") goes above its
  // bar: beside it, it took half the box at 28 px (issue 37, lesson 09 beats
  // 13-14) and squeezed the bars (labels_above).
  const bool above = labels_above(label_w, p1.x - p0.x);
  const float x0 = above ? p0.x + lh * 0.5f : p0.x + label_w + lh, x1 = std::max(x0 + 10, p1.x - value_w);
  auto X = [&](double us) { return x0 + float(us / (tmax > 0 ? tmax : 1)) * (x1 - x0); };
  const size_t K = cmp.sweep.size();
  // A time axis below the bars (issue 37, lesson 03 beat 11 had none):
  // ticks at 1-2-5 steps from 0, four to eight of them, labelled.
  const float axis_y = std::max(p0.y + 8, p1.y - lh - 6);
  const float row = std::min((axis_y - p0.y) / float(K), lh * 3.5f);
  const float top = p0.y + ((axis_y - p0.y) - row * float(K)) / 2;
  dl->AddLine(ImVec2(x0, p0.y), ImVec2(x0, axis_y), faint);
  if (tmax > 0 && axis_y + lh <= p1.y + 0.5f) {
    dl->AddLine(ImVec2(x0, axis_y), ImVec2(x1, axis_y), ink);
    double step = std::pow(10, std::floor(std::log10(tmax / 4)));
    for (const double m : {1., 2., 5., 10.})
      if (tmax / (step * m) <= 6) {
        step *= m;
        break;
      }
    float last_right = -1e9f;
    for (double t = 0; t <= tmax * 1.0001; t += step) {
      const float x = X(t);
      dl->AddLine(ImVec2(x, axis_y), ImVec2(x, axis_y + 4), ink);
      const std::string l = t == 0 ? std::string("0") : format_us(t);  // the origin: "0", not "0 µs" under ms ticks
      const float w = ImGui::CalcTextSize(l.c_str()).x, tx = std::min(x - w / 2, p1.x - w);
      if (tx < last_right + lh * 0.5f) continue;
      dl->AddText(ImVec2(tx, axis_y + 4), ink, l.c_str());
      rec(vs, "size bar axis label " + l, ImVec2(tx, axis_y + 4), ImVec2(tx + w, axis_y + 4 + lh));
      last_right = tx + w;
    }
  }
  for (size_t k = 0; k < K; ++k) {
    const SweepCurve& c = cmp.sweep[k];
    // A compared run's curve ("ring, run 'one_node' ...") takes its algorithm's colour, lighter.
    const std::string alg = c.algorithm.substr(0, c.algorithm.find(','));
    const bool other = alg.size() != c.algorithm.size();
    const Rgba col = other ? with_alpha(algorithm_color(alg), 140) : algorithm_color(alg);
    // Above: the label's line, then the bar, centred together in the row.
    // (6 px between them: the model's tick stands 4 px out of its bar.)
    const float h = above ? std::max(lh * 0.5f, std::min(row * 0.55f, row - lh - 10)) : std::max(lh * 0.5f, row * 0.55f);
    const float yc = above ? top + row * float(k) + (row - (lh + 6 + h)) / 2 + lh + 6 + h / 2 : top + row * (float(k) + 0.5f);
    const ImVec2 a(x0, yc - h / 2), b(X(c.measured_us[0]), yc + h / 2);
    dl->AddRectFilled(a, ImVec2(std::max(b.x, a.x + 2), b.y), im(col));
    rec(vs, "size bar " + c.algorithm, a, b);
    if (!c.p10_us.empty() && c.p10_us[0] > 0 && !c.p90_us.empty() && c.p90_us[0] > 0) {
      const float lo = X(c.p10_us[0]), hi = X(c.p90_us[0]);
      dl->AddRectFilled(ImVec2(lo, yc - 1), ImVec2(hi, yc + 1), ink);
      dl->AddRectFilled(ImVec2(lo - 1, yc - h / 4), ImVec2(lo + 1, yc + h / 4), ink);
      dl->AddRectFilled(ImVec2(hi - 1, yc - h / 4), ImVec2(hi + 1, yc + h / 4), ink);
    }
    if (!c.predicted_us.empty() && c.predicted_us[0] > 0) {
      const float x = X(c.predicted_us[0]);
      // Outlined in ink: orange on the vermillion tree bar was nearly invisible (issue 37).
      const ImVec2 ta(x - 1.5f, yc - h / 2 - 3), tb(x + 1.5f, yc + h / 2 + 3);
      dl->AddRectFilled(ImVec2(ta.x - 1, ta.y - 1), ImVec2(tb.x + 1, tb.y + 1), ink);
      dl->AddRectFilled(ta, tb, im(predicted_color()));
      rec(vs, "size bar model tick " + c.algorithm, ImVec2(ta.x - 1, ta.y - 1), ImVec2(tb.x + 1, tb.y + 1));
    }
    const ImVec2 ls = ImGui::CalcTextSize(c.algorithm.c_str());
    const ImVec2 la = above ? ImVec2(x0, yc - h / 2 - 6 - ls.y) : ImVec2(p0.x + 4, yc - ls.y / 2);
    dl->AddText(la, ink, c.algorithm.c_str());
    rec(vs, "size bar label " + c.algorithm, la, ImVec2(la.x + ls.x, la.y + ls.y));
    const std::string v = format_us(c.measured_us[0]);
    const float vx = std::max(b.x, c.p90_us.empty() ? b.x : X(c.p90_us[0])) + lh * 0.4f;
    dl->AddText(ImVec2(vx, yc - lh / 2), ink, v.c_str());
    rec(vs, "size bar value " + v, ImVec2(vx, yc - lh / 2), ImVec2(vx + ImGui::CalcTextSize(v.c_str()).x, yc + lh / 2));
  }
}

}  // namespace microddp::viz::compare_panel
