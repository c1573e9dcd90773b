// The cache curve: β, γ and δ measured by step footprint, the sweep that
// chooses the footprints, and the profile's "cache_curve" object
// (core/model/calibrate/calibrate.h; the model's use of it is in
// core/model/cost_model.h).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/exec/executor.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

namespace microddp {

namespace {
using Clock = std::chrono::steady_clock;

// "32768K", "2M", "1024" (sysfs cache sizes) in bytes; 0 when unreadable.
int64_t sysfs_size(const std::string& text) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string suf = text.substr(pos);
  const int64_t mult = suf.rfind('K', 0) == 0 ? 1024 : suf.rfind('M', 0) == 0 ? int64_t{1} << 20 : 1;
  return v > 0 ? static_cast<int64_t>(v) * mult : 0;
}

// 3-point running median (ends kept), as for the ping-pong points: one
// footprint that caught a busy moment must not bend the curve.
void smooth(std::vector<double>& v) {
  std::vector<double> out = v;
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    double w[3] = {v[i - 1], v[i], v[i + 1]};
    std::sort(w, w + 3);
    out[i] = w[1];
  }
  v = out;
}

// Seconds per destination byte of f(dst, src, n floats) on one pair of
// `bytes`-long buffers, repeated so the data stays where the last pass left
// it: one sample per batch of passes (a batch spans at least 1 MiB of
// destination so the clock's resolution does not matter).
template <typename F>
std::vector<double> kernel_samples(int64_t bytes, int samples, F&& f) {
  const size_t n = static_cast<size_t>(std::max<int64_t>(1, bytes / 4));
  std::vector<float> src(n, 1.0f), dst(n, 0.5f);
  const int inner = static_cast<int>(std::max<int64_t>(1, (int64_t{1} << 20) / static_cast<int64_t>(n * 4)));
  f(dst.data(), src.data(), static_cast<int64_t>(n));  // first touch and warm-up
  std::vector<double> out;
  for (int s = 0; s < samples; ++s) {
    const auto a = Clock::now();
    for (int i = 0; i < inner; ++i) f(dst.data(), src.data(), static_cast<int64_t>(n));
    const double sec = std::chrono::duration<double>(Clock::now() - a).count();
    out.push_back(sec / inner / static_cast<double>(n * 4));
  }
  return out;
}
}  // namespace

DataCacheSizes data_cache_sizes() {
  // The kernel's view first: glibc's sysconf derives the sizes from CPUID,
  // which a VM may fill with the host's figures (here: 320 MiB of "L3" on a
  // guest whose sysfs says 32 MiB).
  DataCacheSizes c;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::ifstream type(dir + "type"), size(dir + "size"), level(dir + "level");
    std::string t, z;
    int lv = 0;
    if (!(type >> t) || !(size >> z) || t == "Instruction") continue;
    if (!(level >> lv)) lv = 3;  // no level given: counted with the L3, so largest() still sees it
    int64_t* slot = lv == 1 ? &c.l1d : lv == 2 ? &c.l2 : lv == 3 ? &c.l3 : lv == 4 ? &c.l4 : nullptr;
    if (slot) *slot = std::max(*slot, sysfs_size(z));
  }
  if (c.largest() > 0) return c;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  c.l1d = std::max<int64_t>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  c.l2 = std::max<int64_t>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
  c.l3 = std::max<int64_t>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
  c.l4 = std::max<int64_t>(0, sysconf(_SC_LEVEL4_CACHE_SIZE));
#endif
  return c;
}

namespace {
// 48 KiB, 1 MiB, 508 MiB; bytes when not a whole number of KiB.
std::string size_text(int64_t b) {
  if (b >= (int64_t{1} << 20) && b % (int64_t{1} << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}
}  // namespace

std::string split_cache_text(int64_t break_bytes, const DataCacheSizes& caches) {
  const struct {
    const char* name;
    int64_t bytes;
  } levels[] = {{"L1d", caches.l1d}, {"L2", caches.l2}, {"L3", caches.l3}, {"L4", caches.l4}};
  const int slots = ping_pong_slots(break_bytes);
  const int64_t pool = static_cast<int64_t>(slots) * break_bytes;
  std::string sizes, in;
  for (const auto& lv : levels) {
    if (lv.bytes <= 0) continue;
    sizes += fmt::format("{}{} {}", sizes.empty() ? "" : ", ", lv.name, size_text(lv.bytes));
    if (in.empty() && pool <= lv.bytes) in = lv.name;
  }
  if (sizes.empty()) return "";
  return fmt::format("(this CPU's caches: {}; at the split, {} messages, the ping-pong rotates {} buffer slot{}, {} "
                     "per rank, which fits in {}: the split is where two lines fit best, not always a cache edge)",
                     sizes, size_text(break_bytes), slots, slots == 1 ? "" : "s", size_text(pool),
                     in.empty() ? "none of them" : "the " + in);
}

int64_t last_level_cache_bytes() { return data_cache_sizes().largest(); }

bool cache_curve_measures_in_round(double footprint_bytes, int round, int total_rounds) {
  // Above 64 MiB one round of a probe lasts from 0.4 s to over 10 s
  // (measured on a 2-core Xeon VM with a 260 MiB L3, most of it the kernel
  // zeroing fresh pages): longer than one of the machine's speed states, so
  // it averages over them by itself. Such a footprint is measured in 3 of the
  // rounds, which keeps calibrate to minutes on a CPU whose sweep reaches
  // 1 GiB.
  constexpr double kLargeFootprintBytes = 64.0 * (1 << 20);
  constexpr int kLargeFootprintRounds = 3;
  if (footprint_bytes <= kLargeFootprintBytes) return true;
  // rounds floor(j·T / 3), j = 0, 1, 2: of 9, 0, 3, 6; of 15, 0, 5, 10; of 2, 0 and 1
  const int T = std::max(1, total_rounds);
  for (int j = 0; j < kLargeFootprintRounds; ++j)
    if (round == j * T / kLargeFootprintRounds) return true;
  return false;
}

std::vector<double> cache_sweep_footprints(int64_t llc_bytes, double budget_bytes) {
  // The memory a footprint F needs at its peak, in units of F: measured
  // 5.0·F for β's ping-pong and 5.6·F for an ε sample (F = 2 GiB, each probe
  // alone), 6.25·F for a whole calibrate that keeps freed pages
  // (KeepFreedMemory); 8 leaves room for the heap's fragments.
  constexpr double kSweepPeakPerFootprint = 8;
  const double want = llc_bytes > 0 ? std::max(4.0 * static_cast<double>(llc_bytes), 64.0 * (1 << 20)) : 128.0 * (1 << 20);
  // The last footprint is `want` itself (a multiple of 4 KiB) rather than
  // the next power of two, and a power of two within 1.25× below it is
  // left out: on a 260 MiB L3 the sweep ends 512 MiB, 1040 MiB, not 1 GiB,
  // 2 GiB, whose probes alone took a minute a round.
  const double last = std::ceil(want / 4096) * 4096;
  std::vector<double> f;
  for (double x = 8192; ; x *= 2) {
    const double at = 1.25 * x < last ? x : last;
    if (f.size() >= 2 && kSweepPeakPerFootprint * at > budget_bytes) {
      // no room for `last`: the power of two it replaced may still fit
      if (at > x && kSweepPeakPerFootprint * x <= budget_bytes) f.push_back(x);
      break;
    }
    f.push_back(at);
    if (at >= last) break;
  }
  return f;
}

CacheCurve measure_cache_curve(const std::vector<double>& fps, const CostParams& flat, int rounds,
                               const std::function<void(const std::string&)>& progress, int coherence_samples) {
  const size_t k = fps.size();
  std::vector<std::vector<double>> sb(k), sg(k), sd(k), se(k), sf(k);
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (size_t i = 0; i < k; ++i) {
      const double F = fps[i];
      if (!cache_curve_measures_in_round(F, round, rounds)) continue;
      // δ: a copy of F/2 bytes reads F/2 and writes F/2.
      const int64_t copy_bytes = std::max<int64_t>(4, static_cast<int64_t>(F / 2) / 4 * 4);
      // Each round gives one estimate per quantity (its samples' median; β:
      // their mode) and the curve takes the median over the rounds: a round
      // is one of the machine's speed states, and the rounds are spread over
      // the sweep (as the ping-pong's, calibrate.h).
      sd[i].push_back(median(kernel_samples(copy_bytes, 7, [](float* d, const float* s, int64_t n) {
        kernels::copy(DType::float32, d, s, n);
      })));
      // γ: a sum into F/3 bytes reads 2·F/3 and writes F/3.
      const int64_t red_bytes = std::max<int64_t>(4, static_cast<int64_t>(F / 3) / 4 * 4);
      sg[i].push_back(median(kernel_samples(red_bytes, 7, [](float* d, const float* s, int64_t n) {
        kernels::reduce(DType::float32, ReduceOp::sum, d, s, n);
      })));
      // β: one slot, so the message's source and destination stay where the
      // previous step left them; enough iterations to move >= 64 MiB (at least
      // 8: one timed step each, and the round's mode needs a majority of
      // undisturbed ones).
      const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{64} << 20) / std::max<int64_t>(copy_bytes, 1), 8, 100));
      sb[i].push_back(mode_estimate(ping_pong_step_samples(copy_bytes, 1, 2, iters)));
    }
  // ε: copies of m bytes over what the peer read, against the same copies
  // over what nobody read, in slots rotating over about F bytes
  // (measure_coherence_s_per_byte: 5 · slots · m bytes between a read and
  // the write over it). On a VM the cost changes from moment to moment
  // (measured here: about 0, 110 and 530 ps/B, switching within 0.2 s, as
  // the host moves the two virtual CPUs), so ε takes more, shorter samples
  // than β, γ and δ, spread over several seconds, and keeps their median.
  for (int round = 0; round < std::max(1, coherence_samples); ++round)
    for (size_t i = 0; i < k; ++i) {
      const double F = fps[i];
      if (!cache_curve_measures_in_round(F, round, coherence_samples)) continue;
      const int64_t m = std::clamp<int64_t>(static_cast<int64_t>(F / 8) / 4 * 4, 4, int64_t{64} << 10);
      const int slots = static_cast<int>(std::max<int64_t>(2, static_cast<int64_t>(F) / (5 * m)));
      const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{64} << 20) / (5 * slots * m), 8, 100));
      se[i].push_back(measure_coherence_s_per_byte(m, slots, 2, iters));
      // φ: receives of m bytes out of what the sender wrote about F bytes
      // of traffic ago, against receives out of what nobody wrote
      // (measure_fresh_read_s_per_byte: 6 · slots · m bytes between).
      const int fslots = static_cast<int>(std::max<int64_t>(2, static_cast<int64_t>(F) / (6 * m)));
      const int fiters = static_cast<int>(std::clamp<int64_t>((int64_t{64} << 20) / (6 * fslots * m), 8, 100));
      sf[i].push_back(measure_fresh_read_s_per_byte(m, fslots, 2, fiters));
    }
  CacheCurve c;
  for (size_t i = 0; i < k; ++i) {
    const double m = std::max<double>(4, std::floor(fps[i] / 2 / 4) * 4);
    c.footprint_bytes.push_back(fps[i]);
    c.delta.push_back(median(sd[i]));
    c.gamma.push_back(median(sg[i]));
    const double step = median(sb[i]);
    c.beta.push_back((step - flat.barrier_for(2) - flat.alpha_for(m)) / m);
  }
  for (size_t i = 0; i < k; ++i) c.coherence.push_back(median(se[i]));
  for (size_t i = 0; i < k; ++i) c.fresh_read.push_back(median(sf[i]));
  smooth(c.delta);
  smooth(c.gamma);
  smooth(c.coherence);
  smooth(c.fresh_read);
  // A recv is one copy out of the peer's buffer: never cheaper than a local
  // copy of the same footprint (at small F the step is mostly α and b(2),
  // and the subtraction above is noise).
  for (size_t i = 0; i < k; ++i) c.beta[i] = std::max(c.beta[i], c.delta[i]);
  smooth(c.beta);
  if (progress) {
    // one table: β, γ, δ as bandwidths; ε and φ as the median of their
    // samples, then the value kept after the running median over footprints
    // (the profile's), ε with the range of its samples
    progress("cache curve by footprint: β, γ, δ in GB/s (per byte of the destination); ε, φ in ps per byte, "
             "the median of the samples -> after a running median over footprints (kept)");
    progress("ε: extra per byte written over what the other core read; φ: extra per byte read that the other core wrote");
    progress(fmt::format("{:>12}  {:>8} {:>8} {:>8}   {:>20} {:>16}   {:>16}", "footprint", "β", "γ", "δ",
                         "ε samples (range)", "ε", "φ"));
    for (size_t i = 0; i < k; ++i) {
      const auto [lo, hi] = std::minmax_element(se[i].begin(), se[i].end());
      progress(fmt::format("{:>10.0f} B  {:8.3f} {:8.3f} {:8.3f}   {:>3} ({:6.1f}..{:6.1f}) {:6.1f} -> {:6.1f}   "
                           "{:6.1f} -> {:6.1f}",
                           c.footprint_bytes[i], 1e-9 / c.beta[i], 1e-9 / c.gamma[i], 1e-9 / c.delta[i], se[i].size(),
                           *lo * 1e12, *hi * 1e12, median(se[i]) * 1e12, c.coherence[i] * 1e12,
                           median(sf[i]) * 1e12, c.fresh_read[i] * 1e12));
    }
  }
  return c;
}

nlohmann::json cache_curve_json(const CacheCurve& c) {
  nlohmann::json j;
  j["footprint_bytes"] = c.footprint_bytes;
  j["beta_s_per_byte"] = c.beta;
  j["gamma_s_per_byte"] = c.gamma;
  j["delta_s_per_byte"] = c.delta;
  if (!c.coherence.empty()) j["coherence_s_per_byte"] = c.coherence;
  if (!c.fresh_read.empty()) j["fresh_read_s_per_byte"] = c.fresh_read;
  j["rule"] =
      "a step is priced at footprint = largest per-rank bytes read + written in the step x ranks with traffic in the "
      "step; values interpolated linearly in log2(footprint), end values outside; coherence: extra seconds per byte a "
      "rank writes over bytes a rank on another core read since its last write; fresh_read: extra seconds per byte a "
      "rank receives that its sender on another core wrote since a rank on another core last read them; both "
      "indexed by reuse distance (the traffic between the two accesses) instead of a step's footprint";
  return j;
}

CacheCurve cache_curve_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) throw UsageError(fmt::format("profile '{}': cache_curve must be an object", path));
  auto arr = [&](const char* k, double lo, double hi, bool open_lo) {
    std::vector<double> v;
    if (!j.contains(k) || !j[k].is_array())
      throw UsageError(fmt::format("profile '{}': cache_curve.{} must be an array of numbers", path, k));
    for (size_t i = 0; i < j[k].size(); ++i) {
      const auto& x = j[k][i];
      const double d = x.is_number() ? x.get<double>() : std::nan("");
      if (!x.is_number() || !std::isfinite(d) || d > hi || (open_lo ? !(d > lo) : !(d >= lo)))
        throw UsageError(fmt::format("profile '{}': cache_curve.{}[{}] = {} (expected a number in {}{:g}, {:g}])",
                                     path, k, i, x.dump(), open_lo ? "(" : "[", lo, hi));
      v.push_back(d);
    }
    return v;
  };
  CacheCurve c;
  c.footprint_bytes = arr("footprint_bytes", 0.0, 1e15, true);
  c.beta = arr("beta_s_per_byte", 0.0, 1e-3, true);
  c.gamma = arr("gamma_s_per_byte", 0.0, 1e-3, false);
  c.delta = arr("delta_s_per_byte", 0.0, 1e-3, false);
  if (j.contains("coherence_s_per_byte")) c.coherence = arr("coherence_s_per_byte", 0.0, 1e-3, false);  // optional
  if (j.contains("fresh_read_s_per_byte")) c.fresh_read = arr("fresh_read_s_per_byte", 0.0, 1e-3, false);  // optional
  const size_t n = c.footprint_bytes.size();
  if (n == 0 || c.beta.size() != n || c.gamma.size() != n || c.delta.size() != n ||
      (!c.coherence.empty() && c.coherence.size() != n) || (!c.fresh_read.empty() && c.fresh_read.size() != n))
    throw UsageError(fmt::format(
        "profile '{}': cache_curve arrays must be non-empty and of one length (footprint_bytes {}, beta {}, gamma {}, "
        "delta {}{}{})",
        path, n, c.beta.size(), c.gamma.size(), c.delta.size(),
        c.coherence.empty() ? "" : fmt::format(", coherence {}", c.coherence.size()),
        c.fresh_read.empty() ? "" : fmt::format(", fresh_read {}", c.fresh_read.size())));
  for (size_t i = 1; i < n; ++i)
    if (!(c.footprint_bytes[i] > c.footprint_bytes[i - 1]))
      throw UsageError(fmt::format("profile '{}': cache_curve.footprint_bytes[{}] = {:g} is not above the entry before it",
                                   path, i, c.footprint_bytes[i]));
  return c;
}

}  // namespace microddp
