// recorded_faster (core/labs/lesson/checks_recorded.cpp): a network claim
// checked on the bundled recorded cluster-lab run; its errors at load time.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/labs/lesson/lesson.h"
#include "core/model/lab_record.h"

using namespace microddp;
using namespace microddp::lesson;
namespace fs = std::filesystem;

namespace {
const std::string kFile = (fs::path(MICRODDP_SOURCE_DIR) / "lessons" / "x.yaml").string();

std::string lesson_with(const std::string& check) {
  return "title: t\nsummary: s\nsetup: {collective: all_reduce, algorithm: ring, ranks: 4, count: 4}\n"
         "beats:\n  - at: end\n    text: x\n    checks:\n      - " +
         check + "\n";
}
}  // namespace

TEST_SUITE("lesson_recorded") {
  TEST_CASE("recorded_faster passes where the recorded run says so and fails where it does not") {
    const Lesson ok = parse_lesson(
        lesson_with("{check: recorded_faster, file: data/lab-allreduce-8x1-1gbit.json, algorithm: ring, than: tree, from: 256K}"),
        kFile);
    const auto r = evaluate(ok.beats[0]);
    REQUIRE(r.size() == 1);
    CHECK(r[0].pass);
    CHECK(r[0].actual == "262144 B: 0.279, 1048576 B: 0.19, 4194304 B: 0.406, 16777216 B: 0.282");
    // Below 256 KiB the tree is ahead: the same claim from 4 KiB fails.
    const Lesson bad = parse_lesson(
        lesson_with("{check: recorded_faster, file: data/lab-allreduce-8x1-1gbit.json, algorithm: ring, than: tree, from: 4K}"),
        kFile);
    const auto f = evaluate(bad.beats[0]);
    REQUIRE(f.size() == 1);
    CHECK_FALSE(f[0].pass);
    CHECK(f[0].what.find("ring faster than tree from 4 KiB (4096 B) on") != std::string::npos);
  }

  TEST_CASE("recorded_faster: a missing file, an algorithm without rows, 'to' below 'from' are refused at their line") {
    CHECK_THROWS_WITH_AS(parse_lesson(lesson_with("{check: recorded_faster, file: data/none.json, algorithm: ring, than: tree}"), kFile),
                         doctest::Contains("recorded lab run"), LessonError);
    CHECK_THROWS_WITH_AS(
        parse_lesson(lesson_with("{check: recorded_faster, file: data/lab-allreduce-8x1-1gbit.json, algorithm: hd, than: tree}"),
                     kFile),
        doctest::Contains("'hd' has no rows in data/lab-allreduce-8x1-1gbit.json (it has naive, tree, ring)"), LessonError);
    CHECK_THROWS_WITH_AS(parse_lesson(lesson_with("{check: recorded_faster, file: data/lab-allreduce-8x1-1gbit.json, "
                                                  "algorithm: ring, than: tree, from: 1M, to: 4K}"),
                                      kFile),
                         doctest::Contains("'to' (4096 bytes) is below 'from' (1048576 bytes)"), LessonError);
  }

  TEST_CASE("a recorded run with two rows of one algorithm at one size is refused, naming both rows") {
    const std::string head = R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit", "collective": "all_reduce",
        "nodes": 2, "ranks_per_node": 1, "rows": [)";
    const std::string rows = R"({"algorithm": "tree", "bytes": 4096, "time_us": 5}, {"algorithm": "ring", "bytes": 4096,
        "time_us": 4}, {"algorithm": "tree", "bytes": 4096, "time_us": 1}]})";
    CHECK_THROWS_WITH_AS(parse_lab_record(head + rows, "dup.json"),
                         "dup.json: rows[2]: a second row of tree at 4096 bytes (the first is rows[0])", UsageError);
    // The same size of another algorithm, another size of the same: fine.
    CHECK(parse_lab_record(head + R"({"algorithm": "tree", "bytes": 4096, "time_us": 5}, {"algorithm": "ring",
        "bytes": 4096, "time_us": 4}, {"algorithm": "tree", "bytes": 8192, "time_us": 9}]})", "ok.json").rows.size() == 3);
    // A lesson naming such a file is refused at load, at the check's line.
    const fs::path dup = fs::temp_directory_path() / "microddp-test-dup-rows.json";
    std::ofstream(dup) << head << rows;
    CHECK_THROWS_WITH_AS(parse_lesson(lesson_with("{check: recorded_ratio, file: " + dup.string() +
                                                  ", algorithm: tree, bytes: 4K, over_bytes: 4K, greater_than: 0.5}"),
                                      kFile),
                         doctest::Contains((dup.string() + ": rows[2]: a second row of tree at 4096 bytes (the first is rows[0])").c_str()),
                         LessonError);
    fs::remove(dup);
  }
}
