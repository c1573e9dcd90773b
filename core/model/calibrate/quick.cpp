// The quick calibration: a reduced sweep of the same measurements
// (quick_calibrate_options), the profile's "quick" mark, and the job the
// CLI's --quick and the window's button run (core/model/calibrate/calibrate.h).
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/model/calibrate/calibrate.h"

namespace microddp {

CalibrateOptions quick_calibrate_options() {
  CalibrateOptions o;
  o.min_bytes = 4;
  o.max_bytes = int64_t{1} << 20;
  o.size_factor = 4;  // 4, 16, .., 1 MiB: both sides of a break keep >= 3 points
  o.warmup = 1;
  o.max_iters = 20;
  o.kernel_bytes = int64_t{4} << 20;
  o.rounds = 1;
  o.state_rounds = 1;
  o.max_barrier_ranks = 4;
  o.cache_curve = false;  // its sweep to 4x the last-level cache alone takes longer than the budget
  return o;
}

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

}  // namespace

void mark_profile_quick(const std::string& path, const std::string& date) {
  nlohmann::json j = read_json(path);
  if (!j.is_object()) throw std::runtime_error(fmt::format("cannot read profile '{}' to mark it quick", path));
  j["quick"] = true;
  j["calibrated_on"] = date;
  std::ofstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

ProfileStamp profile_stamp(const std::string& path) {
  ProfileStamp s;
  const nlohmann::json j = read_json(path);
  if (!j.is_object()) return s;
  if (const auto it = j.find("quick"); it != j.end() && it->is_boolean()) s.quick = it->get<bool>();
  if (const auto it = j.find("calibrated_on"); it != j.end() && it->is_string()) s.date = it->get<std::string>();
  return s;
}

QuickCalibrationOutcome run_quick_calibration(const std::string& path, const QuickCalibrationHooks& hooks) {
  using Clock = std::chrono::system_clock;
  const auto now = [&] { return hooks.clock ? hooks.clock() : Clock::now(); };
  const auto report = [&](double f, const std::string& what) {
    if (hooks.progress) hooks.progress(f, what);
  };
  const Clock::time_point t0 = now();
  CalibrateOptions o = quick_calibrate_options();
  // 1.0 is kept for "written": a bar at 100% with nothing on disk would lie.
  double last = 0;
  o.fraction = [&](double f) {
    last = std::clamp(f, last, 0.99);
    report(last, "");
  };
  o.progress = [&](const std::string& line) { report(last, line); };
  QuickCalibrationOutcome out;
  out.result = hooks.measure ? hooks.measure(o) : calibrate(o);
  out.path = path;
  const std::time_t t = Clock::to_time_t(t0);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  out.date = buf;
  write_profile(path, out.result.params, out.result.points);
  mark_profile_quick(path, out.date);
  out.seconds = std::chrono::duration<double>(now() - t0).count();
  report(1.0, "wrote " + path);
  return out;
}

}  // namespace microddp
