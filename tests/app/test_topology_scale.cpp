// The topology at a distance (issue 37): at 16, 28 and 40 px text, measured
// in the slides' font (DejaVu Sans), every rank's label fits inside its
// circle or sits beside it clear of the circles and the other labels; no
// badge covers another badge, a label, a circle or an arrow (a badge with
// no such place is left out and counted in the line under the canvas); the circles,
// badges and strokes grow with the text. The scene alone: no window drawn.
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

Box label_box(const NodeDraw& d) {
  return Box{d.label_min.x, d.label_min.y, d.label_min.x + d.label_size.x, d.label_min.y + d.label_size.y};
}

struct Case {
  const char* alg;
  int ranks, nodes;
  Vec2 canvas;  // the topology canvas: about the main view's at 1280x720 and 1920x1080
  std::vector<float> px;
};

// The font a slide draws in (FontWindow's first), measured outside a frame.
float width_at(const std::string& s, float px) {
  return ImGui::GetIO().Fonts->Fonts[0]->CalcTextSizeA(px, FLT_MAX, 0, s.c_str()).x;
}

TopologyScene scene_at(const Session& ses, int pos, Vec2 canvas, float px) {
  TopologyText tx;
  tx.font_px = px;
  tx.min_px = 14;  // --present
  tx.width = width_at;
  return build_topology(ses, pos, canvas, 0.5f, nullptr, &tx);
}

}  // namespace

TEST_SUITE("topology_scale") {
  TEST_CASE("ring on 4, 8, 16 ranks and 2 x 8 at 16, 28, 40 px: labels fit or sit beside, badges clear, shapes grow") {
    test::FontWindow win(16);  // DejaVu Sans, measured at any size
    const std::vector<float> all = {16, 28, 40};
    // 16 ranks in the small canvas: their labels go beside the circles at
    // 28 px (40 px text leaves the main view no such canvas).
    for (const Case& c : std::vector<Case>{{"ring", 4, 1, {460, 300}, all},
                                           {"ring", 8, 1, {460, 300}, all},
                                           {"ring", 16, 1, {460, 300}, {16, 28}},
                                           {"ring", 16, 1, {700, 450}, all},
                                           {"ring", 16, 2, {900, 300}, all},
                                           {"ring", 16, 2, {1200, 450}, all}}) {
      RunParams p;
      p.spec.algorithm = c.alg;
      p.spec.world_size = c.ranks;
      p.spec.nodes = c.nodes;
      p.spec.count = c.ranks;
      Session ses;
      ses.configure(p);
      REQUIRE(ses.configured());
      std::vector<float> radius, line_w, badge_w;
      bool beside = false;  // some label beside its circle
      for (const float px : c.px) {
        float r_step = 0, w_step = 0, b_step = 0;
        for (int pos = 1; pos <= ses.num_steps(); pos += std::max(1, ses.num_steps() / 4)) {
          INFO(c.alg, " on ", c.ranks, " ranks, ", c.nodes, " node(s), canvas ", c.canvas.x, " x ", c.canvas.y, ", ", px,
               " px, position ", pos);
          const TopologyScene sc = scene_at(ses, pos, c.canvas, px);
          REQUIRE_FALSE(sc.compact_nodes);
          REQUIRE(sc.nodes.size() == size_t(c.ranks));
          std::vector<Box> labels;
          for (const NodeDraw& d : sc.nodes) {
            INFO(d.label, " r ", d.radius, " at ", d.pos.x, ", ", d.pos.y, ": ", d.label_px, " px, ",
                 d.label_outside ? "beside" : "inside");
            CHECK(d.label_px >= 14);
            CHECK(d.label_px <= px);
            // The width drawn is the font's at that size.
            CHECK(d.label_size.x == doctest::Approx(width_at(d.label, d.label_px)).epsilon(0.001));
            const Box lb = label_box(d);
            CHECK(lb.x0 >= 0);
            CHECK(lb.y0 >= 0);
            CHECK(lb.x1 <= c.canvas.x);
            CHECK(lb.y1 <= c.canvas.y);
            if (!d.label_outside) {
              // Inside: every corner of the text within the circle, but for
              // the glyphs' empty line spacing (the corners of a 0.8 px-high band).
              const float cy = d.label_size.y * 0.4f;
              for (const float sx : {-1.f, 1.f})
                for (const float sy : {-1.f, 1.f})
                  CHECK(std::hypot(sx * d.label_size.x / 2, sy * cy) <= d.radius - 1);
            }
            for (const NodeDraw& o : sc.nodes)
              if (d.label_outside || &o != &d) CHECK_FALSE(box_hits_circle(lb, o.pos, o.radius));
            labels.push_back(lb);
            beside = beside || d.label_outside;
          }
          for (size_t i = 0; i < labels.size(); ++i)
            for (size_t j = i + 1; j < labels.size(); ++j) CHECK_FALSE(labels[i].overlaps(labels[j]));
          // Badges: beside their arrows, apart from each other, the labels,
          // the circles and every arrow's line.
          std::vector<Box> badges;
          int left_out = 0;
          for (size_t i = 0; i < sc.arrows.size(); ++i) {
            const ArrowDraw& a = sc.arrows[i];
            REQUIRE(a.badge_w > 0);
            // No clear place near its arrow: left out, not piled, and the
            // line under the canvas says how many (test_topology_badges.cpp).
            if (!a.badge_shown) {
              ++left_out;
              continue;
            }
            const Box bb = badge_box(a);
            // An arrow between nodes may carry its badge on its own leg to its NIC.
            bool on_leg = false;
            if (!a.via.empty()) {
              const Vec2 p = a.a, q = a.via.front();
              const float l2 = (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y);
              const float u = l2 > 0 ? std::clamp(((a.badge.x - p.x) * (q.x - p.x) + (a.badge.y - p.y) * (q.y - p.y)) / l2, 0.f, 1.f) : 0.f;
              on_leg = std::hypot(p.x + u * (q.x - p.x) - a.badge.x, p.y + u * (q.y - p.y) - a.badge.y) < 0.5f;
            }
            INFO("badge R", a.from, "->R", a.to, " (", bb.x0, ", ", bb.y0, ") - (", bb.x1, ", ", bb.y1, ")");
            for (const Box& o : badges) CHECK_FALSE(bb.overlaps(o));
            for (const Box& l : labels) CHECK_FALSE(bb.overlaps(l));
            for (const NodeDraw& d : sc.nodes) CHECK_FALSE(box_hits_circle(bb, d.pos, d.radius));
            for (size_t k = 0; k < sc.arrows.size(); ++k) {
              const bool inter = k < sc.loads.size() && sc.loads[k].inter;
              INFO("arrow R", sc.arrows[k].from, "->R", sc.arrows[k].to);
              // On its own leg to its NIC: the arrows along that leg pass under it.
              const int skip = on_leg ? shared_leg(a, sc.arrows[k]) : 0;
              CHECK_FALSE(line_hits_box(sc.arrows[k], sc.line_w * (inter ? 1.8f : 1.f) / 2, bb, skip));
            }
            // Beside its own arrow: the curve passes within its half extent,
            // the line's width and three badge heights (and gaps) of its centre.
            float near = 1e9f;
            for (int k = 0; k <= 200; ++k) {
              const Vec2 q = arrow_at(a, float(k) / 200);
              near = std::min(near, std::hypot(q.x - a.badge.x, q.y - a.badge.y));
            }
            CHECK(near <= a.badge_w / 2 + sc.line_w + 3 * a.badge_h + 10);
            badges.push_back(bb);
          }
          CHECK(left_out == sc.badges_left_out);
          // One node: every badge finds its place but one case. Node boxes (the ranks on
          // arcs around their NICs, most at 40 px): some may be left out,
          // never most, and the line under the canvas names the count.
          // 16 ranks in the small canvas at 28 px (their labels beside the
          // circles): 4 of the 16 find no place within their reach.
          if (c.nodes == 1) CHECK(left_out == (c.ranks == 16 && c.canvas.x == 460 && px == 28 ? 4 : 0));
          CHECK(2 * left_out <= static_cast<int>(sc.arrows.size()));
          if (left_out > 0) CHECK(transfers_text(sc, false).find(fmt::format(", {} badge", left_out)) != std::string::npos);
          r_step = sc.nodes[0].radius, w_step = sc.line_w, b_step = sc.arrows.empty() ? 0 : sc.arrows[0].badge_w;
        }
        radius.push_back(r_step), line_w.push_back(w_step), badge_w.push_back(b_step);
      }
      INFO(c.alg, " on ", c.ranks, " ranks, ", c.nodes, " node(s), canvas ", c.canvas.x, " x ", c.canvas.y);
      INFO("radius at ", c.px.front(), " .. ", c.px.back(), " px: ", radius.front(), " .. ", radius.back());
      // The circles grow with the text while the labels fit inside them
      // (labels beside: the circles make room for them instead).
      if (!beside) {
        for (size_t i = 1; i < radius.size(); ++i) CHECK(radius[i] >= radius[i - 1]);
        CHECK(radius.back() > radius.front());
      }
      CHECK(line_w.back() > line_w.front());
      CHECK(badge_w.back() > badge_w.front());
    }
  }
}
