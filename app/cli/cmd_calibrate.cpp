// microddp calibrate: measure α, β (ping-pong), γ (reduction kernel) and δ
// (memcpy) on this machine and write the profile that predict and bench use.
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>

#include "app/cli/commands.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"

namespace microddp::cli {
namespace {

struct Args {
  std::string backend = "threads", out, min = "4", max = "64M";
  int warmup = 3;
  bool no_cache_curve = false;
};

int run(const Args& a) {
  CalibrateOptions o;
  o.backend = a.backend;
  o.min_bytes = parse_size(a.min);
  o.max_bytes = parse_size(a.max);
  if (a.warmup < 0) throw UsageError(fmt::format("--warmup {} must not be negative", a.warmup));
  o.warmup = a.warmup;
  o.cache_curve = !a.no_cache_curve;
  o.progress = [](const std::string& line) {
    std::printf("  %s\n", line.c_str());
    std::fflush(stdout);
  };
  const std::string path = a.out.empty() ? default_profile_path() : a.out;
  // Other work on the CPUs disturbs every figure below: say so first.
  if (const double busy = cpu_busy_fraction(); busy > 0.25)
    std::printf("warning: the CPUs are already %.0f%% busy with other work; every figure below will be off (calibrate "
                "on an idle machine)\n",
                busy * 100);
  std::printf("calibrating backend %s: ping-pong between 2 ranks, %lld B .. %lld B (median one-way time)\n",
              a.backend.c_str(), static_cast<long long>(o.min_bytes), static_cast<long long>(o.max_bytes));
  const CalibrationResult r = calibrate(o);
  const CostParams& p = r.params;
  auto show = [](const char* what, const LineFit& f) { std::printf("%s\n", fit_line_text(what, f).c_str()); };
  std::printf("\n");
  show("one line   ", r.fit.one);
  if (r.fit.break_bytes) {
    std::printf("one line does not fit (max residual above 15%%): split at %lld B\n",
                static_cast<long long>(r.fit.break_bytes));
    show("small msgs ", r.fit.small);
    show("large msgs ", r.fit.large);
    // A break usually sits at a cache edge: a message of m bytes touches 2m
    // (the sender's source, the receiver's destination).
    if (const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0)
      std::printf("(this CPU's L2 cache: %ld B per core; a message of m bytes touches 2m, so up to %ld B can stay in it)\n",
                  l2, l2 / 2);
  }
  const LineFit& large = r.fit.break_bytes ? r.fit.large : r.fit.one;
  if (!(large.beta > 0))
    std::printf("warning: the large-message times did not grow with size (β <= 0): the measurement was disturbed, so the "
                "profile uses the copy's δ as β; run calibrate again on an idle machine\n");
  std::printf("γ (float32 sum kernel, 1 thread) = %.4g s/B  (%.3f GB/s)\n", p.gamma, r.reduce_Bps / 1e9);
  std::printf("δ (memcpy, 1 thread)             = %.4g s/B  (%.3f GB/s)\n", p.delta, r.memcpy_Bps / 1e9);
  std::printf("profile: α = %.3f us, bandwidth = %.3f GB/s, γ = %.4g s/B, n½ = %.0f B, cores = %d\n", p.alpha * 1e6,
              p.bandwidth() / 1e9, p.gamma, p.n_half(), p.cores);
  if (!p.barrier_s.empty())
    std::printf("lockstep barrier b(n) = %.3f us at n = 2, %.3f us at n = %zu (b(2) taken out of the ping-pong times)\n",
                p.barrier_s.front() * 1e6, p.barrier_s.back() * 1e6, p.barrier_s.size() + 1);
  if (!p.wait_s.empty())
    std::printf("peer wait w(n) = %.3f us at n = 2, %.3f us at n = %d, %.3f us at n = %zu (once per step to a receiver sharing a core with a busy rank, or whose sender does)\n",
                p.wait_for(2) * 1e6, p.wait_for(p.cores + 1) * 1e6, p.cores + 1, p.wait_s.back() * 1e6,
                p.wait_s.size() + 1);
  if (!p.cache.empty()) {
    const auto& c = p.cache;
    std::printf("cache curve (%zu footprints, %.0f B .. %.0f B): β from %.3f to %.3f GB/s, δ from %.3f to %.3f GB/s; each "
                "step is priced at its footprint (per-rank bytes read + written x ranks sharing the cache)\n",
                c.footprint_bytes.size(), c.footprint_bytes.front(), c.footprint_bytes.back(), 1e-9 / c.beta.front(),
                1e-9 / c.beta.back(), 1e-9 / c.delta.front(), 1e-9 / c.delta.back());
  }
  if (!p.mem_bw_Bps.empty())
    std::printf("memory bus B(k) = %.3f GB/s with 1 thread, %.3f GB/s with %zu (roofline for min(n, cores) ranks)\n",
                p.mem_bw_Bps.front() / 1e9, p.mem_bw_Bps.back() / 1e9, p.mem_bw_Bps.size());
  write_profile(path, p, r.points);
  std::printf("wrote %s\n", path.c_str());
  return 0;
}

}  // namespace

std::function<int()> setup_calibrate(CLI::App* sub) {
  static Args a;
  sub->add_option("--backend", a.backend, "backend to measure")->capture_default_str();
  sub->add_option("--out,--output", a.out, "profile file (default: " + default_profile_path() + ")");
  sub->add_option("--min", a.min, "smallest ping-pong size (bytes; K, M suffixes)")->capture_default_str();
  sub->add_option("--max", a.max, "largest ping-pong size")->capture_default_str();
  sub->add_option("--warmup", a.warmup, "warm-up iterations per size")->capture_default_str();
  sub->add_flag("--no-cache-curve", a.no_cache_curve, "skip the cache curve (flat β, γ, δ, as older profiles)");
  return [] { return run(a); };
}

}  // namespace microddp::cli
