// The NCCL-shaped tuner fitted to published tables (nccl_system_fit.h).
#include "core/model/nccl_system_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/model/sweep.h"
#include "core/model/stats.h"

namespace microddp::nccl {
namespace {

struct Pt {
  int64_t bytes;
  double t_us;
};

// The tuner's collectives (tune() refuses the others).
bool tuner_collective(Collective c) {
  return c == Collective::all_reduce || c == Collective::all_gather || c == Collective::reduce_scatter ||
         c == Collective::broadcast || c == Collective::reduce;
}

// One pass of the bandwidth fit: the scale that makes the chosen
// candidate's bytes term match (published − latency), median over the rows.
double fit_scale(const SystemDesc& s, Collective c, const std::vector<Pt>& rows, const std::string& path) {
  std::vector<double> v;
  for (const Pt& p : rows) {
    const Candidate b = tune(s, c, p.bytes).best();
    const double bytes_term = b.time_us - b.latency_us;
    if (p.t_us > b.latency_us && bytes_term > 0) v.push_back(s.bw_scale * bytes_term / (p.t_us - b.latency_us));
  }
  if (v.empty())
    throw UsageError(fmt::format("{}: no large row takes longer than the tuner's latency on {}: the bus bandwidth "
                                 "cannot be fitted from it",
                                 path, s.name));
  return median(v);
}

}  // namespace

std::string system_for_gpu(const std::string& gpu) {
  const auto has = [&](const char* w) { return gpu.find(w) != std::string::npos; };
  if (has("GH200") || has("GB200")) return "";
  if (has("H200")) return "hgx-h200";
  if (has("H100")) return "dgx-h100";
  if (has("A100")) return has("PCIe") ? "pcie-a100" : "dgx-a100";
  return "";
}

std::vector<RowComparison> compare_tuner(const NcclTestsTable& t, Collective c, const SystemDesc& s) {
  return compare_rows(t, t.world_size(), [&](int64_t bytes) { return tune(s, c, bytes).best().time_us * 1e-6; });
}

SystemFit fit_system(const std::vector<NcclTestsTable>& tables, const SystemFitOptions& o) {
  check_one_system(tables);
  const NcclTestsTable& first = tables.front();
  SystemFit f;
  f.collective = *model_collective(first.collective);
  f.collective_name = first.collective;
  if (!tuner_collective(f.collective))
    throw UsageError(fmt::format("{}: the NCCL-shaped tuner has no {} (it models all_reduce, all_gather, "
                                 "reduce_scatter, broadcast and reduce): fit it with --model alpha-beta",
                                 first.path, first.collective));
  f.gpu = first.gpu();
  f.ranks = first.world_size();
  f.nodes = first.nodes();
  f.base = o.base.empty() ? system_for_gpu(f.gpu) : o.base;
  if (f.base.empty()) {
    std::string known;
    for (const SystemDesc& d : system_presets()) known += (known.empty() ? "" : ", ") + d.name;
    throw UsageError(fmt::format("{}: its GPU '{}' matches no named NCCL system: give --nccl-system NAME (one of {}) "
                                 "or --model alpha-beta",
                                 first.path, f.gpu, known));
  }
  SystemDesc s = system_preset(f.base);
  if (f.ranks / f.nodes != s.gpus_per_node)
    throw UsageError(fmt::format("{}: {} has {} ranks per node; NCCL system {} has {} GPUs per node", first.path,
                                 first.system_text(), f.ranks / f.nodes, s.name, s.gpus_per_node));
  s = with_ranks(s, f.ranks);
  s.launch_us = 0;
  s.bw_scale = 1;
  std::vector<Pt> pts;
  for (const auto& t : tables) {
    f.sources.push_back(t.path);
    for (const auto& r : t.rows)
      if (r.out_of_place_usable() &&
          (f.collective != Collective::all_gather && f.collective != Collective::reduce_scatter ? true
                                                                                               : r.bytes >= f.ranks))
        pts.push_back({r.bytes, r.out_of_place.time_us});
  }
  if (pts.empty())
    throw UsageError(fmt::format("{}: no out-of-place row with a time, a size of at least 1 B and no #wrong elements", first.path));
  std::vector<Pt> small, large;
  for (const Pt& p : pts) {
    if (p.bytes <= o.small_max_bytes) small.push_back(p);
    if (p.bytes >= o.large_min_bytes) large.push_back(p);
  }
  const int64_t largest = std::max_element(pts.begin(), pts.end(), [](const Pt& a, const Pt& b) {
                            return a.bytes < b.bytes;
                          })->bytes;
  if (largest < o.bw_min_bytes)
    throw UsageError(fmt::format("{}: its largest row is {}: no row of {} or more: the bus bandwidth cannot be "
                                 "fitted from latency-bound rows; run the tool to -e 1G",
                                 first.path, size_text(largest), size_text(o.bw_min_bytes)));
  if (large.empty()) {
    f.bw_fallback = true;
    large = rows_of_two_largest_sizes(pts);
  }
  for (int i = 0; i < 3; ++i) s.bw_scale = fit_scale(s, f.collective, large, first.path);
  if (!small.empty()) {
    f.launch_fitted = true;
    std::vector<double> v;
    for (const Pt& p : small) v.push_back(p.t_us - tune(s, f.collective, p.bytes).best().time_us);
    s.launch_us = std::max(0.0, median(v));
  }
  s.bw_scale = fit_scale(s, f.collective, large, first.path);
  for (const Pt& p : small) f.launch_rows.push_back(p.bytes);
  for (const Pt& p : large) f.bw_rows.push_back(p.bytes);
  for (auto* rows : {&f.launch_rows, &f.bw_rows}) {
    std::sort(rows->begin(), rows->end());
    rows->erase(std::unique(rows->begin(), rows->end()), rows->end());
  }
  s.fitted_to.clear();
  for (const auto& p : f.sources) s.fitted_to += (s.fitted_to.empty() ? "" : ", ") + p;
  f.system = s;
  for (const auto& t : tables) f.residuals.push_back(compare_tuner(t, f.collective, s));
  return f;
}

void write_system_fit_profile(const std::string& path, const SystemFit& f) {
  nlohmann::json j = {{"backend", "fit"}, {"source", f.sources}};
  j["fit"] = {{"model", "nccl-tuner"},
              {"system", f.base},
              {"collective", f.collective_name},
              {"gpu", f.gpu},
              {"ranks", f.ranks},
              {"nodes", f.nodes},
              {"launch_us", f.system.launch_us},
              {"bw_scale", f.system.bw_scale},
              {"launch_rows_bytes", f.launch_rows},
              {"bw_rows_bytes", f.bw_rows}};
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

std::optional<SystemDesc> load_system_fit_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object() || !j.contains("fit") || !j["fit"].is_object()) return std::nullopt;
  const nlohmann::json& f = j["fit"];
  if (!f.contains("model") || f["model"] != "nccl-tuner") return std::nullopt;
  const auto num = [&](const char* k) {
    if (!f.contains(k) || !f[k].is_number())
      throw UsageError(fmt::format("profile '{}': fit.{} is missing or not a number", path, k));
    return f[k].get<double>();
  };
  if (!f.contains("system") || !f["system"].is_string())
    throw UsageError(fmt::format("profile '{}': fit.system is missing or not a string", path));
  SystemDesc s = system_preset(f["system"].get<std::string>());
  const double launch = num("launch_us"), scale = num("bw_scale"), nodes = num("nodes");
  if (!(launch >= 0)) throw UsageError(fmt::format("profile '{}': fit.launch_us {} is negative", path, launch));
  if (!(scale > 0)) throw UsageError(fmt::format("profile '{}': fit.bw_scale {} is not above 0", path, scale));
  if (!(nodes >= 1) || nodes > kMaxTunerRanks)
    throw UsageError(fmt::format("profile '{}': fit.nodes {} is out of range (1..{})", path, nodes, kMaxTunerRanks));
  s.nodes = static_cast<int>(nodes);
  s.launch_us = launch;
  s.bw_scale = scale;
  std::string src;
  if (j.contains("source") && j["source"].is_array())
    for (const auto& x : j["source"])
      if (x.is_string()) src += (src.empty() ? "" : ", ") + x.get<std::string>();
  s.fitted_to = src.empty() ? path : src;
  s.source += "; launch and bus bandwidth fitted to " + s.fitted_to + " (profile " + path + ")";
  s.name = f["system"].get<std::string>() + " (fitted, profile " + path + ")";
  return s;
}

}  // namespace microddp::nccl
