// The cluster lab's job: what `microddp cluster` runs, and what its ranks
// read of the lab (app/cli/lab_job.h).
#include "app/cli/lab_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/parse_error.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/ir/types.h"

#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
#include <mpi.h>
#endif

namespace microddp::cli {
namespace {

// Why each subcommand that cannot be one job across the lab's hosts is
// refused (the words after "does not run as an MPI job across the lab's
// nodes: ").
struct Refusal {
  const char* name;
  const char* why;
};
const Refusal kRefused[] = {
    {"ddp", "it trains on the threads backend of one process, so each node would train its own copy; run `microddp "
            "ddp` outside the lab"},
    {"hang-lab", "it injects its faults into threads-backend ranks of one process, so each node would run its own "
                 "copy; run `microddp hang-lab` outside the lab"},
    {"lesson", "a lesson starts its own runs (lesson 09's lab beats start their own `microddp cluster`); run "
               "`microddp lesson` outside the lab"},
    {"fit", "it fits published tables, nothing runs; run `microddp fit` outside the lab"},
    {"cluster", "a lab inside a lab; give the subcommand to one `microddp cluster`"},
};
const char* const kJobs[] = {"run", "bench", "doctor", "calibrate"};

struct Probe {
  std::shared_ptr<CLI::App> app;
  CLI::App* sub = nullptr;
  std::function<int()> fn;
  std::function<int()> help;  // set: the subcommand's --help was asked for
};

// Parses `command` with the subcommand's own options, as main would.
Probe probe(const std::vector<std::string>& command) {
  Probe p;
  p.app = std::make_shared<CLI::App>("microddp");
  p.sub = p.app->add_subcommand(command[0]);
  p.fn = find_command_setup(command[0])(p.sub);
  std::vector<std::string> rev(command.rbegin(), command.rend());  // CLI11 takes them reversed
  try {
    p.app->parse(rev);
  } catch (const CLI::CallForHelp& e) {
    p.help = [app = p.app, e] { return app->exit(e); };
  } catch (const CLI::ParseError& e) {
    // main adds "error: " again
    throw UsageError(fmt::format("cluster: {}: {}", command[0], parse_error_line(e.what()).substr(7)));
  }
  return p;
}

std::string mbit(double bps) { return fmt::format("{:.1f} Mbit/s", bps / 1e6); }

std::string shape_text(const LabShape& lab) {
  return fmt::format("{} node(s) x {} rank(s) per node = {} ranks", lab.nodes, lab.ranks_per_node, lab.world_size());
}

}  // namespace

LabPlan plan_lab_job(const LabShape& lab, const std::vector<std::string>& command) {
  const std::string& sub = command.at(0);
  for (const Refusal& r : kRefused)
    if (sub == r.name)
      throw UsageError(fmt::format("cluster: subcommand '{}' does not run as an MPI job across the lab's nodes: {}", sub,
                                   r.why));
  bool job = false;
  for (const char* c : kJobs) job = job || sub == c;
  if (!job && sub != "predict")
    throw UsageError(fmt::format("cluster: subcommand '{}' does not exist; give one of: run bench doctor calibrate "
                                 "predict",
                                 sub));
  Probe p = probe(command);
  LabPlan plan;
  if (p.help) {
    plan.run_here = p.help;
    return plan;
  }
  const int w = lab.world_size();
  auto given = [&](const char* opt) { return p.sub->count(opt) > 0; };
  auto add = [&](std::string opt, std::string value) {
    plan.added.push_back(opt);
    plan.added.push_back(value);
  };
  // --ranks: the lab's world size, or refused naming both.
  auto ranks = [&]() {
    if (!given("--ranks")) return add("--ranks", std::to_string(w));
    if (sub == "doctor") {
      const auto list = p.sub->get_option("--ranks")->as<std::vector<int>>();
      if (list.size() != 1 || list[0] != w)
        throw UsageError(fmt::format("cluster: doctor --ranks {} disagrees with the lab's {}: one MPI job checks its "
                                     "own world size (give --ranks {} or leave it out, or change --nodes / "
                                     "--ranks-per-node)",
                                     fmt::join(list, ","), shape_text(lab), w));
      return;
    }
    const int n = p.sub->get_option("--ranks")->as<int>();
    if (n != w)
      throw UsageError(fmt::format("cluster: {} --ranks {} disagrees with the lab's {} (give --ranks {} or leave it "
                                   "out, or change --nodes / --ranks-per-node)",
                                   sub, n, shape_text(lab), w));
  };
  auto same = [&](const char* opt, int lab_value, const char* what) {
    if (!given(opt)) return false;
    const int v = p.sub->get_option(opt)->as<int>();
    if (v != lab_value)
      throw UsageError(fmt::format("cluster: {} {} {} disagrees with the lab's {} {} (leave {} out: the lab sets it)",
                                   sub, opt, v, lab_value, what, opt));
    return true;
  };

  if (sub == "predict") {
    for (const char* opt : {"--topology", "--preset", "--alpha", "--bandwidth", "--intra", "--inter", "--nccl-system",
                            "--against"})
      if (given(opt))
        throw UsageError(fmt::format("cluster: predict {} names other links; inside the lab predict prices the lab's "
                                     "own (its profile or shaped NICs): drop {}, or run `microddp predict {} ...` "
                                     "outside the lab",
                                     opt, opt, opt));
    ranks();
    if (!same("--nodes", lab.nodes, "nodes")) add("--nodes", std::to_string(lab.nodes));
    if (!given("--nics-per-node"))  // the model's cap: a node's NICs serve at most its ranks
      add("--nics-per-node", std::to_string(std::min(lab.nics_per_node, lab.ranks_per_node)));
    std::string source;
    if (!given("--profile")) {
      ClusterLab c;
      c.nodes = lab.nodes;
      c.ranks_per_node = lab.ranks_per_node;
      c.nics_per_node = lab.nics_per_node;
      c.nic_bps = static_cast<double>(lab.nic_bps);
      const LabPrediction lp = *lab_prediction(c, ParamChoice{});
      source = lp.source;
      if (!lp.profile_path.empty()) {
        add("--profile", lp.profile_path);
      } else {
        add("--intra", fmt::format("{:g},{:g}", lp.topo.intra.alpha_s, lp.topo.intra.bandwidth_Bps));
        if (lab.nodes > 1) add("--inter", fmt::format("{:g},{:g}", lp.topo.inter.alpha_s, lp.topo.inter.bandwidth_Bps));
      }
    }
    std::vector<std::string> cmd = command;
    cmd.insert(cmd.begin() + 1, plan.added.begin(), plan.added.end());
    std::fprintf(stderr, "cluster: predict runs here for the lab's topology (%s, %d NIC(s) per node at %s; no "
                 "namespaces, no mpirun)%s%s\ncluster: microddp %s\n",
                 shape_text(lab).c_str(), lab.nics_per_node, mbit(static_cast<double>(lab.nic_bps)).c_str(),
                 source.empty() ? "" : ": ", source.c_str(), fmt::format("{}", fmt::join(cmd, " ")).c_str());
    Probe q = probe(cmd);
    // The probe's app holds the options the function reads.
    plan.run_here = [q] { return q.fn(); };
    return plan;
  }

  // One MPI job across the lab's nodes.
  if (given("--backend")) {
    const std::string b = p.sub->get_option("--backend")->as<std::string>();
    if (b != "mpi")
      throw UsageError(fmt::format(
          "cluster: {} --backend {} would run each node's own copy ({}), not one job across the lab's nodes; inside "
          "`microddp cluster` {} runs on the mpi backend (drop --backend or give --backend mpi)",
          sub, b, b == "threads" ? "a rank per CPU thread of one process" : "the lab's nodes have no GPU", sub));
  } else {
    add("--backend", "mpi");
  }
  if (sub == "calibrate") {
    same("--nodes", lab.nodes, "nodes");
    same("--ranks-per-node", lab.ranks_per_node, "ranks per node");
  } else {
    ranks();
    if (sub == "run" && !same("--nodes", lab.nodes, "nodes")) add("--nodes", std::to_string(lab.nodes));
    if (sub == "bench") same("--nodes", lab.nodes, "nodes");
  }
  plan.command = command;
  plan.command.insert(plan.command.begin() + 1, plan.added.begin(), plan.added.end());
  return plan;
}

std::string default_lab_profile_path() {
  const std::string def = default_profile_path();
  const auto slash = def.rfind('/');
  return (slash == std::string::npos ? std::string() : def.substr(0, slash + 1)) + "lab-profile.json";
}

std::optional<LabPrediction> lab_prediction(const ClusterLab& lab, const ParamChoice& given) {
  if (!given.profile.empty() || !given.preset.empty() || given.alpha >= 0) return std::nullopt;
  LabPrediction lp;
  const double shaped_Bps = lab.nic_bps / 8;
  const std::string path = default_lab_profile_path();
  std::string why_not;
  if (std::filesystem::exists(path)) {
    const auto t = load_profile_topology(path);
    if (!t)
      why_not = fmt::format("{} has no topology", path);
    else if (std::abs(t->shaped_Bps - shaped_Bps) > 0.01 * shaped_Bps)
      why_not = fmt::format("{} was calibrated at {}, this lab's NICs run at {}", path, mbit(t->shaped_Bps * 8),
                            mbit(lab.nic_bps));
    else {
      lp.params = load_profile(path);
      lp.topo = *t;
      lp.profile_path = path;
      lp.source = fmt::format("the lab's profile {} (calibrated in the lab: {} node(s) x {} rank(s), {} per NIC; "
                              "intra {:.3f} us, {:.3f} MB/s; inter {:.3f} us, {:.3f} MB/s)",
                              path, t->nodes, t->ranks_per_node, mbit(t->shaped_Bps * 8), t->intra.alpha_s * 1e6,
                              t->intra.bandwidth_Bps / 1e6, t->inter.alpha_s * 1e6, t->inter.bandwidth_Bps / 1e6);
      return lp;
    }
  } else {
    why_not = fmt::format("no lab profile at {}", path);
  }
  // Built from what the lab knows: its shaped NIC rate, and inside a node
  // this machine's shared memory.
  std::string intra_from = "the \"lab\" topology's shared memory, assumed";
  lp.params.name = "lab-shaped";
  lp.topo.intra = {1e-6, 10e9};
  const std::string machine = default_profile_path();
  if (std::filesystem::exists(machine)) {
    try {
      const CostParams m = load_profile(machine);
      if (m.alpha > 0 && m.bandwidth() > 0) {
        lp.params = m;
        lp.topo.intra = {m.alpha, m.bandwidth()};
        intra_from = "this machine's profile " + machine;
      }
    } catch (const std::exception&) {  // an unreadable machine profile: the assumed shared memory
    }
  }
  lp.params.name = "lab-shaped";
  lp.topo.nodes = lab.nodes;
  lp.topo.ranks_per_node = lab.ranks_per_node;
  lp.topo.nics_per_node = lab.nics_per_node;
  lp.topo.shaped_Bps = shaped_Bps;
  lp.topo.inter = {50e-6, shaped_Bps};
  lp.params.alpha = lp.topo.inter.alpha_s;
  lp.params.beta = 1 / shaped_Bps;
  lp.source = fmt::format("the lab's shaped links ({}; `microddp cluster ... -- calibrate` measures them): inter-node "
                          "{:.3f} MB/s per NIC (the tbf rate), α 50 us assumed; intra-node {:.3f} us, {:.3f} MB/s from "
                          "{}",
                          why_not, shaped_Bps / 1e6, lp.topo.intra.alpha_s * 1e6, lp.topo.intra.bandwidth_Bps / 1e6,
                          intra_from);
  return lp;
}

std::optional<LabPrediction> lab_prediction_from_env(const ParamChoice& given) {
  const auto lab = cluster_lab_from_env();
  if (!lab || !(lab->nic_bps > 0)) return std::nullopt;
  return lab_prediction(*lab, given);
}

std::vector<std::string> mpi_host_names() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  mpi_init_once();
  const int n = mpi_world_size();
  std::vector<char> all(mpi_rank() == 0 ? sizeof name * static_cast<size_t>(n) : 1);
  MPI_Gather(name, sizeof name, MPI_CHAR, all.data(), sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  if (mpi_rank() == 0)
    for (int r = 0; r < n; ++r) hosts.emplace_back(all.data() + sizeof name * static_cast<size_t>(r));
  return hosts;
#else
  return {name};
#endif
}

std::string lab_run_json_fields() {
  const auto lab = cluster_lab_from_env();
  if (!lab) return "";
  const std::vector<std::string> hosts = mpi_host_names();
  if (hosts.empty()) return "";
  std::string h;
  for (const std::string& x : hosts) {
    std::string safe;  // host names are letters, digits, '-' and '.'; keep the JSON valid whatever they are
    for (char c : x)
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_') safe += c;
    h += fmt::format("{}\"{}\"", h.empty() ? "" : ", ", safe);
  }
  return fmt::format(", \"cluster\": {}, \"hosts\": [{}]", cluster_lab_json(*lab), h);
}

}  // namespace microddp::cli
