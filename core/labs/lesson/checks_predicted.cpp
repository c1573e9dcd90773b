// Prediction checks of collective beats (predicted, ratio, faster,
// nic_bytes): each kind's parser and evaluator side by side. They read the
// α-β prediction of the beat's schedule (core/model/cost_model.h, or the
// two-level core/model/topology_model.h when a check names an `inter` link).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/labs/lesson/check_kinds.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"

namespace microddp::lesson::checks {

using namespace yaml;

namespace {

Network network_of(const Setup& s, const std::string& preset_name, const check::Links& l) {
  Network net;
  net.topo = Topology::make(s.ranks, s.nodes, l.nics_per_node);
  net.intra = l.intra.empty() ? preset(preset_name) : parse_link("intra", l.intra);
  net.inter = parse_link("inter", l.inter);
  return net;
}

double predicted_s(const Setup& base, const std::string& algorithm, const std::string& preset_name,
                   const check::Links& links) {
  Setup s = base;
  if (!algorithm.empty()) s.algorithm = algorithm;
  const Prepared p = prepare(s);
  if (links.inter.empty()) return predict(p.schedule, preset(preset_name)).lockstep_s;
  return predict(p.schedule, network_of(s, preset_name, links)).pr.lockstep_s;
}

// "nvlink", or "nvlink inside, infiniband between 2 nodes".
std::string links_what(const std::string& preset_name, const check::Links& l, const Setup& s) {
  if (l.inter.empty()) return preset_name;
  std::string w = fmt::format("{} inside, {} between {} node{}", l.intra.empty() ? preset_name : l.intra, l.inter,
                              s.nodes, s.nodes == 1 ? "" : "s");
  if (l.nics_per_node > 1) w += fmt::format(" ({} NICs each)", l.nics_per_node);
  return w;
}

bool rel_close(double got, double want, double tol) {
  return std::fabs(got - want) <= tol * std::max(std::fabs(want), 1e-300);
}

// Names are checked when the lesson loads, so a typo in a preset fails there.
void known_preset(const Ctx& c, const YAML::Node& n, const std::string& name) {
  if (name.empty()) return;
  try {
    (void)microddp::preset(name);
  } catch (const UsageError& e) {
    c.fail(n, e.what());
  }
}

// The optional intra, inter, nics_per_node keys of a prediction. intra and
// nics_per_node only mean something on the two-level model, so they need
// inter; the NIC count must fit the setup's ranks per node.
check::Links read_links(const Ctx& c, const YAML::Node& n, const std::string& kind, const Setup& s) {
  check::Links l;
  if (n["intra"]) l.intra = str(c, n["intra"], "intra");
  if (n["inter"]) l.inter = str(c, n["inter"], "inter");
  if (n["nics_per_node"]) l.nics_per_node = static_cast<int>(integer(c, n["nics_per_node"], "nics_per_node", 1, 32));
  for (const char* key : {"intra", "inter"}) {
    try {
      if (n[key]) (void)parse_link(key, str(c, n[key], key));  // a preset or ALPHA,BW, as predict's --inter
    } catch (const UsageError& e) {
      c.fail(n[key], fmt::format("'{}': {}", key, e.what()));
    }
  }
  if (l.inter.empty() && (n["intra"] || n["nics_per_node"]))
    c.fail(n["intra"] ? n["intra"] : n["nics_per_node"],
           fmt::format("'intra' and 'nics_per_node' of a '{}' check need 'inter' (the link between nodes; without "
                       "it the flat model prices every link as the preset)",
                       kind));
  const int per_node = s.ranks / s.nodes;  // the setup was prepared: nodes divides ranks
  if (l.nics_per_node > per_node)
    c.fail(n["nics_per_node"], fmt::format("'nics_per_node' must be between 1 and {} (the ranks per node), got {}",
                                           per_node, l.nics_per_node));
  return l;
}


}  // namespace

// ---- predicted: the α-β time of this schedule under a preset ----

check::Predicted read_predicted(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::Predicted k;
  only_keys(c, n, "a predicted check", {"check", "preset", "intra", "inter", "nics_per_node", "seconds", "rel_tol"});
  k.preset = str(c, need(c, n, "predicted", "preset"), "preset");
  k.seconds = positive(c, need(c, n, "predicted", "seconds"), "seconds");
  if (n["rel_tol"]) k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  known_preset(c, n, k.preset);
  k.links = read_links(c, n, "predicted", s);
  return k;
}

CheckResult eval_predicted(const check::Predicted& k, const BeatSetup& br) {
  CheckResult r;
  const double t = predicted_s(br.beat.setup, "", k.preset, k.links);
  r.what = fmt::format("predicted time ({}, {}, {} ranks)", links_what(k.preset, k.links, br.beat.setup),
                       br.p.spec.algorithm, br.p.spec.world_size);
  r.expected = fmt::format("{} (±{:g}%)", fmt_seconds(k.seconds), k.rel_tol * 100);
  r.actual = fmt_seconds(t);
  r.pass = rel_close(t, k.seconds, k.rel_tol);
  return r;
}

// ---- ratio: predicted time over another preset's or algorithm's ----

check::Ratio read_ratio(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::Ratio k;
  only_keys(c, n, "a ratio check",
            {"check", "preset", "over_preset", "algorithm", "over_algorithm", "intra", "inter", "nics_per_node",
             "equals", "rel_tol"});
  k.preset = str(c, need(c, n, "ratio", "preset"), "preset");
  if (n["over_preset"]) k.other_preset = str(c, n["over_preset"], "over_preset");
  if (n["algorithm"]) k.algorithm = str(c, n["algorithm"], "algorithm");
  if (n["over_algorithm"]) k.other_algorithm = str(c, n["over_algorithm"], "over_algorithm");
  if (k.other_preset.empty() && k.other_algorithm.empty())
    c.fail(n, "a ratio check needs 'over_preset' or 'over_algorithm' (what to divide by)");
  k.ratio = number(c, need(c, n, "ratio", "equals"), "equals");
  if (n["rel_tol"]) k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  known_preset(c, n, k.preset);
  known_preset(c, n, k.other_preset);
  k.links = read_links(c, n, "ratio", s);
  return k;
}

CheckResult eval_predicted(const check::Ratio& k, const BeatSetup& br) {
  CheckResult r;
  const std::string& den_preset = k.other_preset.empty() ? k.preset : k.other_preset;
  const double num = predicted_s(br.beat.setup, k.algorithm, k.preset, k.links);
  const double den = predicted_s(br.beat.setup, k.other_algorithm.empty() ? k.algorithm : k.other_algorithm,
                                 den_preset, k.links);
  const std::string num_on = links_what(k.preset, k.links, br.beat.setup);
  const std::string den_on = links_what(den_preset, k.links, br.beat.setup);
  r.what = fmt::format("predicted time {} / {}", k.algorithm.empty() ? num_on : k.algorithm + " on " + num_on,
                       k.other_algorithm.empty() ? den_on : k.other_algorithm + " on " + den_on);
  r.expected = fmt::format("{} (±{:g}%)", fmt_num(k.ratio), k.rel_tol * 100);
  r.actual = fmt_num(num / den);
  r.pass = rel_close(num / den, k.ratio, k.rel_tol);
  return r;
}

// ---- faster: one algorithm's predicted time below another's ----

check::Faster read_faster(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::Faster k;
  only_keys(c, n, "a faster check", {"check", "preset", "algorithm", "than", "intra", "inter", "nics_per_node"});
  k.preset = str(c, need(c, n, "faster", "preset"), "preset");
  k.algorithm = str(c, need(c, n, "faster", "algorithm"), "algorithm");
  k.other_algorithm = str(c, need(c, n, "faster", "than"), "than");
  known_preset(c, n, k.preset);
  k.links = read_links(c, n, "faster", s);
  return k;
}

CheckResult eval_predicted(const check::Faster& k, const BeatSetup& br) {
  CheckResult r;
  const double a = predicted_s(br.beat.setup, k.algorithm, k.preset, k.links);
  const double o = predicted_s(br.beat.setup, k.other_algorithm, k.preset, k.links);
  r.what = fmt::format("{} predicted faster than {} on {} (count {})", k.algorithm, k.other_algorithm,
                       links_what(k.preset, k.links, br.beat.setup), br.p.spec.count);
  r.expected = fmt::format("{} < {}", k.algorithm, k.other_algorithm);
  r.actual = fmt::format("{} vs {}", fmt_seconds(a), fmt_seconds(o));
  r.pass = a < o;
  return r;
}

// ---- nic_bytes: bytes through the busiest NIC port on the two-level model ----

check::NicBytes read_nic_bytes(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::NicBytes k;
  only_keys(c, n, "a nic_bytes check",
            {"check", "preset", "algorithm", "intra", "inter", "nics_per_node", "equals", "rel_tol"});
  k.preset = str(c, need(c, n, "nic_bytes", "preset"), "preset");
  (void)need(c, n, "nic_bytes", "inter");  // NICs exist only on the two-level model
  if (n["algorithm"]) k.algorithm = str(c, n["algorithm"], "algorithm");
  k.bytes = number(c, need(c, n, "nic_bytes", "equals"), "equals");
  if (n["rel_tol"]) k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  known_preset(c, n, k.preset);
  k.links = read_links(c, n, "nic_bytes", s);
  return k;
}

CheckResult eval_predicted(const check::NicBytes& k, const BeatSetup& br) {
  CheckResult r;
  Setup s = br.beat.setup;
  if (!k.algorithm.empty()) s.algorithm = k.algorithm;
  const Network net = network_of(s, k.preset, k.links);
  const NetworkPrediction np = predict(prepare(s).schedule, net);
  int64_t most = 0;
  int port = -1;
  for (int id = 0; id < num_ports(net.topo); ++id) {
    const PortKind pk = port_at(net.topo, id).kind;
    if ((pk == PortKind::nic_out || pk == PortKind::nic_in) && np.port_bytes[static_cast<size_t>(id)] > most) {
      most = np.port_bytes[static_cast<size_t>(id)];
      port = id;
    }
  }
  r.what = fmt::format("bytes through the busiest NIC port ({}, {})", s.algorithm, links_what(k.preset, k.links, s));
  r.expected = fmt::format("{} (±{:g}%)", fmt_num(k.bytes), k.rel_tol * 100);
  r.actual = port < 0 ? std::string("0 (no message crosses nodes)")
                      : fmt::format("{} ({})", most, port_name(net.topo, port));
  r.pass = rel_close(static_cast<double>(most), k.bytes, k.rel_tol);
  return r;
}

}  // namespace microddp::lesson::checks
