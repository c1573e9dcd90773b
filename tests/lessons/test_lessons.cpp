// Lessons: every shipped lesson loads and all its checks pass against real
// runs; a lesson that claims something false fails with expected vs actual.
// Malformed lessons: test_lesson_errors.cpp; lab beats: test_lesson_lab.cpp.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <variant>

#include <sys/stat.h>
#include <unistd.h>

#include "core/ir/limits.h"
#include "core/ir/reference.h"
#include "core/labs/ddp/ddp.h"
#include "core/labs/lesson/lesson.h"
#include "lessons/lesson_paths.h"

namespace fs = std::filesystem;
using namespace microddp::lesson;
using namespace microddp::lesson_test;

TEST_SUITE("lessons") {
  TEST_CASE("the twelve shipped lessons are listed with titles, in order") {
    const auto l = list_lessons(kLessons.string());
    REQUIRE(l.size() == 12);
    const char* files[] = {"01-primitives.yaml",   "02-ring-double-buffering.yaml", "03-naive-tree-ring.yaml",
                           "04-chunked-ring.yaml", "05-alpha-beta.yaml",            "06-reduce-scatter-all-gather.yaml",
                           "07-bucketing-overlap.yaml", "08-hunt-the-hang.yaml",    "09-topology.yaml",
                           "10-fsdp-prefetch.yaml",   "11-what-nccl-does.yaml",        "12-nccl-on-real-clusters.yaml"};
    for (size_t i = 0; i < 12; ++i) {
      CHECK(fs::path(l[i].file).filename() == files[i]);
      CHECK(l[i].title.rfind("(error", 0) == std::string::npos);
    }
  }

  // ddp and hang beats (lessons 07, 08) run in the lesson_ddp suite.
  TEST_CASE("every check of every shipped lesson passes against the real run") {
    int checks = 0;
    for (const auto& info : list_lessons(kLessons.string())) {
      const Lesson l = load_lesson(info.file);
      for (size_t b = 0; b < l.beats.size(); ++b)
        for (const CheckResult& r : l.beats[b].kind == Beat::Kind::collective ? evaluate(l.beats[b])
                                                                              : std::vector<CheckResult>{}) {
          ++checks;
          INFO(info.file, " beat ", b + 1, " ", r.mark.str(), ": ", r.what, ": expected ", r.expected, ", got ",
               r.actual);
          CHECK(r.pass);
        }
    }
    CHECK(checks >= 60);
  }

  TEST_CASE("lesson 02: the seed's 3-rank ring, beat by beat") {
    const Lesson l = load_lesson((kLessons / "02-ring-double-buffering.yaml").string());
    REQUIRE(l.beats.size() == 6);
    const Prepared p = prepare(l.beats[1].setup);
    CHECK(p.schedule.num_steps() == 2);
    CHECK(target_step(l.beats[0].at, p.schedule) == -1);
    CHECK(target_step(l.beats[1].at, p.schedule) == 0);
    CHECK(target_step(l.beats[2].at, p.schedule) == 1);
    REQUIRE(l.beats[1].question);
    CHECK(l.beats[1].question->is_right("3"));
    CHECK(l.beats[1].question->is_right("[8, 10, 12]"));
    CHECK_FALSE(l.beats[1].question->is_right("2"));
    // A typo is not an answer: the terminal asks again.
    CHECK(l.beats[1].question->not_an_answer("2").empty());
    CHECK(l.beats[1].question->not_an_answer(" [5, 7, 9] ").empty());
    CHECK(l.beats[1].question->not_an_answer("7") == "7 is not one of the choices 1-4");
    CHECK(l.beats[1].question->not_an_answer("eight") == "eight is not one of the choices 1-4");
    Question numeric;
    numeric.value = 24;
    CHECK(numeric.not_an_answer("20").empty());
    CHECK(numeric.not_an_answer("2o") == "2o is not a number");
    // The answer as printed: a choice with its text; a number with the
    // decimals its tolerance asks for.
    CHECK(l.beats[1].question->answer_text() == "3) [8, 10, 12]");
    CHECK(numeric.answer_text() == "24");
    numeric.value = 8, numeric.tolerance = 0.1;
    CHECK(numeric.answer_text() == "8.0");
    numeric.value = 43.64, numeric.tolerance = 0.1;
    CHECK(numeric.answer_text() == "43.6");
    numeric.value = 0.002931, numeric.tolerance = 0.0001;
    CHECK(numeric.answer_text() == "0.0029");
    // Half a unit of the last place asked for: nearest whole number, two decimals
    // (lecturer pass 7: 05 b5 and 12 b1 printed "17.0" and "18.0", 11 b8 "0.570").
    numeric.value = 17, numeric.tolerance = 0.5;
    CHECK(numeric.answer_text() == "17");
    numeric.value = 0.57, numeric.tolerance = 0.005;
    CHECK(numeric.answer_text() == "0.57");
    numeric.value = 1.5, numeric.tolerance = 0.001;
    CHECK(numeric.answer_text() == "1.500");
    numeric.value = 128, numeric.tolerance = 2;
    CHECK(numeric.answer_text() == "128");
    CHECK(l.beats[1].highlight.links == std::vector<std::pair<int, int>>{{2, 0}});
    CHECK(l.beats[4].setup.algorithm == "single_buffered_ring");
    CHECK(l.beats[4].setup.delay.has_value());
    CHECK(l.beats[5].setup.algorithm == "ring");
    CHECK_FALSE(l.beats[5].setup.delay.has_value());  // "delay: none" clears it
    CHECK(l.beats[5].setup.ranks == 3);               // the rest carries forward
  }
}

TEST_SUITE("lesson_checks") {
  TEST_CASE("a false claim fails with expected vs actual and its mark") {
    const Lesson l = parse_lesson(R"(title: wrong
setup: {ranks: 3, algorithm: ring_unchunked, data: "1,2,3;4,5,6;7,8,9"}
beats:
  - at: 0
    text: a lie
    checks:
      - {check: buffer, rank: 0, buffer: accum, step: 0, equals: [5, 7, 9]}
      - {check: bytes, rank: 0, step: 1, equals: 13}
      - {check: steps, equals: 3}
      - {check: predicted, preset: nvlink, seconds: 1}
)", "wrong.yaml");
    const auto r = evaluate(l.beats[0]);
    REQUIRE(r.size() == 4);
    for (const auto& c : r) CHECK_FALSE(c.pass);
    CHECK(r[0].what == "R0 accum after step 0");
    CHECK(r[0].expected == "[5, 7, 9]");
    CHECK(r[0].actual == "[8, 10, 12]");
    CHECK(r[0].mark.str() == "wrong.yaml:7:9");
    CHECK(r[1].actual == "12");
    CHECK(r[2].actual == "2");
  }

  TEST_CASE("the closed-form NVLink and InfiniBand figures (8 ranks, 1 GB ring all-reduce)") {
    const Lesson l = parse_lesson(R"(title: ab
setup: {ranks: 8, algorithm: ring, count: 250000000}
beats:
  - text: numbers
    checks:
      - {check: predicted, preset: nvlink, seconds: 0.0029306667, rel_tol: 0.000001}
      - {check: predicted, preset: infiniband, seconds: 0.070028, rel_tol: 0.000001}
      - {check: ratio, preset: infiniband, over_preset: nvlink, equals: 23.8949, rel_tol: 0.00001}
      - {check: steps, equals: 14}
)", "ab.yaml");
    CHECK_FALSE(prepare(l.beats[0].setup).runnable);
    for (const auto& c : evaluate(l.beats[0])) {
      INFO(c.what, ": expected ", c.expected, ", got ", c.actual);
      CHECK(c.pass);
    }
  }

  TEST_CASE("topology keys: setup nodes, inter/intra/nics_per_node on predictions, nic_bytes") {
    const Lesson l = parse_lesson(R"(title: topo
setup: {ranks: 16, nodes: 2, algorithm: ring, count: 250000000}
beats:
  - text: two nodes of eight
    checks:
      - {check: nic_bytes, preset: nvlink, inter: infiniband, equals: 1.875e9, rel_tol: 0.000001}
      - {check: nic_bytes, preset: nvlink, inter: infiniband, algorithm: hierarchical, equals: 1.0e9,
         rel_tol: 0.000001}
      - {check: predicted, preset: nvlink, inter: infiniband, seconds: 0.07506, rel_tol: 0.00001}
      - {check: ratio, preset: nvlink, intra: nvlink, inter: infiniband, algorithm: ring,
         over_algorithm: hierarchical, equals: 1.7471, rel_tol: 0.0001}
      - {check: faster, preset: nvlink, inter: infiniband, nics_per_node: 8, algorithm: ring, than: naive}
      - {check: predicted, preset: infiniband, seconds: 0.075}
)", "topo.yaml");
    REQUIRE(l.beats.size() == 1);
    CHECK(l.beats[0].setup.nodes == 2);
    CHECK(prepare(l.beats[0].setup).spec.nodes == 2);
    const auto& c = l.beats[0].checks;
    REQUIRE(c.size() == 6);
    const auto& nb = std::get<check::NicBytes>(c[0].claim);
    CHECK(nb.links.inter == "infiniband");
    CHECK(nb.links.intra.empty());  // the preset stands for it
    CHECK(nb.links.nics_per_node == 1);
    CHECK(nb.bytes == 1.875e9);
    CHECK(std::get<check::NicBytes>(c[1].claim).algorithm == "hierarchical");
    CHECK(std::get<check::Ratio>(c[3].claim).links.intra == "nvlink");
    CHECK(std::get<check::Faster>(c[4].claim).links.nics_per_node == 8);
    CHECK(std::get<check::Predicted>(c[5].claim).links.inter.empty());  // the flat model
    const auto r = evaluate(l.beats[0]);
    REQUIRE(r.size() == 6);
    for (size_t i = 0; i < 5; ++i) {
      INFO(r[i].what, ": expected ", r[i].expected, ", got ", r[i].actual);
      CHECK(r[i].pass);
    }
    CHECK(r[0].actual == "1875000000 (node 0 NIC 0 out)");
    CHECK(r[1].actual == "1000000000 (node 0 NIC 0 out)");
    CHECK(r[2].what == "predicted time (nvlink inside, infiniband between 2 nodes, ring, 16 ranks)");
    // The flat model prices every ring link as InfiniBand: 2 × 15 × 2 µs + 1.875 GB / 25 GB/s.
    CHECK(r[5].pass);
    CHECK(r[5].actual == "75.06 ms");
  }

  TEST_CASE("typed answers") {
    Question q;
    q.value = 23.9;
    q.tolerance = 0.1;
    CHECK(q.is_right(" 23.85\n"));
    CHECK_FALSE(q.is_right("30"));
    CHECK_FALSE(q.is_right("23.9x"));
    CHECK_FALSE(q.is_right(""));
  }

  TEST_CASE("the corrupts check's seed search: the one-buffer ring corrupts at the first seed it reports") {
    Setup s;
    s.algorithm = "single_buffered_ring";
    s.data = "1,2,3;4,5,6;7,8,9";
    const Prepared p = prepare(s);
    microddp::DelayHook d;
    d.max_delay_us = 300;
    const SeedSearch found = first_corrupting_seed(p.schedule, p.inputs, d, 30, true);
    REQUIRE(found.found.corrupted);  // lesson 02's claim: with delayed sends, some seed corrupts
    CHECK(found.found.seed == static_cast<uint64_t>(found.tries));  // seeds 1, 2, ... in order
    CHECK(found.tries <= 30);
    CHECK(found.found.why.find("output") != std::string::npos);
    // Recorded: every step's snapshots, and the outputs differ from [12, 15, 18].
    CHECK(found.found.run.trace.steps.size() == 2);
    REQUIRE(found.found.run.outputs.size() == 3);
    const microddp::RankData want = microddp::reference_outputs(p.spec, p.inputs);
    CHECK(found.found.run.outputs != want);
    // The double-buffered ring never corrupts: every seed runs, the last is kept.
    Setup ok = s;
    ok.algorithm = "ring_unchunked";
    const Prepared q = prepare(ok);
    const SeedSearch none = first_corrupting_seed(q.schedule, q.inputs, d, 5, false);
    CHECK(none.tries == 5);
    CHECK_FALSE(none.found.corrupted);
    CHECK(none.found.seed == 5);
    CHECK(none.found.why == "");
    CHECK(none.found.run.outputs == microddp::reference_outputs(q.spec, q.inputs));
  }
}
