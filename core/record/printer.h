// The terminal views of a run: the step-by-step walk-through (`microddp run
// --steps`, lessons) and the summary. Plain text, derived only from the
// Schedule and the Trace.
#pragma once
#include <string>

#include "core/exec/executor.h"

namespace microddp {

// Values of a rank's buffers: "[1, 2, 3]" (NaN as nan, integers without ".0").
std::string format_values(const std::vector<double>& v);

// Name of a buffer together with the storage it refers to on that rank
// ("send_buff (A)"): work buffers get letters so a swap is visible.
std::string buffer_label(const Schedule& s, int rank, Buf b, int storage);

// A step's measured time (Trace::timing): "5.9 µs median (p10 5.1 µs, p90
// 7.3 µs, 20 reps, barrier included; first run 48.0 µs)", or for an
// unrepeated step "measured 48.0 µs (one run, barrier included)" ("measured
// 48.0 µs" when the time is the slowest rank's own span, without barrier).
std::string format_step_time(const StepTiming& t);

// One step: phase, each rank's ops in order (transfers with rank -> rank,
// chunk, elements and bytes), the buffers after the step (when recorded),
// measured time (format_step_time) and, if given (>= 0), the predicted time in µs.
std::string format_step(const Schedule& s, const Trace& t, int step, double predicted_us = -1);

// Header + inputs, then every step, then the final outputs.
std::string format_walkthrough(const Schedule& s, const RankData& inputs, const RunResult& r,
                               const std::vector<double>& predicted_step_us = {});

// Output rows "R0 [12, 15, 18]" for every rank (ranks without output: "none").
std::string format_outputs(const Schedule& s, const RankData& outputs);

}  // namespace microddp
