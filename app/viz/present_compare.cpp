// Two saved runs side by side (microddp-viz --compare-runs A.json B.json;
// present.h): the compare view's two columns replay the two records
// (Session::load_replay), each titled by its algorithm, ranks, size and
// file (compare_run_title), stepped
// together by the compare view's own keys and slider.
#include <fmt/format.h>

#include <filesystem>

#include "app/viz/compare.h"
#include "app/viz/options.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"

namespace microddp::viz {

std::string compare_run_title(char letter, const RunRecord& run, const std::string& file) {
  const CollectiveSpec& sp = run.spec;
  const std::string nodes = sp.nodes > 1 ? fmt::format(" on {} nodes", sp.nodes) : "";
  const double bytes = double(sp.count) * double(dtype_size(sp.dtype));
  return fmt::format("{}: {} {} · {} ranks{} · {} per rank ({} {}) · {}", letter, name(sp.collective), sp.algorithm,
                     sp.world_size, nodes, human_bytes(bytes), sp.count, name(sp.dtype),
                     std::filesystem::path(file).filename().string());
}

std::string compare_runs_differ(const RunRecord& a, const RunRecord& b) {
  const CollectiveSpec &x = a.spec, &y = b.spec;
  std::vector<std::string> d;
  if (x.collective != y.collective) d.push_back(fmt::format("collective {} vs {}", name(x.collective), name(y.collective)));
  if (x.world_size != y.world_size) d.push_back(fmt::format("world size {} vs {}", x.world_size, y.world_size));
  if (x.nodes != y.nodes) d.push_back(fmt::format("nodes {} vs {}", x.nodes, y.nodes));
  if (x.dtype != y.dtype) d.push_back(fmt::format("dtype {} vs {}", name(x.dtype), name(y.dtype)));
  return d.empty() ? std::string() : fmt::format("A and B differ: {}", fmt::join(d, ", "));
}

void compare_runs(App& app, const std::vector<RunRecord>& runs, const std::vector<std::string>& files) {
  Compare& c = app.compare;
  c.algorithms.clear();
  c.titles.clear();
  c.sessions.clear();
  c.errors.clear();
  c.sweep.clear();
  c.crossover.clear();
  c.position = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto s = std::make_unique<Session>();
    s->set_source(c.source);
    s->load_replay(runs[i]);  // UsageError / ScheduleError when the record does not fit its spec
    c.algorithms.push_back(fmt::format("{} {} ({})", i == 0 ? "A:" : "B:", runs[i].spec.algorithm,
                                       std::filesystem::path(files[i]).filename().string()));
    c.titles.push_back(compare_run_title(i == 0 ? 'A' : 'B', runs[i], files[i]));
    c.sessions.push_back(std::move(s));
    c.errors.emplace_back();
  }
  c.runs_warning = runs.size() == 2 ? compare_runs_differ(runs[0], runs[1]) : std::string();
  app.vs.compare_algorithms = c.algorithms;
  c.go_to_end();  // open at the last step: each run whole (Compare::go_to_end)
}

void apply_compare_source(App& app, const Options& o) {
  SourceSpec spec;
  spec.kind = parse_sweep_source(o.compare_source);
  spec.system = o.nccl_system;
  spec.nic = o.lab_nic;
  if (spec.kind == SweepSource::published) {
    spec.file = o.against;
    load_nccl_tests(spec.file.empty() ? default_published_file() : spec.file);  // UsageError naming FILE:LINE
  }
  if (spec.kind == SweepSource::recorded) {
    spec.file = o.recorded;
    load_lab_record(spec.file.empty() ? default_recorded_file() : spec.file);  // UsageError naming the file
  }
  app.compare.set_sweep_source(spec);
  app.vs.compare_sweep_requested = spec.kind != SweepSource::shm;
}

}  // namespace microddp::viz
