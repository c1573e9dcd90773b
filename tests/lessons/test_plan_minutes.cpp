// The lecture plan's minutes are plausible for the text (issue 37): a beat
// plans at least the time its words take to read out and point at on the
// slide (100 words a minute) plus a minute for a question
// (core/labs/lesson/plan.h reading_minutes); `--plan` names the beats that
// plan less; every shipped lesson plans enough.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/plan.h"

namespace fs = std::filesystem;
using namespace microddp::lesson;

namespace {

// Beat 1: 13 words of text, a question of 3 + 2 + 3 words; beat 2: 9 words.
std::string lesson_with(const std::string& minutes) {
  return "title: Minutes\nsetup: {ranks: 3, data: \"1,2,3;4,5,6;7,8,9\"}\nbeats:\n"
         "  - at: 0\n    minutes: " +
         minutes +
         "\n    text: |\n      The first step sends every tensor one hop to the right.\n      Second line.\n"
         "    question:\n      ask: \"How many steps?\"\n      choices: [\"1\", \"2\"]\n      answer: 2\n"
         "      explain: \"n-1 = 2.\"\n"
         "  - at: end\n    minutes: 0.25\n    text: \"*Done*: every rank holds the sum now. Then more.\"\n";
}

}  // namespace

TEST_SUITE("lesson_plan") {
  TEST_CASE("reading_minutes: the words of text, question, choices and explanation at 100 a minute, +1 min a question") {
    const Lesson l = parse_lesson(lesson_with("2"), "m.yaml");
    CHECK(beat_words(l.beats[0]) == 21);
    CHECK(reading_minutes(l.beats[0]) == doctest::Approx(1.21));
    CHECK(beat_words(l.beats[1]) == 9);
    CHECK(reading_minutes(l.beats[1]) == doctest::Approx(0.09));
    // Enough minutes: no "short:" line.
    CHECK(format_plan(l).find("short:") == std::string::npos);
  }

  TEST_CASE("--plan names the beats that plan less than their reading time") {
    const std::string plan = format_plan(parse_lesson(lesson_with("1"), "m.yaml"));
    CHECK(plan.substr(plan.rfind("total")) ==
          "total 1.3 min (2 beats)\n"
          "short: beat 1 (1 min for 21 words and a question: reading takes 1.3) "
          "(at 100 words a minute, 1 min per question)\n");
  }

  TEST_CASE("a beat planned exactly its reading time is not short; one beat is \"1 beat\"") {
    // 39 words and a question: 0.39 + 1 = 1.39 min (1.3900000000000001 in a
    // double); planned 1.39: not short. 1.38: short.
    std::string words;
    for (int i = 0; i < 36; ++i) words += " w";  // and 3 in the question: 39
    auto one = [&](const char* minutes) {
      return format_plan(parse_lesson(fmt::format("title: t\nsetup: {{ranks: 4, count: 4}}\n"
                                                  "beats:\n  - at: end\n    minutes: {}\n    text: \"{}\"\n"
                                                  "    question: {{ask: q, choices: [a, b], answer: 1}}\n",
                                                  minutes, words),
                                      "eq.yaml"));
    };
    const std::string eq = one("1.39");
    CHECK(eq.find("lecture plan: 1 beat\n") != std::string::npos);
    CHECK(eq.substr(eq.rfind("total")) == "total 1.4 min (1 beat)\n");
    const std::string less = one("1.38");
    CHECK(less.substr(less.rfind("total")) ==
          "total 1.4 min (1 beat)\n"
          "short: beat 1 (1.38 min for 39 words and a question: reading takes 1.4) "
          "(at 100 words a minute, 1 min per question)\n");
  }

  TEST_CASE("--plan prints minutes with at most one decimal, in their column, and so the total") {
    const std::string plan = format_plan(parse_lesson(
        "title: t\nsetup: {ranks: 4, count: 4}\nbeats:\n  - text: a\n    minutes: 0.3333\n"
        "  - text: b\n    minutes: 59.4\n  - text: c\n    minutes: 3\n",
        "m.yaml"));
    CHECK(plan.find("   1  collective   0.3   0:00  a\n") != std::string::npos);
    CHECK(plan.find("   2  collective  59.4   0:20  b\n") != std::string::npos);
    CHECK(plan.find("   3  collective     3  59:44  c\n") != std::string::npos);
    CHECK(plan.find("total 62.7 min (3 beats)\n") != std::string::npos);
  }

  TEST_CASE("every shipped lesson's beats plan at least their reading time") {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(MICRODDP_SOURCE_DIR) / "lessons"))
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() == 12);
    int beats = 0;
    for (const fs::path& f : files) {
      const Lesson l = load_lesson(f.string());
      for (size_t b = 0; b < l.beats.size(); ++b, ++beats) {
        INFO(fmt::format("{} beat {}: {:g} min for {} words{}", f.filename().string(), b + 1, l.beats[b].minutes,
                         beat_words(l.beats[b]), l.beats[b].question ? " and a question" : ""));
        CHECK(l.beats[b].minutes >= reading_minutes(l.beats[b]));
      }
      CHECK(format_plan(l).find("short:") == std::string::npos);
    }
    CHECK(beats == 95);  // every beat of the 12 lessons
  }
}
