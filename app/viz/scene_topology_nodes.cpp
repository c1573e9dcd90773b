// The topology's compact nodes (TopologyScene::compact_nodes): more nodes
// than fit with their ranks, each a box with its link totals
// (build_topology calls these; scene.h declares them).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "app/viz/compare.h"
#include "app/viz/scene.h"

namespace microddp::viz {

// Compact nodes (TopologyScene::compact_nodes): boxes of at least
// kCompactBoxW x kCompactBoxH in rows filling w x h, as many nodes as fit
// (the last slot left for the note when some do not); each rank at its
// node's centre, the ranks of nodes not drawn far off the canvas.
void layout_compact_nodes(TopologyScene& sc, std::vector<Vec2>& pos, int N, int g, float w, float h) {
  constexpr float gap = 10;
  // Boxes with room for the totals when every node fits so; else label-only
  // boxes (totals on hover) when that fits more of them.
  const auto slots = [&](float bw_min, float bh_min) {
    return std::max(1, int((w - gap) / (bw_min + gap))) * std::max(1, int((h - gap) / (bh_min + gap)));
  };
  const bool small = slots(kCompactBoxW, kCompactBoxH) < N && slots(kLabelBoxW, kLabelBoxH) > slots(kCompactBoxW, kCompactBoxH);
  const float bw_min = small ? kLabelBoxW : kCompactBoxW, bh_min = small ? kLabelBoxH : kCompactBoxH;
  const int cols = std::max(1, int((w - gap) / (bw_min + gap)));
  const int rows = std::max(1, int((h - gap) / (bh_min + gap)));
  const int shown = N <= cols * rows ? N : std::max(1, cols * rows - 1);
  const int used_cols = std::min(cols, shown), used_rows = (shown + used_cols - 1) / used_cols;
  const float bw = (w - gap * float(used_cols + 1)) / float(used_cols);
  const float bh = std::min((h - gap * float(used_rows + 1)) / float(used_rows), bh_min * 1.5f);
  sc.compact_nodes = true;
  sc.nodes_hidden = N - shown;
  sc.boxes.clear();
  sc.links.clear();  // the ranks are not drawn
  for (int k = 0; k < N; ++k) {
    Vec2 c{-1e4f, -1e4f};
    if (k < shown) {
      const float x0 = gap + float(k % used_cols) * (bw + gap), y0 = gap + float(k / used_cols) * (bh + gap);
      sc.boxes.push_back({k, Vec2{x0, y0}, Vec2{x0 + bw, y0 + bh}, 6, {}});
      c = Vec2{x0 + bw / 2, y0 + bh / 2};
    }
    for (int l = 0; l < g; ++l) pos[static_cast<size_t>(k * g + l)] = c;
  }
}

// Compact nodes: one arrow per pair of drawn nodes, the bytes of the shown
// step's transfers between them summed; each node's totals: out and in
// through its NICs, and inside it.
void add_compact_arrows(TopologyScene& sc, const Session& ses, int N, int g) {
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const int n = sp.world_size;
  const size_t es = dtype_size(sp.dtype);
  const auto& trs = ses.provenance().transfers[sc.shown_step];
  const int shown = static_cast<int>(sc.boxes.size());
  std::vector<int64_t> out(static_cast<size_t>(N)), in(static_cast<size_t>(N)), inside(static_cast<size_t>(N));
  std::map<std::pair<int, int>, size_t> pair_arrow;
  sc.step_transfers = sc.across_transfers = sc.across_drawn = 0;
  for (const Transfer& x : trs) {
    if (x.from < 0 || x.to < 0 || x.from >= n || x.to >= n) continue;
    ++sc.step_transfers;
    const int na = x.from / g, nb = x.to / g;
    const int64_t bytes = x.len * static_cast<int64_t>(es);
    if (na == nb) {
      inside[static_cast<size_t>(na)] += bytes;
      continue;
    }
    ++sc.across_transfers;
    out[static_cast<size_t>(na)] += bytes;
    in[static_cast<size_t>(nb)] += bytes;
    if (na >= shown || nb >= shown) continue;
    ++sc.across_drawn;
    const auto [it, fresh] = pair_arrow.try_emplace({na, nb}, sc.arrows.size());
    if (!fresh) {
      ArrowDraw& a = sc.arrows[it->second];
      a.len += x.len, a.bytes += bytes, a.mask |= x.mask, a.common &= x.common;
      continue;
    }
    ArrowDraw a;
    a.from = x.from, a.to = x.to, a.chunk = x.chunk, a.segment = x.segment, a.channel = x.channel;
    a.len = x.len, a.bytes = bytes, a.mask = x.mask, a.common = x.common;
    a.node_a = x.from, a.node_b = x.to;
    const NodeBoxDraw &ba = sc.boxes[static_cast<size_t>(na)], &bb = sc.boxes[static_cast<size_t>(nb)];
    const Vec2 p{(ba.min.x + ba.max.x) / 2, (ba.min.y + ba.max.y) / 2}, q{(bb.min.x + bb.max.x) / 2, (bb.min.y + bb.max.y) / 2};
    const float dx = q.x - p.x, dy = q.y - p.y;
    const float len = std::max(std::sqrt(dx * dx + dy * dy), 1e-3f), ux = dx / len, uy = dy / len;
    // From and to the boxes' edges (the nearer of the half width and half height).
    const float ra = std::min((ba.max.x - ba.min.x) / std::max(std::fabs(ux), 1e-3f),
                              (ba.max.y - ba.min.y) / std::max(std::fabs(uy), 1e-3f)) / 2;
    a.a = Vec2{p.x + ux * ra, p.y + uy * ra};
    a.b = Vec2{q.x - ux * (ra + 2), q.y - uy * (ra + 2)};
    const float bend = std::min(len * 0.12f, 24.f) + 4;
    a.ctrl = Vec2{(a.a.x + a.b.x) / 2 - uy * bend, (a.a.y + a.b.y) / 2 + ux * bend};
    a.badge = bezier(a.a, a.ctrl, a.b, 0.5f);
    sc.arrows.push_back(std::move(a));
  }
  for (ArrowDraw& a : sc.arrows) {
    a.complete = is_complete(sp, a.common);
    a.stripes = stripes_for(a.mask, n, a.complete);
  }
  for (NodeBoxDraw& b : sc.boxes) {
    const size_t k = static_cast<size_t>(b.node);
    b.totals = {"out " + human_bytes(double(out[k])), "in " + human_bytes(double(in[k])),
                "inside " + human_bytes(double(inside[k]))};
  }
  if (sc.nodes_hidden > 0)
    sc.notes.push_back(fmt::format("+{} more nodes not drawn ({} of {})", sc.nodes_hidden, shown, N));
}

void withhold_bytes(TopologyScene& sc) {
  if (const size_t at = sc.bottleneck.find(", equally ("); at != std::string::npos)
    sc.bottleneck = sc.bottleneck.substr(0, at) + ", equally";
  for (NodeBoxDraw& b : sc.boxes)
    for (std::string& t : b.totals)
      if (const size_t sp = t.find(' '); sp != std::string::npos) t = t.substr(0, sp) + " ?";
}

void label_stand_in_bytes(TopologyScene& sc) {
  const std::string equally = ", equally (";
  if (const size_t at = sc.bottleneck.find(equally); at != std::string::npos)
    sc.bottleneck.insert(at + equally.size(), "stand-in run: ");
}

std::string transfers_text(const TopologyScene& sc, bool full) {
  const auto plural = [](size_t k, const char* word) { return fmt::format("{} {}{}", k, word, k == 1 ? "" : "s"); };
  if (!sc.compact_nodes)
    return plural(sc.arrows.size(), "transfer") +
           (sc.badges_left_out > 0
                ? fmt::format(", {} left out (no clear place)", plural(size_t(sc.badges_left_out), "badge"))
                : std::string());
  const std::string counts = fmt::format("{}, {} across nodes", plural(size_t(sc.step_transfers), "transfer"),
                                         sc.across_transfers);
  if (!full) return counts;
  return fmt::format("{}; {}, one per from-to pair of drawn nodes", counts, plural(sc.arrows.size(), "arrow"));
}

}  // namespace microddp::viz
