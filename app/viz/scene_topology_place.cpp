// The topology's labels and badges placed at the text size (build_topology
// calls these; scene_topology_parts.h declares them): a rank's label inside
// its circle or beside it, each badge beside its arrow clear of the others.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"

namespace microddp::viz {

namespace {

constexpr float kPi = 3.14159265358979f;

struct Box {  // an axis-aligned rectangle, pixels
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  Box grown(float p) const { return Box{x0 - p, y0 - p, x1 + p, y1 + p}; }
};

Box centred(Vec2 c, float w, float h) { return Box{c.x - w / 2, c.y - h / 2, c.x + w / 2, c.y + h / 2}; }

bool inside(const Box& b, Vec2 canvas) { return b.x0 >= 0 && b.y0 >= 0 && b.x1 <= canvas.x && b.y1 <= canvas.y; }

// A node's shape: a circle, or (a switch) its box.
bool hits_node(const Box& b, const NodeDraw& nd, float pad) {
  if (nd.radius <= 0) return false;
  if (nd.is_switch) return b.overlaps(centred(nd.pos, 2 * nd.radius, 1.5f * nd.radius).grown(pad));
  const float qx = std::clamp(nd.pos.x, b.x0, b.x1), qy = std::clamp(nd.pos.y, b.y0, b.y1);
  const float r = nd.radius + pad;
  return (qx - nd.pos.x) * (qx - nd.pos.x) + (qy - nd.pos.y) * (qy - nd.pos.y) < r * r;
}

// Whether the segment p-q crosses the box (Liang-Barsky clipping).
bool segment_hits(Vec2 p, Vec2 q, const Box& b) {
  float t0 = 0, t1 = 1;
  const float dx = q.x - p.x, dy = q.y - p.y;
  const float ps[4] = {-dx, dx, -dy, dy}, qs[4] = {p.x - b.x0, b.x1 - p.x, p.y - b.y0, b.y1 - p.y};
  for (int i = 0; i < 4; ++i) {
    if (ps[i] == 0) {
      if (qs[i] < 0) return false;
      continue;
    }
    const float r = qs[i] / ps[i];
    if (ps[i] < 0) t0 = std::max(t0, r);
    else t1 = std::min(t1, r);
    if (t0 > t1) return false;
  }
  return true;
}

// An arrow as the badges see it: its curve as a polyline and its heads as
// thick segments, with the half widths they are drawn at, and a bounding box.
struct Stroke {
  std::vector<Vec2> pts;
  float pad = 1;
  std::vector<std::pair<Vec2, Vec2>> heads;  // base to tip
  float head_pad = 0;
  Box bounds;
};

constexpr int kStrokeSegments = 24;

Stroke stroke_of(const ArrowDraw& a, float line_w, float head_len) {
  Stroke s;
  s.pad = line_w / 2 + 1;
  s.pts = arrow_path(a, kStrokeSegments);
  const auto head = [&](Vec2 tip, float dx, float dy) {
    s.heads.push_back({Vec2{tip.x - dx * head_len, tip.y - dy * head_len}, Vec2{tip.x + dx * 2, tip.y + dy * 2}});
  };
  float dx = a.b.x - a.ctrl.x, dy = a.b.y - a.ctrl.y;
  const float len = std::max(std::hypot(dx, dy), 1e-3f);
  head(a.b, dx / len, dy / len);
  if (a.lane_head) head(a.lane_tip, a.lane_dir.x, a.lane_dir.y);
  s.head_pad = head_len * 0.55f + 1;
  s.bounds = Box{1e9f, 1e9f, -1e9f, -1e9f};
  const auto grow = [&](Vec2 p) {
    s.bounds = Box{std::min(s.bounds.x0, p.x), std::min(s.bounds.y0, p.y), std::max(s.bounds.x1, p.x),
                   std::max(s.bounds.y1, p.y)};
  };
  for (const Vec2& p : s.pts) grow(p);
  for (const auto& [p, q] : s.heads) grow(p), grow(q);
  s.bounds = s.bounds.grown(std::max(s.pad, s.head_pad));
  return s;
}

bool stroke_hits(const Stroke& s, const Box& b) {
  if (!s.bounds.overlaps(b)) return false;
  const Box bp = b.grown(s.pad);
  for (size_t i = 0; i + 1 < s.pts.size(); ++i)
    if (segment_hits(s.pts[i], s.pts[i + 1], bp)) return true;
  for (const auto& [p, q] : s.heads)
    if (segment_hits(p, q, b.grown(s.head_pad))) return true;
  return false;
}

// Whether arrow k runs along arrow a's first leg (its sender's way to its
// NIC, ArrowDraw::via): a's own, another send of that rank through the same
// NIC, or a message arriving at that rank over it. 1: k's first leg, 2: its
// last, 0: none.
int shared_leg(const ArrowDraw& a, const ArrowDraw& k) {
  if (a.via.empty() || k.via.empty()) return 0;
  const auto same = [](Vec2 p, Vec2 q) { return std::abs(p.x - q.x) < 0.5f && std::abs(p.y - q.y) < 0.5f; };
  if (k.from == a.from && same(k.via.front(), a.via.front())) return 1;
  if (k.to == a.from && same(k.via.back(), a.via.front())) return 2;
  return 0;
}

}  // namespace

void place_labels(TopologyScene& sc, const TopologyText& tx, Vec2 canvas) {
  std::vector<Box> placed;  // the labels placed beside their circles
  std::vector<size_t> outside;
  // Each label's largest size inside its shape (at most the text size).
  std::vector<float> fit(sc.nodes.size());
  for (size_t i = 0; i < sc.nodes.size(); ++i) {
    const NodeDraw& nd = sc.nodes[i];
    // Inside a circle: the corners of its glyphs' band (its width, 0.8 of
    // its height) 1 px inside the circle (as need_r in build_topology); a
    // switch box: 2r - 6 across, 1.5r high.
    const float k = std::max(tx.measure(nd.label, tx.font_px), 1.f) / tx.font_px;  // width per px of size
    const float px = nd.is_switch ? std::min((2 * nd.radius - 6) / k, 1.5f * nd.radius)
                                  : (nd.radius - 1) / std::hypot(k / 2, 0.4f);
    fit[i] = std::floor(std::min(px, tx.font_px) * 2) / 2;  // half pixels: no label a hair too wide
  }
  // A circle of ranks with no room for labels beside it: plates.
  const bool round_plates = !sc.labels_beside && sc.boxes.empty() &&
                            (sc.kind == TopologyKind::ring || sc.kind == TopologyKind::circle ||
                             sc.kind == TopologyKind::full_mesh || sc.kind == TopologyKind::star ||
                             sc.kind == TopologyKind::switch_star);
  // One size for the ranks' labels inside their circles: the least of
  // those that fit at the least text size or more; the others beside.
  float common = tx.font_px;
  for (size_t i = 0; i < sc.nodes.size(); ++i)
    if (!sc.nodes[i].is_switch && fit[i] >= tx.min_px) common = std::min(common, fit[i]);
  for (size_t i = 0; i < sc.nodes.size(); ++i) {
    NodeDraw& nd = sc.nodes[i];
    float px = nd.is_switch ? fit[i] : std::min(fit[i], common);
    nd.label_outside = px < tx.min_px;
    if (nd.label_outside && round_plates) {  // on a plate over the circle
      nd.label_outside = false;
      px = tx.min_px;
    } else if (nd.label_outside) {
      px = std::min(tx.font_px, std::max(tx.min_px, 0.75f * tx.font_px));
      outside.push_back(i);
    }
    nd.label_px = px;
    nd.label_size = Vec2{tx.measure(nd.label, px), px};
    nd.label_min = Vec2{nd.pos.x - nd.label_size.x / 2, nd.pos.y - nd.label_size.y / 2};
  }
  // Beside the circle: away from the centre of its node box (or of the
  // canvas), else turned by 45° steps, the first side clear of the canvas'
  // edges, the other circles and the labels already beside theirs.
  bool crowded = false;  // some label found no clear side
  for (const size_t i : outside) {
    NodeDraw& nd = sc.nodes[i];
    Vec2 centre{canvas.x / 2, canvas.y / 2};
    for (const NodeBoxDraw& b : sc.boxes)
      if (nd.pos.x >= b.min.x && nd.pos.x <= b.max.x && nd.pos.y >= b.min.y && nd.pos.y <= b.max.y)
        centre = Vec2{(b.min.x + b.max.x) / 2, (b.min.y + b.max.y) / 2};
    const float base = std::atan2(nd.pos.y - centre.y, nd.pos.x - centre.x);
    Box first;
    int first_hits = 1 << 30;
    for (const float turn : {0.f, 1.f, -1.f, 2.f, -2.f, 3.f, -3.f, 4.f}) {
      const float ang = base + turn * kPi / 4, dx = std::cos(ang), dy = std::sin(ang);
      const float reach = nd.radius + 3 + std::abs(dx) * nd.label_size.x / 2 + std::abs(dy) * nd.label_size.y / 2;
      const Box b = centred(Vec2{nd.pos.x + dx * reach, nd.pos.y + dy * reach}, nd.label_size.x, nd.label_size.y);
      // None clear: the one covering least, inside the canvas first.
      int hits = inside(b, canvas) ? 0 : 100;
      for (size_t k = 0; k < sc.nodes.size(); ++k) hits += k != i && hits_node(b, sc.nodes[k], 1);
      for (const Box& o : placed) hits += b.overlaps(o.grown(1));
      if (hits < first_hits) first = b, first_hits = hits;
      if (hits == 0) break;
    }
    crowded = crowded || first_hits > 0;
    nd.label_min = Vec2{first.x0, first.y0};
    placed.push_back(first);
  }
  // No clear side for some label (a tree's leaves close together): all of
  // them on plates over their circles at the least size, as on a circle of
  // ranks too small for either.
  if (crowded && !sc.labels_beside)
    for (const size_t i : outside) {
      NodeDraw& nd = sc.nodes[i];
      nd.label_outside = false;
      nd.label_px = tx.min_px;
      nd.label_size = Vec2{tx.measure(nd.label, tx.min_px), tx.min_px};
      nd.label_min = Vec2{nd.pos.x - nd.label_size.x / 2, nd.pos.y - nd.label_size.y / 2};
    }
}

void place_badges(TopologyScene& sc, Vec2 canvas) {
  sc.badges_left_out = 0;
  for (ArrowDraw& a : sc.arrows) a.badge_anchor = a.badge, a.badge_shown = a.badge_w > 0;
  if (sc.arrows.empty() || sc.arrows.size() > 160) return;  // many: left on their points
  std::vector<Stroke> strokes;
  for (size_t i = 0; i < sc.arrows.size(); ++i) {
    const bool inter = i < sc.loads.size() && sc.loads[i].inter;
    strokes.push_back(stroke_of(sc.arrows[i], sc.line_w * (inter ? 1.8f : 1.f), sc.head_len));
  }
  std::vector<Box> fixed;  // labels beside circles, node labels, NICs
  for (const NodeDraw& nd : sc.nodes)
    if (nd.label_outside) fixed.push_back(Box{nd.label_min.x, nd.label_min.y, nd.label_min.x + nd.label_size.x,
                                              nd.label_min.y + nd.label_size.y});
  for (const NodeBoxDraw& b : sc.boxes)
    fixed.push_back(Box{b.min.x + b.label_x, b.min.y + 3, b.min.x + b.label_x + kNodeLabelW, b.min.y + 21});
  for (const NicDraw& d : sc.nics) fixed.push_back(centred(d.pos, 2 * d.half.x, 2 * d.half.y));
  std::vector<Box> boxes;  // a badge sits inside a node box or outside all, never across an edge
  for (const NodeBoxDraw& b : sc.boxes) boxes.push_back(Box{b.min.x, b.min.y, b.max.x, b.max.y});
  std::vector<Box> badges;
  for (ArrowDraw& a : sc.arrows) {
    if (a.badge_w <= 0) continue;
    const float bw = a.badge_w, bh = a.badge_h, reach_max = badge_reach(bw, bh);
    const Vec2 anchor = a.badge;
    // The outer side: where the curve bulges (the control point's side).
    const Vec2 mid{(a.a.x + a.b.x) / 2, (a.a.y + a.b.y) / 2};
    const float len = route_length(a);
    struct Try {
      Vec2 c;
      float cost;
    };
    std::vector<Try> tries;
    // An arrow between nodes whose leg to its NIC runs among its node's
    // other legs (a fan of ranks): on that leg, after every place beside it.
    if (!a.via.empty()) {
      const float leg = std::hypot(a.via[0].x - a.a.x, a.via[0].y - a.a.y), len_all = route_length(a);
      for (int k = -6; k <= 6; ++k) {
        const float t = std::clamp(a.badge_t + float(k) * leg / 16 / len_all, 0.f, leg / len_all);
        const Vec2 c = arrow_at(a, t);
        const float dist = std::hypot(c.x - anchor.x, c.y - anchor.y);
        if (dist <= reach_max) tries.push_back({c, 2 * reach_max + dist});
      }
    }
    for (int k = -8; k <= 8; ++k) {
      const float t = std::clamp(a.badge_t + float(k) * reach_max / 10 / len, 0.f, 1.f);
      const Vec2 p = arrow_at(a, t), d = arrow_dir(a, t);
      float nx = -d.y, ny = d.x;  // a route through NICs: its right
      if (a.via.empty() && (a.ctrl.x - mid.x) * nx + (a.ctrl.y - mid.y) * ny < 0) nx = -nx, ny = -ny;
      for (const float side : {1.f, -1.f})
        for (const float out : {0.f, 0.15f, 0.3f, 0.5f, 0.75f, 1.f}) {
          const float reach = std::abs(nx) * bw / 2 + std::abs(ny) * bh / 2 + sc.line_w + 2 + out * bh;
          const Vec2 c{p.x + side * nx * reach, p.y + side * ny * reach};
          const float dist = std::hypot(c.x - anchor.x, c.y - anchor.y);
          if (dist > reach_max) continue;
          tries.push_back({c, dist + (side < 0 ? bh * 0.5f : 0.f)});
        }
    }
    // And all round the anchor (a short arrow between close circles has
    // little room beside it), nearer first.
    const float near = std::min(bw, bh) / 2 + sc.line_w + 2;
    for (float rho = near; rho <= reach_max; rho += bh / 3)
      for (int k = 0; k < 16; ++k) {
        const float ang = float(k) * kPi / 8;
        tries.push_back({Vec2{anchor.x + rho * std::cos(ang), anchor.y + rho * std::sin(ang)}, rho + bh * 0.25f});
      }
    std::stable_sort(tries.begin(), tries.end(), [](const Try& x, const Try& y) { return x.cost < y.cost; });
    a.badge_anchor = anchor;
    a.badge_shown = false;
    for (const Try& tr : tries) {
      const Box b = centred(tr.c, bw, bh);
      if (!inside(b, canvas)) continue;
      const auto clear = [&] {
        for (const NodeDraw& nd : sc.nodes)
          if (hits_node(b, nd, 2)) return false;
        for (const Box& o : fixed)
          if (b.overlaps(o.grown(2))) return false;
        for (const Box& o : badges)
          if (b.overlaps(o.grown(2))) return false;
        for (const Box& o : boxes) {
          const bool holds = b.x0 >= o.x0 && b.x1 <= o.x1 && b.y0 >= o.y0 && b.y1 <= o.y1;
          const bool home = anchor.x >= o.x0 && anchor.x <= o.x1 && anchor.y >= o.y0 && anchor.y <= o.y1;
          if (b.overlaps(o) && !holds) return false;
          if (home != holds) return false;  // in its own arrow's box, no other
        }
        const bool own_leg = tr.cost >= 2 * reach_max;  // on its leg: the legs along it are passed over
        for (size_t k = 0; k < strokes.size(); ++k) {
          const int shared = own_leg ? shared_leg(a, sc.arrows[k]) : 0;
          if (shared == 0) {
            if (stroke_hits(strokes[k], b)) return false;
            continue;
          }
          Stroke rest = strokes[k];  // the arrow but the leg it shares
          if (shared == 1) rest.pts.erase(rest.pts.begin());
          else rest.pts.pop_back();
          if (stroke_hits(rest, b)) return false;
        }
        return true;
      };
      if (!clear()) continue;
      a.badge = tr.c;
      a.badge_shown = true;
      break;
    }
    if (a.badge_shown) badges.push_back(centred(a.badge, bw, bh));
    else ++sc.badges_left_out;
  }
}

}  // namespace microddp::viz
