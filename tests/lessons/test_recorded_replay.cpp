// record_contradiction (core/labs/lesson/recorded_check.cpp) on real runs:
// every algorithm of every collective, run on threads and saved as a record
// (through its JSON, as --save-record writes it), replays from its own
// snapshots without a contradiction, in float32 sum, an int32 avg (divided
// after the last step), a float16 avg (pre-scaled inputs) and the LL
// protocol; and one edit of such a record is found.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/labs/lesson/read_options.h"
#include "core/record/data.h"
#include "core/record/record_io.h"

using namespace microddp;

namespace {

struct Variant {
  DType dtype;
  ReduceOp op;
  Protocol protocol;
};

// The record of one threads run of `s`, read back from its JSON; false when
// the algorithm does not take this spec.
bool record_of(const CollectiveSpec& s, Protocol p, RunRecord& r) {
  Schedule sch;
  try {
    sch = make_schedule(s);
  } catch (const UsageError&) {
    return false;
  }
  r = RunRecord{};
  r.spec = s;
  r.inputs = fill_data(s, "random:5");
  RunOptions opt;
  opt.protocol = p;
  opt.snapshot_limit = 4096;  // as `microddp run --save-record` keeps them
  const RunResult res = run_threads(sch, r.inputs, opt);
  r.outputs = res.outputs;
  r.trace = res.trace;
  r = record_from_json(record_to_json(r), "r.json");
  return true;
}

}  // namespace

TEST_SUITE("lesson_recorded") {
  TEST_CASE("every algorithm's real run replays from its own snapshots without a contradiction") {
    const Variant variants[] = {{DType::float32, ReduceOp::sum, Protocol::simple},
                                {DType::int32, ReduceOp::avg, Protocol::simple},
                                {DType::float16, ReduceOp::avg, Protocol::ll}};
    int runs = 0;
    for (const Collective c : all_collectives())
      for (const std::string& a : algorithms_for(c))
        for (const Variant& v : variants) {
          CollectiveSpec s;
          s.collective = c;
          s.algorithm = a;
          s.world_size = 4;
          s.count = 8;
          s.dtype = v.dtype;
          s.op = v.op;
          RunRecord r;
          if (!record_of(s, v.protocol, r)) continue;
          REQUIRE(r.trace.snapshots);
          INFO(name(c), " ", a, " ", name(v.dtype), " ", name(v.op), " ", name(v.protocol));
          CHECK(lesson::record_contradiction(r) == "");
          ++runs;
        }
    CHECK(runs >= 60);  // every collective's algorithms, three variants each
  }

  TEST_CASE("an int32 avg record: outputs are the last sums / n; an edited output is refused naming the division") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = 2;
    s.count = 2;
    s.dtype = DType::int32;
    s.op = ReduceOp::avg;
    RunRecord r;
    r.spec = s;
    r.inputs = parse_data(s, "1,2;4,7");
    const RunResult res = run_threads(make_schedule(s), r.inputs);
    r.outputs = res.outputs;
    r.trace = res.trace;
    CHECK(lesson::record_contradiction(r) == "");
    r.outputs[1] = parse_data(s, "2,5;0,0")[0];  // 9 / 2 is 4, not 5
    CHECK(lesson::record_contradiction(r) ==
          "outputs[1][1] = 5, but the last snapshot (after step 1) holds the sum 9 in R1's output, and the avg gives 9 / 2 = 4");
  }
}
