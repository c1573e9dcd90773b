// microddp fit FILE... --out PROFILE: published nccl-tests tables of one
// system fitted, written as a profile; `predict --profile PROFILE --against
// FILE` then holds it against another table. Two models (--model):
//  - tuner (the default): the NCCL-shaped tuner on the named system the
//    tables' GPU names (or --nccl-system), with its per-call launch cost and
//    bus-bandwidth scale fitted (core/model/nccl_system_fit.h);
//  - alpha-beta: an α-β fit through one of microddp's schedules, written
//    with the system's topology (core/model/nccl_tests_fit.h).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli/against.h"
#include "app/cli/commands.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/nccl_system_fit.h"
#include "core/model/sweep.h"

namespace microddp::cli {
namespace {

struct Args {
  std::vector<std::string> files;
  std::string out, collective, algorithm = "ring", model = "tuner", system;
  bool json = false, algorithm_given = false;
};

std::string sizes_text(const std::vector<int64_t>& v) {
  if (v.empty()) return "none";
  if (v.size() <= 4) {
    std::string s;
    for (auto b : v) s += fmt::format("{}{}", s.empty() ? "" : ", ", size_text(b));
    return s;
  }
  return fmt::format("{} sizes, {} .. {}", v.size(), size_text(v.front()), size_text(v.back()));
}

// The bandwidth line's note when no row reached large_min_bytes.
std::string fallback_text(int64_t large_min_bytes) {
  return fmt::format(": no row of {} or more, the two largest sizes", size_text(large_min_bytes));
}

void print_ranges(const std::string& path, const std::vector<RowComparison>& rows) {
  std::printf("  residuals on %s: median |error| %.1f%% over %zu rows\n", path.c_str(), median_abs_error_pct(rows),
              rows.size());
  for (const auto& g : error_by_range(rows))
    std::printf("    %-16s %3d row%s  median |error| %6.1f%%\n", g.name.c_str(), g.rows, g.rows == 1 ? " " : "s",
                g.median_abs_error_pct);
}

nlohmann::json residuals_json(const std::string& path, const std::vector<RowComparison>& rows) {
  nlohmann::json r = {{"source", path},
                      {"rows", rows.size()},
                      {"median_abs_error_pct", median_abs_error_pct(rows)},
                      {"by_range", nlohmann::json::array()}};
  for (const auto& g : error_by_range(rows))
    r["by_range"].push_back({{"range", g.name}, {"rows", g.rows}, {"median_abs_error_pct", g.median_abs_error_pct}});
  return r;
}

// --model tuner: NCCL's cost model on a named system, launch and scale fitted.
int run_tuner(const Args& a, const std::vector<NcclTestsTable>& tables) {
  nccl::SystemFitOptions o;
  o.base = a.system;
  if (!o.base.empty()) nccl::system_preset(o.base);  // names an unknown system before any work
  const nccl::SystemFit fit = nccl::fit_system(tables, o);
  nccl::write_system_fit_profile(a.out, fit);
  if (a.json) {
    nlohmann::json j = {{"profile", a.out},         {"model", "nccl-tuner"},          {"system", fit.base},
                        {"collective", fit.collective_name}, {"ranks", fit.ranks},  {"nodes", fit.nodes},
                        {"gpu", fit.gpu},           {"launch_us", fit.system.launch_us},
                        {"bw_scale", fit.system.bw_scale},   {"launch_rows_bytes", fit.launch_rows},
                        {"bw_rows_bytes", fit.bw_rows},      {"source", fit.sources}};
    std::printf("%s\n", j.dump().c_str());
    for (size_t i = 0; i < tables.size(); ++i)
      std::printf("%s\n", residuals_json(tables[i].path, fit.residuals[i]).dump().c_str());
    return 0;
  }
  std::printf("fit: the NCCL-shaped tuner (NCCL %s tuning.cc constants) on %s, %d node%s x %d GPUs, for %s (%s)\n",
              std::string(nccl::kNcclVersion).c_str(), fit.base.c_str(), fit.nodes, fit.nodes == 1 ? "" : "s",
              fit.ranks / fit.nodes, tables.front().system_text().c_str(), fit.collective_name.c_str());
  for (const auto& x : tables)
    std::printf("  source: %s (%s%s)\n", x.path.c_str(), x.tool.empty() ? x.collective.c_str() : x.tool.c_str(),
                x.nccl_version.empty() ? "" : (", NCCL " + x.nccl_version).c_str());
  if (fit.launch_fitted)
    std::printf("  launch = %.3f us per call (median of published - tuner over the out-of-place rows of %s)\n",
                fit.system.launch_us, sizes_text(fit.launch_rows).c_str());
  else
    std::printf("  launch = 0 us per call (not fitted: no row of %s or less)\n", size_text(o.small_max_bytes).c_str());
  std::printf("  bus bandwidth x %.4f (every candidate's; from the out-of-place rows of %s%s)\n", fit.system.bw_scale,
              sizes_text(fit.bw_rows).c_str(), fit.bw_fallback ? fallback_text(o.large_min_bytes).c_str() : "");
  for (size_t i = 0; i < tables.size(); ++i) print_ranges(tables[i].path, fit.residuals[i]);
  for (const auto& x : tables)
    if (const std::string w = wrong_rows_line(x, "the fit and its residuals"); !w.empty()) std::printf("  %s\n", w.c_str());
  std::printf("wrote %s (NCCL system %s with the two fitted constants; source: %zu file%s)\n", a.out.c_str(),
              fit.base.c_str(), fit.sources.size(), fit.sources.size() == 1 ? "" : "s");
  std::printf("next: microddp predict --profile %s --against ANOTHER_TABLE_OF_THIS_SYSTEM\n", a.out.c_str());
  return 0;
}

int run(const Args& a) {
  if (a.out.empty()) throw UsageError("fit: --out PROFILE is missing (the profile file to write)");
  if (a.model != "tuner" && a.model != "alpha-beta")
    throw UsageError(fmt::format("fit: --model {} is not a model (tuner | alpha-beta)", a.model));
  if (a.model == "tuner" && a.algorithm_given)
    throw UsageError("fit: --algorithm is the α-β model's schedule: give --model alpha-beta with it (the tuner "
                     "chooses NCCL's algorithm per size)");
  if (a.model == "alpha-beta" && !a.system.empty())
    throw UsageError("fit: --nccl-system names the tuner's base system: leave it out with --model alpha-beta");
  // The default profile is this machine's (run, bench and the window read it): a published
  // system's fit there would price this machine's runs as a GPU cluster's.
  std::error_code ec;
  if (std::filesystem::weakly_canonical(a.out, ec) == std::filesystem::weakly_canonical(default_profile_path(), ec))
    throw UsageError(fmt::format("fit: --out {} is this machine's default profile (run, bench and the window read it): "
                                 "a fit describes the published system; give another file",
                                 a.out));
  check_profile_writable(a.out);
  std::vector<NcclTestsTable> tables;
  for (const auto& f : a.files) tables.push_back(load_nccl_tests(f, a.collective));
  if (a.model == "tuner") return run_tuner(a, tables);
  PublishedFitOptions o;
  o.algorithm = a.algorithm;
  const PublishedFit fit = fit_published(tables, o);
  write_fit_profile(a.out, fit);
  if (a.json) {
    nlohmann::json j = {{"profile", a.out},           {"model", "alpha-beta"},
                        {"collective", fit.collective_name}, {"algorithm", fit.algorithm},
                        {"ranks", fit.ranks},         {"nodes", fit.nodes},
                        {"gpu", fit.gpu},             {"alpha_s", fit.alpha_s},
                        {"bandwidth_Bps", fit.bandwidth_Bps}, {"alpha_messages", fit.alpha_messages},
                        {"alpha_rows_bytes", fit.alpha_rows}, {"beta_rows_bytes", fit.beta_rows},
                        {"source", fit.sources}};
    std::printf("%s\n", j.dump().c_str());
    for (size_t i = 0; i < tables.size(); ++i)
      std::printf("%s\n", residuals_json(tables[i].path, fit.residuals[i]).dump().c_str());
    return 0;
  }
  const NcclTestsTable& t = tables.front();
  std::printf("fit: an α-β model (one link class: every message costs α + m·β) through microddp's %s %s schedule on "
              "%s\n",
              fit.algorithm.c_str(), fit.collective_name.c_str(), t.system_text().c_str());
  std::printf("  not NCCL's tuning model (protocols, channels, NVLS): α and β are effective values for this table\n");
  for (const auto& x : tables)
    std::printf("  source: %s (%s%s)\n", x.path.c_str(), x.tool.empty() ? x.collective.c_str() : x.tool.c_str(),
                x.nccl_version.empty() ? "" : (", NCCL " + x.nccl_version).c_str());
  std::printf("  α = %.3f µs per message (the floor: %.4g messages on the critical path; from the out-of-place rows "
              "of %s)\n",
              fit.alpha_s * 1e6, fit.alpha_messages, sizes_text(fit.alpha_rows).c_str());
  std::printf("  bandwidth = %.2f GB/s (β = %.4g s/B; from the out-of-place rows of %s%s)\n", fit.bandwidth_Bps / 1e9,
              1.0 / fit.bandwidth_Bps, sizes_text(fit.beta_rows).c_str(),
              fit.beta_fallback ? fallback_text(o.large_min_bytes).c_str() : "");
  for (size_t i = 0; i < tables.size(); ++i) print_ranges(tables[i].path, fit.residuals[i]);
  for (const auto& x : tables)
    if (const std::string w = wrong_rows_line(x, "the fit and its residuals"); !w.empty()) std::printf("  %s\n", w.c_str());
  std::printf("wrote %s (topology: %d node%s x %d rank%s, one link class; source: %zu file%s)\n", a.out.c_str(),
              fit.nodes, fit.nodes == 1 ? "" : "s", fit.ranks / fit.nodes, fit.ranks / fit.nodes == 1 ? "" : "s",
              fit.sources.size(), fit.sources.size() == 1 ? "" : "s");
  std::printf("next: microddp predict --profile %s --against ANOTHER_TABLE_OF_THIS_SYSTEM\n", a.out.c_str());
  return 0;
}

}  // namespace

std::function<int()> setup_fit(CLI::App* sub) {
  static Args a;
  sub->add_option("--model", a.model,
                  "tuner: NCCL's cost model on a named system, its per-call launch and bus-bandwidth scale fitted; "
                  "alpha-beta: α and β through one of microddp's schedules")
      ->capture_default_str();
  sub->add_option("--nccl-system", a.system,
                  "the tuner's base system (default: the one the tables' GPU names: dgx-a100, dgx-h100, hgx-h200, "
                  "pcie-a100)");
  sub->add_option("files", a.files, "nccl-tests outputs of one system (saved *_perf output)")->required();
  sub->add_option("--out,-o", a.out, "the profile to write (JSON)");
  sub->add_option("--collective,-c", a.collective, "the collective, for a file that does not name its tool");
  sub->add_option("--algorithm,-a", a.algorithm, "--model alpha-beta: the schedule the α-β model is fitted through")
      ->capture_default_str();
  sub->add_flag("--json", a.json, "the fit as JSON: one object, then one per file with its residuals");
  return [sub] {
    a.algorithm_given = sub->count("--algorithm") > 0;
    return run(a);
  };
}

}  // namespace microddp::cli
