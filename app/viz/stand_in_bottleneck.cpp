#include "app/viz/stand_in_bottleneck.h"

#include <fmt/format.h>

#include "core/model/topology_model.h"

namespace microddp::viz {

namespace {
constexpr std::string_view kAtThatSize = "bottleneck at that size: ";
}  // namespace

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
  return fmt::format("{}{} (the picture's orange is the stand-in run's: {})", kAtThatSize, big, small);
}

std::string note_bottleneck(const std::string& note) {
  const size_t at = note.find(kAtThatSize);
  if (at == std::string::npos) return "";
  const size_t from = at + kAtThatSize.size(), to = note.find(" (the picture's orange", from);
  return to == std::string::npos ? "" : note.substr(from, to - from);
}

std::string stand_in_legend(const std::string& stand_in_ports, const std::string& real_ports, bool folded) {
  // The full legend's line stays one line at 18 px on a 1280-px slide (a
  // second line took the room lesson 12 beat 4's ranks need): the beat's
  // bottleneck is in the note above it.
  if (!folded || real_ports.empty())
    return fmt::format("{}orange = stand-in run's bottleneck: {}", folded ? "" : "colour = load; ", stand_in_ports);
  return fmt::format("bottleneck at the beat's size: {}; orange = the stand-in run's: {}", real_ports, stand_in_ports);
}

}  // namespace microddp::viz
