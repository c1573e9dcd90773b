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

// The unit word at t[i..] (after spaces).
inline std::string unit_word_at(const std::string& t, size_t i) {
  while (i < t.size() && t[i] == ' ') ++i;
  size_t e = i;
  while (e < t.size() && (std::isalpha(static_cast<unsigned char>(t[e])) || t[e] == '/' ||
                          static_cast<unsigned char>(t[e]) >= 0x80))
    ++e;
  return t.substr(i, e - i);
}

// The kind of quantity the unit word at t[i..] names (after spaces).
inline Dim unit_at(const std::string& t, size_t i) {
  const std::string u = unit_word_at(t, i);
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

// What one of the unit word at t[i..] is in its dimension's base unit
// (bytes or seconds): 1e3 for "KB", 2^10 for "KiB", 1e-3 for "ms"; 1 for
// anything else.
inline double unit_scale_at(const std::string& t, size_t i) {
  const std::string u = unit_word_at(t, i);
  const std::pair<const char*, double> scales[] = {
      {"KB", 1e3},  {"KiB", 1024.0}, {"MB", 1e6},   {"MiB", 1048576.0}, {"GB", 1e9},  {"GiB", 1073741824.0},
      {"TB", 1e12}, {"ms", 1e-3},    {"µs", 1e-6}, {"us", 1e-6},        {"ns", 1e-9}};
  for (const auto& [w, s] : scales)
    if (u == w) return s;
  return 1;
}

struct Number {
  double value = 0;
  Dim dim = Dim::none;
  double base = 0;  // value in bytes or seconds (the unit's prefix applied); value when dim is none
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
    const double v = std::stod(num);
    out.push_back(Number{v, unit_at(t, i), v * unit_scale_at(t, i)});
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

// Whether two figures of `t` of the same kind (bytes or time; a bare
// number is left out: ranks, steps and counts; so are rates, whose "Gb/s"
// and "GB/s" this reader does not tell apart) give a ratio answer v
// by their quotient ("ring 1.400 s, naive 11.2 s" gives away 8.0), within
// tol (0.5 % when tol is 0). Fills `why` with the two figures.
inline bool ratio_gives_away(const std::string& t, double v, double tol, std::string* why = nullptr) {
  const double tl = tol > 0 ? tol : 0.005 * std::abs(v);
  const std::vector<Number> xs = numbers_in(t);
  for (const Number& a : xs)
    for (const Number& b : xs) {
      if ((a.dim != Dim::bytes && a.dim != Dim::time) || a.dim != b.dim || b.base <= 0 || a.base <= b.base) continue;
      if (std::abs(a.base / b.base - v) <= tl + 1e-12) {
        if (why) *why = std::to_string(a.value) + " over " + std::to_string(b.value);
        return true;
      }
    }
  return false;
}

}  // namespace microddp::test
