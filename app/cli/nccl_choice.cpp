// predict --nccl-system (nccl_choice.h): a thin printer over
// core/model/nccl_tuner.h.
#include "app/cli/nccl_choice.h"

#include "core/model/sweep.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/labs/hang/hang.h"
#include "core/model/bench.h"
#include "core/model/nccl_system_fit.h"
#include "core/model/nccl_tuner.h"
#include "app/cli/against.h"

namespace microddp::cli {
namespace {

using namespace microddp::nccl;

std::string names() {
  std::string s;
  for (const SystemDesc& d : system_presets()) s += (s.empty() ? "" : " | ") + d.name;
  return s;
}

void header(const SystemDesc& s, const Graphs& g) {
  std::printf("NCCL-shaped tuner (NCCL %s tuning.cc constants), not microddp's textbook α-β choice "
              "(--textbook)\n",
              std::string(kNcclVersion).c_str());
  std::printf("system %s: %s; %d node(s) x %d GPUs (source: %s)\n", s.name.c_str(), s.hardware.c_str(), s.nodes,
              s.gpus_per_node, s.source.c_str());
  if (!s.fitted_to.empty())
    fmt::print("fitted: launch {:.3f} us per call and bus bandwidth x {:.4f} (fitted to {})\n", s.launch_us, s.bw_scale,
               s.fitted_to);
  const std::string nvls = g.nvls.channels ? fmt::format(", NVLS {} x {:g}/{:g} GB/s (intra/inter; {} NVLS channels)",
                                                         g.nvls.channels, g.nvls.bw_intra, g.nvls.bw_inter,
                                                         g.nvls_channels)
                                           : "";
  const auto bw = [](const Graph& x) {
    return x.bw_intra == x.bw_inter ? fmt::format("{:g} GB/s", x.bw_intra)
                                    : fmt::format("{:g}/{:g} GB/s (intra/inter)", x.bw_intra, x.bw_inter);
  };
  fmt::print("graphs (NCCL's topology search, approximated): ring {} x {}, tree {} x {}{}; {} channels\n",
             g.ring.channels, bw(g.ring), g.tree.channels, bw(g.tree), nvls, g.comm_channels);
}

void log_choice(const Choice& c) {
  if (hang::log_enabled(hang::LogLevel::info, hang::kTuning))
    hang::log_line(hang::LogLevel::info, 0, nccl_line(c), hang::kTuning);
}

void explain(const Choice& c) {
  fmt::print("{:<27} {:<7} {:>12}  {:<34} {:>8} {:>8} {:>5} {:>8} {:>12}\n", "algorithm", "proto", "latency (us)",
             "= terms", "busbw", "algbw", "corr", "max ch", "time (us)");
  for (size_t i = 0; i < c.candidates.size(); ++i) {
    const Candidate& x = c.candidates[i];
    const std::string alg = fmt::format("{} ({})", registry_name(x.algo), nccl_name(x.algo));
    if (!x.enabled) {
      fmt::print("{:<27} {:<7} off: {}\n", alg, proto_label(x.proto), x.disabled_why);
      continue;
    }
    fmt::print("{:<27} {:<7} {:>12.3f}  {:<34} {:>8.2f} {:>8.2f} {:>5.2f} {:>8} {:>12.3f}{}\n", alg,
               proto_label(x.proto), x.latency_us, x.latency_terms, x.bus_bw, x.alg_bw, x.correction, x.channels,
               x.time_us, static_cast<int>(i) == c.chosen ? "  <- chosen" : "");
  }
  fmt::print("(time = latency + bytes / (1000 x algbw x corr) us, bytes = nccl-tests' size (all_gather and "
             "reduce_scatter: the whole buffer; NCCL's line above prints one rank's share), algbw and busbw in GB/s; "
             "the lowest time is "
             "chosen, as NCCL's topoGetAlgoInfo does; max ch: the tuner's channel limit at this size, the line above "
             "gives the channels the call is dealt over)\n");
}

// The system asked for: a named one, or the one a fitted profile holds.
SystemDesc asked_system(const NcclChoiceArgs& a) {
  if (a.profile.empty()) return system_preset(a.system);
  auto s = load_system_fit_profile(a.profile);
  if (!s) throw UsageError(fmt::format("profile '{}' is not a fit of the NCCL-shaped tuner", a.profile));
  return *s;
}

// --against FILE: every published out-of-place row beside the tuner's
// time for NCCL's choice at that size, on the system with the file's ranks.
int run_nccl_against(const NcclChoiceArgs& a, const NcclPredictInputs& in) {
  const AgainstTable t = load_against(in.against, in.collective, in.collective_given, in.ranks, in.ranks_given, 0);
  t.table.require_modelled_placement();  // a named system puts its GPUs on nodes, contiguously
  SystemDesc s = asked_system(a);
  const std::string fitted_to = s.fitted_to;
  // A table whose GPUs per node no named system has (gh200-2x4: 4 per
  // node): the asked system's hardware cut to the table's node shape, the
  // nearest there is, said in a line, not refused.
  const int per_node = t.ranks / t.nodes;
  std::string mismatch;
  if (t.table.world_size() > 0 && per_node != s.gpus_per_node) {
    std::string same;
    for (const SystemDesc& d : system_presets())
      if (d.gpus_per_node == per_node) same += (same.empty() ? "" : ", ") + d.name;
    const std::string by_gpu = system_for_gpu(t.table.gpu());
    mismatch = fmt::format(
        "mismatch: {} has {} GPUs per node ({}) on {} node{}; {}; priced on {}'s hardware cut to {} GPUs and "
        "{} NICs per node, the nearest (NVLink, NVSwitch, NVLS and NICs are {}'s, not the table's system's){}",
        t.table.path, per_node, t.table.gpu().empty() ? "GPU not printed" : t.table.gpu(), t.nodes,
        t.nodes == 1 ? "" : "s",
        same.empty() ? fmt::format("no named system has {} per node", per_node)
                     : fmt::format("named systems with {} per node: {}", per_node, same),
        s.name, per_node, std::max(1, s.nics_per_node * per_node / s.gpus_per_node), s.name,
        by_gpu.empty() || by_gpu == s.name ? std::string() : fmt::format("; the table's GPU names {}", by_gpu));
    s = with_node_shape(s, per_node, t.nodes);
  } else {
    // Another system's hardware (an A100 table on dgx-h100-2node, an H100
    // table on a profile fitted to A100s): priced all the same, said in a line.
    const auto gpu_word = [](std::string x) {
      for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (const char* w : {"gh200", "gb200", "h200", "h100", "a100", "v100"})
        if (x.find(w) != std::string::npos) return std::string(w);
      return std::string();
    };
    const std::string base = s.name.substr(0, s.name.find(' '));
    const std::string table_gpu = gpu_word(t.table.gpu()), system_gpu = gpu_word(base);
    const bool other_gpu = !table_gpu.empty() && !system_gpu.empty() && table_gpu != system_gpu;
    const bool other_nodes = s.nodes > 1 && s.nodes != t.nodes;  // a system named for its node count
    if (t.table.world_size() > 0 && (other_gpu || other_nodes))
      mismatch = fmt::format("mismatch: {} is {} node{} of {}; {} is {} node{} of {}: priced on {}'s hardware with "
                             "the table's {} ranks",
                             t.table.path, t.nodes, t.nodes == 1 ? "" : "s",
                             t.table.gpu().empty() ? "GPU not printed" : t.table.gpu(), s.name, s.nodes,
                             s.nodes == 1 ? "" : "s", system_gpu.empty() ? "its GPUs" : system_gpu, base, t.ranks);
    s = with_ranks(s, t.ranks);
  }
  if (t.nodes > 1 && t.nodes != s.nodes)
    throw UsageError(fmt::format("{} has its {} ranks on {} nodes; NCCL system {} puts {} GPUs on a node ({} nodes)",
                                 in.against, t.ranks, t.nodes, s.name, s.gpus_per_node, s.nodes));
  if (!mismatch.empty()) std::fprintf(in.json ? stderr : stdout, "%s\n", mismatch.c_str());
  std::string model = fmt::format("NCCL-shaped tuner (NCCL {} tuning.cc constants) on {}, {} node(s) x {} GPUs",
                                  kNcclVersion, s.name, s.nodes, s.gpus_per_node);
  if (!fitted_to.empty())
    model += fmt::format("; launch {:.3f} us and bus bandwidth x {:.4f} fitted to {}", s.launch_us, s.bw_scale,
                         fitted_to);
  print_against(t, model, "NCCL's choice per size", in.json, [&](int64_t bytes) {
    return tune(s, t.collective, bytes).best().time_us * 1e-6;
  }, "the tuner's time (latency + bytes / algbw)");
  return 0;
}

}  // namespace

void add_nccl_choice_options(CLI::App* sub, NcclChoiceArgs& a) {
  sub->add_option("--nccl-system", a.system,
                  "what NCCL's own tuner would pick on a named system (" + names() +
                      "), per size or at --bytes, in NCCL's INFO line shape");
}

std::string nccl_system_names() {
  std::string s;
  for (const SystemDesc& d : system_presets()) s += (s.empty() ? "" : ", ") + d.name;
  return s;
}

bool is_tuner_fit_profile(const std::string& path) { return load_system_fit_profile(path).has_value(); }

bool nccl_system_known(const std::string& name) {
  for (const SystemDesc& d : system_presets())
    if (d.name == name) return true;
  return false;
}

int run_nccl_choice(const NcclChoiceArgs& a, const NcclPredictInputs& in) {
  if (!in.conflicting.empty())
    throw UsageError(fmt::format("{} takes its model from the system: leave out {}",
                                 !in.asked_as.empty() ? in.asked_as
                                 : a.profile.empty()  ? "--nccl-system " + a.system
                                                      : "--profile " + a.profile + " (a fit of the NCCL-shaped tuner)",
                                 in.conflicting.front()));
  hang::check_debug_env();
  if (!in.against.empty()) return run_nccl_against(a, in);
  SystemDesc s = asked_system(a);
  if (in.ranks_given) s = with_ranks(s, in.ranks);
  const Collective c = parse_collective(in.collective);
  const DType dt = parse_dtype(in.dtype);
  const int ranks = s.nodes * s.gpus_per_node;
  if (in.root < 0 || in.root >= ranks)
    throw UsageError(fmt::format("root {} is out of range for world size {}", in.root, ranks));
  const Graphs g = derive_graphs(s);
  if (in.bytes_given) {
    const Choice ch = tune(s, c, parse_size(in.bytes));
    header(s, g);
    std::printf("%s   predicted %.3f us\n", nccl_line(ch).c_str(), ch.best().time_us);
    log_choice(ch);
    explain(ch);
    return 0;
  }
  int64_t lo = parse_size(in.min_bytes);
  const int64_t hi = parse_size(in.max_bytes);
  // The least step is one element per rank the size counts (all_gather and
  // reduce_scatter: n of them): a default -b below it starts there, a given
  // one is refused naming it.
  const int64_t unit = size_unit_bytes(c, dt, ranks);
  if (lo < unit && lo > 0) {
    if (in.min_given)
      throw UsageError(fmt::format("-b {}: {} on {} ranks needs at least {} B (one {} per rank)", in.min_bytes,
                                   name(c), ranks, unit, name(dt)));
    lo = unit;
  }
  if (lo <= 0 || lo > hi)
    throw UsageError(fmt::format("-b {} must be positive and not above -e {}", in.min_bytes, in.max_bytes));
  // The sizes as predict --table and bench make them (core/model/sweep.h):
  // distinct, at least one element apart, at most 1000.
  SweepRange range;
  range.min_bytes = lo;
  range.max_bytes = hi;
  range.factor = in.factor;
  range.unit_bytes = unit;
  std::vector<Choice> rows;  // every size priced before printing: a bad one prints nothing
  for (const int64_t b : sweep_sizes(range)) rows.push_back(tune(s, c, b));
  header(s, g);
  for (const Choice& ch : rows) {
    fmt::print("{:<80} {:>12.3f} us\n", nccl_line(ch), ch.best().time_us);
    log_choice(ch);
  }
  std::printf("(predicted time of NCCL's choice per size; --bytes S lists every algorithm and protocol with its "
              "terms)\n");
  return 0;
}

}  // namespace microddp::cli
