#include "core/model/sweep.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace microddp {

double parse_step_factor(const std::string& text) {
  char* end = nullptr;
  const double f = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(f) || !(f > 1))
    throw UsageError(fmt::format("-f {} must be a number above 1 (each size is the one before times it, e.g. 2 or "
                                 "1.5)",
                                 text.empty() ? "''" : text));
  return f;
}

std::string size_text(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  int64_t scale = 1024;
  while (u < 3 && bytes / 1024 >= scale) {
    scale *= 1024;
    ++u;
  }
  if (bytes % scale == 0) return fmt::format("{} {} ({} B)", bytes / scale, units[u], bytes);
  // 4 significant digits, more where those round to a whole number
  // (1048572 B is "1023.996 KiB", never "1024 KiB").
  const double v = static_cast<double>(bytes) / static_cast<double>(scale);
  std::string num;
  for (int digits = 4; digits <= 17; ++digits) {
    num = fmt::format("{:.{}g}", v, digits);
    if (num.find_first_of(".e") != std::string::npos) break;
  }
  return fmt::format("{} {} ({} B)", num, units[u], bytes);
}

int64_t size_unit_bytes(Collective c, DType d, int n) {
  int64_t ranks = 1;
  switch (c) {
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
    case Collective::gather:
    case Collective::scatter: ranks = std::max(1, n); break;
    default: break;
  }
  return static_cast<int64_t>(dtype_size(d)) * ranks;
}

namespace {

// The size after s (see sweep_sizes), or -1 past max.
int64_t next_size(int64_t s, double factor, int64_t unit, int64_t max) {
  const double grown = std::round(static_cast<double>(s) * factor);
  const double next = std::max(grown, static_cast<double>(s) + static_cast<double>(unit));
  return next > static_cast<double>(max) ? -1 : static_cast<int64_t>(next);
}

// The sizes a factor makes, counting no further than cap + 1.
int count_sizes(const SweepRange& r, double factor, int cap) {
  int n = 1;
  for (int64_t s = r.min_bytes; n <= cap;) {
    s = next_size(s, factor, r.unit_bytes, r.max_bytes);
    if (s < 0) break;
    ++n;
  }
  if (r.end_at_max && n <= cap) {
    // the grid's last size below max, then max itself
    int64_t s = r.min_bytes, last = s;
    while ((s = next_size(s, factor, r.unit_bytes, r.max_bytes)) >= 0) last = s;
    if (last != r.max_bytes) ++n;
  }
  return n;
}

}  // namespace

std::vector<int64_t> sweep_sizes(const SweepRange& r) {
  if (r.min_bytes < 0 || r.max_bytes < r.min_bytes)
    throw UsageError(fmt::format("-b {} must be zero or positive and not above -e {}", r.min_bytes, r.max_bytes));
  if (!(r.factor > 1) || !std::isfinite(r.factor)) parse_step_factor(fmt::format("{}", r.factor));  // names it
  const int64_t unit = std::max<int64_t>(1, r.unit_bytes);
  SweepRange q = r;
  q.unit_bytes = unit;
  const int n = count_sizes(q, r.factor, r.max_sizes);
  if (n > r.max_sizes) {
    // The smallest factor that fits, to 3 significant digits above 1 (rounded up).
    double lo = r.factor, hi = 2;
    while (count_sizes(q, hi, r.max_sizes) > r.max_sizes) hi *= 2;
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      (count_sizes(q, mid, r.max_sizes) > r.max_sizes ? lo : hi) = mid;
    }
    const double digits = std::pow(10.0, 2 - std::floor(std::log10(hi - 1)));  // 3 digits of f - 1
    double fit = 1 + std::ceil((hi - 1) * digits) / digits;
    if (count_sizes(q, fit, r.max_sizes) > r.max_sizes) fit = hi;
    throw UsageError(fmt::format("-f {} from -b {} to -e {} makes more than {} sizes (each at least one element, {} B, "
                                 "above the one before{}): give -f {:g} or more, or a narrower -b .. -e",
                                 r.factor, r.min_bytes, r.max_bytes, r.max_sizes, unit, r.why_cap, fit));
  }
  std::vector<int64_t> sizes;
  sizes.reserve(static_cast<size_t>(n));
  for (int64_t s = r.min_bytes; s >= 0; s = next_size(s, r.factor, unit, r.max_bytes)) sizes.push_back(s);
  if (r.end_at_max && sizes.back() != r.max_bytes) sizes.push_back(r.max_bytes);
  return sizes;
}

}  // namespace microddp
