#include "core/exec/repeat_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/exec/executor.h"

namespace microddp {

namespace {

std::string duration_text(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} minutes", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.1f} hours", s / 3600);
  return fmt::format("{:.0f} days", s / 86400);
}

// Sizes in binary units, as everywhere else (KiB, MiB, GiB, TiB).
std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024.0) b /= 1024.0, ++u;
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

}  // namespace

RepeatEstimate estimate_repeat_steps(const Schedule& s, int repeat_steps, int cpus) {
  RepeatEstimate e;
  const double es = static_cast<double>(dtype_size(s.spec.dtype));
  for (int r = 0; r < s.world_size(); ++r)
    for (int64_t n : rank_layout(s, r).storage_size) e.bytes_per_repetition += static_cast<double>(n) * es;
  const double w = std::ceil(static_cast<double>(s.world_size()) / std::max(1, cpus));
  const double per = e.bytes_per_repetition / kRepeatCopyBytesPerS + kRepeatBarrierPairS * w * w;
  const double steps = s.num_steps();
  e.repetitions = static_cast<int64_t>(steps) * std::max(0, repeat_steps);
  e.bytes_copied = e.bytes_per_repetition * static_cast<double>(e.repetitions);
  e.seconds = per * static_cast<double>(e.repetitions);
  e.max_fitting = steps > 0 && per > 0 ? static_cast<int>(std::min<double>(kRepeatStepsMax,
                                                                            std::floor(kRepeatMaxSeconds / (per * steps))))
                                       : kRepeatStepsMax;
  return e;
}

void check_repeat_steps(const Schedule& s, int repeat_steps, int cpus) {
  if (repeat_steps <= 0) return;
  const RepeatEstimate e = estimate_repeat_steps(s, repeat_steps, cpus);
  if (e.seconds <= kRepeatMaxSeconds) return;
  const int ranks = s.world_size();
  throw UsageError(fmt::format(
      "--repeat-steps {}: {} steps x {} = {} step repetitions, each restoring every rank's memory ({} on {} ranks) "
      "between two barriers: {} copied, about {} on {} CPU{} (copies at {:g} GB/s, {:g} µs of barriers per "
      "repetition{}); a run may ask for at most {:g} s of repetitions: {}, or leave --repeat-steps out (each step "
      "then repeats for about {:g} ms)",
      repeat_steps, s.num_steps(), repeat_steps, e.repetitions, bytes_text(e.bytes_per_repetition), ranks,
      bytes_text(e.bytes_copied), duration_text(e.seconds), cpus, cpus == 1 ? "" : "s", kRepeatCopyBytesPerS / 1e9,
      kRepeatBarrierPairS * 1e6 * std::pow(std::ceil(static_cast<double>(ranks) / cpus), 2),
      ranks > cpus ? ", the ranks taking turns on the CPUs" : "", kRepeatMaxSeconds,
      e.max_fitting > 0 ? fmt::format("give --repeat-steps {} or fewer", e.max_fitting)
                        : std::string("this run is too large to repeat at all (--repeat-steps 0)"),
      kRepeatAutoTarget_ns / 1e6));
}

}  // namespace microddp
