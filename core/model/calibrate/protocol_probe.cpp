// calibrate's protocol probe (calibrate.h, measure_protocol_costs): each
// protocol's message line α_P + m·β_P from a short lockstep ping-pong.
#include <fmt/format.h>

#include <algorithm>

#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

namespace microddp {

std::vector<ProtocolCost> measure_protocol_costs(double barrier2_s, int rounds,
                                                 const std::function<void(const std::string&)>& progress) {
  const auto& protos = all_protocols();
  const size_t n_sizes = std::size(kProtocolProbeSizes);
  // [protocol][size]: each round's mode
  std::vector<std::vector<std::vector<double>>> modes(protos.size(), std::vector<std::vector<double>>(n_sizes));
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (size_t si = 0; si < n_sizes; ++si)
      for (size_t pi = 0; pi < protos.size(); ++pi)
        // one slot: the probe compares the protocols, not the caches; 15
        // iterations give 15 samples (the first step of each is left out)
        modes[pi][si].push_back(mode_estimate(ping_pong_step_samples(kProtocolProbeSizes[si], 1, 2, 15, protos[pi])));
  std::vector<ProtocolCost> out;
  for (size_t pi = 0; pi < protos.size(); ++pi) {
    std::vector<FitPoint> pts;
    std::string line;
    for (size_t si = 0; si < n_sizes; ++si) {
      const double step = median(modes[pi][si]);
      const double t = step - barrier2_s < 0.1 * step ? 0.1 * step : step - barrier2_s;  // the message alone
      pts.push_back({kProtocolProbeSizes[si], t});
      line += fmt::format("{}{} B {:.2f} us", si ? ", " : "", kProtocolProbeSizes[si], t * 1e6);
    }
    const LineFit f = fit_line(pts);
    out.push_back({std::max(0.0, f.alpha), std::max(f.beta, 1e-15), false});
    if (progress)
      progress(fmt::format("protocol {:<6} ping-pong one way: {}; line α {:.3f} us, β {:.4f} ns/B", name(protos[pi]),
                           line, out.back().alpha * 1e6, out.back().beta * 1e9));
  }
  return out;
}

}  // namespace microddp
