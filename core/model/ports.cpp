// Port numbering and names of the topology model (topology_model.h's Port,
// num_ports, port_id, port_at, port_name, ports_text, tied_busiest).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "core/ir/types.h"
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

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

// Sorted indices as runs: "0–3, 5" (three or more in a row as a range),
// each with `prefix` ("R0–R3, R5").
std::string index_runs(const std::vector<int>& v, const char* prefix) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (j >= i + 2) {
      parts.push_back(fmt::format("{}{}\u2013{}{}", prefix, v[i], prefix, v[j]));
    } else {
      for (size_t k = i; k <= j; ++k) parts.push_back(fmt::format("{}{}", prefix, v[k]));
    }
    i = j + 1;
  }
  return join(parts, ", ");
}

}  // namespace

std::string ports_text(const Topology& t, const std::vector<int>& ports) {
  if (ports.empty()) return "-";
  for (int id : ports)
    if (id < 0) throw UsageError(fmt::format("port {} is not a port (ids start at 0)", id));
  if (ports.size() == 1) return port_name(t, ports[0]);
  const int n = t.world_size();
  std::map<PortKind, std::vector<int>> idx;  // intra and NIC ports: their rank or NIC index, by kind
  std::map<std::pair<int, PortKind>, std::vector<int>> swi;  // switch w's per-rank ports: the ranks
  std::vector<std::string> single;           // a switch's single port: by name
  for (int id : ports) {
    const Port p = port_at(t, id);
    const bool sw = p.kind == PortKind::switch_in || p.kind == PortKind::switch_out;
    if (sw && p.index >= n) single.push_back(port_name(t, id));
    else if (sw) swi[{p.sw, p.kind}].push_back(p.index);
    else idx[p.kind].push_back(p.index);
  }
  const auto tidy = [](std::vector<int>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  for (auto& [k, v] : idx) tidy(v);
  for (auto& [k, v] : swi) tidy(v);
  std::vector<std::string> parts;
  const auto group = [&](bool nic, const char* dir, const std::vector<int>& v) {
    const int all = nic ? t.nodes * t.nics_per_node : t.world_size();
    if (static_cast<int>(v.size()) == all && all > 1)
      return all == 2 ? fmt::format("both {} {} ports", nic ? "NIC" : "intra", dir)
                      : fmt::format("all {} {} {} ports", all, nic ? "NIC" : "intra", dir);
    if (!nic) return fmt::format("intra {} of {}", dir, index_runs(v, "R"));
    if (t.nics_per_node == 1) return fmt::format("NIC {} of node{} {}", dir, v.size() > 1 ? "s" : "", index_runs(v, ""));
    std::vector<std::string> names;
    for (int i : v) names.push_back(fmt::format("node {} NIC {}", i / t.nics_per_node, i % t.nics_per_node));
    return fmt::format("NIC {} of {}", dir, join(names, ", "));
  };
  const auto family = [&](PortKind out, PortKind in, bool nic) {
    static const std::vector<int> none;
    const auto o = idx.find(out), i = idx.find(in);
    const std::vector<int>& O = o == idx.end() ? none : o->second;
    const std::vector<int>& I = i == idx.end() ? none : i->second;
    if (!O.empty() && O == I) {
      parts.push_back(group(nic, "out and in", O));
      return;
    }
    if (!O.empty()) parts.push_back(group(nic, "out", O));
    if (!I.empty()) parts.push_back(group(nic, "in", I));
  };
  family(PortKind::intra_out, PortKind::intra_in, false);
  family(PortKind::nic_out, PortKind::nic_in, true);
  // A switch's per-rank ports (a switch class): "all 8 SW out and in
  // ports", "SW out to R0–R3", "SW in from R2".
  std::vector<int> sws;
  for (const auto& [k, v] : swi) sws.push_back(k.first);
  tidy(sws);
  for (int w : sws) {
    const std::string W = w == 0 ? "SW" : fmt::format("SW{}", w);
    static const std::vector<int> none;
    const auto o = swi.find({w, PortKind::switch_out}), i = swi.find({w, PortKind::switch_in});
    const std::vector<int>& O = o == swi.end() ? none : o->second;
    const std::vector<int>& I = i == swi.end() ? none : i->second;
    const auto group = [&](const char* dir, const char* to, const std::vector<int>& v) {
      if (static_cast<int>(v.size()) == n && n > 1) return fmt::format("all {} {} {} ports", n, W, dir);
      return fmt::format("{} {} {}", W, to, index_runs(v, "R"));
    };
    if (!O.empty() && O == I) {
      parts.push_back(group("out and in", "out to and in from", O));
      continue;
    }
    if (!O.empty()) parts.push_back(group("out", "out to", O));
    if (!I.empty()) parts.push_back(group("in", "in from", I));
  }
  parts.insert(parts.end(), single.begin(), single.end());
  return join(parts, " and ");
}

std::vector<int> tied_busiest(const std::vector<double>& seconds) {
  double most = 0;
  for (double s : seconds) most = std::max(most, s);
  std::vector<int> out;
  if (!(most > 0)) return out;
  for (size_t id = 0; id < seconds.size(); ++id)
    if (seconds[id] >= most * (1 - 1e-6)) out.push_back(static_cast<int>(id));
  return out;
}

}  // namespace microddp
