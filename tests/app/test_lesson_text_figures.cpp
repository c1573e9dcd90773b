// The lesson text says what its slide shows (issue 37): lesson 09's ring
// time beside its question, the recorded lab runs' own figures (1.24 ms for
// 4 MiB on one host, 289x between hosts) and who runs the lab; lesson 08's
// flight-recorder entry as the hang view prints it.
#include <doctest/doctest.h>

#include <string>

#include "app/viz/lab_recorded.h"
#include "app/viz/lesson_view.h"
#include "core/labs/lesson/lesson.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
const std::string kDir = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";
bool has(const std::string& s, const std::string& p) { return s.find(p) != std::string::npos; }
}  // namespace

TEST_SUITE("lesson_text_figures") {
  TEST_CASE("lesson 09: the figures in the text are the slide's") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "09-topology.yaml");
    const auto text = [&](int beat) { return l.beats.at(size_t(beat - 1)).text; };
    CHECK(has(text(4), "The flat ring's predicted time here: 75.1 ms."));
    CHECK(has(text(11), "The window shows the same runs recorded on 2026-12-07."));
    CHECK_FALSE(has(text(11), "start the lab themselves"));
    CHECK(has(text(12), "1.24 ms for 4 MiB, about 3.4 GB/s on an idle 2-core machine"));
    CHECK_FALSE(has(text(12), "busy"));
    CHECK(has(text(13), "the shared-memory run took 1.24 ms. The recorded ratio\nis about 290×: two link classes more than two orders of magnitude"));
    // The recorded runs say the same: 1.24 ms one host, 288.99x between two.
    CHECK(has(recorded_note(l, 12), "ring / ring in run 'one_node' (1.24 ms) = 288.99 (check: > 10)"));
  }

  TEST_CASE("lesson 08 beat 2 reads the recorder as the window prints it") {
    // The question quotes the entry (the text no longer answers it).
    const lesson::Lesson l = lesson::load_lesson(kDir + "08-hunt-the-hang.yaml");
    REQUIRE(l.beats.at(1).question);
    CHECK(has(l.beats.at(1).question->ask, "Every flight recorder ends \"#1 all_reduce 512 failed\"."));
    CHECK_FALSE(has(l.beats.at(1).text, "completed #0"));
  }

  TEST_CASE("lesson 05 beat 2's stand-in note gives the beat's size in MiB with its bytes") {
    LessonView L(lesson::load_lesson(kDir + "05-alpha-beta.yaml"));
    L.go(1);
    const BeatTarget t = beat_target(L.current());
    INFO(t.note);
    CHECK(has(t.note, "the beat's 250000000 elements per rank, 953.7 MiB (1000000000 B), are too large to run here"));
  }
}
