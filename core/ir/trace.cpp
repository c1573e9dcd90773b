#include "core/ir/trace.h"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace microddp
