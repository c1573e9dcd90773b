// Lab beats in the window (lab_recorded.h, size_bars.h) and the bytes per
// rank under a beat (beat_bytes.h): lesson 09's recorded lab runs with the
// ratios their checks ask, the loader's check that a recorded file is the
// beat's own request, and lesson 03's bytes at the step shown. Exact values
// from the recorded files in lessons/data (2026-12-07, AMD EPYC, 2 vCPUs).
#include <doctest/doctest.h>

#include <string>

#include "app/viz/beat_bytes.h"
#include "app/viz/lab_recorded.h"
#include "app/viz/lesson_view.h"
#include "core/ir/types.h"
#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
const std::string kDir = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";
const lesson::Lesson& lesson09() {
  static const lesson::Lesson l = lesson::load_lesson(kDir + "09-topology.yaml");
  return l;
}
bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
}  // namespace

TEST_SUITE("lesson_lab_recorded") {
  TEST_CASE("lesson 09's lab beats show their recorded runs") {
    const auto& l = lesson09();
    REQUIRE(l.beats.size() >= 15);
    for (int i : {11, 12, 13, 14}) {
      const auto& b = l.beats[size_t(i)];
      REQUIRE(b.kind == lesson::Beat::Kind::lab);
      CHECK(b.view.kind == lesson::BeatView::Kind::compare);
      CHECK(b.view.source == "recorded");
      REQUIRE(beat_record(b));
    }
    const LabRecord r = *beat_record(l.beats[12]);
    CHECK(r.nodes == 2);
    CHECK(r.ranks_per_node == 1);
    CHECK(r.nic == "100mbit");
    CHECK(r.date == "2026-12-07");
    const lesson::LabRun run = recorded_lab_run(r, l.beats[12].lab);
    CHECK(run.status == lesson::LabRun::Status::ok);
    REQUIRE(run.rows.size() == 1);
    CHECK(run.rows[0].algorithm == "ring");
    CHECK(run.rows[0].seconds == doctest::Approx(0.358263644).epsilon(1e-9));
    CHECK(run.rows[0].p10 == doctest::Approx(0.356017077).epsilon(1e-9));
    // A size the record does not hold: unavailable, naming the file.
    lesson::LabRequest q = l.beats[12].lab;
    q.bytes = 1024;
    const lesson::LabRun none = recorded_lab_run(r, q);
    CHECK(none.status == lesson::LabRun::Status::unavailable);
    CHECK(none.reason.find("has no row of ring at 1024 bytes") != std::string::npos);
  }

  TEST_CASE("the checks run on the recorded runs, across beats") {
    const auto& l = lesson09();
    const auto two = evaluate_recorded(l, 12);  // over run 'one_node' (beat 12)
    REQUIRE(two.size() == 1);
    CHECK(two[0].pass);
    CHECK_FALSE(two[0].skipped);
    CHECK(two[0].what == "recorded 2026-12-07: measured ring on 2×1 over ring in run 'one_node'");
    CHECK(starts(two[0].actual, "288.99 (0.358 s / 0.001 s, medians"));
    const auto four = evaluate_recorded(l, 13);  // over run 'two_nodes'
    REQUIRE(four.size() == 1);
    CHECK(four[0].pass);
    CHECK(starts(four[0].actual, "1.52 (0.544 s / 0.358 s"));
    const auto hier = evaluate_recorded(l, 14);
    REQUIRE(hier.size() == 1);
    CHECK(hier[0].pass);
    CHECK(starts(hier[0].actual, "1.70 (0.657 s / 0.386 s"));
  }

  TEST_CASE("the note names the source and the ratio the check asks") {
    const auto& l = lesson09();
    CHECK(recorded_note(l, 14) ==
          "RECORDED cluster lab run, 2026-12-07, AMD EPYC, 2 vCPUs (lscpu): 2 nodes x 4 ranks, NIC 100mbit, 4 MiB per "
          "rank, median of 5: ring 657 ms, p10-p90 639 ms to 664 ms; hierarchical 386 ms, p10-p90 374 ms to 403 ms; "
          "ring / hierarchical (386 ms) = 1.70, the check: > 1.3");
    CHECK(recorded_note(l, 12).find("; ring / ring in run 'one_node' (1.24 ms) = 288.99, the check: > 10") !=
          std::string::npos);
    CHECK(recorded_note(l, 0) == "");  // a collective beat
  }

  TEST_CASE("the runs a check compares with, beside the beat's own") {
    const auto& l = lesson09();
    const auto c = compared_run_curves(l, 12);
    REQUIRE(c.size() == 1);
    CHECK(c[0].algorithm == "ring, run 'one_node' (1 node x 2 ranks)");
    REQUIRE(c[0].bytes.size() == 1);
    CHECK(c[0].bytes[0] == 4194304.0);
    CHECK(c[0].measured_us[0] == doctest::Approx(1239.73));
    CHECK(compared_run_curves(l, 14).empty());  // ring over hierarchical in the same run
    CHECK(compared_run_curves(l, 11).empty());  // no check
  }

  TEST_CASE("beat target: the lab's algorithms in Compare, the note says recorded") {
    const auto& l = lesson09();
    const BeatTarget t = beat_target(l.beats[14]);
    CHECK(t.view.kind == lesson::BeatView::Kind::compare);
    CHECK(t.view.algorithms == std::vector<std::string>{"ring", "hierarchical"});
    CHECK(starts(t.note, "RECORDED cluster lab run: "));
    CHECK(t.note.find("stand-in") == std::string::npos);
    CHECK(t.params.spec.world_size == 8);
    // Lesson 03's last beat: the live lab in Compare, one size.
    const lesson::Lesson l3 = lesson::load_lesson(kDir + "03-naive-tree-ring.yaml");
    const auto& b = l3.beats.back();
    REQUIRE(b.kind == lesson::Beat::Kind::lab);
    CHECK(b.view.source == "lab");
    CHECK(b.view.min_bytes == 16 << 20);
    CHECK(b.view.max_bytes == 16 << 20);
    const BeatTarget t3 = beat_target(b);
    CHECK(starts(t3.note, "the Compare view starts this beat's cluster lab now (8 nodes x 1 rank, NIC 1gbit)"));
  }

  TEST_CASE("a recorded file must be the lab beat's own run") {
    const std::string head = "title: t\nsummary: s\nlab: {nic: 100mbit, bytes: 4M, iters: 5}\n"
                             "setup: {collective: all_reduce, algorithm: ring, ranks: 2, count: 4}\nbeats:\n";
    const std::string file = kDir + "x.yaml";  // resolves data/... against lessons/
    auto lab = [&](const std::string& lab, const std::string& compare) {
      return head + "  - kind: lab\n    lab: " + lab + "\n    view: compare\n    compare: " + compare + "\n    text: t\n";
    };
    CHECK_NOTHROW(lesson::parse_lesson(
        lab("{nodes: 2, ranks_per_node: 1}", "{source: recorded, file: data/lab-allreduce-2x1-100mbit.json}"), file));
    CHECK_THROWS_WITH_AS(
        lesson::parse_lesson(lab("{nodes: 4, ranks_per_node: 1}",
                                 "{source: recorded, file: data/lab-allreduce-2x1-100mbit.json}"),
                             file),
        doctest::Contains("lab-allreduce-2x1-100mbit.json has nodes 2, this lab beat 4"), UsageError);
    CHECK_THROWS_WITH_AS(
        lesson::parse_lesson(lab("{nodes: 2, ranks_per_node: 1, algorithms: [ring, tree]}",
                                 "{source: recorded, file: data/lab-allreduce-2x1-100mbit.json}"),
                             file),
        doctest::Contains("has no row of tree at 4194304 bytes"), UsageError);
    // The note says "median of <iters>": a file of 5 timed iterations under a beat of 20 is refused, naming both.
    CHECK_THROWS_WITH_AS(
        lesson::parse_lesson(lab("{nodes: 2, ranks_per_node: 1, iters: 20}",
                                 "{source: recorded, file: data/lab-allreduce-2x1-100mbit.json}"),
                             file),
        doctest::Contains("lab-allreduce-2x1-100mbit.json is the median of 5 timed iterations (rows[0].samples), this "
                          "lab beat's iters 20: give iters: 5 or record the run again with -n 20"),
        UsageError);
    CHECK_THROWS_WITH_AS(
        lesson::parse_lesson(lab("{nodes: 2, ranks_per_node: 4}", "{source: lab}"), file),
        doctest::Contains("this lab beat has 4 ranks a node (use 'source: recorded')"), UsageError);
    CHECK_THROWS_WITH_AS(lesson::parse_lesson(lab("{nodes: 2, ranks_per_node: 1}", "{source: shm}"), file),
                         doctest::Contains("needs 'source: recorded' with its 'file', or 'source: lab'"), UsageError);
  }

  TEST_CASE("the live lab's CPU-busy warning goes to the Compare view's note") {
    CHECK(lab_busy_warning("cluster: NIC check node0 -> node1 (93 %)\n# warning: the CPUs were 87% busy with other "
                           "work before this run; the times below are disturbed\n{\"algorithm\": \"ring\"}\n") ==
          "warning: the CPUs were 87% busy with other work before this run; the times below are disturbed");
    CHECK(lab_busy_warning("# single-thread memcpy bandwidth: 9 GB/s\n{\"algorithm\": \"ring\"}\n").empty());
  }

  TEST_CASE("bytes per rank at the step shown: lesson 03's naive, tree and ring") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "03-naive-tree-ring.yaml");
    const BeatTarget naive = beat_target(l.beats[0]);
    CHECK(naive.position == 6);
    CHECK(naive.note.find("Bytes per rank after 6 of 12 steps, sent + received: R0 0 + 336, R1 56 + 0, R2 56 + 0, "
                          "R3 56 + 0, R4 56 + 0, R5 56 + 0, R6 56 + 0") != std::string::npos);
    const BeatTarget tree = beat_target(l.beats[1]);
    CHECK(tree.note == "Bytes per rank after 4 of 4 steps, sent + received: R0 112 + 112, R1 168 + 168, "
                       "R2 168 + 168, R3 56 + 56, R4 56 + 56, R5 56 + 56, R6 56 + 56");
    const BeatTarget ring = beat_target(l.beats[2]);
    CHECK(ring.note == "Bytes per rank after 12 of 12 steps, sent + received: R0 96 + 96, R1 96 + 96, R2 96 + 96, "
                       "R3 96 + 96, R4 96 + 96, R5 96 + 96, R6 96 + 96");
    // The whole naive run: rank 0 moves 2 (n-1) S, the bytes check's 672.
    const lesson::Prepared p = lesson::prepare(l.beats[0].setup);
    const RankBytes all = rank_bytes(p.schedule, p.schedule.num_steps(), 4);
    CHECK(all.sent[0] + all.received[0] == 672);
    CHECK(all.sent[4] + all.received[4] == 112);
    CHECK(rank_bytes(p.schedule, 0, 4).sent[1] == 0);
  }

  TEST_CASE("the live lab's rows in Compare check lesson 03's last beat") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "03-naive-tree-ring.yaml");
    const auto& b = l.beats.back();
    auto curve = [](const std::string& a, double us) {
      SweepCurve c;
      c.algorithm = a;
      c.bytes = {double(16 << 20)};
      c.measured_us = {us};
      c.p10_us = {us * 0.9};
      c.p90_us = {us * 1.1};
      return c;
    };
    std::vector<SweepCurve> sweep = {curve("naive", 2090000), curve("tree", 1490000)};
    CHECK_FALSE(live_lab_run(sweep, b.lab));  // ring not in yet
    sweep.push_back(curve("ring", 469000));
    const auto run = live_lab_run(sweep, b.lab);
    REQUIRE(run);
    REQUIRE(run->rows.size() == 3);
    CHECK(run->rows[2].seconds == doctest::Approx(0.469));
    CHECK(run->rows[2].p90 == doctest::Approx(0.5159));
    const auto rs = evaluate_live(b, *run);
    REQUIRE(rs.size() == 2);
    CHECK(rs[0].pass);
    CHECK(rs[0].what == "measured now in the cluster lab: measured tree over ring");
    CHECK(starts(rs[0].actual, "3.18 (1.490 s / 0.469 s, medians"));
    CHECK(rs[1].pass);
    CHECK(starts(rs[1].actual, "4.46 (2.090 s / 0.469 s"));
    sweep[2].measured_us = {1400000};  // a ring as slow as the tree: the check fails
    const auto slow = evaluate_live(b, *live_lab_run(sweep, b.lab));
    CHECK_FALSE(slow[0].pass);
  }
}
