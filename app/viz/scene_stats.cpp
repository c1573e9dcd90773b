// The stats panel's scene (panel_stats.cpp draws it).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "app/viz/avg_words.h"
#include "app/viz/scene.h"
#include "app/viz/units.h"
#include "core/exec/rank_program.h"
#include "core/model/cost_model.h"

namespace microddp::viz {

namespace {

bool is_nic(const Topology& t, int port) {
  const PortKind k = port_at(t, port).kind;
  return k == PortKind::nic_out || k == PortKind::nic_in;
}

// tied: the ports tied for the largest time (all marked the bottleneck).
std::vector<Stats::PortLoad> busiest_ports(const Topology& t, const std::vector<int64_t>& bytes,
                                           const std::vector<int>& tied, int max_ports) {
  std::vector<Stats::PortLoad> v;
  for (int id = 0; id < static_cast<int>(bytes.size()); ++id) {
    const bool b = std::binary_search(tied.begin(), tied.end(), id);
    if (bytes[static_cast<size_t>(id)] > 0 || b)
      v.push_back({id, port_name(t, id), bytes[static_cast<size_t>(id)], is_nic(t, id), b, b && tied.size() > 1});
  }
  // Busiest first; the bottleneck ahead of its equals, then port order.
  std::stable_sort(v.begin(), v.end(), [](const Stats::PortLoad& a, const Stats::PortLoad& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.bottleneck > b.bottleneck;
  });
  if (max_ports > 0 && static_cast<int>(v.size()) > max_ports) {
    // The bottleneck (busiest by time, which many small messages can make a
    // port with fewer bytes) always stays in the list, last if need be (the
    // first of tied ports).
    const auto b = std::find_if(v.begin(), v.end(), [](const Stats::PortLoad& p) { return p.bottleneck; });
    if (b != v.end() && b - v.begin() >= max_ports) v[static_cast<size_t>(max_ports - 1)] = *b;
    v.resize(static_cast<size_t>(max_ports));
  }
  return v;
}

// The link classes and ports of the run: the prediction's topology, else
// the run's nodes (one NIC each), priced with the flat model on both classes
// (the bytes do not depend on the prices; the bottleneck then is the port
// with the most messages and bytes).
void add_links(Stats& st, const Session& ses, int shown, int max_ports) {
  const Schedule& s = ses.schedule();
  const Prediction& pred = ses.prediction();
  const int n = s.world_size();
  Network net;
  if (pred.network && pred.network->topo.world_size() == n) {
    net = *pred.network;
  } else {
    const int nodes = s.spec.nodes > 1 && n % s.spec.nodes == 0 ? s.spec.nodes : 1;
    net.topo = Topology::make(n, nodes, 1);
    net.intra = net.inter = pred.flat;
  }
  const Topology& T = net.topo;
  st.nodes = T.nodes;
  st.ranks_per_node = T.ranks_per_node;
  st.nics_per_node = T.nics_per_node;
  const NetworkPrediction np = predict(s, net);
  st.intra_run = np.bytes_intra;
  st.inter_run = np.bytes_inter;
  st.ports_run = busiest_ports(T, np.port_bytes, np.tied, max_ports);
  st.bottleneck_run = bottleneck_text(T, np.tied, np.port_bytes);
  if (shown >= 0 && shown < static_cast<int>(np.step_port_bytes.size())) {
    st.shown_step = shown;
    const auto& pb = np.step_port_bytes[static_cast<size_t>(shown)];
    const std::vector<int>& tied = np.step_tied[static_cast<size_t>(shown)];
    for (int id = 0; id < static_cast<int>(pb.size()); ++id) {
      // Out ports count each message once: intra out, NIC out.
      const PortKind k = port_at(T, id).kind;
      if (k == PortKind::intra_out) st.intra_step += pb[static_cast<size_t>(id)];
      if (k == PortKind::nic_out) st.inter_step += pb[static_cast<size_t>(id)];
    }
    st.ports_step = busiest_ports(T, pb, tied, max_ports);
    st.bottleneck_step = bottleneck_text(T, tied, pb);
  }
  // The time split: on a topology, each step's α and β (the critical rank's
  // busiest port) charged to the class of the step's busiest port.
  if (!pred.available) return;
  st.split = true;
  if (pred.network) {
    st.by_class = true;
    const microddp::Prediction& pr = np.pr;
    for (size_t k = 0; k < pr.step_s.size(); ++k) {
      const CostTerms& t = pr.ranks[k][static_cast<size_t>(pr.critical_rank[k])].terms;
      const bool inter = np.step_bottleneck[k] >= 0 && is_nic(T, np.step_bottleneck[k]);
      (inter ? st.alpha_inter_us : st.alpha_intra_us) += t.alpha_s * 1e6;
      (inter ? st.beta_inter_us : st.beta_intra_us) += t.beta_s * 1e6;
      st.other_us += (pr.step_s[k] - t.alpha_s - t.beta_s) * 1e6;
    }
  } else {
    st.alpha_intra_us = pred.terms.alpha_s * 1e6;
    st.beta_intra_us = pred.terms.beta_s * 1e6;
    st.other_us = (pred.terms.total() - pred.terms.alpha_s - pred.terms.beta_s) * 1e6;
  }
}

}  // namespace

Stats build_stats(const Session& ses, int position, int max_ports) {
  Stats st;
  if (!ses.configured()) return st;
  const Schedule& s = ses.schedule();
  const int n = s.world_size();
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  st.steps = s.num_steps();
  st.steps_run = ses.steps_run();
  st.finished = st.steps_run == st.steps;
  st.recorded_run = ses.replaying();
  st.sent.assign(n, 0);
  st.received.assign(n, 0);
  std::map<std::pair<int, int>, int64_t> links;
  // Every endpoint's sends are links (a switch's too: "SW -> R0"); the
  // per-rank totals count the ranks.
  for (const Step& step : s.steps)
    for (int r = 0; r < s.num_endpoints(); ++r)
      for (const Op& o : step.ranks[r]) {
        if (o.kind == OpKind::send) {
          if (r < n) st.sent[r] += o.len * es;
          links[{r, o.peer}] += o.len * es;
        } else if ((o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) && r < n) {
          st.received[r] += o.len * es;
        }
      }
  for (auto& [k, b] : links)
    st.links.push_back({k.first, k.second, b, endpoint_name(s, k.first), endpoint_name(s, k.second)});
  std::stable_sort(st.links.begin(), st.links.end(), [](const LinkStat& a, const LinkStat& b) { return a.bytes > b.bytes; });
  for (int r = 0; r < n; ++r)
    if (st.sent[r] + st.received[r] > st.busiest_rank_bytes || st.busiest_rank < 0) {
      st.busiest_rank = r;
      st.busiest_rank_bytes = st.sent[r] + st.received[r];
    }
  int ties = 0;
  for (int r = 0; r < n; ++r) ties += st.sent[r] + st.received[r] == st.busiest_rank_bytes;
  st.busiest_unique = ties == 1;
  st.measured_us = ses.measured_ns() / 1e3;
  st.first_run_us = ses.first_run_ns() / 1e3;
  st.repetitions = ses.repetitions();
  st.size_bytes = bench_bytes(s.spec);
  st.bus_factor = busbw_factor(s.spec.collective, n);
  if (st.finished && st.measured_us > 0) {
    st.algbw_gbps = double(st.size_bytes) / (st.measured_us * 1e-6) / 1e9;
    st.busbw_gbps = st.algbw_gbps * st.bus_factor;
  }
  const auto& pred = ses.prediction();
  if (pred.available) {
    st.predicted_us = pred.total_us;
    st.predicted_run_us = 0;
    for (int k = 0; k < st.steps_run && k < static_cast<int>(pred.step_us.size()); ++k) st.predicted_run_us += pred.step_us[k];
    if (st.finished) st.predicted_run_us = pred.total_us;
    // A preset or a topology describes other hardware: its gap to the
    // time measured here is no model error.
    st.error_known = pred.this_machine;
    if (st.finished && pred.total_us > 0 && st.measured_us > 0)
      st.error_pct = (pred.total_us - st.measured_us) / st.measured_us * 100;  // as bench's error column
  }
  st.prediction_label = pred.source;
  st.prediction_hint = pred.hint;
  if (pred.network)
    st.measured_note = "measured: this machine's threads over shared memory; predicted: the topology above";
  if (const AutoChoice& ac = ses.auto_choice(); !ac.chosen.empty()) {
    st.auto_text = fmt::format("auto chose {}:", ac.chosen);
    for (const auto& c : ac.candidates)
      st.auto_text += fmt::format(" {} {}{}", c.algorithm, format_us(c.time_s * 1e6), &c == &ac.candidates.back() ? "" : ",");
    const AutoChoice::Candidate* best = nullptr;
    const AutoChoice::Candidate* next = nullptr;
    for (const auto& c : ac.candidates) {
      if (c.algorithm == ac.chosen) best = &c;
      else if (!next || c.time_s < next->time_s) next = &c;
    }
    st.auto_short = fmt::format("auto chose {}", ac.chosen);
    if (best && next)
      st.auto_short += fmt::format(" ({}; next: {} {})", format_us(best->time_s * 1e6), next->algorithm,
                                   format_us(next->time_s * 1e6));
  }
  if (position < 0) position = ses.position();
  const int shown = st.steps == 0 ? -1 : position > 0 ? std::min(position, st.steps) - 1 : 0;
  add_links(st, ses, shown, max_ports);
  return st;
}

std::string avg_stats_line(const Session& ses, int position) {
  if (!ses.configured()) return "";
  const CollectiveSpec& sp = ses.schedule().spec;
  if (!needs_finish_avg(sp)) return "";
  if (position < 0) position = ses.position();
  const std::string pending = avg_pending_words(ses, position);
  if (!pending.empty())
    return fmt::format("{} avg: the outputs hold the {} (after the last step, toward zero)", name(sp.dtype), pending);
  return fmt::format("{} avg: the buffers hold sums; each output ÷ {} after the last step (toward zero)", name(sp.dtype),
                     sp.world_size);
}

std::string stats_summary_line(const Stats& st) {
  // With warm repetitions the measured time is the steps' medians and the
  // cold first run is named apart (it is real, but not the steps' cost).
  const std::string reps = st.repetitions > 0 ? fmt::format(" (step medians of {} warm runs; first run {})",
                                                            st.repetitions, format_us(st.first_run_us))
                                              : "";
  const std::string error = st.predicted_us >= 0 && st.finished && st.error_known
                                ? fmt::format("   prediction error {:+.1f} % of measured", st.error_pct)
                                : "";
  // A recorded run ran every step before it was shown: "4 of 4 steps run"
  // beside the slider's "1 of 4" read as a contradiction (hostile review 7).
  const std::string head = st.recorded_run ? (st.steps == 1 ? std::string("recorded run, its one step")
                                                              : fmt::format("recorded run, all {} steps", st.steps))
                                           : fmt::format("{} of {} steps run", st.steps_run, st.steps);
  return fmt::format("{}   |   measured {}{}{}{}", head, format_us(st.measured_us), st.finished ? "" : " so far", reps,
                     error);
}

}  // namespace microddp::viz
