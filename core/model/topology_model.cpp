#include "core/model/topology_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/algorithms/registry.h"

namespace microddp {

namespace {
CostParams link(const char* n, double alpha, double bw) {
  CostParams c;
  c.name = n;
  c.alpha = alpha;
  c.beta = 1.0 / bw;
  return c;
}
}  // namespace

const std::vector<NamedNetwork>& network_presets() {
  static const std::vector<NamedNetwork> v = {
      // NVIDIA DGX H100 (DGX H100 User Guide / datasheet): 8 H100 per node on
      // NVLink 4 through NVSwitch, 900 GB/s bidirectional = 450 GB/s per
      // direction per GPU; 8 ConnectX-7 NICs of 400 Gb/s (50 GB/s) each, one
      // per GPU (rail-optimised).
      // Its NVSwitches (third generation) reduce in the switch (NVLink SHARP,
      // "NVLS": NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022).
      // The switch's port toward each GPU is priced here at that GPU's
      // NVLink 4 rate, 450 GB/s per direction, with the same assumed 1 µs α
      // as the link: the preset's figure, not a measured NVLS bandwidth.
      {"dgx-h100", "8 GPUs/node, NVLink 4 450 GB/s per direction, 8 x 400 Gb/s NICs", 0, 8, 8,
       link("nvlink4", 1e-6, 450e9), link("ndr-400g", 2e-6, 50e9), link("nvls-nvswitch3", 1e-6, 450e9),
       "the switch port's bandwidth is the preset's: the DGX H100's NVLink 4 rate per GPU (450 GB/s per direction, "
       "DGX H100 datasheet), at which its NVSwitch reduces (NVLink SHARP, NVIDIA H100 architecture whitepaper 2022); "
       "not a measured NVLS figure"},
      // A PCIe server: 8 GPUs on PCIe 5.0 x16 (~63 GB/s raw per direction,
      // ~50 GB/s usable; the pcie5 preset), one 100 GbE NIC per node.
      {"pcie-box", "8 GPUs/node on PCIe 5.0, one 100 GbE NIC", 0, 8, 1, link("pcie5", 1.5e-6, 50e9),
       link("ethernet-100g", 10e-6, 12.5e9), std::nullopt, ""},
      // The cluster lab's defaults: 2 nodes (containers) joined by a
      // 200 Mbit/s (25e6 B/s) emulated link with ~50 µs latency; ranks in a
      // node talk through shared memory (~10 GB/s).
      {"lab", "2 nodes, shared memory inside, one 200 Mbit/s NIC each", 2, 0, 1, link("shared-memory", 1e-6, 10e9),
       link("lab-200mbit", 50e-6, 25e6), std::nullopt, ""},
  };
  return v;
}

const NamedNetwork& network_preset(const std::string& name) {
  std::string list;
  for (const auto& n : network_presets()) {
    if (n.name == name) return n;
    list += (list.empty() ? "" : ", ") + n.name;
  }
  throw UsageError(fmt::format("unknown topology '{}' (expected one of: {})", name, list));
}

namespace {
std::string preset_base(const CostParams& link) { return link.name.substr(0, link.name.find(" (protocol ")); }
}  // namespace

std::optional<Network> flat_preset_switch(const CostParams& link, int ranks) {
  if (preset_base(link) != "nvlink") return std::nullopt;
  Network net;
  net.name = link.name;
  net.topo = Topology::make(ranks, 1, 1);
  net.intra = net.inter = link;
  net.nvls = link;
  return net;
}

bool flat_preset_without_switch(const CostParams& link) {
  const std::string b = preset_base(link);
  for (const char* n : {"infiniband", "pcie5", "ethernet-100g", "ethernet-10g"})
    if (b == n) return true;
  return false;
}

CostParams parse_link(const std::string& what, const std::string& value) {
  const auto comma = value.find(',');
  if (comma == std::string::npos) {
    for (const auto& p : cost_presets())
      if (p.name == value) return p;
    std::string list;
    for (const auto& p : cost_presets()) list += (list.empty() ? "" : ", ") + p.name;
    throw UsageError(fmt::format("{} '{}' is neither a preset ({}) nor ALPHA,BW (seconds, bytes per second)", what,
                                 value, list));
  }
  const std::string a = value.substr(0, comma), b = value.substr(comma + 1);
  // Decimal only: strtod would also read hex floats ("0x1p-10"), inf and nan.
  const bool hex = value.find_first_of("xX") != std::string::npos;
  char* end = nullptr;
  const double alpha = std::strtod(a.c_str(), &end);
  const bool a_ok = !hex && !a.empty() && *end == '\0' && std::isfinite(alpha) && alpha >= 0 && alpha <= kMaxLinkAlpha;
  const double bw = std::strtod(b.c_str(), &end);
  const bool b_ok = !hex && !b.empty() && *end == '\0' && std::isfinite(bw) && bw >= kMinLinkBw && bw <= kMaxLinkBw;
  if (!a_ok || !b_ok)
    throw UsageError(fmt::format("{} '{}' needs ALPHA,BW in decimal: α in seconds from 0 to {:g}, bandwidth in bytes "
                                 "per second from {:g} to {:g}",
                                 what, value, kMaxLinkAlpha, kMinLinkBw, kMaxLinkBw));
  CostParams p;
  p.name = value;
  p.alpha = alpha;
  p.beta = 1.0 / bw;
  return p;
}

Network network_from_profile(const TopologyProfile& t, const CostParams& base, int world_size, int nodes, int nics) {
  if (nodes <= 0) nodes = t.nodes;
  const int g = nodes > 0 && world_size % nodes == 0 ? world_size / nodes : 1;
  if (nics <= 0) nics = std::min(std::max(1, t.nics_per_node), std::max(1, g));
  Network net;
  net.name = "lab-profile";
  net.topo = Topology::make(world_size, nodes, nics);
  auto cls = [&](const char* what, const LinkClassProfile& c) {
    CostParams p;
    p.name = what;
    p.alpha = c.alpha_s;
    p.beta = 1.0 / c.bandwidth_Bps;
    p.gamma = base.gamma;
    p.delta = base.delta;
    p.fused_recv_reduce = false;  // bytes cross a wire (TCP, or vader's copy): sends pay m·β too
    return p;
  };
  if (net.topo.ranks_per_node > 1 && !(t.intra.bandwidth_Bps > 0))
    throw UsageError(fmt::format("the profile's topology has no intra-node measurement (calibrated with {} rank(s) "
                                 "per node); {} ranks per node need one: calibrate with --ranks-per-node 2 or more",
                                 t.ranks_per_node, net.topo.ranks_per_node));
  if (net.topo.nodes > 1 && !(t.inter.bandwidth_Bps > 0))
    throw UsageError(fmt::format("the profile's topology has no inter-node measurement (calibrated on {} node(s)); "
                                 "{} nodes need one: calibrate with --nodes 2 or more",
                                 t.nodes, net.topo.nodes));
  // An unmeasured class the placement never uses still needs a finite price.
  net.intra = cls("lab-intra", t.intra.bandwidth_Bps > 0 ? t.intra : t.inter);
  net.inter = cls("lab-inter", t.inter.bandwidth_Bps > 0 ? t.inter : t.intra);
  // One entry: barrier_for(n) is that value at every n >= 2 (cost_model.h).
  if (t.barrier_s > 0) net.intra.barrier_s = {t.barrier_s};
  return net;
}

std::optional<ClusterLab> cluster_lab_from_env() {
  auto get = [](const char* k) -> std::string {
    const char* v = std::getenv(k);
    return v ? v : "";
  };
  auto count = [](const std::string& v) {
    char* end = nullptr;
    const long x = std::strtol(v.c_str(), &end, 10);
    return !v.empty() && *end == '\0' && x >= 1 && x <= 65536 ? static_cast<int>(x) : 0;
  };
  const std::string nodes = get("MICRODDP_CLUSTER_NODES");
  if (nodes.empty()) return std::nullopt;
  ClusterLab c;
  c.nodes = count(nodes);
  c.ranks_per_node = count(get("MICRODDP_CLUSTER_RANKS_PER_NODE"));
  c.nics_per_node = count(get("MICRODDP_CLUSTER_NICS_PER_NODE"));
  if (c.nodes < 1 || c.ranks_per_node < 1 || c.nics_per_node < 1) return std::nullopt;
  c.nic_bps = std::strtod(get("MICRODDP_CLUSTER_NIC_BPS").c_str(), nullptr);
  if (!std::isfinite(c.nic_bps) || c.nic_bps < 0) c.nic_bps = 0;
  c.intra = get("MICRODDP_CLUSTER_INTRA");
  c.inter = get("MICRODDP_CLUSTER_INTER");
  return c;
}

std::string cluster_lab_json(const ClusterLab& c) {
  // The transports are the script's fixed words; keep only safe characters.
  auto word = [](const std::string& s) {
    std::string o;
    for (char ch : s)
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') o += ch;
    return o;
  };
  return fmt::format(
      "{{\"nodes\": {}, \"ranks_per_node\": {}, \"nic_bps\": {:.0f}, \"nics_per_node\": {}, \"intra\": \"{}\", "
      "\"inter\": \"{}\"}}",
      c.nodes, c.ranks_per_node, c.nic_bps, c.nics_per_node, word(c.intra), word(c.inter));
}

namespace {
// One message on a port: cost_model.cpp's msg_at(p, m, fp), the same
// arithmetic. fp < 0: a NIC's message, the link's flat β (the cache curve
// prices memory, not a wire).
CostTerms message(const CostParams& p, double bytes, bool alpha_only, double fp) {
  CostTerms t;
  t.alpha_s = p.alpha_for(bytes);
  if (!alpha_only) t.beta_s = bytes * (fp < 0 ? p.beta_for(bytes) : p.beta_at(bytes, fp));
  return t;
}
}  // namespace

NetworkPrediction predict(const Schedule& s, const Network& net) {
  const Topology& T = net.topo;
  const int n = s.world_size();
  if (T.world_size() != n)
    throw UsageError(fmt::format("the topology holds {} ranks ({} nodes x {}) but the schedule has {}",
                                 T.world_size(), T.nodes, T.ranks_per_node, n));
  const size_t es = dtype_size(s.spec.dtype);
  const int E = s.num_endpoints();  // ranks, then switch endpoints
  const int P = num_ports(T, s.switches);
  // A switch endpoint's port for rank q: its own toward q with a switch
  // class, else its single port (index n).
  const CostParams& swp = net.nvls ? *net.nvls : net.intra;
  const auto sw_port = [&](int e, PortKind k, int q) {
    return port_id(T, Port{k, net.nvls ? q : n, e - n});
  };
  NetworkPrediction out;
  out.port_bytes.assign(P, 0);
  out.port_busy_s.assign(P, 0.0);
  Prediction& pr = out.pr;
  std::vector<double> prev(E, 0.0);
  for (const Step& st : s.steps) {
    std::vector<CostTerms> port(P);
    std::vector<int64_t> pbytes(P, 0);
    std::vector<std::vector<int>> touched(E);  // NIC (or switch) ports endpoint r used
    std::vector<RankStepCost> rc(E);
    for (int r = 0; r < E; ++r)
      for (const Op& op : st.ranks[r]) count_op(rc[r], op.kind, op.len * static_cast<int64_t>(es));
    // The step's footprint per node (cost_model.h's rule, with the ranks
    // that share a cache being those of one node): the node's largest
    // per-rank memory traffic x its ranks with traffic, at least
    // intra.min_footprint_bytes. It prices the node's memory work: intra
    // messages, reductions, copies.
    std::vector<int64_t> node_most(T.nodes, 0);
    std::vector<int> node_sharing(T.nodes, 0);
    for (int r = 0; r < E; ++r) {  // a switch thread (no switch class) shares node 0's cache
      if (r >= n && net.nvls) continue;
      const int nd = r < n ? T.node_of(r) : 0;
      if (rc[r].bytes_traffic > 0) ++node_sharing[nd];
      node_most[nd] = std::max(node_most[nd], rc[r].bytes_traffic);
    }
    std::vector<double> node_fp(T.nodes);
    for (int nd = 0; nd < T.nodes; ++nd)
      node_fp[nd] = std::max(static_cast<double>(node_most[nd]) * node_sharing[nd], net.intra.min_footprint_bytes);
    for (int r = 0; r < E; ++r) {
      for (const Op& op : st.ranks[r]) {
        const int64_t b = op.len * static_cast<int64_t>(es);
        if (r >= n) {  // the switch's side of a message: its port for that rank
          if (!is_comm(op.kind)) continue;
          const bool snd = op.kind == OpKind::send;
          const int id = sw_port(r, snd ? PortKind::switch_out : PortKind::switch_in, op.peer);
          if (snd) out.bytes_intra += b;
          const bool alpha_only = op.kind != OpKind::recv && swp.fused_recv_reduce;
          port[id] += message(swp, static_cast<double>(b), alpha_only, net.nvls ? -1.0 : node_fp[0]);
          pbytes[id] += b;
          if (std::find(touched[r].begin(), touched[r].end(), id) == touched[r].end()) touched[r].push_back(id);
          continue;
        }
        const bool local = op.peer < 0 || op.peer >= n || T.same_node(r, op.peer);
        const CostParams& lp = local ? net.intra : net.inter;
        const int nic = T.node_of(r) * T.nics_per_node + T.nic_of(r);
        int id = -1;
        bool alpha_only = false;
        switch (op.kind) {
          case OpKind::send:
            id = port_id(T, local ? Port{PortKind::intra_out, r} : Port{PortKind::nic_out, nic});
            alpha_only = lp.fused_recv_reduce;
            (local ? out.bytes_intra : out.bytes_inter) += b;
            break;
          case OpKind::recv:
            id = port_id(T, local ? Port{PortKind::intra_in, r} : Port{PortKind::nic_in, nic});
            break;
          case OpKind::recv_reduce:
            id = port_id(T, local ? Port{PortKind::intra_in, r} : Port{PortKind::nic_in, nic});
            alpha_only = lp.fused_recv_reduce;
            break;
          default: break;  // local ops use no port
        }
        if (id < 0) continue;
        port[id] += message(lp, static_cast<double>(b), alpha_only, local ? node_fp[T.node_of(r)] : -1.0);
        pbytes[id] += b;
        if (!local && std::find(touched[r].begin(), touched[r].end(), id) == touched[r].end())
          touched[r].push_back(id);
      }
    }
    double worst = -1;
    int worst_r = 0;
    for (int r = n; r < E; ++r) {
      // A switch: its busiest port (ties to the first: out before in for the
      // single port, as for a rank); it reduces at line rate with a switch
      // class, at the intra class's γ, δ as one more thread without.
      CostTerms best;
      std::sort(touched[r].begin(), touched[r].end(),
                [](int a, int b) { return a > b; });  // out ports (numbered after the in ports) first
      for (int id : touched[r])
        if (best.total() == 0 || port[id].total() > best.total()) best = port[id];
      if (!net.nvls) {
        best.gamma_s = rc[r].bytes_reduced * net.intra.gamma_at(node_fp[0]);
        best.delta_s = rc[r].bytes_copied * net.intra.delta_at(node_fp[0]);
      }
      rc[r].terms = best;
    }
    for (int r = 0; r < E; ++r) {
      if (r >= n) {
        if (rc[r].terms.total() > worst) {
          worst = rc[r].terms.total();
          worst_r = r;
        }
        continue;
      }
      // cost_model.cpp's max(out, in), ties to out, over every port r used.
      CostTerms best = port[port_id(T, {PortKind::intra_out, r})];
      const CostTerms& in = port[port_id(T, {PortKind::intra_in, r})];
      if (!(best.total() >= in.total())) best = in;
      std::sort(touched[r].begin(), touched[r].end());
      for (int id : touched[r])
        if (port[id].total() > best.total()) best = port[id];
      best.gamma_s = rc[r].bytes_reduced * net.intra.gamma_at(node_fp[T.node_of(r)]);
      best.delta_s = rc[r].bytes_copied * net.intra.delta_at(node_fp[T.node_of(r)]);
      rc[r].terms = best;
      if (best.total() > worst) {
        worst = best.total();
        worst_r = r;
      }
    }
    std::vector<double> port_s(P);
    for (int id = 0; id < P; ++id) {
      port_s[id] = port[id].total();
      out.port_busy_s[id] += port_s[id];
      out.port_bytes[id] += pbytes[id];
    }
    out.step_tied.push_back(tied_busiest(port_s));
    out.step_bottleneck.push_back(out.step_tied.back().empty() ? -1 : out.step_tied.back().front());
    out.step_port_bytes.push_back(std::move(pbytes));
    std::vector<double> fin(E);
    for (int r = 0; r < E; ++r) {
      double start = prev[r];
      for (const Op& op : st.ranks[r])
        if (is_comm(op.kind) && op.peer >= 0 && op.peer < E) start = std::max(start, prev[op.peer]);
      fin[r] = start + rc[r].terms.total();
    }
    CostTerms crit = rc[worst_r].terms;
    // With ports of two classes (intra and NIC, or a switch class), the
    // step's α term is its latency floor, the most α any port pays (α is
    // per message: the port with the most messages), and β the rest of the
    // step's port time. The port that sets the step may change with the
    // size (many small messages on an intra port, one large one on a NIC);
    // its own α would then make the α term jump with the size. On one class
    // (the flat model's case) the split stays the slowest rank's, as
    // cost_model.h's.
    const bool two_classes = (T.nodes > 1 && T.ranks_per_node > 1) || net.nvls.has_value();
    double floor_alpha = 0;
    for (int id = 0; two_classes && id < P; ++id) floor_alpha = std::max(floor_alpha, port[id].alpha_s);
    if (floor_alpha > crit.alpha_s && floor_alpha <= crit.alpha_s + crit.beta_s) {
      crit.beta_s -= floor_alpha - crit.alpha_s;
      crit.alpha_s = floor_alpha;
    }
    crit.barrier_s = net.intra.barrier_for(E);
    pr.step_s.push_back(crit.total());
    pr.critical_rank.push_back(worst_r);
    pr.bus_s.push_back(0.0);
    pr.footprint_bytes.push_back(*std::max_element(node_fp.begin(), node_fp.end()));
    pr.lockstep += crit;
    pr.ranks.push_back(std::move(rc));
    pr.finish_s.push_back(fin);
    prev = std::move(fin);
  }
  pr.lockstep_s = pr.lockstep.total();
  pr.pipelined_s = E > 0 ? *std::max_element(prev.begin(), prev.end()) : 0.0;
  out.tied = tied_busiest(out.port_busy_s);
  out.bottleneck = out.tied.empty() ? -1 : out.tied.front();
  return out;
}

namespace {
class LinkPrices final : public HockneyPrices {
 public:
  explicit LinkPrices(const CostParams& p) : p_(p) {}
  HockneyTime msgs(double k, double bytes) const override {
    return {k * p_.alpha_for(bytes), k * bytes * p_.beta_for(bytes), 0};
  }
  HockneyTime reduce(double bytes) const override { return {0, 0, bytes * p_.gamma}; }

 private:
  const CostParams& p_;
};
}  // namespace

std::optional<CostTerms> closed_form(const CollectiveSpec& sp, const Network& net) {
  const AlgorithmInfo* a = find_algorithm(sp.algorithm, sp.collective);
  const bool in_network = net.nvls && a && a->in_network && net.topo.nodes <= 1;
  if (net.topo.nodes <= 1 && !in_network) return closed_form(sp, net.intra);
  if (sp.world_size <= 1) return CostTerms{};
  if (!a) return std::nullopt;
  if (!in_network && !a->two_level) return std::nullopt;
  const LinkPrices intra(net.intra), inter(net.inter);
  const std::optional<LinkPrices> sw = net.nvls ? std::optional<LinkPrices>(LinkPrices(*net.nvls)) : std::nullopt;
  const int g = net.topo.ranks_per_node, K = net.topo.nics_per_node;
  const TwoLevelPrices t{intra, inter, net.topo.nodes, g, (g + K - 1) / K, sw ? &*sw : nullptr};
  const auto h = in_network ? a->in_network(sp, t) : a->two_level(sp, t);
  if (!h) return std::nullopt;
  CostTerms c;
  c.alpha_s = h->alpha_s;
  c.beta_s = h->beta_s;
  c.gamma_s = h->gamma_s;
  return c;
}

AutoChoice choose_algorithm(const CollectiveSpec& spec, const CostParams& p, const Network* net) {
  AutoChoice ch;
  double best = 0;
  for (const auto& alg : algorithms_for(spec.collective)) {
    CollectiveSpec s = spec;
    s.algorithm = alg;
    Schedule sch;
    try {
      sch = make_schedule(s);
    } catch (const UsageError&) {
      continue;  // refuses this spec (segments, its own refusals)
    }
    const double t = net ? predict(sch, *net).pr.lockstep_s : predict(sch, p).lockstep_s;
    ch.candidates.push_back({alg, t});
    if (ch.chosen.empty() || t < best * (1 - 1e-9)) {
      ch.chosen = alg;
      best = t;
    }
  }
  if (ch.chosen.empty())
    throw UsageError(fmt::format("--algorithm auto: no algorithm accepts this {} spec", name(spec.collective)));
  return ch;
}


AutoChoice choose_algorithm_flat(const CollectiveSpec& spec, const CostParams& link, bool is_preset) {
  const auto net = is_preset ? flat_preset_switch(link, spec.world_size) : std::nullopt;
  AutoChoice ch = choose_algorithm(spec, link, net ? &*net : nullptr);
  if (!is_preset || !flat_preset_without_switch(link)) return ch;
  std::erase_if(ch.candidates, [](const AutoChoice::Candidate& c) { return c.algorithm == "nvls"; });
  if (ch.chosen == "nvls") {
    double best = 0;
    ch.chosen.clear();
    for (const auto& c : ch.candidates)
      if (ch.chosen.empty() || c.time_s < best * (1 - 1e-9)) {
        ch.chosen = c.algorithm;
        best = c.time_s;
      }
  }
  return ch;
}

}  // namespace microddp
