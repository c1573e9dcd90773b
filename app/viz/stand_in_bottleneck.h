// A beat too large to run steps a stand-in (lesson_view.h kStandInCount
// elements per rank) whose bottleneck can differ from the beat's: lesson 12
// beat 4's stand-in (4 KiB per rank, 8 channels on 2 x 8 ranks) is bound by
// the ranks' intra-node ports, the beat's 1 GB per rank by the NICs.
#pragma once
#include <string>

#include "app/viz/prediction.h"
#include "core/ir/schedule.h"

namespace microddp::viz {

// Step `step` of `real` and of `stand_in` (the same algorithm, ranks and
// nodes) priced on `links` (a topology source: two link classes and NICs
// per node): "bottleneck at that size: PORTS (the picture's orange is the
// stand-in run's: PORTS)" when the two steps' bottleneck ports differ
// (core's ports_text, e.g. "all 16 NIC out and in ports"), else "" (also
// for one node, a source that is not a topology, or a step out of range).
std::string stand_in_bottleneck(const Schedule& real, const Schedule& stand_in, int step, const PredictionSource& links);

// The beat's own bottleneck named in a stand-in beat's note (the PORTS after
// "bottleneck at that size: " that stand_in_bottleneck wrote), or "" when
// the note names none.
std::string note_bottleneck(const std::string& note);

// The topology legend's orange line on a stand-in beat: the picture's
// orange is the stand-in run's bottleneck (`stand_in_ports`, the scene's),
// and the text speaks of the beat's size (`real_ports`, "" = not known or
// the same). Full (one line on a slide; the note names the beat's):
// "colour = load; orange = stand-in run's bottleneck: STAND-IN"; folded (a
// short canvas, the legend's only line): "bottleneck at the beat's size:
// REAL; orange = the stand-in run's: STAND-IN", or without a REAL "orange =
// stand-in run's bottleneck: STAND-IN".
std::string stand_in_legend(const std::string& stand_in_ports, const std::string& real_ports, bool folded);

}  // namespace microddp::viz
