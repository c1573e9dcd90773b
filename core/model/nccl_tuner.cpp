// The NCCL-shaped tuner (nccl_tuner.h): NCCL 2.30.7's cost model over
// algorithm × protocol, written from reading src/graph/tuning.cc,
// src/graph/search.cc and src/enqueue.cc; every constant comes from
// nccl_tuning_table.h.
#include "core/model/nccl_tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace microddp::nccl {
namespace {

double S(std::string_view n) { return scalar(n).value; }

// log2 rounded down; -1 for 0 (NCCL's log2i).
int log2_down(int64_t x) {
  int r = -1;
  while (x > 0) {
    x >>= 1;
    ++r;
  }
  return r;
}

double nvlink_bw_per_link(Arch a) {
  switch (a) {
    case Arch::volta: return S("nvlinkBwAmpere");  // SM70 and SM80 are both 20 GB/s in topo.h
    case Arch::ampere: return S("nvlinkBwAmpere");
    case Arch::hopper: return S("nvlinkBwHopper");
    case Arch::blackwell: return S("nvlinkBwBlackwell");
  }
  return 0;
}

// The search over one speed array: the first speed ≤ max_bw that fits at
// least min_channels, then slower speeds while within 0.49 of the best,
// keeping the largest channels × speed (strictly larger wins).
// channels_at(speed) says how many channels of that speed fit.
template <class F>
Graph search(std::span<const Constant> speeds, double max_bw, int min_channels, double total_bw, F channels_at) {
  size_t k = 0;
  while (k + 1 < speeds.size() && (speeds[k].value > max_bw || speeds[k].value * min_channels > total_bw)) ++k;
  Graph best;
  for (size_t i = k; i < speeds.size(); ++i) {
    const double sp = speeds[i].value;
    if (best.channels > 0 && sp / best.bw_intra <= S("searchSpeedMinRatio")) break;
    const int ch = channels_at(sp);
    if (ch > 0 && (best.channels == 0 || ch * sp > best.channels * best.bw_intra)) best = {ch, sp, sp};
    if (best.channels > 0 && best.channels * best.bw_intra >= total_bw) break;  // NCCL's "optimal, stop"
  }
  return best;
}

// ncclTopoDupChannels: fast graphs run twice the channels at half the speed.
void dup_channels(Graph& g, Arch a) {
  if (g.channels == 0 || g.bw_intra < S("dupChannelsMinBw")) return;
  if (a >= Arch::hopper && g.bw_intra < S("dupChannelsHopperMinBw") && g.channels > S("dupChannelsHopperMaxChannels"))
    return;
  const int dup = std::min(g.channels * 2, static_cast<int>(S("ringGraphMaxChannels")));
  const int div = (dup + g.channels - 1) / g.channels;
  g.bw_intra /= div;
  g.bw_inter /= div;
  g.channels = dup;
}

int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The channels one collective call is spread over (channel{Lo..Hi} =
// {0..result−1}): enqueue.cc scheduleCollTasksToPlan for a plan holding
// this one call. Its bytes are cut into cells of about 32 KiB of traffic
// (traffic = bytes × 2 for all_reduce, × n for all_gather / reduce_scatter,
// × 4 more for LL's flags) and dealt to channels a channel's share of the
// call's traffic at a time, so LL can spread wider than the tuner's
// channel count; kind_max is the communicator's channels (NVLS: its NVLS
// channels). `count_bytes` is count × element size (elements of 1 byte).
int plan_channels(int64_t count_bytes, int tuner_channels, int kind_max, int64_t traffic_per_byte, bool ll) {
  const int64_t min_traffic = static_cast<int64_t>(S("minTrafficPerChannel"));
  const int64_t align = static_cast<int64_t>(S("cellAlignment"));
  const int nch = std::min(tuner_channels, kind_max);
  const int64_t traffic = std::max(min_traffic, count_bytes * traffic_per_byte);
  const int64_t per_channel = div_up(traffic / nch, align) * align;
  const int64_t tpb = traffic_per_byte * (ll ? static_cast<int64_t>(S("llTrafficFactor")) : 1);
  const int64_t cell = div_up(div_up(min_traffic, tpb), align) * align;
  const int64_t cells = div_up(count_bytes, cell);
  const int64_t per_cell = cell * tpb;
  int64_t cells_per_channel = std::min(cells, div_up(per_channel, per_cell));
  const int64_t lo = kind_max == 1 ? cells : std::min(cells, div_up(per_channel, per_cell));
  int64_t mid = (cells - lo) / cells_per_channel;
  int64_t hi = (cells - lo) % cells_per_channel;
  if (kind_max < (lo ? 1 : 0) + mid + (hi ? 1 : 0)) {  // more than the communicator has: re-deal
    mid = kind_max - 2;
    cells_per_channel = (cells - lo) / (mid + 1);
    hi = cells_per_channel + (cells - lo) % (mid + 1);
  }
  if (hi == 0 && mid != 0) {
    hi = cells_per_channel;
    mid -= 1;
  }
  return static_cast<int>((lo ? 1 : 0) + mid + (hi ? 1 : 0));
}

}  // namespace

Graphs derive_graphs(const SystemDesc& s) {
  Graphs out;
  const bool multi = s.nodes > 1;
  const double intra_total = s.intra == IntraLink::nvlink ? s.nvlink_links * nvlink_bw_per_link(s.arch) : s.pcie_bw;
  const auto speeds = speed_array(s.arch, multi);
  const int max_ch = static_cast<int>(S("ringGraphMaxChannels"));
  if (!multi) {
    out.ring = search(speeds, intra_total, 1, intra_total,
                      [&](double sp) { return std::min(max_ch, static_cast<int>(std::floor(intra_total / sp))); });
  } else {
    const double cap = std::min(intra_total, s.nic_bw);
    out.ring = search(speeds, cap, 1, s.nics_per_node * s.nic_bw, [&](double sp) {
      const int per_nic = static_cast<int>(std::floor(s.nic_bw / sp));
      const int by_intra = static_cast<int>(std::floor(intra_total / sp));
      return std::min({max_ch, s.nics_per_node * per_nic, by_intra});
    });
  }
  dup_channels(out.ring, s.arch);
  out.tree = out.ring;
  if (multi) {
    // Pass 2 raises a tree's bwIntra one speed at a time while below twice
    // bwInter and the channels still fit in the GPU's bandwidth (search.cc
    // ncclTopoCompute, "increase bwIntra for trees"); on ≤ 2 nodes the
    // tuner prices trees at bwIntra.
    size_t k = 0;
    while (k < speeds.size() && speeds[k].value > out.tree.bw_intra) ++k;
    while (k > 0 && out.tree.bw_intra < 2 * out.tree.bw_inter && out.tree.channels * speeds[k - 1].value <= intra_total)
      out.tree.bw_intra = speeds[--k].value;
  }
  out.comm_channels = std::min(static_cast<int>(S("maxChannels")), 2 * out.ring.channels);
  if (multi && s.arch >= Arch::hopper && out.ring.bw_intra > S("hopperMultiNodeBoostMinBw") &&
      out.comm_channels < S("hopperMultiNodeBoostMaxChannels"))
    out.comm_channels *= 2;
  if (s.nvls && s.arch >= Arch::hopper && s.intra == IntraLink::nvlink) {
    // One NVLS channel per GPU, each GPU the head of one: a GPU's NVLink
    // carries (ch + 1) × bwIntra each way (search.cc ncclTopoSearchTryNvls
    // follows the head's path twice). The first speed tried fits ch × speed
    // in n/(n−1) of the GPU's bandwidth (patterns other than Ring), then
    // slower ones until the heads fit.
    const int ch = std::min(s.gpus_per_node, 32);
    const double total = intra_total * s.gpus_per_node / std::max(1, s.gpus_per_node - 1);
    const double cap = multi ? std::min(intra_total, s.nic_bw) : intra_total;
    size_t k = 0;
    while (k + 1 < speeds.size() && (speeds[k].value > cap || speeds[k].value * ch > total)) ++k;
    while (k + 1 < speeds.size() && (ch + 1) * speeds[k].value > intra_total) ++k;
    out.nvls = {ch, speeds[k].value, speeds[k].value};
    // Pass 2 raises NVLS's bwInter one speed at a time while below twice
    // bwIntra (search.cc ncclTopoCompute); across nodes no higher than a NIC.
    while (k > 0 && out.nvls.bw_inter < 2 * out.nvls.bw_intra && (!multi || speeds[k - 1].value <= s.nic_bw))
      out.nvls.bw_inter = speeds[--k].value;
    out.nvls_channels = static_cast<int>(s.arch == Arch::blackwell
                                             ? (multi ? S("nvlsChannelsBlackwellMultiNode")
                                                      : S("nvlsChannelsBlackwellOneNode"))
                                             : S("nvlsChannelsHopper"));
  }
  return out;
}

std::string_view nccl_name(Algo a) {
  switch (a) {
    case Algo::tree: return "TREE";
    case Algo::ring: return "RING";
    case Algo::nvls: return "NVLS";
    case Algo::nvls_tree: return "NVLS_TREE";
  }
  return "?";
}
std::string_view nccl_name(Proto p) {
  switch (p) {
    case Proto::ll: return "LL";
    case Proto::ll128: return "LL128";
    case Proto::simple: return "SIMPLE";
  }
  return "?";
}
std::string_view proto_label(Proto p) { return p == Proto::simple ? "Simple" : nccl_name(p); }
std::string_view registry_name(Algo a) {
  switch (a) {
    case Algo::tree: return "double_binary_tree";
    case Algo::ring: return "ring";
    case Algo::nvls: return "nvls";
    case Algo::nvls_tree: return "nvls_tree";
  }
  return "?";
}
std::string_view nccl_func_name(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "AllReduce";
    case Collective::all_gather: return "AllGather";
    case Collective::reduce_scatter: return "ReduceScatter";
    case Collective::broadcast: return "Broadcast";
    case Collective::reduce: return "Reduce";
    default: return "?";
  }
}

std::string nccl_line(const Choice& c) {
  const Candidate& b = c.best();
  return fmt::format("{}: {} Bytes -> Algo {} proto {} channel{{Lo..Hi}}={{0..{}}}", nccl_func_name(c.collective),
                     c.logged_bytes, nccl_name(b.algo), nccl_name(b.proto), c.launched_channels - 1);
}

Choice tune(const SystemDesc& s, Collective coll, int64_t bytes) {
  const bool ar = coll == Collective::all_reduce, ag_rs = coll == Collective::all_gather ||
                                                          coll == Collective::reduce_scatter;
  if (!ar && !ag_rs && coll != Collective::broadcast && coll != Collective::reduce)
    throw UsageError(fmt::format("the NCCL-shaped tuner models all_reduce, all_gather, reduce_scatter, broadcast and "
                                 "reduce, not {}",
                                 name(coll)));
  if (bytes <= 0) throw UsageError(fmt::format("size {} B: the NCCL-shaped tuner needs at least 1 byte", bytes));
  const int n = s.gpus_per_node * s.nodes, nodes = s.nodes;
  if (n < 2) throw UsageError(fmt::format("{} rank(s): the NCCL-shaped tuner needs at least 2", n));
  if (ag_rs && bytes < n)
    throw UsageError(fmt::format("size {} B of {} is below one byte per rank ({} ranks)", bytes, name(coll), n));
  Choice ch;
  ch.system = s.name;
  ch.collective = coll;
  ch.ranks = n;
  ch.nodes = nodes;
  ch.bytes = ag_rs ? bytes / n * n : bytes;
  ch.logged_bytes = ag_rs ? bytes / n : bytes;
  const double B = static_cast<double>(ch.bytes);

  const Graphs g = derive_graphs(s);
  const int i2 = nodes <= 2 ? nodes - 1 : 2;
  const int i1 = nodes == 1 ? static_cast<int>(s.arch) : (s.cpu == CpuVendor::amd ? 1 : 0);
  const double ll_max = ll_max_bw(i1, i2).value;
  const double ppn = static_cast<double>(n) / nodes;
  const int nsteps = ar ? 2 * (n - 1) : ag_rs ? n - 1 : n;
  const Hw intra_hw = s.intra == IntraLink::nvlink ? Hw::nvlink : Hw::pci;
  const Hw hw = nodes == 1 ? intra_hw : Hw::net;
  const int log_nodes = log2_down(nodes);

  for (int ai = 0; ai < kNumAlgos; ++ai) {
    const Algo a = static_cast<Algo>(ai);
    if ((coll == Collective::broadcast || coll == Collective::reduce) && a != Algo::ring) continue;
    if (ag_rs && a != Algo::ring && a != Algo::nvls) continue;
    const Graph& gr = a == Algo::ring ? g.ring : a == Algo::tree ? g.tree : g.nvls;
    for (int pi = 0; pi < kNumProtos; ++pi) {
      const Proto p = static_cast<Proto>(pi);
      const bool nvls_algo = a == Algo::nvls || a == Algo::nvls_tree;
      if (nvls_algo && p != Proto::simple) continue;
      Candidate c;
      c.algo = a;
      c.proto = p;
      // Enablement (tuning.cc's algoEnable / protoEnable, enqueue.cc's nvlsSupport).
      if (nvls_algo && gr.channels < S("nvlsMinGraphChannels"))
        c.enabled = false, c.disabled_why = "no NVLS: needs NVSwitch with NVLink SHARP (Hopper or newer)";
      else if (a == Algo::nvls_tree && nodes == 1)
        c.enabled = false, c.disabled_why = "NVLS_TREE is off on a single node";
      else if (a == Algo::nvls && nodes > 1)
        c.enabled = false, c.disabled_why = "NVLS across nodes needs CollNet (a SHARP network), not modelled";
      else if (p == Proto::ll128 && s.intra != IntraLink::nvlink)
        c.enabled = false, c.disabled_why = "LL128 is enabled only when the intra-node path is NVLink";

      // Bandwidth (GB/s).
      double bw = nodes <= 2 ? gr.bw_intra : gr.bw_inter;
      if (nvls_algo) {
        const double eff = s.eff.nvls >= 0 ? s.eff.nvls : nvls_efficiency(s.arch).value;
        double intra_bw = gr.bw_intra * eff * (gr.channels - 1) / std::max(1, gr.channels);
        intra_bw *= ar ? 2.0 : (ppn - 1) / ppn;
        const double inter_bw = gr.bw_inter * ((nodes <= 2 && a == Algo::nvls_tree) ? 2 : 1);
        bw = std::min({intra_bw, inter_bw,
                       a == Algo::nvls_tree ? per_channel_max_nvls_tree_bw(s.arch, i2).value
                                            : std::numeric_limits<double>::max()});
      }
      double bus = gr.channels * bw;
      if (a == Algo::ring && p == Proto::ll) bus = std::min(ll_max, bus * s.eff.ring_ll);
      if (a == Algo::ring && p == Proto::ll128)
        bus = std::min(bus * s.eff.ring_ll128, gr.channels * per_channel_max_ring_ll128_bw(s.arch, i2).value);
      if (a == Algo::tree && ar)
        bus = std::min(bus * s.eff.tree_all_reduce, gr.channels * per_channel_max_tree_bw(s.arch, i2).value);
      if (a == Algo::tree && p == Proto::ll) bus = std::min(bus * s.eff.tree_ll, ll_max);
      if (a == Algo::tree && p == Proto::ll128)
        bus = std::min(bus * (nodes == 1 ? s.eff.tree_ll128_one_node : s.eff.tree_ll128_multi_node),
                       gr.channels * per_channel_max_tree_ll128_bw(s.arch, i2).value);
      bus *= s.bw_scale;  // 1 unless fitted to a published table
      c.bus_bw = bus;
      double ratio = 1;
      if (!(a != Algo::ring && ag_rs)) ratio = a == Algo::tree ? S("treeAlgBwPerBusBw") : static_cast<double>(n) / nsteps;
      double alg = bus * ratio;

      // Latency (µs).
      const double base = base_latency(a, p).value;
      const double intra_lat = hw_latency(intra_hw, a, p).value;
      double inter_lat = hw_latency(Hw::net, ppn == 1 ? Algo::tree : a, p).value + s.net_latency_us;
      if (p == Proto::simple) inter_lat += s.net_latency_us;  // the flush
      double lat = base;
      if (a == Algo::ring) {
        if (!ar && !ag_rs) {  // broadcast, reduce: the search found the same channels
          lat += hw_latency(hw, a, p).value;
          c.latency_terms = fmt::format("{:g} + {:g}", base, hw_latency(hw, a, p).value);
        } else {
          double net_overhead = 0;
          if (nodes > 1) {
            net_overhead = s.cpu == CpuVendor::amd ? S("netOverheadAmd") : S("netOverheadIntel");
            if (p == Proto::simple) net_overhead *= S("netOverheadSimpleFactor");
          }
          const double il = std::max(intra_lat, net_overhead);
          const int inter_steps = nodes == 1 ? 0 : ar ? 2 * (nodes - 1) : nodes - 1;
          lat += (nsteps - inter_steps) * il + inter_steps * inter_lat;
          c.latency_terms = inter_steps == 0 ? fmt::format("{:g} + {}×{:g}", base, nsteps, il)
                                             : fmt::format("{:g} + {}×{:g} + {}×{:g}", base, nsteps - inter_steps, il,
                                                           inter_steps, inter_lat);
        }
      } else if (a == Algo::tree) {
        lat += 2 * ((ppn - 1) * intra_lat + log_nodes * inter_lat);
        c.latency_terms = fmt::format("{:g} + 2×({:g}×{:g} + {}×{:g})", base, ppn - 1, intra_lat, log_nodes, inter_lat);
      } else if (a == Algo::nvls) {
        lat = intra_lat + (nodes > 1 ? inter_lat : 0);
        c.latency_terms = nodes > 1 ? fmt::format("{:g} + {:g}", intra_lat, inter_lat) : fmt::format("{:g}", intra_lat);
      } else {
        lat += intra_lat + 2 * log_nodes * inter_lat;
        c.latency_terms = fmt::format("{:g} + {:g} + 2×{}×{:g}", base, intra_lat, log_nodes, inter_lat);
      }

      // ncclTopoGetAlgoTime's per-size adjustments.
      const int log_size = log2_down(ch.bytes >> 6);
      if (a == Algo::tree && ar && log_size >= 0 && log_size < S("treeCorrectionLogSizeLimit"))
        c.correction = tree_correction(p, log_size).value;
      if (a == Algo::ring && p == Proto::simple && nodes > 1 && ar &&
          ch.bytes / (static_cast<int64_t>(g.comm_channels) * n) >= S("ringSimplePlateauMinBytes")) {
        const double f = s.arch >= Arch::ampere ? S("ringSimplePlateauFactor") : S("ringSimplePlateauFactorPreAmpere");
        lat *= f;
        c.latency_terms = fmt::format("({})×{:g}", c.latency_terms, f);
      }
      if (s.launch_us != 0) {  // a fitted per-call cost (SystemDesc::launch_us), the same for every candidate
        lat += s.launch_us;
        c.latency_terms = fmt::format("{} + launch {:.3g}", c.latency_terms, s.launch_us);
      }
      alg *= c.correction;
      c.alg_bw = alg;
      c.latency_us = lat;
      c.time_us = alg > 0 ? lat + B / (1000 * alg) : -1;
      if (!(alg > 0) && c.enabled) c.enabled = false, c.disabled_why = "zero bandwidth in the model";

      // Channels NCCL would launch at this size (enqueue.cc topoGetAlgoInfo).
      if (nvls_algo) {
        c.channels = g.nvls_channels;
      } else {
        const double threads = p == Proto::ll      ? S("llMaxThreads")
                               : p == Proto::ll128 ? S("ll128MaxThreads")
                               : (a == Algo::ring && g.ring.bw_intra * g.ring.channels <= S("pciBw"))
                                   ? S("simpleRingThreadsSlowBus")
                                   : S("simpleMaxThreads");
        double thr = p == Proto::ll ? S("llThreadThreshold") : p == Proto::ll128 ? S("ll128ThreadThreshold")
                                                                                 : S("simpleThreadThreshold");
        if (a == Algo::ring && p == Proto::ll) thr *= n;
        int nc = g.comm_channels;
        while (nc >= 2 && B < nc * threads * thr) --nc;
        c.channels = nc;
      }
      ch.candidates.push_back(std::move(c));
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < ch.candidates.size(); ++i) {
    const Candidate& c = ch.candidates[i];
    if (c.enabled && c.time_us >= 0 && c.time_us < best) {
      best = c.time_us;
      ch.chosen = static_cast<int>(i);
    }
  }
  if (ch.chosen < 0) throw UsageError(fmt::format("no NCCL algorithm/protocol is enabled for {} on {}", name(coll), s.name));
  const Candidate& b = ch.best();
  const bool nv = b.algo == Algo::nvls || b.algo == Algo::nvls_tree;
  const int64_t tpb = ar ? static_cast<int64_t>(S("allReduceTrafficPerByte")) : ag_rs ? n : 1;
  ch.launched_channels = plan_channels(ch.logged_bytes, b.channels, nv ? g.nvls_channels : g.comm_channels, tpb,
                                       b.proto == Proto::ll);
  return ch;
}

}  // namespace microddp::nccl
