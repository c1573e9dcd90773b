// Geometry the topology tests share (test_topology_scale.cpp,
// test_topology_badges.cpp): boxes in window pixels, a badge's box, and
// whether a box meets a rank's circle or an arrow's drawn line.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/scene_topology.h"

namespace microddp::viz::test_topology {

struct Box {
  float x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool holds(const Box& o) const { return o.x0 >= x0 && o.x1 <= x1 && o.y0 >= y0 && o.y1 <= y1; }
};

inline Box badge_box(const ArrowDraw& a) {
  return Box{a.badge.x - a.badge_w / 2, a.badge.y - a.badge_h / 2, a.badge.x + a.badge_w / 2, a.badge.y + a.badge_h / 2};
}
inline bool box_hits_circle(const Box& b, Vec2 c, float r) {
  const float qx = std::clamp(c.x, b.x0, b.x1), qy = std::clamp(c.y, b.y0, b.y1);
  return std::hypot(qx - c.x, qy - c.y) < r;
}
// Whether arrow k runs along arrow a's first leg (the sender's way to its
// NIC): 1 k's first leg, 2 its last, 0 none (as place_badges reads it).
inline int shared_leg(const ArrowDraw& a, const ArrowDraw& k) {
  if (a.via.empty() || k.via.empty()) return 0;
  const auto same = [](Vec2 p, Vec2 q) { return std::abs(p.x - q.x) < 0.5f && std::abs(p.y - q.y) < 0.5f; };
  if (k.from == a.from && same(k.via.front(), a.via.front())) return 1;
  if (k.to == a.from && same(k.via.back(), a.via.front())) return 2;
  return 0;
}
// Whether the arrow's drawn line (half its width either side) crosses the
// box, but for the leg `skip` (1: its first, 2: its last, 0: none): its
// polyline sampled every few tenths of a pixel.
inline bool line_hits_box(const ArrowDraw& a, float half_w, const Box& b, int skip = 0) {
  std::vector<Vec2> path = arrow_path(a, 200);
  if (skip == 1) path.erase(path.begin());
  if (skip == 2) path.pop_back();
  for (size_t i = 0; i + 1 < path.size(); ++i)
    for (int k = 0; k <= 100; ++k) {
      const float u = float(k) / 100;
      const Vec2 p{path[i].x + u * (path[i + 1].x - path[i].x), path[i].y + u * (path[i + 1].y - path[i].y)};
      if (p.x > b.x0 - half_w && p.x < b.x1 + half_w && p.y > b.y0 - half_w && p.y < b.y1 + half_w) return true;
    }
  return false;
}

}  // namespace microddp::viz::test_topology
