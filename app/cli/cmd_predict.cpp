// microddp predict: what the alpha-beta model says a collective costs on a
// link you may not have (presets), on explicit α/bandwidth, or on this
// machine (a calibrated profile). Prints the α, β and γ terms and the total,
// both from the literature's closed form and from the schedule itself.
#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "app/cli/commands.h"
#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"

namespace microddp::cli {
namespace {

struct Args {
  std::string collective = "all_reduce", algorithm = "ring", dtype = "float32", bytes = "1e9";
  int ranks = 8, segments = 1, root = 0;
  ParamChoice params;
  bool sweep = false;
  std::string from = "1K", to = "1G";
};

std::string describe(const CostParams& p) {
  std::string s = fmt::format("{}: α = {:.3g} us, bandwidth = {:.4g} GB/s (β = {:.4g} s/B)", p.name, p.alpha * 1e6,
                              p.bandwidth() / 1e9, p.beta);
  if (p.gamma > 0) s += fmt::format(", γ = {:.4g} s/B", p.gamma);
  if (p.delta > 0) s += fmt::format(", δ = {:.4g} s/B", p.delta);
  if (p.break_bytes > 0)
    s += fmt::format(", below {} B: α = {:.3g} us, {:.4g} GB/s", p.break_bytes, p.alpha_small * 1e6,
                     p.beta_small > 0 ? 1e-9 / p.beta_small : 0.0);
  if (!p.barrier_s.empty()) s += fmt::format(", barrier b(2) = {:.3g} us", p.barrier_for(2) * 1e6);
  if (!p.wait_s.empty()) s += fmt::format(", peer wait w(3) = {:.3g} us", p.wait_for(3) * 1e6);
  if (!p.mem_bw_Bps.empty()) s += fmt::format(", memory bus B({}) = {:.4g} GB/s", p.mem_bw_Bps.size(), p.mem_bw_Bps.back() / 1e9);
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
  return s;
}

std::vector<CostParams> chosen(const Args& a) {
  std::vector<CostParams> out;
  if (a.params.preset.find(',') != std::string::npos) {
    std::stringstream ss(a.params.preset);
    std::string one;
    while (std::getline(ss, one, ',')) out.push_back(preset(one));
    return out;
  }
  auto p = resolve_params(a.params);
  if (!p)
    throw UsageError("no link to predict for: give --preset NAME (nvlink, infiniband, pcie5, ethernet-100g, "
                     "ethernet-10g), --alpha S --bandwidth B_PER_S, or --profile FILE (or run `microddp calibrate`)");
  out.push_back(*p);
  return out;
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
    std::printf("\n%s\n", describe(p).c_str());
    std::printf("  α term   %14.6f s\n", t.alpha_s);
    std::printf("  β term   %14.6f s\n", t.beta_s);
    if (t.gamma_s > 0 || p.gamma > 0) std::printf("  γ term   %14.6f s\n", t.gamma_s);
    if (t.delta_s > 0) std::printf("  δ term   %14.6f s\n", t.delta_s);
    std::printf("  total    %14.6f s   (%s)\n", t.total(), cf ? "closed form" : "schedule");
    std::printf("  schedule: lockstep %.6f s, pipelined %.6f s\n", pr.lockstep_s, pr.pipelined_s);
    if (pr.lockstep.bus_s > 0 || pr.lockstep.barrier_s > 0 || pr.lockstep.wait_s > 0)
      std::printf("  of which (lockstep, not in the closed form): memory bus %.6f s, barriers %.6f s, peer waits %.6f s\n",
                  pr.lockstep.bus_s, pr.lockstep.barrier_s, pr.lockstep.wait_s);
    if (i == 0) first = t.total();
    else if (first > 0)
      std::printf("  %.1fx the time on %s\n", t.total() / first, ps[0].name.c_str());
  }
}

void all_algorithms(const Args& a, const CostParams& p, int64_t bytes) {
  const Collective c = parse_collective(a.collective);
  std::printf("%s, %d ranks, %lld B; %s\n", std::string(name(c)).c_str(), a.ranks, static_cast<long long>(bytes),
              describe(p).c_str());
  std::printf("%-20s %6s %14s %14s %14s %14s %14s %14s\n", "algorithm", "steps", "α term (s)", "β term (s)",
              "γ term (s)", "lockstep (s)", "pipelined (s)", "closed form (s)");
  for (const auto& alg : algorithms_for(c)) {
    const CollectiveSpec s = make_spec(a, alg, bytes);
    if (s.segments > 1 && !find_algorithm(alg, c)->pipelines) continue;
    const Schedule sch = make_schedule(s);
    const Prediction pr = predict(sch, p);
    const auto cf = closed_form(s, p);
    std::printf("%-20s %6d %14.6g %14.6g %14.6g %14.6g %14.6g %14s\n", alg.c_str(), sch.num_steps(),
                pr.lockstep.alpha_s, pr.lockstep.beta_s, pr.lockstep.gamma_s, pr.lockstep_s, pr.pipelined_s,
                cf ? fmt::format("{:.6g}", cf->total()).c_str() : "-");
  }
}

void sweep(const Args& a, const CostParams& p) {
  const Collective c = parse_collective(a.collective);
  const int64_t lo = parse_size(a.from), hi = parse_size(a.to);
  if (lo <= 0 || lo > hi) throw UsageError(fmt::format("--from {} must be positive and not above --to {}", a.from, a.to));
  std::vector<std::string> algs;
  for (const auto& alg : algorithms_for(c))
    if (a.algorithm == "all" || alg == a.algorithm || alg == "ring" || alg == "tree" || alg == "naive") algs.push_back(alg);
  std::printf("%s, %d ranks, lockstep prediction (us); %s\n", std::string(name(c)).c_str(), a.ranks, describe(p).c_str());
  std::printf("%14s", "size (B)");
  for (const auto& alg : algs) std::printf(" %18s", alg.c_str());
  std::printf("\n");
  std::vector<int64_t> sizes;
  std::vector<std::vector<double>> t(algs.size());
  for (int64_t b = lo; b <= hi; b = b > hi / 2 ? hi + 1 : b * 2) {
    sizes.push_back(b);
    std::printf("%14lld", static_cast<long long>(b));
    for (size_t i = 0; i < algs.size(); ++i) {
      const double us = predict(make_schedule(make_spec(a, algs[i], b)), p).lockstep_s * 1e6;
      t[i].push_back(us);
      std::printf(" %18.3f", us);
    }
    std::printf("\n");
  }
  const auto ring = std::find(algs.begin(), algs.end(), "ring");
  if (ring == algs.end()) return;
  const size_t ri = ring - algs.begin();
  for (size_t i = 0; i < algs.size(); ++i) {
    if (algs[i] != "tree" && algs[i] != "naive") continue;
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
  }
}

int run(const Args& a) {
  if (a.ranks < 1) throw UsageError(fmt::format("--ranks {} must be at least 1", a.ranks));
  if (a.ranks > 65536) throw UsageError(fmt::format("--ranks {} is more than predict plans (at most 65536)", a.ranks));
  if (a.segments < 1 || a.segments > 4096)
    throw UsageError(fmt::format("--segments {} is out of range (1..4096)", a.segments));
  const auto ps = chosen(a);
  if (a.sweep) {
    sweep(a, ps.front());
    return 0;
  }
  const int64_t bytes = parse_size(a.bytes);
  if (a.algorithm == "all") all_algorithms(a, ps.front(), bytes);
  else one(a, ps, bytes);
  return 0;
}

}  // namespace

std::function<int()> setup_predict(CLI::App* sub) {
  static Args a;
  sub->add_option("--collective,-c", a.collective, "collective")->capture_default_str();
  sub->add_option("--algorithm,-a", a.algorithm, "algorithm, or 'all'")->capture_default_str();
  sub->add_option("--ranks,-n", a.ranks, "world size")->capture_default_str();
  sub->add_option("--bytes", a.bytes, "message size S in bytes (1e9, 64M, 4K: nccl-tests' size)")->capture_default_str();
  sub->add_option("--dtype", a.dtype, "element type")->capture_default_str();
  sub->add_option("--segments", a.segments, "ring segments per chunk")->capture_default_str();
  sub->add_option("--root", a.root, "root rank")->capture_default_str();
  sub->add_option("--preset", a.params.preset, "nvlink | infiniband | pcie5 | ethernet-100g | ethernet-10g (comma list compares)");
  sub->add_option("--alpha", a.params.alpha, "latency α in seconds per message");
  sub->add_option("--bandwidth", a.params.bandwidth, "bandwidth in bytes per second (β = 1/bandwidth)");
  sub->add_option("--gamma", a.params.gamma, "reduction cost γ in seconds per byte");
  sub->add_option("--profile", a.params.profile, "calibrated profile JSON (default: " + default_profile_path() + ")");
  sub->add_flag("--sweep", a.sweep, "table over sizes, with the crossover where ring overtakes tree and naive");
  sub->add_option("--from", a.from, "sweep: smallest size")->capture_default_str();
  sub->add_option("--to", a.to, "sweep: largest size")->capture_default_str();
  return [] { return run(a); };
}

}  // namespace microddp::cli
