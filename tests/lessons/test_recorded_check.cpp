// recorded_faster (core/labs/lesson/checks_recorded.cpp): a network claim
// checked on the bundled recorded cluster-lab run; its errors at load time.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

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
    CHECK(r[0].actual == "262144 B: 0.275, 1048576 B: 0.273, 4194304 B: 0.243, 16777216 B: 0.221");
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
                         doctest::Contains("'to' ('4K', 4096 bytes) is below 'from' ('1M', 1048576 bytes)"), LessonError);
    // 'to' alone, not a size: the value given is named (not "-1 bytes below 'from' (1 bytes)").
    for (const char* to : {"-5", "0"})
      CHECK_THROWS_WITH_AS(parse_lesson(lesson_with(std::string("{check: recorded_faster, file: data/lab-allreduce-8x1-1gbit.json, "
                                                                "algorithm: ring, than: tree, to: ") + to + "}"),
                                        kFile),
                           (kFile + ":8:108: 'to' must be a size of 1 byte or more; got '" + to + "'").c_str(), LessonError);
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
    // A path of this process's own: two test runs at once do not share it.
    const fs::path dup = fs::temp_directory_path() / ("microddp-test-dup-rows-" + std::to_string(::getpid()) + ".json");
    std::ofstream(dup) << head << rows;
    CHECK_THROWS_WITH_AS(parse_lesson(lesson_with("{check: recorded_ratio, file: " + dup.string() +
                                                  ", algorithm: tree, bytes: 4K, over_bytes: 4K, greater_than: 0.5}"),
                                      kFile),
                         doctest::Contains((dup.string() + ": rows[2]: a second row of tree at 4096 bytes (the first is rows[0])").c_str()),
                         LessonError);
    fs::remove(dup);
  }

  TEST_CASE("a recorded run's counts and sizes are whole numbers in range, its p10 <= median <= p90: else refused, naming the field") {
    const auto record = [](const std::string& top, const std::string& row) {
      return R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit", "collective": "all_reduce", )" + top +
             R"(, "rows": [{"algorithm": "ring", )" + row + "}]}";
    };
    const std::string ok_top = R"("nodes": 2, "ranks_per_node": 1)", ok_row = R"("bytes": 4096, "time_us": 5)";
    CHECK(parse_lab_record(record(ok_top, ok_row), "r.json").nodes == 2);
    CHECK(parse_lab_record(record(ok_top, R"("bytes": 4096, "time_us": 5, "p10_us": 4, "p90_us": 5, "samples": 20)"),
                           "r.json").rows.at(0).samples == 20);
    struct Case {
      std::string top, row, message;
    };
    const Case cases[] = {
        {R"("nodes": 1e12, "ranks_per_node": 1)", ok_row, "r.json: nodes: 1000000000000.0 is not a whole number from 1 to 65536"},
        {R"("nodes": 2.9, "ranks_per_node": 1)", ok_row, "r.json: nodes: 2.9 is not a whole number from 1 to 65536"},
        {R"("nodes": 2147483648, "ranks_per_node": 1)", ok_row, "r.json: nodes: 2147483648 is not a whole number from 1 to 65536"},
        {R"("nodes": 2, "ranks_per_node": 0.5)", ok_row, "r.json: ranks_per_node: 0.5 is not a whole number from 1 to 65536"},
        {ok_top, R"("bytes": 1e30, "time_us": 5)", "r.json: rows[0].bytes: 1e+30 is not a whole number from 1 to 1099511627776"},
        {ok_top, R"("bytes": 4096.5, "time_us": 5)", "r.json: rows[0].bytes: 4096.5 is not a whole number from 1 to 1099511627776"},
        {ok_top, R"("bytes": 4096, "time_us": 5, "samples": 1e20)",
         "r.json: rows[0].samples: 1e+20 is not a whole number from 0 to 1000000000"},
        {ok_top, R"("bytes": 4096, "time_us": 5, "count": -1)",
         "r.json: rows[0].count: -1 is not a whole number from 0 to 1099511627776"},
        {ok_top, R"("bytes": 4096, "time_us": 5, "p10_us": 9e9)", "r.json: rows[0]: p10_us 9e+09 is above time_us (the median) 5"},
        {ok_top, R"("bytes": 4096, "time_us": 5, "p90_us": 4)", "r.json: rows[0]: time_us (the median) 5 is above p90_us 4"},
        {ok_top, R"("bytes": 4096, "time_us": 5, "p10_us": 3, "p90_us": 2)", "r.json: rows[0]: time_us (the median) 5 is above p90_us 2"},
    };
    for (const Case& c : cases) {
      std::string got = "(no error)";
      try {
        parse_lab_record(record(c.top, c.row), "r.json");
      } catch (const UsageError& e) {
        got = e.what();
      }
      INFO("top: ", c.top, " row: ", c.row);
      CHECK(got == c.message);
    }
  }

  TEST_CASE("a recorded run's world size fits, its rows are of its own run, its spread is in order and above 0") {
    const auto record = [](const std::string& top, const std::string& row) {
      return R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit", "collective": "all_reduce", )" + top +
             R"(, "rows": [{"algorithm": "ring", "bytes": 4096, "time_us": 5, )" + row + "}]}";
    };
    const std::string top = R"("nodes": 2, "ranks_per_node": 4)";
    // bench's own fields agreeing with the record, and a full spread in order: read.
    const LabRecord ok = parse_lab_record(
        record(top, R"("world_size": 8, "nodes": 2, "collective": "all_reduce", "min_us": 1, "p10_us": 2, "p90_us": 6, "max_us": 7, "predicted_us": null)"),
        "r.json");
    CHECK(ok.world_size() == 8);
    CHECK(ok.rows.at(0).min_us == 1);
    CHECK(ok.rows.at(0).max_us == 7);
    CHECK(ok.rows.at(0).predicted_us == -1);
    struct Case {
      std::string top, row, message;
    };
    const Case cases[] = {
        {R"("nodes": 65536, "ranks_per_node": 65536)", R"("samples": 5)",
         "r.json: nodes x ranks_per_node: 65536 x 65536 = 4294967296 ranks (expected at most 65536)"},
        {top, R"("world_size": 2)", "r.json: rows[0].world_size: 2, but the record's nodes x ranks_per_node is 8"},
        {top, R"("nodes": 1)", "r.json: rows[0].nodes: 1, but the record's nodes is 2"},
        {top, R"("collective": "broadcast")",
         "r.json: rows[0].collective: \"broadcast\", but the record's collective is \"all_reduce\""},
        {top, R"("min_us": 9e9, "max_us": 1)", "r.json: rows[0]: min_us 9e+09 is above time_us (the median) 5"},
        {top, R"("max_us": 1)", "r.json: rows[0]: time_us (the median) 5 is above max_us 1"},
        {top, R"("p90_us": 6, "max_us": 5.5)", "r.json: rows[0]: p90_us 6 is above max_us 5.5"},
        {top, R"("min_us": 3, "p10_us": 2)", "r.json: rows[0]: min_us 3 is above p10_us 2"},
        {top, R"("p10_us": -50)", "r.json: rows[0].p10_us: -50 is not a time (above 0 µs)"},
        {top, R"("min_us": 0)", "r.json: rows[0].min_us: 0 is not a time (above 0 µs)"},
        {top, R"("predicted_us": -3)", "r.json: rows[0].predicted_us: -3 is not a time (above 0 µs)"},
        {top, R"("max_us": "7")", "r.json: rows[0].max_us: expected a number or null, got \"7\""},
    };
    for (const Case& c : cases) {
      std::string got = "(no error)";
      try {
        parse_lab_record(record(c.top, c.row), "r.json");
      } catch (const UsageError& e) {
        got = e.what();
      }
      INFO("top: ", c.top, " row: ", c.row);
      CHECK(got == c.message);
    }
  }

  TEST_CASE("a recorded run of 20000 rows reads every row (duplicates found through a map, not row by row)") {
    std::string rows;
    for (int i = 0; i < 20000; ++i)
      rows += (i ? ", " : "") + std::string(R"({"algorithm": ")") + (i % 2 ? "tree" : "ring") + R"(", "bytes": )" +
              std::to_string(4 * (i / 2 + 1)) + R"(, "time_us": 5})";
    const std::string head = R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit", "collective": "all_reduce", )"
                             R"("nodes": 2, "ranks_per_node": 1, "rows": [)";
    const LabRecord r = parse_lab_record(head + rows + "]}", "big.json");
    CHECK(r.rows.size() == 20000);
    CHECK(r.rows.back().algorithm == "tree");
    CHECK(r.rows.back().bytes == 40000);
    CHECK_THROWS_WITH_AS(parse_lab_record(head + rows + R"(, {"algorithm": "ring", "bytes": 4, "time_us": 5}]})", "big.json"),
                         "big.json: rows[20000]: a second row of ring at 4 bytes (the first is rows[0])", UsageError);
  }

  TEST_CASE("a recorded lab run or nccl-tests table that is a directory or a device is refused at its file:") {
    const auto error_of = [](const std::string& text) {
      try {
        parse_lesson(text, kFile);
      } catch (const LessonError& e) {
        return std::string(e.what());
      }
      return std::string("(loaded)");
    };
    CHECK(error_of(lesson_with("{check: recorded_faster, file: data, algorithm: ring, than: tree}")) ==
          kFile + ":8:40: 'data' is a directory");
    CHECK(error_of(lesson_with("{check: recorded_ratio, file: /dev/urandom, algorithm: ring, bytes: 256K, over_bytes: 4K, less_than: 1.2}")) ==
          kFile + ":8:39: '/dev/urandom' is not a regular file (a character device)");
    const std::string view = "title: t\nsummary: s\nsetup: {collective: all_reduce, algorithm: ring, ranks: 4, count: 4}\n"
                             "beats:\n  - view: compare\n    compare: {source: published, file: /dev/zero}\n    text: x\n";
    CHECK(error_of(view) == kFile + ":6:40: '/dev/zero' is not a regular file (a character device)");
  }
}
