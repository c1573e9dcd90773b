// The window at projector sizes: the 8- and 16-rank topologies' labels do not
// overlap, and every defined buffer cell draws its values whole inside the
// cell (lesson 02, the seed at --present, 8 ranks with 3-digit sums).
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

TEST_SUITE("layout") {
  TEST_CASE("8 and 16 ranks at 1280x720: every rank labelled in the topology and the timeline, labels apart") {
    for (const float px : {18.f, 28.f})
      for (const auto& [n, nodes] : std::vector<std::pair<int, int>>{{8, 1}, {16, 1}, {16, 2}}) {
        INFO(px, " px, ", n, " ranks on ", nodes, " node(s)");
        Sized h(px);
        App app;
        app.vs.font_px = px;
        app.vs.edit.spec.algorithm = "ring";
        app.vs.edit.spec.world_size = n;
        app.vs.edit.spec.nodes = nodes;
        app.vs.edit.spec.count = n;
        h.frame(app);
        REQUIRE(app.session.configured());
        app.session.seek(3);  // the timeline has bars
        frames(h, app);
        check_all_inside(app);
        check_nothing_runs_off();
        check_fixed_panels_hold_their_content();
        for (const char* where : {"timeline", "topology"}) {
          const auto* p = panel(app, where);
          REQUIRE(p != nullptr);
          std::vector<Rect> rs;
          for (int r = 0; r < n; ++r) {
            const std::string what = fmt::format("{} R{}", where, r);
            int found = 0;
            for (const auto& d : app.vs.labels_drawn)
              if (d.what == what) {
                ++found;
                INFO(what, " at ", show(d.r), " in ", show(p->r));
                CHECK(d.r.inside(p->r));
                CHECK(d.r.h >= 8);
                rs.push_back(d.r);
              }
            INFO(what);
            CHECK(found == 1);
          }
          for (size_t i = 0; i < rs.size(); ++i)
            for (size_t j = i + 1; j < rs.size(); ++j) {
              INFO(where, " labels ", show(rs[i]), " / ", show(rs[j]));
              CHECK_FALSE(rs[i].overlaps(rs[j]));
            }
        }
      }
  }

  TEST_CASE("16 ranks on dgx-h100 (2 x 8) and 8 ranks: rank labels, node labels and badges apart") {
    for (const auto& [n, nodes] : std::vector<std::pair<int, int>>{{16, 2}, {8, 2}, {8, 1}, {16, 1}})
      for (const char* alg : {"ring", "hierarchical"}) {
        RunParams p;
        p.spec.world_size = n;
        p.spec.nodes = nodes;
        p.spec.count = n;
        p.spec.algorithm = alg;
        Session s;
        PredictionSource src;
        src.kind = PredictionSource::Kind::topology;
        src.topology = "dgx-h100";
        s.set_source(src);
        s.configure(p);
        const Network* net = s.prediction().network ? &*s.prediction().network : nullptr;
        // The main view's topology canvas at 1280x720, 18 and 28 px.
        INFO("algorithm ", std::string(alg));
        for (const Vec2 size : {Vec2{460, 190}, Vec2{380, 230}, Vec2{460, 300}})
          for (int pos = 0; pos <= s.num_steps(); pos += std::max(1, s.num_steps() / 6)) {
            const TopologyScene sc = build_topology(s, pos, size, 0.5f, net);
            INFO(n, " ranks on ", nodes, " node(s), ", std::string(alg), ", canvas ", size.x, " x ", size.y, ", position ", pos);
            REQUIRE(sc.nodes.size() == size_t(n));
            // A rank's label: its circle's text, at most 2r - 3 wide
            // (panel_topology.cpp shrinks it to fit) and about 1.3r tall.
            std::vector<Rect> labels;
            for (const NodeDraw& d : sc.nodes) {
              const Rect circle{d.pos.x - d.radius, d.pos.y - d.radius, 2 * d.radius, 2 * d.radius};
              CHECK(circle.inside(Rect{0, 0, size.x, size.y}));
              labels.push_back(Rect{d.pos.x - d.radius + 1.5f, d.pos.y - d.radius * 0.65f, 2 * d.radius - 3,
                                    d.radius * 1.3f});
            }
            for (const NodeBoxDraw& b : sc.boxes)  // "node k", at most 18 px (panel_topology.cpp)
              labels.push_back(Rect{b.min.x + b.label_x, b.min.y + 3, kNodeLabelW, 18});
            for (size_t i = 0; i < labels.size(); ++i)
              for (size_t j = i + 1; j < labels.size(); ++j) {
                INFO("labels ", i, " and ", j, ": ", show(labels[i]), " / ", show(labels[j]));
                CHECK_FALSE(labels[i].overlaps(labels[j]));
              }
            // No arrow runs through a node's label (sampled along its curve).
            for (const ArrowDraw& a : sc.arrows)
              for (int k = 0; k <= 20; ++k) {
                const Vec2 at = arrow_at(a, float(k) / 20);
                const float x = at.x, y = at.y;
                for (size_t i = sc.nodes.size(); i < labels.size(); ++i) {
                  INFO("arrow R", a.from, "->R", a.to, " at (", x, ", ", y, ") through ", show(labels[i]));
                  CHECK_FALSE(Rect{x, y, 0.01f, 0.01f}.overlaps(labels[i]));
                }
              }
            // A badge inside a node covers no rank's label. (Arrows between
            // nodes cross a box - hierarchical's, or the chain's wrap over the
            // label row - and are left out.)
            if (nodes > 1)
              for (const ArrowDraw& a : sc.arrows) {
                if (a.from / (n / nodes) != a.to / (n / nodes)) continue;
                if (!a.badge_shown) continue;  // left out: not drawn
                const Rect br{a.badge.x - a.badge_w / 2, a.badge.y - a.badge_h / 2, a.badge_w, a.badge_h};
                for (size_t i = 0; i < sc.nodes.size(); ++i) {
                  INFO("badge R", a.from, "->R", a.to, " ", show(br), " over R", i, " ", show(labels[i]));
                  CHECK_FALSE(br.overlaps(labels[i]));
                }
              }
          }
      }
  }

  TEST_CASE("buffer cells show their values: lesson 02 beats 1-4 (positions 0..2) at 18 and 28 px, the seed at --present 28 px") {
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px, lesson 02 beat 2");
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
      REQUIRE(app.lesson->go(1));
      app.vs.edit = beat_target(app.lesson->current()).params;
      frames(h, app);
      REQUIRE(app.session.configured());
      REQUIRE(app.session.schedule().world_size() == 3);
      app.session.seek(1);
      app.lesson->choose(2);  // until answered, the buffers show the state before the beat's step
      frames(h, app);
      // input, send_buff, recv_buff and accum of each of the 3 ranks hold 3 values each.
      CHECK(app.vs.cell_texts.size() == 36);
      check_cell_texts(app, 3, 12);
      // Beats 1, 3 and 4 show the same run before step 0 and after the last step.
      for (const int pos : {0, 2}) {
        INFO("position ", pos);
        app.session.seek(pos);
        frames(h, app);
        check_cell_texts(app, 3, 12);
      }
      CHECK(app.vs.cell_texts.size() == 45);  // after the last step the output rows hold values too
    }
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.present = true;
    app.vs.edit = seed_ring();
    frames(h, app);
    REQUIRE(app.session.configured());
    app.session.seek(1);
    frames(h, app);
    CHECK(app.vs.cell_texts.size() == 36);
    check_cell_texts(app, 3, 12);
  }

  TEST_CASE("8 ranks of 8 elements (recursive doubling): every defined cell carries its value, 3-digit sums included") {
    Sized h(18);
    App app;
    app.vs.font_px = 18;
    app.vs.edit.spec.algorithm = "recursive_doubling";
    app.vs.edit.spec.world_size = 8;
    app.vs.edit.spec.count = 8;
    frames(h, app);
    REQUIRE(app.session.configured());
    app.session.seek(app.session.num_steps());
    frames(h, app);
    // iota: rank r holds 8r+1..8r+8, so output element i is the sum over r, 8*(i+1)+224 = 232..288.
    bool three_digits = false;
    for (const auto& t : app.vs.cell_texts) three_digits = three_digits || t.value == "288";
    CHECK(three_digits);
    // The text may be smaller than the panel's (not below 7 px) but whole.
    check_cell_texts(app, 8, 7);
  }
}
