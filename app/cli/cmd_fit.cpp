// microddp fit FILE... --out PROFILE: an α-β fit to published nccl-tests
// tables of one system (core/model/nccl_tests_fit.h), written as a profile
// with the system's topology; `predict --profile PROFILE --against FILE`
// then holds it against another table.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli/against.h"
#include "app/cli/commands.h"
#include "core/model/calibrate/calibrate.h"

namespace microddp::cli {
namespace {

struct Args {
  std::vector<std::string> files;
  std::string out, collective, algorithm = "ring";
  bool json = false;
};

std::string sizes_text(const std::vector<int64_t>& v) {
  if (v.empty()) return "none";
  if (v.size() <= 4) {
    std::string s;
    for (auto b : v) s += fmt::format("{}{}", s.empty() ? "" : ", ", b);
    return s + " B";
  }
  return fmt::format("{} sizes, {} .. {} B", v.size(), v.front(), v.back());
}

int run(const Args& a) {
  if (a.out.empty()) throw UsageError("fit: --out PROFILE is missing (the profile file to write)");
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
    for (size_t i = 0; i < tables.size(); ++i) {
      nlohmann::json r = {{"source", tables[i].path},
                          {"rows", fit.residuals[i].size()},
                          {"median_abs_error_pct", median_abs_error_pct(fit.residuals[i])},
                          {"by_range", nlohmann::json::array()}};
      for (const auto& g : error_by_range(fit.residuals[i]))
        r["by_range"].push_back({{"range", g.name}, {"rows", g.rows}, {"median_abs_error_pct", g.median_abs_error_pct}});
      std::printf("%s\n", r.dump().c_str());
    }
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
  std::printf("  α = %.3f us per message (the floor: %.4g messages on the critical path; from the out-of-place rows "
              "of %s)\n",
              fit.alpha_s * 1e6, fit.alpha_messages, sizes_text(fit.alpha_rows).c_str());
  std::printf("  bandwidth = %.2f GB/s (β = %.4g s/B; from the out-of-place rows of %s%s)\n", fit.bandwidth_Bps / 1e9,
              1.0 / fit.bandwidth_Bps, sizes_text(fit.beta_rows).c_str(),
              fit.beta_fallback ? ": no row of 512 MiB or more, the two largest sizes" : "");
  for (size_t i = 0; i < tables.size(); ++i) {
    std::printf("  residuals on %s: median |error| %.1f%% over %zu rows\n", tables[i].path.c_str(),
                median_abs_error_pct(fit.residuals[i]), fit.residuals[i].size());
    for (const auto& g : error_by_range(fit.residuals[i]))
      std::printf("    %-16s %3d row%s  median |error| %6.1f%%\n", g.name.c_str(), g.rows, g.rows == 1 ? " " : "s",
                  g.median_abs_error_pct);
  }
  std::printf("wrote %s (topology: %d node%s x %d rank%s, one link class; source: %zu file%s)\n", a.out.c_str(),
              fit.nodes, fit.nodes == 1 ? "" : "s", fit.ranks / fit.nodes, fit.ranks / fit.nodes == 1 ? "" : "s",
              fit.sources.size(), fit.sources.size() == 1 ? "" : "s");
  std::printf("next: microddp predict --profile %s --against ANOTHER_TABLE_OF_THIS_SYSTEM\n", a.out.c_str());
  return 0;
}

}  // namespace

std::function<int()> setup_fit(CLI::App* sub) {
  static Args a;
  sub->add_option("files", a.files, "nccl-tests outputs of one system (saved *_perf output)")->required();
  sub->add_option("--out,-o", a.out, "the profile to write (JSON)");
  sub->add_option("--collective,-c", a.collective, "the collective, for a file that does not name its tool");
  sub->add_option("--algorithm,-a", a.algorithm, "the schedule the α-β model is fitted through")->capture_default_str();
  sub->add_flag("--json", a.json, "the fit as JSON: one object, then one per file with its residuals");
  return [] { return run(a); };
}

}  // namespace microddp::cli
