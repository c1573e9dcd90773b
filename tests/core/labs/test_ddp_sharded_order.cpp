// The sharded (FSDP-style) loop's timeline order, as the DDP loop's
// (test_ddp.cpp "timeline order"): backward ends when layer 0's backward
// compute ends, before its reduce-scatter is posted (lesson 10's picture
// drew "RS L0" starting before the "backward ends" line when the end was
// stamped after that post).
#include <doctest/doctest.h>

#include <algorithm>

#include "core/labs/ddp/ddp.h"

using namespace microddp::ddp;

TEST_SUITE("ddp") {
  TEST_CASE("sharded timeline order: each reduce-scatter starts after its layer's backward; RS L0 after backward ends") {
    // Causal orders (a call starts once every rank posted it, and a rank
    // posts after stamping): they hold on any machine, however loaded.
    for (const bool pre : {true, false}) {
      CAPTURE(pre);
      Options o;
      o.ranks = 3, o.depth = 3, o.width = 16, o.batch = 12, o.iterations = 2, o.warmup = 0, o.lr = 0.1;
      o.algorithm = "ring";
      o.sharded = true;
      o.prefetch = pre;
      o.check_reference = false;
      const Result res = run_ddp(o);
      REQUIRE(res.timelines.size() == 2u);
      for (const IterationTimeline& tl : res.timelines) {
        REQUIRE(tl.comm.size() == 9u);  // 2 all-gathers and 1 reduce-scatter per layer
        int reduce_scatters = 0;
        for (const CommSpan& c : tl.comm) {
          if (c.collective != "reduce_scatter") continue;
          ++reduce_scatters;
          double layer_end = -1;  // the last rank's end of this layer's backward
          for (const LayerSpan& s : tl.layers)
            if (s.backward && s.layer == c.layer) layer_end = std::max(layer_end, s.end_ms);
          CAPTURE(c.layer);
          CHECK(layer_end > 0);
          CHECK(c.begin_ms >= layer_end);
          if (c.layer == 0) CHECK(c.begin_ms >= tl.backward_end_ms);
        }
        CHECK(reduce_scatters == 3);
        // Backward ends with the last rank's layer 0 backward; each rank's
        // first reduce-scatter wait starts no earlier than that layer's end.
        double latest_layer0_end = -1;
        for (int r = 0; r < 3; ++r) {
          double layer0_end = -1, first_rs_wait = -1;
          for (const LayerSpan& s : tl.layers)
            if (s.rank == r && s.backward && s.layer == 0) layer0_end = s.end_ms;
          for (const WaitSpan& w : tl.waits) {
            const auto c = std::find_if(tl.comm.begin(), tl.comm.end(), [&](const CommSpan& x) { return x.call == w.call; });
            REQUIRE(c != tl.comm.end());
            if (w.rank == r && c->collective == "reduce_scatter" && first_rs_wait < 0) first_rs_wait = w.begin_ms;
          }
          CAPTURE(r);
          latest_layer0_end = std::max(latest_layer0_end, layer0_end);
          CHECK(first_rs_wait >= layer0_end);
        }
        CHECK(tl.backward_end_ms == latest_layer0_end);
      }
    }
  }
}
