// record_io: a real run's record survives JSON exactly (inputs, outputs,
// every event and snapshot), the schedule rebuilds from the spec, and bad
// records are refused naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "core/exec/executor.h"
#include "core/algorithms/registry.h"
#include "core/record/data.h"
#include "core/model/lab_record.h"
#include "core/record/record_io.h"

using namespace microddp;

namespace {

// A spec of `collective` by `algorithm` on `ranks` ranks, `count` elements each.
CollectiveSpec spec_of(Collective collective, const char* algorithm, int ranks, int64_t count) {
  CollectiveSpec s;
  s.collective = collective;
  s.algorithm = algorithm;
  s.world_size = ranks;
  s.count = count;
  return s;
}

// A real run's record: `s` on the threads backend from `inputs`, its
// outputs and trace (snapshots per step) as run_threads gives them.
RunRecord record_of(const CollectiveSpec& s, RankData inputs) {
  RunRecord r;
  r.spec = s;
  r.inputs = std::move(inputs);
  RunResult res = run_threads(make_schedule(s), r.inputs);
  r.outputs = std::move(res.outputs);
  r.trace = std::move(res.trace);
  return r;
}

// The record `good` as JSON text after `edit`.
std::string edited(const nlohmann::json& good, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json bad = good;
  edit(bad);
  return bad.dump();
}

}  // namespace

TEST_SUITE("record_io") {
  TEST_CASE("a ring all_reduce record round-trips exactly") {
    CollectiveSpec s = spec_of(Collective::all_reduce, "ring", 3, 6);
    RunRecord r = record_of(s, fill_data(s, "random:7"));
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
    CollectiveSpec s = spec_of(Collective::broadcast, "naive", 2, 1);
    s.dtype = DType::int64;
    const int64_t big = (int64_t{1} << 62) + 1;
    RankData inputs = {std::vector<std::byte>(8), std::vector<std::byte>(8)};
    std::memcpy(inputs[0].data(), &big, 8);
    // A record holds its run's trace (an empty one no longer loads: a viewer
    // would index past it).
    const RunRecord r = record_of(s, inputs);
    const RunRecord b = record_from_json(record_to_json(r));
    int64_t got = 0;
    std::memcpy(&got, b.inputs[0].data(), 8);
    CHECK(got == big);
  }

  TEST_CASE("a hierarchical run's node count survives, and a record without one means one node") {
    CollectiveSpec s = spec_of(Collective::all_reduce, "hierarchical", 4, 4);
    s.nodes = 2;
    RunRecord r = record_of(s, fill_data(s, "iota"));
    const std::string text = record_to_json(r);
    const RunRecord b = record_from_json(text);
    CHECK(b.spec.nodes == 2);
    CHECK(make_schedule(b.spec).num_steps() == make_schedule(s).num_steps());
    nlohmann::json j = nlohmann::json::parse(text);
    CHECK(j["spec"]["nodes"] == 2);
    s.nodes = 1;
    s.algorithm = "ring";
    r = record_of(s, r.inputs);
    j = nlohmann::json::parse(record_to_json(r));
    CHECK_FALSE(j["spec"].contains("nodes"));
    CHECK(record_from_json(j.dump()).spec.nodes == 1);
  }

  TEST_CASE("a run in channels keeps its channel count and each event's channel; older records mean one") {
    CollectiveSpec s = spec_of(Collective::all_reduce, "double_binary_tree", 3, 10);
    s.channels = 2;
    const RunRecord r = record_of(s, fill_data(s, "iota"));
    const RunRecord b = record_from_json(record_to_json(r));
    CHECK(b.spec == s);
    CHECK(b.spec.channels == 2);
    REQUIRE(b.trace.events.size() == 3);
    std::set<int> channels;
    for (const auto& ev : b.trace.events)
      for (const Event& e : ev) channels.insert(e.channel);
    CHECK(channels == std::set<int>{0, 1});
    nlohmann::json j = nlohmann::json::parse(record_to_json(r));
    // the events must match the schedule the spec rebuilds: one channel fewer is refused
    nlohmann::json k = j;
    k["spec"].erase("channels");
    CHECK_THROWS_AS(record_from_json(k.dump()), UsageError);
    // one channel writes no field, and no field reads as one
    CollectiveSpec one = s;
    one.channels = 1;
    const RunRecord r1 = record_of(one, r.inputs);
    const nlohmann::json j1 = nlohmann::json::parse(record_to_json(r1));
    CHECK_FALSE(j1["spec"].contains("channels"));
    CHECK(record_from_json(j1.dump()).spec.channels == 1);
    j["spec"]["channels"] = 0;
    CHECK_THROWS_WITH_AS(record_from_json(j.dump(), "r.json"), doctest::Contains("channels must be in 1..64, got 0"),
                         UsageError);
  }

  TEST_CASE("every field of a valid record, broken, is refused with a clear error naming it") {
    CollectiveSpec s = spec_of(Collective::all_reduce, "ring", 3, 4);
    const RunRecord r = record_of(s, fill_data(s, "random:3"));
    REQUIRE(r.trace.snapshots);
    const nlohmann::json good = nlohmann::json::parse(record_to_json(r));
    REQUIRE_NOTHROW(record_from_json(good.dump()));
    struct Mutation {
      const char* what;
      std::function<void(nlohmann::json&)> apply;
      const char* message;  // a part of the error
    };
    auto ev = [](nlohmann::json& j) -> nlohmann::json& { return j["trace"]["events"][1][0]; };
    auto snap = [](nlohmann::json& j) -> nlohmann::json& { return j["trace"]["steps"][1][2]["buffers"][0]; };
    const std::vector<Mutation> cases = {
        {"initial short", [](auto& j) { j["trace"]["initial"].erase(2); }, "'trace.initial' has 2 entries but the record needs 3"},
        {"initial long", [](auto& j) { j["trace"]["initial"].push_back(j["trace"]["initial"][0]); }, "'trace.initial' has 4 entries"},
        {"events short", [](auto& j) { j["trace"]["events"].erase(0); }, "'trace.events' has 2 entries"},
        {"steps short", [](auto& j) { j["trace"]["steps"].erase(0); }, "'trace.steps' has 3 entries but the record needs 4"},
        {"step row short", [](auto& j) { j["trace"]["steps"][2].erase(1); }, "'trace.steps[2]' has 2 entries"},
        {"bytes_sent short", [](auto& j) { j["trace"]["bytes_sent"].erase(0); }, "'trace.bytes_sent' has 2 entries"},
        {"bytes_received long", [](auto& j) { j["trace"]["bytes_received"].push_back(1); }, "'trace.bytes_received' has 4"},
        {"trace world size", [](auto& j) { j["trace"]["world_size"] = 5; }, "'trace.world_size' is 5"},
        {"peer 999", [&](auto& j) { ev(j)["peer"] = 999; }, "'trace.events[1][0].peer' is 999, outside -1..2"},
        {"peer -7", [&](auto& j) { ev(j)["peer"] = -7; }, "peer' is -7"},
        {"storage 77", [&](auto& j) { ev(j)["storage"] = 77; }, "'trace.events[1][0].storage' is 77"},
        {"negative len", [&](auto& j) { ev(j)["len"] = -1; }, "'trace.events[1][0].len' -1 do not fit"},
        {"negative offset", [&](auto& j) { ev(j)["offset"] = -3; }, "'trace.events[1][0].offset' -3"},
        {"offset past the buffer", [&](auto& j) { ev(j)["offset"] = 1000000; }, "offset' 1000000"},
        {"huge len", [&](auto& j) { ev(j)["len"] = INT64_MAX; }, "do not fit"},
        {"step 99", [&](auto& j) { ev(j)["step"] = 99; }, "'trace.events[1][0].step' is 99, outside 0..3"},
        {"op_index 99", [&](auto& j) { ev(j)["op_index"] = 99; }, "'trace.events[1][0].op_index' is 99"},
        {"negative bytes", [&](auto& j) { ev(j)["bytes"] = -8; }, "bytes' is -8"},
        {"snapshot storage", [&](auto& j) { snap(j)["storage"] = 77; }, "'trace.steps[1][2].buffers[0].storage' is 77"},
        {"snapshot short", [&](auto& j) { snap(j)["values"].erase(0); }, "'trace.steps[1][2].buffers[0].values' has"},
        {"snapshot long", [&](auto& j) { snap(j)["values"].push_back(1.0); }, "buffers[0].values' has"},
        {"initial snapshot", [](auto& j) { j["trace"]["initial"][0]["buffers"][0]["values"] = nlohmann::json::array(); }, "'trace.initial[0].buffers[0].values' has 0 entries"},
        {"input bytes", [](auto& j) { j["inputs"][0] = "00"; }, "inputs[0] has 1 bytes"},
        {"inputs rows", [](auto& j) { j["inputs"].erase(0); }, "2 inputs and 3 outputs"},
        {"world size 100000", [](auto& j) { j["spec"]["world_size"] = 100000; }, "spec.world_size 100000"},
        {"root", [](auto& j) { j["spec"]["root"] = 3; }, "root 3 is out of range"},
        {"segments", [](auto& j) { j["spec"]["segments"] = 0; }, "segments must be in 1..4096"},
        // hostile review 9: what --compare-runs drew from a record the schedule contradicts
        {"no events", [](auto& j) { for (auto& row : j["trace"]["events"]) row = nlohmann::json::array(); },
         "r.json: 'trace.events[0]' has 0 events but the schedule gives endpoint 0 10 ops (one event each)"},
        {"an event twice", [&](auto& j) { j["trace"]["events"][1][1] = ev(j); }, "repeats step 0 op 0 of rank 1"},
        {"bytes_sent 1e18", [](auto& j) { j["trace"]["bytes_sent"][1] = 1e18; },
         "r.json: 'trace.bytes_sent[1]' is 1000000000000000000 B but the schedule's sends of endpoint 1 move 20 B"},
        {"bytes_received -4", [](auto& j) { j["trace"]["bytes_received"][2] = -4; }, "'trace.bytes_received[2]' is -4 B"},
        {"negative iteration_ns", [](auto& j) { j["trace"]["iteration_ns"][0] = -5; },
         "r.json: 'trace.iteration_ns[0]' is -5 ns, below 0"},
        {"negative total_ns", [](auto& j) { j["trace"]["total_ns"] = -1; }, "'trace.total_ns' is -1 ns, below 0"},
        {"chunk -7", [&](auto& j) { ev(j)["chunk"] = -7; }, "r.json: 'trace.events[1][0].chunk' is -7 but the schedule's op moves chunk 1"},
        {"wire_bytes 1e18", [&](auto& j) { ev(j)["wire_bytes"] = 1e18; },
         "r.json: 'trace.events[1][0].wire_bytes' is 1000000000000000000 and 'trace.events[1][0].flags' 1, but 4 B under protocol simple are 4 B on the wire in 1 flags"},
        {"bytes 8", [&](auto& j) { ev(j)["bytes"] = 8; }, "'trace.events[1][0].bytes' is 8 but the schedule's op moves 4 B"},
        {"kind", [&](auto& j) { ev(j)["kind"] = "copy"; }, "'trace.events[1][0].kind' is copy but the schedule's op is a"},
    };
    for (const Mutation& m : cases) {
      CAPTURE(m.what);
      CHECK_THROWS_WITH_AS(record_from_json(edited(good, m.apply), "r.json"), doctest::Contains(m.message), UsageError);
    }
  }

  TEST_CASE("an integer field that is not a whole number, or out of its range, is refused naming it (not wrapped, not truncated)") {
    CollectiveSpec s = spec_of(Collective::all_reduce, "ring", 2, 2);
    const RunRecord r = record_of(s, fill_data(s, "random:3"));
    const nlohmann::json good = nlohmann::json::parse(record_to_json(r));
    struct Case {
      std::function<void(nlohmann::json&)> apply;
      std::string message;
    };
    const std::vector<Case> cases = {
        // 4294967299 = 2^32 + 3: get<int> read it as 3, a valid world size
        {[](auto& j) { j["spec"]["world_size"] = 4294967299ULL; },
         "r.json: field 'spec.world_size' is 4294967299, not a whole number in -2147483648..2147483647"},
        {[](auto& j) { j["version"] = 1.5; }, "r.json: field 'version' is 1.5, not a whole number in -2147483648..2147483647"},
        {[](auto& j) { j["spec"]["count"] = 2.25; },
         "r.json: field 'spec.count' is 2.25, not a whole number in -9223372036854775808..9223372036854775807"},
        {[](auto& j) { j["spec"]["root"] = -2147483649LL; },
         "r.json: field 'spec.root' is -2147483649, not a whole number in -2147483648..2147483647"},
        {[](auto& j) { j["trace"]["total_ns"] = 18446744073709551615ULL; },
         "r.json: field 'trace.total_ns' is 18446744073709551615, not a whole number in -9223372036854775808..9223372036854775807"},
        {[](auto& j) { j["trace"]["total_ns"] = 1e19; },
         "r.json: field 'trace.total_ns' is 1e+19, not a whole number in -9223372036854775808..9223372036854775807"},
        {[](auto& j) { j["trace"]["bytes_sent"][1] = 8.5; },
         "r.json: field 'trace.bytes_sent[1]' is 8.5, not a whole number in -9223372036854775808..9223372036854775807"},
        {[](auto& j) { j["trace"]["events"][0][0]["step"] = 4294967296ULL; },
         "r.json: field 'trace.events[0][0].step' is 4294967296, not a whole number in -2147483648..2147483647"},
        {[](auto& j) { j["trace"]["steps"][0][1]["buffers"][0]["storage"] = 0.5; },
         "r.json: field 'trace.steps[0][1].buffers[0].storage' is 0.5, not a whole number in -2147483648..2147483647"},
        {[](auto& j) { j["spec"]["segments"] = "1"; }, "r.json: field 'spec.segments' has the wrong type (\"1\"), not a whole number"},
        {[](auto& j) { j["spec"]["counts"] = nlohmann::json::array({1, 1.5}); },
         "r.json: field 'spec.counts[1]' is 1.5, not a whole number in -9223372036854775808..9223372036854775807"},
    };
    for (const Case& c : cases) {
      std::string got = "(loaded)";
      try {
        record_from_json(edited(good, c.apply), "r.json");
      } catch (const UsageError& e) {
        got = e.what();
      }
      CHECK(got == c.message);
    }
    // A whole number written with a fraction part of zero reads as that number.
    nlohmann::json two = good;
    two["spec"]["world_size"] = 2.0;
    CHECK(record_from_json(two.dump(), "r.json").spec.world_size == 2);
  }

  TEST_CASE("bad records are refused naming the field") {
    CHECK_THROWS_WITH_AS(record_from_json("{}", "r.json"),
                         "r.json: not a microddp record (no \"format\": \"microddp-record\")", UsageError);
    CHECK_THROWS_WITH_AS(record_from_json("[1,", "r.json"), doctest::Contains("r.json: not JSON"), UsageError);
    // nlohmann throws out_of_range, not parse_error, for a number that
    // overflows a double (found by fuzz_record)
    CHECK_THROWS_WITH_AS(record_from_json(R"({"format": "microddp-record", "version": 5e804})", "r.json"),
                         doctest::Contains("r.json: not JSON"), UsageError);
    CHECK_THROWS_WITH_AS(
        record_from_json(R"({"format": "microddp-record", "version": 1, "spec": {"collective": "all_reduce"}})", "r.json"),
        "r.json: missing field 'spec.algorithm'", UsageError);
    CHECK_THROWS_WITH_AS(load_record("/nonexistent/r.json"), "cannot read record file '/nonexistent/r.json'",
                         UsageError);
    // What is not a regular file is refused before it is read: /dev/zero
    // would fill memory, a FIFO would block forever (hostile review 7).
    CHECK_THROWS_WITH_AS(load_record("/dev/zero"), "record file '/dev/zero': is a character device, not a regular file",
                         UsageError);
    CHECK_THROWS_WITH_AS(load_record("/tmp"), "record file '/tmp': is a directory", UsageError);
    CHECK_THROWS_WITH_AS(load_lab_record("/dev/null"),
                         "recorded lab run '/dev/null': is a character device, not a regular file", UsageError);
    const std::string fifo = "/tmp/microddp-test-fifo-" + std::to_string(::getpid());
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(load_record(fifo), ("record file '" + fifo + "': is a FIFO (named pipe), not a regular file").c_str(),
                         UsageError);
    ::unlink(fifo.c_str());
  }
}
