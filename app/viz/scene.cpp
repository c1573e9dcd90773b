#include "app/viz/scene.h"

namespace microddp::viz {

std::vector<Rgba> stripes_for(uint64_t mask, int n, bool complete) {
  if (complete) return {complete_color()};
  std::vector<Rgba> out;
  for (int r = 0; r < n; ++r)
    if (mask >> r & 1) out.push_back(rank_color(r));
  if (out.empty()) out.push_back(empty_color());
  return out;
}

bool is_complete(const CollectiveSpec& s, uint64_t mask) {
  return is_reducing(s.collective) && s.world_size > 1 && mask == all_ranks(s.world_size);
}

Vec2 bezier(Vec2 a, Vec2 c, Vec2 b, float t) {
  const float u = 1 - t;
  return Vec2{u * u * a.x + 2 * u * t * c.x + t * t * b.x, u * u * a.y + 2 * u * t * c.y + t * t * b.y};
}

}  // namespace microddp::viz
