// Fits of message times: the α-β least-squares line and the split fit
// (core/model/calibrate/calibrate.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/model/calibrate/calibrate.h"

namespace microddp {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;  // fit in MiB so the normal equations stay well scaled

void residuals(LineFit& f, const std::vector<FitPoint>& pts) {
  double ss = 0;
  f.max_rel = 0;
  for (const auto& p : pts) {
    const double rel = (f.alpha + p.bytes * f.beta - p.seconds) / p.seconds;
    ss += rel * rel;
    if (std::abs(rel) > f.max_rel) {
      f.max_rel = std::abs(rel);
      f.worst_bytes = p.bytes;
    }
  }
  f.rms_rel = pts.empty() ? 0 : std::sqrt(ss / pts.size());
}

double sse(const LineFit& f, const std::vector<FitPoint>& pts) {
  double ss = 0;
  for (const auto& p : pts) {
    const double rel = (f.alpha + p.bytes * f.beta - p.seconds) / p.seconds;
    ss += rel * rel;
  }
  return ss;
}
}  // namespace

LineFit fit_line(const std::vector<FitPoint>& pts) {
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const auto& p : pts) {
    if (!(p.seconds > 0)) throw std::invalid_argument(fmt::format("fit_line: time {} s at {} B", p.seconds, p.bytes));
    const double w = 1.0 / (p.seconds * p.seconds), x = p.bytes / kMiB;
    sw += w;
    sx += w * x;
    sxx += w * x * x;
    st += w * p.seconds;
    sxt += w * x * p.seconds;
  }
  const double det = sw * sxx - sx * sx;
  if (pts.size() < 2 || !(std::abs(det) > 1e-300 * std::max(1.0, sw * sxx)))
    throw std::invalid_argument("fit_line: needs at least two points with distinct sizes");
  LineFit f;
  f.alpha = (sxx * st - sx * sxt) / det;
  f.beta = (sw * sxt - sx * st) / det / kMiB;
  if (f.alpha < 0) {
    // No latency is negative: the best line with α >= 0 then has α = 0
    // (the weighted squares are convex in α), and its β minimises
    // Σ w (x·β - t)², i.e. β = Σ w·x·t / Σ w·x².
    f.alpha = 0;
    f.beta = sxt / sxx / kMiB;
    f.through_zero = true;
  }
  residuals(f, pts);
  return f;
}

CalibrationFit fit_message_times(const std::vector<FitPoint>& in) {
  std::vector<FitPoint> pts = in;
  std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  CalibrationFit cf;
  cf.one = fit_line(pts);
  if (cf.one.max_rel <= 0.15 || pts.size() < 6) return cf;
  double best = sse(cf.one, pts);
  for (size_t k = 3; k + 3 <= pts.size(); ++k) {
    if (pts[k].bytes == pts[k - 1].bytes) continue;
    const std::vector<FitPoint> lo(pts.begin(), pts.begin() + k), hi(pts.begin() + k, pts.end());
    const LineFit a = fit_line(lo), b = fit_line(hi);
    const double s = sse(a, lo) + sse(b, hi);
    if (s < best) {
      best = s;
      cf.break_bytes = pts[k].bytes;
      cf.small = a;
      cf.large = b;
    }
  }
  return cf;
}

std::string fit_line_text(const std::string& what, const LineFit& f) {
  const double bw = f.beta > 0 ? 1e-9 / f.beta : 0.0;
  const std::string res = fmt::format("residuals rms {:.1f}%, max {:.1f}% (at {} B)", f.rms_rel * 100, f.max_rel * 100,
                                      f.worst_bytes);
  if (f.through_zero)
    return fmt::format("{}: bandwidth only, through zero: {:.3f} GB/s, {}; the free line's intercept was below zero, and "
                       "no latency is negative: the time per byte grows across these sizes (a cache edge lies among "
                       "them), so the line is fitted through zero, α = 0",
                       what, bw, res);
  return fmt::format("{}: α = {:.3f} µs, bandwidth = {:.3f} GB/s, n½ = α/β = {:.0f} B, {}", what, f.alpha * 1e6, bw,
                     f.beta > 0 ? f.alpha / f.beta : 0.0, res);
}

double mode_estimate(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = std::max<size_t>(1, (v.size() + 1) / 2);
  size_t best = 0;
  for (size_t i = 0; i + h <= v.size(); ++i)
    if (v[i + h - 1] - v[i] < v[best + h - 1] - v[best]) best = i;
  const size_t m = best + (h - 1) / 2;
  return h % 2 ? v[m] : 0.5 * (v[m] + v[m + 1]);
}

}  // namespace microddp
