// The bytes line under a beat stopped before its last step names the whole
// run's busiest rank too (beat_bytes.h), so that lesson 03 beat 1's answer
// slide reads "Answer: 672" beside "whole run: R0 336 + 336 = 672", not
// only "R0 0 + 336" at the step shown (issue 37).
#include <doctest/doctest.h>

#include <string>

#include "app/viz/beat_bytes.h"
#include "app/viz/lesson_view.h"
#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("beat_bytes_whole") {
  TEST_CASE("lesson 03 beat 1 (naive, 6 of 12 steps): the whole run's R0 336 + 336 = 672") {
    const lesson::Lesson l = lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/03-naive-tree-ring.yaml");
    const BeatTarget t = beat_target(l.beats[0]);
    CHECK(t.note_bytes ==
          "Bytes per rank after 6 of 12 steps, sent + received: R0 0 + 336, R1 56 + 0, R2 56 + 0, R3 56 + 0, "
          "R4 56 + 0, R5 56 + 0, R6 56 + 0; whole run: R0 336 + 336 = 672");
    const lesson::Prepared p = lesson::prepare(l.beats[0].setup);
    CHECK(whole_run_line(p.schedule, 4, 4) == "whole run: R4 56 + 56 = 112");
    CHECK(whole_run_line(p.schedule, 0, 4) == "whole run: R0 336 + 336 = 672");
    // At the end of a run the line says nothing more (tree, 4 of 4 steps).
    const BeatTarget tree = beat_target(l.beats[1]);
    CHECK(tree.note_bytes.find("whole run") == std::string::npos);
    CHECK(bytes_line(p.schedule, 12, 4) ==
          "Bytes per rank after 12 of 12 steps, sent + received: R0 336 + 336, R1 56 + 56, R2 56 + 56, R3 56 + 56, "
          "R4 56 + 56, R5 56 + 56, R6 56 + 56");
  }
}
