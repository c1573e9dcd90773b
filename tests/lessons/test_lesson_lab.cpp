// Lessons' lab beats: requests merged from a lesson's lab:, the model's
// price of a lab run, bad lab keys, and the skip path without the lab.
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

TEST_SUITE("lesson_lab") {
  const char* kHead = "title: t\nsetup: {ranks: 3}\nlab: {nic: 100mbit, bytes: 4M, iters: 5}\nbeats:\n";

  TEST_CASE("lesson 09's lab beats: requests merged from the lesson's lab:, named runs, measured_ratio claims") {
    const Lesson l = load_lesson((kLessons / "09-topology.yaml").string());
    std::vector<const Beat*> lab;
    for (const Beat& b : l.beats)
      if (b.kind == Beat::Kind::lab) lab.push_back(&b);
    REQUIRE(lab.size() == 4);
    CHECK(lab[0]->name == "one_node");
    CHECK(lab[0]->lab.nodes == 1);
    CHECK(lab[0]->lab.ranks_per_node == 2);
    CHECK(lab[1]->lab.nodes == 2);
    CHECK(lab[1]->lab.ranks_per_node == 1);
    CHECK(lab[2]->lab.nodes == 4);
    CHECK(lab[3]->lab.ranks_per_node == 4);
    CHECK(lab[3]->lab.algorithms == std::vector<std::string>{"ring", "hierarchical"});
    for (const Beat* b : lab) {
      CHECK(b->lab.nic == "100mbit");
      CHECK(b->lab.bytes == 4194304);
      CHECK(b->lab.iters == 5);
    }
    const auto& across = std::get<check::MeasuredRatio>(lab[2]->checks.at(0).claim);
    CHECK(across.over_run == "two_nodes");
    CHECK(across.algorithm == "ring");
    CHECK(across.over_algorithm == "ring");
    CHECK(across.greater_than == 1.2);
    CHECK(across.less_than == 2.0);
    const auto& hier = std::get<check::MeasuredRatio>(lab[3]->checks.at(0).claim);
    CHECK(hier.over_algorithm == "hierarchical");
    CHECK(hier.over_run.empty());
    CHECK(std::isnan(hier.less_than));
  }

  TEST_CASE("the model's price of a lab run: 2 × 1 ring, 4 MiB at 100 Mbit/s") {
    LabRequest q;
    q.nodes = 2;
    q.ranks_per_node = 1;
    // Two steps of S/2 = 2 MiB through the NIC, α = 50 µs each, and one
    // reduction of 2 MiB at 8 GB/s: 2 × (50e-6 + 2097152 × 8 / 1e8) + 2097152 / 8e9.
    CHECK(predict_lab(q, "ring") == doctest::Approx(2 * (50e-6 + 2097152 * 8 / 1e8) + 2097152 / 8e9).epsilon(1e-9));
    q.nodes = 4;
    const double four = predict_lab(q, "ring");
    q.nodes = 2;
    CHECK(four / predict_lab(q, "ring") == doctest::Approx(1.5).epsilon(0.01));  // 2(N−1)/N: 1 -> 1.5
    q.ranks_per_node = 4;
    CHECK(predict_lab(q, "ring") / predict_lab(q, "hierarchical") == doctest::Approx(1.74).epsilon(0.01));
    q.nic = "fast";
    CHECK_THROWS_WITH_AS(q.nic_bps(), "nic 'fast' is not a rate such as 100mbit (units: kbit, mbit, gbit)", microddp::UsageError);
  }

  TEST_CASE("bad lab keys give file:line:column and what was expected") {
    struct Case {
      std::string body, message;
    };
    const Case cases[] = {
        {"  - {kind: lab, text: x, lab: {nodez: 2}}\n",
         "m.yaml:5:32: unknown key 'nodez' in lab (expected one of: nodes, ranks_per_node, nic, collective, "
         "algorithms, bytes, iters)"},
        {"  - {kind: lab, text: x, lab: {nic: fast}}\n",
         "m.yaml:5:37: 'nic' must be a rate such as 100mbit (units: kbit, mbit, gbit); got 'fast'"},
        {"  - {kind: lab, text: x, lab: {nic: 200gbit}}\n", "m.yaml:5:37: 'nic' must be between 1mbit and 100gbit, got '200gbit'"},
        {"  - {kind: lab, text: x, lab: {bytes: 6}}\n",
         "m.yaml:5:39: 'bytes' must be a multiple of 4 from 4 to 64M (K, M = powers of 1024); got '6'"},
        {"  - {kind: lab, text: x, lab: {nodes: 9}}\n", "m.yaml:5:39: 'nodes' must be"},
        {"  - {kind: lab, text: x, lab: {algorithms: [nope]}}\n", "m.yaml:5:31: this lab run cannot run nope: "},
        {"  - {kind: lab, text: x, at: end}\n", "m.yaml:5:26: unknown key 'at' in a lab beat (expected one of: kind, "
                                                  "name, lab, text, question, checks, minutes, optional, view, compare)"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_algorithm: ring, greater_than: 2}]}\n",
         "m.yaml:5:75: 'over_algorithm' is the same as 'algorithm': the ratio would be 1"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_run: a, greater_than: 2}]}\n",
         "m.yaml:5:69: 'over_run' must name an earlier lab beat (named so far: none); got 'a'"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, over_algorithm: tree}]}\n",
         "m.yaml:5:68: a 'measured_ratio' check needs 'greater_than: X' and/or 'less_than: Y'"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_algorithm: tree, greater_than: 2}]}\n",
         "m.yaml:5:75: 'over_algorithm' must be one of the lab run's algorithms (ring); got 'tree'"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, greater_than: 2, less_than: 1}]}\n",
         "m.yaml:5:142: 'less_than' (1) must be above 'greater_than' (2)"},
        // A ratio of times is above 0: a bound at or below 0 always passes (or never).
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, greater_than: -1}]}\n",
         "m.yaml:5:128: 'greater_than' must be above 0; got -1"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, greater_than: 0}]}\n",
         "m.yaml:5:128: 'greater_than' must be above 0; got 0"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, less_than: 0}]}\n",
         "m.yaml:5:125: 'less_than' must be above 0; got 0"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, less_than: .inf}]}\n",
         "m.yaml:5:125: 'less_than' must be a number, got '.inf'"},
        {"  - {kind: lab, text: x, checks: [{check: steps, equals: 2}]}\n",
         "m.yaml:5:43: a 'steps' check belongs in a collective beat (kind: collective); this is a lab beat (its "
         "checks: measured_ratio)"},
        {"  - {text: x, checks: [{check: measured_ratio, over_algorithm: ring, greater_than: 2}]}\n",
         "m.yaml:5:32: a 'measured_ratio' check belongs in a lab beat (kind: lab)"},
    };
    for (const Case& c : cases) {
      std::string got = "(no error)";
      try {
        parse_lesson(std::string(kHead) + c.body, "m.yaml");
      } catch (const LessonError& x) {
        got = x.what();
      }
      INFO("input: ", c.body, "\n  want: ", c.message, "\n  got:  ", got);
      CHECK(got.rfind(c.message, 0) == 0);
    }
  }

  TEST_CASE("skip path: without the lab every lab check is skipped, not failed; a failed lab run fails them") {
    const Lesson l = parse_lesson(std::string(kHead) +
                                      "  - {kind: lab, name: two, lab: {nodes: 2}, text: x}\n"
                                      "  - kind: lab\n"
                                      "    lab: {nodes: 4}\n"
                                      "    text: y\n"
                                      "    checks: [{check: measured_ratio, over_run: two, greater_than: 1.2, less_than: 2}]\n"
                                      "  - kind: lab\n"
                                      "    lab: {nodes: 2, ranks_per_node: 4, algorithms: [ring, hierarchical]}\n"
                                      "    text: z\n"
                                      "    checks: [{check: measured_ratio, over_algorithm: hierarchical, greater_than: 1.3}]\n",
                                  "m.yaml");
    REQUIRE(l.beats.size() == 3);
    const Beat& four = l.beats[1];
    const Beat& hier = l.beats[2];
    // No runner (the window, the test suite): skipped, saying why.
    for (const Beat* b : {&four, &hier}) {
      const auto r = evaluate(*b);
      REQUIRE(r.size() == 1);
      CHECK(r[0].skipped);
      CHECK_FALSE(r[0].pass);
      CHECK(r[0].actual == "skipped: this viewer does not start the cluster lab");
    }
    // A runner that says the lab cannot run here (microddp cluster's exit 2).
    const LabRunner unavailable = [](const LabRequest&) {
      LabRun r;
      r.reason = "cluster lab: needs root or unprivileged user namespaces";
      return r;
    };
    std::map<std::string, LabRun> runs{{"two", run_lab(unavailable, l.beats[0].lab)}};
    auto r = evaluate(hier, run_lab(unavailable, hier.lab), runs);
    CHECK(r.at(0).skipped);
    CHECK(r[0].actual == "skipped: cluster lab: needs root or unprivileged user namespaces");
    // This run made, the one it compares with not: still skipped.
    const LabRunner fake = [](const LabRequest& q) {
      LabRun r;
      r.status = LabRun::Status::ok;
      for (const auto& a : q.algorithms)
        // ring: 0.45 s on 2 × 1, 0.65 s on 4 × 1, 0.7 s on 2 × 4; hierarchical 0.4 s.
        r.rows.push_back({a, a == "hierarchical" ? 0.4 : 0.25 + 0.1 * q.nodes + (q.ranks_per_node > 1 ? 0.25 : 0), 0, 0});
      return r;
    };
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK(r.at(0).skipped);
    CHECK(r[0].actual == "skipped: run 'two': cluster lab: needs root or unprivileged user namespaces");
    // Both made: decided on the medians, the model's ratio beside them.
    runs["two"] = run_lab(fake, l.beats[0].lab);
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK_FALSE(r.at(0).skipped);
    CHECK(r[0].pass);
    CHECK(r[0].what == "measured ring on 4×1 over ring in run 'two'");
    CHECK(r[0].expected == "between 1.2 and 2");
    CHECK(r[0].actual.rfind("1.44 (0.650 s / 0.450 s, medians; model 1.5", 0) == 0);
    r = evaluate(hier, run_lab(fake, hier.lab), runs);
    CHECK(r.at(0).pass);
    CHECK(r[0].actual.rfind("1.75 (0.700 s / 0.400 s, medians; model 1.7", 0) == 0);
    // The same medians against a bound they miss.
    runs["two"].rows[0].seconds = 0.3;
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK_FALSE(r.at(0).pass);
    CHECK_FALSE(r[0].skipped);
    CHECK(r[0].actual.rfind("2.17 (0.650 s / 0.300 s", 0) == 0);
    // A run that broke is a failure, not a skip.
    const LabRunner throws = [](const LabRequest&) -> LabRun { throw std::runtime_error("mpirun: rank 3 died"); };
    r = evaluate(hier, run_lab(throws, hier.lab), runs);
    CHECK_FALSE(r.at(0).skipped);
    CHECK_FALSE(r[0].pass);
    CHECK(r[0].actual == "the lab run failed: mpirun: rank 3 died");
  }

  TEST_CASE("measured_ratio: a ratio that is not finite (1e302 s over 1e-303 s) fails, naming the times") {
    const Lesson l = parse_lesson(std::string(kHead) +
                                      "  - {kind: lab, lab: {algorithms: [ring, tree]}, text: x, checks: "
                                      "[{check: measured_ratio, over_algorithm: tree, greater_than: 10}]}\n",
                                  "m.yaml");
    LabRun run;
    run.status = LabRun::Status::ok;
    run.request = l.beats[0].lab;
    run.rows = {{"ring", 1e302, 0, 0}, {"tree", 1e-303, 0, 0}};
    const auto r = evaluate(l.beats[0], run, {});
    REQUIRE(r.size() == 1);
    CHECK_FALSE(r[0].pass);
    CHECK_FALSE(r[0].skipped);
    CHECK(r[0].actual == "not a ratio: 1e+302 s / 1e-303 s = inf");
    // Finite times, the same bound: decided as before.
    run.rows = {{"ring", 2.0, 0, 0}, {"tree", 0.1, 0, 0}};
    CHECK(evaluate(l.beats[0], run, {}).at(0).pass);
  }
}
