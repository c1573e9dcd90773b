// The cost model's parameters (core/model/cost_model.h): the link presets,
// CostTerms' sum, and CostParams' lookups (b(n), w(n), the memory bus B(k),
// and the cache curve's β, γ, δ, ε, φ at a footprint).
#include "core/model/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace microddp {

const std::vector<CostParams>& cost_presets() {
  static const std::vector<CostParams> p = [] {
    auto mk = [](const char* n, double a, double bw) {
      CostParams c;
      c.name = n;
      c.alpha = a;
      c.beta = 1.0 / bw;
      return c;
    };
    return std::vector<CostParams>{mk("nvlink", 1e-6, 600e9), mk("infiniband", 2e-6, 25e9),
                                   mk("pcie5", 1.5e-6, 50e9), mk("ethernet-100g", 10e-6, 12.5e9),
                                   mk("ethernet-10g", 25e-6, 1.25e9)};
  }();
  return p;
}

CostParams preset(const std::string& name) {
  std::string list;
  for (const auto& p : cost_presets()) {
    if (p.name == name) return p;
    list += (list.empty() ? "" : ", ") + p.name;
  }
  throw UsageError(fmt::format("unknown preset '{}' (expected one of: {})", name, list));
}

CostTerms& CostTerms::operator+=(const CostTerms& o) {
  alpha_s += o.alpha_s;
  beta_s += o.beta_s;
  gamma_s += o.gamma_s;
  delta_s += o.delta_s;
  bus_s += o.bus_s;
  coherence_s += o.coherence_s;
  barrier_s += o.barrier_s;
  wait_s += o.wait_s;
  return *this;
}

namespace {
// A per-world-size table t[n-2]: 0 for n < 2 or an empty table; beyond the
// table, linear in log2 n through the last two entries (never below the
// last one).
double by_world_size(const std::vector<double>& t, int n) {
  if (n < 2 || t.empty()) return 0.0;
  const size_t i = static_cast<size_t>(n - 2);
  if (i < t.size()) return t[i];
  if (t.size() < 2) return t.back();
  const size_t k = t.size() - 1;
  const double n1 = static_cast<double>(k + 1), n2 = static_cast<double>(k + 2);  // their world sizes
  const double slope = (t[k] - t[k - 1]) / (std::log2(n2) - std::log2(n1));
  return std::max(t[k], t[k] + slope * (std::log2(static_cast<double>(n)) - std::log2(n2)));
}
}  // namespace

double CostParams::barrier_for(int n) const { return by_world_size(barrier_s, n); }
double CostParams::wait_for(int n) const { return by_world_size(wait_s, n); }

double CostParams::mem_bw_for(int threads) const {
  if (mem_bw_Bps.empty() || threads < 1) return 0.0;
  return mem_bw_Bps[std::min(mem_bw_Bps.size(), static_cast<size_t>(threads)) - 1];
}

double CacheCurve::at(const std::vector<double>& v, double footprint) const {
  const auto& f = footprint_bytes;
  if (footprint <= f.front()) return v.front();
  if (footprint >= f.back()) return v.back();
  const size_t hi = static_cast<size_t>(std::upper_bound(f.begin(), f.end(), footprint) - f.begin());
  const size_t lo = hi - 1;
  const double w = (std::log2(footprint) - std::log2(f[lo])) / (std::log2(f[hi]) - std::log2(f[lo]));
  return v[lo] + w * (v[hi] - v[lo]);
}

double CostParams::beta_at(double bytes, double footprint) const {
  if (cache.empty() || bytes < break_bytes) return beta_for(bytes);
  return cache.at(cache.beta, footprint);
}
double CostParams::gamma_at(double footprint) const { return cache.empty() ? gamma : cache.at(cache.gamma, footprint); }
double CostParams::delta_at(double footprint) const { return cache.empty() ? delta : cache.at(cache.delta, footprint); }
double CostParams::coherence_at(double footprint) const {
  return cache.has_coherence() ? cache.at(cache.coherence, footprint) : 0.0;
}
double CostParams::fresh_read_at(double distance) const {
  return cache.has_fresh_read() ? cache.at(cache.fresh_read, distance) : 0.0;
}
double CostParams::mem_bw_at(int threads, double footprint) const {
  const double B = mem_bw_for(threads);
  if (cache.empty()) return B;
  // relative to the curve's own δ beyond the caches (its last point), not
  // the flat δ, which calibrate measures at another footprint
  const double beyond = cache.delta.back(), d = delta_at(footprint);
  return beyond > 0 && d > 0 ? B * std::max(1.0, beyond / d) : B;
}

}  // namespace microddp
