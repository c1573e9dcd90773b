#include "core/ir/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace microddp {

std::string_view name(Mode m) { return m == Mode::lockstep ? "lockstep" : "free"; }
Mode parse_mode(std::string_view s) {
  if (s == "lockstep") return Mode::lockstep;
  if (s == "free") return Mode::free;
  throw UsageError(fmt::format("unknown mode '{}' (expected one of: lockstep, free)", s));
}

int64_t Trace::step_ns(int s) const {
  int64_t worst = 0;
  for (const auto& r : steps.at(s)) worst = std::max(worst, r.end_ns - r.begin_ns);
  return worst;
}

StepTiming Trace::timing(int s) const {
  if (s >= 0 && s < static_cast<int>(step_timing.size())) return step_timing[s];
  return summarize_step_samples(step_ns(s), {}, false);
}

StepTiming summarize_step_samples(int64_t first_run_ns, std::vector<int64_t> samples, bool includes_barrier) {
  StepTiming t;
  t.first_run_ns = first_run_ns;
  t.includes_barrier = includes_barrier;
  t.repetitions = static_cast<int32_t>(samples.size());
  if (samples.empty()) {
    t.median_ns = t.p10_ns = t.p90_ns = first_run_ns;
    return t;
  }
  std::sort(samples.begin(), samples.end());
  auto pct = [&](double q) {
    const double pos = q * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, samples.size() - 1);
    const double f = pos - static_cast<double>(lo);
    return static_cast<int64_t>(std::llround(static_cast<double>(samples[lo]) * (1 - f) +
                                             static_cast<double>(samples[hi]) * f));
  };
  t.p10_ns = pct(0.10);
  t.median_ns = pct(0.50);
  t.p90_ns = pct(0.90);
  return t;
}

}  // namespace microddp
