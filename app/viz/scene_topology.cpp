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
  // The least radius whose circle holds every rank's label at px: the
  // corners of its glyphs' band (its width, 0.8 of its height) 1 px inside.
  const auto need_r = [&](float px) {
    float wmax = 0;
    for (int e = 0; e < n; ++e) wmax = std::max(wmax, tx.measure(endpoint_name(s, e), px));
    return std::hypot(wmax / 2, 0.4f * px) + 1;
  };
  // Node radius: room for a label, shrinking with the world size; grown to
  // hold its label at the text size with a margin, up to where neighbours
  // on a circle filling the canvas keep room for an arrow and its head
  // between them. Where even the least text size does not fit, the labels
  // go beside the circles: the circle of ranks shrinks to leave them room.
  float radius = std::clamp(std::min(w, h) * 0.42f * std::sin(kPi / std::max(n, 2)) * 0.55f, 7.f,
                            std::min(w, h) * 0.085f);
  float label_reach = 0;  // the room of the labels beside their circles
  {
    const bool round = sc.kind == TopologyKind::ring || sc.kind == TopologyKind::circle ||
                       sc.kind == TopologyKind::full_mesh || sc.kind == TopologyKind::star ||
                       sc.kind == TopologyKind::switch_star;
    const float m = std::min(w, h), sn = std::sin(kPi / float(std::max(n, 2)));
    const auto fit_in = [&](float mm) {
      return std::min(((mm / 2 - 10) * 2 * sn - 10) / (2.9f + 2 * sn), mm * 0.2f);
    };
    float fit = fit_in(m);
    if (round && n > 1 && need_r(tx.min_px) > fit) {
      const float out_px = std::min(tx.font_px, std::max(tx.min_px, 0.75f * tx.font_px));
      float wmax = 0;
      for (int e = 0; e < n; ++e) wmax = std::max(wmax, tx.measure(endpoint_name(s, e), out_px));
      const float fit2 = std::max(fit_in(m - 2 * (wmax + 4)), 5.f);
      // The labels around the ranks' circle need a chord of their width.
      const float R2 = m / 2 - fit2 - 10 - (wmax + 4);
      if (2 * (R2 + fit2 + 3 + out_px / 2) * sn >= wmax + 4) {
        label_reach = wmax + 4;
        fit = fit2;
      } else {
        // A canvas too small for either (a compare column beside the
        // controls): the circles as large as they fit 4 px apart, their
        // labels at the least size on plates over them (place_labels).
        fit = std::max(((m / 2 - 10) * sn - 2) / (1 + sn), 7.f);
      }
    }
    radius = std::max(7.f, std::min(fit, std::max(radius, need_r(tx.font_px) * 1.2f)));
    sc.labels_beside = label_reach > 0;
  }
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
  // Nodes as boxes in a row (up to 4 per row), their ranks on a circle
  // inside, the NICs on a strip along each box's lower edge. Every arrow lies
  // within the hull of its ends and control point, at most radius + bend/2
  // (+ half a badge) below a rank's centre, so keeping the ranks that far
  // above the strip keeps arrows and badges off the NIC squares.
  const bool boxes_fit = sc.kind != TopologyKind::double_tree && sc.kind != TopologyKind::switch_star;
  const int N = boxes_fit && sp.nodes > 1 && n % sp.nodes == 0 ? sp.nodes : 1;
  const int g = n / N;
  if (N > 8) layout_compact_nodes(sc, pos, N, g, w, h), radius = 0;
  bool fits = false;
  int grid_rows = 0, grid_cols = 0;
  float grid_r = 0;
  if (N > 1 && !sc.compact_nodes) {
    const int cols = std::min(N, 4), rows = (N + cols - 1) / cols;
    const float gap = 10, bw = (w - gap * float(cols + 1)) / float(cols), bh = (h - gap * float(rows + 1)) / float(rows);
    const float head = 24, nic_strip = kNicStrip;  // "node k" label (a line of text); the NIC squares
    const float pad = 6;
    const float room_w = bw - 2 * pad, room_h0 = bh - head - nic_strip - pad;
    // Ranks on an ellipse filling the box (wide boxes spread them out): the
    // largest radius whose neighbours stay 2·radius + 4 apart, keeping the
    // room below the ranks that the arrows and badges need.
    const auto below_for = [&](float r) {
      return r * 0.6f + 2 + std::clamp(r * 0.6f, 9.f * sc_px, 20.f * sc_px) / 2 + 5;
    };
    const auto ellipse = [&](float r) {
      const float room_h = room_h0 - below_for(r);
      return Vec2{std::max(room_w / 2 - r - 1, 0.f), std::max(room_h / 2 - r - 1, 0.f)};
    };
    // A chain (the flat ring: traffic leaves a node only from its last rank
    // to the next node's first): the ranks run counter-clockwise from the
    // top left to the top right, so each hop between nodes is a short arrow
    // across the gap. Otherwise (e.g. hierarchical: rank l to rank l of
    // another node) clockwise from the top, as on one node.
    bool chain = g > 1;
    for (const Step& st : s.steps)
      for (int r = 0; r < n && chain; ++r)
        for (const Op& o : st.ranks[r])
          if (o.kind == OpKind::send && o.peer >= 0 && o.peer / g != r / g &&
              !(r % g == g - 1 && o.peer % g == 0 && o.peer / g == (r / g + 1) % N))
            chain = false;
    sc.chain = chain;
    const auto at = [&](int l, Vec2 e) {
      const float ang = chain ? -kPi / 2 - kPi / float(g) - 2 * kPi * float(l) / float(g)
                              : -kPi / 2 + 2 * kPi * float(l) / float(g);
      return Vec2{e.x * std::cos(ang), e.y * std::sin(ang)};
    };
    // Neighbours on the ring (l, l+1) have a badge between them on most
    // steps: their circles stay a badge's width (as build_topology sizes
    // it below) plus a margin apart, so the badge covers neither label.
    const auto badge_w = [&](float r) { return std::clamp(r * 1.3f, 16.f * sc_px, 40.f * sc_px); };
    const auto badge_h = [&](float r) { return std::clamp(r * 0.6f, 9.f * sc_px, 20.f * sc_px); };
    // A small box (4 nodes of 8) may have room for neither: then the ranks
    // only stay apart (the old spacing) and badges may touch them. A circle
    // holds its label at the least text size at least (r_min); the largest
    // radius is the default's 22 px grown with the text.
    const float r_min = std::max(6.f, need_r(tx.min_px)), r_max = std::max(22.f * sc_px, r_min);
    radius = r_min;
    for (const bool strict : {true, false}) {
      const auto nb_w = [&](float r) { return strict ? badge_w(r) + 8 : 4.f; };
      const auto nb_h = [&](float r) { return strict ? badge_h(r) + 8 : 4.f; };
      for (float r = r_max; r >= r_min && !fits; r -= 0.5f) {
        const Vec2 e = ellipse(r);
        if (2 * r > room_w || 2 * r > room_h0 - below_for(r)) continue;
        bool ok = true;  // every pair: a flat ellipse puts opposite ranks together
        for (int a = 0; a < g && ok; ++a)
          for (int b = a + 1; b < g && ok; ++b) {
            const Vec2 p = at(a, e), q = at(b, e);
            const bool neighbours = b == a + 1 || (a == 0 && b == g - 1);
            ok = std::hypot(p.x - q.x, p.y - q.y) >= 2 * r + (neighbours && g > 2 ? nb_w(r) : 4);
          }
        if (ok) radius = r, fits = true;
      }
      // A short, wide box (e.g. beside a lesson), or many ranks: the ranks
      // on a grid instead, walked as a snake so ring neighbours are grid
      // neighbours, when the ellipse leaves them too small or does not fit.
      for (int rows = 1; rows <= g; ++rows) {
        // A node's own ring closes only on one row or a snake of two.
        if (!chain && sc.kind == TopologyKind::ring && rows > 2) break;
        const int cls = (g + rows - 1) / rows;
        const auto cell_ok = [&](float rr) {
          const float cell_w = room_w / float(cls), cell_h = (room_h0 - below_for(rr)) / float(rows);
          return cell_w >= 2 * rr + (cls > 1 ? nb_w(rr) : 4) && cell_h >= 2 * rr + (rows > 1 ? nb_h(rr) : 4);
        };
        float r = r_max;
        while (r >= r_min && !cell_ok(r)) r -= 0.5f;
        if (r >= r_min && r > grid_r) grid_r = r, grid_rows = rows, grid_cols = cls;
      }
      if (fits || grid_rows > 0) break;
    }
    if (!fits && grid_rows == 0 && g > 1) layout_compact_nodes(sc, pos, N, g, w, h), radius = 0;
  }
  if (N > 1 && !sc.compact_nodes) {
    const int cols = std::min(N, 4), rows = (N + cols - 1) / cols;
    const float gap = 10, bw = (w - gap * float(cols + 1)) / float(cols), bh = (h - gap * float(rows + 1)) / float(rows);
    const float head = 24, nic_strip = kNicStrip;
    const float pad = 6;
    const float room_w = bw - 2 * pad, room_h0 = bh - head - nic_strip - pad;
    const auto below_for = [&](float r) {
      return r * 0.6f + 2 + std::clamp(r * 0.6f, 9.f * sc_px, 20.f * sc_px) / 2 + 5;
    };
    const auto ellipse = [&](float r) {
      const float room_h = room_h0 - below_for(r);
      return Vec2{std::max(room_w / 2 - r - 1, 0.f), std::max(room_h / 2 - r - 1, 0.f)};
    };
    const bool chain = sc.chain;
    const auto at = [&](int l, Vec2 e) {
      const float ang = chain ? -kPi / 2 - kPi / float(g) - 2 * kPi * float(l) / float(g)
                              : -kPi / 2 + 2 * kPi * float(l) / float(g);
      return Vec2{e.x * std::cos(ang), e.y * std::sin(ang)};
    };
    const bool grid = g > 1 && grid_rows > 0 && (!fits || (radius < 11 * sc_px && grid_r > radius + 1));
    if (grid) radius = std::max(grid_r, 6.f);
    // The snake: a chain runs down and up the columns from the top left,
    // so its last rank ends on the right, beside the next node's first;
    // otherwise along the rows, every other row backwards.
    const auto grid_cell = [&](int l) {
      if (chain) {
        const int c = l / grid_rows, k = l % grid_rows;
        return std::pair<int, int>{c, c % 2 == 0 ? k : grid_rows - 1 - k};
      }
      const int r = l / grid_cols, k = l % grid_cols;
      return std::pair<int, int>{r % 2 == 0 ? k : grid_cols - 1 - k, r};
    };
    if (grid && chain) grid_cols = (g + grid_rows - 1) / grid_rows;
    const Vec2 e = ellipse(radius);
    // Structural links stay inside a node (each node's ring when the layout
    // is a ring): a faint line across boxes would run through other ranks;
    // the traffic between nodes shows as arrows.
    sc.links.clear();
    if (sc.kind == TopologyKind::ring && g > 1)
      for (int k = 0; k < N; ++k)
        for (int l = 0; l < (g == 2 ? 1 : g); ++l) sc.links.push_back({k * g + l, k * g + (l + 1) % g});
    for (int k = 0; k < N; ++k) {
      const float x0 = gap + float(k % cols) * (bw + gap), y0 = gap + float(k / cols) * (bh + gap);
      sc.boxes.push_back({k, Vec2{x0, y0}, Vec2{x0 + bw, y0 + bh}, 6, {}});
      const float ccx = x0 + bw / 2, ccy = y0 + head + (room_h0 - below_for(radius)) / 2;
      for (int l = 0; l < g; ++l) {
        Vec2 d = g == 1 ? Vec2{} : at(l, e);
        if (grid) {
          const float room_h = room_h0 - below_for(radius);
          const auto [gc, gr] = grid_cell(l);
          d = Vec2{(float(gc) - float(grid_cols - 1) / 2) * room_w / float(grid_cols),
                   (float(gr) - float(grid_rows - 1) / 2) * room_h / float(grid_rows)};
        }
        pos[k * g + l] = Vec2{ccx + d.x, ccy + d.y};
      }
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
    if (sc.chain && x.from / g == N - 1 && x.to / g == 0) {
      // The chain's wrap from the last node back to the first arcs over the
      // boxes in between, its peak in the gap above them: it crosses the
      // label row only near its ends, clear of the centred node labels.
      const float top = sc.boxes[0].min.y - 4;
      a.ctrl.y = 2 * top - (a.a.y + a.b.y) / 2;
    }
    const int k = per_link[{x.from, x.to}]++, m = link_total[{x.from, x.to}];
    // Segments of one link travel one behind the other.
    const float gap = sp.channels > 1 ? 0.2f : 0.12f;  // channels: apart across and along
    const float tt = m > 1 ? std::clamp(t + (float(m - 1) / 2 - float(k)) * gap, 0.f, 1.f) : t;
    a.badge = bezier(a.a, a.ctrl, a.b, tt);
    a.badge_t = tt;
    a.badge_w = bw;
    a.badge_h = bh;
    if (!sc.upcoming) {  // what really travelled: the badge in its ranks' colours, not the expected ones
      const WrongCarried w = wrong_carried(ses, sc.shown_step, x);
      a.carried_text = w.text;
      if (!w.text.empty()) a.stripes = stripes_for(w.mask, n, is_complete(sp, w.mask));
    }
    sc.arrows.push_back(std::move(a));
  }
  // Node labels clear of the chain's wrap arrow (last node's last rank to
  // the first rank), whether or not this step draws it: the first of left,
  // centre, right that the arc's curve does not cross.
  if (N > 1 && sc.chain && !sc.compact_nodes) {
    const Vec2 p = pos[n - 1], q = pos[0];
    const float dx = q.x - p.x, dy = q.y - p.y;
    const float len = std::max(std::sqrt(dx * dx + dy * dy), 1e-3f);
    const float ux = dx / len, uy = dy / len;
    const Vec2 a{p.x + ux * (radius + 3), p.y + uy * (radius + 3)}, b{q.x - ux * (radius + 5), q.y - uy * (radius + 5)};
    const float top = sc.boxes[0].min.y - 4;
    const Vec2 c{(a.x + b.x) / 2, 2 * top - (a.y + b.y) / 2};
    for (NodeBoxDraw& box : sc.boxes) {
      const float bw = box.max.x - box.min.x;
      for (const float lx : {6.f, (bw - kNodeLabelW) / 2, bw - 6 - kNodeLabelW}) {
        const float x0 = box.min.x + lx - 3, x1 = x0 + kNodeLabelW + 6, y0 = box.min.y, y1 = box.min.y + 24;
        bool crossed = false;
        for (int k = 0; k <= 40 && !crossed; ++k) {
          const Vec2 pt = bezier(a, c, b, float(k) / 40);
          crossed = pt.x >= x0 && pt.x <= x1 && pt.y >= y0 && pt.y <= y1;
        }
        if (!crossed) {
          box.label_x = lx;
          break;
        }
      }
    }
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
    place_labels(sc, tx, Vec2{w, h});
    place_badges(sc, Vec2{w, h});
  }
  return sc;
}

}  // namespace microddp::viz
