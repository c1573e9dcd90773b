// The arrows' routes on node boxes (build_topology calls these;
// scene_topology_parts.h declares them): an arrow inside a node bent clear
// of the other ranks and the NICs; an arrow between nodes through its two
// NICs. And the points along any arrow (scene_topology.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"

namespace microddp::viz {

namespace {

float length(Vec2 p, Vec2 q) { return std::hypot(q.x - p.x, q.y - p.y); }

// The corners of a routed arrow, a first and b last.
std::vector<Vec2> corners(const ArrowDraw& a) {
  std::vector<Vec2> c{a.a};
  c.insert(c.end(), a.via.begin(), a.via.end());
  c.push_back(a.b);
  return c;
}

// The least distance from c to the segment p-q.
float segment_distance(Vec2 p, Vec2 q, Vec2 c) {
  const float dx = q.x - p.x, dy = q.y - p.y, l2 = dx * dx + dy * dy;
  const float t = l2 > 0 ? std::clamp(((c.x - p.x) * dx + (c.y - p.y) * dy) / l2, 0.f, 1.f) : 0.f;
  return std::hypot(p.x + t * dx - c.x, p.y + t * dy - c.y);
}

bool segment_in_box(Vec2 p, Vec2 q, Vec2 centre, Vec2 half) {
  // Sampled: the boxes are small next to the segments' steps of 1 px.
  const int k = std::max(2, static_cast<int>(length(p, q)));
  for (int i = 0; i <= k; ++i) {
    const float t = float(i) / float(k);
    const float x = p.x + t * (q.x - p.x), y = p.y + t * (q.y - p.y);
    if (std::abs(x - centre.x) <= half.x && std::abs(y - centre.y) <= half.y) return true;
  }
  return false;
}

}  // namespace

std::vector<Vec2> arrow_path(const ArrowDraw& a, int segments) {
  if (a.via.empty()) {
    std::vector<Vec2> pts;
    for (int i = 0; i <= segments; ++i) pts.push_back(bezier(a.a, a.ctrl, a.b, float(i) / float(segments)));
    return pts;
  }
  return corners(a);
}

float route_length(const ArrowDraw& a) {
  const std::vector<Vec2> c = arrow_path(a);
  float total = 0;
  for (size_t i = 0; i + 1 < c.size(); ++i) total += length(c[i], c[i + 1]);
  return std::max(total, 1e-3f);
}

Vec2 arrow_at(const ArrowDraw& a, float t) {
  if (a.via.empty()) return bezier(a.a, a.ctrl, a.b, t);
  const std::vector<Vec2> c = corners(a);
  float total = 0;
  for (size_t i = 0; i + 1 < c.size(); ++i) total += length(c[i], c[i + 1]);
  float left = std::clamp(t, 0.f, 1.f) * total;
  for (size_t i = 0; i + 1 < c.size(); ++i) {
    const float l = length(c[i], c[i + 1]);
    if (left <= l && l > 0) {
      const float u = left / l;
      return Vec2{c[i].x + u * (c[i + 1].x - c[i].x), c[i].y + u * (c[i + 1].y - c[i].y)};
    }
    left -= l;
  }
  return c.back();
}

Vec2 arrow_dir(const ArrowDraw& a, float t) {
  const float e = 0.01f;
  const Vec2 p = arrow_at(a, std::max(t - e, 0.f)), q = arrow_at(a, std::min(t + e, 1.f));
  const float l = std::max(length(p, q), 1e-4f);
  return Vec2{(q.x - p.x) / l, (q.y - p.y) / l};
}

Vec2 nic_center(const NodeBoxDraw& b, int nic, int nics) {
  const float fx = (float(nic) + 1) / float(std::max(nics, 1) + 1);
  return Vec2{b.min.x + fx * (b.max.x - b.min.x), b.max.y - kNicStrip / 2};
}

std::vector<Vec2> nic_route(const TopologyScene& sc, int node_a, Vec2 nic_a, int node_b, Vec2 nic_b) {
  const int cols = std::min(static_cast<int>(sc.boxes.size()), 4);
  const int ra = node_a / cols, ca = node_a % cols, rb = node_b / cols, cb = node_b % cols;
  if (ra == rb && std::abs(ca - cb) == 1) return {nic_a, nic_b};  // side by side: across the gap
  // Otherwise along the lanes in the gaps: down below the sender's row,
  // along it to a gap between columns, along that to the receiver's row,
  // and up into its NIC.
  const NodeBoxDraw &ba = sc.boxes[static_cast<size_t>(node_a)], &bb = sc.boxes[static_cast<size_t>(node_b)];
  const float lane_a = ba.max.y + 5, lane_b = bb.max.y + 5;
  std::vector<Vec2> r{nic_a, Vec2{nic_a.x, lane_a}};
  if (ra != rb) {
    const float gx = ca + 1 < cols ? ba.max.x + 5 : ba.min.x - 5;
    r.push_back(Vec2{gx, lane_a});
    r.push_back(Vec2{gx, lane_b});
  }
  r.push_back(Vec2{nic_b.x, lane_b});
  r.push_back(nic_b);
  return r;
}

Vec2 clear_control(const TopologyScene& sc, const std::vector<Vec2>& nics, Vec2 nic_half, Vec2 a, Vec2 b, float bend,
                   int skip_a, int skip_b, float pad) {
  const Vec2 mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
  const float len = std::max(length(a, b), 1e-3f), ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;
  // To its own right first (the default), then further out, then to its
  // left: the magnitudes on the left differ from those on the right, so an
  // arrow and its opposite never take the same curve.
  Vec2 best{mid.x - uy * bend, mid.y + ux * bend};
  int best_hits = 1 << 30;
  for (const float k : {1.f, 1.6f, 2.4f, 3.4f, -1.3f, -2.f, -2.8f, -3.8f, 0.3f, -0.5f}) {
    const Vec2 c{mid.x - uy * bend * k, mid.y + ux * bend * k};
    int hits = 0;
    Vec2 p = a;
    for (int i = 1; i <= 32; ++i) {
      const Vec2 q = bezier(a, c, b, float(i) / 32);
      for (size_t j = 0; j < sc.nodes.size(); ++j) {
        const NodeDraw& nd = sc.nodes[j];
        if (static_cast<int>(j) == skip_a || static_cast<int>(j) == skip_b || nd.radius <= 0) continue;
        hits += segment_distance(p, q, nd.pos) < nd.radius + pad;
      }
      for (const Vec2& d : nics) hits += segment_in_box(p, q, d, Vec2{nic_half.x + pad, nic_half.y + pad});
      p = q;
    }
    if (hits < best_hits) best_hits = hits, best = c;
    if (hits == 0) break;
  }
  return best;
}

void add_lane_heads(TopologyScene& sc) {
  const Vec2 half = sc.nics.empty() ? Vec2{9, 6} : sc.nics.front().half;
  for (ArrowDraw& a : sc.arrows) {
    a.lane_head = false;
    if (a.via.size() < 2) continue;
    // The end head: from the last corner (the receiver's NIC) to b; the
    // part of that leg outside the NIC's square must hold it.
    const Vec2 nic = a.via.back();
    const float l = length(nic, a.b);
    if (l > 1e-3f) {
      const float ux = std::abs(a.b.x - nic.x) / l, uy = std::abs(a.b.y - nic.y) / l;
      const float in_square = std::min(ux > 1e-4f ? half.x / ux : 1e9f, uy > 1e-4f ? half.y / uy : 1e9f);
      if (l - in_square >= sc.head_len + 3) continue;
    }
    // The longest leg between the NICs, its head centred on its middle.
    size_t best = 0;
    float best_l = -1;
    for (size_t i = 0; i + 1 < a.via.size(); ++i)
      if (const float li = length(a.via[i], a.via[i + 1]); li > best_l) best_l = li, best = i;
    if (best_l < sc.head_len + 2 * std::max(half.x, half.y)) continue;  // no room between the squares
    const Vec2 p = a.via[best], q = a.via[best + 1];
    a.lane_dir = Vec2{(q.x - p.x) / best_l, (q.y - p.y) / best_l};
    a.lane_tip = Vec2{(p.x + q.x) / 2 + a.lane_dir.x * sc.head_len / 2, (p.y + q.y) / 2 + a.lane_dir.y * sc.head_len / 2};
    a.lane_head = true;
  }
}

}  // namespace microddp::viz
