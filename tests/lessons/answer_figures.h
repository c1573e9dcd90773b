// Figures in a text, for the no-answer-first tests (tests/lessons/
// test_answer_first.cpp over the lessons' texts, tests/app/
// test_answer_first_window.cpp over what the window draws): the numbers
// written in a text with the kind of unit after them, and whether one gives
// away a numeric answer.
#pragma once
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

namespace microddp::test {

enum class Dim { none, bytes, time, rate };

// The kind of quantity the unit word at t[i..] names (after spaces).
inline Dim unit_at(const std::string& t, size_t i) {
  while (i < t.size() && t[i] == ' ') ++i;
  size_t e = i;
  while (e < t.size() && (std::isalpha(static_cast<unsigned char>(t[e])) || t[e] == '/' ||
                          static_cast<unsigned char>(t[e]) >= 0x80))
    ++e;
  const std::string u = t.substr(i, e - i);
  if (u.find("/s") != std::string::npos || u.find("bit") != std::string::npos) return Dim::rate;
  for (const char* b : {"B", "bytes", "KB", "KiB", "MB", "MiB", "GB", "GiB", "TB"})
    if (u == b) return Dim::bytes;
  for (const char* s : {"s", "ms", "µs", "us", "ns", "seconds"})
    if (u == s) return Dim::time;
  return Dim::none;
}

// The unit a question asks in, from its text.
inline Dim asked_in(const std::string& ask) {
  if (ask.find("/s") != std::string::npos) return Dim::rate;
  for (const char* b : {" KB", " KiB", " MB", " MiB", " GB", "bytes"})
    if (ask.find(b) != std::string::npos) return Dim::bytes;
  for (const char* s : {"seconds", " ms", " µs"})
    if (ask.find(s) != std::string::npos) return Dim::time;
  return Dim::none;
}

struct Number {
  double value = 0;
  Dim dim = Dim::none;
  bool operator==(const Number& o) const { return value == o.value && dim == o.dim; }
};

// The numbers written in `t`: digits with an optional fraction and
// exponent; a comma between digits is a thousands separator only when
// exactly three digits follow it ("1,040" is 1040, "[1,2,3]" is 1, 2, 3).
inline std::vector<Number> numbers_in(const std::string& t) {
  std::vector<Number> out;
  size_t i = 0;
  const auto digit = [&](size_t k) { return k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])); };
  while (i < t.size()) {
    if (!digit(i)) {
      ++i;
      continue;
    }
    std::string num;
    while (i < t.size()) {
      if (digit(i)) {
        num += t[i++];
      } else if (t[i] == ',' && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4)) {
        ++i;  // a thousands separator
      } else {
        break;
      }
    }
    if (i + 1 < t.size() && t[i] == '.' && digit(i + 1)) {
      num += t[i++];
      while (digit(i)) num += t[i++];
    }
    if (i + 1 < t.size() && (t[i] == 'e' || t[i] == 'E') &&
        (digit(i + 1) || ((t[i + 1] == '-' || t[i + 1] == '+') && digit(i + 2)))) {
      num += t[i++];
      if (!digit(i)) num += t[i++];
      while (digit(i)) num += t[i++];
    }
    out.push_back(Number{std::stod(num), unit_at(t, i)});
  }
  return out;
}

inline bool gives_away(double x, double v, double tol) {
  const double t = tol > 0 ? tol : 0.005 * std::abs(v);
  for (double s : {1.0, 1e3, 1024.0, 1e6, 1048576.0, 1e9, 1073741824.0})
    for (double y : {x * s, x / s})
      if (std::abs(y - v) <= t + 1e-12) return true;
  return false;
}

}  // namespace microddp::test
