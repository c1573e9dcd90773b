// Running a lesson beat by beat: a setup made runnable (schedule and input
// data), the step a beat goes to, and whether a typed answer is right.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/labs/lesson/lesson.h"
#include "core/record/data.h"

namespace microddp::lesson {

Prepared prepare(const Setup& a) {
  Prepared p;
  CollectiveSpec& s = p.spec;
  s.collective = parse_collective(a.collective);
  // A broken form (the registry's broken_name, "single_buffered_ring") is
  // planned as the algorithm it breaks.
  const AlgorithmInfo* broken = broken_variant_of(a.algorithm);
  s.algorithm = broken ? broken->name : a.algorithm;
  s.dtype = parse_dtype(a.dtype);
  s.op = parse_op(a.op);
  s.world_size = a.ranks;
  s.root = a.root;
  s.in_place = a.in_place;
  s.segments = a.segments;
  s.channels = a.channels;
  s.nodes = a.nodes;
  s.counts = a.counts;
  p.mode = parse_mode(a.mode);
  if (a.count >= 0) s.count = a.count;
  else if (!a.data.empty()) s.count = count_from_rows(s, a.data);
  else s.count = 8;
  if (s.collective == Collective::barrier) s.count = 0;
  s.validate();
  if (broken) {
    if (!broken->variant(s.collective))
      throw UsageError(fmt::format("algorithm {} is an {}, not a {}", a.algorithm, name(broken->serves[0].collective),
                                   name(s.collective)));
    if (s.segments > 1 && !broken->pipelines)  // the same refusal as its working twin
      throw UsageError(fmt::format("segments = {} needs the chunked ring; algorithm '{}' does not pipeline",
                                   s.segments, a.algorithm));
    if (s.channels > 1 && !broken->channels)
      throw UsageError(fmt::format("channels = {}: algorithm '{}' does not run in channels", s.channels, a.algorithm));
    p.schedule = broken->broken(s);
  } else {
    p.schedule = make_schedule(s);
    check_schedule(p.schedule);
  }
  int64_t total = 0;
  for (int r = 0; r < s.world_size; ++r) total += s.input_count(r) + s.output_count(r);
  p.run_elements = total;
  p.runnable = total <= kMaxRunElements;
  if (!a.data.empty()) p.inputs = parse_data(s, a.data);
  else if (p.runnable) p.inputs = fill_data(s, a.fill.empty() ? "iota" : a.fill);
  return p;
}

std::string Question::not_an_answer(const std::string& typed) const {
  std::string t = typed;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
  if (!choices.empty()) {
    for (size_t i = 0; i < choices.size(); ++i)
      if (t == std::to_string(i + 1) || t == choices[i]) return "";
    return fmt::format("{} is not one of the choices 1-{}", t, choices.size());
  }
  try {
    size_t used = 0;
    (void)std::stod(t, &used);
    if (used == t.size()) return "";
  } catch (const std::exception&) {
  }
  return fmt::format("{} is not a number", t);
}

std::string Question::answer_text() const {
  if (!choices.empty()) return fmt::format("{}) {}", answer, choices[static_cast<size_t>(answer - 1)]);
  if (!(tolerance > 0) || tolerance >= 1) return fmt::format("{:g}", value);
  // A tolerance of half a unit in a decimal place asks for that place: 0.5 is
  // to the nearest whole number ("17", not "17.0"), 0.05 or 0.1 one decimal,
  // 0.005 two ("0.57", not "0.570").
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(2 * tolerance) - 1e-9)), 0, 6);
  return fmt::format("{:.{}f}", value, decimals);
}

bool Question::is_right(const std::string& typed) const {
  std::string t = typed;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
  if (!choices.empty()) {
    if (t == std::to_string(answer)) return true;
    return t == choices[static_cast<size_t>(answer - 1)];
  }
  try {
    size_t used = 0;
    const double v = std::stod(t, &used);
    return used == t.size() && std::fabs(v - value) <= tolerance + 1e-12 * std::fabs(value);
  } catch (const std::exception&) {
    return false;
  }
}

int target_step(const Target& t, const Schedule& s) {
  switch (t.kind) {
    case Target::Kind::start: return -1;
    case Target::Kind::step: return std::min(t.step, s.num_steps() - 1);
    case Target::Kind::phase: {
      int last = -1;
      for (int i = 0; i < s.num_steps(); ++i)
        if (s.phases[static_cast<size_t>(s.steps[static_cast<size_t>(i)].phase)].name == t.phase) last = i;
      return last;
    }
    case Target::Kind::end: break;
  }
  return s.num_steps() - 1;
}

}  // namespace microddp::lesson
