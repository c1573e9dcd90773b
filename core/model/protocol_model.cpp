#include "core/model/protocol_model.h"

#include <fmt/format.h>

#include <algorithm>

namespace microddp {

std::vector<ProtocolCost> protocol_costs(const CostParams& p) {
  const size_t n = all_protocols().size();
  if (p.protocols.size() == n) {
    bool ok = true;
    for (const auto& c : p.protocols) ok = ok && c.beta > 0 && c.alpha >= 0;
    if (ok) return p.protocols;
  }
  std::vector<ProtocolCost> out;
  for (Protocol q : all_protocols()) out.push_back({p.alpha, p.beta * wire_ratio(q), true});
  return out;
}

CostParams for_protocol(const CostParams& p, Protocol proto) {
  if (proto == Protocol::simple) return p;
  const std::vector<ProtocolCost> c = protocol_costs(p);
  const ProtocolCost& s = c[static_cast<int>(Protocol::simple)];
  const ProtocolCost& q = c[static_cast<int>(proto)];
  const double da = q.alpha - s.alpha;
  const double rb = s.beta > 0 ? q.beta / s.beta : wire_ratio(proto);
  CostParams r = p;
  r.alpha = std::max(0.0, p.alpha + da);
  r.alpha_small = std::max(0.0, p.alpha_small + da);
  r.beta = p.beta * rb;
  r.beta_small = p.beta_small * rb;
  for (double& b : r.cache.beta) b *= rb;
  return r;
}

ProtocolChoice choose_protocol(const Schedule& s, const CostParams& p, bool lockstep,
                               const std::vector<Protocol>& allowed) {
  ProtocolChoice ch;
  const std::vector<ProtocolCost> c = protocol_costs(p);
  ch.derived = c[1].derived;
  double best = 0;
  for (Protocol q : allowed) {
    const Prediction pr = predict(s, for_protocol(p, q));
    const double t = lockstep ? pr.lockstep_s : pr.pipelined_s;
    ch.candidates.push_back({q, t});
    if (ch.candidates.size() == 1 || t < best) {
      best = t;
      ch.chosen = q;
    }
  }
  return ch;
}

double crossover_bytes(const ProtocolCost& a, const ProtocolCost& b) {
  const double db = a.beta - b.beta;
  if (db == 0) return -1;
  const double m = (b.alpha - a.alpha) / db;
  return m > 0 ? m : -1;
}

std::string protocol_costs_text(const CostParams& p) {
  std::string out;
  for (Protocol q : all_protocols()) {
    const ProtocolCost c = protocol_costs(p)[static_cast<int>(q)];
    out += fmt::format("protocol {:<6}: α {:8.3f} µs, β {:8.4f} ns/B ({:.2f} GB/s of payload){}\n", name(q),
                       c.alpha * 1e6, c.beta * 1e9, c.beta > 0 ? 1e-9 / c.beta : 0.0,
                       c.derived ? " (derived: simple's α, β × the wire ratio; `microddp calibrate` measures it)"
                                 : " (measured)");
  }
  return out;
}

}  // namespace microddp
