// The compare plot's label placement (compare_plot_place.h).
#include "app/viz/compare_plot_place.h"

#include <algorithm>
#include <cmath>

namespace microddp::viz::compare_panel {

bool crosses(const Rect& r, const Segment& s, float pad) {
  // Liang-Barsky: clip the segment's parameter range to the grown box.
  const float xmin = r.x - pad, xmax = r.right() + pad, ymin = r.y - pad, ymax = r.bottom() + pad;
  const float dx = s.x1 - s.x0, dy = s.y1 - s.y0;
  float t0 = 0, t1 = 1;
  const float p[4] = {-dx, dx, -dy, dy};
  const float q[4] = {s.x0 - xmin, xmax - s.x0, s.y0 - ymin, ymax - s.y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;  // parallel to this edge and outside it
      continue;
    }
    const float t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

int pick_label_box(const std::vector<Rect>& candidates, const std::vector<Segment>& lines, const std::vector<Rect>& avoid) {
  int best = -1;
  long best_cost = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Rect& c = candidates[i];
    long crossed = 0, covered = 0;
    for (const Segment& s : lines) crossed += crosses(c, s);
    for (const Rect& a : avoid) covered += c.overlaps(a);
    const long cost = crossed * 100000 + covered;
    if (cost == 0) return int(i);
    if (best < 0 || cost < best_cost) best = int(i), best_cost = cost;
  }
  return best;
}

int pick_clear_of_text(const std::vector<Rect>& candidates, const std::vector<Segment>& lines,
                       const std::vector<Rect>& avoid, const std::vector<Rect>& texts) {
  std::vector<Rect> clear;
  std::vector<int> index;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (std::none_of(texts.begin(), texts.end(), [&](const Rect& t) { return candidates[i].overlaps(t); }))
      clear.push_back(candidates[i]), index.push_back(int(i));
  const int k = pick_label_box(clear, lines, avoid);
  return k < 0 ? -1 : index[size_t(k)];
}

std::vector<Rect> beside_candidates(const Rect& plot, float x, float w, float h, float y, float step, float gap,
                                    bool left_first) {
  std::vector<Rect> out;
  if (step == 0) return out;
  for (float ty = y; ty >= plot.y - 0.5f && ty + h <= plot.bottom() + 0.5f; ty += step) {
    const float right = x + gap, left = x - gap - w;
    const float xs[2] = {left_first ? left : right, left_first ? right : left};
    for (const float tx : xs)
      if (tx >= plot.x && tx + w <= plot.right()) out.push_back(Rect{tx, ty, w, h});
  }
  return out;
}

}  // namespace microddp::viz::compare_panel
