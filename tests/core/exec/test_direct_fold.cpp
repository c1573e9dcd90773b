// Folds of direct reads (core/exec/rank_program.h): on the threads backend's
// simple protocol a rank's one_shot / two_shot fold runs as one pass
// (kernels::reduce_many) straight out of the peers' inputs; the bits equal
// the op-by-op execution (protocol ll, which stages every message) and the
// order-exact reference. Suite names start with "executor" so they also run
// under ThreadSanitizer.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/order_reference.h"
#include "kernels/cpu/kernels.h"

using namespace microddp;

namespace {
CollectiveSpec spec(const std::string& alg, int n, int64_t count, ReduceOp op, bool in_place) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.dtype = DType::float32;
  s.op = op;
  s.in_place = in_place;
  return s;
}
// Values whose float32 sums depend on the order (1e8 swallows 1 one way,
// not the other) and ±0 for min's ties.
RankData inputs(int n, int64_t count) {
  RankData in(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    in[r].resize(static_cast<size_t>(count) * 4);
    for (int64_t i = 0; i < count; ++i) {
      const double v = (r + i) % 3 == 0 ? 1e8 : (r + i) % 3 == 1 ? 1.0 + 0.1 * r : (r % 2 ? -0.0 : 0.0);
      kernels::store_double(DType::float32, in[r].data(), i, (i % 2 ? -1 : 1) * v);
    }
  }
  return in;
}
RunResult run(const Schedule& sch, const RankData& in, Protocol p, bool record = false) {
  RunOptions o;
  o.protocol = p;
  o.record = record;
  o.snapshot_limit = 0;
  return run_threads(sch, in, o);
}
}  // namespace

TEST_SUITE("executor_direct_fold") {
  TEST_CASE("one_shot and two_shot: the fused fold gives the bits of the op-by-op run and of the order") {
    for (const char* alg : {"one_shot", "two_shot"})
      for (int n = 2; n <= 6; ++n)
        for (bool ip : {false, true})
          for (ReduceOp op : {ReduceOp::sum, ReduceOp::min}) {
            CAPTURE(alg); CAPTURE(n); CAPTURE(ip); CAPTURE(static_cast<int>(op));
            const Schedule s = make_schedule(spec(alg, n, 13, op, ip));
            const RankData in = inputs(n, 13);
            const RunResult fused = run(s, in, Protocol::simple);
            const RunResult staged = run(s, in, Protocol::ll);
            CHECK(fused.outputs == staged.outputs);
            CHECK(fused.outputs == order_exact_outputs(s, in));
            for (int r = 1; r < n; ++r) CHECK(fused.outputs[r] == fused.outputs[0]);
          }
  }

  TEST_CASE("one_shot n = 3: each rank's fold is one pass, its ops share one begin and one end") {
    const Schedule s = make_schedule(spec("one_shot", 3, 1000, ReduceOp::sum, false));
    // rank 2: two sends, then the fold: recv x0, recv_reduce x1, reduce its own x2
    const auto& ops = s.steps[0].ranks[2];
    REQUIRE(ops.size() == 5);
    CHECK(ops[2].kind == OpKind::recv);
    CHECK(ops[3].kind == OpKind::recv_reduce);
    CHECK(ops[4].kind == OpKind::reduce);
    const RunResult res = run(s, inputs(3, 1000), Protocol::simple, true);
    for (int r = 0; r < 3; ++r) {
      CAPTURE(r);
      std::set<std::pair<int64_t, int64_t>> spans;
      int folded = 0;
      for (const Event& e : res.trace.events[r])
        if (e.kind != OpKind::send) {
          spans.insert({e.begin_ns, e.end_ns});
          ++folded;
        }
      CHECK(folded == 3);        // x0, x1, x2 into the output
      CHECK(spans.size() == 1);  // one pass: the same begin and end
    }
  }
}
