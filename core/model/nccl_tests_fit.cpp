// Published rows beside the model, and the α-β fit to them
// (core/model/nccl_tests_fit.h).
#include "core/model/nccl_tests_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

namespace microddp {

double median_abs_error_pct(const std::vector<RowComparison>& rows) {
  std::vector<double> e;
  for (const auto& r : rows) e.push_back(std::fabs(r.error_pct));
  return median(e);
}

std::vector<RangeError> error_by_range(const std::vector<RowComparison>& rows) {
  constexpr int64_t KiB = 1024, MiB = KiB * 1024;
  struct Range {
    const char* name;
    int64_t lo, hi;  // lo < bytes <= hi
  };
  const Range ranges[] = {{"<= 4 KiB", -1, 4 * KiB},
                          {"4 KiB..1 MiB", 4 * KiB, MiB},
                          {"1 MiB..512 MiB", MiB, 512 * MiB - 1},
                          {">= 512 MiB", 512 * MiB - 1, INT64_MAX}};
  std::vector<RangeError> out;
  for (const auto& g : ranges) {
    std::vector<RowComparison> in;
    for (const auto& r : rows)
      if (r.bytes > g.lo && r.bytes <= g.hi) in.push_back(r);
    if (in.empty()) continue;
    out.push_back({g.name, static_cast<int>(in.size()), median_abs_error_pct(in)});
  }
  return out;
}

std::vector<RowComparison> compare_rows(const NcclTestsTable& t, int world_size,
                                        const std::function<double(int64_t)>& predict_s) {
  std::vector<RowComparison> out;
  const auto mc = model_collective(t.collective);
  const double factor = mc ? busbw_factor(*mc, world_size) : 1.0;
  for (const auto& row : t.rows) {
    if (!row.out_of_place_usable()) continue;
    RowComparison c;
    c.bytes = row.bytes;
    c.published_us = row.out_of_place.time_us;
    c.published_busbw_GBps = row.out_of_place.busbw_GBps;
    c.predicted_us = predict_s(row.bytes) * 1e6;
    c.error_pct = (c.predicted_us - c.published_us) / c.published_us * 100;
    c.predicted_busbw_GBps = c.predicted_us > 0 ? static_cast<double>(row.bytes) / (c.predicted_us * 1e3) * factor : 0;
    out.push_back(c);
  }
  return out;
}

DType nccl_tests_dtype(const std::string& type) {
  if (type == "float" || type == "float32") return DType::float32;
  if (type == "half" || type == "float16") return DType::float16;
  if (type == "double" || type == "float64") return DType::float64;
  if (type == "bfloat16") return DType::bfloat16;
  if (type == "int" || type == "int32") return DType::int32;
  if (type == "int64") return DType::int64;
  return DType::float32;
}

double model_time_s(const Network& net, Collective c, const std::string& algorithm, int64_t bytes, DType dtype) {
  BenchOptions o;
  o.collective = c;
  o.world_size = net.topo.world_size();
  o.dtype = dtype;
  o.nodes = net.topo.nodes;
  const CollectiveSpec s = bench_spec(o, algorithm, bytes);
  return predict(make_schedule(s), net).pr.lockstep_s;
}

Network fitted_network(int ranks, int nodes, double alpha_s, double bandwidth_Bps) {
  TopologyProfile t;
  t.nodes = nodes;
  t.ranks_per_node = ranks / nodes;
  t.nics_per_node = 1;
  t.intra = {alpha_s, bandwidth_Bps};
  t.inter = {alpha_s, bandwidth_Bps};
  CostParams base;
  base.name = "fit";
  base.alpha = alpha_s;
  base.beta = 1.0 / bandwidth_Bps;
  return network_from_profile(t, base, ranks, nodes, 1);
}

void check_one_system(const std::vector<NcclTestsTable>& tables) {
  if (tables.empty()) throw UsageError("fit: no table given");
  const NcclTestsTable& first = tables.front();
  for (const auto& t : tables) {
    if (t.ranks.empty())
      throw UsageError(fmt::format("{}: the table prints no '#  Rank' lines, so its ranks and nodes are unknown (fit "
                                   "needs the header part of the output)",
                                   t.path));
    if (t.collective.empty())
      throw UsageError(fmt::format("{}: the file does not name its tool (expected a line with e.g. all_reduce_perf): "
                                   "give --collective",
                                   t.path));
    if (!model_collective(t.collective))
      throw UsageError(fmt::format("{}: {} has no collective in microddp's model to fit through", t.path, t.collective));
    if (t.world_size() != first.world_size() || t.nodes() != first.nodes() || t.gpu() != first.gpu() ||
        t.collective != first.collective)
      throw UsageError(fmt::format("{} ({}, {}) and {} ({}, {}) are not one system: fit one system per profile",
                                   first.path, first.system_text(), first.collective, t.path, t.system_text(),
                                   t.collective));
  }
  if (first.world_size() % first.nodes() != 0)
    throw UsageError(fmt::format("{}: {} ranks on {} nodes are not the same count per node", first.path,
                                 first.world_size(), first.nodes()));
}

PublishedFit fit_published(const std::vector<NcclTestsTable>& tables, const PublishedFitOptions& o) {
  check_one_system(tables);
  const NcclTestsTable& first = tables.front();
  PublishedFit f;
  f.collective = *model_collective(first.collective);
  f.collective_name = first.collective;
  f.algorithm = o.algorithm;
  f.gpu = first.gpu();
  f.ranks = first.world_size();
  f.nodes = first.nodes();
  algorithm_info([&] {  // throws naming an algorithm the collective lacks
    CollectiveSpec s;
    s.collective = f.collective;
    s.algorithm = o.algorithm;
    s.world_size = f.ranks;
    return s;
  }());
  struct Pt {
    int64_t bytes;
    double t_s;
    DType dtype;
  };
  std::vector<Pt> pts;
  for (const auto& t : tables) {
    f.sources.push_back(t.path);
    for (const auto& r : t.rows)
      if (r.out_of_place_usable())
        pts.push_back({r.bytes, r.out_of_place.time_us * 1e-6, nccl_tests_dtype(r.type)});
  }
  if (pts.empty()) throw UsageError(fmt::format("{}: no out-of-place row with a time, a size of at least 1 B and no #wrong elements",
                                                 first.path));
  // The schedule's coefficients: a (α, messages on the critical path) and b(S) (β, bytes on it).
  const auto coef_a = [&](const Pt& p) { return model_time_s(fitted_network(f.ranks, f.nodes, 1.0, 1e15), f.collective, f.algorithm, p.bytes, p.dtype); };
  const auto coef_b = [&](const Pt& p) { return model_time_s(fitted_network(f.ranks, f.nodes, 0.0, 1.0), f.collective, f.algorithm, p.bytes, p.dtype); };
  std::vector<Pt> small, large;
  for (const auto& p : pts)
    if (p.bytes <= o.small_max_bytes) small.push_back(p);
  if (small.empty())
    throw UsageError(fmt::format("{}: no row of at most {} B: α (the small-message floor) cannot be fitted from it "
                                 "(run the tool from -b 8)",
                                 first.path, o.small_max_bytes));
  for (const auto& p : pts)
    if (p.bytes >= o.large_min_bytes) large.push_back(p);
  if (large.empty()) {
    f.beta_fallback = true;
    large = rows_of_two_largest_sizes(pts);
  }
  const double a = coef_a(small.front());
  if (!(a > 0)) throw UsageError(fmt::format("fit: the {} schedule has no message on {} ranks", f.algorithm, f.ranks));
  f.alpha_messages = a;
  std::vector<double> v;
  for (const auto& p : small) v.push_back(p.t_s / a);
  const double alpha0 = median(v);
  v.clear();
  for (const auto& p : large) {
    const double b = coef_b(p);
    if (b > 0) v.push_back((p.t_s - a * alpha0) / b);
  }
  const double beta = median(v);
  if (!(beta > 0))
    throw UsageError(fmt::format("{}: the large rows leave no time for bytes after the floor (β <= 0): the table's "
                                 "largest sizes are too small to fit a bandwidth",
                                 first.path));
  v.clear();
  for (const auto& p : small) v.push_back(std::max(0.0, (p.t_s - coef_b(p) * beta) / a));
  f.alpha_s = median(v);
  f.bandwidth_Bps = 1.0 / beta;
  for (const auto& p : small) f.alpha_rows.push_back(p.bytes);
  for (const auto& p : large) f.beta_rows.push_back(p.bytes);
  for (auto* rows : {&f.alpha_rows, &f.beta_rows}) {
    std::sort(rows->begin(), rows->end());
    rows->erase(std::unique(rows->begin(), rows->end()), rows->end());
  }
  const Network net = fitted_network(f.ranks, f.nodes, f.alpha_s, f.bandwidth_Bps);
  for (const auto& t : tables)
    f.residuals.push_back(compare_rows(t, f.ranks, [&](int64_t bytes) {
      DType d = DType::float32;
      for (const auto& r : t.rows)
        if (r.bytes == bytes) d = nccl_tests_dtype(r.type);
      return model_time_s(net, f.collective, f.algorithm, bytes, d);
    }));
  return f;
}

void write_fit_profile(const std::string& path, const PublishedFit& f) {
  CostParams p;
  p.name = "fit";
  p.alpha = f.alpha_s;
  p.beta = 1.0 / f.bandwidth_Bps;
  write_profile(path, p, {});
  TopologyProfile t;
  t.nodes = f.nodes;
  t.ranks_per_node = f.ranks / f.nodes;
  t.nics_per_node = 1;
  t.intra = {f.alpha_s, f.bandwidth_Bps};
  t.inter = {f.alpha_s, f.bandwidth_Bps};
  write_profile_topology(path, t);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object()) throw std::runtime_error(fmt::format("cannot read back profile '{}'", path));
  j["source"] = f.sources;
  j["fit"] = {{"model", "alpha-beta"},        {"algorithm", f.algorithm},         {"collective", f.collective_name},
              {"gpu", f.gpu},                 {"ranks", f.ranks},                 {"nodes", f.nodes},
              {"alpha_rows_bytes", f.alpha_rows}, {"beta_rows_bytes", f.beta_rows}};
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write profile '{}'", path));
}

}  // namespace microddp
