// The ranks of several nodes (build_topology calls layout_node_fans,
// scene_topology_parts.h declares it): node boxes in rows, each node's
// ranks on an arc around its NIC, so that the way from a rank to its NIC
// passes no other rank.
#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"

namespace microddp::viz {

namespace {

constexpr float kPi = 3.14159265358979f;
// The least distance between two ranks' circles beyond their radii: a busy
// rank's 3 px outline reaches 1.5 px out of its circle, and 4 px stay clear
// between the outlines (lesson 12 beat 4 at 1280x720: R0/R1, R6/R7 and
// R14/R15 touched with 3 px).
constexpr float kRankGap = 2 * 1.5f + 4;

float segment_distance(Vec2 p, Vec2 q, Vec2 c) {
  const float dx = q.x - p.x, dy = q.y - p.y, l2 = dx * dx + dy * dy;
  const float t = l2 > 0 ? std::clamp(((c.x - p.x) * dx + (c.y - p.y) * dy) / l2, 0.f, 1.f) : 0.f;
  return std::hypot(p.x + t * dx - c.x, p.y + t * dy - c.y);
}

}  // namespace

bool layout_node_fans(TopologyScene& sc, std::vector<Vec2>& pos, int N, int g, float w, float h, float r_min,
                      float r_max, float sc_px, float& radius) {
  const int cols = std::min(N, 4), rows = (N + cols - 1) / cols;
  const float gap = 10, bw = (w - gap * float(cols + 1)) / float(cols), bh = (h - gap * float(rows + 1)) / float(rows);
  const float head = 24;  // the "node k" label's line
  const float pad = 6;
  // The NIC square's half height (add_network_loads: 6 px) and room around
  // it; an inter-node arrow's half width and a margin.
  const float nic_room = 6 + 4, line_pad = std::max(2.f * sc_px, 1.5f) * 0.9f + 2;
  // The ranks' places around the NIC at (0, 0) for radius r; false where
  // they do not fit the box.
  std::vector<Vec2> at(static_cast<size_t>(g));
  // strict: neighbours a badge's room apart and every way to the NIC an
  // arrow's width clear of the other circles; else (a small box) only
  // apart and clear.
  const auto fits = [&](float r, bool strict) {
    for (int i = 0; i < g; ++i)
      for (int j = 0; j < g; ++j) {
        if (i == j) continue;
        const Vec2 p = at[static_cast<size_t>(i)], q = at[static_cast<size_t>(j)];
        if (std::hypot(p.x - q.x, p.y - q.y) < 2 * r + (std::abs(i - j) == 1 && strict ? 8 : kRankGap)) return false;
        if (segment_distance(p, Vec2{}, q) < r + (strict ? line_pad : 1.f)) return false;  // rank i's way to the NIC
      }
    return true;
  };
  bool even = false;
  const auto place = [&](float r, bool strict) {
    // No taller than wide: a tall box gets a half circle, not an arch.
    const float rx = bw / 2 - pad - r, ry = std::min(bh - kNicStrip / 2 - head - r, rx);
    if (ry < r + nic_room || rx < r) return false;
    // The lowest ranks' circles above the NIC square.
    const float low = std::asin(std::min(1.f, (r + nic_room) / ry));
    const float span = g == 1 ? 0.f : std::min(kPi - 2 * low, float(g - 1) * kPi / 4);
    // Equal steps in angle (even: along the arc; on a flat arc equal angles
    // crowd the ends: lesson 12 beat 4's R0/R1 and R6/R7 touched while the
    // middle ranks stood far apart).
    if (!even) {
      for (int l = 0; l < g; ++l) {
        const float th = kPi / 2 + span / 2 - (g == 1 ? 0.f : span * float(l) / float(g - 1));
        at[static_cast<size_t>(l)] = Vec2{rx * std::cos(th), -ry * std::sin(th)};
      }
      return fits(r, strict);
    }
    constexpr int kSamples = 256;
    std::vector<float> len(kSamples + 1, 0.f);
    const auto arc = [&](float f) {
      const float th = kPi / 2 + span / 2 - span * f;
      return Vec2{rx * std::cos(th), -ry * std::sin(th)};
    };
    for (int k = 1; k <= kSamples; ++k) {
      const Vec2 a = arc(float(k - 1) / kSamples), b = arc(float(k) / kSamples);
      len[static_cast<size_t>(k)] = len[static_cast<size_t>(k - 1)] + std::hypot(b.x - a.x, b.y - a.y);
    }
    for (int l = 0; l < g; ++l) {
      const float want = g == 1 ? len.back() / 2 : len.back() * float(l) / float(g - 1);
      const size_t k = static_cast<size_t>(std::lower_bound(len.begin(), len.end(), want) - len.begin());
      const float f0 = float(k == 0 ? 0 : k - 1) / kSamples, f1 = float(k) / kSamples;
      const float l0 = len[k == 0 ? 0 : k - 1], l1 = len[std::min<size_t>(k, kSamples)];
      const float f = l1 > l0 ? f0 + (f1 - f0) * (want - l0) / (l1 - l0) : f1;
      at[static_cast<size_t>(l)] = g == 1 ? arc(0.5f) : arc(std::clamp(f, 0.f, 1.f));
    }
    return fits(r, strict);
  };
  // Equal angles first (strict, then only apart and clear), then equal
  // steps along the arc: the largest r of the first that fits.
  float r = r_min - 1;
  for (const bool ev : {false, true})
    for (const bool strict : {true, false}) {
      if (r >= r_min) break;
      even = ev;
      r = r_max;
      while (r >= r_min && !place(r, strict)) r -= 0.5f;
    }
  if (r < r_min) return false;
  radius = r;
  // Each box as tall as its arc (the label's row, the arc, the NIC strip),
  // centred in its slot: no empty box above the ranks.
  float top = 0;  // the highest circle's top above the NIC
  for (const Vec2& p : at) top = std::max(top, -p.y + r);
  const float box_h = std::min(bh, kNicStrip / 2 + top + head);
  sc.boxes.clear();
  sc.links.clear();
  for (int k = 0; k < N; ++k) {
    const float x0 = gap + float(k % cols) * (bw + gap), y0 = gap + float(k / cols) * (bh + gap) + (bh - box_h) / 2;
    NodeBoxDraw box{k, Vec2{x0, y0}, Vec2{x0 + bw, y0 + box_h}, 6, {}};
    const Vec2 nic = nic_center(box, 0, 1);
    for (int l = 0; l < g; ++l)
      pos[static_cast<size_t>(k * g + l)] = Vec2{nic.x + at[static_cast<size_t>(l)].x, nic.y + at[static_cast<size_t>(l)].y};
    sc.boxes.push_back(std::move(box));
  }
  return true;
}

}  // namespace microddp::viz
