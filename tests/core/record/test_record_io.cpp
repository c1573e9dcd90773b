// record_io: a real run's record survives JSON exactly (inputs, outputs,
// every event and snapshot), the schedule rebuilds from the spec, and bad
// records are refused naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/exec/executor.h"
#include "core/algorithms/registry.h"
#include "core/record/data.h"
#include "core/record/record_io.h"

using namespace microddp;

TEST_SUITE("record_io") {
  TEST_CASE("a ring all_reduce record round-trips exactly") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = 3;
    s.count = 6;
    const Schedule sch = make_schedule(s);
    RunRecord r;
    r.spec = s;
    r.inputs = fill_data(s, "random:7");
    RunResult res = run_threads(sch, r.inputs);
    r.outputs = res.outputs;
    r.trace = res.trace;
    REQUIRE(r.trace.snapshots);
    // A NaN and an infinity in a snapshot must survive too.
    r.trace.steps[0][0].buffers[0].values[0] = std::nan("");
    r.trace.steps[0][1].buffers[0].values[0] = -INFINITY;

    const std::string path = "test_record_io.json";
    save_record(path, r);
    const RunRecord b = load_record(path);
    std::remove(path.c_str());

    CHECK(b.spec.collective == Collective::all_reduce);
    CHECK(b.spec.algorithm == "ring");
    CHECK(b.spec.world_size == 3);
    CHECK(b.spec.count == 6);
    CHECK(b.inputs == r.inputs);
    CHECK(b.outputs == r.outputs);
    CHECK(b.trace.backend == "threads");
    CHECK(b.trace.total_ns == r.trace.total_ns);
    CHECK(b.trace.bytes_sent == r.trace.bytes_sent);
    CHECK(b.trace.iteration_ns == r.trace.iteration_ns);
    REQUIRE(b.trace.events.size() == 3);
    for (int q = 0; q < 3; ++q) {
      REQUIRE(b.trace.events[q].size() == r.trace.events[q].size());
      for (size_t i = 0; i < b.trace.events[q].size(); ++i) {
        const Event &x = b.trace.events[q][i], &y = r.trace.events[q][i];
        CHECK((x.kind == y.kind && x.peer == y.peer && x.buf == y.buf && x.offset == y.offset && x.len == y.len &&
               x.bytes == y.bytes && x.begin_ns == y.begin_ns && x.end_ns == y.end_ns && x.storage == y.storage));
      }
    }
    // The schedule rebuilds from the spec: 2(n-1) = 4 steps, one record each.
    const Schedule again = make_schedule(b.spec);
    CHECK(again.num_steps() == 4);
    REQUIRE(b.trace.steps.size() == 4);
    CHECK(std::isnan(b.trace.steps[0][0].buffers[0].values[0]));
    CHECK(b.trace.steps[0][1].buffers[0].values[0] == -INFINITY);
    CHECK(b.trace.steps[3][2].buffers.size() == r.trace.steps[3][2].buffers.size());
    CHECK(b.trace.initial.size() == 3);
  }

  TEST_CASE("int64 values beyond 2^53 survive") {
    CollectiveSpec s;
    s.collective = Collective::broadcast;
    s.algorithm = "naive";
    s.world_size = 2;
    s.count = 1;
    s.dtype = DType::int64;
    RunRecord r;
    r.spec = s;
    const int64_t big = (int64_t{1} << 62) + 1;
    r.inputs = {std::vector<std::byte>(8), std::vector<std::byte>(8)};
    std::memcpy(r.inputs[0].data(), &big, 8);
    r.outputs = r.inputs;
    const RunRecord b = record_from_json(record_to_json(r));
    int64_t got = 0;
    std::memcpy(&got, b.inputs[0].data(), 8);
    CHECK(got == big);
  }

  TEST_CASE("bad records are refused naming the field") {
    CHECK_THROWS_WITH_AS(record_from_json("{}", "r.json"),
                         "r.json: not a microddp record (no \"format\": \"microddp-record\")", UsageError);
    CHECK_THROWS_WITH_AS(record_from_json("[1,", "r.json"), doctest::Contains("r.json: not JSON"), UsageError);
    CHECK_THROWS_WITH_AS(
        record_from_json(R"({"format": "microddp-record", "version": 1, "spec": {"collective": "all_reduce"}})", "r.json"),
        "r.json: missing field 'spec.algorithm'", UsageError);
    CHECK_THROWS_WITH_AS(load_record("/nonexistent/r.json"), "cannot read record file '/nonexistent/r.json'",
                         UsageError);
  }
}
