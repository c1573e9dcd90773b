// Pricing a protocol (core/ir/protocol.h) in the α-β model.
//
// Each protocol has its own message line t = α_P + m·β_P (m payload bytes):
// calibrate measures all three with one ping-pong probe
// (calibrate.h, measure_protocol_costs; CostParams::protocols). For a
// profile or preset without that probe they are DERIVED from simple's α, β
// and the wire ratio: α_P = α (no latency advantage assumed), β_P =
// β × wire_ratio(P) (ll 2, ll128 128/120), and labelled so.
// NCCL prices its protocols the same way, one latency and one bandwidth per
// protocol (NVIDIA/nccl v2.19 src/graph/tuning.cc: baseLat and hwLat per
// algorithm and protocol; LL's bus bandwidth a fraction of Simple's, LL128's
// about 120/128 of it on a ring).
//
// for_protocol(p, P) keeps every other term of the model (barriers, cache
// curve, bus, coherence) and moves the message line by what the probe
// measured between P and simple: α + (α_P - α_S), β × (β_P / β_S) (also the
// small-message line and the cache curve's β). For simple it returns p.
// Approximation (say it to learners): the probe is a one-way ping-pong, so
// β_P holds the sender's stores and the receiver's polling together; a rank
// that sends and receives in one step under ll / ll128 does both in turn,
// which the model does not add separately.
#pragma once
#include <string>
#include <vector>

#include "core/ir/protocol.h"
#include "core/model/cost_model.h"

namespace microddp {

// [Protocol]: p.protocols when it holds a measured line for each protocol,
// otherwise the derived lines above (derived = true).
std::vector<ProtocolCost> protocol_costs(const CostParams& p);
CostParams for_protocol(const CostParams& p, Protocol proto);

// --protocol auto: the protocol with the lowest predicted time for schedule
// s under p (lockstep or free: predict()'s lockstep_s or pipelined_s),
// among `allowed` (the backend's; threads: all three). Ties go to the
// earlier of simple, ll, ll128.
struct ProtocolChoice {
  Protocol chosen = Protocol::simple;
  struct Candidate {
    Protocol protocol;
    double time_s = 0;
  };
  std::vector<Candidate> candidates;
  bool derived = true;  // the lines were derived, not measured
};
ProtocolChoice choose_protocol(const Schedule& s, const CostParams& p, bool lockstep = true,
                               const std::vector<Protocol>& allowed = all_protocols());

// Where two protocols' lines cross: the message size m (bytes) with
// α_a + m·β_a = α_b + m·β_b; < 0 when they do not cross at m > 0 (one is
// faster at every size).
double crossover_bytes(const ProtocolCost& a, const ProtocolCost& b);

// "ll: α 0.41 µs, β 0.52 ns/B (measured)" lines, one per protocol, for
// calibrate and predict.
std::string protocol_costs_text(const CostParams& p);

}  // namespace microddp
