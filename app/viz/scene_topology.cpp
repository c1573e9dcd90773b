// The topology panel's scene (panel_topology.cpp draws it).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"
#include "app/viz/units.h"
#include "core/algorithms/registry.h"
#include "core/record/printer.h"

namespace microddp::viz {

namespace {
constexpr float kPi = 3.14159265358979f;
}  // namespace

// The registry's layout hint (core/algorithms/registry.h) decides; an
// unknown algorithm is drawn on a circle.
TopologyKind topology_kind(const CollectiveSpec& s) {
  switch (layout_of(s)) {
    case Layout::ring: return TopologyKind::ring;
    case Layout::tree:
    case Layout::binomial_tree: return TopologyKind::tree;
    case Layout::hypercube: return TopologyKind::hypercube;
    case Layout::star: return TopologyKind::star;
    case Layout::double_tree: return TopologyKind::double_tree;
    case Layout::full_mesh: return TopologyKind::full_mesh;
    case Layout::switch_star: return TopologyKind::switch_star;
    case Layout::none: return TopologyKind::circle;
  }
  return TopologyKind::circle;
}

std::string_view name(TopologyKind k) {
  switch (k) {
    case TopologyKind::ring: return "ring";
    case TopologyKind::tree: return "tree";
    case TopologyKind::star: return "star";
    case TopologyKind::hypercube: return "hypercube pairs";
    case TopologyKind::circle: return "circle";
    case TopologyKind::double_tree: return "double tree";
    case TopologyKind::switch_star: return "switch star";
    case TopologyKind::full_mesh: return "full mesh";
  }
  return "?";
}

TopologyScene build_topology(const Session& ses, int position, Vec2 size, float t, const Network* net_in,
                             const TopologyText* text) {
  TopologyScene sc;
  sc.size = size;
  if (!ses.configured()) return sc;
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const int n = sp.world_size;
  const int ne = s.num_endpoints();  // the ranks, then any switch endpoints
  sc.kind = topology_kind(sp);
  // The channel and protocol strips take the bottom of the canvas.
  const float strip_h = nccl_strips_height(ses);
  const float w = std::max(size.x, 40.f), h = std::max(size.y - strip_h, 40.f);
  const float cx = w / 2, cy = h / 2;
  // The shapes grow with the text (kTopologyBasePx: the default size).
  const TopologyText tx = text ? *text : TopologyText{};
  const float sc_px = std::max(tx.font_px / kTopologyBasePx, 0.5f);
  // The ranks' circles at the text size (scene_topology_size.cpp).
  const auto need_r = [&](float px) { return label_radius(s, tx, px); };
  const RankSize rs = size_ranks(s, sc.kind, w, h, tx);
  float radius = rs.radius;
  const float label_reach = rs.label_reach;
  sc.labels_beside = rs.labels_beside;
  // Drawn nodes: the endpoints, or (double_tree) every rank once per tree.
  std::vector<Vec2> pos(sc.kind == TopologyKind::double_tree ? 2 * n : ne);
  const float margin = radius + 6 + label_reach;
  auto on_circle = [&](int i, int m, float R, float cxx, float cyy, float offset = 0) {
    const float ang = -kPi / 2 + offset + 2 * kPi * float(i) / float(std::max(m, 1));
    return Vec2{cxx + R * std::cos(ang), cyy + R * std::sin(ang)};
  };
  const float R = std::max(std::min(w, h) / 2 - margin - 4, 1.f);
  switch (sc.kind) {
    case TopologyKind::ring:
    case TopologyKind::circle:
    case TopologyKind::full_mesh:
      for (int r = 0; r < n; ++r) pos[r] = n == 1 ? Vec2{cx, cy} : on_circle(r, n, R, cx, cy);
      if (sc.kind == TopologyKind::ring && n > 1)
        for (int r = 0; r < n; ++r) sc.links.push_back({r, (r + 1) % n});
      if (sc.kind == TopologyKind::full_mesh)
        for (int a = 0; a < n; ++a)
          for (int b = a + 1; b < n; ++b) sc.links.push_back({a, b});
      break;
    case TopologyKind::switch_star: {
      // The switches in a column in the middle, the ranks on an ellipse
      // filling the canvas: a short, wide panel keeps the arrows long.
      const float Rx = std::max(w / 2 - margin - 4, 1.f);
      for (int r = 0; r < n; ++r) {
        const Vec2 c = on_circle(r, n, 1.f, 0, 0);
        pos[r] = n == 1 ? Vec2{cx, cy} : Vec2{cx + Rx * c.x, cy + R * c.y};
      }
      const int sw = ne - n;
      for (int k = 0; k < sw; ++k) {
        pos[n + k] = Vec2{cx, cy + (float(k) - float(sw - 1) / 2) * radius * 2.2f};
        for (int r = 0; r < n; ++r) sc.links.push_back({r, n + k});
      }
      break;
    }
    case TopologyKind::double_tree:
      place_double_tree(sc, n, w, h, margin, radius, pos);
      break;
    case TopologyKind::star:
      pos[sp.root] = Vec2{cx, cy};
      for (int v = 1; v < n; ++v) {
        const int r = (v + sp.root) % n;
        pos[r] = on_circle(v - 1, n - 1, R, cx, cy, n == 3 ? kPi / 2 : 0);
        sc.links.push_back({sp.root, r});
      }
      break;
    case TopologyKind::tree: {
      const Tree tr = make_tree(layout_of(sp) == Layout::binomial_tree ? Layout::binomial_tree : Layout::tree, n);
      int max_depth = 0;
      for (int v = 0; v < n; ++v) max_depth = std::max(max_depth, tr.depth[v]);
      // Leaves left to right in depth-first order; parents centred above.
      std::vector<float> xs(n, 0);
      float next_leaf = 0;
      std::function<void(int)> place = [&](int v) {
        if (tr.children[v].empty()) {
          xs[v] = next_leaf++;
          return;
        }
        float sum = 0;
        for (int c : tr.children[v]) {
          place(c);
          sum += xs[c];
        }
        xs[v] = sum / float(tr.children[v].size());
      };
      place(0);
      const float leaves = std::max(next_leaf - 1, 1.f);
      for (int v = 0; v < n; ++v) {
        const int r = (v + sp.root) % n;
        const float fx = n == 1 ? 0.5f : xs[v] / leaves;
        const float fy = max_depth == 0 ? 0.5f : float(tr.depth[v]) / float(max_depth);
        pos[r] = Vec2{margin + fx * (w - 2 * margin), margin + fy * (h - 2 * margin)};
        if (tr.parent[v] >= 0) sc.links.push_back({(tr.parent[v] + sp.root) % n, r});
      }
      const float dx = (w - 2 * margin) / std::max(leaves + 1, 2.f);
      const float dy = (h - 2 * margin) / std::max(float(max_depth) + 1, 2.f);
      radius = std::max(7.f, std::min({radius, dx * 0.42f, dy * 0.4f}));
      break;
    }
    case TopologyKind::hypercube: {
      // Bits 0, 2, 4.. choose the column, bits 1, 3, 5.. the row: partners of
      // each exchange distance (1, 2, 4, ...) line up horizontally or vertically.
      int bits = 0;
      while ((1 << bits) < n) ++bits;
      const int colbits = (bits + 1) / 2, rowbits = bits / 2;
      const int cols = 1 << colbits, rows = 1 << rowbits;
      for (int r = 0; r < n; ++r) {
        int c = 0, rw = 0;
        for (int b = 0; b < bits; ++b)
          if (r >> b & 1) {
            if (b % 2 == 0) c |= 1 << (b / 2);
            else rw |= 1 << (b / 2);
          }
        const float fx = cols == 1 ? 0.5f : float(c) / float(cols - 1);
        const float fy = rows == 1 ? 0.5f : float(rw) / float(rows - 1);
        pos[r] = Vec2{margin + fx * (w - 2 * margin), margin + fy * (h - 2 * margin)};
        for (int b = 0; b < bits; ++b)
          if (!(r >> b & 1) && (r | 1 << b) < n) sc.links.push_back({r, r | 1 << b});
      }
      radius = std::max(7.f, std::min({radius, (w - 2 * margin) / float(cols) * 0.3f,
                                       (h - 2 * margin) / float(rows) * 0.3f}));
      break;
    }
  }
  // Nodes as boxes in rows (up to 4 per row), each node's ranks on an arc
  // around its NIC on the box's lower edge (scene_topology_fan.cpp); more
  // nodes than 8, or boxes too small for a circle with its label at the
  // least text size: compact nodes.
  const bool boxes_fit = sc.kind != TopologyKind::double_tree && sc.kind != TopologyKind::switch_star;
  const int N = boxes_fit && sp.nodes > 1 && n % sp.nodes == 0 ? sp.nodes : 1;
  const int g = n / N;
  if (N > 8) layout_compact_nodes(sc, pos, N, g, w, h), radius = 0;
  if (N > 1 && !sc.compact_nodes) {
    const float r_min = std::max(6.f, need_r(tx.min_px)), r_max = std::max(22.f * sc_px, r_min);
    if (!layout_node_fans(sc, pos, N, g, w, h, r_min, r_max, sc_px, radius)) {
      layout_compact_nodes(sc, pos, N, g, w, h), radius = 0;
    } else {
      // A chain: the flat ring, whose traffic leaves a node only from its
      // last rank to the next node's first.
      bool chain = g > 1;
      for (const Step& st : s.steps)
        for (int r = 0; r < n && chain; ++r)
          for (const Op& o : st.ranks[r])
            if (o.kind == OpKind::send && o.peer >= 0 && o.peer / g != r / g &&
                !(r % g == g - 1 && o.peer % g == 0 && o.peer / g == (r / g + 1) % N))
              chain = false;
      sc.chain = chain;
      // Structural links stay inside a node (each node's ring when the
      // layout is a ring); the traffic between nodes shows as arrows
      // through the NICs.
      if (sc.kind == TopologyKind::ring && g > 1)
        for (int k = 0; k < N; ++k)
          for (int l = 0; l < (g == 2 ? 1 : g); ++l) sc.links.push_back({k * g + l, k * g + (l + 1) % g});
    }
  }
  // "root" only where the collective or the algorithm has one (not on a
  // ring, a dissemination barrier or recursive doubling).
  const AlgorithmInfo* info = find_algorithm(sp.algorithm, sp.collective);
  const bool rooted = sp.collective == Collective::broadcast || sp.collective == Collective::reduce ||
                      sp.collective == Collective::gather || sp.collective == Collective::scatter ||
                      (info && info->uses_root);
  for (int i = 0; i < static_cast<int>(pos.size()); ++i) {
    const int e = sc.kind == TopologyKind::double_tree ? i % std::max(n, 1) : i;
    NodeDraw nd;
    nd.rank = e;
    nd.pos = pos[i];
    nd.radius = radius;
    nd.is_switch = s.is_switch(e);
    nd.fill = nd.is_switch ? from_hex(0xE8E8E8) : rank_color(e);
    nd.root = !nd.is_switch && rooted && e == sp.root && sc.kind != TopologyKind::ring;
    if (sc.kind == TopologyKind::double_tree) nd.part = i / std::max(n, 1);
    if (nd.is_switch) nd.radius = radius * 1.5f;
    nd.label = endpoint_name(s, e);
    sc.nodes.push_back(std::move(nd));
  }
  // Which part carries a chunk: the registry's layout hint.
  const auto part_of = [&](int chunk) {
    return info && info->layout_part && sc.kind == TopologyKind::double_tree ? info->layout_part(sp, chunk) : -1;
  };
  const auto node_of = [&](int e, int part) {
    return sc.kind == TopologyKind::double_tree && part == 1 ? n + e : e;
  };

  const int nsteps = s.num_steps();
  if (nsteps == 0) {
    sc.caption = fmt::format("{} - no steps", sp.algorithm);
    add_nccl_views(sc, ses, h, t);
    if (!sc.compact_nodes) place_labels(sc, tx, Vec2{w, h});
    return sc;
  }
  sc.shown_step = position > 0 ? std::min(position, nsteps) - 1 : 0;
  sc.upcoming = position == 0;
  const auto& prov = ses.provenance();
  const std::string& phase = s.phases[s.steps[sc.shown_step].phase].name;
  sc.caption = fmt::format("{}{} · phase {}", sc.upcoming ? "next: " : "", step_label(sc.shown_step, nsteps), phase);
  const size_t es = dtype_size(sp.dtype);
  const auto& trs = prov.transfers[sc.shown_step];
  std::map<std::pair<int, int>, int> per_link;  // transfers on a link so far (segments)
  std::map<std::pair<int, int>, int> link_total;
  for (const Transfer& x : trs) ++link_total[{x.from, x.to}];
  // A dense step (more transfers than two per rank: a full mesh's one-shot)
  // gets smaller badges, so that they overlap less in the middle.
  const float dense = static_cast<int>(trs.size()) > 2 * n ? 0.65f : 1.f;
  const float bw = std::clamp(radius * 1.3f, 16.f * sc_px, 40.f * sc_px) * dense;
  const float bh = std::clamp(radius * 0.6f, 9.f * sc_px, 20.f * sc_px) * dense;
  if (sc.compact_nodes) add_compact_arrows(sc, ses, N, g);
  // Node boxes with their ranks: each rank's NIC (as add_network_loads
  // places them), the arrows between nodes routed through them.
  const bool boxed = N > 1 && !sc.compact_nodes;
  std::vector<Vec2> nic_at(static_cast<size_t>(n)), nic_list;
  if (boxed) {
    const int nics = std::clamp(net_in ? net_in->topo.nics_per_node : 1, 1, g);
    for (const NodeBoxDraw& b : sc.boxes)
      for (int k = 0; k < nics; ++k) nic_list.push_back(nic_center(b, k, nics));
    for (int r = 0; r < n; ++r) nic_at[static_cast<size_t>(r)] = nic_list[static_cast<size_t>((r / g) * nics + (r % g) % nics)];
  }
  for (const Transfer& x : sc.compact_nodes ? std::vector<Transfer>{} : trs) {
    ArrowDraw a;
    a.from = x.from;
    a.to = x.to;
    a.chunk = x.chunk;
    a.segment = x.segment;
    a.len = x.len;
    a.bytes = x.len * static_cast<int64_t>(es);
    a.mask = x.mask;
    a.common = x.common;
    a.complete = is_complete(sp, x.common);
    a.stripes = stripes_for(x.mask, n, a.complete);
    a.part = part_of(x.chunk);
    a.channel = x.channel;
    if (a.part >= 0) a.tinted = true, a.tint = part_color(a.part);
    else if (sp.channels > 1 && a.channel >= 0) a.tinted = true, a.tint = channel_color(a.channel);
    a.node_a = node_of(x.from, a.part);
    a.node_b = node_of(x.to, a.part);
    sc.nodes[a.node_a].busy = sc.nodes[a.node_b].busy = true;
    const Vec2 p = pos[a.node_a], q = pos[a.node_b];
    const float ra = sc.nodes[a.node_a].radius, rb = sc.nodes[a.node_b].radius;
    const float dx = q.x - p.x, dy = q.y - p.y;
    const float len = std::max(std::sqrt(dx * dx + dy * dy), 1e-3f);
    const float ux = dx / len, uy = dy / len;
    // Bend every arrow to its own right: two opposite transfers on one pair
    // of ranks separate instead of overlapping.
    // Channels on one link bend apart, channel c further out than c - 1.
    const float bend = (std::min(len * 0.12f, radius * 1.2f) + 4) *
                       (sp.channels > 1 && a.channel > 0 ? 1 + 2.5f * float(a.channel) : 1.f);
    a.a = Vec2{p.x + ux * (ra + 3), p.y + uy * (ra + 3)};
    a.b = Vec2{q.x - ux * (rb + 5), q.y - uy * (rb + 5)};
    a.ctrl = Vec2{(a.a.x + a.b.x) / 2 - uy * bend, (a.a.y + a.b.y) / 2 + ux * bend};
    if (boxed && x.from / g != x.to / g) {
      // Between nodes: out through the sender's NIC, in through the
      // receiver's, straight from and to the ranks (the arcs keep those
      // lines clear of the other ranks).
      const Vec2 na = nic_at[static_cast<size_t>(x.from)], nb = nic_at[static_cast<size_t>(x.to)];
      const auto toward = [](Vec2 from, Vec2 to, float by) {
        const float l = std::max(std::hypot(to.x - from.x, to.y - from.y), 1e-3f);
        return Vec2{from.x + (to.x - from.x) / l * by, from.y + (to.y - from.y) / l * by};
      };
      a.via = nic_route(sc, x.from / g, na, x.to / g, nb);
      a.a = toward(p, na, ra + 3);
      a.b = toward(q, nb, rb + 5);
      a.ctrl = a.via.back();
    } else if (boxed) {
      // Inside a node: bent clear of the other ranks and the NIC.
      a.ctrl = clear_control(sc, nic_list, Vec2{9, 6}, a.a, a.b, bend, a.node_a, a.node_b, 2 * sc_px + 2);
    }
    const int k = per_link[{x.from, x.to}]++, m = link_total[{x.from, x.to}];
    // Segments of one link travel one behind the other.
    const float gap = sp.channels > 1 ? 0.2f : 0.12f;  // channels: apart across and along
    const float tt = m > 1 ? std::clamp(t + (float(m - 1) / 2 - float(k)) * gap, 0.f, 1.f) : t;
    // Between nodes: the badge on the sender's way to its NIC (t = 1 at
    // the NIC), where it tells the ranks' chunks apart; the way between the
    // NICs is every such arrow's.
    const float bt = a.via.empty() ? tt : tt * std::hypot(a.via[0].x - a.a.x, a.via[0].y - a.a.y) / route_length(a);
    a.badge = arrow_at(a, bt);
    a.badge_t = bt;
    a.badge_w = bw;
    a.badge_h = bh;
    if (!sc.upcoming) {  // what really travelled: the badge in its ranks' colours, not the expected ones
      const WrongCarried w = wrong_carried(ses, sc.shown_step, x);
      a.carried_text = w.text;
      if (!w.text.empty()) a.stripes = stripes_for(w.mask, n, is_complete(sp, w.mask));
    }
    sc.arrows.push_back(std::move(a));
  }
  add_nccl_views(sc, ses, h, t);
  if (N > 1) add_network_loads(sc, s, N, net_in);
  if (N > 1 && !ses.measured_note().empty())
    sc.network_note = ses.measured_note() + (net_in ? "; predicted: this topology" : "");
  // The strokes at the text size, then the labels and badges placed.
  sc.line_w = std::round(std::clamp(std::max(radius * 0.12f, 2 * sc_px), 1.5f * sc_px, 3.5f * sc_px));
  sc.head_len = sc.line_w * 4 + 4 * sc_px;
  sc.outline_w = std::round(std::clamp(radius * 0.07f, 1.f, 2.f * sc_px));
  if (!sc.compact_nodes) {
    if (boxed) add_lane_heads(sc);
    place_labels(sc, tx, Vec2{w, h});
    place_badges(sc, Vec2{w, h});
  }
  return sc;
}

}  // namespace microddp::viz
