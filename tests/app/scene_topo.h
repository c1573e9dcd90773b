// Shared by the scene's network tests (test_scene_network*.cpp): the
// nvlink + infiniband topology source, a 2 x 4 run of an algorithm, and
// whether an arrow comes near a rectangle or a point.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/scene.h"

namespace microddp::viz::test {

inline PredictionSource topo_source() {
  PredictionSource src;
  src.kind = PredictionSource::Kind::topology;
  src.intra = "nvlink";
  src.inter = "infiniband";
  return src;
}
inline RunParams two_by_four(const char* algorithm) {
  RunParams p;
  p.spec.algorithm = algorithm;
  p.spec.world_size = 8;
  p.spec.nodes = 2;
  p.spec.count = 64;  // float32: S = 256 bytes per rank
  return p;
}
// Whether the quadratic Bezier a-c-b comes within `pad` of the rectangle
// centre +- half (sampled finely: arrows are at most a few hundred pixels).
inline bool curve_hits(Vec2 a, Vec2 c, Vec2 b, Vec2 centre, Vec2 half, float pad) {
  for (int i = 0; i <= 200; ++i) {
    const Vec2 p = bezier(a, c, b, float(i) / 200);
    if (std::abs(p.x - centre.x) <= half.x + pad && std::abs(p.y - centre.y) <= half.y + pad) return true;
  }
  return false;
}

// The same for a drawn arrow, Bezier or route through NICs (arrow_at,
// sampled every pixel or finer).
inline bool arrow_hits(const ArrowDraw& a, Vec2 centre, Vec2 half, float pad) {
  float len = 0;
  const std::vector<Vec2> path = arrow_path(a, 64);
  for (size_t i = 0; i + 1 < path.size(); ++i) len += std::hypot(path[i + 1].x - path[i].x, path[i + 1].y - path[i].y);
  const int k = std::max(200, static_cast<int>(len) * 2);
  for (int i = 0; i <= k; ++i) {
    const Vec2 p = arrow_at(a, float(i) / float(k));
    if (std::abs(p.x - centre.x) <= half.x + pad && std::abs(p.y - centre.y) <= half.y + pad) return true;
  }
  return false;
}
// The least distance from the arrow's line (sampled as arrow_hits) to c.
inline float arrow_distance(const ArrowDraw& a, Vec2 c) {
  float len = 0, best = 1e9f;
  const std::vector<Vec2> path = arrow_path(a, 64);
  for (size_t i = 0; i + 1 < path.size(); ++i) len += std::hypot(path[i + 1].x - path[i].x, path[i + 1].y - path[i].y);
  const int k = std::max(200, static_cast<int>(len) * 2);
  for (int i = 0; i <= k; ++i) {
    const Vec2 p = arrow_at(a, float(i) / float(k));
    best = std::min(best, std::hypot(p.x - c.x, p.y - c.y));
  }
  return best;
}

}  // namespace microddp::viz::test
