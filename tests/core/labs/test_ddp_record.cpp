// A DDP / FSDP run's record (core/labs/ddp/ddp_record.h): every field
// written is read back with its exact value (times in ns, sizes in bytes),
// and a record that is not one, or is edited out of range, is refused
// naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/ir/types.h"
#include "core/labs/ddp/ddp_record.h"

using namespace microddp;
using namespace microddp::ddp;

namespace {

DdpRecord sample() {
  DdpRecord rec;
  Result& r = rec.run;
  r.options.ranks = 2;
  r.options.depth = 2;
  r.options.width = 8;
  r.options.batch = 4;
  r.options.iterations = 1;
  r.options.bucket_cap_mb = 0.25;
  r.options.overlap = Overlap::per_param;
  r.options.layer_delay_us = 3000;
  r.options.link_us_per_mb = 2500.5;
  r.params = 4;
  r.param_elements = 144;
  r.buckets = {Bucket{{3, 2}, {0, 8}, 72, 288}, Bucket{{1, 0}, {0, 8}, 72, 288}};
  r.warmup_iterations = 1;
  r.warmup_calls = 2;
  r.replicas_identical = true;
  r.max_reference_rel_error = std::nan("");
  IterationStats s;
  s.loss = 0.25;
  s.reference_loss = 0.25;
  s.compute_ms = 12.5;
  s.comm_ms = 3.25;
  s.waited_ms = 1.5;
  s.exposed_comm_ms = 0.75;
  s.overlap_fraction = 0.5;
  s.calls = 2;
  r.iterations = {s};
  IterationTimeline t;
  t.backward_end_ms = 10.125;
  t.end_ms = 14.5;
  t.layers = {{0, 1, false, 0.5, 3.5}, {1, 1, true, 4, 7.25}};
  t.fills = {{1, 0, 7.25, 7.5, 1}};
  t.comm = {{0, "all_reduce", "bucket 0", 0, -1, 288, 7.75, 9.125}};
  t.waits = {{0, 1, 11, 14.25}};
  r.timelines = {t};
  rec.command = "microddp ddp --overlap per-param";
  return rec;
}

std::string edited(const std::string& text, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(text);
  edit(j);
  return j.dump();
}

}  // namespace

TEST_SUITE("ddp_record") {
  TEST_CASE("every field round-trips with its exact value; times are written in ns") {
    const std::string text = ddp_record_to_json(sample());
    const nlohmann::json j = nlohmann::json::parse(text);
    CHECK(j["format"] == "microddp-ddp-record");
    CHECK(j["iterations"][0]["compute_ns"] == 12500000);
    CHECK(j["iterations"][0]["timeline"]["backward_end_ns"] == 10125000);
    CHECK(j["iterations"][0]["timeline"]["comm"][0]["end_ns"] == 9125000);
    CHECK(j["iterations"][0]["timeline"]["comm"][0]["bytes"] == 288);
    CHECK(j["settings"]["overlap"] == "per-param");
    CHECK(j["max_reference_rel_error"].is_null());

    const DdpRecord back = ddp_record_from_json(text, "t.json");
    const Result &a = sample().run, &b = back.run;
    CHECK(b.options == a.options);
    CHECK(b.params == 4);
    CHECK(b.param_elements == 144);
    REQUIRE(b.buckets.size() == 2);
    CHECK(b.buckets[1].params == std::vector<int>{1, 0});
    CHECK(b.buckets[1].offsets == std::vector<int64_t>{0, 8});
    CHECK(b.buckets[1].bytes == 288);
    CHECK(b.warmup_iterations == 1);
    CHECK(b.warmup_calls == 2);
    CHECK(b.replicas_identical);
    CHECK(std::isnan(b.max_reference_rel_error));
    REQUIRE(b.iterations.size() == 1);
    CHECK(b.iterations[0].compute_ms == 12.5);
    CHECK(b.iterations[0].comm_ms == 3.25);
    CHECK(b.iterations[0].waited_ms == 1.5);
    CHECK(b.iterations[0].exposed_comm_ms == 0.75);
    CHECK(b.iterations[0].overlap_fraction == 0.5);
    CHECK(b.iterations[0].calls == 2);
    CHECK(b.iterations[0].loss == 0.25);
    const IterationTimeline& t = b.timelines.at(0);
    CHECK(t.backward_end_ms == 10.125);
    CHECK(t.end_ms == 14.5);
    REQUIRE(t.layers.size() == 2);
    CHECK(t.layers[0].backward == false);
    CHECK(t.layers[1].rank == 1);
    CHECK(t.layers[1].end_ms == 7.25);
    REQUIRE(t.fills.size() == 1);
    CHECK(t.fills[0].posted_ms == 7.5);
    CHECK(t.fills[0].layers_done == 1);
    REQUIRE(t.comm.size() == 1);
    CHECK(t.comm[0].collective == "all_reduce");
    CHECK(t.comm[0].what == "bucket 0");
    CHECK(t.comm[0].bucket == 0);
    CHECK(t.comm[0].layer == -1);
    CHECK(t.comm[0].begin_ms == 7.75);
    REQUIRE(t.waits.size() == 1);
    CHECK(t.waits[0].end_ms == 14.25);
    CHECK(back.command == "microddp ddp --overlap per-param");
    CHECK(ddp_record_to_json(back) == text);  // read and written again: the same bytes
  }

  TEST_CASE("a record out of range or of the other kind is refused, naming the field") {
    const std::string text = ddp_record_to_json(sample());
    CHECK_THROWS_WITH_AS(ddp_record_from_json(edited(text, [](auto& j) { j["format"] = "microddp-record"; }), "a.json"),
                         doctest::Contains("a.json: is a collective run's record"), UsageError);
    CHECK_THROWS_WITH_AS(
        ddp_record_from_json(edited(text, [](auto& j) { j["iterations"][0]["timeline"]["layers"][1]["rank"] = 2; }), "a.json"),
        "a.json: field 'iterations[0].timeline.layers[1].rank' is 2, outside 0..1", UsageError);
    CHECK_THROWS_WITH_AS(
        ddp_record_from_json(edited(text, [](auto& j) { j["iterations"][0]["timeline"]["comm"][0]["end_ns"] = 7000000; }),
                             "a.json"),
        "a.json: field 'iterations[0].timeline.comm[0].end_ns' is 7000000, before 'begin_ns' 7750000", UsageError);
    CHECK_THROWS_WITH_AS(ddp_record_from_json(edited(text, [](auto& j) { j["iterations"][0].erase("timeline"); }), "a.json"),
                         "a.json: missing field 'iterations[0].timeline'", UsageError);
    CHECK_THROWS_WITH_AS(ddp_record_from_json(edited(text, [](auto& j) { j["settings"]["iterations"] = 2; }), "a.json"),
                         "a.json: field 'iterations' has 1 entries, but settings.iterations is 2", UsageError);
    CHECK_THROWS_WITH_AS(ddp_record_from_json("[1,", "a.json"), doctest::Contains("a.json: not JSON"), UsageError);
  }

  TEST_CASE("--record's path is checked before the run") {
    CHECK_THROWS_WITH_AS(check_record_path(""), "--record '' is empty: give the record a file name", UsageError);
    CHECK_THROWS_WITH_AS(check_record_path("/"), "--record '/' is a directory: give the record a file name inside it",
                         UsageError);
    CHECK_THROWS_WITH_AS(check_record_path("/no/such/dir/a.json"),
                         "--record '/no/such/dir/a.json': the folder '/no/such/dir' does not exist", UsageError);
  }
}
