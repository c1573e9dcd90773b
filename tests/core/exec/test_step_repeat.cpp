// Warm step repetitions (RunOptions::repeat_steps): the repetitions run on
// copies, so a run with them leaves every output, input, snapshot and event
// storage bit-for-bit as a run without them; the counts are exact; the
// timings are carried by records and the Chrome trace. No timing bound is
// asserted: only orderings that hold by construction (p10 <= median <= p90).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/record/chrome_trace.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
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

bool has_op(const Schedule& s, OpKind k) {
  for (const auto& st : s.steps)
    for (const auto& ops : st.ranks)
      for (const Op& o : ops)
        if (o.kind == k) return true;
  return false;
}

// Everything a run leaves that is data, not time.
void require_same_data(const RunResult& a, const RunResult& b) {
  REQUIRE(a.outputs == b.outputs);
  REQUIRE(a.inputs_after == b.inputs_after);
  REQUIRE(a.trace.snapshots == b.trace.snapshots);
  REQUIRE(a.trace.steps.size() == b.trace.steps.size());
  for (size_t k = 0; k < a.trace.steps.size(); ++k)
    for (size_t r = 0; r < a.trace.steps[k].size(); ++r) {
      const auto& x = a.trace.steps[k][r].buffers;
      const auto& y = b.trace.steps[k][r].buffers;
      REQUIRE(x.size() == y.size());
      for (size_t i = 0; i < x.size(); ++i) {
        CHECK(x[i].buf == y[i].buf);
        CHECK(x[i].storage == y[i].storage);
        // Bit-for-bit: compare the bytes (NaN != NaN as doubles).
        REQUIRE(x[i].values.size() == y[i].values.size());
        CHECK(std::memcmp(x[i].values.data(), y[i].values.data(), x[i].values.size() * sizeof(double)) == 0);
      }
    }
  REQUIRE(a.trace.events.size() == b.trace.events.size());
  for (size_t r = 0; r < a.trace.events.size(); ++r) {
    REQUIRE(a.trace.events[r].size() == b.trace.events[r].size());
    for (size_t i = 0; i < a.trace.events[r].size(); ++i) CHECK(a.trace.events[r][i].storage == b.trace.events[r][i].storage);
  }
  CHECK(a.trace.bytes_sent == b.trace.bytes_sent);
  CHECK(a.trace.bytes_received == b.trace.bytes_received);
}

void check_timings(const Trace& t, int steps, int reps) {
  REQUIRE(static_cast<int>(t.step_timing.size()) == steps);
  for (const StepTiming& st : t.step_timing) {
    CHECK(st.repetitions == reps);
    CHECK(st.includes_barrier);
    CHECK(st.p10_ns <= st.median_ns);
    CHECK(st.median_ns <= st.p90_ns);
    CHECK(st.p10_ns > 0);
    CHECK(st.first_run_ns > 0);
  }
}
}  // namespace

TEST_SUITE("executor_repeat") {
  TEST_CASE("repeated steps leave outputs, inputs, snapshots and storages identical to one run") {
    struct Case {
      CollectiveSpec s;
      std::string fill;
    };
    std::vector<Case> cases;
    cases.push_back({spec(Collective::all_reduce, "ring_unchunked", 3, 3), "1,2,3;4,5,6;7,8,9"});
    cases.push_back({spec(Collective::all_reduce, "ring", 3, 3), "1,2,3;4,5,6;7,8,9"});
    {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 4, 17, DType::int64);
      s.segments = 3;  // a segmented ring
      cases.push_back({s, "random:4"});
    }
    {
      CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 5);
      s.in_place = true;
      cases.push_back({s, "iota"});
    }
    // avg pre-scales a private copy of the input; the copy must not be rescaled by a repetition.
    cases.push_back({spec(Collective::all_reduce, "naive", 3, 7, DType::float16, ReduceOp::avg), "random:3"});
    cases.push_back({spec(Collective::all_reduce, "halving_doubling", 7, 15, DType::int32, ReduceOp::min), "random:5"});
    cases.push_back({spec(Collective::reduce_scatter, "ring", 5, 10, DType::bfloat16), "random:6"});
    cases.push_back({spec(Collective::all_to_all, "naive", 4, 3), "iota"});
    cases.push_back({spec(Collective::broadcast, "binomial", 6, 4, DType::float64), "rank"});
    // NaN, infinities and a negative zero among the inputs
    cases.push_back({spec(Collective::all_reduce, "ring", 3, 3), "1.5,nan,inf;-inf,-0.0,2;3,4,5"});
    const bool swaps = has_op(make_schedule(cases[0].s), OpKind::swap);
    CHECK(swaps);  // the double-buffered ring trades buffer names with swaps
    for (const auto& c : cases) {
      CAPTURE(c.s.algorithm);
      CAPTURE(static_cast<int>(c.s.collective));
      const Schedule sch = make_schedule(c.s);
      const RankData in = c.fill.find(',') != std::string::npos ? parse_data(c.s, c.fill) : fill_data(c.s, c.fill);
      RunOptions once;
      const RunResult a = run_threads(sch, in, once);
      RunOptions rep;
      rep.repeat_steps = 7;
      const RunResult b = run_threads(sch, in, rep);
      require_same_data(a, b);
      const RankData want = reference_outputs(c.s, in);
      const OutputVerdict v = verify_outputs(c.s, in, b.outputs, want);
      CHECK(v.ok);
      check_timings(b.trace, sch.num_steps(), 7);
      check_timings(a.trace, sch.num_steps(), 0);
      for (const StepTiming& st : a.trace.step_timing) {
        CHECK(st.median_ns == st.first_run_ns);
        CHECK(st.p10_ns == st.first_run_ns);
        CHECK(st.p90_ns == st.first_run_ns);
      }
    }
  }

  TEST_CASE("repetition counts are exact; auto stays within its bounds") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 3);
    const Schedule sch = make_schedule(s);
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    for (int reps : {1, 2, 13}) {
      RunOptions opt;
      opt.repeat_steps = reps;
      check_timings(run_threads(sch, in, opt).trace, sch.num_steps(), reps);
    }
    RunOptions opt;
    opt.repeat_steps = kRepeatStepsAuto;
    const RunResult res = run_threads(sch, in, opt);
    REQUIRE(static_cast<int>(res.trace.step_timing.size()) == sch.num_steps());
    for (const StepTiming& st : res.trace.step_timing) {
      CHECK(st.repetitions >= 1);
      CHECK(st.repetitions <= kRepeatAutoMax);
      CHECK(st.p10_ns <= st.median_ns);
      CHECK(st.median_ns <= st.p90_ns);
    }
    RunOptions bad;
    bad.repeat_steps = -5;
    CHECK_THROWS_AS(run_threads(sch, in, bad), UsageError);
  }

  TEST_CASE("on_step sees every step once, after its repetitions, and iterations keep their results") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring_unchunked", 3, 3);
    const Schedule sch = make_schedule(s);
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    std::vector<int> seen;
    std::vector<int> reps_seen;
    RunOptions opt;
    opt.repeat_steps = 4;
    opt.iterations = 3;
    opt.buffer_sets = 2;
    const Trace* live = nullptr;
    opt.on_step = [&](int st) {
      seen.push_back(st);
      // In the last iteration the step's timing is complete when on_step runs.
      if (live && seen.size() > static_cast<size_t>(2 * sch.num_steps()))
        reps_seen.push_back(live->step_timing[st].repetitions);
    };
    SteppedRun run(sch, in, opt);
    live = &run.trace();
    const RunResult res = run.finish();
    std::vector<int> want;
    for (int it = 0; it < 3; ++it)
      for (int k = 0; k < sch.num_steps(); ++k) want.push_back(k);
    CHECK(seen == want);
    CHECK(reps_seen == std::vector<int>(sch.num_steps(), 4));
    CHECK(res.outputs == reference_outputs(s, in));
    check_timings(res.trace, sch.num_steps(), 4);
  }

  TEST_CASE("a stepped run has each step's timing when step() returns") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring_unchunked", 3, 3);
    const Schedule sch = make_schedule(s);
    RunOptions opt;
    opt.repeat_steps = 3;
    SteppedRun run(sch, parse_data(s, "1,2,3;4,5,6;7,8,9"), opt);
    run.step();
    CHECK(run.trace().step_timing[0].repetitions == 3);
    CHECK(run.trace().step_timing[1].repetitions == 0);  // not run yet
    const auto& b = run.trace().steps[0][0].buffers;
    auto acc = std::find_if(b.begin(), b.end(), [](const BufferSnapshot& x) { return x.buf == Buf::accum; });
    REQUIRE(acc != b.end());
    CHECK(acc->values == std::vector<double>{8, 10, 12});  // the real run's values
    run.step();
    const RunResult res = run.finish();
    check_timings(res.trace, 2, 3);
  }

  TEST_CASE("free mode is not repeated; timing() falls back to the slowest rank, without barrier") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 3);
    const Schedule sch = make_schedule(s);
    RunOptions opt;
    opt.mode = Mode::free;
    opt.repeat_steps = 9;
    const RunResult res = run_threads(sch, parse_data(s, "1,2,3;4,5,6;7,8,9"), opt);
    CHECK(res.trace.step_timing.empty());
    for (int k = 0; k < sch.num_steps(); ++k) {
      const StepTiming t = res.trace.timing(k);
      CHECK(t.repetitions == 0);
      CHECK_FALSE(t.includes_barrier);
      CHECK(t.first_run_ns == res.trace.step_ns(k));
      CHECK(t.median_ns == res.trace.step_ns(k));
    }
  }

  TEST_CASE("summarize_step_samples: linear-interpolated percentiles") {
    const StepTiming t = summarize_step_samples(999, {50, 10, 40, 20, 30}, true);
    CHECK(t.repetitions == 5);
    CHECK(t.first_run_ns == 999);
    CHECK(t.p10_ns == 14);  // 10 + 0.4 * (20 - 10)
    CHECK(t.median_ns == 30);
    CHECK(t.p90_ns == 46);  // 40 + 0.6 * (50 - 40)
    CHECK(t.includes_barrier);
    const StepTiming even = summarize_step_samples(7, {4, 1, 3, 2}, false);
    CHECK(even.median_ns == 3);  // 2.5 rounds to nearest (llround: away from zero)
    CHECK(even.p10_ns == 1);     // 1.3
    CHECK(even.p90_ns == 4);     // 3.7
    const StepTiming none = summarize_step_samples(42, {}, true);
    CHECK(none.repetitions == 0);
    CHECK(none.median_ns == 42);
    CHECK(none.p10_ns == 42);
    CHECK(none.p90_ns == 42);
    const StepTiming one = summarize_step_samples(42, {5}, true);
    CHECK(one.p10_ns == 5);
    CHECK(one.median_ns == 5);
    CHECK(one.p90_ns == 5);
  }

  TEST_CASE("records and the Chrome trace carry the step timings") {
    CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 3);
    const Schedule sch = make_schedule(s);
    RunRecord r;
    r.spec = s;
    r.inputs = parse_data(s, "1,2,3;4,5,6;7,8,9");
    RunOptions opt;
    opt.repeat_steps = 6;
    RunResult res = run_threads(sch, r.inputs, opt);
    r.outputs = res.outputs;
    r.trace = res.trace;
    // Fixed values so the round trip is checked field by field.
    r.trace.step_timing[1] = StepTiming{48000, 5900, 5100, 7300, 20, true};
    const RunRecord b = record_from_json(record_to_json(r));
    REQUIRE(b.trace.step_timing.size() == r.trace.step_timing.size());
    const StepTiming& t = b.trace.step_timing[1];
    CHECK(t.first_run_ns == 48000);
    CHECK(t.median_ns == 5900);
    CHECK(t.p10_ns == 5100);
    CHECK(t.p90_ns == 7300);
    CHECK(t.repetitions == 20);
    CHECK(t.includes_barrier);
    CHECK(b.trace.step_timing[0].repetitions == 6);

    // Older records have no step_timing: they load, and timing() falls back.
    nlohmann::json doc = nlohmann::json::parse(record_to_json(r));
    doc["trace"].erase("step_timing");
    const RunRecord old = record_from_json(doc.dump());
    CHECK(old.trace.step_timing.empty());
    CHECK(old.trace.timing(0).repetitions == 0);
    CHECK_FALSE(old.trace.timing(0).includes_barrier);
    // A wrong length or an unordered spread is refused, naming the field.
    nlohmann::json shortd = nlohmann::json::parse(record_to_json(r));
    shortd["trace"]["step_timing"].erase(0);
    CHECK_THROWS_WITH_AS(record_from_json(shortd.dump()), doctest::Contains("'trace.step_timing' has 3 entries but the record needs 4"),
                         UsageError);
    nlohmann::json bad = nlohmann::json::parse(record_to_json(r));
    bad["trace"]["step_timing"][2]["p10_ns"] = bad["trace"]["step_timing"][2]["median_ns"].get<int64_t>() + 1;
    CHECK_THROWS_WITH_AS(record_from_json(bad.dump()), doctest::Contains("trace.step_timing[2]"), UsageError);

    const nlohmann::json ct = nlohmann::json::parse(chrome_trace_json(sch, r.trace, {6.1, 6.1, 6.1, 6.1}));
    int slices = 0;
    for (const auto& e : ct["traceEvents"])
      if (e.value("cat", "") == "step" && e["args"]["step"] == 1) {
        ++slices;
        CHECK(e["args"]["median_us"].get<double>() == doctest::Approx(5.9));
        CHECK(e["args"]["p10_us"].get<double>() == doctest::Approx(5.1));
        CHECK(e["args"]["p90_us"].get<double>() == doctest::Approx(7.3));
        CHECK(e["args"]["first_run_us"].get<double>() == doctest::Approx(48.0));
        CHECK(e["args"]["repetitions"] == 20);
        CHECK(e["args"]["includes_barrier"] == true);
        CHECK(e["args"]["predicted_us"].get<double>() == doctest::Approx(6.1));
      }
    CHECK(slices == 3);  // one step slice per rank
  }
}
