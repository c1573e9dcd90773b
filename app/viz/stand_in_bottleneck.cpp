#include "app/viz/stand_in_bottleneck.h"

#include <fmt/format.h>

#include "core/model/topology_model.h"

namespace microddp::viz {

std::string stand_in_bottleneck(const Schedule& real, const Schedule& stand_in, int step, const PredictionSource& links) {
  if (links.kind != PredictionSource::Kind::topology || real.spec.nodes <= 1) return "";
  if (stand_in.spec.world_size != real.spec.world_size || stand_in.spec.nodes != real.spec.nodes) return "";
  const ModelInForce m = resolve_model(real.spec, links);
  if (!m.network) return "";
  const auto ports = [&](const Schedule& s) -> std::string {
    const NetworkPrediction np = predict(s, *m.network);
    if (step < 0 || step >= static_cast<int>(np.step_tied.size())) return "";
    return ports_text(m.network->topo, np.step_tied[static_cast<size_t>(step)]);
  };
  const std::string big = ports(real), small = ports(stand_in);
  if (big.empty() || small.empty() || big == small) return "";
  return fmt::format("bottleneck at that size: {} (the picture's orange is the stand-in run's: {})", big, small);
}

}  // namespace microddp::viz
