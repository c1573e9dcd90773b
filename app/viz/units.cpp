#include "app/viz/units.h"

#include <fmt/format.h>

namespace microddp::viz {

std::string format_link(const std::string& name, double alpha_s, double bytes_per_s) {
  const bool raw = name.empty() || name.find(',') != std::string::npos ||
                   name.find_first_of("0123456789.") == 0;
  const std::string rate = bytes_per_s >= 1e9 ? fmt::format("{:.3g} GB/s", bytes_per_s / 1e9)
                                              : fmt::format("{:.3g} MB/s ({:.3g} Mbit/s)", bytes_per_s / 1e6,
                                                            bytes_per_s * 8 / 1e6);
  return fmt::format("{}α {}, {}", raw ? "" : name + ", ", format_us(alpha_s * 1e6), rate);
}

}  // namespace microddp::viz
