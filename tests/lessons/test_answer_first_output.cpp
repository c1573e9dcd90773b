// The no-answer-first check over the terminal runner's output
// (tests/lessons/output_answers.h), on made-up outputs: what it flags and
// what it lets pass. ctest's lessons.run.<lesson> applies it to every
// shipped lesson's real output.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lessons/output_answers.h"

using namespace microddp::lesson;
using namespace microddp::test;

namespace {
Lesson two_beats(const std::string& ask, double value, double tolerance) {
  Lesson l;
  l.beats.resize(2);
  Question q;
  q.ask = ask;
  q.value = value;
  q.tolerance = tolerance;
  l.beats[1].question = q;
  return l;
}
}  // namespace

TEST_SUITE("lessons_answer_first") {
  TEST_CASE("the runner's output: a check line before the answer line gives it away; after it does not") {
    const Lesson l = two_beats("How many bytes does each rank send in this run?", 24, 0);
    const std::string head = "T\n── beat 1/2 ──\ntext\n── beat 2/2 ──\nThe cost.\n\n? How many bytes does each rank send in this run?\n";
    const std::string early = head.substr(0, head.find("The cost.")) + "  ✓ bytes R0 sent in the whole run: 24\n" +
                              head.substr(head.find("The cost.")) + "answer: 24\n";
    const std::vector<std::string> found = answers_before_questions(l, early);
    REQUIRE(found.size() == 1);
    CHECK(found[0] ==
          "beat 2 asks \"How many bytes does each rank send in this run?\" (answer 24); line 5 shows 24 before the "
          "answer:   ✓ bytes R0 sent in the whole run: 24");
    CHECK(answers_before_questions(l, head + "answer: 24\n  ✓ bytes R0 sent in the whole run: 24\n").empty());
    // an earlier beat's check line counts too; its step table's bracketed values and other units do not
    CHECK(answers_before_questions(l, "── beat 1/2 ──\n  ✓ bytes R2 received: 24\n" + head.substr(head.find("── beat 2")) +
                                          "answer: 24\n")
              .size() == 1);
    CHECK(answers_before_questions(l, "── beat 1/2 ──\nR0 input [24, 25]\n  send [0, 24)  24 µs\n" +
                                          head.substr(head.find("── beat 2")) + "answer: 24\n")
              .empty());
    // a figure in a bigger unit, scaled: 0.024 KB is 24 bytes
    CHECK(answers_before_questions(l, head.substr(0, head.find("?")) + "about 0.024 KB\n? x\nanswer: 24\n").size() == 1);
  }

  TEST_CASE("the runner's output: a share asks no unit; measured times are left out; a missing answer line is said") {
    const Lesson l = two_beats("What fraction of the bytes LL puts on the link is data (a decimal)?", 0.5, 0.001);
    const std::string beat2 = "── beat 1/2 ──\n── beat 2/2 ──\n";
    // 512 B is no 0.5 (no prefix scaling for a share); a bare 0.5 is
    CHECK(answers_before_questions(l, beat2 + "  send 128 elements, 512 B\n? q\nanswer: 0.5\n").empty());
    CHECK(answers_before_questions(l, beat2 + "half: 0.5 of it\n? q\nanswer: 0.5\n").size() == 1);
    const Lesson t = two_beats("Compute T in seconds.", 0.0125, 0.0001);
    CHECK(answers_before_questions(t, beat2 + "step 0 · 12.5 ms median (p10 12.4 ms)\n? q\nanswer: 0.0125\n").empty());
    CHECK(answers_before_questions(t, beat2 + "  ✓ predicted time: 12.5 ms\n? q\nanswer: 0.0125\n").size() == 1);
    // A timing check's measured runs are left out (one fell on lesson 07's 0.875 under load).
    const Lesson f = two_beats("What overlap fraction (two decimals)?", 0.875, 0.005);
    CHECK(answers_before_questions(f, "── beat 1/2 ──\n  ✓ communication ms per iteration vs run 'one_bucket', median of 5 "
                                      "runs each, interleaved: 1.51677 (p = 0.00397; runs: 1.35534, 0.8751, 1.51997; "
                                      "run 'one_bucket': 0.294032, 0.87, 0.3)\n── beat 2/2 ──\n? q\nanswer: 0.875\n")
              .empty());
    CHECK(answers_before_questions(f, "── beat 1/2 ──\n  ✓ overlap fraction on the model clock: 0.875\n── beat 2/2 ──\n? "
                                      "q\nanswer: 0.875\n")
              .size() == 1);
    CHECK(answers_before_questions(t, beat2 + "? q\n") ==
          std::vector<std::string>{"beat 2: no question and \"answer:\" line"});
    CHECK(answers_before_questions(t, "── beat 1/2 ──\n") ==
          std::vector<std::string>{"beat 2: no \"── beat 2/2 \" header in the output"});
  }

  TEST_CASE("the runner's output: a right choice with figures is not shown before its question") {
    Lesson l = two_beats("What does R0's accum hold after step 0?", 0, 0);
    l.beats[1].question->choices = {"[1, 2, 3]", "[8, 10, 12]"};
    l.beats[1].question->answer = 2;
    const std::string b = "── beat 1/2 ──\n── beat 2/2 ──\n";
    CHECK(answers_before_questions(l, b + "R0 input [1, 2, 3]\n? q\n  2) [8, 10, 12]\nanswer: 2) [8, 10, 12]\n").empty());
    const auto found = answers_before_questions(l, b + "  R0 accum [8, 10, 12]\n? q\nanswer: 2) [8, 10, 12]\n");
    REQUIRE(found.size() == 1);
    CHECK(found[0] == "beat 2: line 3 shows the right choice \"[8, 10, 12]\" before the question:   R0 accum [8, 10, 12]");
  }
}
