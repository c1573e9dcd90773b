// Large classes (scene.h): the buffers' crowd view (one row per rank, the
// most complete copy of each chunk), the topology's compact nodes (more
// nodes than fit with their ranks), and long buffers' rows drawn to their
// size. No ImGui, no GL.
#include <doctest/doctest.h>

#include <string>

#include "app/viz/scene.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("scene_crowd") {
  TEST_CASE("crowd view, ring all-reduce on 8 ranks: own colours, then one complete chunk each, then all complete") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.count = 8;
    Session ses;
    ses.configure(p);
    REQUIRE(ses.schedule().num_steps() == 14);  // 7 reduce-scatter steps, 7 all-gather
    BuffersLayout lay;
    lay.width = 800, lay.row_h = 20, lay.row_gap = 2, lay.tag_w = 40, lay.col_gap = 16;
    // 8 rows of 22 px: one column in 200 px, two in 100 px.
    CrowdScene cs = build_buffers_crowd(ses, 0, lay, 200);
    CHECK(lay.columns == 1);
    CHECK(cs.buffer == "output");
    CHECK(cs.step_line.empty());
    REQUIRE(cs.buffers.rows.size() == 8);
    CHECK(cs.buffers.height == doctest::Approx(8 * 22 - 2));
    for (const BufferRowDraw& row : cs.buffers.rows) {
      INFO("R", row.rank);
      CHECK(row.tag == "R" + std::to_string(row.rank));
      REQUIRE(row.cells.size() == 8);  // one per chunk
      for (const CellDraw& c : row.cells) {
        CHECK(c.mask == uint64_t{1} << row.rank);  // its input only
        CHECK(c.stripes.front() == rank_color(row.rank));
      }
    }
    CHECK(build_buffers_crowd(ses, 0, lay, 100).buffers.rows[4].x > 0);
    CHECK(lay.columns == 2);
    // After the reduce-scatter each rank holds exactly one chunk complete.
    cs = build_buffers_crowd(ses, 7, lay, 200);
    CHECK(cs.step_line.rfind("step 6: 8 cells changed; ", 0) == 0);
    for (const BufferRowDraw& row : cs.buffers.rows) {
      int complete = 0;
      for (const CellDraw& c : row.cells) complete += c.complete;
      INFO("R", row.rank);
      CHECK(complete == 1);
    }
    cs = build_buffers_crowd(ses, 14, lay, 200);
    for (const BufferRowDraw& row : cs.buffers.rows)
      for (const CellDraw& c : row.cells) {
        CHECK(c.complete);
        CHECK(c.stripes.front() == complete_color());
      }
    // Partial results deepen with their share of the ranks.
    CHECK(crowd_fill(0b11, 8, false).g > crowd_fill(0b1111111, 8, false).g);
    CHECK(crowd_fill(0b11, 8, false).r > crowd_fill(0b1111111, 8, false).r);
  }

  TEST_CASE("compact nodes: the flat ring on 9 nodes x 2, as many boxes as fit, per-node totals, arrows between drawn nodes") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 18;
    p.spec.nodes = 9;
    p.spec.count = 18;  // float32: one element (4 B) a chunk
    Session ses;
    ses.configure(p);
    // 400 x 150: 3 columns of 2 rows of boxes with totals; 4 x 3 label-only
    // boxes would hold all 9 nodes.
    const TopologyScene all = build_topology(ses, 1, Vec2{400, 150});
    REQUIRE(all.compact_nodes);
    CHECK(all.boxes.size() == 9);
    CHECK(all.nodes_hidden == 0);
    for (const NodeBoxDraw& b : all.boxes) {
      CHECK(b.max.x - b.min.x >= kLabelBoxW);
      CHECK(b.max.y - b.min.y >= kLabelBoxH);
      CHECK(b.max.y - b.min.y < kCompactBoxH);
    }
    // 200 x 150: 1 x 2 boxes with totals, 2 x 3 label-only: 5 of 9 drawn,
    // the 6th slot for the note.
    const TopologyScene sc = build_topology(ses, 1, Vec2{200, 150});
    REQUIRE(sc.compact_nodes);
    REQUIRE(sc.boxes.size() == 5);
    CHECK(sc.nodes_hidden == 4);
    CHECK(sc.nics.empty());
    bool note = false;
    for (const std::string& l : sc.notes) note = note || l == "+4 more nodes not drawn (5 of 9)";
    CHECK(note);
    for (size_t i = 0; i < sc.boxes.size(); ++i) {
      const NodeBoxDraw& b = sc.boxes[i];
      INFO("node ", b.node);
      CHECK(b.node == int(i));
      CHECK(b.max.x - b.min.x >= kLabelBoxW);
      CHECK(b.max.y - b.min.y >= kLabelBoxH);
      CHECK(b.min.x >= 0);
      CHECK(b.min.y >= 0);
      CHECK(b.max.x <= 200);
      CHECK(b.max.y <= 150);
      for (size_t j = i + 1; j < sc.boxes.size(); ++j) {
        const NodeBoxDraw& o = sc.boxes[j];
        CHECK((b.max.x <= o.min.x || o.max.x <= b.min.x || b.max.y <= o.min.y || o.max.y <= b.min.y));
      }
      // Step 0: the node's last rank sends 4 B to the next node, one 4 B hop stays inside.
      REQUIRE(b.totals.size() == 3);
      CHECK(b.totals[0] == "out 4 B");
      CHECK(b.totals[1] == "in 4 B");
      CHECK(b.totals[2] == "inside 4 B");
    }
    // Node k -> k + 1 for the drawn pairs 0->1 .. 3->4.
    REQUIRE(sc.arrows.size() == 4);
    for (const ArrowDraw& a : sc.arrows) {
      CHECK(a.to / 2 == a.from / 2 + 1);
      CHECK(a.bytes == 4);
      CHECK(a.badge_w == 0);
    }
    REQUIRE(sc.loads.size() == 4);
    for (const ArrowLoad& l : sc.loads) CHECK(l.inter);
    // Room for every node with its totals: 3 x 4 boxes of at least 112 x 56 in 400 x 300.
    const TopologyScene big = build_topology(ses, 1, Vec2{400, 300});
    CHECK(big.boxes.size() == 9);
    for (const NodeBoxDraw& b : big.boxes) {
      CHECK(b.max.x - b.min.x >= kCompactBoxW);
      CHECK(b.max.y - b.min.y >= kCompactBoxH);
    }
    // 2 nodes x 4 keep their ranks drawn.
    p.spec.world_size = 8, p.spec.nodes = 2, p.spec.count = 8;
    ses.configure(p);
    CHECK_FALSE(build_topology(ses, 1, Vec2{400, 300}).compact_nodes);
  }

  TEST_CASE("a sliced buffer is drawn to its size: reduce-scatter's output a quarter of the input on 4 ranks") {
    RunParams p;
    p.spec.collective = Collective::reduce_scatter;
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 1040;  // per rank out; the input holds 4 x 1040 (lesson 10 beat 2)
    Session ses;
    ses.configure(p);
    BuffersLayout lay;
    lay.width = 800, lay.tag_w = 40, lay.label_w = 60;
    const BuffersScene sc = build_buffers(ses, ses.num_steps(), lay);
    const auto span = [](const BufferRowDraw& row) { return row.cells.back().x1 - row.cells.front().x0; };
    int seen = 0;
    for (int r = 0; r < 4; ++r) {
      const BufferRowDraw *in = nullptr, *out = nullptr;
      for (const BufferRowDraw& row : sc.rows) {
        if (row.rank != r) continue;
        if (row.buf == Buf::input) in = &row;
        if (row.buf == Buf::output) out = &row;
      }
      REQUIRE(in);
      REQUIRE(out);
      CHECK(in->cells.size() == 4);   // one per chunk of the schedule
      CHECK(out->cells.size() == 1);  // one rank's block: one cell (8 slices read as 8 chunks)
      CHECK(out->cells.front().len == 1040);
      CHECK(out->cells.front().x0 == doctest::Approx(in->cells.front().x0));
      // The input's last cell ends 2 px short of its span (the gap), the
      // output's one cell likewise: a quarter of the width, within the gap.
      CHECK(span(*out) == doctest::Approx((span(*in) + 2) / 4 - 2).epsilon(0.01));
      for (const CellDraw& c : out->cells) CHECK(c.complete);  // each rank's block, reduced
      ++seen;
    }
    CHECK(seen == 4);
    // All-gather, the other way round (lesson 10 beat 1): each rank's input,
    // its block of 1040, is one cell beside the output's 4 chunks.
    p.spec.collective = Collective::all_gather;
    ses.configure(p);
    const BuffersScene ag = build_buffers(ses, ses.num_steps(), lay);
    for (const BufferRowDraw& row : ag.rows) {
      INFO("R", row.rank, " ", row.label);
      if (row.buf == Buf::input) CHECK(row.cells.size() == 1);
      if (row.buf == Buf::output) CHECK(row.cells.size() == 4);
    }
  }
}

TEST_SUITE("scene_crowd") {
  TEST_CASE("hierarchical 2 nodes x 4: a chunk reduced in one half only is not drawn as complete") {
    // Lesson 09's picture: 8 float32 on 8 ranks, 4 chunks of 2 elements. The
    // intra-node reduce-scatter (steps 0-2) leaves R0 with chunk 1 summed over
    // node 0; the 2-rank ring between the nodes (steps 3-4) then completes it
    // one element per step, so after step 3 one element holds all 8 ranks and
    // the other node 0's 4.
    RunParams p;
    p.spec.algorithm = "hierarchical";
    p.spec.world_size = 8, p.spec.nodes = 2, p.spec.count = 8;
    Session ses;
    ses.configure(p);
    REQUIRE(ses.schedule().num_steps() == 8);
    BuffersLayout lay;
    lay.width = 800, lay.row_h = 20, lay.row_gap = 2, lay.tag_w = 40, lay.col_gap = 16;
    // After step 2: each rank holds one chunk summed over its node.
    CrowdScene cs = build_buffers_crowd(ses, 3, lay, 200);
    CHECK(cs.step_line == "step 2: 8 cells changed; R0 chunk 1 (4 ranks)");
    // After step 3 (the first through the NICs): half of that chunk holds all
    // 8 ranks, half still node 0's 4. Not complete, not drawn as complete.
    cs = build_buffers_crowd(ses, 4, lay, 200);
    CHECK(cs.step_line == "step 3: 8 cells changed; R0 chunk 1 (4 ranks in every element, 8 in some)");
    REQUIRE(cs.buffers.rows.size() == 8);
    const CellDraw& mixed = cs.buffers.rows[0].cells.at(1);
    CHECK(mixed.mask == all_ranks(8));
    CHECK(mixed.common == 0x0Fu);  // R0-R3: node 0
    CHECK_FALSE(mixed.uniform);
    CHECK_FALSE(mixed.complete);
    CHECK(mixed.changed);
    CHECK(mixed.stripes.front() == crowd_fill(0x0F, 8, false));
    CHECK(mixed.stripes.front() != complete_color());
    // After step 4 the second half arrives: the same cell changes (its union
    // did not) and is complete.
    cs = build_buffers_crowd(ses, 5, lay, 200);
    CHECK(cs.step_line == "step 4: 8 cells changed; R0 chunk 1 (all ranks)");
    const CellDraw& done = cs.buffers.rows[0].cells.at(1);
    CHECK(done.changed);
    CHECK(done.complete);
    CHECK(done.common == all_ranks(8));
    // range_provenance reports both sets for elements [2, 4) of R0's output,
    // and nothing for an empty range.
    const BufferState* out = ses.provenance().find(4, 0, Buf::output);
    REQUIRE(out != nullptr);
    const RangeProvenance rp = range_provenance(*out, 2, 2);
    CHECK(rp.mask == all_ranks(8));
    CHECK(rp.common == 0x0Fu);
    CHECK(range_provenance(*out, 2, 0).common == 0);
  }
}
