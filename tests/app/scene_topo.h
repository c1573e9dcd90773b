// Shared by the scene's network tests (test_scene_network*.cpp): the
// nvlink + infiniband topology source, a 2 x 4 run of an algorithm, and
// whether an arrow's Bezier comes near a rectangle.
#pragma once

#include <cmath>

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

}  // namespace microddp::viz::test
