// microddp calibrate: measure α, β (ping-pong), γ (reduction kernel) and δ
// (memcpy) on this machine and write the profile that predict and bench use.
// --quick: the reduced sweep (quick_calibrate_options: a few seconds), the
// same profile marked "quick".
// With --backend mpi (the default inside `microddp cluster`): α and
// bandwidth per link class, intra- and inter-node, with the NIC's shaped
// rate beside the measured one, into the profile's "topology" object.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/lab_job.h"
#include "core/model/protocol_model.h"
#include "core/model/bench.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/topology_model.h"

namespace microddp::cli {
namespace {

// What the quick sweep's headline α and bandwidth rest on and what it did
// not measure, in the words of the full run's output ("one line", "large
// msgs", the cache curve, the machine-state probe): next to a full
// calibration's headline, the quick one's α and bandwidth come from fewer,
// smaller sizes (up to 1 MiB, where a message's data may still sit in
// cache) and need not agree with it.
std::string quick_headline_note(const CalibrationResult& r) {
  const CalibrateOptions quick = quick_calibrate_options(), full;
  const int64_t from = r.fit.break_bytes;  // 0: the one line through every size
  int sizes = 0;
  int64_t lo = 0, hi = 0, last = -1;
  for (const FitPoint& pt : r.points) {
    if (pt.bytes < from || pt.bytes == last) continue;
    if (sizes++ == 0) lo = pt.bytes;
    hi = last = pt.bytes;
  }
  const std::string below =
      from ? fmt::format("below {} B the profile uses the small msgs line, α = {:.3f} µs; ", from,
                         r.params.alpha_small * 1e6)
           : "";
  const bool borrowed = from && r.fit.large.through_zero;  // set_message_lines: α from the small line
  return fmt::format("(quick: {} the {} line above, fitted on {} size{}, {} B .. {} B, x{} apart, "
                     "{} round{}; {}not measured: sizes above {} B (the full calibrate fits up to {} B, x{} apart, {} "
                     "rounds), the cache curve, the machine-state probe's 32 KiB "
                     "reference)",
                     borrowed ? "α is the small msgs line's (the large one is bandwidth only), bandwidth is"
                              : "α and bandwidth are",
                     from ? "large msgs" : "one", sizes, sizes == 1 ? "" : "s", lo, hi, quick.size_factor,
                     quick.state_rounds, quick.state_rounds == 1 ? "" : "s", below, quick.max_bytes, full.max_bytes,
                     full.size_factor, full.state_rounds);
}

struct Args {
  std::string backend = "threads", out, min = "4", max = "64M";
  bool nodes_given = false, ranks_per_node_given = false;
  int warmup = 3;
  int nodes = 0, ranks_per_node = 0;  // mpi: 0 = the lab's, else the whole job on one node
  bool no_cache_curve = false;
  bool quick = false;
};

std::string mbs(double Bps) { return Bps > 0 ? fmt::format("{:.3f} MB/s", Bps / 1e6) : "-"; }

int run_mpi_classes(const Args& a, bool max_given) {
  // Before MPI starts: ranks waiting in MPI poll (yielding), so measured
  // later the job's own ranks would count as "other work". Every rank
  // measures at once, sleeping.
  const double busy_before = cpu_busy_fraction();
  mpi_init_once();
  const auto lab = cluster_lab_from_env();
  TopologyCalibrateOptions o;
  const int n = mpi_world_size();
  o.nodes = a.nodes > 0 ? a.nodes : lab ? lab->nodes : 1;
  o.ranks_per_node = a.ranks_per_node > 0 ? a.ranks_per_node : lab && a.nodes == 0 ? lab->ranks_per_node : n / o.nodes;
  o.nics_per_node = lab ? lab->nics_per_node : 1;
  o.shaped_Bps = lab ? lab->nic_bps / 8 : 0;
  // --quick: the largest message 1 MiB (three sizes >= 256 KiB for the
  // bandwidth slope) instead of 4 MiB.
  o.max_bytes = max_given ? parse_size(a.max) : a.quick ? int64_t{1} << 20 : int64_t{4} << 20;
  // Refuse a job that cannot be measured before printing anything.
  validate_topology_calibrate(o, n);
  const bool root = mpi_rank() == 0;
  const std::string path = a.out.empty() ? default_lab_profile_path() : a.out;
  const double busy = busy_before;
  if (root) {
    if (busy > 0.25)
      std::printf("warning: the CPUs are already %.0f%% busy with other work; the intra-node figures and the NIC's "
                  "TCP stack share them\n",
                  busy * 100);
    std::printf("calibrating backend mpi per link class%s: %d node(s) x %d rank(s)%s; ping-pong MPI_Send/MPI_Recv, "
                "median round trip / 2\n",
                a.quick ? " (quick: messages up to 1 MiB)" : "", o.nodes, o.ranks_per_node,
                lab ? fmt::format(", {} NIC(s) per node shaped to {:.1f} Mbit/s", o.nics_per_node, lab->nic_bps / 1e6)
                          .c_str()
                    : " (not in the cluster lab: no shaped rate)");
    o.progress = [](const std::string& line) {
      std::printf("  %s\n", line.c_str());
      std::fflush(stdout);
    };
  }
  const TopologyCalibration r = calibrate_topology_mpi(o);
  if (!root) return 0;
  const TopologyProfile& t = r.profile;
  std::printf("\n%-6s %-10s %13s %16s %16s %9s\n", "link", "pair", "alpha (µs)", "bandwidth", "shaped",
              "measured/shaped");
  auto row = [&](const char* what, const std::optional<LinkClassCalibration>& c, double shaped) {
    if (!c) {
      std::printf("%-6s %-10s %12s %16s %16s %9s   (no pair of this class)\n", what, "-", "-", "-", "-", "-");
      return;
    }
    std::printf("%-6s %-10s %12.2f %16s %16s %9s\n", what, fmt::format("{} <-> {}", c->rank_a, c->rank_b).c_str(),
                c->alpha_s * 1e6, mbs(c->bandwidth_Bps).c_str(), mbs(shaped).c_str(),
                shaped > 0 ? fmt::format("{:.0f}%", 100 * c->bandwidth_Bps / shaped).c_str() : "-");
  };
  row("intra", r.intra, 0);
  row("inter", r.inter, t.shaped_Bps * t.nics_per_node);
  std::printf("(bandwidth: the slope of the sizes >= 256 KiB, one direction; alpha: the 4 B one-way time; shaped: "
              "tbf's rate per direction%s)\n",
              t.nics_per_node > 1 ? " x the NICs per node" : "");
  if (r.intra && r.inter && r.inter->bandwidth_Bps > 0)
    std::printf("intra / inter: %.0fx the bandwidth, %.1fx the latency\n",
                r.intra->bandwidth_Bps / r.inter->bandwidth_Bps,
                r.intra->alpha_s > 0 ? r.inter->alpha_s / r.intra->alpha_s : 0.0);
  if (t.barrier_s > 0) std::printf("lockstep step barrier of %d ranks (through rank 0): %.2f us\n", n, t.barrier_s * 1e6);
  std::printf("γ (float32 sum, 1 thread) %.3f GB/s, δ (memcpy) %.3f GB/s\n", r.reduce_Bps / 1e9, r.memcpy_Bps / 1e9);
  if (r.inter && t.shaped_Bps > 0) {
    const std::string why = shaped_rate_diagnosis(r.inter->bandwidth_Bps, t.shaped_Bps, t.nics_per_node, busy);
    if (why.empty()) std::printf("inter-node bandwidth within 10%% of the shaped rate: the NIC is the bottleneck\n");
    else std::printf("warning: %s\n", why.c_str());
  }
  write_profile(path, r.params, r.inter ? r.inter->points : r.intra ? r.intra->points : std::vector<FitPoint>{});
  write_profile_topology(path, t);
  std::printf("wrote %s (flat fields: the %s class; \"topology\": both classes -- predict and bench --profile %s "
              "use the topology model)\n",
              path.c_str(), r.inter ? "inter" : "intra", path.c_str());
  return 0;
}

int run(Args a, bool backend_given, bool max_given, bool sweep_given) {
  // Inside the cluster lab every rank runs this: the job is the measurement
  // (--quick too: the same per-class measurement with smaller messages).
  const bool in_lab = cluster_lab_from_env().has_value();
  if (!backend_given && in_lab) a.backend = "mpi";
  if (a.quick && !(in_lab && a.backend == "mpi") && (a.backend != "threads" || sweep_given))
    throw UsageError(fmt::format("--quick runs its own sweep on the threads backend: drop {}--min, --max, --warmup and "
                                 "--no-cache-curve (or drop --quick)",
                                 a.backend != "threads" ? "--backend " + a.backend + ", " : ""));
  if (a.backend != "mpi" && (a.nodes_given || a.ranks_per_node_given))
    throw UsageError("--nodes and --ranks-per-node need --backend mpi");
  // A path that cannot be written is refused before a minute of measuring.
  check_profile_writable(a.out.empty() ? (a.backend == "mpi" ? default_lab_profile_path() : default_profile_path())
                                       : a.out);
  if (a.backend == "mpi") return run_mpi_classes(a, max_given);
  const KeepFreedMemory keep;  // each probe reuses the last one's pages (calibrate.h)
  CalibrateOptions o = a.quick ? quick_calibrate_options() : CalibrateOptions{};
  o.backend = a.backend;
  if (!a.quick) {
    o.min_bytes = parse_size(a.min);
    o.max_bytes = parse_size(a.max);
    if (a.warmup < 0) throw UsageError(fmt::format("--warmup {} must not be negative", a.warmup));
    o.warmup = a.warmup;
    o.cache_curve = !a.no_cache_curve;
  }
  validate_calibrate(o);  // refused before any output (the header below)
  o.progress = [](const std::string& line) {
    std::printf("  %s\n", line.c_str());
    std::fflush(stdout);
  };
  const std::string path = a.out.empty() ? default_profile_path() : a.out;
  // Other work on the CPUs disturbs every figure below: say so first.
  if (const double busy = cpu_busy_fraction(); busy > 0.25)
    std::printf("warning: the CPUs are already %.0f%% busy with other work; every figure below will be off (calibrate "
                "on an idle machine)\n",
                busy * 100);
  std::printf("calibrating backend %s%s: ping-pong between 2 ranks, %lld B .. %lld B (one-way time: per size, the "
              "mode of each round's steps, then the median over the rounds)\n",
              a.backend.c_str(), a.quick ? " (quick: sizes x4 apart, one round, no cache curve)" : "",
              static_cast<long long>(o.min_bytes), static_cast<long long>(o.max_bytes));
  CalibrationResult r;
  if (a.quick) {
    QuickCalibrationHooks hooks;
    hooks.progress = [](double, const std::string& line) {
      if (line.empty() || line.rfind("wrote ", 0) == 0) return;
      std::printf("  %s\n", line.c_str());
      std::fflush(stdout);
    };
    const QuickCalibrationOutcome q = run_quick_calibration(path, hooks);  // writes the profile, marked quick
    r = q.result;
    std::printf("quick calibration: %.1f s\n", q.seconds);
  } else {
    r = calibrate(o);
  }
  const CostParams& p = r.params;
  auto show = [](const char* what, const LineFit& f) { std::printf("%s\n", fit_line_text(what, f).c_str()); };
  std::printf("\n");
  show("one line   ", r.fit.one);
  if (r.fit.break_bytes) {
    std::printf("one line does not fit (max residual above 15%%): split at %lld B\n",
                static_cast<long long>(r.fit.break_bytes));
    show("small msgs ", r.fit.small);
    show("large msgs ", r.fit.large);
    if (const std::string where = split_cache_text(r.fit.break_bytes, data_cache_sizes()); !where.empty())
      std::printf("%s\n", where.c_str());
  }
  const LineFit& large = r.fit.break_bytes ? r.fit.large : r.fit.one;
  if (!(large.beta > 0))
    std::printf("warning: the large-message times did not grow with size (β <= 0): the measurement was disturbed, so the "
                "profile uses the copy's δ as β; run calibrate again on an idle machine\n");
  std::printf("γ (float32 sum kernel, 1 thread) = %.4g s/B  (%.3f GB/s)\n", p.gamma, r.reduce_Bps / 1e9);
  std::printf("δ (memcpy, 1 thread)             = %.4g s/B  (%.3f GB/s)\n", p.delta, r.memcpy_Bps / 1e9);
  std::printf("profile%s: α = %.3f µs, bandwidth = %.3f GB/s, γ = %.4g s/B, n½ = %.0f B, cores = %d\n",
              a.quick ? " (quick)" : "", p.alpha * 1e6, p.bandwidth() / 1e9, p.gamma, p.n_half(), p.cores);
  if (a.quick) std::printf("  %s\n", quick_headline_note(r).c_str());
  else if (p.break_bytes > 0)
    // The headline's α is the large messages' (the small line's when theirs is bandwidth only,
    // set_message_lines): say which line prices the small ones.
    std::printf("  (messages below %lld B: the small msgs line above, α = %.3f µs, bandwidth = %.3f GB/s%s)\n",
                static_cast<long long>(p.break_bytes), p.alpha_small * 1e6, p.beta_small > 0 ? 1e-9 / p.beta_small : 0.0,
                r.fit.large.through_zero
                    ? "; the large msgs line is bandwidth only, so the headline's α is the small line's: a message's "
                      "fixed cost does not shrink with its size"
                    : "");
  if (!p.protocols.empty()) {
    // each protocol's line and where the lines cross (protocol_model.h)
    std::printf("%s", protocol_costs_text(p).c_str());
    const auto c = protocol_costs(p);
    const auto at = [&](Protocol x, Protocol y) {
      const double m = crossover_bytes(c[static_cast<int>(x)], c[static_cast<int>(y)]);
      return m < 0 ? std::string("never") : fmt::format("{:.0f} B", m);
    };
    std::printf("protocol lines cross: ll = ll128 at %s, ll128 = simple at %s, ll = simple at %s\n",
                at(Protocol::ll, Protocol::ll128).c_str(), at(Protocol::ll128, Protocol::simple).c_str(),
                at(Protocol::ll, Protocol::simple).c_str());
  }
  if (!p.barrier_s.empty())
    std::printf("lockstep barrier b(n) = %.3f µs at n = 2, %.3f µs at n = %zu (b(2) taken out of the ping-pong times)\n",
                p.barrier_s.front() * 1e6, p.barrier_s.back() * 1e6, p.barrier_s.size() + 1);
  if (!p.wait_s.empty())
    std::printf("peer wait w(n) = %.3f µs at n = 2, %.3f µs at n = %d, %.3f µs at n = %zu (once per step to a receiver sharing a core with a busy rank, or whose sender does)\n",
                p.wait_for(2) * 1e6, p.wait_for(p.cores + 1) * 1e6, p.cores + 1, p.wait_s.back() * 1e6,
                p.wait_s.size() + 1);
  if (!p.cache.empty()) {
    const auto& c = p.cache;
    // the range over the curve, then both ends: the fastest footprint is
    // often in the middle (in L2), not at either end
    const auto gbps = [](const std::vector<double>& v) {
      const auto [slow, fast] = std::minmax_element(v.begin(), v.end(), [](double a, double b) { return a > b; });
      return fmt::format("{:.3f} .. {:.3f} GB/s ({:.3f} at the smallest footprint, {:.3f} at the largest)", 1e-9 / *slow,
                         1e-9 / *fast, 1e-9 / v.front(), 1e-9 / v.back());
    };
    std::printf("cache curve (%zu footprints, %.0f B .. %.0f B): β %s, δ %s; each step is priced at its footprint "
                "(per-rank bytes read + written x ranks sharing the cache)\n",
                c.footprint_bytes.size(), c.footprint_bytes.front(), c.footprint_bytes.back(), gbps(c.beta).c_str(),
                gbps(c.delta).c_str());
    if (!c.coherence.empty()) {
      const auto [lo, hi] = std::minmax_element(c.coherence.begin(), c.coherence.end());
      std::printf("coherence ε = %.1f .. %.1f ps per byte a rank writes over bytes another core has read (bench charges "
                  "it for every such byte: each iteration rewrites what a peer read when its buffers were last used)\n",
                  *lo * 1e12, *hi * 1e12);
    }
    if (!c.fresh_read.empty()) {
      const auto [lo, hi] = std::minmax_element(c.fresh_read.begin(), c.fresh_read.end());
      std::printf("fresh reads φ = %.1f .. %.1f ps per byte a rank receives that its sender on another core wrote since "
                  "(bench charges it for every such byte: collectives send what they have just written)\n",
                  *lo * 1e12, *hi * 1e12);
    }
  }
  if (p.exchange_32k_s > 0 && !a.quick)
    std::printf("state probe: a 32 KiB step with both ranks receiving at once takes %.3f µs (bench times it again before "
                "every size)\n",
                p.exchange_32k_s * 1e6);
  if (!p.mem_bw_Bps.empty())
    std::printf("memory bus B(k) = %.3f GB/s with 1 thread, %.3f GB/s with %zu (roofline for min(n, cores) ranks)\n",
                p.mem_bw_Bps.front() / 1e9, p.mem_bw_Bps.back() / 1e9, p.mem_bw_Bps.size());
  if (!a.quick) write_profile(path, p, r.points);
  std::printf("wrote %s%s\n", path.c_str(),
              a.quick ? " (marked quick: run `microddp calibrate` for the full sweep and the cache curve)" : "");
  return 0;
}

}  // namespace

std::function<int()> setup_calibrate(CLI::App* sub) {
  static Args a;
  sub->add_option("--backend", a.backend, "threads, or mpi: per link class under mpirun (default in `microddp cluster`)")
      ->capture_default_str();
  sub->add_option("--out,--output", a.out, "profile file (default: " + default_profile_path() + "; mpi: " +
                                      default_lab_profile_path() + ")");
  sub->add_option("--nodes", a.nodes, "mpi: nodes of the job (default: the cluster lab's, else 1)");
  sub->add_option("--ranks-per-node", a.ranks_per_node, "mpi: ranks per node (default: the lab's, else all)");
  sub->add_option("--min", a.min, "smallest ping-pong size (bytes; K, M suffixes)")->capture_default_str();
  sub->add_option("--max", a.max, "largest ping-pong size")->capture_default_str();
  sub->add_option("--warmup", a.warmup, "warm-up iterations per size")->capture_default_str();
  sub->add_flag("--no-cache-curve", a.no_cache_curve, "skip the cache curve (flat β, γ, δ, as older profiles)");
  sub->add_flag("--quick", a.quick,
                "a few seconds: sizes 4 B .. 1 MiB x4 apart, one round, no cache curve; the profile is marked quick "
                "(in the cluster lab: the per-link-class measurement with messages up to 1 MiB)");
  return [sub] {
    if (sub->count("--out") && a.out.empty())
      throw UsageError("--out is empty: give the profile a file name (or leave --out out for the default)");
    a.nodes_given = sub->count("--nodes") > 0;
    a.ranks_per_node_given = sub->count("--ranks-per-node") > 0;
    const bool sweep = sub->count("--min") || sub->count("--max") || sub->count("--warmup") ||
                       sub->count("--no-cache-curve");
    return run(a, sub->count("--backend") > 0, sub->count("--max") > 0, sweep);
  };
}

}  // namespace microddp::cli
