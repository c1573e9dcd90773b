// predict / bench --against FILE: published nccl-tests rows beside
// microddp's figures (app/cli/against.h).
#include "app/cli/against.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>

#include "core/model/sweep.h"

namespace microddp::cli {
namespace {

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += fmt::format("\\u{:04x}", static_cast<int>(c));
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string published_text(const AgainstTable& t) {
  const NcclTestsTable& x = t.table;
  std::string s = fmt::format("{} ({}{}, {}", x.path, x.tool.empty() ? x.collective : x.tool,
                              x.tool.empty() ? " from " + x.collective_from : "", x.system_text());
  if (!x.nccl_version.empty()) s += ", NCCL " + x.nccl_version;
  return s + ")";
}

std::string ranges_text(const std::vector<RowComparison>& rows) {
  std::string s;
  for (const auto& r : error_by_range(rows))
    s += fmt::format("{}{}: {:.1f}% ({} row{})", s.empty() ? "" : "; ", r.name, r.median_abs_error_pct, r.rows,
                     r.rows == 1 ? "" : "s");
  return s;
}

}  // namespace

std::string wrong_rows_line(const NcclTestsTable& t, const std::string& from) {
  const auto w = t.wrong_sizes();
  if (w.empty()) return "";
  std::string sizes;
  for (const int64_t b : w) sizes += (sizes.empty() ? "" : ", ") + size_text(b);
  return fmt::format("{}: left out {} row{} nccl-tests flags wrong (out-of-place #wrong above 0) from {}: {}", t.path,
                     w.size(), w.size() == 1 ? "" : "s", from, sizes);
}

std::string placement_line(const NcclTestsTable& t) {
  if (t.placement_problem.empty()) return "";
  return "note: this model has no nodes, so the file's rank placement is not used and the rows are compared: " +
         t.placement_problem;
}

AgainstTable load_against(const std::string& path, const std::string& collective, bool collective_given, int ranks,
                          bool ranks_given, int nodes) {
  AgainstTable a;
  // The rank placement is refused only where a model places ranks on nodes
  // (the caller's require_modelled_placement): a flat model has no nodes.
  a.table = load_nccl_tests(path, collective_given ? collective : "", RankPlacement::record);
  const NcclTestsTable& t = a.table;
  if (std::none_of(t.rows.begin(), t.rows.end(), [](const NcclTestsRow& r) { return r.out_of_place_usable(); }))
    throw UsageError(fmt::format("{}: no out-of-place row with a time, a size of at least 1 B and no #wrong elements: "
                                 "nothing to compare with",
                                 path));
  if (t.collective.empty())
    throw UsageError(fmt::format("{}: the file does not name its tool (no line with e.g. all_reduce_perf) and its "
                                 "columns do not tell: give --collective",
                                 path));
  const auto mc = model_collective(t.collective);
  if (!mc)
    throw UsageError(fmt::format("{}: {} has no collective in microddp's model to compare with", path, t.collective));
  a.collective = *mc;
  if (t.world_size() > 0) {
    if (ranks_given && ranks != t.world_size())
      throw UsageError(fmt::format("--ranks {} but {} has {} ranks ({}): leave --ranks out or give {}", ranks, path,
                                   t.world_size(), t.system_text(), t.world_size()));
    a.ranks = t.world_size();
    if (nodes > 0 && nodes != t.nodes())
      throw UsageError(fmt::format("--nodes {} but {} has its ranks on {} nodes: leave --nodes out", nodes, path,
                                   t.nodes()));
    if (nodes > 0) t.require_modelled_placement();  // --nodes: the placement is modelled
    a.nodes = t.nodes();
  } else {
    if (!ranks_given)
      throw UsageError(fmt::format("{}: the file prints no '#  Rank' lines, so its world size is unknown: give --ranks",
                                   path));
    a.ranks = ranks;
    a.nodes = nodes > 0 ? nodes : 1;
    // all_gather, reduce_scatter and alltoall print a rank's count: the
    // count column must agree with these ranks, not just any.
    t.check_counts(a.ranks, "--ranks");
  }
  if (t.placement_problem.empty() && a.ranks % a.nodes != 0)
    throw UsageError(fmt::format("{}: {} ranks on {} nodes are not the same count per node (the model places ranks "
                                 "contiguously, ranks/nodes per node)",
                                 path, a.ranks, a.nodes));
  return a;
}

void print_against(const AgainstTable& t, const std::string& model_text, const std::string& algorithm, bool json,
                   const std::function<double(int64_t)>& predict_s, const std::string& kind) {
  const auto rows = compare_rows(t.table, t.ranks, predict_s);
  if (json) {
    for (const auto& r : rows)
      fmt::print("{{\"against\": {}, \"bytes\": {}, \"published_us\": {:.9g}, \"predicted_us\": {:.9g}, "
                 "\"error_pct\": {:.6g}, \"published_busbw_GBps\": {:.6g}, \"predicted_busbw_GBps\": {:.6g}}}\n",
                 json_str(t.table.path), r.bytes, r.published_us, r.predicted_us, r.error_pct, r.published_busbw_GBps,
                 r.predicted_busbw_GBps);
    std::string ranges;
    for (const auto& g : error_by_range(rows))
      ranges += fmt::format("{}{{\"range\": {}, \"rows\": {}, \"median_abs_error_pct\": {:.6g}}}",
                            ranges.empty() ? "" : ", ", json_str(g.name), g.rows, g.median_abs_error_pct);
    fmt::print("{{\"against\": {}, \"summary\": true, \"collective\": {}, \"ranks\": {}, \"nodes\": {}, \"gpu\": {}, "
               "\"nccl_version\": {}, \"model\": {}, \"algorithm\": {}, \"placement\": \"out-of-place\", \"rows\": {}, "
               "\"median_abs_error_pct\": {:.6g}, \"by_range\": [{}], \"wrong_rows_left_out\": [{}]}}\n",
               json_str(t.table.path), json_str(t.table.collective), t.ranks, t.nodes, json_str(t.table.gpu()),
               t.table.nccl_version.empty() ? "null" : json_str(t.table.nccl_version), json_str(model_text),
               json_str(algorithm), rows.size(), median_abs_error_pct(rows), ranges, fmt::join(t.table.wrong_sizes(), ", "));
    return;
  }
  std::printf("published: %s, out-of-place columns\n", published_text(t).c_str());
  std::printf("model: %s; %s, %s\n", model_text.c_str(), algorithm.c_str(), kind.c_str());
  std::printf("%14s %15s %15s %9s %16s %16s\n", "size (B)", "published (us)", "predicted (us)", "error", "pub. busbw",
              "pred. busbw");
  for (const auto& r : rows)
    std::printf("%14lld %15.2f %15.2f %8.1f%% %16.2f %16.2f\n", static_cast<long long>(r.bytes), r.published_us,
                r.predicted_us, r.error_pct, r.published_busbw_GBps, r.predicted_busbw_GBps);
  std::printf("(error = (predicted - published) / published; busbw in GB/s with nccl-tests' factor for %d ranks)\n",
              t.ranks);
  std::printf("median |error|: %.1f%% over %zu rows (%s)\n", median_abs_error_pct(rows), rows.size(),
              ranges_text(rows).c_str());
  if (const std::string w = wrong_rows_line(t.table); !w.empty()) std::printf("%s\n", w.c_str());
  if (const std::string p = placement_line(t.table); !p.empty()) std::printf("%s\n", p.c_str());
}

void print_bench_against(const AgainstTable& t, const std::vector<BenchRow>& rows, bool json) {
  std::vector<RowComparison> matched;
  std::vector<const BenchRow*> from;
  for (const auto& b : rows) {
    if (b.algorithm == "mpi" || b.algorithm == "nccl") continue;
    for (const auto& p : t.table.rows) {
      if (p.bytes != b.bytes || !p.out_of_place_usable()) continue;
      RowComparison c;
      c.bytes = b.bytes;
      c.published_us = p.out_of_place.time_us;
      c.published_busbw_GBps = p.out_of_place.busbw_GBps;
      c.predicted_us = b.predicted_us;
      c.error_pct = b.predicted_us >= 0 ? (b.predicted_us - c.published_us) / c.published_us * 100 : 0;
      c.predicted_busbw_GBps = b.busbw_gbps;  // measured here
      matched.push_back(c);
      from.push_back(&b);
      break;
    }
  }
  if (matched.empty()) {
    const auto& pr = t.table.rows;
    std::fprintf(json ? stderr : stdout,
                 "against %s: no bench size is a published size (published %s .. %s): give -b/-e at sizes the "
                 "file has\n",
                 t.table.path.c_str(), size_text(pr.front().bytes).c_str(), size_text(pr.back().bytes).c_str());
    return;
  }
  std::vector<RowComparison> predicted;
  for (size_t i = 0; i < matched.size(); ++i)
    if (from[i]->predicted_us >= 0) predicted.push_back(matched[i]);
  if (json) {
    for (size_t i = 0; i < matched.size(); ++i) {
      const BenchRow& b = *from[i];
      fmt::print("{{\"against\": {}, \"bytes\": {}, \"algorithm\": {}, \"measured_us\": {:.9g}, \"predicted_us\": {}, "
                 "\"published_us\": {:.9g}, \"error_pct\": {}, \"measured_over_published\": {:.6g}}}\n",
                 json_str(t.table.path), b.bytes, json_str(b.auto_pick.empty() ? b.algorithm : b.auto_pick), b.time_us,
                 b.predicted_us >= 0 ? fmt::format("{:.9g}", b.predicted_us) : "null", matched[i].published_us,
                 b.predicted_us >= 0 ? fmt::format("{:.6g}", matched[i].error_pct) : "null",
                 b.time_us / matched[i].published_us);
    }
    fmt::print("{{\"against\": {}, \"summary\": true, \"rows\": {}, \"predicted_rows\": {}, \"median_abs_error_pct\": "
               "{}}}\n",
               json_str(t.table.path), matched.size(), predicted.size(),
               predicted.empty() ? "null" : fmt::format("{:.6g}", median_abs_error_pct(predicted)));
    return;
  }
  std::printf("\nagainst published: %s, out-of-place columns\n", published_text(t).c_str());
  std::printf("%14s %-12s %14s %15s %15s %9s %12s\n", "size (B)", "algorithm", "measured (us)", "predicted (us)",
              "published (us)", "error", "meas./pub.");
  for (size_t i = 0; i < matched.size(); ++i) {
    const BenchRow& b = *from[i];
    std::printf("%14lld %-12s %14.2f %15s %15.2f %9s %12.3g\n", static_cast<long long>(b.bytes),
                (b.auto_pick.empty() ? b.algorithm : b.auto_pick).c_str(), b.time_us,
                b.predicted_us >= 0 ? fmt::format("{:.2f}", b.predicted_us).c_str() : "-", matched[i].published_us,
                b.predicted_us >= 0 ? fmt::format("{:.1f}%", matched[i].error_pct).c_str() : "-",
                b.time_us / matched[i].published_us);
  }
  std::printf("(error = (predicted - published) / published; meas./pub. = this machine's time over the published "
              "one)\n");
  if (!predicted.empty())
    std::printf("median |error|: %.1f%% over %zu rows\n", median_abs_error_pct(predicted), predicted.size());
  if (const std::string w = wrong_rows_line(t.table); !w.empty()) std::printf("%s\n", w.c_str());
  if (const std::string p = placement_line(t.table); !p.empty()) std::printf("%s\n", p.c_str());
}

}  // namespace microddp::cli
