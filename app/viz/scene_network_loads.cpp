// The topology scene's network loads (build_topology calls add_network_loads,
// declared in scene_topology_parts.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "app/viz/compare.h"  // human_bytes
#include "app/viz/scene.h"
#include "app/viz/scene_topology_parts.h"
#include "app/viz/units.h"
#include "core/algorithms/registry.h"
#include "core/record/printer.h"

namespace microddp::viz {

std::string bottleneck_text(const Topology& t, const std::vector<int>& tied, const std::vector<int64_t>& bytes) {
  if (tied.empty()) return "";
  const std::string ports = ports_text(t, tied);
  if (tied.size() == 1) return ports;
  const int64_t b = bytes.at(static_cast<size_t>(tied.front()));
  const bool equal = std::all_of(tied.begin(), tied.end(), [&](int p) { return bytes.at(static_cast<size_t>(p)) == b; });
  return equal && b > 0 ? fmt::format("{}, equally ({} each)", ports, human_bytes(double(b))) : ports + ", tied";
}

// The NICs, each arrow's port load and the step's bottleneck, from the
// network prediction of the schedule (core/model/topology_model.h).
void add_network_loads(TopologyScene& sc, const Schedule& s, int N, const Network* net_in) {
  const int n = s.world_size();
  Network net;
  if (net_in) net = *net_in;
  else {
    net.intra = preset("nvlink");
    net.inter = preset("infiniband");
  }
  const int g = n / N;
  // The window's controls may have changed the world size since the options.
  net.topo = Topology::make(n, N, std::clamp(net_in ? net_in->topo.nics_per_node : 1, 1, g));
  const Topology& T = net.topo;
  const NetworkPrediction np = predict(s, net);
  const int st = sc.shown_step;
  if (st < 0 || st >= static_cast<int>(np.step_port_bytes.size())) return;
  const auto& pb = np.step_port_bytes[static_cast<size_t>(st)];
  const int64_t most = pb.empty() ? 0 : *std::max_element(pb.begin(), pb.end());
  // Every port tied for the step's largest time is the bottleneck alike
  // (a ring over one-rank nodes loads every NIC the same): all or none
  // orange, never the first of equals.
  const std::vector<int>& tied = np.step_tied[static_cast<size_t>(st)];
  const auto busiest = [&](int port) { return std::binary_search(tied.begin(), tied.end(), port); };
  const auto load = [&](int64_t b) { return most > 0 ? float(double(b) / double(most)) : 0.f; };
  for (const ArrowDraw& a : sc.arrows) {
    ArrowLoad l;
    l.inter = !T.same_node(a.from, a.to);
    const int port = port_id(T, l.inter ? Port{PortKind::nic_out, T.node_of(a.from) * T.nics_per_node + T.nic_of(a.from)}
                                        : Port{PortKind::intra_out, a.from});
    l.port_bytes = pb[static_cast<size_t>(port)];
    l.load = load(l.port_bytes);
    l.bottleneck = busiest(port);
    sc.loads.push_back(l);
  }
  for (const NodeBoxDraw& b : sc.boxes)  // compact nodes: their totals instead
    for (int k = 0; k < (sc.compact_nodes ? 0 : T.nics_per_node); ++k) {
      NicDraw d;
      d.node = b.node;
      d.nic = k;
      const float fx = (float(k) + 1) / float(T.nics_per_node + 1);
      d.pos = Vec2{b.min.x + fx * (b.max.x - b.min.x), b.max.y - kNicStrip / 2};
      const int i = b.node * T.nics_per_node + k;
      const int64_t out = pb[static_cast<size_t>(port_id(T, {PortKind::nic_out, i}))];
      const int64_t in = pb[static_cast<size_t>(port_id(T, {PortKind::nic_in, i}))];
      d.bytes = out + in;
      d.load = load(std::max(out, in));
      d.bottleneck = busiest(port_id(T, {PortKind::nic_out, i})) || busiest(port_id(T, {PortKind::nic_in, i}));
      sc.nics.push_back(d);
    }
  sc.bottleneck = bottleneck_text(T, tied, pb);
  // Bandwidths per direction: per rank inside a node, per NIC across.
  sc.legend.push_back(fmt::format("intra-node (thin): {} per rank",
                                  format_link(net.intra.name, net.intra.alpha, net.intra.bandwidth())));
  sc.legend.push_back(fmt::format("inter-node (thick): {} x {} NIC/node",
                                  format_link(net.inter.name, net.inter.alpha, net.inter.bandwidth()), T.nics_per_node));
  // The run executes on this machine's threads: the measured times are
  // shared memory's, whatever the topology drawn.
  sc.network_note = net_in ? "measured: shared memory here; predicted: this topology"
                           : "measured: shared memory here; loads: these links";
}

}  // namespace microddp::viz
