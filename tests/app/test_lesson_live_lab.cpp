// The window's live lab on a lab beat (`compare: {source: lab}`, lesson 03's
// last lab beat): it runs with the beat's NIC and iterations, its checks
// read only a sweep of that lab, and the loader refuses a beat the window
// cannot run (a size outside 4 KiB..16 MiB or off the sweep's points, a
// recorded beat's compare algorithm missing from its file).
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "app/viz/compare_sources.h"
#include "app/viz/lab_recorded.h"
#include "app/viz/lesson_view.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
const std::string kDir = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";

std::string lab_lesson(const std::string& lab, const std::string& compare) {
  return "title: t\nsetup: {ranks: 4, count: 4}\nbeats:\n  - kind: lab\n    lab: " + lab +
         "\n    view: compare\n    compare: " + compare + "\n    text: \"x\"\n";
}

std::string load_error(const std::string& text) {
  try {
    (void)lesson::parse_lesson(text, "l.yaml");
  } catch (const lesson::LessonError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_SUITE("lesson_live_lab") {
  TEST_CASE("a live lab beat runs with its NIC and iterations") {
    const lesson::Lesson l = lesson::parse_lesson(
        lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 100mbit, algorithms: [ring, tree], bytes: 4M, iters: 3}",
                   "{source: lab, sizes: {min: 4M, max: 4M}}"),
        "l.yaml");
    const SourceSpec s = beat_source(l.beats.at(0));
    CHECK(s.kind == SweepSource::lab);
    CHECK(s.nic == "100mbit");
    CHECK(s.iters == 3);
    CHECK(is_beats_live_lab(s, l.beats[0]));
    // The default lab source (1gbit, 5 iterations) is not this beat's lab.
    SourceSpec other;
    other.kind = SweepSource::lab;
    CHECK_FALSE(is_beats_live_lab(other, l.beats[0]));
    other.nic = "100mbit";
    CHECK_FALSE(is_beats_live_lab(other, l.beats[0]));  // 5 iterations, the beat asks 3
    other.iters = 3;
    CHECK(is_beats_live_lab(other, l.beats[0]));
    // A shared-memory or recorded sweep never gives the lab's checks their run.
    SourceSpec shm = s;
    shm.kind = SweepSource::shm;
    CHECK_FALSE(is_beats_live_lab(shm, l.beats[0]));
    SourceSpec rec = s;
    rec.kind = SweepSource::recorded;
    CHECK_FALSE(is_beats_live_lab(rec, l.beats[0]));
    // The command the window starts: NIC 100mbit, -n 3.
    const auto argv = lab_command(Collective::all_reduce, 4, s.nic, {"ring", "tree"}, 4 << 20, 4 << 20, s.iters);
    REQUIRE(argv.size() == 25);
    CHECK(argv[1] == "cluster");
    CHECK(argv[5] == "100mbit");
    CHECK(argv[17] == "4194304");
    CHECK(argv[15] == "4194304");
    CHECK(argv[20] == "-n");
    CHECK(argv[21] == "3");
  }

  TEST_CASE("lesson 03's live lab beat: NIC 1gbit, 3 iterations, 16 MiB") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "03-naive-tree-ring.yaml");
    const auto it = std::find_if(l.beats.begin(), l.beats.end(), [](const lesson::Beat& b) {
      return b.kind == lesson::Beat::Kind::lab && b.view.source == "lab";
    });
    REQUIRE(it != l.beats.end());
    CHECK(it - l.beats.begin() == 10);  // beat 11
    const SourceSpec s = beat_source(*it);
    CHECK(s.nic == "1gbit");
    CHECK(s.iters == 3);
    CHECK(it->lab.bytes == 16 << 20);
  }

  TEST_CASE("a non-lab compare beat keeps the default lab settings") {
    lesson::Beat b;
    b.kind = lesson::Beat::Kind::collective;
    b.view.source = "lab";
    b.lab.nic = "100mbit";
    const SourceSpec s = beat_source(b);
    CHECK(s.kind == SweepSource::lab);
    CHECK(s.nic == "1gbit");
    CHECK(s.iters == 5);
    CHECK_FALSE(is_beats_live_lab(s, b));
  }

  TEST_CASE("the loader refuses a live lab beat the window cannot run") {
    CHECK(load_error(lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 1gbit, algorithms: [naive, tree, ring], bytes: 64M}",
                                "{source: lab, sizes: {min: 4K, max: 64M}}")) ==
          "l.yaml:7:14: the window's live lab runs 4096 to 16777216 bytes (4 KiB to 16 MiB); this lab beat's bytes "
          "are 67108864 (use 'source: recorded' with a recorded run)");
    CHECK(load_error(lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 1gbit, algorithms: [ring, tree], bytes: 4M}",
                                "{source: lab, sizes: {min: 16M, max: 64M}}")) ==
          "l.yaml:7:14: the window's live lab measures sizes 16777216, 4x, ... up to 16777216 bytes; this lab beat's "
          "bytes 4194304 are not one of them (set compare's sizes so that min x 4^k = 4194304)");
    // 3 MiB is not 4 KiB x 4^k.
    CHECK(load_error(lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 1gbit, algorithms: [ring], bytes: 3M}",
                                "{source: lab, sizes: {min: 4K, max: 16M}}")) ==
          "l.yaml:7:14: the window's live lab measures sizes 4096, 4x, ... up to 16777216 bytes; this lab beat's "
          "bytes 3145728 are not one of them (set compare's sizes so that min x 4^k = 3145728)");
    // On the sweep's points: loads.
    CHECK(load_error(lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 1gbit, algorithms: [ring], bytes: 4M}",
                                "{source: lab, sizes: {min: 4K, max: 16M}}")) == "");
    CHECK(load_error(lab_lesson("{nodes: 4, ranks_per_node: 1, nic: 1gbit, algorithms: [ring], bytes: 16M}",
                                "{source: lab, sizes: {min: 16M, max: 16M}}")) == "");
  }

  TEST_CASE("the loader refuses a recorded beat's compare algorithm the file lacks") {
    const std::string file = std::string(MICRODDP_SOURCE_DIR) + "/lessons/data/lab-allreduce-2x1-100mbit.json";
    CHECK(load_error(lab_lesson("{nodes: 2, ranks_per_node: 1, nic: 100mbit, algorithms: [ring], bytes: 4M}",
                                "{source: recorded, algorithms: [ring, naive], file: " + file + "}")) ==
          "l.yaml:7:14: recorded run " + file + " has no rows of naive (compare's algorithms); it holds ring");
    CHECK(load_error(lab_lesson("{nodes: 2, ranks_per_node: 1, nic: 100mbit, algorithms: [ring], bytes: 4M}",
                                "{source: recorded, algorithms: [ring], file: " + file + "}")) == "");
  }
}

TEST_SUITE("lesson_live_lab") {
  TEST_CASE("a live lab beat's checks before the rows: waiting while the lab runs, stopped when the view is left, run again when Compare is shown") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "03-naive-tree-ring.yaml");
    const lesson::Beat& b = l.beats.at(10);
    REQUIRE(b.kind == lesson::Beat::Kind::lab);
    REQUIRE(b.view.source == "lab");
    REQUIRE_FALSE(b.checks.empty());
    // The lines, pure.
    for (const auto& r : live_lab_pending(b, LiveLab::running)) {
      CHECK(r.skipped);
      CHECK_FALSE(r.pass);
      CHECK(r.actual == "waiting for the lab run (the Compare view runs it now)");
    }
    CHECK(live_lab_pending(b, LiveLab::stopped).at(0).actual ==
          "the lab run was stopped when the Compare view was left; it runs again when Compare is shown");
    CHECK(live_lab_pending(b, LiveLab::ended, "mpirun: not found").at(0).actual ==
          "the cluster lab gave no rows for this beat: mpirun: not found");

    // In the window (no real lab: a stand-in job that sleeps).
    test::Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kDir + "03-naive-tree-ring.yaml"));
    app.lesson->go(10);
    for (int i = 0; i < 4; ++i) h.frame(app);
    REQUIRE(app.vs.view == View::compare);
    REQUIRE(is_beats_live_lab(app.compare.sweep_source, b));
    app.compare.start_lab_job({"sleep", "30"});
    const auto first_actual = [&]() -> std::string {
      for (int i = 0; i < 200 && !app.lesson->results(); ++i) h.frame(app);  // the checks run in the background
      const auto* rs = app.lesson->results();
      return rs && !rs->empty() ? rs->front().actual : "(no results)";
    };
    h.frame(app);
    CHECK(first_actual() == "waiting for the lab run (the Compare view runs it now)");
    // Step-through: the lab is stopped, and the checks say so.
    app.vs.view = View::main;
    h.frame(app);
    h.frame(app);
    CHECK_FALSE(app.compare.lab_running());
    CHECK(app.compare.lab_stopped());
    CHECK(first_actual() == "the lab run was stopped when the Compare view was left; it runs again when Compare is shown");
    // Compare again: the beat's lab runs anew (here it cannot: no microddp
    // beside the test binary, so it ends at once; it is not left stopped).
    app.vs.view = View::compare;
    h.frame(app);
    CHECK_FALSE(app.compare.lab_stopped());
    CHECK(app.compare.source_label.find("stopped") == std::string::npos);
    CHECK(first_actual() != "the lab run was stopped when the Compare view was left; it runs again when Compare is shown");
  }
}
