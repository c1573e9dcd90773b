#include "app/viz/units.h"

#include <fmt/format.h>

namespace microddp::viz {

std::string format_us(double us) {
  if (us < 0) return "n/a";
  if (us >= 1e6) return fmt::format("{:.3g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.3g} ms", us / 1e3);
  if (us > 0 && us < 0.1) return fmt::format("{:.3g} ns", us * 1e3);  // e.g. the β of a few bytes on NVLink
  return fmt::format("{:.3g} µs", us);
}

}  // namespace microddp::viz
