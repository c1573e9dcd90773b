// Node boxes (issue 37, lesson 09): traffic between nodes leaves through
// the sender's NIC and enters through the receiver's, no arrow crosses a
// rank it does not join, and one world and placement gets one layout
// whatever the canvas (scene_topology_fan.cpp, scene_topology_route.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/viz/scene.h"
#include "tests/app/scene_topo.h"

using namespace microddp;
using namespace microddp::viz;
using test::arrow_distance;
using test::arrow_hits;

namespace {

RunParams placed(const char* algorithm, int ranks, int nodes) {
  RunParams p;
  p.spec.algorithm = algorithm;
  p.spec.world_size = ranks;
  p.spec.nodes = nodes;
  p.spec.count = ranks * 4;
  return p;
}

// The window's text (18 px, labels down to 9 px) and a slide's at 28 px
// (labels down to 14 px).
TopologyText text_at(float px, float min_px) {
  TopologyText tx;
  tx.font_px = px;
  tx.min_px = min_px;
  return tx;
}

}  // namespace

TEST_SUITE("topology_route") {
  TEST_CASE("2x4, 2x8, 4x2: no arrow crosses a rank but its own two; an arrow between nodes passes both NICs") {
    struct Layout {
      int ranks, nodes;
    };
    for (const Layout lay : {Layout{8, 2}, Layout{16, 2}, Layout{8, 4}})
      for (const char* alg : {"ring", "hierarchical", "recursive_doubling"}) {
        Session ses;
        ses.configure(placed(alg, lay.ranks, lay.nodes));
        const int g = lay.ranks / lay.nodes;
        // Lesson 09's canvases (a tall one, one beside an open question)
        // and a window's, at the window's and a slide's text size.
        for (const Vec2 size : {Vec2{770, 420}, Vec2{770, 210}, Vec2{770, 160}, Vec2{1200, 600}})
          for (const TopologyText& tx : {text_at(18, 9), text_at(28, 14)})
            for (int pos = 0; pos <= ses.num_steps(); ++pos) {
              CAPTURE(alg);
              CAPTURE(lay.ranks);
              CAPTURE(lay.nodes);
              CAPTURE(size.x);
              CAPTURE(size.y);
              CAPTURE(tx.font_px);
              CAPTURE(pos);
              const TopologyScene sc = build_topology(ses, pos, size, 0.5f, nullptr, &tx);
              REQUIRE_FALSE(sc.compact_nodes);
              REQUIRE(static_cast<int>(sc.boxes.size()) == lay.nodes);
              REQUIRE(static_cast<int>(sc.nics.size()) == lay.nodes);
              REQUIRE_FALSE(sc.arrows.empty());
              int across = 0;
              for (size_t i = 0; i < sc.arrows.size(); ++i) {
                const ArrowDraw& a = sc.arrows[i];
                const bool inter = a.from / g != a.to / g;
                CHECK(sc.loads[i].inter == inter);
                const float half = sc.line_w * (inter ? 1.8f : 1.f) / 2;
                for (const NodeDraw& nd : sc.nodes) {
                  if (nd.rank == a.from || nd.rank == a.to) continue;
                  INFO("arrow R", a.from, " -> R", a.to, " near R", nd.rank);
                  CHECK(arrow_distance(a, nd.pos) > nd.radius + half);
                }
                for (const NicDraw& d : sc.nics) {
                  INFO("arrow R", a.from, " -> R", a.to, ", node ", d.node, "'s NIC");
                  const bool own = d.node == a.from / g || d.node == a.to / g;
                  if (inter && own) CHECK(arrow_hits(a, d.pos, d.half, 0));
                  if (!inter) CHECK_FALSE(arrow_hits(a, d.pos, d.half, 1));
                }
                across += inter;
              }
              // The route's corners start and end on the two NICs.
              for (const ArrowDraw& a : sc.arrows) {
                if (a.from / g == a.to / g) {
                  CHECK(a.via.empty());
                  continue;
                }
                REQUIRE(a.via.size() >= 2);
                const NicDraw &na = sc.nics[static_cast<size_t>(a.from / g)], &nb = sc.nics[static_cast<size_t>(a.to / g)];
                CHECK(a.via.front().x == na.pos.x);
                CHECK(a.via.front().y == na.pos.y);
                CHECK(a.via.back().x == nb.pos.x);
                CHECK(a.via.back().y == nb.pos.y);
              }
              (void)across;
            }
      }
  }

  TEST_CASE("lesson 09 b6 and b7: the same 16 ranks on 2 nodes get the same layout on a tall and a short canvas") {
    Session ses;
    ses.configure(placed("recursive_doubling", 16, 2));
    // Whether each rank lies left of, right of, above or below each other
    // rank (level within half a pixel): the same for every canvas.
    const auto relations = [&](Vec2 size, const TopologyText& tx) {
      const TopologyScene sc = build_topology(ses, 1, size, 0.5f, nullptr, &tx);
      std::vector<int> rel;
      for (const NodeDraw& a : sc.nodes)
        for (const NodeDraw& b : sc.nodes) {
          const auto sign = [](float d) { return d > 0.5f ? 1 : d < -0.5f ? -1 : 0; };
          rel.push_back(sign(b.pos.x - a.pos.x));
          rel.push_back(sign(b.pos.y - a.pos.y));
        }
      return rel;
    };
    const std::vector<int> tall = relations(Vec2{770, 420}, text_at(18, 9));
    CHECK(relations(Vec2{770, 210}, text_at(18, 9)) == tall);
    CHECK(relations(Vec2{770, 160}, text_at(18, 9)) == tall);
    CHECK(relations(Vec2{770, 420}, text_at(28, 14)) == tall);
    CHECK(relations(Vec2{770, 180}, text_at(28, 14)) == tall);
    // Ranks left to right in rank order within each node, the first and
    // last lowest, nearest their NIC.
    const TopologyScene sc = build_topology(ses, 1, Vec2{770, 420});
    for (int r = 0; r + 1 < 16; ++r)
      if (r % 8 != 7) CHECK(sc.nodes[r].pos.x < sc.nodes[r + 1].pos.x);
    CHECK(sc.nodes[0].pos.y > sc.nodes[3].pos.y);
    CHECK(sc.nodes[0].pos.y == doctest::Approx(sc.nodes[7].pos.y));
  }
}
