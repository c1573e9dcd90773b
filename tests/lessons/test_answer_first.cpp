// No answer before its question: for every shipped lesson, the answer of a
// numeric question does not appear as a number in anything shown before the
// question is answered: the lesson's summary, the text of its own beat and
// of every earlier beat, and the earlier beats' questions, choices and
// explanations (shown after their answers, so before this one).
//
// Numbers are read as written ("93,000" is 93000; "1.875e9"; "2^20" is 2 and
// 20) with the unit written after them (bytes, time, rate or none), and one
// of the question's kind (its ask names the unit: "in KB", "in GB/s", "in
// seconds"; no unit: a ratio or a count) or without a unit matches the answer when it is within the question's tolerance
// (0.5 % when the tolerance is 0), directly or scaled by a unit prefix (1e3,
// 1024, 1e6, 2^20, 1e9, 2^30: "381,818 bytes" gives away 380 KB). Small
// whole answers (|v| < 10, as "which rank", "8.0 = n") are left out: such
// numbers name ranks, steps and nodes in any text; the window-side test
// (tests/app/test_answer_first_window.cpp) checks what is outlined.
// No numeric answer may be the quotient of two figures of one kind in its
// own beat's text ("ring 1.400 s, naive 11.2 s" before "naive over
// ring?"), small whole answers included.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "lessons/answer_figures.h"

namespace fs = std::filesystem;
using namespace microddp::lesson;
using namespace microddp::test;

namespace {

// Every shown text before beat b's answer, each with where it comes from.
std::vector<std::pair<std::string, std::string>> shown_before(const Lesson& l, size_t b) {
  std::vector<std::pair<std::string, std::string>> out = {{"summary", l.summary}};
  for (size_t k = 0; k <= b; ++k) {
    const Beat& beat = l.beats[k];
    out.emplace_back(fmt::format("beat {} text", k + 1), beat.text);
    if (!beat.question) continue;
    out.emplace_back(fmt::format("beat {} question", k + 1), beat.question->ask);
    if (k == b) continue;
    for (const auto& c : beat.question->choices) out.emplace_back(fmt::format("beat {} choice", k + 1), c);
    out.emplace_back(fmt::format("beat {} explanation", k + 1), beat.question->explain);
  }
  return out;
}

}  // namespace

TEST_SUITE("lessons_answer_first") {
  TEST_CASE("numbers are read as written") {
    CHECK(numbers_in("at 372 KB (93,000 floats) it is 0.8% longer") ==
          std::vector<Number>{{372, Dim::bytes}, {93000, Dim::none}, {0.8, Dim::none}});
    CHECK(numbers_in("[1,2,3] and 1.875e9 B, 2^20 in 3 ms at 25 GB/s") ==
          std::vector<Number>{{1, Dim::none}, {2, Dim::none}, {3, Dim::none}, {1.875e9, Dim::bytes}, {2, Dim::none},
                              {20, Dim::none}, {3, Dim::time}, {25, Dim::rate}});
    CHECK(asked_in("busbw of this all-reduce, in GB/s (one decimal)?") == Dim::rate);
    CHECK(asked_in("Where is the crossover, in KB?") == Dim::bytes);
    CHECK(asked_in("Ring over hierarchical (two decimals)?") == Dim::none);
    CHECK(gives_away(381818, 380, 30));   // bytes for KB
    CHECK(gives_away(43.6, 43.6, 0.1));
    CHECK_FALSE(gives_away(23.3, 43.6, 0.1));
    CHECK_FALSE(gives_away(1.875, 1.75, 0.01));
    // a ratio answer from two figures of one kind in the text, units applied
    CHECK(ratio_gives_away("8 nodes: the ring 1.400 s, naive 11.2 s.", 8.0, 0.1));
    CHECK(ratio_gives_away("24,960 bytes for DDP, 37,440 bytes for FSDP", 1.5, 0.01));
    CHECK(ratio_gives_away("the note: 43 ms; the ring's NIC time 0.075 s", 1.75, 0.01));
    CHECK_FALSE(ratio_gives_away("the ring 1.400 s on 8 nodes, 14 steps", 8.0, 0.1));   // a count is not a figure
    CHECK_FALSE(ratio_gives_away("1.875 GB through the NIC at 25 GB/s", 1.75, 0.01));  // bytes over a rate
    CHECK_FALSE(ratio_gives_away("16 ranks, 2 nodes, 8 per node", 8.0, 0.1));
    CHECK_FALSE(ratio_gives_away("8 x 400 Gb/s NICs, one NIC's 50 GB/s", 8.0, 0.1));  // rates: bits or bytes
  }

  TEST_CASE("no shipped lesson gives a numeric answer before its question") {
    int questions = 0;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(MICRODDP_SOURCE_DIR) / "lessons"))
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 10);
    for (const fs::path& f : files) {
      const Lesson l = load_lesson(f.string());
      for (size_t b = 0; b < l.beats.size(); ++b) {
        const auto& q = l.beats[b].question;
        if (!q || !q->choices.empty()) continue;
        ++questions;
        {  // not the quotient of two figures of one kind in its own beat's text (a ratio asked "in bytes" too)
          std::string why;
          const bool given = ratio_gives_away(l.beats[b].text, q->value, q->tolerance, &why);
          INFO(fmt::format("{} beat {} asks \"{}\" (answer {:g}); its text shows {}", f.filename().string(), b + 1,
                           q->ask, q->value, why));
          CHECK_FALSE(given);
        }
        if (std::abs(q->value) < 10 && q->value == std::floor(q->value)) continue;
        for (const auto& [where, text] : shown_before(l, b))
          for (const Number& x : numbers_in(text)) {
            if (x.dim != Dim::none && x.dim != asked_in(q->ask)) continue;  // 1.75 GB is not a ratio of 1.75
            INFO(fmt::format("{} beat {} asks \"{}\" (answer {:g}); {} shows {:g}", f.filename().string(), b + 1,
                             q->ask, q->value, where, x.value));
            CHECK_FALSE(gives_away(x.value, q->value, q->tolerance));
          }
      }
    }
    CHECK(questions >= 15);
  }
}
