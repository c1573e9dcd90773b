// record_io's newer optional fields: what each message carried
// (trace.events[][].values, Trace::carried), a broken form's run ("broken"),
// its delay hook ("delay") and where it was made ("recorded"). They
// round-trip, records without them still load, and bad ones are refused
// naming the field.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/record/data.h"
#include "core/record/record_io.h"

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

RunRecord broken_record() {
  const CollectiveSpec s = ring3();
  RunRecord r;
  r.spec = s;
  r.inputs = parse_data(s, "1,2,3;4,5,6;7,8,9");
  const RunResult res = run_threads(make_single_buffered_ring(s), r.inputs);  // no delay: any outcome
  r.outputs = res.outputs;
  r.trace = res.trace;
  r.broken = "single_buffered_ring";
  r.delay = RecordDelay{-1, 300, 4, 4};
  r.origin = RecordOrigin{"AMD EPYC 7B13, 2 vCPUs (lscpu)", "2026-12-07", "microddp run ..."};
  return r;
}

}  // namespace

TEST_SUITE("record_carried") {
  TEST_CASE("carried values, the broken form, its delay and its origin round-trip exactly") {
    RunRecord r = broken_record();
    REQUIRE(r.trace.carried.size() == 3);
    // A value no correct run carries, as the race would leave it; NaN too.
    size_t recv = 0;
    while (r.trace.events[1][recv].kind != OpKind::recv) ++recv;
    r.trace.carried[1][recv] = {1, 2, std::nan("")};
    const RunRecord b = record_from_json(record_to_json(r), "r.json");
    CHECK(b.broken == "single_buffered_ring");
    REQUIRE(b.delay.has_value());
    CHECK(*b.delay == RecordDelay{-1, 300, 4, 4});
    CHECK(b.origin == r.origin);
    REQUIRE(b.trace.carried.size() == 3);
    for (int q = 0; q < 3; ++q) {
      REQUIRE(b.trace.carried[q].size() == b.trace.events[q].size());
      for (size_t i = 0; i < b.trace.carried[q].size(); ++i)
        if (!(q == 1 && i == recv)) CHECK(b.trace.carried[q][i] == r.trace.carried[q][i]);
    }
    REQUIRE(b.trace.carried[1][recv].size() == 3);
    CHECK(b.trace.carried[1][recv][0] == 1);
    CHECK(b.trace.carried[1][recv][1] == 2);
    CHECK(std::isnan(b.trace.carried[1][recv][2]));
    // The schedule the trace ran: the one-buffer ring, not its checked twin.
    CHECK(record_schedule(b).num_steps() == make_single_buffered_ring(ring3()).num_steps());
  }

  TEST_CASE("a record without the new fields (older files) loads with nothing carried") {
    nlohmann::json j = nlohmann::json::parse(record_to_json(broken_record()));
    for (auto& rank : j["trace"]["events"])
      for (auto& e : rank) e.erase("values");
    j.erase("delay");
    j.erase("recorded");
    const RunRecord b = record_from_json(j.dump(), "old.json");
    CHECK_FALSE(b.delay.has_value());
    CHECK(b.origin.empty());
    for (int q = 0; q < 3; ++q) {
      REQUIRE(b.trace.carried[q].size() == b.trace.events[q].size());
      for (const auto& v : b.trace.carried[q]) CHECK(v.empty());
    }
    // and writing it again adds none
    const nlohmann::json again = nlohmann::json::parse(record_to_json(b));
    int with_values = 0;
    for (const auto& rank : again["trace"]["events"])
      for (const auto& e : rank) with_values += e.contains("values");
    CHECK(with_values == 0);
  }

  TEST_CASE("bad carried values, broken forms and delays are refused naming the field") {
    const nlohmann::json good = nlohmann::json::parse(record_to_json(broken_record()));
    REQUIRE_NOTHROW(record_from_json(good.dump(), "r.json"));
    int recv = 0;
    while (good["trace"]["events"][1][recv]["kind"] != "recv") ++recv;
    {
      nlohmann::json j = good;
      j["trace"]["events"][1][recv]["values"].erase(0);
      const std::string want = fmt::format("'trace.events[1][{}].values' has 2 entries but the message has 3", recv);
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"), doctest::Contains(want.c_str()), UsageError);
    }
    {
      nlohmann::json j = good;
      j["trace"]["events"][1][recv]["values"][0] = "x";
      const std::string want = fmt::format("'trace.events[1][{}].values[0]' is not a number", recv);
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"), doctest::Contains(want.c_str()), UsageError);
    }
    {
      nlohmann::json j = good;
      j["broken"] = "triple_buffered_ring";
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"),
                           doctest::Contains("'broken' is 'triple_buffered_ring', which is no broken form"), UsageError);
    }
    {
      nlohmann::json j = good;
      j["spec"]["algorithm"] = "ring";  // the broken form of ring_unchunked, not of the chunked ring
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"),
                           doctest::Contains("the broken form of all_reduce ring_unchunked, but the spec runs all_reduce ring"),
                           UsageError);
    }
    {
      nlohmann::json j = good;
      j["delay"]["rank"] = 3;
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"), doctest::Contains("'delay.rank' is 3, outside -1..2"),
                           UsageError);
    }
    {
      nlohmann::json j = good;
      j["recorded"].erase("date");
      CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"), doctest::Contains("missing field 'recorded.date'"),
                           UsageError);
    }
  }
}
