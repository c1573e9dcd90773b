#include "core/ir/units.h"

#include <cmath>

#include <fmt/format.h>

namespace microddp {

std::string format_us(double us, int decimals) {
  if (us < 0) return "n/a";
  if (decimals >= 0) {
    const double q = std::pow(10.0, decimals);
    const auto reaches = [&](double v) { return std::round(v * q) / q >= 1000.0; };
    if (reaches(us / 1e3)) return fmt::format("{:.{}f} s", us / 1e6, decimals);
    if (reaches(us)) return fmt::format("{:.{}f} ms", us / 1e3, decimals);
    return fmt::format("{:.{}f} µs", us, decimals);
  }
  // Three significant digits: 999.5 µs and up would print "1e+03 µs", so
  // they move up a unit (as 999.5 ms does).
  if (us >= 999.5e3) return fmt::format("{:.3g} s", us / 1e6);
  if (us >= 999.5) return fmt::format("{:.3g} ms", us / 1e3);
  if (us > 0 && us < 0.1) return fmt::format("{:.3g} ns", us * 1e3);  // e.g. the β of a few bytes on NVLink
  return fmt::format("{:.3g} µs", us);
}

std::string mib_text(double mib) {
  return fmt::format("{:g} MiB ({} B)", mib, static_cast<long long>(std::llround(mib * 1048576.0)));
}

}  // namespace microddp
