#include "app/viz/compare_sources.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>

#include "app/viz/compare.h"  // human_bytes
#include "core/labs/lesson/lessons_dir.h"
#include "core/model/nccl_tuner.h"

namespace microddp::viz {

namespace fs = std::filesystem;

std::string_view name(SweepSource s) {
  switch (s) {
    case SweepSource::shm: return "shm";
    case SweepSource::lab: return "lab";
    case SweepSource::recorded: return "recorded";
    case SweepSource::model: return "model";
    case SweepSource::published: return "published";
  }
  return "?";
}

std::string_view picker_label(SweepSource s) {
  switch (s) {
    case SweepSource::shm: return "measured: shared memory (this machine)";
    case SweepSource::lab: return "measured: cluster lab (live)";
    case SweepSource::recorded: return "recorded: cluster lab run (file)";
    case SweepSource::model: return "model: NCCL on a named system";
    case SweepSource::published: return "published: nccl-tests table";
  }
  return "?";
}

SweepSource parse_sweep_source(const std::string& text) {
  for (SweepSource s : kSweepSources)
    if (name(s) == text) return s;
  throw UsageError(
      fmt::format("--compare-source '{}' (expected shm, lab, recorded, model or published)", text));
}

std::string default_recorded_file() { return (fs::path(lesson::lessons_dir()) / "data" / "lab-allreduce-8x1-1gbit.json").string(); }

std::string published_dir() {
  return (fs::path(lesson::lessons_dir()) / ".." / "tests" / "data" / "nccl-tests").lexically_normal().string();
}

std::vector<std::string> published_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(published_dir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".txt") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string default_published_file() { return (fs::path(published_dir()) / "h100-2x8-ib-allreduce.txt").string(); }

namespace {

// The rows of `algorithm`, in size order, as one curve.
SweepCurve curve_of(const std::vector<LabRecordRow>& rows, const std::string& algorithm) {
  std::vector<const LabRecordRow*> mine;
  for (const auto& r : rows)
    if (r.algorithm == algorithm) mine.push_back(&r);
  std::stable_sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; });
  SweepCurve c;
  c.algorithm = algorithm;
  bool all_predicted = true;
  for (const LabRecordRow* r : mine) {
    c.bytes.push_back(double(r->bytes));
    c.counts.push_back(r->count);
    c.measured_us.push_back(r->time_us);
    c.samples.push_back(r->samples);
    c.min_us.push_back(r->min_us);
    c.p10_us.push_back(r->p10_us);
    c.p90_us.push_back(r->p90_us);
    c.max_us.push_back(r->max_us);
    c.predicted_us.push_back(r->predicted_us);
    all_predicted = all_predicted && r->predicted_us > 0;
  }
  if (!all_predicted) c.predicted_us.clear();  // a line needs every point
  return c;
}

}  // namespace

namespace {
// A record's "predicted" words in the slide's symbols: "alpha 50 us" and
// "α 50 us" (older recordings; the terminal's ASCII unit) read "α 50 µs".
std::string slide_units(const std::string& in) {
  std::string s = std::regex_replace(in, std::regex(R"(\balpha (\d))"), "α $1");
  return std::regex_replace(s, std::regex(R"((\d) us\b)"), "$1 µs");
}
}  // namespace

SourceSweep recorded_sweep(const LabRecord& r, const std::vector<std::string>& algorithms) {
  SourceSweep s;
  const std::vector<std::string> have = r.algorithms();
  for (const auto& a : algorithms.empty() ? have : algorithms)
    if (std::find(have.begin(), have.end(), a) != have.end()) s.curves.push_back(curve_of(r.rows, a));
  if (s.curves.empty())
    throw UsageError(fmt::format("recorded lab run '{}' has no rows of {} (it has {})", r.path,
                                 fmt::join(algorithms, ", "), fmt::join(have, ", ")));
  s.label = fmt::format("Source: RECORDED cluster lab run ({}; {}), measured on {} on {}", r.setup_text(),
                        r.collective, r.machine, r.date);
  s.dots = fmt::format("recorded in the cluster lab ({})", fs::path(r.path).filename().string());
  s.lines = r.predicted.empty() ? "the lab's model" : "the lab's model (" + slide_units(r.predicted) + ")";
  s.word = "recorded";
  s.tag = fmt::format("RECORDED lab run ({} node{}), {}", r.nodes, r.nodes == 1 ? "" : "s", r.date);
  return s;
}

SourceSweep lab_sweep(const std::vector<LabRecordRow>& rows, int nodes, const std::string& nic) {
  SourceSweep s;
  std::vector<std::string> algs;
  for (const auto& r : rows)
    if (std::find(algs.begin(), algs.end(), r.algorithm) == algs.end()) algs.push_back(r.algorithm);
  for (const auto& a : algs) s.curves.push_back(curve_of(rows, a));
  s.label = fmt::format("Source: measured now in the cluster lab ({} nodes x 1 rank, NIC {}: emulated hosts, "
                        "TCP over tbf-shaped links)",
                        nodes, nic);
  s.dots = "measured in the cluster lab";
  s.lines = "the lab's model (its shaped NIC rate)";
  s.word = "measured in the lab";
  s.tag = fmt::format("measured in the cluster lab ({} nodes, NIC {})", nodes, nic);
  return s;
}

namespace {
// The system at `ranks` ranks when it takes them, else at its own size.
nccl::SystemDesc sized(const std::string& system, int ranks, std::string* note) {
  const nccl::SystemDesc& base = nccl::system_preset(system);
  try {
    return nccl::with_ranks(base, ranks);
  } catch (const UsageError&) {
    *note = fmt::format(" ({} ranks do not fill its {}-GPU nodes: priced at {})", ranks, base.gpus_per_node,
                        base.gpus_per_node * base.nodes);
    return nccl::with_ranks(base, base.gpus_per_node * base.nodes);
  }
}
}  // namespace

SourceSweep model_sweep(const std::string& system, Collective c, int ranks, int64_t min_bytes, int64_t max_bytes,
                        bool protocols) {
  const std::string sys_name = system.empty() ? "dgx-h100" : system;
  std::string note;
  const nccl::SystemDesc sys = sized(sys_name, ranks, &note);
  std::map<std::string, SweepCurve> by_algo;
  std::vector<std::string> order;
  for (int64_t b = std::max<int64_t>(min_bytes, 1); b <= max_bytes; b *= 4) {
    const nccl::Choice ch = nccl::tune(sys, c, b);
    std::map<std::string, double> best;
    for (const auto& k : ch.candidates) {
      if (!k.enabled) continue;
      std::string a(nccl::nccl_name(k.algo));
      std::transform(a.begin(), a.end(), a.begin(), [](unsigned char x) { return char(std::tolower(x)); });
      if (protocols) {
        if (k.algo != nccl::Algo::ring) continue;
        a += " " + std::string(nccl::nccl_name(k.proto));
      }
      auto it = best.find(a);
      if (it == best.end() || k.time_us < it->second) best[a] = k.time_us;
    }
    for (const auto& [a, t] : best) {
      if (!by_algo.count(a)) order.push_back(a), by_algo[a].algorithm = a;
      SweepCurve& cv = by_algo[a];
      cv.bytes.push_back(double(b));
      cv.predicted_us.push_back(t);
    }
  }
  SourceSweep s;
  // An algorithm NCCL disables at some sizes has a gap: draw the ones priced at every size.
  size_t points = 0;
  for (const auto& [a, cv] : by_algo) points = std::max(points, cv.bytes.size());
  for (const auto& a : order)
    if (by_algo[a].bytes.size() == points) s.curves.push_back(std::move(by_algo[a]));
  s.label = fmt::format("Source: MODEL of {} ({} ranks on {} node{}){}: NCCL 2.30.7's tuning constants, "
                        "as microddp predict --nccl-system {} prints them",
                        sys.name, sys.gpus_per_node * sys.nodes, sys.nodes, sys.nodes == 1 ? "" : "s", note, sys.name);
  s.lines = protocols ? fmt::format("NCCL's model of {} (the ring at each protocol)", sys.name)
                      : fmt::format("NCCL's model of {} (each algorithm at its best protocol)", sys.name);
  s.word = "model";
  s.tag = fmt::format("MODEL of {}, {} ranks", sys.name, sys.gpus_per_node * sys.nodes);
  return s;
}

std::string system_for_table(const NcclTestsTable& t) {
  const std::string gpu = t.gpu();
  std::string base;
  if (gpu.find("GH200") != std::string::npos) return "";
  if (gpu.find("A100") != std::string::npos) base = "dgx-a100";
  else if (gpu.find("H100") != std::string::npos) base = "dgx-h100";
  else if (gpu.find("H200") != std::string::npos) base = "hgx-h200";
  else return "";
  if (t.nodes() == 2) return base + "-2node";
  if (t.nodes() <= 1) return base;
  return base;  // more nodes: with_ranks scales the one-node system
}

SourceSweep published_sweep(const NcclTestsTable& t, const std::string& system) {
  SourceSweep s;
  SweepCurve c;
  c.algorithm = "published";
  for (const auto& r : t.rows) {
    if (!r.out_of_place_usable()) continue;
    c.bytes.push_back(double(r.bytes));
    c.counts.push_back(r.count);
    c.measured_us.push_back(r.out_of_place.time_us);
    for (auto* v : {&c.min_us, &c.p10_us, &c.p90_us, &c.max_us}) v->push_back(-1);
    c.samples.push_back(0);
  }
  const std::vector<int64_t> wrong = t.wrong_sizes();
  std::string note;
  if (!wrong.empty()) {
    std::string sizes;
    for (const int64_t b : wrong) sizes += (sizes.empty() ? "" : ", ") + human_bytes(double(b));
    note = fmt::format("left out {} row{} nccl-tests flags wrong (out-of-place #wrong above 0): {}", wrong.size(),
                       wrong.size() == 1 ? "" : "s", sizes);
  }
  if (c.bytes.empty())
    throw UsageError(fmt::format("{}: no out-of-place rows to plot{}", t.path, note.empty() ? "" : " (" + note + ")"));
  const std::string sys_name = system.empty() ? system_for_table(t) : system;
  const std::optional<Collective> coll = model_collective(t.collective);
  std::string model;
  if (!sys_name.empty() && coll && t.world_size() >= 2) {
    try {
      const nccl::SystemDesc sys = nccl::with_ranks(nccl::system_preset(sys_name), t.world_size());
      for (double b : c.bytes) c.predicted_us.push_back(nccl::tune(sys, *coll, int64_t(b)).best().time_us);
      model = sys_name;
    } catch (const UsageError&) {
      c.predicted_us.clear();
    }
  }
  s.curves.push_back(std::move(c));
  const std::string file = fs::path(t.path).filename().string();
  s.label = fmt::format("Source: PUBLISHED nccl-tests table {} ({}, {}{})", file, t.tool.empty() ? t.collective : t.tool,
                        t.system_text(), t.nccl_version.empty() ? "" : ", NCCL " + t.nccl_version);
  s.dots = "published (out-of-place time)";
  s.lines = model.empty() ? "" : fmt::format("NCCL's model of {} (its choice at each size)", model);
  s.word = "published";
  s.tag = "PUBLISHED " + file;
  s.note = std::move(note);
  return s;
}

std::vector<std::string> lab_command(Collective c, int nodes, const std::string& nic,
                                     const std::vector<std::string>& algorithms, int64_t min_bytes,
                                     int64_t max_bytes, int iters) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string bin = ec ? std::string("microddp") : (self.parent_path() / "microddp").string();
  return {bin, "cluster", "--nodes", std::to_string(nodes), "--nic", nic, "--", "bench", "--backend", "mpi",
          "--collective", std::string(name(c)), "--algorithm", fmt::format("{}", fmt::join(algorithms, ",")),
          "-b", std::to_string(min_bytes), "-e", std::to_string(max_bytes), "-f", "4", "-n", std::to_string(iters), "-w", "1", "--json"};
}

}  // namespace microddp::viz
