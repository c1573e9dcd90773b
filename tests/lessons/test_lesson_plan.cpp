// The lecture plan: a beat's `minutes:` key (default, range, located
// errors in every beat kind), the plan's rows and total, the speaker notes'
// text, answer, next beat and clock (core/labs/lesson/plan.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/plan.h"

using namespace microddp::lesson;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";

// A two-beat lesson whose first beat has `minutes: MIN` (none when empty).
std::string two_beats(const std::string& min) {
  return "title: Plan test\nsetup: {ranks: 3, data: \"1,2,3;4,5,6;7,8,9\"}\nbeats:\n"
         "  - at: 0\n" +
         (min.empty() ? std::string() : "    minutes: " + min + "\n") +
         "    text: |\n      The first step sends every tensor one hop to the right.\n      Second line.\n"
         "    question:\n      ask: \"How many steps?\"\n      choices: [\"1\", \"2\"]\n      answer: 2\n"
         "      explain: \"n-1 = 2.\"\n"
         "  - at: end\n    text: \"*Done*: every rank holds the sum now. Then more.\"\n";
}

}  // namespace

TEST_SUITE("lesson_plan") {
  TEST_CASE("minutes: given, default, and located errors for values out of range or not numbers") {
    const Lesson l = parse_lesson(two_beats("3.5"), "p.yaml");
    CHECK(l.beats[0].minutes == 3.5);
    CHECK(l.beats[0].minutes_given);
    CHECK(l.beats[1].minutes == kDefaultBeatMinutes);
    CHECK_FALSE(l.beats[1].minutes_given);
    CHECK(total_minutes(l) == 5.5);
    CHECK(minutes_before(l, 1) == 3.5);
    CHECK_THROWS_WITH_AS(parse_lesson(two_beats("0"), "p.yaml"),
                         "p.yaml:5:14: 'minutes' is the time planned for this beat, 0.25..60 minutes; got '0'",
                         LessonError);
    CHECK_THROWS_WITH_AS(parse_lesson(two_beats("90"), "p.yaml"),
                         "p.yaml:5:14: 'minutes' is the time planned for this beat, 0.25..60 minutes; got '90'",
                         LessonError);
    CHECK_THROWS_WITH_AS(parse_lesson(two_beats("five"), "p.yaml"), "p.yaml:5:14: 'minutes' must be a number, got 'five'",
                         LessonError);
    CHECK_THROWS_WITH_AS(parse_lesson(two_beats(".nan"), "p.yaml"), "p.yaml:5:14: 'minutes' must be a number, got '.nan'",
                         LessonError);
  }

  TEST_CASE("minutes: is accepted on ddp, hang and lab beats too") {
    const Lesson l = parse_lesson(R"(title: kinds
beats:
  - kind: ddp
    minutes: 4
    ddp: {ranks: 2, depth: 2, width: 8, iterations: 1}
    text: "a ddp run."
  - kind: hang
    minutes: 1.5
    text: "a hang."
  - kind: lab
    minutes: 0.25
    text: "a lab run."
)",
                                  "k.yaml");
    CHECK(l.beats[0].minutes == 4);
    CHECK(l.beats[1].minutes == 1.5);
    CHECK(l.beats[2].minutes == 0.25);
    CHECK(total_minutes(l) == 5.75);
  }

  TEST_CASE("first_line: first sentence of the first paragraph, emphasis removed, cut at a word") {
    CHECK(first_line("The first step sends every tensor one hop.\nSecond.") == "The first step sends every tensor one hop.");
    CHECK(first_line("\n\n  *Step 0.* Each rank sends its\n  send_buff to the right. More.") ==
          "Step 0. Each rank sends its send_buff to the right.");
    CHECK(first_line("one two three four five six", 12) == "one two…");
    CHECK(first_line("", 10) == "");
  }

  TEST_CASE("the plan of lesson 02: six beats, their minutes and planned starts, 25 minutes in all") {
    const Lesson l = load_lesson(kLessons + "02-ring-double-buffering.yaml");
    const std::string plan = format_plan(l);
    CHECK(plan ==
          "The 3-rank ring, step by step: two buffers and a swap\n"
          "lecture plan: 6 beats\n"
          "beat  kind         min  start  first line\n"
          "   1  collective     3   0:00  Before anything moves.\n"
          "   2  collective     5   3:00  Step 0. Each rank sends its send_buff to the right neighbour, receives…  [?]\n"
          "   3  collective     4   8:00  Step 1 repeats the pattern with the roles swapped: each rank forwards…\n"
          "   4  collective     4  12:00  The cost: in every step each rank sends its whole vector, S = 3 floats.  [?]\n"
          "   5  collective     6  16:00  Why two buffers? A send is non-blocking: it is only posted, and the…  [?]\n"
          "   6  collective     3  22:00  Contrast: the chunked ring (the one NCCL and Baidu's ring use).\n"
          "total 25 min (6 beats)\n");
    CHECK(total_minutes(load_lesson(kLessons + "03-naive-tree-ring.yaml")) == 40);
  }

  TEST_CASE("the plan marks default minutes") {
    const std::string plan = format_plan(parse_lesson(two_beats("3"), "p.yaml"));
    CHECK(plan.find("   2  collective     2*  3:00  Done: every rank holds the sum now.\n") != std::string::npos);
    CHECK(plan.find("total 5 min (2 beats; * = no 'minutes:' key, the default 2 min)\n") != std::string::npos);
  }

  TEST_CASE("speaker notes: text, question with answer and explanation, next beat, clock and pace") {
    const Lesson l = parse_lesson(two_beats("3"), "p.yaml");
    CHECK(speaker_notes(l, 0) ==
          "Plan test\nbeat 1 of 2 · 3 min planned\nplanned 0:00-3:00 of 5:00\n\n"
          "NOW\nThe first step sends every tensor one hop to the right.\nSecond line.\n\n"
          "QUESTION\nHow many steps?\n  1) 1\n  2) 2\nanswer: 2) 2\nexplain: n-1 = 2.\n\n"
          "NEXT\nbeat 2: Done: every rank holds the sum now.\n");
    const std::string late = speaker_notes(l, 0, 245.0);
    CHECK(late.find("clock 4:05 elapsed · this beat planned at 0:00-3:00 · 5:00 planned in all · 1:05 behind\n") !=
          std::string::npos);
    CHECK(speaker_notes(l, 1, 60.0).find("· 2:00 ahead\n") != std::string::npos);
    CHECK(speaker_notes(l, 1, 200.0).find("· on time\n") != std::string::npos);
    CHECK(speaker_notes(l, 1).find("NEXT\n(last beat)\n") != std::string::npos);
    CHECK_THROWS_AS(speaker_notes(l, 2), std::out_of_range);
    CHECK(clock_text(3725) == "1:02:05");
    CHECK(clock_text(-65) == "-1:05");
  }
  TEST_CASE("plain_text drops *emphasis* and `code` marks; lesson 03's speaker notes print no asterisk or backtick") {
    CHECK(plain_text("*Naive*: rank 0 adds (`microddp bench`), `a*b` stays\n  indented *x*") ==
          "Naive: rank 0 adds (microddp bench), a*b stays\n  indented x");
    CHECK(plain_text("") == "");
    CHECK(plain_text("cost = 2 * (n-1) * S") == "cost = 2 * (n-1) * S");
    CHECK(plain_text("*.yaml") == "*.yaml");
    CHECK(plain_text("a**b") == "a**b");
    CHECK(plain_text("*two words* and *one*") == "two words and one");
    CHECK(plain_text("a * b* and *c *d") == "a * b* and *c *d");  // spaced: no pair
    CHECK(plain_text("*a\nb*") == "*a\nb*");                      // a pair stays on one line
    CHECK(plain_text("`x *y* z` *w*") == "x *y* z w");
    CHECK(first_line("Run `ls *.yaml` and *then* cost = 2 * (n-1) * S bytes.") ==
          "Run `ls *.yaml` and then cost = 2 * (n-1) * S bytes.");
    const Lesson l = load_lesson(kLessons + "03-naive-tree-ring.yaml");
    int asterisks_in_yaml = 0;
    for (int b = 0; b < static_cast<int>(l.beats.size()); ++b) {
      const std::string notes = speaker_notes(l, b);
      INFO("beat ", b + 1, ":\n", notes);
      CHECK(notes.find('`') == std::string::npos);
      CHECK(notes.find('*') == std::string::npos);
      asterisks_in_yaml += l.beats[static_cast<size_t>(b)].text.find('*') != std::string::npos;
    }
    CHECK(asterisks_in_yaml >= 3);  // the lesson does use the markup (beats 1, 4, 9, ...)
    CHECK(speaker_notes(l, 0).find("\nNaive: everyone sends its vector to rank 0") != std::string::npos);
  }
}
