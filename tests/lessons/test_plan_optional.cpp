// Optional beats in the lecture plan (`optional: true`, plan.h): the key's
// parsing and its located error, the plan's "(optional)" mark and its total
// without them, lesson 03's short version, and the sum of several lessons.
#include <doctest/doctest.h>

#include <string>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/plan.h"

using namespace microddp::lesson;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";

// Three beats of 3, 2 and 4 minutes; the second says `optional: OPT`
// (nothing when empty); the third is a ddp beat, optional.
std::string three_beats(const std::string& opt) {
  return "title: Optional test\nsetup: {ranks: 3, data: \"1,2,3;4,5,6;7,8,9\"}\nbeats:\n"
         "  - at: 0\n    minutes: 3\n    text: \"The first step sends every tensor one hop to the right.\"\n"
         "  - at: end\n    minutes: 2\n" +
         (opt.empty() ? std::string() : "    optional: " + opt + "\n") +
         "    text: \"A second look at the same sum, from rank 2.\"\n"
         "  - kind: ddp\n    minutes: 4\n    optional: true\n    ddp: {ranks: 2, depth: 2, width: 8, iterations: 1}\n"
         "    text: \"Training with the same sums.\"\n";
}

}  // namespace

TEST_SUITE("lesson_plan") {
  TEST_CASE("optional: true or false on any beat kind, default false; anything else is an error at its place") {
    const Lesson l = parse_lesson(three_beats("true"), "o.yaml");
    CHECK_FALSE(l.beats[0].optional);
    CHECK(l.beats[1].optional);
    CHECK(l.beats[2].optional);
    CHECK(total_minutes(l) == 9);
    CHECK(required_minutes(l) == 3);
    CHECK(optional_beats(l) == 2);
    CHECK_FALSE(parse_lesson(three_beats("false"), "o.yaml").beats[1].optional);
    CHECK_THROWS_WITH_AS(parse_lesson(three_beats("yes"), "o.yaml"), "o.yaml:9:15: 'optional' must be true or false, got 'yes'",
                         LessonError);
    CHECK_THROWS_WITH_AS(parse_lesson(three_beats("1"), "o.yaml"), "o.yaml:9:15: 'optional' must be true or false, got '1'",
                         LessonError);
  }

  TEST_CASE("the plan marks optional beats and totals the lesson without them") {
    CHECK(format_plan(parse_lesson(three_beats("true"), "o.yaml")) ==
          "Optional test\n"
          "lecture plan: 3 beats\n"
          "beat  kind         min  start  first line\n"
          "   1  collective     3   0:00  The first step sends every tensor one hop to the right.\n"
          "   2  collective     2   3:00  A second look at the same sum, from rank 2.  (optional)\n"
          "   3  ddp            4   5:00  Training with the same sums.  (optional)\n"
          "total 9 min (3 beats); without the 2 optional beats 3 min\n");
    const Lesson l = parse_lesson(three_beats("true"), "o.yaml");
    CHECK(speaker_notes(l, 1).rfind("Optional test\nbeat 2 of 3 · 2 min planned · optional: a short lecture may skip it\n"
                                    "planned 3:00-5:00 of 9:00\n",
                                    0) == 0);
    CHECK(speaker_notes(l, 0).rfind("Optional test\nbeat 1 of 3 · 3 min planned\n", 0) == 0);
    CHECK(format_plan(parse_lesson(three_beats("false"), "o.yaml")).find(
              "total 9 min (3 beats); without the 1 optional beat 5 min\n") != std::string::npos);
  }

  TEST_CASE("lessons 02 and 03 without 03's optional beats fit a 50-minute lecture") {
    const Lesson l02 = load_lesson(kLessons + "02-ring-double-buffering.yaml");
    const Lesson l03 = load_lesson(kLessons + "03-naive-tree-ring.yaml");
    CHECK(total_minutes(l03) == 40);
    CHECK(optional_beats(l03) == 5);
    CHECK(required_minutes(l03) == 25);
    CHECK(optional_beats(l02) == 0);
    CHECK(format_plan_sum({l02, l03}) == "02 + 03: 65 min, 50 without optional\n");
    CHECK(format_plan_sum({l02}) == "02: 25 min\n");
    const std::string plan = format_plan(l03);
    CHECK(plan.find("total 40 min (11 beats); without the 5 optional beats 25 min\n") != std::string::npos);
    CHECK(plan.find("  11  lab            2  38:00  Measured now, in the lab.  (optional)\n") != std::string::npos);
    CHECK(plan.find("   5  collective     4  18:00  Where is the crossover?  [?]\n") != std::string::npos);
  }
}
