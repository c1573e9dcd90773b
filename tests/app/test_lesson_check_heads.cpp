// A slide's checks (panel_lesson.cpp via lesson_view.h): the heading names
// what the checks read (lesson 03 beat 10 and lesson 05 beat 7 a recorded
// lab run, lesson 09 beat 16 the model, beat 17 a published table), and a
// timing check the runs did not decide is "not shown on this run", not a lab
// check that did not run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/viz/lesson_view.h"
#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
const std::string kDir = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";
std::string heading(const std::string& file, int beat) {  // beat: 1-based, as on screen
  const lesson::Lesson l = lesson::load_lesson(kDir + file);
  return checks_heading(l.beats.at(size_t(beat - 1)));
}
lesson::CheckResult result(bool pass, bool skipped, bool not_shown) {
  lesson::CheckResult r;
  r.pass = pass;
  r.skipped = skipped;
  r.not_shown = not_shown;
  return r;
}
}  // namespace

TEST_SUITE("lesson_check_heads") {
  TEST_CASE("each beat's checks are headed by what they read") {
    CHECK(heading("03-naive-tree-ring.yaml", 10) == "Checks (recorded run)");
    CHECK(heading("05-alpha-beta.yaml", 7) == "Checks (recorded run)");
    CHECK(heading("09-topology.yaml", 16) == "Checks (model)");
    CHECK(heading("09-topology.yaml", 17) == "Checks (published table)");
    CHECK(heading("09-topology.yaml", 13) == "Checks (recorded run)");  // a recorded lab beat, measured_ratio
    CHECK(heading("02-ring-double-buffering.yaml", 3) == "Checks (real run)");
    CHECK(heading("09-topology.yaml", 10) == "Checks (model)");              // predicted, ratio
    CHECK(heading("09-topology.yaml", 1) == "Checks (real run, model)");     // predicted, nic_bytes
  }

  TEST_CASE("a beat without checks of a known source is a real run") {
    lesson::Beat b;
    CHECK(checks_heading(b) == "Checks (real run)");
  }

  TEST_CASE("--present folds: not shown apart from lab checks not run") {
    const PresentCheckFolds a = present_check_folds({result(true, false, false), result(false, true, true)});
    CHECK(a.pass == "\u2713 1 check passes");
    CHECK(a.not_shown == "\u2013 1 not shown on this run (the runs did not decide)");
    CHECK(a.lab == "");
    const PresentCheckFolds b = present_check_folds({result(true, false, false), result(true, false, false),
                                                     result(false, false, false), result(false, true, false),
                                                     result(false, true, false), result(false, true, true),
                                                     result(false, true, true), result(false, true, true)});
    CHECK(b.pass == "\u2713 2 other checks pass");
    CHECK(b.not_shown == "\u2013 3 not shown on this run (the runs did not decide)");
    CHECK(b.lab == "\u2013 2 lab checks not run here");
    const PresentCheckFolds c = present_check_folds({result(false, true, false)});
    CHECK(c.pass == "");
    CHECK(c.not_shown == "");
    CHECK(c.lab == "\u2013 1 lab check not run here");
  }
}
