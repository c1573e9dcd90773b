// The cost model on a two-level network: ranks on nodes (core/ir/topology.h),
// an intra-node link class and an inter-node one, each with its own α and
// bandwidth per direction.
//
// Ports. Every rank has one port each way into its node's switch (intra out,
// intra in: NVSwitch-like, non-blocking behind the ports); every NIC has one
// port each way into a non-blocking inter-node switch (NIC out, NIC in).
// A message between ranks of one node leaves by the sender's intra out and
// arrives by the receiver's intra in; between nodes, it leaves by the
// sender's NIC out and arrives by the receiver's NIC in (rank r uses NIC
// topo.nic_of(r) of its node, so ranks sharing a NIC share its ports).
//
// Cost of a step (the congestion-aware α-β model; the analytical network
// backend of ASTRA-sim takes the same view, Won et al., "ASTRA-sim2.0:
// Modeling Hierarchical Networks and Disaggregated Systems for Large-model
// Training at Scale", ISPASS 2023):
//   port time      = Σ over its messages (α + m·β) of its link class
//                    (α = the class's alpha_for(m), β = beta_for(m); with
//                    fused_recv_reduce a send or a recv_reduce costs α only,
//                    as in cost_model.h)
//   rank r's time  = the busiest port r used in the step (its own intra
//                    ports always; its NIC's ports when it sent or received
//                    across nodes), + bytes reduced · γ + bytes copied · δ
//                    (γ, δ from the intra class: the GPU does them)
//   step           = the slowest rank, + the intra class's barrier b(n)
//   its α term     = with ports of two classes (more than one node of
//                    more than one rank, or a switch class): the most α any
//                    port pays in the step (α is per message: the port with
//                    the most messages), its β term the rest of the slowest
//                    rank's port time; so the α term does not jump with the
//                    size when the port that sets the step changes (8
//                    channels' messages on an intra port at 1 MiB, one NIC
//                    message at 1 GiB). On one class, the slowest rank's
//                    own split, as cost_model.h's
// Cache curve (cost_model.h's cache-aware model): when the intra class
// carries one, a node's memory work in a step -- its intra-node messages'
// β, and γ, δ -- is priced at that node's footprint (cost_model.h's rule
// with the ranks sharing a cache being the node's: its largest per-rank
// traffic x its ranks with traffic, at least intra.min_footprint_bytes);
// messages through a NIC keep the inter class's flat β (a wire, not
// memory), whatever curve that class carries. NetworkPrediction's
// pr.footprint_bytes holds each step's largest node footprint.
// With one node, or one rank per node with one NIC each and both classes
// equal, every rank's ports are its own and this is EXACTLY predict(s, p)
// of cost_model.h for parameters without cores, peer waits or a memory bus
// (tests/core/model/test_topology_model.cpp pins it bit for bit). Not
// modelled here: the shared-machine terms (cores, w(n), the memory bus).
// Switch endpoints (core/ir/schedule.h: in-network reduction, nvls). With a
// switch link class (Network::nvls: NVLS on NVSwitch, SHARP) the switch has
// one port each way per rank ("SW in from R3", "SW out to R3"), priced with
// that class's α and bandwidth, and it reduces at line rate (no γ, δ on the
// switch): a rank's message to the switch costs the rank's intra out port
// and the switch's port for it, the slower setting the step. Without one,
// the switch is an endpoint with a single port each way ("SW in", "SW out")
// at the intra class's prices, and its reductions cost γ like a rank's:
// exactly the flat model's switch thread (cost_model.h).
// Units: seconds, bytes, bytes per second.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/ir/topology.h"
#include "core/model/cost_model.h"

namespace microddp {

struct Network {
  std::string name = "custom";
  Topology topo;
  CostParams intra, inter;
  std::optional<CostParams> nvls;  // the reducing switch's per-rank port class; none: no such switch
};

// A named network (a class of machine, not a measurement). nodes = 0: the
// node count comes from the world size and ranks_per_node.
struct NamedNetwork {
  std::string name, description;
  int nodes = 0, ranks_per_node = 0, nics_per_node = 1;
  CostParams intra, inter;
  std::optional<CostParams> nvls;  // its switch's per-rank port class, when it reduces (NVLS)
  std::string nvls_source;         // where that figure comes from (system, document)
};
const std::vector<NamedNetwork>& network_presets();
// Throws UsageError naming the topology and listing the known ones.
const NamedNetwork& network_preset(const std::string& name);
// "nvlink" (a preset of cost_model.h) or "ALPHA,BW" (seconds, bytes/s),
// decimal (no hex floats, inf or nan), α in [0, kMaxLinkAlpha] and BW in
// [kMinLinkBw, kMaxLinkBw], so that every prediction made with it is finite.
// Throws UsageError naming `what` (the option, e.g. "--intra") and the value.
inline constexpr double kMaxLinkAlpha = 10;  // seconds
inline constexpr double kMinLinkBw = 1;      // bytes per second
inline constexpr double kMaxLinkBw = 1e15;   // bytes per second
CostParams parse_link(const std::string& what, const std::string& value);

// The flat presets and in-switch reduction (docs/design.md, nvls on flat
// presets). `link` is a preset when its name (before " (protocol ...)") is
// one of cost_model.h's. nvlink stands for NVSwitch-connected GPUs: as a
// Network, one node of `ranks` ranks whose switch reduces at the preset's
// α and bandwidth per port (std::nullopt for every other link). pcie5,
// infiniband and ethernet-* have no switch that reduces:
// flat_preset_without_switch is true for them (false for nvlink, a profile
// or an ALPHA,BW link, which keep the flat model's one-port switch thread,
// as the threads backend runs nvls). `ranks` >= 1.
std::optional<Network> flat_preset_switch(const CostParams& link, int ranks);
bool flat_preset_without_switch(const CostParams& link);

// A network measured in the cluster lab (`microddp cluster ... -- calibrate`,
// core/model/calibrate/calibrate.h): per link class, α and bandwidth from an
// MPI ping-pong between one pair of ranks of that class, beside the rate the
// lab shaped each NIC to. Units: seconds; bytes per second per direction.
struct LinkClassProfile {
  double alpha_s = 0;        // one-way time of the smallest message
  double bandwidth_Bps = 0;  // 0 = not measured (no pair of this class)
};
struct TopologyProfile {
  int nodes = 1, ranks_per_node = 1, nics_per_node = 1;
  double shaped_Bps = 0;  // each NIC's tbf rate per direction; 0 = not shaped
  double barrier_s = 0;   // one lockstep step barrier of all nodes·ranks_per_node ranks
  LinkClassProfile intra, inter;
};
// The network a measured topology predicts for: world_size ranks on `nodes`
// nodes (0 = the profile's) with `nics` NICs each (0 = the profile's, capped
// at the ranks per node). intra and inter take α and bandwidth from the
// profile's classes, γ and δ from `base` (the profile's flat part: the
// kernels run on this machine's cores whatever the link), and the papers'
// unfused sends (fused_recv_reduce = false: every message's bytes cross a
// wire or vader's copy, so a send costs α + m·β too); the step barrier is the measured one at
// every world size (the lab's barrier goes through rank 0 over the NIC, so
// it is set by the inter class, not by the rank count). Throws UsageError
// when a class the placement needs was not measured (intra on a profile of
// one rank per node, inter on one node) or the placement is invalid
// (Topology::make).
Network network_from_profile(const TopologyProfile& t, const CostParams& base, int world_size, int nodes = 0,
                             int nics = 0);

// The cluster lab a process runs in: scripts/cluster-lab.sh exports
// MICRODDP_CLUSTER_NODES, _RANKS_PER_NODE, _NIC_BPS (bits/s), _NICS_PER_NODE,
// _INTRA and _INTER (the transports: "shm", "tcp") to every rank; this is
// the one place that reads them. nullopt outside the lab (NODES unset) or
// when a count is not a positive integer.
struct ClusterLab {
  int nodes = 1, ranks_per_node = 1, nics_per_node = 1;
  double nic_bps = 0;  // each NIC's shaped rate, bits per second
  std::string intra, inter;
};
std::optional<ClusterLab> cluster_lab_from_env();
// {"nodes": 2, "ranks_per_node": 4, "nic_bps": 200000000, "nics_per_node": 1,
//  "intra": "shm", "inter": "tcp"} on one line: the "cluster" field of bench
// rows and records.
std::string cluster_lab_json(const ClusterLab& c);

enum class PortKind { intra_out, intra_in, nic_out, nic_in, switch_in, switch_out };
struct Port {
  PortKind kind = PortKind::intra_out;
  int index = 0;  // intra: the rank; nic: node · nics_per_node + nic; switch: the rank (n: its single port)
  int sw = 0;     // switch ports: which switch endpoint (0 = the first)
};
// Ports are numbered: intra out 0..n-1, intra in n..2n-1, NIC out
// 2n..2n+NK-1, NIC in 2n+NK..2n+2NK-1; then per switch endpoint w, from
// num_ports(t) + w·2(n+1): in from rank 0..n-1, its single in, out to rank
// 0..n-1, its single out.
int num_ports(const Topology& t);
int num_ports(const Topology& t, int switches);
int port_id(const Topology& t, Port p);
Port port_at(const Topology& t, int id);
// "R3 intra out", "node 1 NIC 0 in", "SW in from R3", "SW out".
std::string port_name(const Topology& t, int id);
// Several ports in words (ports.cpp), for a bottleneck that ties: one port
// is its port_name; more are grouped by kind, the out and the in ports of
// the same ranks or NICs merged ("out and in"): every port of the kind
// "all 8 NIC out ports", "all 8 NIC out and in ports", "both NIC out and
// in ports" (two); some of them "NIC out of nodes 0–3, 5" (one NIC per node), "NIC
// in of node 0 NIC 1, node 2 NIC 0", "intra out of R0, R2"; a switch's
// per-rank ports alike ("all 8 SW out and in ports", "SW in from R0–R3"),
// its single ports by port_name; groups joined by " and ". "-" for none. A
// negative id throws UsageError.
std::string ports_text(const Topology& t, const std::vector<int>& ports);
// The ports whose time in `seconds` ([port]) is within a relative 1e-6 of
// the largest, ascending; empty when every time is 0. Not exact equality:
// sums of equal prices over different messages round differently, and
// integer chunking leaves one port a few bytes over the others (a ring of 6
// ranks on 3 nodes, 1e8 B: 166666672 B through one NIC, 166666664 B through
// the rest, 5e-8 apart), which is the same load in words.
std::vector<int> tied_busiest(const std::vector<double>& seconds);

struct NetworkPrediction {
  Prediction pr;                       // as cost_model.h's, per step and rank
  int64_t bytes_intra = 0;             // bytes sent over intra-node links (each message once)
  int64_t bytes_inter = 0;             // bytes sent between nodes (each message once)
  std::vector<int64_t> port_bytes;     // [port]: bytes through it over the run
  std::vector<double> port_busy_s;     // [port]: Σ over steps of its port time
  std::vector<int> step_bottleneck;    // [step]: the busiest port, the first of step_tied (-1: no messages)
  // [step]: every port tied for the step's largest port time
  // (tied_busiest; all NICs of a ring over one-rank nodes), ascending.
  std::vector<std::vector<int>> step_tied;
  std::vector<std::vector<int64_t>> step_port_bytes;  // [step][port]
  int bottleneck = -1;                 // the port with the largest busy time, the first of tied
  std::vector<int> tied;               // every port tied for the largest busy time (tied_busiest), ascending
};

// Predict s on net. Throws UsageError when net.topo's world size is not
// the schedule's.
NetworkPrediction predict(const Schedule& s, const Network& net);

// The algorithm's closed form on net: cost_model.h's closed_form with the
// intra class for one node; its registered two-level form otherwise
// (closed_form.h; nullopt when it states none).
std::optional<CostTerms> closed_form(const CollectiveSpec& spec, const Network& net);

// "What would NCCL pick": every algorithm registered for spec's collective
// that accepts the spec, priced on the model in force, the fastest first
// chosen (ties: the earlier in teaching order; times within a relative 1e-9
// tie, since equal formulas summed over different steps round differently:
// ring and two_shot). Times are lockstep seconds.
struct AutoChoice {
  std::string chosen;
  struct Candidate {
    std::string algorithm;
    double time_s = 0;
  };
  std::vector<Candidate> candidates;  // in teaching order
};
// net == nullptr: the flat model of cost_model.h with p; else the network
// (p unused). spec.algorithm is ignored. Throws UsageError when no algorithm
// accepts the spec.
AutoChoice choose_algorithm(const CollectiveSpec& spec, const CostParams& p, const Network* net = nullptr);
// choose_algorithm on one flat link, as `predict` and `run -a auto` price
// it: when `is_preset` (the link came from --preset or the default preset),
// nvlink's nvls is priced on flat_preset_switch and a preset without a
// reducing switch leaves nvls out of the candidates.
AutoChoice choose_algorithm_flat(const CollectiveSpec& spec, const CostParams& link, bool is_preset);

}  // namespace microddp
