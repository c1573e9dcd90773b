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

  TEST_CASE("no later question's answer in a beat's whole-run bytes: lesson 02 beat 2 drops it, lesson 03 beat 1 keeps it") {
    const auto later_of = [](const lesson::Lesson& l, size_t i) {
      std::vector<const lesson::Beat*> v;
      for (size_t k = i + 1; k < l.beats.size(); ++k) v.push_back(&l.beats[k]);
      return v;
    };
    const lesson::Lesson l02 = lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml");
    const BeatTarget b2 = beat_target(l02.beats[1]);
    REQUIRE(b2.note_bytes ==
            "Bytes per rank after 1 of 2 steps, sent + received: R0 12 + 12, R1 12 + 12, R2 12 + 12; whole run: R0 24 + 24 = 48");
    // Beat 4 asks "How many bytes does each rank send in this run?" (24).
    CHECK(without_later_answer(b2.note_bytes, later_of(l02, 1)) ==
          "Bytes per rank after 1 of 2 steps, sent + received: R0 12 + 12, R1 12 + 12, R2 12 + 12");
    const lesson::Lesson l03 = lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/03-naive-tree-ring.yaml");
    const BeatTarget b1 = beat_target(l03.beats[0]);
    CHECK(without_later_answer(b1.note_bytes, later_of(l03, 0)) == b1.note_bytes);
    // A later question answered by the sum, or a choice question (no number): kept / dropped as its figures say.
    lesson::Beat q;
    q.question = lesson::Question{};
    q.question->value = 672;
    CHECK(without_later_answer(b1.note_bytes, {&q}).find("whole run") == std::string::npos);
    q.question->choices = {"a", "b"};
    CHECK(without_later_answer(b1.note_bytes, {&q}) == b1.note_bytes);
    CHECK(without_later_answer("no whole run here", {&q}) == "no whole run here");
  }
}
