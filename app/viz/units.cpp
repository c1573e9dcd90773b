#include "app/viz/units.h"

#include <fmt/format.h>

namespace microddp::viz {

std::string format_us(double us) {
  if (us < 0) return "n/a";
  // Three significant digits: 999.5 µs and up would print "1e+03 µs", so
  // they move up a unit (as 999.5 ms does).
  if (us >= 999.5e3) return fmt::format("{:.3g} s", us / 1e6);
  if (us >= 999.5) return fmt::format("{:.3g} ms", us / 1e3);
  if (us > 0 && us < 0.1) return fmt::format("{:.3g} ns", us * 1e3);  // e.g. the β of a few bytes on NVLink
  return fmt::format("{:.3g} µs", us);
}

std::string format_link(const std::string& name, double alpha_s, double bytes_per_s) {
  const bool raw = name.empty() || name.find(',') != std::string::npos ||
                   name.find_first_of("0123456789.") == 0;
  const std::string rate = bytes_per_s >= 1e9 ? fmt::format("{:.3g} GB/s", bytes_per_s / 1e9)
                                              : fmt::format("{:.3g} MB/s ({:.3g} Mbit/s)", bytes_per_s / 1e6,
                                                            bytes_per_s * 8 / 1e6);
  return fmt::format("{}α {}, {}", raw ? "" : name + ", ", format_us(alpha_s * 1e6), rate);
}

}  // namespace microddp::viz
