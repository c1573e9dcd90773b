// microddp bench: the nccl-tests table (size, count, type, redop, root, time,
// algbw, busbw, #wrong) with the cost model's prediction and its error beside
// each row. See core/bench.h for how sizes and times are defined.
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "app/cli/against.h"
#include "app/cli/commands.h"
#include "app/cli/lab_job.h"
#include "app/cli/run_options.h"
#include "core/algorithms/registry.h"
#include "core/exec/cuda/backend_cuda.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/topology_model.h"

namespace microddp::cli {
namespace {

struct Args {
  std::string collective = "all_reduce", algorithm = "ring", backend = "threads", op = "sum", dtype = "float32";
  std::string mode = "lockstep", min = "4K", max = "64M", reference, mpi_algorithm, nccl_algo;
  std::string protocol = "simple";
  int ranks = 2, iters = 20, warmup = 5, root = 0, record_pairs = 0;
  int nodes = 0, nics = 0;  // 0 = the cluster lab's, else the profile's topology, else 1
  std::optional<int> passes;  // unset: 9 on the threads backend, 1 under MPI
  std::string factor = "2";  // parse_step_factor (core/model/sweep.h), as predict --table
  bool check = false, json = false, csv = false, summary = false, record = false;
  ParamChoice params;
  std::string against;  // --against FILE (app/cli/against.h)
};

// Where the prediction comes from, with the α and bandwidth it uses: both
// lines when calibrate split the fit (the small-message line is the one
// most rows of a 4 KiB start use).
// charges_coherence: the rows charge ε and φ (threads backend, no network model).
std::string prediction_source(const ParamChoice& c, const CostParams& p, bool charges_coherence) {
  const auto line = [](double alpha, double beta) {
    return fmt::format("α = {:.3f} µs, bandwidth = {:.3f} GB/s", alpha * 1e6, beta > 0 ? 1e-9 / beta : 0.0);
  };
  std::string s;
  if (c.alpha >= 0) s = "--alpha/--bandwidth";
  else if (!c.preset.empty())
    s = fmt::format("preset {} (a what-if for other hardware; the times are this machine's)", c.preset);
  else s = fmt::format("profile {}", c.profile.empty() ? default_profile_path() : c.profile);
  const std::string curve =
      p.cache.empty() ? ""
                      : fmt::format("; β, γ, δ by step footprint{} from its cache curve ({} footprints, {:.0f} B .. {:.0f} B)",
                                    !charges_coherence ? ""
                                    : p.cache.has_coherence() && p.cache.has_fresh_read()
                                        ? " and ε, φ (lines moved between two cores: writes over what a rank on "
                                          "another core read, reads of what one wrote) by reuse distance"
                                    : p.cache.has_coherence()
                                        ? " and ε (writes over what a rank on another core read) by reuse distance"
                                    : p.cache.has_fresh_read()
                                        ? " and φ (reads of what a rank on another core wrote) by reuse distance"
                                        : "",
                                    p.cache.footprint_bytes.size(), p.cache.footprint_bytes.front(),
                                    p.cache.footprint_bytes.back());
  if (p.break_bytes > 0)
    return s + fmt::format(" (messages < {} B: {}; larger: {}{})", p.break_bytes, line(p.alpha_small, p.beta_small),
                           line(p.alpha, p.beta), curve);
  return s + " (" + line(p.alpha, p.beta) + curve + ")";
}

// --mpi-algorithm: Open MPI's choice is an MCA parameter, read when MPI
// starts (under mpirun main starts it before the command runs: the hook).
void force_mpi_algorithm(const Args& a) {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  static bool forced = false;
  if (a.mpi_algorithm.empty() || a.backend != "mpi" || forced) return;
  if (a.reference != "mpi") throw UsageError(fmt::format("--mpi-algorithm {} needs --reference mpi", a.mpi_algorithm));
  mpi_force_library_algorithm(parse_collective(a.collective), a.mpi_algorithm);
  forced = true;
#else
  (void)a;
#endif
}

int run(const Args& a, const CLI::App& sub) {
  // How busy the CPUs are with other work. Under MPI every rank measures
  // first, at once, sleeping (as calibrate does): measured later, rank 0
  // counted the job's own ranks, polling in MPI for it, as other work (a
  // 1-node x 2-rank lab run said "50% busy" on an idle machine).
  const double busy_before = a.backend == "mpi" ? cpu_busy_fraction() : -1;
  const bool ranks_given = sub.count("--ranks") > 0;
  // A given --nodes is checked as run checks it (0 is the default's "the
  // lab's" here, never a value the user may give); --nics-per-node below.
  if (sub.count("--nodes")) check_nodes(a.nodes);
  if (a.json && a.csv) throw UsageError("--json and --csv exclude each other");
  if (a.record && a.record_pairs > 0)
    throw UsageError("--record and --record-overhead exclude each other (the overhead runs time both)");
  BenchOptions o;
  o.collective = parse_collective(a.collective);
  o.algorithms.clear();
  if (a.algorithm == "all") o.algorithms = algorithms_for(o.collective);
  else {
    std::stringstream ss(a.algorithm);  // "naive,tree,ring"
    for (std::string one; std::getline(ss, one, ',');) o.algorithms.push_back(one);
  }
  o.protocols.clear();
  {
    std::stringstream ss(a.protocol);  // "ll,ll128,simple"
    for (std::string one; std::getline(ss, one, ',');) {
      if (one == "auto") o.protocol_auto = true;
      else o.protocols.push_back(parse_protocol_arg(one));
    }
    if (o.protocols.empty() && !o.protocol_auto)
      throw UsageError(fmt::format("--protocol '{}' names no protocol (give simple, ll, ll128, auto or a list)", a.protocol));
  }
  o.backend = a.backend;
  o.world_size = a.ranks;
  o.min_bytes = parse_size(a.min);
  o.max_bytes = parse_size(a.max);
  o.factor = parse_step_factor(a.factor);
  o.iters = a.iters;
  o.warmup = a.warmup;
  // Threads share this machine's cores with everything else on it, and its
  // speed changes from one fraction of a second to the next (a 4 KiB
  // all-reduce on the project's VM: 0.7, 1.5 or 5 µs, each for 0.1-0.5 s),
  // so a size measured once lands in whichever state the machine was in:
  // the median of nine passes, spread over the run, follows the usual state
  // more often than the median of three.
  // Under MPI (the cluster lab's shaped links) one pass keeps a sweep
  // short; --passes asks for more.
  o.passes = a.passes.value_or(a.backend == "mpi" ? 1 : 9);  // validate_bench names a bad count
  o.op = parse_op(a.op);
  o.dtype = parse_dtype(a.dtype);
  o.root = a.root;
  o.check = a.check;
  o.record = a.record;
  o.record_pairs = a.record_pairs;
  o.mode = parse_mode(a.mode);
  // In the cluster lab with no model chosen: the lab's own (app/cli/lab_job.h).
  const auto lab_model = lab_prediction_from_env(a.params);
  o.params = lab_model ? std::optional<CostParams>(lab_model->params) : resolve_params(a.params);
  o.reference = a.reference;
  o.mpi_algorithm = a.mpi_algorithm;
  o.nccl_algo = a.nccl_algo;
  if (o.reference == "nccl") {
    // Before anything else: without a GPU there is nothing to compare with.
    std::string why;
    if (!cuda_device_available(&why))
      throw UsageError(why == "this build has no CUDA backend" ? "--reference nccl: " + why
                                                                : "--reference nccl: no CUDA device was found: " + why);
    o.nccl_runner = [algo = o.nccl_algo](const CollectiveSpec& sp, const RankData& in, int iters, int warmup) {
      NcclLibraryResult r = run_nccl_library(sp, in, iters, warmup, algo);
      return BenchOptions::LibraryCall{r.seconds, std::move(r.outputs)};
    };
  }
  bool quiet = false;  // ranks != 0 of an MPI job print nothing
  if (o.backend == "mpi" && mpi_available()) {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
    force_mpi_algorithm(a);
    mpi_init_once();
    // Every rank runs the same sequence: compare the options first.
    mpi_agree_on_options(given_options(sub));
    if (!ranks_given) o.world_size = mpi_world_size();
    quiet = mpi_rank() != 0;
#endif
  }
  // --against FILE, checked before anything runs: without --ranks (and
  // outside MPI, whose job gives the world size) the file's rank count.
  std::optional<AgainstTable> against;
  if (!a.against.empty()) {
    const bool world_fixed = ranks_given || (o.backend == "mpi" && mpi_available());
    against = load_against(a.against, a.collective, sub.count("--collective") > 0, o.world_size, world_fixed, a.nodes);
    if (against->collective != o.collective)
      throw UsageError(fmt::format("bench runs {} but {} is {}: give --collective {}", name(o.collective), a.against,
                                   against->table.collective, name(against->collective)));
    o.world_size = against->ranks;
  }
  // Topology: --nodes, else the lab's (cluster_lab_from_env, the one reader
  // of the lab's variables), else a profile topology's when it divides the
  // ranks, else one node. A profile with a "topology" object (calibrate in
  // the lab) predicts with the topology model.
  const auto lab = cluster_lab_from_env();
  if (lab) o.cluster = cluster_lab_json(*lab);
  std::optional<TopologyProfile> topo;
  if (lab_model) {
    topo = lab_model->topo;
  } else if (a.params.alpha < 0 && a.params.preset.empty() && o.params) {
    const std::string path = a.params.profile.empty() ? default_profile_path() : a.params.profile;
    topo = load_profile_topology(path);
  }
  o.nodes = a.nodes > 0                                                    ? a.nodes
            : lab && lab->nodes * lab->ranks_per_node == o.world_size      ? lab->nodes
            : topo && topo->nodes > 0 && o.world_size % topo->nodes == 0   ? topo->nodes
                                                                           : 1;
  // A given placement: run's rule and words (Topology::make).
  if (sub.count("--nodes") || sub.count("--nics-per-node"))
    Topology::make(o.world_size, o.nodes, sub.count("--nics-per-node") ? a.nics : 1);
  // The predicted column on nodes places the file's ranks as the model
  // does: rank lines placed otherwise are refused here (with --nodes, by
  // load_against), not where the prediction is flat.
  if (against && topo && o.nodes > 1) against->table.require_modelled_placement();
  if (topo) {
    const int nics = a.nics > 0 ? a.nics : lab ? lab->nics_per_node : 0;
    if (o.world_size % o.nodes != 0)
      throw UsageError(fmt::format("--nodes {} must divide --ranks {} (placement is contiguous)", o.nodes, o.world_size));
    o.network = network_from_profile(*topo, *o.params, o.world_size, o.nodes, nics);
  }
  validate_bench(o);  // before spending time on memcpy
  // Each size allocates and frees every rank's buffers: keep the pages in the
  // process, as calibrate does (calibrate.h), or a guest VM spends most of
  // the run faulting them in again. Timed passes never touch fresh pages.
  // Not under mpirun: the MPI library may manage its memory its own way.
  std::optional<KeepFreedMemory> keep;
  if (o.backend != "mpi") keep.emplace();
  if (quiet) {
    run_bench(o);  // every rank runs the same sequence; rank 0 prints
    return 0;
  }
  // Other work on the CPUs disturbs every row: say how busy they were.
  std::string busy_line;
  if (const double busy = a.backend == "mpi" ? busy_before : cpu_busy_fraction(); busy > 0.25)
    busy_line = fmt::format("# warning: the CPUs were {:.0f}% busy with other work before this run; the times below "
                            "are disturbed\n",
                            busy * 100);
  const int64_t mb = std::min<int64_t>(std::max<int64_t>(o.max_bytes, int64_t{1} << 20), int64_t{64} << 20);
  const double memcpy_gbps = measure_memcpy_Bps(mb, 5) / 1e9;
  const std::string mline = busy_line + fmt::format("# single-thread memcpy bandwidth: {:.3f} GB/s ({} B buffers, bytes copied per second, as busbw counts them; a yardstick for the table, not used by the prediction)\n", memcpy_gbps, mb);
  std::string pline = o.params ? "# prediction: " +
                                     (lab_model ? lab_model->source
                                                : prediction_source(a.params, *o.params, o.backend != "mpi" && !o.network)) +
                                     "\n"
                               : std::string("# prediction: none (give --profile FILE or --preset, or run `microddp calibrate`)\n");
  // A calibrated threads profile: is the machine still in that state?
  // ... and, with more ranks than CPUs, the step its peer wait w(n) came from
  if (o.params && o.backend == "threads") {
    if (const auto check = check_profile(*o.params)) pline += "# " + profile_check_text(*check) + "\n";
    if (const auto check = check_peer_wait(*o.params, o.world_size)) pline += "# " + peer_wait_check_text(*check) + "\n";
  }
  // ... and before every size: the footer says which sizes ran in another state.
  // (Only a profile whose ping-pong has the reference size: not a quick one.)
  if (o.params && o.backend == "threads" && !o.params->barrier_s.empty()) {
    if (o.params->point_32k_s > 0) {
      o.state_probe = [p = *o.params] { return state_probe_ratio(p, p.point_32k_s); };
      pline += o.params->exchange_32k_s > 0
                   ? "# machine-state probe: before each size, a 32 KiB lockstep message between 2 ranks and a step in "
                     "which both ranks receive 32 KiB at once are timed again against the profile (the footer keeps "
                     "the ratio farther from 1)\n"
                   : "# machine-state probe: before each size, a 32 KiB lockstep message between 2 ranks is timed again "
                     "against the profile (an older profile: it has no both-ranks step; `microddp calibrate` "
                     "measures one)\n";
    } else {
      pline += "# machine-state probe: none (the profile has no 32 KiB point: a quick calibration; `microddp "
               "calibrate` runs the full sweep)\n";
    }
  }
  if (a.json || a.csv) {
    std::fputs(mline.c_str(), stderr);
    std::fputs(pline.c_str(), stderr);
  } else {
    std::fputs(mline.c_str(), stdout);
    std::fputs(pline.c_str(), stdout);
    std::fputs(bench_table_header(o).c_str(), stdout);
  }
  if (a.csv) std::fputs(bench_csv_header().c_str(), stdout);
  const auto rows = run_bench(o, [&](const BenchRow& r) {
    if (a.json) std::printf("%s\n", bench_json_row(r).c_str());
    else if (a.csv) std::fputs(bench_csv_row(r).c_str(), stdout);
    else std::fputs(bench_table_row(r).c_str(), stdout);
    std::fflush(stdout);
  });
  if (!a.json && !a.csv) std::fputs(bench_table_footer(rows, a.summary).c_str(), stdout);
  else std::fputs(bench_state_text(rows).c_str(), stderr);  // the rows carry state_x; the sizes off it, said once
  std::fputs(bench_busbw_note(o, rows).c_str(), a.json || a.csv ? stderr : stdout);
  if (a.summary) std::fputs(bench_summary_text(summarize(rows)).c_str(), a.json || a.csv ? stderr : stdout);
  if (against) print_bench_against(*against, rows, a.json);
  for (const auto& r : rows)
    if (r.wrong > 0) return 1;
  return 0;
}

}  // namespace

std::function<int()> setup_bench(CLI::App* sub) {
  static Args a;
  sub->add_option("--collective,-c", a.collective, "collective")->capture_default_str();
  sub->add_option("--algorithm,-a", a.algorithm,
                  "algorithm, a comma list, or 'all'; 'auto' = the model's fastest per size (needs a profile or preset)")
      ->capture_default_str();
  sub->add_option("--protocol", a.protocol,
                  "simple | ll | ll128 | auto, or a comma list (ll,ll128,simple): every algorithm runs in each; with "
                  "several, the footer names the crossover sizes, measured and predicted")
      ->capture_default_str();
  sub->add_option("--nodes", a.nodes,
                  "ranks on this many nodes, contiguous (default: the cluster lab's, else the profile topology's, else 1)");
  sub->add_option("--nics-per-node", a.nics, "NICs per node for the topology prediction (default: the lab's, else the profile's)");
  sub->add_option("--backend", a.backend, "backend")->capture_default_str();
  sub->add_option("--ranks", a.ranks, "world size")->capture_default_str();
  sub->add_option("-b,--minbytes", a.min, "smallest size (B; K, M, G = powers of 1024)")->capture_default_str();
  sub->add_option("-e,--maxbytes", a.max, "largest size")->capture_default_str();
  sub->add_option("-f,--stepfactor", a.factor,
                  "multiply the size by this between rows (a number above 1; each row at least one element above the "
                  "one before)")
      ->capture_default_str();
  sub->add_option("-n,--iters", a.iters, "timed iterations")->capture_default_str();
  sub->add_option("-w,--warmup_iters", a.warmup, "warm-up iterations")->capture_default_str();
  sub->add_option("--passes", a.passes,
                  "passes over the sizes; a row is the median of its pass medians (default: 9 on threads, 1 on mpi)");
  sub->add_option("--op", a.op, "reduce op")->capture_default_str();
  sub->add_option("--dtype", a.dtype, "element type")->capture_default_str();
  sub->add_option("--root", a.root, "root rank (rooted collectives)")->capture_default_str();
  sub->add_option("--mode", a.mode, "lockstep | free")->capture_default_str();
  sub->add_flag("--check", a.check, "verify every output against the reference (#wrong)");
  sub->add_flag("--record", a.record, "record events while timing (trace on), to measure its overhead");
  sub->add_option("--record-overhead", a.record_pairs,
                  "PAIRS: time each row PAIRS times with recording off and on, alternately, and print the overhead");
  sub->add_flag("--json", a.json, "one JSON object per row");
  sub->add_flag("--csv", a.csv, "CSV rows");
  sub->add_option("--against", a.against, "a published nccl-tests output: its rows beside the measured rows of the "
                                           "same sizes (same collective and ranks), with the prediction's error");
  sub->add_flag("--summary", a.summary, "median and max prediction error per algorithm and world size");
  sub->add_option("--reference", a.reference,
                  "mpi | nccl: the library's own collective as extra rows (algorithm \"mpi\" / \"nccl\")");
  sub->add_option("--profile", a.params.profile, "calibrated profile for the prediction (default: " + default_profile_path() + ")");
  sub->add_option("--preset", a.params.preset, "predict with a preset link instead of a profile");
  sub->add_option("--mpi-algorithm", a.mpi_algorithm,
                  "with --reference mpi: force Open MPI's coll/tuned algorithm (e.g. ring, recursive_doubling)");
  sub->add_option("--nccl-algo", a.nccl_algo, "with --reference nccl: NCCL_ALGO ring | tree (default: NCCL's choice)");
  before_mpi_starts().push_back([sub] {
    if (sub->parsed()) force_mpi_algorithm(a);
  });
  return [sub] { return run(a, *sub); };
}

}  // namespace microddp::cli
