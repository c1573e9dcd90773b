// Threads backend: the delayed-send hook, stepping, traffic per rank, step
// counts, numeric rules on real runs, and the trace export.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/exec/executor.h"
#include "core/record/chrome_trace.h"
#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/record/data.h"
#include "core/ir/reference.h"

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, DType t = DType::float32,
                    ReduceOp op = ReduceOp::sum) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  return s;
}
std::vector<double> values(const CollectiveSpec& s, const std::vector<std::byte>& b) {
  std::vector<double> v(b.size() / dtype_size(s.dtype));
  for (size_t i = 0; i < v.size(); ++i) v[i] = kernels::load_double(s.dtype, b.data(), i);
  return v;
}
}  // namespace

TEST_SUITE("delay") {
  TEST_CASE("double-buffered rings stay exact under 200 seeds of delayed sends") {
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      const int n = 3 + static_cast<int>(seed % 2);
      const std::string alg = seed % 3 == 0 ? "ring" : "ring_unchunked";
      CollectiveSpec s = spec(Collective::all_reduce, alg, n, 7, DType::int32);
      if (alg == "ring") s.segments = 1 + static_cast<int>(seed % 3);
      const Schedule sch = make_schedule(s);
      const RankData in = fill_data(s, "random:" + std::to_string(seed));
      DelayHook hook{static_cast<int>(seed % n), seed, 50};
      RunOptions opt;
      opt.delay = &hook;
      opt.mode = seed % 2 ? Mode::free : Mode::lockstep;
      const RunResult res = run_threads(sch, in, opt);
      const RankData want = reference_outputs(s, in);
      for (int r = 0; r < n; ++r) REQUIRE(res.outputs[r] == want[r]);
    }
  }
}

// The single-buffered ring races by design (that is the lesson), so this
// suite is not run under ThreadSanitizer.
TEST_SUITE("race_demo") {
  TEST_CASE("a single-buffered ring corrupts its result under delayed sends") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring_unchunked", 3, 3);
    const Schedule sch = make_single_buffered_ring(s);
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    int corrupted = 0;
    for (uint64_t seed = 1; seed <= 200 && corrupted == 0; ++seed) {
      DelayHook hook{-1, seed, 300};
      RunOptions opt;
      opt.delay = &hook;
      const RunResult res = run_threads(sch, in, opt);
      for (int r = 0; r < 3; ++r)
        if (values(s, res.outputs[r]) != std::vector<double>{12, 15, 18}) ++corrupted;
    }
    CHECK(corrupted > 0);
  }
}

TEST_SUITE("stepped") {
  TEST_CASE("SteppedRun runs one real step per call") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring_unchunked", 3, 3);
    const Schedule sch = make_schedule(s);
    SteppedRun run(sch, parse_data(s, "1,2,3;4,5,6;7,8,9"));
    CHECK(run.steps_done() == 0);
    run.step();
    CHECK(run.steps_done() == 1);
    const auto& b = run.trace().steps[0][0].buffers;
    auto acc = std::find_if(b.begin(), b.end(), [](const BufferSnapshot& x) { return x.buf == Buf::accum; });
    REQUIRE(acc != b.end());
    CHECK(acc->values == std::vector<double>{8, 10, 12});
    run.step();
    CHECK(run.finished());
    const RunResult res = run.finish();
    CHECK(values(s, res.outputs[1]) == std::vector<double>{12, 15, 18});
  }
}

TEST_SUITE("executor") {
  TEST_CASE("traffic per rank matches the seed notes") {
    const int64_t S = 1200 * 4;  // bytes of the vector (float32)
    for (int n : {2, 3, 4, 5, 8}) {
      CAPTURE(n);
      // ring: each rank sends 2(n-1)/n * S (exact here: 1200 divides by n)
      auto ring = run_threads(make_schedule(spec(Collective::all_reduce, "ring", n, 1200)),
                              fill_data(spec(Collective::all_reduce, "ring", n, 1200), "iota"));
      for (int r = 0; r < n; ++r) CHECK(ring.trace.bytes_sent[r] == 2 * (n - 1) * S / n);
      CHECK(make_schedule(spec(Collective::all_reduce, "ring", n, 1200)).num_steps() == 2 * (n - 1));
      CHECK(make_schedule(spec(Collective::all_reduce, "ring_unchunked", n, 1200)).num_steps() == n - 1);
      // naive: the root receives (n-1) * S
      auto naive = run_threads(make_schedule(spec(Collective::all_reduce, "naive", n, 1200)),
                               fill_data(spec(Collective::all_reduce, "naive", n, 1200), "iota"));
      CHECK(naive.trace.bytes_received[0] == (n - 1) * S);
    }
    // binary tree on 7 ranks: leaves 2S, root 4S, internal nodes 6S (sent + received)
    const CollectiveSpec t = spec(Collective::all_reduce, "tree", 7, 1200);
    auto tree = run_threads(make_schedule(t), fill_data(t, "iota"));
    auto moved = [&](int r) { return tree.trace.bytes_sent[r] + tree.trace.bytes_received[r]; };
    CHECK(moved(0) == 4 * S);
    CHECK(moved(1) == 6 * S);
    CHECK(moved(2) == 6 * S);
    for (int r = 3; r < 7; ++r) CHECK(moved(r) == 2 * S);
    CHECK(make_schedule(t).num_steps() == 2 * 2);  // height ceil(log2 8) = 3 levels: 2 up, 2 down
  }

  TEST_CASE("uneven chunks: ring traffic within one element of 2(n-1)/n * S") {
    for (int n : {3, 5, 7})
      for (int64_t count : {10, 37, 101}) {
        const CollectiveSpec s = spec(Collective::all_reduce, "ring", n, count);
        auto res = run_threads(make_schedule(s), fill_data(s, "iota"));
        const double ideal = 2.0 * (n - 1) / n * count * 4;
        for (int r = 0; r < n; ++r) CHECK(std::fabs(res.trace.bytes_sent[r] - ideal) <= 2.0 * (n - 1) * 4);
      }
  }

  TEST_CASE("numeric rules on real runs") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // NaN in every position propagates through min and max, every algorithm.
    for (const auto& alg : algorithms_for(Collective::all_reduce))
      for (ReduceOp op : {ReduceOp::min, ReduceOp::max})
        for (int pos = 0; pos < 4; ++pos) {
          CollectiveSpec s = spec(Collective::all_reduce, alg, 4, 2, DType::float32, op);
          RankData in = fill_data(s, "iota");
          kernels::store_double(s.dtype, in[pos].data(), 1, nan);
          auto res = run_threads(make_schedule(s), in);
          for (int r = 0; r < 4; ++r) {
            CHECK(std::isnan(kernels::load_double(s.dtype, res.outputs[r].data(), 1)));
            CHECK(!std::isnan(kernels::load_double(s.dtype, res.outputs[r].data(), 0)));
          }
        }
    // Integer sum and prod wrap.
    {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 2, 1, DType::int32);
      auto res = run_threads(make_schedule(s), parse_data(s, "2147483647;1"));
      CHECK(kernels::load_double(s.dtype, res.outputs[0].data(), 0) == -2147483648.0);
      s.op = ReduceOp::prod;
      auto p = run_threads(make_schedule(s), parse_data(s, "65536;65536"));
      CHECK(kernels::load_double(s.dtype, p.outputs[1].data(), 0) == 0.0);  // 2^32 wraps to 0
    }
    // Integer avg truncates toward zero: (-7 + 0 + 0) / 3 = -2, (7+0+1)/3 = 2.
    {
      CollectiveSpec s = spec(Collective::all_reduce, "tree", 3, 2, DType::int64, ReduceOp::avg);
      auto res = run_threads(make_schedule(s), parse_data(s, "-7,7;0,0;0,1"));
      CHECK(values(s, res.outputs[2]) == std::vector<double>{-2, 2});
    }
    // float16 average of values whose sum overflows: 4 ranks of 60000 -> 60000.
    for (const auto& alg : algorithms_for(Collective::all_reduce)) {
      CollectiveSpec s = spec(Collective::all_reduce, alg, 4, 1, DType::float16, ReduceOp::avg);
      auto res = run_threads(make_schedule(s), parse_data(s, "60000;60000;60000;60000"));
      for (int r = 0; r < 4; ++r) CHECK(kernels::load_double(s.dtype, res.outputs[r].data(), 0) == 60000.0);
    }
    // Count 0, world size 1, count < world size.
    {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 1, 3);
      auto res = run_threads(make_schedule(s), parse_data(s, "1,2,3"));
      CHECK(values(s, res.outputs[0]) == std::vector<double>{1, 2, 3});
      CollectiveSpec z = spec(Collective::all_reduce, "ring", 4, 0);
      auto rz = run_threads(make_schedule(z), parse_data(z, ";;;"));
      for (int r = 0; r < 4; ++r) CHECK(rz.outputs[r].empty());
      CollectiveSpec few = spec(Collective::all_reduce, "ring", 5, 2);
      auto rf = run_threads(make_schedule(few), parse_data(few, "1,1;2,2;3,3;4,4;5,5"));
      CHECK(values(few, rf.outputs[4]) == std::vector<double>{15, 15});
    }
    // Uneven per-rank counts (all_gather v).
    {
      CollectiveSpec s = spec(Collective::all_gather, "ring", 3, 0);
      s.counts = {2, 0, 1};
      auto res = run_threads(make_schedule(s), parse_data(s, "1,2;;3"));
      for (int r = 0; r < 3; ++r) CHECK(values(s, res.outputs[r]) == std::vector<double>{1, 2, 3});
    }
    // Repeating a call gives the same bits.
    {
      CollectiveSpec s = spec(Collective::all_reduce, "halving_doubling", 6, 50, DType::bfloat16);
      const Schedule sch = make_schedule(s);
      RankData in = fill_data(s, "random:9");
      auto a = run_threads(sch, in), b = run_threads(sch, in);
      for (int r = 0; r < 6; ++r) {
        CHECK(a.outputs[r] == b.outputs[r]);
        CHECK(a.outputs[r] == a.outputs[0]);
      }
    }
  }

  TEST_CASE("the Chrome trace parses, flows pair up inside slices, slices nest per track") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 4, 64);
    s.segments = 2;
    const Schedule sch = make_schedule(s);
    auto res = run_threads(sch, fill_data(s, "iota"));
    const auto doc = nlohmann::json::parse(chrome_trace_json(sch, res.trace, {1.0, 2.0}));
    const auto& ev = doc.at("traceEvents");
    std::map<int64_t, int> starts, finishes;
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
    int sends = 0;
    for (const auto& e : ev) {
      const std::string ph = e.at("ph");
      if (ph == "s") ++starts[e.at("id").get<int64_t>()];
      if (ph == "f") ++finishes[e.at("id").get<int64_t>()];
      if (ph == "X") {
        slices[{e.at("pid").get<int>(), e.at("tid").get<int>()}].push_back(
            {e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>()});
        if (e.at("cat") == "send") ++sends;
        if (e.at("cat") == "step" && e.at("args").at("step") == 1) CHECK(e.at("args").at("predicted_us") == 2.0);
      }
    }
    CHECK(sends == 4 * 6 * 2);  // 4 ranks, 6 steps, 2 segments
    CHECK(starts.size() == static_cast<size_t>(sends));
    CHECK(starts == finishes);
    // every flow finish lies inside a recv slice on its track
    for (const auto& e : ev)
      if (e.at("ph") == "f") {
        const auto& sl = slices[{e.at("pid").get<int>(), e.at("tid").get<int>()}];
        const double ts = e.at("ts");
        CHECK(std::any_of(sl.begin(), sl.end(), [&](auto p) { return p.first <= ts && ts <= p.second + 1e-9; }));
      }
    // slices on one track either nest or are disjoint
    for (auto& [k, sl] : slices) {
      std::sort(sl.begin(), sl.end());
      for (size_t i = 1; i < sl.size(); ++i) {
        const bool disjoint = sl[i].first >= sl[i - 1].second - 1e-9;
        const bool nested = sl[i].second <= sl[i - 1].second + 1e-9;
        CHECK((disjoint || nested));
      }
    }
  }
}

TEST_SUITE("executor") {
  TEST_CASE("buffer rotation and iterations: same results, one time per iteration") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 4, 100, DType::int32);
    const Schedule sch = make_schedule(s);
    const RankData in = fill_data(s, "random:5");
    RunOptions opt;
    opt.iterations = 5;
    opt.buffer_sets = 3;
    const RunResult res = run_threads(sch, in, opt);
    const RankData want = reference_outputs(s, in);
    for (int r = 0; r < 4; ++r) CHECK(res.outputs[r] == want[r]);
    REQUIRE(res.trace.iteration_ns.size() == 5);
    for (int64_t t : res.trace.iteration_ns) CHECK(t > 0);
  }
}
