// The NCCL-shaped tuner: what NCCL's own cost model (NCCL 2.30.7,
// src/graph/tuning.cc ncclTopoTuneModel + ncclTopoGetAlgoTime, and
// src/enqueue.cc topoGetAlgoInfo) predicts for every algorithm × protocol
// it would consider for one collective call, and which it picks. This is
// NOT microddp's textbook α-β choice (topology_model.h choose_algorithm):
// it prices NCCL's algorithms with NCCL's constants
// (core/model/nccl_tuning_table.h, every value with its source), so a user
// can read "why RING/LL128 at 1 MiB" the way NCCL_DEBUG=INFO shows it.
//
// The model, per collective c, algorithm a, protocol p (tuning.cc):
//   nsteps     = 2(n−1) all_reduce, n−1 all_gather / reduce_scatter, n otherwise
//   busBw      = graph channels × per-channel bw (bwIntra on ≤ 2 nodes, else
//                bwInter), then capped / scaled per (a, p):
//                Ring LL     min(llMaxBw, 0.5·busBw)
//                Ring LL128  min(0.92·busBw, channels·perChMaxRingLL128Bw)
//                Tree (all_reduce) min(0.92·busBw, channels·perChMaxTreeBw), then
//                  LL min(busBw/3.8, llMaxBw); LL128 min(busBw·(7/9 one node,
//                  120/128 more), channels·perChMaxTreeLL128Bw)
//                NVLS per channel: min(bwIntra·nvlsEff·(ch−1)/ch·(2 for
//                  all_reduce, else (ppn−1)/ppn), bwInter·(2 for NVLS_TREE on
//                  ≤ 2 nodes), NVLS_TREE: perChMaxNVLSTreeBw)
//   algBw      = busBw · n/nsteps (Ring, NVLS, NVLS_TREE) or busBw/2 (Tree);
//                all_gather / reduce_scatter on NVLS keep busBw
//   latency    = baseLat[a][p] +
//                Ring:  (nsteps − interSteps)·max(hwLat[intra][a][p], netOverhead)
//                       + interSteps·(hwLat[NET][a][p] + net latency); interSteps =
//                       2(nodes−1) all_reduce, nodes−1 otherwise; broadcast / reduce
//                       add one hwLat[hw][a][p] (same channels)
//                Tree:  2·((ppn−1)·hwLat[intra] + log2(nodes)·hwLat[NET])
//                NVLS:  hwLat[NVLINK][NVLS][Simple] (replaces baseLat)
//                NVLS_TREE: hwLat[intra] + 2·log2(nodes)·hwLat[NET]
//   time (µs)  = latency + bytes / (1000 · algBw · correction)
//                correction = treeCorrectionFactor[p][log2(bytes/64)] for Tree
//                all_reduce; Ring/Simple all_reduce on several nodes has its
//                latency × 1.4 once bytes/(comm channels·n) ≥ 64 (plateau)
//   fitted     = time + launch_us, busBw × bw_scale (SystemDesc: 0 and 1
//                unless the system is fitted to a published table)
//   choice     = the lowest time over the enabled (a, p); ties keep NCCL's order
//   channels   = for Ring/Tree, comm channels reduced while bytes <
//                channels × maxThreads[a][p] × threadThreshold[p] (× n for Ring
//                LL); NVLS uses the NVLS channel count (enqueue.cc
//                topoGetAlgoInfo); the call is then dealt over channels in
//                cells of traffic (scheduleCollTasksToPlan): launched_channels
// `bytes` is nccl-tests' size: the buffer NCCL's tuner sees
// (ncclFuncMaxSendRecvCount: the whole gathered / scattered buffer for
// all_gather / reduce_scatter); NCCL's INFO line prints count × element
// size, which for those two is bytes / n.
//
// What NCCL derives from its topology search (src/graph/search.cc), the
// graphs' channel counts and per-channel bandwidths, is approximated by
// derive_graphs() below from the system description; the result is a plain
// struct the lead can override once fitted to published tables.
//
// Not modelled: CollNet (SHARP networks), PAT (1 GPU per node), tuner
// plugins, NCCL_ALGO / NCCL_PROTO overrides, the symmetric-memory kernels,
// user-buffer registration, fp8 penalties, aggregation (numPipeOps = 1).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/types.h"
#include "core/model/nccl_tuning_table.h"

namespace microddp::nccl {

enum class IntraLink { nvlink, pcie };
enum class CpuVendor { intel, amd };

// The per-system efficiency factors of the model (tuning.cc's "model
// refinements"), named so a fit to published tables can change them per
// system. Defaults: NCCL's own (from the table). nvls < 0: the table's
// nvlsEfficiency for the system's GPU class.
struct Efficiency {
  double ring_ll = scalar("ringLLBusBwFactor").value;
  double ring_ll128 = scalar("ringLL128BusBwFactor").value;
  double tree_all_reduce = scalar("treeAllReduceBusBwFactor").value;
  double tree_ll = scalar("treeLLBusBwFactor").value;
  double tree_ll128_one_node = scalar("treeLL128BusBwFactorOneNode").value;
  double tree_ll128_multi_node = scalar("treeLL128BusBwFactorMultiNode").value;
  double nvls = -1;
};

// A machine as NCCL's tuner sees it. Bandwidths in GB/s (1e9 B/s) per
// direction, NCCL's unit.
struct SystemDesc {
  std::string name = "custom";
  std::string hardware;  // GPU, NVLink generation, NVSwitch, NICs, CPU
  std::string source;    // the vendor documents it is taken from
  int gpus_per_node = 8, nodes = 1, nics_per_node = 1;
  Arch arch = Arch::ampere;
  IntraLink intra = IntraLink::nvlink;
  int nvlink_links = 12;      // NVLinks per GPU (into NVSwitches)
  double pcie_bw = 24;        // GB/s per GPU when intra = pcie
  bool nvls = false;          // NVSwitch with in-switch reduction (NVLink SHARP)
  double nic_bw = 25;         // GB/s per NIC (200 Gb/s = 25)
  CpuVendor cpu = CpuVendor::intel;
  double net_latency_us = 0;  // the graphs' latencyInter (0 for InfiniBand in NCCL's search)
  Efficiency eff;
  // Two system constants NCCL's tuner does not have, fitted to a published
  // nccl-tests table (core/model/nccl_system_fit.h; the shipped values sit
  // in nccl_tuning_table.h fitted_table(), each with its table): 0 and 1
  // leave NCCL's model as it is.
  //  launch_us: µs added to every candidate's time, the per-call cost the
  //    tuner's latencies leave out and a table's 8-byte rows show (host
  //    launch, nccl-tests' per-iteration synchronisation, one process driving
  //    8 GPUs with -g 8); the same for every candidate, so it never changes
  //    the choice.
  //  bw_scale: every candidate's bus bandwidth × this (after NCCL's caps):
  //    what the system's network reached against what the tuner's graphs
  //    assume (RoCE, a network of another class than InfiniBand).
  double launch_us = 0;
  double bw_scale = 1;
  std::string fitted_to;  // the table the two constants were fitted to ("" for NCCL's model as is)
};

// One graph of NCCL's topology search: channels, GB/s per channel.
struct Graph {
  int channels = 0;
  double bw_intra = 0, bw_inter = 0;
};
struct Graphs {
  Graph ring, tree, nvls;  // nvls.channels = 0: no NVLS
  int comm_channels = 0;   // comm->nChannels (ring channels doubled in connect.cc)
  int nvls_channels = 0;   // comm->nvlsChannels
};
// The topology search, simplified (search.cc ncclTopoCompute +
// ncclTopoDupChannels, connect.cc ncclTopoPostset): per-channel speed = the
// first entry of the GPU class's speed array (intra on one node, inter on
// several) that fits, keeping the largest channels × speed over the speeds
// within 0.49 of it; channels = what fits in the GPU's NVLink / PCIe
// bandwidth (one node) or one per NIC (several); fast graphs get their
// channels doubled at half the speed. NVLS: one channel per GPU, each GPU
// the head of one (its NVLink carries channels + 1 of them), bwInter raised
// toward twice bwIntra. Tree = Ring's graph, its bwIntra raised across
// nodes toward twice bwInter while the channels fit. Deterministic; on DGX A100 it
// gives 12 × 20 GB/s (24 comm channels), on DGX H100 ring 12 × 30 and NVLS
// 8 × 40 (bwInter 60).
Graphs derive_graphs(const SystemDesc& s);

struct Candidate {
  Algo algo = Algo::ring;
  Proto proto = Proto::simple;
  bool enabled = true;
  std::string disabled_why;        // when !enabled: NCCL's reason, in words
  double latency_us = 0;           // base + hops × hw latency (× plateau)
  std::string latency_terms;       // the sum written out, e.g. "6.6 + 14×1.9"
  double bus_bw = 0;               // GB/s, after the caps
  double alg_bw = 0;               // GB/s, bus_bw × n/nsteps (or /2), × correction
  double correction = 1;           // tree correction factor (1 elsewhere)
  double time_us = 0;              // latency + bytes / (1000·alg_bw)
  int channels = 0;                // channels NCCL would launch at this size
};

struct Choice {
  std::string system;
  Collective collective = Collective::all_reduce;
  int ranks = 0, nodes = 0;
  int64_t bytes = 0;         // nccl-tests' size: what the model prices
  int64_t logged_bytes = 0;  // what NCCL's INFO line prints (count × element size)
  std::vector<Candidate> candidates;  // every (algorithm, protocol) of the collective, NCCL's order
  int chosen = -1;                    // index into candidates
  // Channels the call is dealt over, channel{Lo..Hi} = {0..launched_channels−1}
  // (enqueue.cc scheduleCollTasksToPlan, one call per plan): cells of about
  // 32 KiB of traffic, a channel's share at a time; LL's 4× traffic can
  // spread it wider than the chosen candidate's `channels`.
  int launched_channels = 0;
  const Candidate& best() const { return candidates.at(static_cast<size_t>(chosen)); }
};

// The named systems (dgx-a100, dgx-a100-2node, dgx-h100, dgx-h100-2node,
// hgx-h200, hgx-h200-2node, pcie-a100), each with its hardware and sources.
const std::vector<SystemDesc>& system_presets();
// Throws UsageError "unknown NCCL system 'X' (known: ...)".
const SystemDesc& system_preset(std::string_view name);
// The largest world the tuner prices (closed forms only, no schedule: it
// answers in microseconds at any size; 65,536 GPUs is the scale the issue on
// real clusters asks for, beyond the largest published NCCL jobs).
inline constexpr int kMaxTunerRanks = 65536;
// The system with `ranks` ranks (nodes = ranks / gpus_per_node). Throws
// UsageError when ranks < 2, above kMaxTunerRanks or not a multiple of
// gpus_per_node.
SystemDesc with_ranks(const SystemDesc& s, int ranks);

// s's hardware with another node shape: `gpus` GPUs per node (its NICs kept
// in proportion, s.nics_per_node · gpus / s.gpus_per_node, at least 1) on
// `nodes` nodes; name "S cut to G GPUs per node". For a published table
// whose node shape no named system has (gh200-2x4: 4 GPUs per node): the
// nearest, said as such, not a system of that table. Throws UsageError for
// gpus < 1 or nodes < 1, or a world outside with_ranks's range.
SystemDesc with_node_shape(const SystemDesc& s, int gpus, int nodes);

// NCCL's choice for one call. Collectives: all_reduce, all_gather,
// reduce_scatter, broadcast, reduce (others throw UsageError). bytes ≥ 1
// (0 throws UsageError: NCCL launches nothing for it); all_gather /
// reduce_scatter need bytes ≥ n (one byte per rank) and price
// (bytes / n)·n.
Choice tune(const SystemDesc& s, Collective c, int64_t bytes);

// Names: NCCL's (ncclAlgoToString: "RING", "TREE", "NVLS", "NVLS_TREE";
// ncclProtoToString: "LL", "LL128", "SIMPLE"), NCCL_PROTO's ("Simple"), and
// microddp's registry names ("ring", "double_binary_tree", "nvls",
// "nvls_tree").
std::string_view nccl_name(Algo a);
std::string_view nccl_name(Proto p);
std::string_view proto_label(Proto p);
std::string_view registry_name(Algo a);
// NCCL's function name (ncclFuncToString): "AllReduce", ...
std::string_view nccl_func_name(Collective c);

// NCCL's INFO line (src/enqueue.cc): "AllReduce: 1048576 Bytes -> Algo RING
// proto LL128 channel{Lo..Hi}={0..7}".
std::string nccl_line(const Choice& c);

}  // namespace microddp::nccl
