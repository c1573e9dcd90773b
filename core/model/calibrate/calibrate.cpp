// calibrate() itself, which runs the probes of probes.cpp in order
// (core/model/calibrate/calibrate.h), with its option checks, the fitted
// message lines set into the parameters, and KeepFreedMemory.
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "core/exec/executor.h"
#include "core/ir/limits.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

namespace microddp {

namespace {
// Keeps a table non-decreasing (running max): more ranks never make a
// barrier or a peer wait cheaper; a dip is noise.
void running_max(std::vector<double>& v) {
  for (size_t i = 1; i < v.size(); ++i) v[i] = std::max(v[i], v[i - 1]);
}
}  // namespace

void set_message_lines(CostParams& p, const CalibrationFit& fit) {
  const LineFit& main = fit.break_bytes ? fit.large : fit.one;
  p.alpha = std::max(0.0, main.alpha);
  p.beta = std::max(0.0, main.beta);
  p.break_bytes = fit.break_bytes;
  p.alpha_small = p.beta_small = 0;
  if (fit.break_bytes) {
    p.alpha_small = std::max(0.0, fit.small.alpha);
    p.beta_small = std::max(0.0, fit.small.beta);
    if (fit.large.through_zero) p.alpha = p.alpha_small;
  }
}

namespace {
std::atomic<int> keep_freed_depth{0};
}
KeepFreedMemory::KeepFreedMemory() {
  if (keep_freed_depth.fetch_add(1) > 0) return;  // an outer guard holds
  mallopt(M_MMAP_MAX, 0);         // every block from the heap (brk) ...
  mallopt(M_TRIM_THRESHOLD, -1);  // ... and the heap never shrinks
}
KeepFreedMemory::~KeepFreedMemory() {
  if (keep_freed_depth.fetch_sub(1) > 1) return;
  // Where glibc's own sliding thresholds end up (mallopt(3)): mmap from
  // 32 MiB, trim above 64 MiB free. Any mallopt call fixes them for good.
  mallopt(M_MMAP_MAX, 65536);
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  malloc_trim(0);
}

void validate_calibrate(const CalibrateOptions& opt) {
  if (opt.backend != "threads")
    throw UsageError(fmt::format("calibrate: backend '{}' is not supported here (expected: threads)", opt.backend));
  if (opt.min_bytes < 4 || opt.max_bytes < opt.min_bytes)
    throw UsageError(fmt::format("calibrate: sizes {}..{} B (need 4 <= min <= max)", opt.min_bytes, opt.max_bytes));
  {
    // The largest size measured (min doubled while it stays <= max) is
    // held in ping_pong_slots() slots by each of the 2 ranks, as input and
    // output, and about as much again in the backend's copies.
    int64_t largest = opt.min_bytes;
    while (largest <= opt.max_bytes / 2) largest *= 2;
    check_memory(8.0 * ping_pong_slots(largest) * static_cast<double>(largest),
                 fmt::format("calibrate --max {} (a ping-pong of {} B)", opt.max_bytes, largest));
  }
  if (opt.size_factor < 2) throw UsageError(fmt::format("calibrate: size factor {} (need >= 2)", opt.size_factor));
}

CalibrationResult calibrate(const CalibrateOptions& opt) {
  validate_calibrate(opt);
  CalibrationResult res;
  const int cores = allowed_cpu_count();  // the CPUs the rank threads are bound to (taskset, cgroups)
  const int rounds = std::max(1, opt.rounds);
  const int state_rounds = std::max(1, opt.state_rounds);
  // Progress as a share of the pieces: the barriers, each ping-pong size of
  // each round, the two kernels, the bus, the peer waits, and the cache
  // curve counted as much as the whole ping-pong (it is as long or longer).
  int64_t n_sizes = 0;
  for (int64_t m = opt.min_bytes; m <= opt.max_bytes; m *= opt.size_factor) ++n_sizes;
  const double sweep = double(state_rounds * n_sizes);
  const double pieces = 1.0 + sweep + 2 + 1 + 1 + (opt.cache_curve ? sweep : 0.0);
  double done = 0;
  const auto advance = [&](double k) {
    done += k;
    if (opt.fraction) opt.fraction(std::min(1.0, done / pieces));
  };
  // Barriers first: the ping-pong times below hold one barrier of 2 ranks each.
  res.barrier_s = measure_barrier_s(std::max(2, opt.max_barrier_ranks), state_rounds);
  advance(1);
  if (opt.progress)
    for (size_t i = 0; i < res.barrier_s.size(); ++i)
      opt.progress(fmt::format("barrier of {} ranks: {:10.2f} µs", i + 2, res.barrier_s[i] * 1e6));
  const double b2 = res.barrier_s.empty() ? 0.0 : res.barrier_s[0];
  std::vector<int64_t> sizes;
  for (int64_t m = opt.min_bytes; m <= opt.max_bytes; m *= opt.size_factor)
    sizes.push_back(std::max<int64_t>(1, m / 4) * 4);
  // Per size, the mode of each round's samples, then the median over the
  // rounds: up to 1 MiB a round lasts a few ms, shorter than the machine's
  // speed states (on a VM they last 0.1-0.5 s), so each round's mode is one
  // state, and the median over rounds spread across the sweep is the usual
  // one. Every round takes at least 5 samples (one per step after the
  // first), so its mode is not simply its fastest sample.
  std::vector<std::vector<double>> modes(sizes.size());
  std::vector<int64_t> counts(sizes.size(), 0);
  std::vector<int> slots(sizes.size());
  for (int round = 0; round < state_rounds; ++round)
    for (size_t si = 0; si < sizes.size(); ++si) {
      slots[si] = ping_pong_slots(sizes[si]);
      const int64_t per_iter = 2 * slots[si] * sizes[si];
      const int per_iter_samples = 2 * slots[si] - 1;  // step_samples leaves out each iteration's first step
      const int iters = std::max(
          (5 + per_iter_samples - 1) / per_iter_samples,
          static_cast<int>(std::clamp<int64_t>((int64_t{1} << 30) / std::max<int64_t>(per_iter, 1), 5,
                                               std::max(5, opt.max_iters))) / state_rounds);
      const std::vector<double> got = ping_pong_step_samples(sizes[si], slots[si], opt.warmup, iters);
      modes[si].push_back(mode_estimate(got));
      counts[si] += static_cast<int64_t>(got.size());
      advance(1);
    }
  for (size_t si = 0; si < sizes.size(); ++si) {
    const double step = median(modes[si]);
    const bool floored = step - b2 < 0.1 * step;
    const double t = floored ? 0.1 * step : step - b2;  // the message alone
    res.points.push_back({sizes[si], t});
    if (opt.progress)
      opt.progress(fmt::format("ping-pong {:>9} B: {:10.2f} µs one way (= {}; {}, {} rotating buffer slot{})", sizes[si],
                               t * 1e6,
                               floored ? fmt::format("a floor of 10% of the step {:.2f} µs: the barrier b(2) measured "
                                                     "{:.2f} µs, 90% of the step or more",
                                                     step * 1e6, b2 * 1e6)
                                       : fmt::format("step {:.2f} µs minus the barrier b(2)", step * 1e6),
                               modes[si].size() == 1
                                   ? fmt::format("the mode of {} samples", counts[si])
                                   : fmt::format("the median of {} rounds' modes, {} samples", modes[si].size(), counts[si]),
                               slots[si], slots[si] == 1 ? "" : "s"));
  }
  // An isolated dip or spike (a size that happened to catch a quiet or a
  // busy moment) would dominate a 1/t²-weighted fit: a 3-point running
  // median (Tukey) over the sizes removes it; the ends are kept.
  {
    std::vector<FitPoint> sm = res.points;
    for (size_t i = 1; i + 1 < sm.size(); ++i) {
      double v[3] = {res.points[i - 1].seconds, res.points[i].seconds, res.points[i + 1].seconds};
      std::sort(v, v + 3);
      sm[i].seconds = v[1];
    }
    res.points = sm;
  }
  res.fit = fit_message_times(res.points);
  // The machine-state probe's second reference (state_probe_ratio): both ranks busy at once.
  res.params.exchange_32k_s = measure_exchange_step_s(kStateProbeBytes, rounds);
  res.memcpy_Bps = measure_memcpy_Bps(opt.kernel_bytes);
  res.reduce_Bps = measure_reduce_Bps(opt.kernel_bytes);
  advance(2);
  res.mem_bw_Bps = measure_mem_bw_Bps(std::min(cores, 16), opt.kernel_bytes, rounds);
  advance(1);
  if (opt.progress)
    for (size_t i = 0; i < res.mem_bw_Bps.size(); ++i)
      opt.progress(fmt::format("memory bus, {} thread(s) copying: {:8.3f} GB/s read + written", i + 1,
                               res.mem_bw_Bps[i] / 1e9));
  CostParams& p = res.params;
  p.name = opt.backend;
  set_message_lines(p, res.fit);
  p.gamma = res.reduce_Bps > 0 ? 1.0 / res.reduce_Bps : 0;
  p.delta = res.memcpy_Bps > 0 ? 1.0 / res.memcpy_Bps : 0;
  // A large-message line that does not grow with size is a disturbed
  // measurement; a profile needs β > 0, and a recv is one copy, so the
  // copy's δ stands in (cmd_calibrate warns).
  if (!(p.beta > 0)) p.beta = p.delta;
  p.fused_recv_reduce = true;
  p.cores = cores;
  // More ranks never make a barrier or a peer wait cheaper: a dip in the
  // table is noise, and the last entry decides every larger world size
  // (barrier_for extrapolates from it), so keep the running max. B(k) is
  // kept as measured: all k threads copy at once, and a B(2) below B(1) can
  // be real (two virtual CPUs on one physical core).
  running_max(res.barrier_s);
  p.barrier_s = res.barrier_s;
  p.threads_wait = "spin";  // threads_spin_budget_ns: the wait the barriers and steps were measured with
  p.mem_bw_Bps = res.mem_bw_Bps;
  // Last, with α known: what a step of n ranks costs beyond α and b(n).
  res.peer_wait_s = measure_peer_wait_s(res.barrier_s, p.message_s(4), state_rounds);
  advance(1);
  running_max(res.peer_wait_s);
  p.wait_s = res.peer_wait_s;
  if (opt.progress)
    for (size_t i = 0; i < res.peer_wait_s.size(); ++i)
      opt.progress(fmt::format("peer wait of {} ranks: {:10.2f} µs per receiving step", i + 2,
                               res.peer_wait_s[i] * 1e6));
  // Each protocol's line (protocol_model.h), a second or two.
  res.params.protocols = measure_protocol_costs(b2, std::min(rounds, 3), opt.progress);
  // The cache curve needs α and b(2) (to take them out of the ping-pong
  // steps), so it comes after the flat fit.
  if (opt.cache_curve) {
    res.llc_bytes = last_level_cache_bytes();
    const std::vector<double> fps = cache_sweep_footprints(res.llc_bytes, memory_budget_bytes());
    if (opt.progress)
      opt.progress(fmt::format("cache curve: footprints {:.0f} B .. {:.0f} B (largest data cache of this CPU: {} B; it only "
                               "sets where the sweep ends)",
                               fps.front(), fps.back(), res.llc_bytes));
    p.cache = measure_cache_curve(fps, p, state_rounds, opt.progress, 5 * rounds);
    advance(sweep);
  }
  return res;
}

}  // namespace microddp
