// Closed-form costs from the literature, in the α-β-γ (Hockney) model, as
// the algorithm files write them next to their generators. This layer only
// states the formulas; the cost model (core/model/cost_model.h, a higher
// layer) prices them with its parameters (closed_form()).
//
// Model (Hockney; the form used by Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 19(1), 2005, and by Patarasuk & Yuan, "Bandwidth optimal all-reduce
// algorithms for clusters of workstations", JPDC 69(2), 2009):
//   one message of m bytes costs  α + m·β
//   reducing m bytes costs        m·γ
// Local copies (δ in the cost model) are not counted: the papers do not.
// Units: S and m in BYTES (S = count × dtype size, spec_bytes()); every time
// in SECONDS.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "core/ir/spec.h"

namespace microddp {

// A time in the α-β-γ model, by term, in seconds. The arithmetic is the
// cost model's CostTerms arithmetic term by term, so a closed form priced
// here gives the same bits as one priced on CostTerms.
struct HockneyTime {
  double alpha_s = 0, beta_s = 0, gamma_s = 0;
  double total() const { return alpha_s + beta_s + gamma_s; }
  HockneyTime& operator+=(const HockneyTime& o) {
    alpha_s += o.alpha_s;
    beta_s += o.beta_s;
    gamma_s += o.gamma_s;
    return *this;
  }
};
inline HockneyTime operator+(HockneyTime a, const HockneyTime& b) { return a += b; }
inline HockneyTime operator*(double k, HockneyTime a) {
  a.alpha_s *= k;
  a.beta_s *= k;
  a.gamma_s *= k;
  return a;
}

// The link and reduction costs a closed form is priced with; the cost model
// implements it from its CostParams (including a small-message line, so α
// and β may depend on the message size).
class HockneyPrices {
 public:
  virtual ~HockneyPrices() = default;
  // k messages of `bytes` bytes each: k·α(m) seconds of α, k·m·β(m) of β.
  virtual HockneyTime msgs(double k, double bytes) const = 0;
  // Reducing `bytes` bytes: bytes·γ seconds of γ.
  virtual HockneyTime reduce(double bytes) const = 0;
};

// Prices on two link classes (core/model/topology_model.h): messages inside
// a node cross the intra-node link, messages between nodes a NIC, and
// nic_share ranks of a node share one NIC (⌈g / nics_per_node⌉ for g ranks
// per node), so a step in which each of them sends one m-byte message
// across costs inter.msgs(nic_share, m) on the busiest NIC (the
// congestion-aware α-β model: a port's time is its messages × α + its
// bytes / bandwidth). γ is the intra prices' (the reduction runs on the GPU).
struct TwoLevelPrices {
  const HockneyPrices& intra;
  const HockneyPrices& inter;
  int nodes = 1, ranks_per_node = 1, nic_share = 1;
  // The switch's per-rank port class when the network has a reducing switch
  // (topology_model.h, Network::nvls); nullptr otherwise. Its reduce() is
  // 0: the switch reduces at line rate.
  const HockneyPrices* nvls = nullptr;
};

// One algorithm's closed form for one collective.
struct ClosedForm {
  // Called only for world_size >= 2 (one rank costs nothing). nullopt when
  // this spec has none (e.g. uneven subtree messages for n not a power of
  // two). Exact against the schedule-derived prediction for power-of-two n
  // and counts that split evenly; otherwise within one element per message.
  std::function<std::optional<HockneyTime>(const CollectiveSpec&, const HockneyPrices&)> time;
  // The formula and its source, for `microddp predict`, e.g.
  // "(n-1)·(α + S·β)  (Patarasuk & Yuan 2009)". May depend on the spec
  // (segments). Empty = no formula to show.
  std::function<std::string(const CollectiveSpec&)> text;
};
// The same on a two-level network (AlgorithmInfo::two_level): nullopt when
// none is stated for this spec (its collective included).
using TwoLevelForm = std::function<std::optional<HockneyTime>(const CollectiveSpec&, const TwoLevelPrices&)>;

// A formula text that does not depend on the spec.
inline std::function<std::string(const CollectiveSpec&)> fixed_text(std::string t) {
  return [t = std::move(t)](const CollectiveSpec&) { return t; };
}

// S in bytes: count × dtype size (for the "v" variants: the uniform count).
inline double spec_bytes(const CollectiveSpec& s) {
  return static_cast<double>(s.count) * static_cast<double>(dtype_size(s.dtype));
}
// ⌈log2 n⌉ and the largest power of two <= n (n >= 1).
inline int ceil_lg(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}
inline int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace microddp
