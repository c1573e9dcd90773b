// The hierarchical (two-level ring) all-reduce on N nodes x g ranks: the
// checker accepts it, it equals the reference bit for bit on threads for
// every N, g in 1..4 and even and uneven counts, it has 2(g-1) + 2(N-1)
// steps, and it is op for op the chunked ring when N = 1 or g = 1.
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/checker.h"
#include "core/ir/reference.h"
#include "core/record/data.h"

using namespace microddp;

namespace {
CollectiveSpec hier(int N, int g, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "hierarchical";
  s.world_size = N * g;
  s.nodes = N;
  s.count = count;
  return s;
}
RankData small_ints(const CollectiveSpec& s) {
  RankData in(s.world_size);
  for (int r = 0; r < s.world_size; ++r) {
    in[r].resize(s.count * dtype_size(s.dtype));
    for (int64_t i = 0; i < s.count; ++i)
      kernels::store_double(s.dtype, in[r].data(), i, static_cast<double>((r * 7 + i * 3) % 5) - 2);
  }
  return in;
}
}  // namespace

TEST_SUITE("hierarchical") {
  TEST_CASE("N, g in 1..4, even and uneven counts, in place or not: the reference, bit for bit") {
    size_t combo = 0;
    for (int N = 1; N <= 4; ++N)
      for (int g = 1; g <= 4; ++g) {
        const int n = N * g;
        for (int64_t count : {int64_t{0}, int64_t{1}, int64_t(n - 1), int64_t(n), int64_t(n + 1), int64_t{37}})
          for (bool ip : {false, true}) {
            ++combo;
            CollectiveSpec s = hier(N, g, count);
            s.in_place = ip;
            s.dtype = all_dtypes()[combo % all_dtypes().size()];
            s.op = combo % 3 == 0 ? ReduceOp::max : ReduceOp::sum;
            CAPTURE(N); CAPTURE(g); CAPTURE(count); CAPTURE(ip); CAPTURE(name(s.dtype));
            const Schedule sch = make_schedule(s);
            CHECK(sch.num_steps() == (n == 1 ? (ip ? 0 : 1) : 2 * (g - 1) + 2 * (N - 1)));  // n = 1: one copy, none in place
            check_schedule(sch);
            const RankData in = small_ints(s);
            RunOptions opt;
            opt.mode = combo % 2 ? Mode::free : Mode::lockstep;
            const RunResult res = run_threads(sch, in, opt);
            const RankData want = reference_outputs(s, in);
            for (int r = 0; r < n; ++r) CHECK(res.outputs[r] == want[r]);
          }
      }
  }

  TEST_CASE("one node, or one rank per node: op for op the chunked ring") {
    for (auto [N, g] : {std::pair{1, 5}, std::pair{5, 1}, std::pair{1, 2}, std::pair{3, 1}}) {
      CAPTURE(N); CAPTURE(g);
      CollectiveSpec h = hier(N, g, 13), r = h;
      r.algorithm = "ring";
      r.nodes = 1;
      const Schedule a = make_schedule(h), b = make_schedule(r);
      REQUIRE(a.num_steps() == b.num_steps());
      for (int st = 0; st < a.num_steps(); ++st)
        for (int k = 0; k < h.world_size; ++k) {
          const auto &x = a.steps[st].ranks[k], &y = b.steps[st].ranks[k];
          REQUIRE(x.size() == y.size());
          for (size_t i = 0; i < x.size(); ++i) {
            CHECK(x[i].kind == y[i].kind);
            CHECK(x[i].peer == y[i].peer);
            CHECK(x[i].src.buf == y[i].src.buf);
            CHECK(x[i].src.offset == y[i].src.offset);
            CHECK(x[i].dst.buf == y[i].dst.buf);
            CHECK(x[i].dst.offset == y[i].dst.offset);
            CHECK(x[i].len == y[i].len);
          }
        }
    }
  }

  TEST_CASE("2 nodes x 4: the inter phase pairs local rank l of node 0 with local rank l of node 1") {
    const Schedule s = make_schedule(hier(2, 4, 8));
    // steps: 3 intra reduce-scatter, 1 inter scatter-reduce, 1 inter all-gather, 3 intra all-gather
    REQUIRE(s.num_steps() == 8);
    for (int st : {3, 4})
      for (int r = 0; r < 8; ++r)
        for (const Op& op : s.steps[st].ranks[r])
          if (is_comm(op.kind)) {
            CHECK(op.peer == (r + 4) % 8);
            CHECK(op.len == 1);  // shard 2 elements, cut in 2 pieces
          }
    for (int st : {0, 1, 2, 5, 6, 7})
      for (int r = 0; r < 8; ++r)
        for (const Op& op : s.steps[st].ranks[r])
          if (is_comm(op.kind)) {
            CHECK(op.peer / 4 == r / 4);  // inside the node
            CHECK(op.len == 2);
          }
  }

  TEST_CASE("nodes not dividing the world size is refused, naming both numbers") {
    CollectiveSpec s = hier(1, 6, 4);
    s.nodes = 4;
    CHECK_THROWS_WITH_AS(make_schedule(s), doctest::Contains("--ranks 6 is not divisible by --nodes 4"), UsageError);
    s.nodes = 0;
    CHECK_THROWS_WITH_AS(make_schedule(s), doctest::Contains("--nodes 0"), UsageError);
  }
}
