// microddp predict: what the alpha-beta model says a collective costs on a
// link you may not have (presets), on explicit α/bandwidth, or on this
// machine (a calibrated profile). Prints the α, β and γ terms and the total,
// both from the literature's closed form and from the schedule itself.
// With a profile that has a cache curve the two price bytes differently
// (the closed form at the flat β and γ, the schedule at each step's
// footprint on the curve): two lines, and in --json the fields
// closed_form_{beta,gamma}_s_per_byte and schedule_{beta,gamma}_s_per_byte,
// schedule_footprint_bytes ([low, high] over the steps), say by how much.
// --json on one flat link prices with the same flat model as the text
// (total_s = the text's lockstep time, barriers, peer waits and memory bus
// included); with a topology, with the per-port model (topology_model.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "app/cli/against.h"
#include "app/cli/commands.h"
#include "app/cli/run_options.h"
#include "core/model/protocol_model.h"
#include "app/cli/nccl_choice.h"
#include "app/cli/predict_parts.h"
#include "core/algorithms/registry.h"
#include "core/ir/limits.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/sweep.h"
#include "core/model/topology_model.h"

namespace microddp::cli {
namespace {

using namespace pred;

// --against FILE: the published rows beside this prediction, on the file's
// collective, ranks and sizes (and nodes, for a topology or a profile's).
int run_against(Args a, bool ranks_given, bool collective_given) {
  const AgainstTable t = load_against(a.against, a.collective, collective_given, a.ranks, ranks_given, a.nodes);
  a.collective = std::string(name(t.collective));
  a.ranks = t.ranks;
  check_ranks(a.ranks, "--ranks");
  a.dtype = std::string(name(nccl_tests_dtype(t.table.rows.front().type)));
  const bool topo = topology_mode(a);
  const int user_nodes = a.nodes;
  // A model of nodes (a topology, a profile calibrated in the lab) places
  // the file's ranks: rank lines it cannot place so (round-robin, uneven)
  // are refused there, and only there (a flat model has no nodes).
  const bool placed = t.table.placement_problem.empty();
  if (topo) t.table.require_modelled_placement();
  a.nodes = placed ? t.nodes : user_nodes;
  std::optional<Network> net;
  try {
    net = profile_network(a, true);
  } catch (const UsageError&) {
    if (!placed) t.table.require_modelled_placement();
    throw;
  }
  if (net) t.table.require_modelled_placement();
  if (!net && topo) net = network(a);
  std::optional<CostParams> flat;
  if (!net) {
    a.nodes = user_nodes;
    flat = chosen(a).front();
  }
  print_against(t, net ? describe(*net) : describe(*flat, a.ranks), a.algorithm, a.json, [&](int64_t bytes) {
    CollectiveSpec s = make_spec(a, a.algorithm, bytes);
    if (net) s.nodes = net->topo.nodes;
    if (a.algorithm == "auto")
      s.algorithm = net ? choose_algorithm(s, CostParams{}, &*net).chosen : flat_choose(a, s, *flat).chosen;
    const Schedule sch = make_schedule(s);
    return net ? predict(sch, *net).pr.lockstep_s : flat_predict(a, sch, *flat).lockstep_s;
  });
  return 0;
}

int run(Args a, bool ranks_given) {
  // predict builds the schedule it prices (its memory grows with n^2):
  // the cap of every command (core/ir/limits.h).
  check_ranks(a.ranks, "--ranks");
  if (a.segments < 1 || a.segments > 4096)
    throw UsageError(fmt::format("--segments {} is out of range (1..4096)", a.segments));
  if (a.channels < 1 || a.channels > 64)
    throw UsageError(fmt::format("--channels {} is out of range (1..64)", a.channels));
  std::optional<Network> from_profile = profile_network(a, ranks_given);
  if (from_profile || topology_mode(a)) {
    const Network net = from_profile ? *from_profile : network(a);
    if (a.table) {
      auto_table(a, nullptr, &net);
      return 0;
    }
    if (a.sweep) {
      sweep(a, nullptr, &net);
      return 0;
    }
    // --channels C with one algorithm that does not run in channels itself
    // (hierarchical, the trees): its phases overlap across C channels as a
    // pipeline (core/model/channel_pipeline.h).
    const AlgorithmInfo* info = find_algorithm(a.algorithm, parse_collective(a.collective));
    if (a.channels > 1 && info && !info->channels) {
      pipeline_report(a, net, parse_size(a.bytes));
      return 0;
    }
    network_table(a, net, parse_size(a.bytes));
    return 0;
  }
  auto ps = chosen(a);
  // --protocol: every link priced with that protocol's message line; auto:
  // per link, the protocol with the lowest predicted lockstep time for the
  // schedule at --bytes (said in the output).
  if (a.protocol != "simple") {
    const bool is_auto = a.protocol == "auto";
    const Protocol fixed = is_auto ? Protocol::simple : parse_protocol_arg(a.protocol);
    for (auto& p : ps) {
      Protocol use = fixed;
      if (is_auto) {
        const int64_t at = a.table || a.sweep ? 0 : parse_size(a.bytes);
        const std::string alg = a.algorithm == "auto" || a.algorithm == "all" ? "ring" : a.algorithm;
        const ProtocolChoice ch = choose_protocol(make_schedule(make_spec(a, alg, at)), p);
        use = ch.chosen;
        if (!a.json) {
          std::printf("protocol auto picks %s on %s for %s at %s (lowest predicted lockstep time%s):",
                      std::string(name(use)).c_str(), p.name.c_str(), alg.c_str(), size_text(at).c_str(),
                      ch.derived ? "; protocol lines derived, not measured" : "");
          for (const auto& c : ch.candidates)
            std::printf(" %s %s;", std::string(name(c.protocol)).c_str(), time_text(c.time_s).c_str());
          std::printf("\n");
        }
      }
      if (!a.json) std::printf("%s", protocol_costs_text(p).c_str());
      const std::string label = fmt::format("{} (protocol {})", p.name, name(use));
      p = for_protocol(p, use);
      p.name = label;
    }
    if (!a.json) std::printf("\n");
  }
  // A comma list of presets: one block per preset for the views that show
  // one link at a time (the plain one-algorithm view compares them itself).
  const int64_t bytes = a.table || a.sweep ? 0 : parse_size(a.bytes);
  if (a.table || a.json || a.sweep || a.algorithm == "auto" || a.algorithm == "all") {
    for (size_t i = 0; i < ps.size(); ++i) {
      const CostParams& p = ps[i];
      if (i && !a.json) std::printf("\n");
      if (a.table) {
        auto_table(a, &p, nullptr);
      } else if (a.json) {
        Network net;
        net.name = p.name;
        net.topo = Topology::make(a.ranks, 1, 1);
        net.intra = net.inter = p;
        if (nvls_switch(a, p)) net.nvls = p;  // nvls on the nvlink preset: its NVSwitch (predict_parts.h)
        network_table(a, net, bytes, &p);
      } else if (a.sweep) {
        sweep(a, &p, nullptr);
      } else if (a.algorithm == "auto") {
        CollectiveSpec s = make_spec(a, "auto", bytes);
        const AutoChoice ch = flat_choose(a, s, p);
        std::printf("auto picks %s on %s:", ch.chosen.c_str(), p.name.c_str());
        for (const auto& c : ch.candidates) std::printf(" %s %s;", c.algorithm.c_str(), time_text(c.time_s).c_str());
        std::printf("\n");
        // the note only for a collective nvls serves (all_reduce; not reduce_scatter, ...)
        if (find_algorithm("nvls", s.collective))
          std::printf("%s\n", nvls_note(a, p).c_str());
        Args b = a;
        b.algorithm = ch.chosen;
        one(b, {p}, bytes);
      } else {
        all_algorithms(a, p, bytes);
      }
    }
    return 0;
  }
  one(a, ps, bytes);
  return 0;
}

}  // namespace

std::function<int()> setup_predict(CLI::App* sub) {
  static Args a;
  sub->add_option("--collective,-c", a.collective, "collective")->capture_default_str();
  sub->add_option("--algorithm,-a", a.algorithm, "algorithm, 'all', or 'auto' (the fastest predicted)")->capture_default_str();
  sub->add_option("--ranks,-n", a.ranks, "world size")->capture_default_str();
  sub->add_option("--bytes", a.bytes, "message size S in bytes (1e9, 64M, 4K: nccl-tests' size)")->capture_default_str();
  sub->add_option("--dtype", a.dtype, "element type")->capture_default_str();
  sub->add_option("--segments", a.segments, "ring segments per chunk")->capture_default_str();
  sub->add_option("--channels", a.channels, "ring, double_binary_tree: slices of the vector run at once; on a network (--topology, --nodes) other algorithms (hierarchical, the trees) run their phases as a pipeline over this many channels")
      ->capture_default_str();
  sub->add_option("--root", a.root, "root rank")->capture_default_str();
  sub->add_option("--preset", a.params.preset, "nvlink | infiniband | pcie5 | ethernet-100g | ethernet-10g (a comma list: one block per preset; one algorithm: compared side by side)");
  sub->add_option("--alpha", a.params.alpha, "latency α in seconds per message");
  sub->add_option("--bandwidth", a.params.bandwidth, "bandwidth in bytes per second (β = 1/bandwidth)");
  sub->add_option("--gamma", a.params.gamma, "reduction cost γ in seconds per byte");
  sub->add_option("--profile", a.params.profile, "calibrated profile JSON (default: " + default_profile_path() + ")");
  sub->add_option("--protocol", a.protocol,
                  "simple | ll | ll128 | auto: price every message with that protocol's line (calibrate measures "
                  "them; auto: the lowest predicted time at --bytes)")
      ->capture_default_str();
  sub->add_flag("--sweep", a.sweep, "table over sizes, with the crossover where ring overtakes tree and naive");
  sub->add_option("--from", a.from, "sweep: smallest size")->capture_default_str();
  sub->add_option("--to", a.to, "sweep: largest size")->capture_default_str();
  sub->add_option("--nodes", a.nodes, "topology: nodes; ranks are placed contiguously, ranks/nodes per node");
  sub->add_option("--nics-per-node", a.nics, "topology: NICs per node, 1..ranks per node (default 1; = ranks per "
                                              "node is rail-optimised: rank r uses NIC (r mod g) mod K)");
  sub->add_option("--intra", a.intra, "topology: intra-node link, a preset or ALPHA,BW (α in seconds, bandwidth in "
                                      "bytes/s per direction per rank)");
  sub->add_option("--inter", a.inter, "topology: inter-node link per NIC, a preset or ALPHA,BW (α in seconds, "
                                      "bandwidth in bytes/s per direction)");
  sub->add_option("--topology", a.topology,
                  "a named topology: dgx-h100 | pcie-box | lab (nodes from --ranks); with --algorithm auto or --table "
                  "also every --nccl-system name: there auto is NCCL's choice (the NCCL-shaped tuner)");
  sub->add_flag("--textbook", a.textbook,
                "auto and --table choose among microddp's algorithms by the α-β model (the lessons' textbook "
                "choice), also on a named system where auto is otherwise NCCL's choice");
  sub->add_flag("--json", a.json, "one JSON object per line and algorithm (total_s: the lockstep prediction; with a "
                                  "profile's cache curve also the β and γ of the closed form and of the steps)");
  sub->add_flag("--table", a.table, "what --algorithm auto picks at each size, with every candidate's time");
  sub->add_option("-b,--minbytes", a.min_bytes, "table: smallest size")->capture_default_str();
  sub->add_option("-e,--maxbytes", a.max_bytes, "table: largest size")->capture_default_str();
  sub->add_option("-f,--stepfactor", a.factor,
                  "table: multiply the size by this between rows (a number above 1; each row at least one element "
                  "above the one before)")
      ->capture_default_str();
  sub->add_option("--against", a.against, "a published nccl-tests output: its rows beside the prediction, with the "
                                           "error per row (its collective, ranks and sizes)");
  static NcclChoiceArgs nccl;
  add_nccl_choice_options(sub, nccl);
  return [sub] {
    // A given --nodes is checked as run and the window check it (0 is the
    // default's "not given" here, never a value the user may give).
    if (sub->count("--nodes")) check_nodes(a.nodes);
    const double factor = parse_step_factor(a.factor);  // named even without --table
    // --against FILE prices the file's rows, one table: the options of the
    // other views (one size, a sweep, a table over sizes), the element type
    // (the file's "type" column) and a protocol line the comparison does not
    // apply are refused by name rather than ignored.
    if (!a.against.empty())
      for (const char* o : {"--bytes", "--dtype", "--sweep", "--from", "--to", "--table", "--minbytes", "--maxbytes",
                            "--stepfactor", "--protocol"})
        if (sub->count(o) > 0)
          throw UsageError(fmt::format("--against FILE prices the file's rows at their sizes and element type, in "
                                       "one table of its own: leave out {} (it would not be used)",
                                       o));
    if (sub->count("--nics-per-node") && a.nics < 0)  // 0: Topology::make names it with the range
      throw UsageError(fmt::format("--nics-per-node {} is out of range (1..the ranks per node)", a.nics));
    // A named system's auto (and --table) is what NCCL would run there:
    // the NCCL-shaped tuner, as --nccl-system NAME; --textbook keeps the
    // α-β choice among microddp's algorithms that the lessons teach.
    const bool named_auto = nccl.system.empty() && !a.textbook && !a.topology.empty() &&
                            nccl_system_known(a.topology) && (a.table || a.algorithm == "auto");
    // A profile `microddp fit` wrote with the tuner: its fitted system.
    const bool fitted = nccl.system.empty() && sub->count("--profile") > 0 && is_tuner_fit_profile(a.params.profile);
    if (nccl.system.empty() && !named_auto && !fitted) {
      if (a.textbook && (a.topology.empty() || !nccl_system_known(a.topology)))
        throw UsageError("--textbook chooses among microddp's algorithms on a named system (--topology NAME, one the "
                         "NCCL-shaped tuner knows); without one auto is already the textbook choice: leave it out");
      if (!a.against.empty()) return run_against(a, sub->count("--ranks") > 0, sub->count("--collective") > 0);
      return run(a, sub->count("--ranks") > 0);
    }
    NcclChoiceArgs use = nccl;
    NcclPredictInputs in{a.collective, a.ranks, sub->count("--ranks") > 0, a.bytes, sub->count("--bytes") > 0,
                         a.min_bytes, a.max_bytes, factor, {}, {}};
    in.against = a.against;
    in.collective_given = sub->count("--collective") > 0;
    in.dtype = a.dtype;
    in.min_given = sub->count("--minbytes") > 0;
    in.root = a.root;
    in.json = a.json;
    std::vector<const char*> other_models = {"--preset", "--alpha", "--bandwidth", "--gamma", "--profile", "--sweep",
                                             "--nodes", "--nics-per-node", "--intra", "--inter", "--segments",
                                             "--protocol", "--channels", "--textbook"};
    if (a.against.empty()) other_models.push_back("--json");  // the tuner's own lines have no JSON form
    else if (sub->count("--root") > 0)
      throw UsageError("--against FILE on the NCCL-shaped tuner: the tuner prices no root (the same time at every "
                       "root): leave out --root");
    if (fitted) {
      use.profile = a.params.profile;
      std::erase(other_models, std::string_view("--profile"));
      other_models.push_back("--algorithm");
      other_models.push_back("--topology");
    } else if (named_auto) {
      use.system = a.topology;
      in.bytes_given = !a.table;  // -a auto alone: the choice at --bytes with every candidate's terms
      in.asked_as = fmt::format("--topology {} {} (NCCL's choice; --textbook for microddp's α-β choice)", a.topology,
                                a.table ? "--table" : "--algorithm auto");
    } else {
      other_models.push_back("--algorithm");
      other_models.push_back("--topology");
    }
    for (const char* o : other_models)
      if (sub->count(o) > 0) in.conflicting.push_back(o);
    return run_nccl_choice(use, in);
  };
}

}  // namespace microddp::cli
