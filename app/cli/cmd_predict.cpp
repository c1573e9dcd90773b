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
#include "core/algorithms/registry.h"
#include "core/ir/limits.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/sweep.h"
#include "core/model/topology_model.h"

namespace microddp::cli {
namespace {

struct Args {
  std::string collective = "all_reduce", algorithm = "ring", dtype = "float32", bytes = "1e9";
  int ranks = 8, segments = 1, channels = 1, root = 0;
  ParamChoice params;
  bool sweep = false;
  std::string from = "1K", to = "1G";
  // Topology (any of these switches the two-level model on).
  int nodes = 0, nics = -1;  // 0 / -1 = not given
  std::string intra, inter, topology;
  bool json = false, table = false;
  std::string min_bytes = "8", max_bytes = "1G";
  std::string factor = "2";  // parse_step_factor (core/model/sweep.h), as bench
  std::string protocol = "simple";  // simple | ll | ll128 | auto (core/model/protocol_model.h)
  std::string against;  // --against FILE: a published nccl-tests table (app/cli/against.h)
};

bool topology_mode(const Args& a) {
  return a.nodes > 0 || a.nics >= 0 || !a.intra.empty() || !a.inter.empty() || !a.topology.empty();
}

// The network asked for: a named topology's defaults, overridden by
// --nodes, --nics-per-node, --intra, --inter. --intra falls back to the flat
// link (--preset, --alpha/--bandwidth, a profile) when one is given.
// Where the preset's switch figure comes from ("" when it has no switch class).
std::string nvls_source;

Network network(const Args& a) {
  Network net;
  int nodes = a.nodes, nics = a.nics;
  std::optional<CostParams> intra, inter;
  if (!a.topology.empty()) {
    const NamedNetwork& nn = network_preset(a.topology);
    net.name = nn.name;
    if (nodes == 0) {
      // The topology's own node count: a --ranks it does not divide names
      // the topology (the user gave no --nodes).
      if (nn.nodes > 0 && a.ranks % nn.nodes != 0)
        throw UsageError(fmt::format("--ranks {} is not divisible by the {} nodes of --topology {} (placement is "
                                     "contiguous: every node holds the same number of ranks; give a multiple of {}, "
                                     "or --nodes N)",
                                     a.ranks, nn.nodes, nn.name, nn.nodes));
      if (nn.nodes > 0) nodes = nn.nodes;
      else if (a.ranks % nn.ranks_per_node != 0)
        throw UsageError(fmt::format("--ranks {} is not divisible by the {} ranks per node of --topology {}", a.ranks,
                                     nn.ranks_per_node, nn.name));
      else nodes = a.ranks / nn.ranks_per_node;
    }
    if (nics < 0) nics = std::min(nn.nics_per_node, std::max(1, a.ranks / std::max(1, nodes)));
    intra = nn.intra;
    inter = nn.inter;
    net.nvls = nn.nvls;
    nvls_source = nn.nvls_source;
  }
  if (nodes == 0) nodes = 1;
  if (nics < 0) nics = 1;
  if (!a.intra.empty()) intra = parse_link("--intra", a.intra);
  if (!a.inter.empty()) inter = parse_link("--inter", a.inter);
  if (!intra) intra = resolve_params(a.params);
  if (!intra)
    throw UsageError("--intra is missing: give --intra PRESET|ALPHA,BW (e.g. nvlink, or 1e-6,600e9) or --topology NAME");
  if (!inter) {
    if (nodes > 1)
      throw UsageError(fmt::format("--inter is missing: --nodes {} needs the inter-node link (--inter PRESET|ALPHA,BW, "
                                   "e.g. infiniband)",
                                   nodes));
    inter = intra;
  }
  net.topo = Topology::make(a.ranks, nodes, nics);
  net.intra = *intra;
  net.inter = *inter;
  return net;
}

std::string link_text(const CostParams& p) {
  return fmt::format("{} (α = {:.3g} us, {:.4g} GB/s)", p.name, p.alpha * 1e6, p.bandwidth() / 1e9);
}
// A time unit for one block of figures: µs below 1 ms, ms below 1 s, else s.
struct Unit {
  double scale;  // seconds per unit
  int decimals;
  const char* name;
};
// Chosen on the value as printed: 999.996 µs would print "1000.00 us", so
// it takes ms ("1.0000 ms").
Unit unit_for(double seconds) {
  const double a = std::fabs(seconds);
  if (std::round(a * 1e8) < 1e5) return {1e-6, 2, "us"};  // below 1000.00 us as printed
  if (std::round(a * 1e7) < 1e7) return {1e-3, 4, "ms"};  // below 1000.0000 ms
  return {1, 6, "s"};
}
std::string in_unit(double seconds, const Unit& u) {
  return fmt::format("{:.{}f} {}", seconds / u.scale, u.decimals, u.name);
}
// One time alone, in its own unit, with that unit's decimals.
std::string time_text(double seconds) { return in_unit(seconds, unit_for(seconds)); }

std::string describe(const Network& n) {
  return fmt::format("{}{} node(s) x {} rank(s), {} NIC(s) per node; intra {}; inter {}",
                     n.name == "custom" ? "" : n.name + ": ", n.topo.nodes, n.topo.ranks_per_node,
                     n.topo.nics_per_node, link_text(n.intra), link_text(n.inter)) +
         (n.nvls ? fmt::format("; reducing switch {} per rank port ({})", link_text(*n.nvls), nvls_source) : "");
}

// The parameters as they apply to a call on n ranks: the barrier b(n), the
// peer wait w(n) and the memory bus B(min(n, cores)) of that world size.
std::string describe(const CostParams& p, int n) {
  std::string s = fmt::format("{}: α = {:.3g} us, bandwidth = {:.4g} GB/s (β = {:.4g} s/B)", p.name, p.alpha * 1e6,
                              p.bandwidth() / 1e9, p.beta);
  if (p.gamma > 0) s += fmt::format(", γ = {:.4g} s/B", p.gamma);
  if (p.delta > 0) s += fmt::format(", δ = {:.4g} s/B", p.delta);
  if (p.break_bytes > 0)
    s += fmt::format(", below {} B: α = {:.3g} us, {:.4g} GB/s", p.break_bytes, p.alpha_small * 1e6,
                     p.beta_small > 0 ? 1e-9 / p.beta_small : 0.0);
  if (!p.barrier_s.empty()) s += fmt::format(", barrier b({}) = {:.3g} us", n, p.barrier_for(n) * 1e6);
  if (!p.wait_s.empty()) s += fmt::format(", peer wait w({}) = {:.3g} us", n, p.wait_for(n) * 1e6);
  if (!p.mem_bw_Bps.empty())
    s += fmt::format(", memory bus B({}) = {:.4g} GB/s", p.bus_threads(n), p.mem_bw_for(p.bus_threads(n)) / 1e9);
  return s;
}

CollectiveSpec make_spec(const Args& a, const std::string& alg, int64_t bytes) {
  BenchOptions o;
  o.collective = parse_collective(a.collective);
  o.world_size = a.ranks;
  o.dtype = parse_dtype(a.dtype);
  o.root = a.root;
  CollectiveSpec s = bench_spec(o, alg, bytes);
  s.segments = a.segments;
  s.channels = a.channels;
  if (a.nodes > 0) s.nodes = a.nodes;
  return s;
}

std::vector<CostParams> chosen(const Args& a) {
  std::vector<CostParams> out;
  if (a.params.preset.find(',') != std::string::npos) {
    // Every entry counts: an empty one ("nvlink,") is refused, not dropped.
    const std::string& list = a.params.preset;
    size_t from = 0;
    for (int i = 1;; ++i) {
      const size_t comma = list.find(',', from);
      const std::string one = list.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      if (one.empty()) throw UsageError(fmt::format("--preset '{}': entry {} is empty", list, i));
      out.push_back(preset(one));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    return out;
  }
  auto p = resolve_params(a.params);
  if (!p)
    throw UsageError("no link to predict for: give --preset NAME (nvlink, infiniband, pcie5, ethernet-100g, "
                     "ethernet-10g), --alpha S --bandwidth B_PER_S, or --profile FILE (or run `microddp calibrate`)");
  if (const std::string note = stale_profile_note(*p); !note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());
  out.push_back(*p);
  return out;
}

// The cache-curve values the schedule's steps were priced at (cost_model.h:
// each step at its footprint), beside the flat β and γ the closed form
// prices its bytes at. β counts only where the model charges m·β (a recv;
// a send and a recv_reduce too unless the profile fuses them), and only for
// messages of at least break_bytes: below it both use the small-message
// line (small_any says some did). γ counts every step that reduces.
struct CurvePricing {
  bool beta_any = false, gamma_any = false, small_any = false;
  double beta_lo = 0, beta_hi = 0, gamma_lo = 0, gamma_hi = 0;  // s/B
  double fp_lo = 0, fp_hi = 0;                                  // bytes, over the steps counted
};
CurvePricing curve_pricing(const Schedule& sch, const Prediction& pr, const CostParams& p) {
  CurvePricing c;
  if (p.cache.empty()) return c;
  const size_t es = dtype_size(sch.spec.dtype);
  bool any = false;
  const auto widen = [](bool& seen, double& lo, double& hi, double v) {
    lo = seen ? std::min(lo, v) : v;
    hi = seen ? std::max(hi, v) : v;
    seen = true;
  };
  for (size_t i = 0; i < sch.steps.size() && i < pr.footprint_bytes.size(); ++i) {
    const double fp = pr.footprint_bytes[i];
    bool counted = false;
    for (const auto& ops : sch.steps[i].ranks)
      for (const Op& op : ops) {
        const double m = static_cast<double>(op.len * static_cast<int64_t>(es));
        if (!(m > 0)) continue;
        const bool priced_beta = op.kind == OpKind::recv ||
                                 (!p.fused_recv_reduce && (op.kind == OpKind::send || op.kind == OpKind::recv_reduce));
        if (priced_beta && m < static_cast<double>(p.break_bytes)) c.small_any = true;
        else if (priced_beta) {
          widen(c.beta_any, c.beta_lo, c.beta_hi, p.beta_at(m, fp));
          counted = true;
        }
        if (op.kind == OpKind::recv_reduce || op.kind == OpKind::reduce) {
          widen(c.gamma_any, c.gamma_lo, c.gamma_hi, p.gamma_at(fp));
          counted = true;
        }
      }
    if (counted) widen(any, c.fp_lo, c.fp_hi, fp);
  }
  return c;
}

// "a" or "a..b" (lo and hi formatted alike; one value when they print the same).
std::string range_text(const std::string& lo, const std::string& hi) { return lo == hi ? lo : lo + ".." + hi; }
std::string range_text(double lo, double hi) {
  return range_text(fmt::format("{:.4g}", lo), fmt::format("{:.4g}", hi));
}
std::string footprint_text(double bytes) {
  return bytes < 1024.0 * 1024 ? fmt::format("{:.0f} KiB", bytes / 1024) : fmt::format("{:.4g} MiB", bytes / 1024 / 1024);
}

// Two lines on why the closed form and the schedule disagree when the
// profile has a cache curve: the closed form's flat β and γ (measured on
// rotating buffers past L2) against the cache-curve values of the steps.
void print_curve_pricing(const CurvePricing& c, const CostParams& p) {
  if (!c.beta_any && !c.gamma_any) return;
  std::string flat, steps;
  if (c.beta_any) {
    flat = fmt::format("β = {:.4g} s/B ({:.4g} GB/s)", p.beta, p.bandwidth() / 1e9);
    steps = fmt::format("β = {} s/B ({} GB/s)", range_text(c.beta_lo, c.beta_hi),
                        range_text(1e-9 / c.beta_lo, 1e-9 / c.beta_hi));
  }
  if (c.gamma_any) {
    flat += fmt::format("{}γ = {:.4g} s/B", flat.empty() ? "" : ", ", p.gamma);
    steps += fmt::format("{}γ = {} s/B", steps.empty() ? "" : ", ", range_text(c.gamma_lo, c.gamma_hi));
  }
  const std::string small =
      c.small_any ? fmt::format("; messages below {} B: the small-message β in both", p.break_bytes) : "";
  std::printf("  closed form vs schedule: the closed form prices its bytes at the profile's flat %s (measured on "
              "rotating buffers past L2)%s;\n",
              flat.c_str(), small.c_str());
  std::printf("    the schedule prices each step at its footprint (%s) on the profile's cache curve: %s\n",
              range_text(footprint_text(c.fp_lo), footprint_text(c.fp_hi)).c_str(), steps.c_str());
}

void one(const Args& a, const std::vector<CostParams>& ps, int64_t bytes) {
  const CollectiveSpec s = make_spec(a, a.algorithm, bytes);
  const Schedule sch = make_schedule(s);
  const int64_t S = s.count * static_cast<int64_t>(dtype_size(s.dtype));
  std::printf("%s %s, %d ranks, %lld B (count %lld %s per rank), %d steps\n", std::string(name(s.collective)).c_str(),
              a.algorithm.c_str(), s.world_size, static_cast<long long>(bench_bytes(s)),
              static_cast<long long>(s.count), std::string(name(s.dtype)).c_str(), sch.num_steps());
  const std::string text = closed_form_text(s);
  std::printf("closed form: %s  with S = %lld B\n", text.empty() ? "(none; schedule-derived only)" : text.c_str(),
              static_cast<long long>(S));
  double first = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    const CostParams& p = ps[i];
    const Prediction pr = predict(sch, p);
    const auto cf = closed_form(s, p);
    const CostTerms t = cf ? *cf : pr.lockstep;
    std::printf("\n%s\n", describe(p, s.world_size).c_str());
    // one unit per block, chosen by the total, so the column lines up and a
    // 12-byte step reads "10.00 us", not "0.000010 s"
    const Unit u = unit_for(std::max(t.total(), pr.lockstep_s));
    const auto tm = [&](double sec) { return in_unit(sec, u); };
    std::printf("  α term   %17s\n", tm(t.alpha_s).c_str());
    std::printf("  β term   %17s\n", tm(t.beta_s).c_str());
    if (t.gamma_s > 0 || p.gamma > 0) std::printf("  γ term   %17s\n", tm(t.gamma_s).c_str());
    if (t.delta_s > 0) std::printf("  δ term   %17s\n", tm(t.delta_s).c_str());
    std::printf("  total    %17s   (%s)\n", tm(t.total()).c_str(), cf ? "closed form" : "schedule");
    std::printf("  schedule: lockstep %s, pipelined %s\n", tm(pr.lockstep_s).c_str(), tm(pr.pipelined_s).c_str());
    if (pr.lockstep.bus_s > 0 || pr.lockstep.barrier_s > 0 || pr.lockstep.wait_s > 0)
      std::printf("  of which (lockstep, not in the closed form): memory bus %s, barriers %s, peer waits %s\n",
                  tm(pr.lockstep.bus_s).c_str(), tm(pr.lockstep.barrier_s).c_str(), tm(pr.lockstep.wait_s).c_str());
    if (p.cache.has_coherence() || p.cache.has_fresh_read()) {
      // ε and φ (cost_model.h): what running the collective back to back, as bench does, adds
      const CostParams b2b = bench_params(sch, p);
      CostParams without = b2b;
      without.back_to_back = false;
      const Prediction rep = predict(sch, b2b);
      int64_t over = 0, fresh = 0;
      // the terms themselves (the largest rank's in each step), and the part
      // of them in steps the memory bus sets (bus time above every rank's)
      double own = 0, on_bus = 0;
      for (size_t k = 0; k < rep.ranks.size(); ++k) {
        double most = 0, slowest = 0;
        for (const RankStepCost& rc : rep.ranks[k]) {
          over += rc.bytes_over_peer_reads;
          fresh += rc.bytes_fresh_from_peers;
          most = std::max(most, rc.terms.coherence_s);
          slowest = std::max(slowest, rc.terms.total());
        }
        own += most;
        if (rep.bus_s[k] > slowest) on_bus += most;
      }
      // never below 0: a rounding difference would print "-0.00 us"
      const double adds = std::max(0.0, rep.lockstep_s - predict(sch, without).lockstep_s);
      // name only the terms the profile measured
      const bool eps = p.cache.has_coherence(), phi = p.cache.has_fresh_read();
      // its own unit: back to back can cross 1 ms where the block did not
      const Unit ub = unit_for(rep.lockstep_s + p.barrier_for(sch.world_size()));
      const auto tb = [&](double sec) { return in_unit(sec, ub); };
      std::printf("  run back to back as bench runs it (its buffer rotation, %.0f B, as the least footprint):\n",
                  b2b.min_footprint_bytes);
      std::printf("    lockstep %s; bench predicts %s (its default lockstep mode closes each iteration with one more "
                  "barrier b(n))\n",
                  tb(rep.lockstep_s).c_str(), tb(rep.lockstep_s + p.barrier_for(sch.world_size())).c_str());
      std::printf("    of which %s add%s %s to the lockstep time, each byte priced at its reuse distance (the traffic "
                  "between the two accesses):\n",
                  eps && phi ? "ε and φ" : eps ? "ε" : "φ", eps && phi ? "" : "s", tb(adds).c_str());
      if (eps)
        std::printf("      ε: %lld B written over bytes a rank on another core read since they were last written\n",
                    static_cast<long long>(over));
      if (phi)
        std::printf("      φ: %lld B received from a sender on another core that wrote them since\n",
                    static_cast<long long>(fresh));
      if (adds < 0.5 * own && on_bus > 0)
        std::printf("      (they would add %s, but the memory bus sets the time of the steps that pay them, not the "
                    "ranks)\n", tb(own).c_str());
      else if (adds < 0.5 * own)
        std::printf("      (they would add %s, but they fall on ranks that are not the slowest of their step)\n",
                    tb(own).c_str());
    }
    if (cf) print_curve_pricing(curve_pricing(sch, pr, p), p);
    if (i == 0) first = t.total();
    else if (first > 0)
      std::printf("  %.1fx the time on %s\n", t.total() / first, ps[0].name.c_str());
  }
}

// Under a table of a calibrated profile's times: what its figures are, and
// where bench's figure is (a student compares the two). Nothing for a
// preset or --alpha/--bandwidth, whose terms add up to the total.
void print_profile_table_note(const CostParams& p, bool terms) {
  if (p.barrier_s.empty() && p.cache.empty() && !(p.delta > 0) && p.mem_bw_Bps.empty()) return;
  if (terms)
    std::printf("(the α, β and γ terms are the lockstep schedule's; lockstep adds δ's copies, the barriers b(n), the "
                "peer waits and the memory bus: `predict -a ALG --bytes N` lists each)\n");
  if (!p.cache.empty())
    std::printf("(one run on warm buffers; bench runs the collective back to back over rotating buffers, so its data "
                "lies farther from the cores: `predict -a ALG --bytes N` gives bench's figure too)\n");
}

void all_algorithms(const Args& a, const CostParams& p, int64_t bytes) {
  const Collective c = parse_collective(a.collective);
  std::printf("%s, %d ranks, %lld B; %s\n", std::string(name(c)).c_str(), a.ranks, static_cast<long long>(bytes),
              describe(p, a.ranks).c_str());
  std::printf("%-20s %6s %14s %14s %14s %14s %14s %14s\n", "algorithm", "steps", "α term (s)", "β term (s)",
              "γ term (s)", "lockstep (s)", "pipelined (s)", "closed form (s)");
  for (const auto& alg : algorithms_for(c)) {
    const CollectiveSpec s = make_spec(a, alg, bytes);
    if (s.segments > 1 && !find_algorithm(alg, c)->pipelines) continue;
    if (s.channels > 1 && !find_algorithm(alg, c)->channels) continue;
    const Schedule sch = make_schedule(s);
    const Prediction pr = predict(sch, p);
    const auto cf = closed_form(s, p);
    std::printf("%-20s %6d %14.6g %14.6g %14.6g %14.6g %14.6g %14s\n", alg.c_str(), sch.num_steps(),
                pr.lockstep.alpha_s, pr.lockstep.beta_s, pr.lockstep.gamma_s, pr.lockstep_s, pr.pipelined_s,
                cf ? fmt::format("{:.6g}", cf->total()).c_str() : "-");
  }
  print_profile_table_note(p, true);
}

void sweep(const Args& a, const CostParams* flat, const Network* net) {
  const Collective c = parse_collective(a.collective);
  const int64_t lo = parse_size(a.from), hi = parse_size(a.to);
  if (lo <= 0 || lo > hi) throw UsageError(fmt::format("--from {} must be positive and not above --to {}", a.from, a.to));
  std::vector<std::string> algs;
  for (const auto& alg : algorithms_for(c))
    if (a.algorithm == "all" || alg == a.algorithm || alg == "ring" || alg == "tree" || alg == "naive" ||
        (net && net->topo.nodes > 1 && alg == "hierarchical"))
      algs.push_back(alg);
  std::printf("%s, %d ranks, lockstep prediction (us); %s\n", std::string(name(c)).c_str(), a.ranks,
              net ? describe(*net).c_str() : describe(*flat, a.ranks).c_str());
  std::printf("%14s", "size (B)");
  for (const auto& alg : algs) std::printf(" %18s", alg.c_str());
  std::printf("\n");
  std::vector<int64_t> sizes;
  std::vector<std::vector<double>> t(algs.size());
  for (int64_t b = lo; b <= hi; b = b > hi / 2 ? hi + 1 : b * 2) {
    sizes.push_back(b);
    std::printf("%14lld", static_cast<long long>(b));
    for (size_t i = 0; i < algs.size(); ++i) {
      CollectiveSpec sp = make_spec(a, algs[i], b);
      if (net) sp.nodes = net->topo.nodes;
      const Schedule sch = make_schedule(sp);
      const double us = (net ? predict(sch, *net).pr.lockstep_s : predict(sch, *flat).lockstep_s) * 1e6;
      t[i].push_back(us);
      std::printf(" %18.3f", us);
    }
    std::printf("\n");
  }
  if (!net) print_profile_table_note(*flat, false);
  const auto ring = std::find(algs.begin(), algs.end(), "ring");
  if (ring == algs.end()) return;
  const size_t ri = ring - algs.begin();
  for (size_t i = 0; i < algs.size(); ++i) {
    if (algs[i] != "tree" && algs[i] != "naive" && algs[i] != "hierarchical") continue;
    // the first size from which ring stays at least as fast as this algorithm
    int64_t cross = -1;
    for (size_t k = sizes.size(); k-- > 0;) {
      if (t[ri][k] <= t[i][k]) cross = sizes[k];
      else break;
    }
    if (cross < 0) std::printf("crossover: ring does not overtake %s by %lld B\n", algs[i].c_str(), static_cast<long long>(hi));
    else if (cross == sizes.front())
      std::printf("crossover: ring is at least as fast as %s from %lld B (the smallest size swept)\n", algs[i].c_str(),
                  static_cast<long long>(cross));
    else std::printf("crossover: ring overtakes %s at %lld B\n", algs[i].c_str(), static_cast<long long>(cross));
    if (algs[i] != "hierarchical") continue;
    // and the other way: from which size the two-level ring stays ahead
    int64_t ahead = -1;
    for (size_t k = sizes.size(); k-- > 0;) {
      if (t[i][k] < t[ri][k]) ahead = sizes[k];
      else break;
    }
    if (ahead > 0)
      std::printf("crossover: hierarchical is faster than ring from %lld B on\n", static_cast<long long>(ahead));
  }
}

// One algorithm on the network: the terms, the bytes per link class, the
// busiest port, and the bandwidths nccl-tests would report.
struct NetRow {
  std::string alg;
  int steps = 0;
  NetworkPrediction np;
  std::optional<CostTerms> cf;
  CollectiveSpec spec;
  CurvePricing curve;  // flat link with a cache curve: what the steps were priced at
};
// flat: the one link of a flat prediction (--json without a topology). Its
// times come from the flat model, as the text view's: the per-port model
// has no memory bus, peer waits or shared cores, so a calibrated profile's
// lockstep time there was not the one `predict` prints.
NetRow net_row(const Args& a, const Network& net, const std::string& alg, int64_t bytes, const CostParams* flat) {
  NetRow r;
  r.alg = alg;
  r.spec = make_spec(a, alg, bytes);
  r.spec.nodes = net.topo.nodes;
  const Schedule sch = make_schedule(r.spec);
  r.steps = sch.num_steps();
  r.np = predict(sch, net);
  r.cf = closed_form(r.spec, net);
  if (flat) {
    r.np.pr = predict(sch, *flat);
    r.curve = curve_pricing(sch, r.np.pr, *flat);
  }
  return r;
}

// The JSON fields that say why a flat profile's closed form and schedule
// differ (the text view's two lines): "" without a cache curve.
std::string curve_json(const NetRow& r, const CostParams* flat) {
  if (!flat || flat->cache.empty() || !r.cf) return "";
  const auto pair = [](bool any, double lo, double hi) {
    return any ? fmt::format("[{:.9g}, {:.9g}]", lo, hi) : std::string("null");
  };
  const CurvePricing& c = r.curve;
  return fmt::format(", \"closed_form_beta_s_per_byte\": {:.9g}, \"closed_form_gamma_s_per_byte\": {:.9g}, "
                     "\"schedule_beta_s_per_byte\": {}, \"schedule_gamma_s_per_byte\": {}, "
                     "\"schedule_footprint_bytes\": {}",
                     flat->beta, flat->gamma, pair(c.beta_any, c.beta_lo, c.beta_hi),
                     pair(c.gamma_any, c.gamma_lo, c.gamma_hi),
                     pair(c.beta_any || c.gamma_any, c.fp_lo, c.fp_hi)) +
         // Messages below the break are priced on the small-message line in
         // both (the text's "; messages below N B" clause): say so, with its β.
         (c.small_any ? fmt::format(", \"small_message_below_bytes\": {}, \"small_message_beta_s_per_byte\": {:.9g}",
                                    flat->break_bytes, flat->beta_small)
                      : std::string());
}

std::vector<std::string> algorithms_asked(const Args& a, Collective c) {
  std::vector<std::string> algs;
  for (const auto& alg : algorithms_for(c))
    if (a.algorithm == "all" || a.algorithm == "auto" || alg == a.algorithm) {
      if (a.segments > 1 && !find_algorithm(alg, c)->pipelines) continue;
      if (a.channels > 1 && !find_algorithm(alg, c)->channels) continue;
      algs.push_back(alg);
    }
  if (algs.empty()) algorithm_info(make_spec(a, a.algorithm, 0));  // throws naming it
  return algs;
}

void network_table(const Args& a, const Network& net, int64_t bytes, const CostParams* flat = nullptr) {
  const Collective c = parse_collective(a.collective);
  std::vector<NetRow> rows;
  for (const auto& alg : algorithms_asked(a, c)) {
    if (a.algorithm != alg) {  // all / auto: leave out an algorithm that refuses this network (nvls on nodes > 1)
      CollectiveSpec sp = make_spec(a, alg, bytes);
      sp.nodes = net.topo.nodes;
      const AlgorithmInfo& info = algorithm_info(sp);
      try {
        if (info.refuse) info.refuse(sp);
      } catch (const UsageError&) {
        continue;
      }
    }
    rows.push_back(net_row(a, net, alg, bytes, flat));
  }
  if (a.algorithm == "auto" && !a.json) {
    CollectiveSpec s = make_spec(a, "auto", bytes);
    s.nodes = net.topo.nodes;
    std::printf("auto picks %s (the lowest predicted lockstep time below)\n", choose_algorithm(s, {}, &net).chosen.c_str());
  }
  if (a.json) {
    for (const auto& r : rows) {
      const double t = r.np.pr.lockstep_s, S = static_cast<double>(bench_bytes(r.spec));
      fmt::print("{{\"algorithm\": \"{}\", \"collective\": \"{}\", \"ranks\": {}, \"nodes\": {}, "
                 "\"nics_per_node\": {}, \"bytes\": {}, \"steps\": {}, \"alpha_s\": {:.9g}, \"beta_s\": {:.9g}, "
                 "\"gamma_s\": {:.9g}, \"total_s\": {:.9g}, \"pipelined_s\": {:.9g}, \"closed_form_s\": {}, "
                 "\"bytes_intra\": {}, \"bytes_inter\": {}, \"bottleneck\": \"{}\", \"bottleneck_bytes\": {}, \"algbw_GBps\": {:.6g}, "
                 "\"busbw_GBps\": {:.6g}, \"model\": \"{}\"{}}}\n",
                 r.alg, name(c), a.ranks, net.topo.nodes, net.topo.nics_per_node, bench_bytes(r.spec), r.steps,
                 r.np.pr.lockstep.alpha_s, r.np.pr.lockstep.beta_s, r.np.pr.lockstep.gamma_s, t, r.np.pr.pipelined_s,
                 r.cf ? fmt::format("{:.9g}", r.cf->total()) : "null", r.np.bytes_intra, r.np.bytes_inter,
                 port_name(net.topo, r.np.bottleneck), r.np.bottleneck < 0 ? 0 : r.np.port_bytes[r.np.bottleneck],
                 t > 0 ? S / t / 1e9 : 0.0,
                 t > 0 ? S / t / 1e9 * busbw_factor(c, a.ranks) : 0.0, net.name, curve_json(r, flat));
    }
    return;
  }
  std::printf("%s, %d ranks, %lld B; %s\n", std::string(name(c)).c_str(), a.ranks, static_cast<long long>(bytes),
              describe(net).c_str());
  std::printf("%-18s %5s %12s %12s %12s %12s %14s %14s %-18s %14s %9s %9s\n", "algorithm", "steps", "α term (s)",
              "β term (s)", "total (s)", "closed (s)", "bytes intra", "bytes inter", "bottleneck port", "its bytes",
              "algbw", "busbw");
  for (const auto& r : rows) {
    const double t = r.np.pr.lockstep_s, S = static_cast<double>(bench_bytes(r.spec));
    std::printf("%-18s %5d %12.6g %12.6g %12.6g %12s %14lld %14lld %-18s %14lld %9.3f %9.3f\n", r.alg.c_str(), r.steps,
                r.np.pr.lockstep.alpha_s, r.np.pr.lockstep.beta_s, t,
                r.cf ? fmt::format("{:.6g}", r.cf->total()).c_str() : "-", static_cast<long long>(r.np.bytes_intra),
                static_cast<long long>(r.np.bytes_inter), port_name(net.topo, r.np.bottleneck).c_str(),
                static_cast<long long>(r.np.bottleneck < 0 ? 0 : r.np.port_bytes[r.np.bottleneck]), t > 0 ? S / t / 1e9 : 0.0, t > 0 ? S / t / 1e9 * busbw_factor(c, a.ranks) : 0.0);
  }
  std::printf("(algbw, busbw in GB/s; total = lockstep schedule prediction; bytes counted once per message; the "
              "bottleneck is the port busiest over the run)\n");
}

// "What would NCCL pick" over sizes: the chosen algorithm and every
// candidate's predicted time. At most kTableMaxSizes rows (sweep_sizes).
constexpr int kTableMaxSizes = 1000;
void auto_table(const Args& a, const CostParams* flat, const Network* net) {
  const Collective c = parse_collective(a.collective);
  const int64_t lo = parse_size(a.min_bytes), hi = parse_size(a.max_bytes);
  if (lo <= 0 || lo > hi)
    throw UsageError(fmt::format("-b {} must be positive and not above -e {}", a.min_bytes, a.max_bytes));
  // Every size before any output: a factor that makes no sweep is refused first.
  SweepRange range;
  range.min_bytes = lo;
  range.max_bytes = hi;
  range.factor = parse_step_factor(a.factor);
  range.unit_bytes = size_unit_bytes(c, parse_dtype(a.dtype), a.ranks);
  range.max_sizes = kTableMaxSizes;
  const std::vector<int64_t> sizes = sweep_sizes(range);
  std::printf("%s, %d ranks: what auto picks (lockstep prediction, us); %s\n", std::string(name(c)).c_str(), a.ranks,
              net ? describe(*net).c_str() : describe(*flat, a.ranks).c_str());
  std::vector<std::string> header;
  std::string last;
  std::vector<std::string> changes;
  bool first = true;
  for (const int64_t bytes : sizes) {
    CollectiveSpec s = make_spec(a, "auto", bytes);
    if (net) s.nodes = net->topo.nodes;
    const AutoChoice ch = choose_algorithm(s, flat ? *flat : CostParams{}, net);
    if (first) {
      std::printf("%14s %-16s", "size (B)", "auto picks");
      for (const auto& cand : ch.candidates) std::printf(" %16s", cand.algorithm.c_str());
      std::printf("\n");
      first = false;
    }
    std::printf("%14lld %-16s", static_cast<long long>(bytes), ch.chosen.c_str());
    for (const auto& cand : ch.candidates) std::printf(" %16.3f", cand.time_s * 1e6);
    std::printf("\n");
    if (!last.empty() && ch.chosen != last)
      changes.push_back(fmt::format("{} -> {} at {} B", last, ch.chosen, bytes));
    last = ch.chosen;
  }
  if (changes.empty()) std::printf("auto picks %s at every size\n", last.c_str());
  for (const auto& ch : changes) std::printf("switch: %s\n", ch.c_str());
}

// A profile calibrated in the cluster lab carries its topology: predict
// on it with the topology model, nodes and ranks per node from the profile
// unless --nodes / --ranks say otherwise. nullopt: no such profile, or the
// link was given some other way (--preset, --alpha, --intra, --topology).
std::optional<Network> profile_network(Args& a, bool ranks_given) {
  if (!a.params.preset.empty() || a.params.alpha >= 0 || !a.intra.empty() || !a.inter.empty() || !a.topology.empty())
    return std::nullopt;
  std::string path = a.params.profile;
  if (path.empty()) {
    path = default_profile_path();
    if (!std::filesystem::exists(path)) return std::nullopt;
  }
  const auto t = load_profile_topology(path);
  if (!t) return std::nullopt;
  const CostParams base = load_profile(path);
  const int nodes = a.nodes > 0 ? a.nodes : t->nodes;
  if (!ranks_given) a.ranks = nodes * t->ranks_per_node;
  if (a.nodes == 0 && a.ranks % nodes != 0)
    throw UsageError(fmt::format("--ranks {} is not divisible by the profile's {} nodes (give --nodes)", a.ranks, nodes));
  a.nodes = nodes;
  Network net = network_from_profile(*t, base, a.ranks, nodes, a.nics > 0 ? a.nics : 0);
  net.name = "profile " + path;
  return net;
}

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
  a.nodes = t.nodes;
  std::optional<Network> net = profile_network(a, true);
  if (!net && topo) net = network(a);
  std::optional<CostParams> flat;
  if (!net) {
    a.nodes = user_nodes;
    flat = chosen(a).front();
  }
  print_against(t, net ? describe(*net) : describe(*flat, a.ranks), a.algorithm, a.json, [&](int64_t bytes) {
    CollectiveSpec s = make_spec(a, a.algorithm, bytes);
    if (net) s.nodes = net->topo.nodes;
    if (a.algorithm == "auto") s.algorithm = choose_algorithm(s, flat ? *flat : CostParams{}, net ? &*net : nullptr).chosen;
    const Schedule sch = make_schedule(s);
    return net ? predict(sch, *net).pr.lockstep_s : predict(sch, *flat).lockstep_s;
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
          std::printf("protocol auto picks %s on %s for %s at %lld B (lowest predicted lockstep time%s):",
                      std::string(name(use)).c_str(), p.name.c_str(), alg.c_str(), static_cast<long long>(at),
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
        network_table(a, net, bytes, &p);
      } else if (a.sweep) {
        sweep(a, &p, nullptr);
      } else if (a.algorithm == "auto") {
        CollectiveSpec s = make_spec(a, "auto", bytes);
        const AutoChoice ch = choose_algorithm(s, p);
        std::printf("auto picks %s on %s:", ch.chosen.c_str(), p.name.c_str());
        for (const auto& c : ch.candidates) std::printf(" %s %s;", c.algorithm.c_str(), time_text(c.time_s).c_str());
        std::printf("\n\n");
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
  sub->add_option("--channels", a.channels, "ring, double_binary_tree: slices of the vector run at once")
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
  sub->add_option("--topology", a.topology, "a named topology: dgx-h100 | pcie-box | lab (nodes from --ranks)");
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
    if (sub->count("--nics-per-node") && a.nics < 0)  // 0: Topology::make names it with the range
      throw UsageError(fmt::format("--nics-per-node {} is out of range (1..the ranks per node)", a.nics));
    if (nccl.system.empty()) {
      if (!a.against.empty()) return run_against(a, sub->count("--ranks") > 0, sub->count("--collective") > 0);
      return run(a, sub->count("--ranks") > 0);
    }
    NcclPredictInputs in{a.collective, a.ranks, sub->count("--ranks") > 0, a.bytes, sub->count("--bytes") > 0,
                         a.min_bytes, a.max_bytes, factor, {}};
    for (const char* o : {"--algorithm", "--preset", "--alpha", "--bandwidth", "--gamma", "--profile", "--sweep",
                          "--nodes", "--nics-per-node", "--intra", "--inter", "--topology", "--json", "--segments",
                          "--protocol", "--channels", "--against"})
      if (sub->count(o) > 0) in.conflicting.push_back(o);
    return run_nccl_choice(nccl, in);
  };
}

}  // namespace microddp::cli
