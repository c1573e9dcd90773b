// Two DDP / FSDP training records side by side (compare_runs_ddp.h):
// loading them, each run's title and the lines that name the difference.
#include "app/viz/compare_runs_ddp.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "app/viz/view_state.h"
#include "core/ir/types.h"

namespace microddp::viz {

namespace {

const ddp::IterationStats& last_stats(const ddp::DdpRecord& r) { return r.run.iterations.back(); }
double last_end_ms(const ddp::DdpRecord& r) { return r.run.timelines.back().end_ms; }

// Communication hidden over all timed iterations: sum(overlap x comm) / sum(comm).
double mean_overlap(const ddp::DdpRecord& r) {
  double comm = 0, hidden = 0;
  for (const auto& it : r.run.iterations) comm += it.comm_ms, hidden += it.overlap_fraction * it.comm_ms;
  return comm > 0 ? hidden / comm : 0.0;
}

int percent(double f) { return static_cast<int>(std::lround(f * 100)); }

std::string kind_words(const std::string& format) {
  if (format == ddp::kDdpRecordFormat) return "a DDP training record (`microddp ddp --record`)";
  return "a collective run record (`microddp run --save-record`)";
}

}  // namespace

std::string ddp_run_setting(const ddp::DdpRecord& r) {
  const ddp::Options& o = r.run.options;
  if (o.sharded) return fmt::format("FSDP, prefetch {}", o.prefetch ? "on" : "off");
  const size_t nb = r.run.buckets.size();
  std::string s = fmt::format("DDP, bucket cap {:g} MiB, {} bucket{}", o.bucket_cap_mb, nb, nb == 1 ? "" : "s");
  if (o.overlap != ddp::Overlap::bucketed) s += fmt::format(", overlap {}", ddp::name(o.overlap));
  return s;
}

std::string ddp_run_title(char letter, const ddp::DdpRecord& r, const std::string& file) {
  const ddp::Options& o = r.run.options;
  return fmt::format("{}: {} · {} ranks · MLP {} × {}×{} · iteration {} of {} ({})", letter, ddp_run_setting(r), o.ranks,
                     o.depth, o.width, o.width, r.run.timelines.size(), r.run.iterations.size(),
                     std::filesystem::path(file).filename().string());
}

std::vector<std::string> ddp_runs_difference(const ddp::DdpRecord& a, const ddp::DdpRecord& b) {
  const ddp::Options &x = a.run.options, &y = b.run.options;
  std::vector<std::string> d;
  const auto differ = [&d](const char* what, const std::string& u, const std::string& v) {
    if (u != v) d.push_back(fmt::format("{} {} vs {}", what, u, v));
  };
  differ("mode", x.sharded ? "FSDP" : "DDP", y.sharded ? "FSDP" : "DDP");
  if (x.sharded && y.sharded) differ("prefetch", x.prefetch ? "on" : "off", y.prefetch ? "on" : "off");
  if (!x.sharded && !y.sharded) {
    differ("bucket cap", fmt::format("{:g} MiB", x.bucket_cap_mb), fmt::format("{:g} MiB", y.bucket_cap_mb));
    differ("buckets", std::to_string(a.run.buckets.size()), std::to_string(b.run.buckets.size()));
    differ("overlap mode", std::string(ddp::name(x.overlap)), std::string(ddp::name(y.overlap)));
    differ("algorithm", x.algorithm, y.algorithm);
  }
  differ("world size", std::to_string(x.ranks), std::to_string(y.ranks));
  differ("MLP", fmt::format("{} × {}", x.depth, x.width), fmt::format("{} × {}", y.depth, y.width));
  differ("batch", std::to_string(x.batch), std::to_string(y.batch));
  differ("layer delay", fmt::format("{} µs", x.layer_delay_us), fmt::format("{} µs", y.layer_delay_us));
  differ("link delay", fmt::format("{:g} µs/MiB", x.link_us_per_mb), fmt::format("{:g} µs/MiB", y.link_us_per_mb));
  std::vector<std::string> lines;
  lines.push_back(d.empty() ? "A and B ran the same settings" : fmt::format("A and B differ in: {}", fmt::join(d, ", ")));
  const double ta = last_end_ms(a), tb = last_end_ms(b);
  std::string verdict;
  if (std::fabs(ta - tb) < 0.05) verdict = "the same";
  else if (tb > ta) verdict = fmt::format("B takes {:.1f} ms more ({:.2f}×)", tb - ta, ta > 0 ? tb / ta : 0.0);
  else verdict = fmt::format("B takes {:.1f} ms less ({:.2f}×)", ta - tb, ta > 0 ? tb / ta : 0.0);
  lines.push_back(fmt::format("Iteration time: A {:.1f} ms, B {:.1f} ms: {}", ta, tb, verdict));
  lines.push_back(fmt::format("Overlap (communication hidden behind compute): A {}%, B {}%; over all {} and {} timed "
                              "iterations A {}%, B {}%",
                              percent(last_stats(a).overlap_fraction), percent(last_stats(b).overlap_fraction),
                              a.run.iterations.size(), b.run.iterations.size(), percent(mean_overlap(a)),
                              percent(mean_overlap(b))));
  return lines;
}

bool open_ddp_compare(App& app, const std::vector<std::string>& files) {
  if (files.size() != 2) return false;
  const std::string fa = ddp::record_file_format(files[0]), fb = ddp::record_file_format(files[1]);
  const bool da = fa == ddp::kDdpRecordFormat, db = fb == ddp::kDdpRecordFormat;
  if (!da && !db) return false;  // collective records: compare_runs (present_compare.cpp)
  if (da != db) {
    // An unreadable one beside a DDP record: the DDP loader names its problem.
    if (fa.empty() || fb.empty()) ddp::load_ddp_record(da ? files[1] : files[0]);
    throw UsageError(fmt::format("--compare-runs {} {}: {} is {} and {} is {}; two runs of one kind are compared "
                                 "(record the other with `{}`)",
                                 files[0], files[1], files[0], kind_words(fa), files[1], kind_words(fb),
                                 da ? "microddp ddp --record FILE" : "microddp run --save-record FILE"));
  }
  DdpRunsCompare& c = app.ddp_runs;
  c = DdpRunsCompare{};
  for (size_t i = 0; i < 2; ++i) {
    c.runs.push_back(ddp::load_ddp_record(files[i]));  // UsageError naming the file and field
    c.files.push_back(files[i]);
    c.titles.push_back(ddp_run_title(i == 0 ? 'A' : 'B', c.runs.back(), files[i]));
  }
  c.difference = ddp_runs_difference(c.runs[0], c.runs[1]);
  return true;
}

}  // namespace microddp::viz
