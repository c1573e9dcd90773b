// No answer before its question in what `microddp lesson FILE
// --non-interactive` prints (issue 37): for every question of the lesson,
// nothing printed before the question's "answer:" line gives the answer
// away. Used by tests/lessons/tools/lesson_answer_first.cpp (each shipped
// lesson, as ctest's lessons.run.* runs it) and tested on made-up outputs in
// tests/lessons/test_answer_first_output.cpp.
//  - A numeric question: no figure gives the answer in the lines of its
//    own beat before the answer line, nor in any earlier beat's check lines
//    ("  ✓ what: value") or answer lines. A figure gives it when it equals
//    the answer within the question's tolerance: written in the unit kind
//    the ask names ("in KiB", "bytes", "in GB/s"), also scaled by a unit
//    prefix (answer_figures.h's gives_away: "381,818 bytes" for 373 KiB);
//    written without a unit, only as the same number (and, for an answer
//    in a unit, not between brackets: buffer values, element ranges). An ask for a share or
//    a ratio ("What fraction", "divided by", "How many times", "over")
//    names no unit: only bare numbers count. Small whole answers (|v| < 10:
//    ranks, steps, counts that any table shows) are left out, as in
//    tests/lessons/test_answer_first.cpp. So are figures measured on this
//    machine (step times "… µs median (p10 …)", the DDP table's times, a
//    timing check's list of runs "…; runs: 1.36, 0.88, …"):
//    they change from run to run and would match a time answer by chance.
//  - A question with choices whose right choice holds a figure ("[8, 10,
//    12]"): that text is not printed between the beat's header and its
//    question (the state asked about is shown before the step, not after).
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "lessons/answer_figures.h"

namespace microddp::test {

// Whether a printed line holds figures measured on this machine (left out).
inline bool measured_line(const std::string& line) {
  // (A timing check's line lists its measured runs, "median of 5 runs each,
  // interleaved: 1.51677 (p = 0.00397; runs: 1.35534, ..."; under load one
  // of them fell on lesson 07's 0.875 and failed lessons.run.07 at random.)
  for (const char* m : {" median (", "(times measured", "compute ms", "; runs: "})
    if (line.find(m) != std::string::npos) return true;
  return false;
}

// The kind of figure a question's ask names; Dim::none for a share or a
// ratio ("What fraction of the bytes ...": no bytes asked).
inline Dim asked_kind(const std::string& ask) {
  for (const char* r : {"fraction", "divided", "times", "ratio", " over ", "share"})
    if (ask.find(r) != std::string::npos) return Dim::none;
  return asked_in(ask);
}

// `line` without what stands between brackets: a buffer's values
// ("R1 input [17, 18, 19]") and element ranges ("[0, 3)"), which are no
// quantity in a unit.
inline std::string without_brackets(const std::string& line) {
  std::string out;
  int depth = 0;
  for (char c : line) {
    if (c == '[') ++depth;
    else if (depth > 0 && (c == ']' || c == ')')) --depth;
    else if (depth == 0) out += c;
  }
  return out;
}

// A result line of a check ("  ✓ bytes R0 sent in the whole run: 24").
inline bool check_line(const std::string& line) {
  for (const char* m : {"  ✓ ", "  ✗ ", "  – "})
    if (line.rfind(m, 0) == 0) return true;
  return false;
}

// What gives an answer away early in `out`, one line per finding; empty
// when nothing does. Also a line when a question's answer line is missing.
inline std::vector<std::string> answers_before_questions(const lesson::Lesson& l, const std::string& out) {
  std::vector<std::string> lines;
  {
    std::istringstream in(out);
    for (std::string s; std::getline(in, s);) lines.push_back(s);
  }
  std::vector<std::string> found;
  size_t at = 0;  // the line to search from: each beat's header, in order
  for (size_t b = 0; b < l.beats.size(); ++b) {
    const std::string head = fmt::format("── beat {}/{} ", b + 1, l.beats.size());
    while (at < lines.size() && lines[at].rfind(head, 0) != 0) ++at;
    if (at == lines.size()) {
      found.push_back(fmt::format("beat {}: no \"{}\" header in the output", b + 1, head));
      return found;
    }
    const size_t beat_at = at;
    const auto& q = l.beats[b].question;
    if (!q) continue;
    size_t ask_at = beat_at, answer_at = beat_at;
    while (ask_at < lines.size() && lines[ask_at].rfind("? ", 0) != 0) ++ask_at;
    answer_at = ask_at;
    while (answer_at < lines.size() && lines[answer_at].rfind("answer: ", 0) != 0) ++answer_at;
    if (answer_at == lines.size()) {
      found.push_back(fmt::format("beat {}: no question and \"answer:\" line", b + 1));
      return found;
    }
    if (!q->choices.empty()) {
      const std::string& right = q->choices[static_cast<size_t>(q->answer - 1)];
      if (right.find_first_of("0123456789") == std::string::npos) continue;
      for (size_t i = beat_at; i < ask_at; ++i)
        if (lines[i].find(right) != std::string::npos)
          found.push_back(fmt::format("beat {}: line {} shows the right choice \"{}\" before the question: {}", b + 1,
                                      i + 1, right, lines[i]));
      continue;
    }
    if (std::abs(q->value) < 10 && q->value == std::floor(q->value)) continue;
    const Dim kind = asked_kind(q->ask);
    const double tol = q->tolerance > 0 ? q->tolerance : 0.005 * std::abs(q->value);
    for (size_t i = 0; i < answer_at; ++i) {
      if (measured_line(lines[i])) continue;
      if (i < beat_at && !check_line(lines[i]) && lines[i].rfind("answer: ", 0) != 0) continue;
      for (const Number& x : numbers_in(kind == Dim::none ? lines[i] : without_brackets(lines[i]))) {
        const bool given = x.dim == kind && kind != Dim::none ? gives_away(x.value, q->value, q->tolerance)
                           : x.dim == Dim::none             ? std::abs(x.value - q->value) <= tol + 1e-12
                                                            : false;
        if (given)
          found.push_back(fmt::format("beat {} asks \"{}\" (answer {:g}); line {} shows {:g} before the answer: {}",
                                      b + 1, q->ask, q->value, i + 1, x.value, lines[i]));
      }
    }
  }
  return found;
}

}  // namespace microddp::test
