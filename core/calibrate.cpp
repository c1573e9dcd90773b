#include "core/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/executor.h"

namespace microddp {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kMiB = 1024.0 * 1024.0;  // fit in MiB so the normal equations stay well scaled

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

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

namespace {

// Median seconds of one pass of f over rotating buffers.
template <typename F>
double time_kernel(int64_t bytes, int reps, F&& f) {
  const int pool = 4;
  std::vector<std::vector<float>> src(pool), dst(pool);
  const size_t n = static_cast<size_t>(bytes / 4);
  for (int i = 0; i < pool; ++i) {
    src[i].assign(n, 1.0f + i);
    dst[i].assign(n, 0.5f);
  }
  std::vector<double> t;
  for (int k = 0; k < reps + 2; ++k) {
    const int i = k % pool;
    const auto a = Clock::now();
    f(dst[i].data(), src[i].data(), static_cast<int64_t>(n));
    const double s = std::chrono::duration<double>(Clock::now() - a).count();
    if (k >= 2) t.push_back(s);
  }
  return median(t);
}

// The ping-pong schedule over K rotating slots of e elements (int32).
Schedule ping_pong(int64_t e, int K) {
  CollectiveSpec s;
  s.collective = Collective::broadcast;
  s.algorithm = "naive";
  s.world_size = 2;
  s.count = e * K;
  s.dtype = DType::int32;
  ScheduleBuilder b(s);
  for (int j = 0; j < K; ++j) {
    b.step("ping");
    b.send(0, 1, {Buf::input, j * e}, e);
    b.recv(1, 0, {Buf::output, j * e}, e);
    b.step("pong");
    b.send(1, 0, {Buf::input, j * e}, e);
    b.recv(0, 1, {Buf::output, j * e}, e);
  }
  return b.finish();
}

}  // namespace

double measure_memcpy_Bps(int64_t bytes, int reps) {
  const double s = time_kernel(bytes, reps, [](float* d, const float* src, int64_t n) {
    kernels::copy(DType::float32, d, src, n);
  });
  return s > 0 ? bytes / s : 0;
}

double measure_reduce_Bps(int64_t bytes, int reps) {
  const double s = time_kernel(bytes, reps, [](float* d, const float* src, int64_t n) {
    kernels::reduce(DType::float32, ReduceOp::sum, d, src, n);
  });
  return s > 0 ? bytes / s : 0;
}

CalibrationResult calibrate(const CalibrateOptions& opt) {
  if (opt.backend != "threads")
    throw UsageError(fmt::format("calibrate: backend '{}' is not supported here (expected: threads)", opt.backend));
  if (opt.min_bytes < 4 || opt.max_bytes < opt.min_bytes)
    throw UsageError(fmt::format("calibrate: sizes {}..{} B (need 4 <= min <= max)", opt.min_bytes, opt.max_bytes));
  CalibrationResult res;
  const int64_t pool_bytes = int64_t{32} << 20;
  for (int64_t m = opt.min_bytes; m <= opt.max_bytes; m *= 2) {
    const int64_t e = std::max<int64_t>(1, m / 4);
    const int K = static_cast<int>(std::clamp<int64_t>(pool_bytes / (e * 4), 1, 64));
    const Schedule s = ping_pong(e, K);
    const int64_t per_iter = 2 * K * e * 4;
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{1} << 30) / std::max<int64_t>(per_iter, 1), 5, std::max(5, opt.max_iters)));
    RankData in(2, std::vector<std::byte>(static_cast<size_t>(e * K * 4), std::byte{1}));
    std::vector<int64_t> marks(static_cast<size_t>(s.num_steps()) * (opt.warmup + iters), 0);
    int64_t idx = 0;
    RunOptions ro;
    ro.mode = Mode::lockstep;
    ro.record = false;
    ro.iterations = opt.warmup + iters;
    ro.on_step = [&](int) {
      if (idx < static_cast<int64_t>(marks.size())) marks[idx++] = Clock::now().time_since_epoch().count();
    };
    run_threads(s, in, ro);
    std::vector<double> samples;
    const int steps = s.num_steps();
    for (int it = opt.warmup; it < opt.warmup + iters; ++it)
      for (int st = 1; st < steps; ++st) {
        const int64_t a = marks[it * steps + st - 1], b = marks[it * steps + st];
        samples.push_back(std::chrono::duration<double>(Clock::duration(b - a)).count());
      }
    const double t = median(samples);
    res.points.push_back({e * 4, t});
    if (opt.progress) opt.progress(fmt::format("ping-pong {:>9} B: {:10.2f} us one way ({} samples, {} slots)", e * 4,
                                               t * 1e6, samples.size(), K));
  }
  res.fit = fit_message_times(res.points);
  res.memcpy_Bps = measure_memcpy_Bps(opt.kernel_bytes);
  res.reduce_Bps = measure_reduce_Bps(opt.kernel_bytes);
  CostParams& p = res.params;
  p.name = opt.backend;
  const LineFit& main = res.fit.break_bytes ? res.fit.large : res.fit.one;
  p.alpha = std::max(0.0, main.alpha);
  p.beta = std::max(0.0, main.beta);
  if (res.fit.break_bytes) {
    p.break_bytes = res.fit.break_bytes;
    p.alpha_small = std::max(0.0, res.fit.small.alpha);
    p.beta_small = std::max(0.0, res.fit.small.beta);
  }
  p.gamma = res.reduce_Bps > 0 ? 1.0 / res.reduce_Bps : 0;
  p.delta = res.memcpy_Bps > 0 ? 1.0 / res.memcpy_Bps : 0;
  p.fused_recv_reduce = true;
  p.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return res;
}

std::string default_profile_path() {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return (fs::path(x) / "microddp" / "profile.json").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".config" / "microddp" / "profile.json").string();
  return "microddp-profile.json";
}

void write_profile(const std::string& path, const CostParams& p, const std::vector<FitPoint>& points) {
  nlohmann::json j;
  j["backend"] = p.name;
  j["alpha_s"] = p.alpha;
  j["beta_s_per_byte"] = p.beta;
  j["bandwidth_Bps"] = p.bandwidth();
  j["gamma_s_per_byte"] = p.gamma;
  j["delta_s_per_byte"] = p.delta;
  j["n_half_bytes"] = p.n_half();
  j["cores"] = p.cores;
  j["fused_recv_reduce"] = p.fused_recv_reduce;
  j["break_bytes"] = p.break_bytes;
  j["alpha_small_s"] = p.alpha_small;
  j["beta_small_s_per_byte"] = p.beta_small;
  j["points"] = nlohmann::json::array();
  for (const auto& pt : points) j["points"].push_back({{"bytes", pt.bytes}, {"seconds", pt.seconds}});
  const std::filesystem::path fp(path);
  std::error_code ec;
  if (fp.has_parent_path()) std::filesystem::create_directories(fp.parent_path(), ec);
  std::ofstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

CostParams load_profile(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw UsageError(fmt::format("profile '{}' cannot be read (run `microddp calibrate` first)", path));
  std::stringstream ss;
  ss << f.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("profile '{}' does not parse as JSON: {}", path, e.what()));
  }
  if (!j.is_object() || !j.contains("alpha_s") || !j.contains("beta_s_per_byte") || !j["alpha_s"].is_number() ||
      !j["beta_s_per_byte"].is_number())
    throw UsageError(fmt::format("profile '{}' lacks numeric alpha_s and beta_s_per_byte", path));
  CostParams p;
  auto num = [&](const char* k, double d) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : d; };
  p.name = j.contains("backend") && j["backend"].is_string() ? j["backend"].get<std::string>() : "profile";
  p.alpha = num("alpha_s", 0);
  p.beta = num("beta_s_per_byte", 0);
  p.gamma = num("gamma_s_per_byte", 0);
  p.delta = num("delta_s_per_byte", 0);
  p.cores = static_cast<int>(num("cores", 0));
  p.fused_recv_reduce = j.contains("fused_recv_reduce") && j["fused_recv_reduce"].is_boolean() &&
                        j["fused_recv_reduce"].get<bool>();
  p.break_bytes = static_cast<int64_t>(num("break_bytes", 0));
  p.alpha_small = num("alpha_small_s", 0);
  p.beta_small = num("beta_small_s_per_byte", 0);
  return p;
}

std::optional<CostParams> resolve_params(const ParamChoice& c) {
  if (c.alpha >= 0 || c.bandwidth >= 0) {
    if (c.alpha < 0) throw UsageError(fmt::format("--bandwidth {} needs --alpha SECONDS too", c.bandwidth));
    if (c.bandwidth < 0) throw UsageError(fmt::format("--alpha {} needs --bandwidth BYTES_PER_S too", c.alpha));
    if (!(c.bandwidth > 0))
      throw UsageError(fmt::format("--bandwidth {} must be a positive number of bytes per second", c.bandwidth));
    if (c.gamma < 0) throw UsageError(fmt::format("--gamma {} must not be negative", c.gamma));
    CostParams p;
    p.name = "custom";
    p.alpha = c.alpha;
    p.beta = 1.0 / c.bandwidth;
    p.gamma = c.gamma;
    return p;
  }
  if (!c.preset.empty()) return preset(c.preset);
  if (!c.profile.empty()) return load_profile(c.profile);
  const std::string def = default_profile_path();
  if (std::filesystem::exists(def)) return load_profile(def);
  return std::nullopt;
}

}  // namespace microddp
