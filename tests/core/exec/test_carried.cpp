// Trace::carried: what each message really carried, as its receiver read it.
// A correct ring carries exactly the schedule's tensors; the single-buffered
// ring under delayed sends carries overwritten data (the lesson 02 beat 5
// picture draws those badges red).
#include <doctest/doctest.h>

#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/record/data.h"

using namespace microddp;

namespace {

CollectiveSpec ring3() {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring_unchunked";
  s.world_size = 3;
  s.count = 3;
  return s;
}

// The values of the recv on `rank` from `from` in `step` (the first such).
std::vector<double> carried(const Trace& t, int rank, int from, int step) {
  for (size_t i = 0; i < t.events[rank].size(); ++i) {
    const Event& e = t.events[rank][i];
    if (e.step == step && e.peer == from && (e.kind == OpKind::recv || e.kind == OpKind::recv_reduce))
      return t.carried[rank][i];
  }
  return {};
}

}  // namespace

TEST_SUITE("executor_carried") {
  TEST_CASE("the unchunked ring's messages carry the tensors the schedule sends, recorded with snapshots on") {
    const CollectiveSpec s = ring3();
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    const RunResult res = run_threads(make_schedule(s), in);
    REQUIRE(res.trace.snapshots);
    REQUIRE(res.trace.carried.size() == 3);
    for (int r = 0; r < 3; ++r) REQUIRE(res.trace.carried[r].size() == res.trace.events[r].size());
    // Step 0: each rank's own input goes right; step 1: what it received.
    CHECK(carried(res.trace, 0, 2, 0) == std::vector<double>{7, 8, 9});
    CHECK(carried(res.trace, 1, 0, 0) == std::vector<double>{1, 2, 3});
    CHECK(carried(res.trace, 2, 1, 0) == std::vector<double>{4, 5, 6});
    CHECK(carried(res.trace, 0, 2, 1) == std::vector<double>{4, 5, 6});
    CHECK(carried(res.trace, 1, 0, 1) == std::vector<double>{7, 8, 9});
    CHECK(carried(res.trace, 2, 1, 1) == std::vector<double>{1, 2, 3});
    // Sends and local ops carry nothing of their own.
    for (size_t i = 0; i < res.trace.events[0].size(); ++i)
      if (res.trace.events[0][i].kind != OpKind::recv && res.trace.events[0][i].kind != OpKind::recv_reduce)
        CHECK(res.trace.carried[0][i].empty());
  }

  TEST_CASE("the chunked ring's recv_reduce carries the partial sum it read; a fold of direct reads too") {
    CollectiveSpec s = ring3();
    s.algorithm = "ring";
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    const RunResult res = run_threads(make_schedule(s), in);
    // The chunked ring: rank 0 hears from rank 2, one element per message;
    // every value it read is an input or a sum of inputs, and the output is right.
    int messages = 0;
    for (size_t i = 0; i < res.trace.events[0].size(); ++i)
      if (res.trace.events[0][i].kind == OpKind::recv || res.trace.events[0][i].kind == OpKind::recv_reduce) {
        CHECK(res.trace.carried[0][i].size() == 1);
        ++messages;
      }
    CHECK(messages == 4);
    CHECK(carried(res.trace, 0, 2, 0) == std::vector<double>{9});   // chunk 2 of rank 2's input
    CHECK(carried(res.trace, 0, 2, 1) == std::vector<double>{13});  // chunk 1: rank 2's 8 + rank 1's 5
    CollectiveSpec d = ring3();
    d.algorithm = "one_shot";
    if (find_algorithm("one_shot", Collective::all_reduce)) {
      const RunResult o = run_threads(make_schedule(d), parse_data(d, "1,2,3;4,5,6;7,8,9"));
      CHECK(carried(o.trace, 0, 1, 0) == std::vector<double>{4, 5, 6});
      CHECK(carried(o.trace, 0, 2, 0) == std::vector<double>{7, 8, 9});
    }
  }

  TEST_CASE("nothing is carried without snapshots (large buffers or record off)") {
    const CollectiveSpec s = ring3();
    RunOptions opt;
    opt.snapshot_limit = 1;
    const RunResult res = run_threads(make_schedule(s), parse_data(s, "1,2,3;4,5,6;7,8,9"), opt);
    CHECK_FALSE(res.trace.snapshots);
    for (const auto& r : res.trace.carried) CHECK(r.empty());
  }
}

// Races by design: not run under ThreadSanitizer (no executor/delay/stepped name).
TEST_SUITE("race_demo_carried") {
  TEST_CASE("a corrupting single-buffered ring run carries values the correct ring does not") {
    const CollectiveSpec s = ring3();
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    const RunResult good = run_threads(make_schedule(s), in);
    const Schedule broken = make_single_buffered_ring(s);
    const RankData want = reference_outputs(s, in);
    bool found = false;
    for (uint64_t seed = 1; seed <= 200 && !found; ++seed) {
      DelayHook hook{-1, seed, 300};
      RunOptions opt;
      opt.delay = &hook;
      const RunResult res = run_threads(broken, in, opt);
      if (outputs_match(s, in, res.outputs, want)) continue;
      found = true;
      REQUIRE(res.trace.snapshots);
      int differ = 0;
      for (int step = 0; step < 2; ++step)
        for (int r = 0; r < 3; ++r) {
          const std::vector<double> got = carried(res.trace, r, (r + 2) % 3, step);
          REQUIRE(got.size() == 3);
          differ += got != carried(good.trace, r, (r + 2) % 3, step);
        }
      CHECK(differ >= 1);  // wrong outputs came from wrong data on the wire
    }
    CHECK(found);
  }
}
