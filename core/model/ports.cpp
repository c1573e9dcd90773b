// Port numbering and names of the topology model (topology_model.h's Port,
// num_ports, port_id, port_at, port_name).
#include <fmt/format.h>

#include "core/model/topology_model.h"

namespace microddp {

int num_ports(const Topology& t) {
  const int n = t.world_size(), nk = t.nodes * t.nics_per_node;
  return 2 * n + 2 * nk;
}
int num_ports(const Topology& t, int switches) { return num_ports(t) + switches * 2 * (t.world_size() + 1); }
int port_id(const Topology& t, Port p) {
  const int n = t.world_size(), nk = t.nodes * t.nics_per_node;
  const int sw = num_ports(t) + p.sw * 2 * (n + 1);
  switch (p.kind) {
    case PortKind::switch_in: return sw + p.index;
    case PortKind::switch_out: return sw + n + 1 + p.index;
    case PortKind::intra_out: return p.index;
    case PortKind::intra_in: return n + p.index;
    case PortKind::nic_out: return 2 * n + p.index;
    case PortKind::nic_in: return 2 * n + nk + p.index;
  }
  return 0;
}
Port port_at(const Topology& t, int id) {
  const int n = t.world_size(), nk = t.nodes * t.nics_per_node;
  if (id >= num_ports(t)) {
    const int k = id - num_ports(t), w = k / (2 * (n + 1)), j = k % (2 * (n + 1));
    return j <= n ? Port{PortKind::switch_in, j, w} : Port{PortKind::switch_out, j - n - 1, w};
  }
  if (id < n) return {PortKind::intra_out, id};
  if (id < 2 * n) return {PortKind::intra_in, id - n};
  if (id < 2 * n + nk) return {PortKind::nic_out, id - 2 * n};
  return {PortKind::nic_in, id - 2 * n - nk};
}
std::string port_name(const Topology& t, int id) {
  if (id < 0) return "-";
  const Port p = port_at(t, id);
  switch (p.kind) {
    case PortKind::intra_out: return fmt::format("R{} intra out", p.index);
    case PortKind::intra_in: return fmt::format("R{} intra in", p.index);
    case PortKind::nic_out:
      return fmt::format("node {} NIC {} out", p.index / t.nics_per_node, p.index % t.nics_per_node);
    case PortKind::nic_in:
      return fmt::format("node {} NIC {} in", p.index / t.nics_per_node, p.index % t.nics_per_node);
    case PortKind::switch_in:
    case PortKind::switch_out: {
      // "SW" when the schedule has one switch; the topology does not know, so
      // a second switch is named by number
      const std::string w = p.sw == 0 ? "SW" : fmt::format("SW{}", p.sw);
      const bool in = p.kind == PortKind::switch_in;
      if (p.index == t.world_size()) return fmt::format("{} {}", w, in ? "in" : "out");
      return fmt::format("{} {} R{}", w, in ? "in from" : "out to", p.index);
    }
  }
  return "?";
}

}  // namespace microddp
