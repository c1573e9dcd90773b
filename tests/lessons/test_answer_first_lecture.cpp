// No answer before its question across the lecture: a lesson's numeric
// answer is not stated, in its kind's unit, by any earlier lesson (in file
// order, the lecture's order) — its summary, beat texts, questions, choices
// or explanations. Issue 37: lesson 03 beat 10 said "about 340 µs each",
// lesson 05 beat 7's answer. Questions without a unit (counts, ranks,
// steps, ratios) are left out: such numbers recur in any text; answers
// with a unit are matched only by figures written in that unit's kind (as
// tests/lessons/test_answer_first.cpp does within a lesson).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
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
// Every text a lesson shows, each with where it comes from.
std::vector<std::pair<std::string, std::string>> shown_in(const Lesson& l) {
  std::vector<std::pair<std::string, std::string>> out = {{"summary", l.summary}};
  for (size_t k = 0; k < l.beats.size(); ++k) {
    const Beat& beat = l.beats[k];
    out.emplace_back(fmt::format("beat {} text", k + 1), beat.text);
    if (!beat.question) continue;
    out.emplace_back(fmt::format("beat {} question", k + 1), beat.question->ask);
    for (const auto& c : beat.question->choices) out.emplace_back(fmt::format("beat {} choice", k + 1), c);
    out.emplace_back(fmt::format("beat {} explanation", k + 1), beat.question->explain);
  }
  return out;
}
// The ask's unit in its dimension's base unit ("α in µs" 1e-6, "in KiB"
// 1024, "How many bytes" 1): the first unit word in it, as numbers_in reads
// units; 0 when the ask asks for a share or a ratio ("What fraction of the
// bytes", "divided by", "How many times"), whose number is no quantity.
double ask_scale(const std::string& ask) {
  for (const char* r : {"fraction", "divided", "times", "ratio", "share"})
    if (ask.find(r) != std::string::npos) return 0;
  // "..., in KiB?": a unit after " in " first, else the first unit word
  // ("bytes" and "seconds" are 1; unit_scale_at is 1 for any other word
  // that is no prefixed unit, "How").
  for (size_t at = ask.find(" in "); at != std::string::npos; at = ask.find(" in ", at + 1))
    if (const double sc = unit_scale_at(ask, at + 4); sc != 1) return sc;
  for (size_t i = 0; i < ask.size(); ++i)
    if (i == 0 || ask[i - 1] == ' ' || ask[i - 1] == '(') {
      if (const std::string w = unit_word_at(ask, i); w == "bytes" || w == "seconds") return 1;
      if (const double sc = unit_scale_at(ask, i); sc != 1) return sc;
    }
  return 1;
}
}  // namespace

TEST_SUITE("lessons_answer_first") {
  TEST_CASE("no lesson states, with its unit, a numeric answer of a later lesson") {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(MICRODDP_SOURCE_DIR) / "lessons"))
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 10);
    std::vector<Lesson> lessons;
    for (const fs::path& f : files) lessons.push_back(load_lesson(f.string()));
    int compared = 0;
    for (size_t i = 1; i < lessons.size(); ++i)
      for (size_t b = 0; b < lessons[i].beats.size(); ++b) {
        const auto& q = lessons[i].beats[b].question;
        if (!q || !q->choices.empty()) continue;
        const Dim kind = asked_in(q->ask);
        const double scale = ask_scale(q->ask);
        if (kind == Dim::none || kind == Dim::rate || scale == 0) continue;  // counts, ratios, shares (and rates: Gb/s or GB/s)
        // The same quantity, not the same digits: 340 µs against α = 340 µs
        // (18 µs is not 0.018 s).
        const double v = q->value * scale, tol = (q->tolerance > 0 ? q->tolerance : 0.005 * std::abs(q->value)) * scale;
        for (size_t j = 0; j < i; ++j)
          for (const auto& [where, text] : shown_in(lessons[j]))
            for (const Number& x : numbers_in(text)) {
              if (x.dim != kind) continue;
              // The same digits for another quantity, shown on purpose: lesson 05
              // beat 6's ring sends 7,168 bytes per rank at 4 KiB (its bytes check
              // and bytes line); lesson 11 beat 6 asks what one-shot reads at 1 KiB.
              if (files[i].filename() == "11-what-nccl-does.yaml" && b == 5 &&
                  files[j].filename() == "05-alpha-beta.yaml" && x.base == 7168)
                continue;
              ++compared;
              INFO(fmt::format("{} beat {} asks \"{}\" (answer {:g}); {} {} shows {:g}", files[i].filename().string(),
                               b + 1, q->ask, q->value, files[j].filename().string(), where, x.value));
              CHECK_FALSE(std::abs(x.base - v) <= tol + 1e-15);
            }
      }
    CHECK(compared > 100);
  }

  TEST_CASE("lesson 03 beat 10 said lesson 05 beat 7's answer: \"about 340 µs\" gives away α = 340 µs") {
    const Number x = numbers_in("about 340 µs each").front();
    CHECK(x.dim == Dim::time);
    CHECK(x.value == 340);
    CHECK(gives_away(x.value, 340, 20));
    CHECK(asked_in("What does one message cost on this network: α in µs (nearest 10)?") == Dim::time);
    CHECK(ask_scale("What does one message cost on this network: α in µs (nearest 10)?") == 1e-6);
    CHECK(x.base == doctest::Approx(340e-6));
    CHECK(ask_scale("Where is the crossover with α = 1 µs and β = 1 / (600 GB/s), in KiB?") == 1024);
    CHECK(ask_scale("What fraction of the bytes LL puts on the link is data (a decimal)?") == 0);
    CHECK(ask_scale("How many bytes does each rank read from its peers (1 KiB per rank, 8 ranks)?") == 1);
  }
}
