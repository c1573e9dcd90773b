// A collective beat's `recorded: FILE` (lessons/README.md): the bundled
// corrupting run of lesson 02 beat 5 loads with the lesson, and a file that
// is missing or not the beat's run is refused at the key's file:line:column.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/ir/reference.h"
#include "core/labs/lesson/lesson.h"
#include "lessons/lesson_paths.h"

namespace fs = std::filesystem;
using namespace microddp;
using namespace microddp::lesson;
using namespace microddp::lesson_test;

namespace {

// A lesson in a fresh folder whose beat 1 is the one-buffer ring on the seed
// data (`data_rows`) with `recorded: data/r.json`; `record` (if not empty)
// is written there.
std::string lesson_with(const std::string& record, const std::string& data_rows = "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]",
                        const std::string& algorithm = "single_buffered_ring",
                        const std::string& recorded = "data/r.json") {
  const fs::path dir = fs::temp_directory_path() / "microddp-test-recorded";
  fs::remove_all(dir);
  fs::create_directories(dir / "data");
  if (!record.empty()) std::ofstream(dir / "data" / "r.json") << record;
  const fs::path l = dir / "l.yaml";
  std::ofstream(l) << "title: t\nsetup: {ranks: 3, data: " << data_rows << "}\nbeats:\n"
                   << "  - setup: {algorithm: " << algorithm << ", delay: {rank: -1, max_delay_us: 300}}\n"
                   << "    recorded: " << recorded << "\n    text: a\n";
  return l.string();
}

std::string bundled() {
  std::ifstream in(kLessons / "data" / "single-buffered-ring-3x3.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string load_error(const std::string& path) {
  try {
    load_lesson(path);
  } catch (const LessonError& e) {
    return e.what();
  }
  return "(loaded)";
}

// Edited copies of the bundled record, each refused at the key with the
// file, the field and the first contradiction (record_contradiction).
// `edit` changes the parsed record; the message follows "contradicts its
// own snapshots: ".
std::string edited_error(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json rec = nlohmann::json::parse(bundled());
  edit(rec);
  const std::string l = lesson_with(rec.dump());
  const std::string at = l + ":5:15: recorded: " + (fs::path(l).parent_path() / "data" / "r.json").string() +
                         " contradicts its own snapshots: ";
  const std::string got = load_error(l);
  return got.rfind(at, 0) == 0 ? got.substr(at.size()) : "(not refused at the key) " + got;
}

}  // namespace

TEST_SUITE("lesson_recorded") {
  TEST_CASE("lesson 02 beat 5 carries its recorded corrupting run, with machine, date, seed and carried values") {
    const Lesson l = load_lesson((kLessons / "02-ring-double-buffering.yaml").string());
    REQUIRE(l.beats.size() >= 5);
    const Beat& b = l.beats[4];
    CHECK(b.setup.algorithm == "single_buffered_ring");
    REQUIRE(b.recorded_run != nullptr);
    CHECK(b.recorded_path == (kLessons / "data" / "single-buffered-ring-3x3.json").lexically_normal().string());
    const RunRecord& r = *b.recorded_run;
    CHECK(r.broken == "single_buffered_ring");
    CHECK(r.spec.algorithm == "ring_unchunked");
    CHECK(r.spec.world_size == 3);
    CHECK(r.spec.count == 3);
    REQUIRE(r.delay.has_value());
    CHECK(r.delay->max_delay_us == 300);
    CHECK(r.delay->rank == -1);
    CHECK(r.delay->seed >= 1);
    CHECK(r.delay->seed <= 30);
    CHECK_FALSE(r.origin.machine.empty());
    CHECK(r.origin.date.size() == 10);  // YYYY-MM-DD
    CHECK(r.origin.command.find("--algorithm single_buffered_ring") != std::string::npos);
    // It is a corrupting run: its outputs are not the sum.
    CHECK_FALSE(outputs_match(r.spec, r.inputs, r.outputs, reference_outputs(r.spec, r.inputs)));
    // Every recv recorded what its message carried.
    int recvs = 0;
    for (size_t q = 0; q < 3; ++q)
      for (size_t i = 0; i < r.trace.events[q].size(); ++i)
        if (r.trace.events[q][i].kind == OpKind::recv || r.trace.events[q][i].kind == OpKind::recv_reduce) {
          CHECK(r.trace.carried[q][i].size() == 3);
          ++recvs;
        }
    CHECK(recvs == 6);  // 3 ranks x 2 steps
    // Only beat 5 has one.
    for (size_t k = 0; k < l.beats.size(); ++k)
      if (k != 4) CHECK(l.beats[k].recorded_run == nullptr);
  }

  TEST_CASE("a good copy loads; a missing, malformed or foreign file is refused at the key") {
    CHECK(load_error(lesson_with(bundled())) == "(loaded)");
    const std::string missing = lesson_with("");
    CHECK(load_error(missing) ==
          missing + ":5:15: recorded: cannot read record file '" +
              (fs::path(missing).parent_path() / "data" / "r.json").string() + "'");
    CHECK(load_error(lesson_with("{\"format\": 1}")).find(":5:15: recorded: ") != std::string::npos);
    // other inputs than the beat's
    CHECK(load_error(lesson_with(bundled(), "[[1, 2, 3], [4, 5, 6], [7, 8, 10]]")).find("holds other inputs than this beat's data") !=
          std::string::npos);
    // another algorithm: the checked ring is not the run recorded
    CHECK(load_error(lesson_with(bundled(), "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]", "ring_unchunked"))
              .find(":5:15: recorded: ") != std::string::npos);
    CHECK(load_error(lesson_with(bundled(), "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]", "ring_unchunked"))
              .find("ran algorithm single_buffered_ring, but this beat's setup runs ring_unchunked") != std::string::npos);
  }

  TEST_CASE("a directory or a device as the record is refused at the key, before anything opens it") {
    const std::string rows = "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]", alg = "single_buffered_ring";
    const std::string dir = lesson_with(bundled(), rows, alg, "data");
    CHECK(load_error(dir) == dir + ":5:15: 'data' is a directory");
    const std::string zero = lesson_with(bundled(), rows, alg, "/dev/zero");  // read forever, were it opened
    CHECK(load_error(zero) == zero + ":5:15: '/dev/zero' is not a regular file (a character device)");
  }

  TEST_CASE("a record that differs from the beat only in in_place, root or segments names the field") {
    const std::string rows = "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]";
    nlohmann::json rec = nlohmann::json::parse(bundled());
    rec["spec"]["in_place"] = true;
    const std::string l = lesson_with(rec.dump(), rows);
    const std::string at = l + ":5:15: recorded: " + (fs::path(l).parent_path() / "data" / "r.json").string();
    CHECK(load_error(l) == at + " ran 3 ranks x 3 float32 elements (all_reduce sum) as this beat's setup does, but "
                                "in_place: the record true, the beat false");
    rec["spec"]["root"] = 2;
    rec["spec"]["segments"] = 3;
    CHECK(load_error(lesson_with(rec.dump(), rows)) ==
          at + " ran 3 ranks x 3 float32 elements (all_reduce sum) as this beat's setup does, but root: the record 2, "
               "the beat 0; in_place: the record true, the beat false; segments: the record 3, the beat 1");
  }

  TEST_CASE("an edited accum snapshot is refused: the step's ops on the snapshot before it give another value") {
    // R0's accum after step 0 is its input plus what R2 sent: 1+7, 2+8, 3+9.
    CHECK(edited_error([](auto& j) { j["trace"]["steps"][0][0]["buffers"][3]["values"][2] = 13; }) ==
          "trace.steps[0][0].buffers[3].values[2] (R0's accum after step 0) = 13, but step 0's ops on the snapshot "
          "before it give 12");
  }

  TEST_CASE("outputs and the last snapshot edited together are refused: the last step's replay gives the sum") {
    CHECK(edited_error([](auto& j) {
            j["outputs"][0] = "000020410000404100007041";  // 10, 12, 15 (float32, little-endian)
            j["trace"]["steps"][1][0]["buffers"][1]["values"][0] = 10;
          }) == "trace.steps[1][0].buffers[1].values[0] (R0's output after step 1) = 10, but step 1's ops on the "
                "snapshot before it give 9");
    // accum too: the copy into output agrees, but accum is not its sum any more.
    CHECK(edited_error([](auto& j) {
            j["outputs"][0] = "000020410000404100007041";
            j["trace"]["steps"][1][0]["buffers"][1]["values"][0] = 10;
            j["trace"]["steps"][1][0]["buffers"][3]["values"][0] = 10;
          }) == "trace.steps[1][0].buffers[1].values[0] (R0's output after step 1) = 10, but step 1's ops on the "
                "snapshot before it give 9");
  }

  TEST_CASE("carried values on a recv with peer -1 are refused: the schedule's op receives from a rank") {
    // The record loader refuses it first (record_io.cpp: the event against its op).
    CHECK(edited_error([](auto& j) { j["trace"]["events"][0][3]["peer"] = -1; }).find(
              "r.json: 'trace.events[0][3].peer' is -1 but the schedule's op has peer 2") != std::string::npos);
  }

  TEST_CASE("a negative time is refused") {
    CHECK(edited_error([](auto& j) { j["trace"]["events"][1][0]["begin_ns"] = -5; }) ==
          "trace.events[1][0].begin_ns is -5 ns, below 0");
    CHECK(edited_error([](auto& j) { j["trace"]["total_ns"] = -591563; }).find("r.json: 'trace.total_ns' is -591563 ns, below 0") !=
          std::string::npos);
    CHECK(edited_error([](auto& j) { j["trace"]["steps"][1][2]["end_ns"] = -1; }).rfind("trace.steps[1][2].end_ns is -1 ns", 0) == 0);
  }

  TEST_CASE("a total_ns that is not the steps' span is refused") {
    CHECK(edited_error([](auto& j) { j["trace"]["total_ns"] = 600000; }) ==
          "trace.total_ns is 600000 ns, but the steps span 591563 ns (from 146047 to 737610 ns) and no step was repeated");
  }

  TEST_CASE("bytes_sent or bytes_received that the messages do not add up to are refused") {
    // The record loader refuses them first (record_io.cpp), naming the file.
    CHECK(edited_error([](auto& j) { j["trace"]["bytes_sent"][1] = 36; }).find(
              "r.json: 'trace.bytes_sent[1]' is 36 B but the schedule's sends of endpoint 1 move 24 B") != std::string::npos);
    CHECK(edited_error([](auto& j) { j["trace"]["bytes_received"][2] = 0; }).find(
              "r.json: 'trace.bytes_received[2]' is 0 B but the schedule's receives of endpoint 2 bring 24 B") !=
          std::string::npos);
  }

  TEST_CASE("a record of other send delays or another protocol than the beat's is refused, naming both") {
    const std::string rows = "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]";
    nlohmann::json rec = nlohmann::json::parse(bundled());
    rec["delay"]["max_delay_us"] = 50;
    std::string l = lesson_with(rec.dump(), rows);
    const std::string file = (fs::path(l).parent_path() / "data" / "r.json").string();
    CHECK(load_error(l) == l + ":5:15: recorded: " + file +
                               " ran with delay {rank: -1, max_delay_us: 50}, but this beat's setup has delay {rank: -1, "
                               "max_delay_us: 300}");
    rec = nlohmann::json::parse(bundled());
    rec.erase("delay");
    l = lesson_with(rec.dump(), rows);
    CHECK(load_error(l) == l + ":5:15: recorded: " + file +
                               " ran with delay none, but this beat's setup has delay {rank: -1, max_delay_us: 300}");
    rec = nlohmann::json::parse(bundled());
    rec["trace"]["protocol"] = "ll";
    for (auto& row : rec["trace"]["events"])  // as an older record: no wire fields (simple's would contradict ll)
      for (auto& e : row) e.erase("wire_bytes"), e.erase("flags");
    l = lesson_with(rec.dump(), rows);
    CHECK(load_error(l) == l + ":5:15: recorded: " + file +
                               " ran protocol ll, but this beat's setup runs protocol simple (a lesson's runs are simple)");
  }
}
