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
// With one node, or one rank per node with one NIC each and both classes
// equal, every rank's ports are its own and this is EXACTLY predict(s, p)
// of cost_model.h for parameters without cores, peer waits or a memory bus
// (tests/core/model/test_topology_model.cpp pins it bit for bit). Not
// modelled here: the shared-machine terms (cores, w(n), the memory bus).
// Units: seconds, bytes, bytes per second.
#pragma once
#include <string>
#include <vector>

#include "core/ir/topology.h"
#include "core/model/cost_model.h"

namespace microddp {

struct Network {
  std::string name = "custom";
  Topology topo;
  CostParams intra, inter;
};

// A named network (a class of machine, not a measurement). nodes = 0: the
// node count comes from the world size and ranks_per_node.
struct NamedNetwork {
  std::string name, description;
  int nodes = 0, ranks_per_node = 0, nics_per_node = 1;
  CostParams intra, inter;
};
const std::vector<NamedNetwork>& network_presets();
// Throws UsageError naming the topology and listing the known ones.
const NamedNetwork& network_preset(const std::string& name);
// "nvlink" (a preset of cost_model.h) or "ALPHA,BW" (seconds, bytes/s).
// Throws UsageError naming `what` (the option, e.g. "--intra") and the value.
CostParams parse_link(const std::string& what, const std::string& value);

enum class PortKind { intra_out, intra_in, nic_out, nic_in };
struct Port {
  PortKind kind = PortKind::intra_out;
  int index = 0;  // intra: the rank; nic: node · nics_per_node + nic
};
// Ports are numbered: intra out 0..n-1, intra in n..2n-1, NIC out
// 2n..2n+NK-1, NIC in 2n+NK..2n+2NK-1.
int num_ports(const Topology& t);
int port_id(const Topology& t, Port p);
Port port_at(const Topology& t, int id);
// "R3 intra out", "node 1 NIC 0 in".
std::string port_name(const Topology& t, int id);

struct NetworkPrediction {
  Prediction pr;                       // as cost_model.h's, per step and rank
  int64_t bytes_intra = 0;             // bytes sent over intra-node links (each message once)
  int64_t bytes_inter = 0;             // bytes sent between nodes (each message once)
  std::vector<int64_t> port_bytes;     // [port]: bytes through it over the run
  std::vector<double> port_busy_s;     // [port]: Σ over steps of its port time
  std::vector<int> step_bottleneck;    // [step]: the busiest port (-1: no messages)
  std::vector<std::vector<int64_t>> step_port_bytes;  // [step][port]
  int bottleneck = -1;                 // the port with the largest busy time
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
// chosen (ties: the earlier in teaching order). Times are lockstep seconds.
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

}  // namespace microddp
