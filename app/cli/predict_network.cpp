// microddp predict on a two-level network (ranks on nodes, intra- and
// inter-node link classes, NICs per node, an in-switch reduction class):
// the network from --topology / --nodes / --intra / --inter, the per-port
// table, what --algorithm auto picks over sizes, and a cluster-lab
// profile's own topology. See app/cli/cmd_predict.cpp for the command.

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
#include "core/model/channel_pipeline.h"
#include "core/model/topology_model.h"

#include "app/cli/nccl_choice.h"
#include "app/cli/predict_parts.h"

namespace microddp::cli::pred {

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
    bool per_port = false;
    for (const NamedNetwork& x : network_presets()) per_port = per_port || x.name == a.topology;
    if (!per_port && nccl_system_known(a.topology))
      throw UsageError(fmt::format(
          "--topology {} is a system of the NCCL-shaped tuner only: it answers --algorithm auto and --table (NCCL's "
          "choice); the per-port model that prices one algorithm, --textbook and --sweep knows {}",
          a.topology, [] {
            std::string list;
            for (const NamedNetwork& x : network_presets()) list += (list.empty() ? "" : ", ") + x.name;
            return list;
          }()));
    if (!per_port)
      throw UsageError(fmt::format("unknown topology '{}' (the per-port model's: {}; the NCCL-shaped tuner's, for "
                                   "--algorithm auto and --table: {})",
                                   a.topology, [] {
                                     std::string list;
                                     for (const NamedNetwork& x : network_presets())
                                       list += (list.empty() ? "" : ", ") + x.name;
                                     return list;
                                   }(),
                                   nccl_system_names()));
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
    r.np.pr = flat_predict(a, sch, *flat);
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
  // None left: the schedule's own refusal names why (an unknown algorithm, one
  // that does not pipeline or run in channels).
  if (algs.empty()) make_schedule(make_spec(a, a.algorithm, 0));
  if (algs.empty()) throw UsageError(fmt::format("--algorithm {}: nothing to predict", a.algorithm));
  return algs;
}

void network_table(const Args& a, const Network& net, int64_t bytes, const CostParams* flat) {
  const Collective c = parse_collective(a.collective);
  std::vector<NetRow> rows;
  for (const auto& alg : algorithms_asked(a, c)) {
    if (a.algorithm != alg) {  // all / auto: leave out an algorithm that refuses this network (nvls on nodes > 1)
      if (flat && alg == "nvls" && nvls_refused(a, *flat)) continue;  // a flat preset without a reducing switch
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
    std::printf("auto picks %s (the lowest predicted lockstep time below; the textbook α-β choice among microddp's "
                "algorithms, not NCCL's tuner)\n",
                choose_algorithm(s, {}, &net).chosen.c_str());
  }
  if (a.json) {
    for (const auto& r : rows) {
      const double t = r.np.pr.lockstep_s, S = static_cast<double>(bench_bytes(r.spec));
      fmt::print("{{\"algorithm\": \"{}\", \"collective\": \"{}\", \"ranks\": {}, \"nodes\": {}, "
                 "\"nics_per_node\": {}, \"bytes\": {}, \"steps\": {}, \"alpha_s\": {:.9g}, \"beta_s\": {:.9g}, "
                 "\"gamma_s\": {:.9g}, \"total_s\": {:.9g}, \"pipelined_s\": {:.9g}, \"closed_form_s\": {}, "
                 "\"bytes_intra\": {}, \"bytes_inter\": {}, \"bottleneck\": \"{}\", \"bottleneck_bytes\": {}, \"bottleneck_tied\": {}, "
                 "\"bottleneck_text\": \"{}\", "
                 "\"algbw_GBps\": {:.6g}, "
                 "\"busbw_GBps\": {:.6g}, \"model\": \"{}\"{}}}\n",
                 r.alg, name(c), a.ranks, net.topo.nodes, net.topo.nics_per_node, bench_bytes(r.spec), r.steps,
                 r.np.pr.lockstep.alpha_s, r.np.pr.lockstep.beta_s, r.np.pr.lockstep.gamma_s, t, r.np.pr.pipelined_s,
                 r.cf ? fmt::format("{:.9g}", r.cf->total()) : "null", r.np.bytes_intra, r.np.bytes_inter,
                 port_name(net.topo, r.np.bottleneck), r.np.bottleneck < 0 ? 0 : r.np.port_bytes[r.np.bottleneck],
                 r.np.tied.size(), ports_text(net.topo, r.np.tied), t > 0 ? S / t / 1e9 : 0.0,
                 t > 0 ? S / t / 1e9 * busbw_factor(c, a.ranks) : 0.0, net.name, curve_json(r, flat));
    }
    return;
  }
  std::printf("%s, %d ranks, %s; %s\n", std::string(name(c)).c_str(), a.ranks, size_text(bytes).c_str(),
              describe(net).c_str());
  double longest = 0;
  for (const auto& r : rows) longest = std::max(longest, r.np.pr.lockstep_s);
  const Unit u = unit_for(longest);  // one time unit for the table, by its longest time
  // Headers as wide as their columns on screen (display_width: α, β and µ are two bytes each).
  const auto col = [&](const char* what) { return align_right(fmt::format("{} ({})", what, u.name), 12); };
  const auto num = [&](double sec) { return unit_number(sec, u); };
  // Ports tied for the busiest (every NIC of a ring, say) are named
  // together ("both NIC out and in ports"), never the first of equals;
  // the column as wide as its longest name, in display width ("nodes 1–6"
  // has a 3-byte en dash), padded by align_left since printf's %-*s counts
  // bytes.
  int port_w = 18;
  for (const auto& r : rows) port_w = std::max(port_w, display_width(ports_text(net.topo, r.np.tied)));
  std::printf("%-18s %5s %s %s %s %s %14s %14s %s %14s %9s %9s\n", "algorithm", "steps", col("α term").c_str(),
              col("β term").c_str(), col("total").c_str(), col("closed").c_str(), "bytes intra", "bytes inter",
              align_left("bottleneck port", port_w).c_str(), "its bytes", "algbw", "busbw");
  for (const auto& r : rows) {
    const double t = r.np.pr.lockstep_s, S = static_cast<double>(bench_bytes(r.spec));
    std::printf("%-18s %5d %12s %12s %12s %12s %14lld %14lld %s %14lld %9.3f %9.3f\n", r.alg.c_str(), r.steps,
                num(r.np.pr.lockstep.alpha_s).c_str(), num(r.np.pr.lockstep.beta_s).c_str(), num(t).c_str(),
                r.cf ? num(r.cf->total()).c_str() : "-", static_cast<long long>(r.np.bytes_intra),
                static_cast<long long>(r.np.bytes_inter), align_left(ports_text(net.topo, r.np.tied), port_w).c_str(),
                static_cast<long long>(r.np.bottleneck < 0 ? 0 : r.np.port_bytes[r.np.bottleneck]), t > 0 ? S / t / 1e9 : 0.0, t > 0 ? S / t / 1e9 * busbw_factor(c, a.ranks) : 0.0);
  }
  std::printf("(algbw, busbw in GB/s; total = lockstep schedule prediction; α term: per step the most α a port pays "
              "(α per message), β term: the rest; bytes counted once per message; the bottleneck is the port busiest "
              "over the run, or the ports tied for it; its bytes: the first's)\n");
}

void pipeline_report(const Args& a, const Network& net, int64_t bytes) {
  const Collective c = parse_collective(a.collective);
  CollectiveSpec spec = make_spec(a, a.algorithm, bytes);
  spec.nodes = net.topo.nodes;
  spec.channels = 1;
  const ChannelPipeline p = pipeline_channels(spec, net, a.channels);
  const double S = static_cast<double>(bench_bytes(spec));
  const auto bw = [&](double t) { return t > 0 ? S / t / 1e9 : 0.0; };
  const std::string port = p.busiest_port < 0 ? "none" : port_name(net.topo, p.busiest_port);
  if (a.json) {
    fmt::print(R"({{"algorithm": "{}", "collective": "{}", "ranks": {}, "nodes": {}, "nics_per_node": {}, )"
               R"("bytes": {}, "channels": {}, "channel_count": {}, "steps_per_channel": {}, )"
               R"("one_channel_s": {:.9g}, "busiest_port": "{}", "busiest_port_s": {:.9g}, )"
               R"("end_to_end_s": {:.9g}, "pipelined_s": {:.9g}, "algbw_GBps": {:.6g}, "busbw_GBps": {:.6g}, )"
               R"("model": "{}"}})" "\n",
               a.algorithm, name(c), a.ranks, net.topo.nodes, net.topo.nics_per_node, bench_bytes(spec), p.channels,
               p.channel_count, p.steps, p.one_channel_s, port, p.busiest_port_s, p.end_to_end_s, p.pipelined_s,
               bw(p.pipelined_s), bw(p.pipelined_s) * busbw_factor(c, a.ranks), net.name);
    return;
  }
  std::printf("%s %s, %d ranks, %s in %d channels as a pipeline (each channel %lld elements; a channel's phase "
              "overlaps the other channels' phases on other ports); %s\n",
              std::string(name(c)).c_str(), a.algorithm.c_str(), a.ranks, size_text(bench_bytes(spec)).c_str(),
              p.channels, static_cast<long long>(p.channel_count), describe(net).c_str());
  const Unit u = unit_for(p.end_to_end_s);
  const auto num = [&](double sec) { return unit_number(sec, u) + " " + u.name; };
  std::printf("  one channel      %s (lockstep, %d steps)\n", num(p.one_channel_s).c_str(), p.steps);
  std::printf("  busiest port     %s, %s per channel\n", port.c_str(), num(p.busiest_port_s).c_str());
  std::printf("  end to end       %s (the %d channels one after another)   algbw %.3f, busbw %.3f\n",
              num(p.end_to_end_s).c_str(), p.channels, bw(p.end_to_end_s), bw(p.end_to_end_s) * busbw_factor(c, a.ranks));
  std::printf("  pipelined        %s = one channel + %d x busiest port   algbw %.3f, busbw %.3f\n",
              num(p.pipelined_s).c_str(), p.channels - 1, bw(p.pipelined_s),
              bw(p.pipelined_s) * busbw_factor(c, a.ranks));
  std::printf("(algbw, busbw in GB/s; the ports are shared by the channels, each serving one message at a time)\n");
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
  std::printf("%s, %d ranks: what auto picks (the textbook α-β choice among microddp's algorithms, not NCCL's "
              "tuner; lockstep prediction, µs); %s\n", std::string(name(c)).c_str(), a.ranks,
              net ? describe(*net).c_str() : describe(*flat, a.ranks).c_str());
  std::vector<std::string> header;
  std::string last;
  std::vector<std::string> changes;
  bool first = true;
  for (const int64_t bytes : sizes) {
    CollectiveSpec s = make_spec(a, "auto", bytes);
    if (net) s.nodes = net->topo.nodes;
    const AutoChoice ch = flat ? flat_choose(a, s, *flat) : choose_algorithm(s, CostParams{}, net);
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
      changes.push_back(fmt::format("{} -> {} at {}", last, ch.chosen, size_text(bytes)));
    last = ch.chosen;
  }
  if (changes.empty()) std::printf("auto picks %s at every size\n", last.c_str());
  for (const auto& ch : changes) std::printf("switch: %s\n", ch.c_str());
  if (flat) std::printf("%s", nvls_note(a, *flat).c_str());
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

}  // namespace microddp::cli::pred
