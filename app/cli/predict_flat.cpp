// microddp predict on one flat link (a preset, --alpha/--bandwidth, a
// calibrated profile): one algorithm's α, β and γ terms from the closed form
// and from the schedule, every algorithm side by side, and the sweep over
// sizes with its crossovers. See app/cli/cmd_predict.cpp for the command.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
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

#include "app/cli/predict_parts.h"

namespace microddp::cli::pred {

std::string link_text(const CostParams& p) {
  return fmt::format("{} (α = {:.3g} µs, {:.4g} GB/s)", p.name, p.alpha * 1e6, p.bandwidth() / 1e9);
}
// Chosen on the value as printed: 999.996 µs would print "1000.00 µs", so
// it takes ms ("1.0000 ms").
Unit unit_for(double seconds) {
  const double a = std::fabs(seconds);
  if (std::round(a * 1e8) < 1e5) return {1e-6, 2, "µs"};  // below 1000.00 µs as printed
  if (std::round(a * 1e7) < 1e7) return {1e-3, 4, "ms"};  // below 1000.0000 ms
  return {1, 6, "s"};
}
std::string in_unit(double seconds, const Unit& u) {
  return fmt::format("{:.{}f} {}", seconds / u.scale, u.decimals, u.name);
}
std::string unit_number(double seconds, const Unit& u) { return fmt::format("{:.{}f}", seconds / u.scale, u.decimals); }
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
  std::string s = fmt::format("{}: α = {:.3g} µs, bandwidth = {:.4g} GB/s (β = {:.4g} s/B)", p.name, p.alpha * 1e6,
                              p.bandwidth() / 1e9, p.beta);
  if (p.gamma > 0) s += fmt::format(", γ = {:.4g} s/B", p.gamma);
  if (p.delta > 0) s += fmt::format(", δ = {:.4g} s/B", p.delta);
  if (p.break_bytes > 0)
    s += fmt::format(", below {} B: α = {:.3g} µs, {:.4g} GB/s", p.break_bytes, p.alpha_small * 1e6,
                     p.beta_small > 0 ? 1e-9 / p.beta_small : 0.0);
  if (!p.barrier_s.empty()) s += fmt::format(", barrier b({}) = {:.3g} µs", n, p.barrier_for(n) * 1e6);
  if (!p.wait_s.empty()) s += fmt::format(", peer wait w({}) = {:.3g} µs", n, p.wait_for(n) * 1e6);
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

namespace {
// The preset p was made from ("nvlink" for "nvlink (protocol ll)"); "" when
// the link is not a --preset one.
std::string preset_of(const Args& a, const CostParams& p) {
  if (a.params.preset.empty()) return "";
  const std::string base = p.name.substr(0, p.name.find(" (protocol "));
  for (const char* n : {"nvlink", "infiniband", "pcie5", "ethernet-100g", "ethernet-10g"})
    if (base == n) return base;
  return "";
}
}  // namespace

std::optional<Network> nvls_switch(const Args& a, const CostParams& p) {
  if (preset_of(a, p).empty()) return std::nullopt;
  return flat_preset_switch(p, a.ranks);
}

bool nvls_refused(const Args& a, const CostParams& p) { return !preset_of(a, p).empty() && flat_preset_without_switch(p); }

std::string nvls_note(const Args& a, const CostParams& p) {
  const std::string n = preset_of(a, p);
  if (n.empty()) return "";
  if (n == "nvlink")
    return fmt::format("(nvls on {}: an NVSwitch with a port per rank at the preset's α and bandwidth ({:g} µs, {:g} "
                       "GB/s), reducing at line rate; not the flat model's one-port switch thread, not a measured "
                       "NVLS figure)\n",
                       p.name, p.alpha * 1e6, p.bandwidth() / 1e9);
  return fmt::format("(nvls left out: the flat preset {} has no switch that reduces; --topology dgx-h100 prices "
                     "NVLS on an NVSwitch)\n",
                     p.name);
}

Prediction flat_predict(const Args& a, const Schedule& sch, const CostParams& p) {
  if (sch.spec.algorithm != "nvls") return predict(sch, p);
  if (nvls_refused(a, p))
    throw UsageError(fmt::format("-a nvls reduces in an NVSwitch; the flat preset {} has no switch that reduces (the "
                                 "flat model would run it as one CPU thread with one port): use --preset nvlink or "
                                 "--topology dgx-h100",
                                 p.name));
  if (const auto net = nvls_switch(a, p)) return predict(sch, *net).pr;
  return predict(sch, p);
}

AutoChoice flat_choose(const Args& a, const CollectiveSpec& s, const CostParams& p) {
  return choose_algorithm_flat(s, p, !preset_of(a, p).empty());
}

// The cache-curve values the schedule's steps were priced at (cost_model.h:
// each step at its footprint), beside the flat β and γ the closed form
// prices its bytes at. β counts only where the model charges m·β (a recv;
// a send and a recv_reduce too unless the profile fuses them), and only for
// messages of at least break_bytes: below it both use the small-message
// line (small_any says some did). γ counts every step that reduces.
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
  for (const CostParams& p : ps) flat_predict(a, sch, p);  // a refused nvls before any output
  const int64_t S = s.count * static_cast<int64_t>(dtype_size(s.dtype));
  std::printf("%s %s, %d ranks, %s, count %lld %s per rank, %d steps\n", std::string(name(s.collective)).c_str(),
              a.algorithm.c_str(), s.world_size, size_text(bench_bytes(s)).c_str(),
              static_cast<long long>(s.count), std::string(name(s.dtype)).c_str(), sch.num_steps());
  // nvls on a preset priced on its NVSwitch (a port per rank, reducing at
  // line rate): S up each rank's port, the sum back down, one α each.
  const auto switch_count = std::count_if(ps.begin(), ps.end(), [&](const CostParams& p) {
    return s.algorithm == "nvls" && nvls_switch(a, p).has_value();
  });
  const std::string on_switch_text =
      "2α + 2·S·β  (an NVSwitch with a port per rank, reducing at line rate: each rank's S up its port, the sum back "
      "down; NVLS: Graham et al. 2016, NCCL all_reduce.h)";
  std::string text = closed_form_text(s);
  if (switch_count == static_cast<std::ptrdiff_t>(ps.size()))
    text = on_switch_text;
  else if (switch_count > 0)
    text = fmt::format("{} on the presets with an NVSwitch; {} on the others", on_switch_text, text);
  std::printf("closed form: %s  with S = %lld B\n", text.empty() ? "(none; schedule-derived only)" : text.c_str(),
              static_cast<long long>(S));
  double first = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    const CostParams& p = ps[i];
    const Prediction pr = flat_predict(a, sch, p);
    const bool on_switch = s.algorithm == "nvls" && nvls_switch(a, p);
    const auto cf = on_switch ? std::nullopt : closed_form(s, p);  // the closed form is the one-port switch's
    const CostTerms t = cf ? *cf : pr.lockstep;
    std::printf("\n%s\n", describe(p, s.world_size).c_str());
    if (s.algorithm == "nvls") std::printf("%s", nvls_note(a, p).c_str());
    // one unit per block, chosen by the total, so the column lines up and a
    // 12-byte step reads "10.00 us", not "0.000010 s"
    const Unit u = unit_for(std::max(t.total(), pr.lockstep_s));
    const auto tm = [&](double sec) { return in_unit(sec, u); };
    std::printf("  α term   %s\n", align_right(tm(t.alpha_s), 17).c_str());
    std::printf("  β term   %s\n", align_right(tm(t.beta_s), 17).c_str());
    if (t.gamma_s > 0 || p.gamma > 0) std::printf("  γ term   %s\n", align_right(tm(t.gamma_s), 17).c_str());
    if (t.delta_s > 0) std::printf("  δ term   %s\n", align_right(tm(t.delta_s), 17).c_str());
    std::printf("  total    %s   (%s)\n", align_right(tm(t.total()), 17).c_str(), cf ? "closed form" : "schedule");
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
  std::printf("%s, %d ranks, %s; %s\n", std::string(name(c)).c_str(), a.ranks, size_text(bytes).c_str(),
              describe(p, a.ranks).c_str());
  struct Row {
    std::string alg;
    int steps = 0;
    Prediction pr;
    std::optional<double> closed_s;
  };
  std::vector<Row> rows;
  double longest = 0;
  bool nvls_row = false;
  for (const auto& alg : algorithms_for(c)) {
    const CollectiveSpec s = make_spec(a, alg, bytes);
    if (s.segments > 1 && !find_algorithm(alg, c)->pipelines) continue;
    if (s.channels > 1 && !find_algorithm(alg, c)->channels) continue;
    if (alg == "nvls" && nvls_refused(a, p)) {
      nvls_row = true;
      continue;
    }
    const Schedule sch = make_schedule(s);
    Row r{alg, sch.num_steps(), flat_predict(a, sch, p), std::nullopt};
    nvls_row = nvls_row || alg == "nvls";
    if (const auto cf = closed_form(s, p); cf && !(alg == "nvls" && nvls_switch(a, p))) r.closed_s = cf->total();
    longest = std::max(longest, r.pr.lockstep_s);
    rows.push_back(std::move(r));
  }
  // One time unit for the whole table (us, ms or s, by its longest time), as
  // the single-algorithm block: no 1.4e-05 s beside 0.0233 s.
  const Unit u = unit_for(longest);
  // A header as wide as its column on screen (display_width: α, β, γ and µ are two bytes each).
  const auto col = [&](const char* what, int w) { return align_right(fmt::format("{} ({})", what, u.name), w); };
  const auto num = [&](double sec) { return unit_number(sec, u); };
  std::printf("%-20s %6s %s %s %s %s %s %s\n", "algorithm", "steps", col("α term", 14).c_str(),
              col("β term", 14).c_str(), col("γ term", 14).c_str(), col("lockstep", 14).c_str(),
              col("pipelined", 14).c_str(), col("closed form", 16).c_str());
  for (const Row& r : rows)
    std::printf("%-20s %6d %14s %14s %14s %14s %14s %16s\n", r.alg.c_str(), r.steps, num(r.pr.lockstep.alpha_s).c_str(),
                num(r.pr.lockstep.beta_s).c_str(), num(r.pr.lockstep.gamma_s).c_str(), num(r.pr.lockstep_s).c_str(),
                num(r.pr.pipelined_s).c_str(), r.closed_s ? num(*r.closed_s).c_str() : "-");
  if (nvls_row) std::printf("%s", nvls_note(a, p).c_str());
  print_profile_table_note(p, true);
}

void sweep(const Args& a, const CostParams* flat, const Network* net) {
  const Collective c = parse_collective(a.collective);
  const int64_t lo = parse_size(a.from), hi = parse_size(a.to);
  if (lo <= 0 || lo > hi) throw UsageError(fmt::format("--from {} must be positive and not above --to {}", a.from, a.to));
  std::vector<std::string> algs;
  for (const auto& alg : algorithms_for(c))
    if (a.algorithm == "all" || alg == a.algorithm || alg == "ring" || alg == "tree" || alg == "naive" ||
        (net && net->topo.nodes > 1 && alg == "hierarchical")) {
      // --segments / --channels: only the algorithms that take them (the
      // others would refuse halfway through the table).
      if (a.segments > 1 && !find_algorithm(alg, c)->pipelines) continue;
      if (a.channels > 1 && !find_algorithm(alg, c)->channels) continue;
      if (alg == "nvls" && flat && nvls_refused(a, *flat) && a.algorithm == "all") continue;
      algs.push_back(alg);
    }
  if (algs.empty()) make_schedule(make_spec(a, a.algorithm, 0));  // names why (unknown, no channels, ...)
  if (flat && a.algorithm == "nvls") flat_predict(a, make_schedule(make_spec(a, "nvls", lo)), *flat);  // refused first
  std::printf("%s, %d ranks, lockstep prediction (µs); %s\n", std::string(name(c)).c_str(), a.ranks,
              net ? describe(*net).c_str() : describe(*flat, a.ranks).c_str());
  std::printf("%14s", "size (B)");
  for (const auto& alg : algs) std::printf(" %18s", alg.c_str());
  std::printf("\n");
  // The model's lockstep time of `alg` at `b` bytes, µs.
  const auto time_us = [&](const std::string& alg, int64_t b) {
    CollectiveSpec sp = make_spec(a, alg, b);
    if (net) sp.nodes = net->topo.nodes;
    const Schedule sch = make_schedule(sp);
    return (net ? predict(sch, *net).pr.lockstep_s : flat_predict(a, sch, *flat).lockstep_s) * 1e6;
  };
  std::vector<int64_t> sizes;
  std::vector<std::vector<double>> t(algs.size());
  for (int64_t b = lo; b <= hi; b = b > hi / 2 ? hi + 1 : b * 2) {
    sizes.push_back(b);
    std::printf("%14lld", static_cast<long long>(b));
    for (size_t i = 0; i < algs.size(); ++i) {
      const double us = time_us(algs[i], b);
      t[i].push_back(us);
      std::printf(" %18.3f", us);
    }
    std::printf("\n");
  }
  if (!net) print_profile_table_note(*flat, false);
  if (flat && (a.algorithm == "all" || a.algorithm == "nvls")) std::printf("%s", nvls_note(a, *flat).c_str());
  const auto ring = std::find(algs.begin(), algs.end(), "ring");
  if (ring == algs.end()) return;
  const size_t ri = ring - algs.begin();
  for (size_t i = 0; i < algs.size(); ++i) {
    if (algs[i] != "tree" && algs[i] != "naive" && algs[i] != "hierarchical") continue;
    // the first size from which ring stays at least as fast as this algorithm
    int64_t cross = -1;
    size_t kc = 0;
    for (size_t k = sizes.size(); k-- > 0;) {
      if (t[ri][k] <= t[i][k]) cross = sizes[k], kc = k;
      else break;
    }
    if (cross < 0) std::printf("crossover: ring does not overtake %s by %s\n", algs[i].c_str(), size_text(hi).c_str());
    else if (cross == sizes.front())
      std::printf("crossover: ring is at least as fast as %s from %s, the smallest size swept\n", algs[i].c_str(),
                  size_text(cross).c_str());
    else {
      // The sweep only brackets it (issue 37: "at 512 KiB" was the grid
      // point, the window and lesson 03 say 373 KiB): bisect in log(size)
      // between the two grid points, as the window does (compare.cpp), to
      // whole elements on every rank.
      const int64_t unit = int64_t(dtype_size(make_spec(a, "ring", lo).dtype)) * std::max(1, a.ranks);
      int64_t l = sizes[kc - 1], h = cross;
      while (h - l >= 2 * unit) {
        const int64_t mid = std::clamp(int64_t(std::sqrt(double(l) * double(h))) / unit * unit, l + unit, h - unit);
        (time_us("ring", mid) <= time_us(algs[i], mid) ? h : l) = mid;
      }
      const auto short_size = [](int64_t b) { const std::string s = size_text(b); return s.substr(0, s.find(" (")); };
      std::printf("crossover: ring overtakes %s between %s and %s of the sweep; the model's crossover is %s\n",
                  algs[i].c_str(), short_size(sizes[kc - 1]).c_str(), short_size(cross).c_str(),
                  size_text(h).c_str());
    }
    if (algs[i] != "hierarchical") continue;
    // and the other way: from which size the two-level ring stays ahead
    int64_t ahead = -1;
    for (size_t k = sizes.size(); k-- > 0;) {
      if (t[i][k] < t[ri][k]) ahead = sizes[k];
      else break;
    }
    if (ahead > 0)
      std::printf("crossover: hierarchical is faster than ring from %s on\n", size_text(ahead).c_str());
  }
}

}  // namespace microddp::cli::pred
