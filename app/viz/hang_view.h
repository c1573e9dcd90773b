// The hang view: lesson 08's hang beats in the window.
#pragma once
#include "app/viz/lesson_view.h"

namespace microddp::viz {

// beat_target of a hang beat (lesson_view.h): the faulted call
// (#fault_call, an all_reduce of count >> fault_call elements) on the
// lesson's ranks, for the topology panel.
BeatTarget hang_beat_target(const lesson::Beat& b, const PredictionSource& source);

}  // namespace microddp::viz
