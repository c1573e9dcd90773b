// The topology's badges, arcs and heads on lesson 09's and the window's
// layouts (issue 37, the lecture hall), at 18, 28 and 40 px text measured
// in the slides' font: each badge beside its own arrow's anchor (within
// badge_reach), clear of circles, labels, NICs, node labels, box edges,
// arrows and the other badges, or left out and counted in the line under
// the canvas (never piled); each node's arc of ranks fills its box (no empty
// box above it); every arrow shows a head where the ranks and NICs leave
// it room, so the ring's order is visible. The scene alone: no window drawn.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "app/viz/scene.h"
#include "tests/app/headless.h"
#include "tests/app/topology_geometry.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test_topology;

namespace {

float width_at(const std::string& s, float px) {
  return ImGui::GetIO().Fonts->Fonts[0]->CalcTextSizeA(px, FLT_MAX, 0, s.c_str()).x;
}

// A head from tip - dir * len to tip, clear of every NIC square and every
// circle (its own receiver's included: the tip stops short of it).
bool head_clear(const TopologyScene& sc, Vec2 tip, Vec2 dir, float len) {
  for (int i = 0; i <= 20; ++i) {
    const float u = len * float(i) / 20;
    const Vec2 p{tip.x - dir.x * u, tip.y - dir.y * u};
    for (const NicDraw& d : sc.nics)
      if (std::abs(p.x - d.pos.x) <= d.half.x && std::abs(p.y - d.pos.y) <= d.half.y) return false;
    for (const NodeDraw& nd : sc.nodes)
      if (std::hypot(p.x - nd.pos.x, p.y - nd.pos.y) < nd.radius) return false;
  }
  return true;
}

struct Case {
  const char* what;
  const char* alg;
  int ranks, nodes, nics;
  std::vector<int> positions;  // empty: every position
  std::vector<Vec2> canvases;
  int min_shown_pct;  // of the badges, at least this share drawn
};

// Lesson 09's slide canvas (1280 x 720: the topology beside the buffers,
// above the beat's text) and the window's main view at 1280 x 720 and
// about 1920 x 1080.
const Vec2 kSlide{760, 170}, kMain{470, 150}, kBig{1200, 450};

struct BadgeCount {
  int scenes = 0, badges = 0, shown = 0;
};

BadgeCount check_case(const Case& c) {
  BadgeCount st;
  RunParams p;
  p.spec.algorithm = c.alg;
  p.spec.world_size = c.ranks;
  p.spec.nodes = c.nodes;
  p.spec.count = c.ranks * 4;
  Session ses;
  ses.configure(p);
  REQUIRE(ses.configured());
  PredictionSource src;
  src.kind = PredictionSource::Kind::topology;
  src.nics_per_node = c.nics;
  if (c.nodes > 1) ses.set_source(src);
  const Network* net = ses.prediction().network ? &*ses.prediction().network : nullptr;
  if (c.nodes > 1) REQUIRE(net != nullptr);
  std::vector<int> positions = c.positions;
  if (positions.empty())
    for (int pos = 1; pos <= ses.num_steps(); ++pos) positions.push_back(pos);
  for (const Vec2 canvas : c.canvases)
    for (const float px : {18.f, 28.f, 40.f})
      for (const int pos : positions) {
        INFO(c.what, ": ", c.alg, " ", c.ranks, " ranks on ", c.nodes, " node(s), ", c.nics, " NIC(s), canvas ",
             canvas.x, " x ", canvas.y, ", ", px, " px, position ", pos);
        TopologyText tx;
        tx.font_px = px;
        tx.min_px = 14;
        tx.width = width_at;
        const TopologyScene sc = build_topology(ses, pos, canvas, 0.5f, net, &tx);
        if (sc.compact_nodes) continue;  // no ranks, no badges
        ++st.scenes;
        // 1. Badges: beside their anchors, clear, or left out and counted.
        std::vector<Box> shown;
        int left_out = 0;
        for (size_t i = 0; i < sc.arrows.size(); ++i) {
          const ArrowDraw& a = sc.arrows[i];
          REQUIRE(a.badge_w > 0);
          ++st.badges;
          const Vec2 at = arrow_at(a, a.badge_t);
          CHECK(std::hypot(at.x - a.badge_anchor.x, at.y - a.badge_anchor.y) < 0.5f);
          if (!a.badge_shown) {
            ++left_out;
            continue;
          }
          ++st.shown;
          const Box bb = badge_box(a);
          // An arrow between nodes may carry its badge on its own leg to its NIC.
          bool on_leg = false;
          if (!a.via.empty()) {
            const Vec2 p = a.a, q = a.via.front();
            const float l2 = (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y);
            const float u = l2 > 0 ? std::clamp(((a.badge.x - p.x) * (q.x - p.x) + (a.badge.y - p.y) * (q.y - p.y)) / l2, 0.f, 1.f) : 0.f;
            on_leg = std::hypot(p.x + u * (q.x - p.x) - a.badge.x, p.y + u * (q.y - p.y) - a.badge.y) < 0.5f;
          }
          INFO("badge R", a.from, "->R", a.to, " (", bb.x0, ", ", bb.y0, ") - (", bb.x1, ", ", bb.y1, "), anchor ",
               a.badge_anchor.x, ", ", a.badge_anchor.y);
          CHECK(std::hypot(a.badge.x - a.badge_anchor.x, a.badge.y - a.badge_anchor.y) <=
                badge_reach(a.badge_w, a.badge_h) + 0.01f);
          CHECK(Box{0, 0, canvas.x, canvas.y}.holds(bb));
          for (const NodeDraw& d : sc.nodes) {
            CHECK_FALSE(box_hits_circle(bb, d.pos, d.radius));
            if (d.label_outside)
              CHECK_FALSE(bb.overlaps(
                  Box{d.label_min.x, d.label_min.y, d.label_min.x + d.label_size.x, d.label_min.y + d.label_size.y}));
          }
          for (const NicDraw& d : sc.nics)
            CHECK_FALSE(bb.overlaps(Box{d.pos.x - d.half.x, d.pos.y - d.half.y, d.pos.x + d.half.x, d.pos.y + d.half.y}));
          for (const NodeBoxDraw& b : sc.boxes) {
            const Box nb{b.min.x, b.min.y, b.max.x, b.max.y};
            CHECK((nb.holds(bb) || !nb.overlaps(bb)));  // never across a box's edge
            const bool home = a.badge_anchor.x >= nb.x0 && a.badge_anchor.x <= nb.x1 && a.badge_anchor.y >= nb.y0 &&
                              a.badge_anchor.y <= nb.y1;
            CHECK(home == nb.holds(bb));  // in its own arrow's node box, no other
            CHECK_FALSE(bb.overlaps(Box{b.min.x + b.label_x, b.min.y + 3, b.min.x + b.label_x + kNodeLabelW, b.min.y + 21}));
          }
          for (const Box& o : shown) CHECK_FALSE(bb.overlaps(o));  // no pile
          for (size_t k = 0; k < sc.arrows.size(); ++k) {
            const bool inter = k < sc.loads.size() && sc.loads[k].inter;
            INFO("arrow R", sc.arrows[k].from, "->R", sc.arrows[k].to);
            // On its own leg to its NIC: the arrows along that leg pass under it.
            const int skip = on_leg ? shared_leg(a, sc.arrows[k]) : 0;
            CHECK_FALSE(line_hits_box(sc.arrows[k], sc.line_w * (inter ? 1.8f : 1.f) / 2, bb, skip));
          }
          shown.push_back(bb);
        }
        CHECK(left_out == sc.badges_left_out);
        const std::string line = transfers_text(sc, false);
        if (left_out > 0)
          CHECK(line == fmt::format("{} transfers, {} badge{} left out (no clear place)", sc.arrows.size(), left_out,
                                    left_out == 1 ? "" : "s"));
        else
          CHECK(line.find("left out") == std::string::npos);
        // 2. Each node's arc of ranks centred across its box and filling it
        // from the label's row down (no empty box above the ranks).
        const int g = c.ranks / std::max(c.nodes, 1);
        for (const NodeBoxDraw& b : sc.boxes) {
          float top = 1e9f, lo = 1e9f, hi = -1e9f;
          for (int l = 0; l < g; ++l) {
            const NodeDraw& d = sc.nodes[static_cast<size_t>(b.node * g + l)];
            top = std::min(top, d.pos.y - d.radius);
            lo = std::min(lo, d.pos.x - d.radius);
            hi = std::max(hi, d.pos.x + d.radius);
          }
          INFO("node ", b.node, " box y ", b.min.y, " .. ", b.max.y, ", its ranks' top ", top);
          CHECK(top >= b.min.y + 18);
          CHECK(top <= b.min.y + 24 + 2);
          CHECK(std::abs((lo + hi) / 2 - (b.min.x + b.max.x) / 2) <= 1);
        }
        // 3. Every arrow's head is drawn clear of the NICs and the circles:
        // at its rank, or between the NICs (lane_head).
        for (const ArrowDraw& a : sc.arrows) {
          INFO("arrow R", a.from, "->R", a.to);
          float dx = a.b.x - a.ctrl.x, dy = a.b.y - a.ctrl.y;
          const float l = std::max(std::hypot(dx, dy), 1e-3f);
          const bool end = head_clear(sc, a.b, Vec2{dx / l, dy / l}, sc.head_len);
          const bool lane = a.lane_head && head_clear(sc, a.lane_tip, a.lane_dir, sc.head_len);
          CHECK((end || lane));
        }
      }
  return st;
}

}  // namespace

TEST_SUITE("topology_badges") {
  TEST_CASE("lesson 09's pictures: badges beside their arrows or left out and counted, arcs filling their boxes, heads") {
    test::FontWindow win(16);
    const std::vector<Case> cases = {
        {"b1: 8 ranks on one node", "ring", 8, 1, 1, {14}, {Vec2{380, 420}, Vec2{380, 300}}, 100},
        {"b2: 8 nodes of one rank", "ring", 8, 8, 1, {14, 1}, {kSlide}, 100},
        // 8 legs into each NIC: 54 of the 96 badges drawn (most at 18 px, none at 40).
        {"b4, b5: 2 x 8 hierarchical, the NIC steps", "hierarchical", 16, 2, 1, {8, 9}, {kSlide}, 50},
        {"b6, b7: 2 x 8 recursive doubling", "recursive_doubling", 16, 2, 1, {1, 4}, {kSlide, Vec2{760, 420}}, 50},
        {"b9: 4 nodes of one rank", "ring", 4, 4, 1, {6}, {Vec2{760, 350}}, 100},
    };
    for (const Case& c : cases) {
      const BadgeCount st = check_case(c);
      INFO(std::string(c.what), ": ", st.shown, " of ", st.badges, " badges drawn in ", st.scenes, " scenes");
      CHECK(st.scenes > 0);
      CHECK(st.shown * 100 >= st.badges * c.min_shown_pct);
      MESSAGE(std::string(c.what), ": ", st.shown, " of ", st.badges, " badges drawn in ", st.scenes, " scenes");
    }
  }
  TEST_CASE("the window's node layouts: 8 x 2, 12 on 4 nodes with 3 NICs, 16 x 4") {
    test::FontWindow win(16);
    const std::vector<Case> cases = {
        {"8 ranks x 2 nodes", "ring", 8, 2, 1, {}, {kMain, kSlide, kBig}, 60},
        {"12 ranks on 4 nodes, 3 NICs", "ring", 12, 4, 3, {}, {kMain, kSlide, kBig}, 50},
        {"16 ranks on 4 nodes", "ring", 16, 4, 1, {1, 4, 8, 15}, {kMain, kSlide, kBig}, 50},
        {"16 ranks on 4 nodes, hierarchical", "hierarchical", 16, 4, 1, {}, {kSlide, kBig}, 50},
    };
    for (const Case& c : cases) {
      const BadgeCount st = check_case(c);
      INFO(std::string(c.what), ": ", st.shown, " of ", st.badges, " badges drawn in ", st.scenes, " scenes");
      CHECK(st.scenes > 0);
      CHECK(st.shown * 100 >= st.badges * c.min_shown_pct);
      MESSAGE(std::string(c.what), ": ", st.shown, " of ", st.badges, " badges drawn in ", st.scenes, " scenes");
    }
  }
  TEST_CASE("small rings on one node: every badge beside its own arrow, none left out") {
    test::FontWindow win(16);
    for (const int n : {3, 4})
      for (const char* alg : {"ring", "ring_unchunked"}) {
        const Case c{"small ring", alg, n, 1, 1, {}, {kMain, Vec2{380, 420}, kBig}, 100};
        const BadgeCount st = check_case(c);
        INFO(alg, " on ", n, " ranks: ", st.shown, " of ", st.badges);
        CHECK(st.scenes > 0);
        CHECK(st.shown == st.badges);
      }
  }
}
