// recorded_ratio (core/labs/lesson/checks_recorded.cpp): how a recorded
// cluster-lab median grows with the size, or how far it sits from the
// record's own model line (lesson 05's latency- and bandwidth-bound claims
// on the bundled 1 Gbit/s run); its errors at load time. And comm_ms, the
// ddp timing figure of lesson 07 beat 3 (checks_ddp.cpp; its "not shown on
// this run" verdict is tested in test_lesson_ddp.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::lesson;
namespace fs = std::filesystem;

namespace {
const std::string kFile = (fs::path(MICRODDP_SOURCE_DIR) / "lessons" / "x.yaml").string();
const std::string kRec = "file: data/lab-allreduce-8x1-1gbit.json";

std::string lesson_with(const std::string& check) {
  return "title: t\nsummary: s\nsetup: {collective: all_reduce, algorithm: ring, ranks: 4, count: 4}\n"
         "beats:\n  - at: end\n    text: x\n    checks:\n      - " +
         check + "\n";
}

CheckResult one(const std::string& check) {
  const auto r = evaluate(parse_lesson(lesson_with(check), kFile).beats[0]);
  REQUIRE(r.size() == 1);
  return r[0];
}
}  // namespace

TEST_SUITE("lesson_recorded") {
  TEST_CASE("recorded_ratio over another size: the ring flat from 4 KiB to 256 KiB, the tree x4 from 4 MiB to 16 MiB") {
    const CheckResult flat = one("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 256K, over_bytes: 4K, less_than: 1.2}");
    CHECK(flat.pass);
    CHECK(flat.expected == "< 1.2");
    CHECK(flat.actual == "1.18 (5.486 ms / 4.637 ms)");
    CHECK(flat.what.find("ring's median at 256 KiB (262144 B) over its median at 4 KiB (4096 B)") != std::string::npos);
    const CheckResult grows = one("{check: recorded_ratio, " + kRec +
                                  ", algorithm: tree, bytes: 16M, over_bytes: 4M, greater_than: 3.8, less_than: 4.2}");
    CHECK(grows.pass);
    CHECK(grows.expected == "> 3.8 and < 4.2");
    CHECK(grows.actual == "4.03 (1.437 s / 356.7 ms)");
    // The same bound on the ring, whose 1 MiB to 4 MiB grows 3.6 times: fails.
    const CheckResult ring = one("{check: recorded_ratio, " + kRec +
                                 ", algorithm: ring, bytes: 4M, over_bytes: 1M, greater_than: 3.8, less_than: 4.2}");
    CHECK_FALSE(ring.pass);
    CHECK(ring.actual == "3.62 (86.52 ms / 23.9 ms)");
  }

  TEST_CASE("recorded_ratio over the record's predicted time: the tree near its line at 16 MiB, the ring far above at 4 KiB") {
    const CheckResult near = one("{check: recorded_ratio, " + kRec + ", algorithm: tree, bytes: 16M, over_predicted: true, less_than: 1.1}");
    CHECK(near.pass);
    CHECK(near.actual == "1.07 (1.437 s / 1.343 s)");
    CHECK(near.what.find("tree's median at 16 MiB (16777216 B) over the record's predicted time there") != std::string::npos);
    const CheckResult above = one("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_predicted: true, greater_than: 5}");
    CHECK(above.pass);
    CHECK(above.actual == "6.12 (4.637 ms / 757.3 µs)");
    CHECK_FALSE(one("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_predicted: true, greater_than: 7}").pass);
  }

  TEST_CASE("recorded_ratio: bad sizes, both or neither denominator, no bound, bounds crossed are refused at their line") {
    const auto refused = [](const std::string& check, const char* what) {
      INFO(check);
      CHECK_THROWS_WITH_AS(parse_lesson(lesson_with(check), kFile), doctest::Contains(what), LessonError);
    };
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 8K, over_bytes: 4K, less_than: 2}",
            "x.yaml:8:98: 'bytes': data/lab-allreduce-8x1-1gbit.json has no ring row of 8K (it has 4 KiB (4096 B), "
            "16 KiB (16384 B), 64 KiB (65536 B), 256 KiB (262144 B), 1 MiB (1048576 B), 4 MiB (4194304 B), "
            "16 MiB (16777216 B))");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: hd, bytes: 4K, over_bytes: 16K, less_than: 2}",
            "'hd' has no rows in data/lab-allreduce-8x1-1gbit.json (it has naive, tree, ring)");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_bytes: 4K, less_than: 2}",
            "'over_bytes' must be another size than 'bytes'");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, less_than: 2}",
            "a 'recorded_ratio' check needs 'over_bytes: SIZE' or 'over_predicted: true'");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_predicted: true, over_bytes: 16K, less_than: 2}",
            "a 'recorded_ratio' check takes one of over_bytes, over_predicted: true");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_bytes: 16K}",
            "a 'recorded_ratio' check needs greater_than and/or less_than");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_bytes: 16K, greater_than: 2, less_than: 1}",
            "'less_than' (1) must be above 'greater_than' (2)");
    refused("{check: recorded_ratio, " + kRec + ", algorithm: ring, bytes: 4K, over_bytes: 16K, less_than: 0}",
            "less_than");
    refused("{check: recorded_ratio, file: data/none.json, algorithm: ring, bytes: 4K, over_bytes: 16K, less_than: 2}",
            "recorded lab run");
  }
}

TEST_SUITE("lesson_ddp") {
  TEST_CASE("comm_ms: the model clock on one run; measured against a named run on 3..9 interleaved runs, never on one") {
    const Lesson l = parse_lesson(R"(title: comm
ddp: {ranks: 2, depth: 2, width: 8, batch: 4, iterations: 2, layer_delay_us: 0, link_us_per_mb: 1000}
beats:
  - kind: ddp
    name: one
    text: one bucket
  - kind: ddp
    ddp: {overlap: per_param}
    text: per tensor
    checks:
      - {check: comm_ms, clock: model, less_than: {run: one, times: 1.01}}
      - {check: comm_ms, clock: model, greater_than: {run: one, times: 0.99}}
      - {check: comm_ms, greater_than: {run: one}}
)",
                                  "c.yaml");
    const auto r = evaluate(l.beats[1]);
    REQUIRE(r.size() == 3);
    // The model clock prices the bytes only (link_us_per_mb): the same bytes,
    // the same time, in one bucket or four.
    CHECK(r[0].what == "communication ms per iteration on the model clock vs run 'one'");
    CHECK(r[0].pass);
    CHECK(r[1].pass);
    // Measured: decided on at least 5 runs each, or not shown (skipped),
    // never one run's guess.
    const CheckResult& m = r[2];
    CHECK(m.what.find("communication ms per iteration (median over iterations) vs run 'one', median of ") == 0);
    CHECK(m.what.find(" runs each, interleaved") != std::string::npos);
    CHECK((m.pass || m.not_shown));
    if (m.not_shown) {
      CHECK(m.skipped);
      CHECK(m.actual.find("not shown on this run: after 10 runs each the medians ") == 0);
      CHECK(m.actual.find(" CPUs") != std::string::npos);
    }
  }
}
