// The terminal views of a run: the step-by-step walk-through (`microddp run
// --steps`, lessons) and the summary. Plain text, derived only from the
// Schedule and the Trace.
#pragma once
#include <string>
#include <string_view>

#include "core/exec/executor.h"

namespace microddp {

// How vectors are printed. A vector whose full text is wider than
// kValuesWidth columns is elided in the middle, "[1, 2, 3, …, 1022, 1023,
// 1024]" (its first and last kEdgeValues values), unless `full`: a terminal
// view never floods the screen unless asked to (`--full`).
struct PrintOptions {
  bool full = false;
  // The schedule is a broken form run anyway (lesson 02's single-buffered
  // ring): a transfer's T_q is what the schedule means to move, not what
  // the buffer holds once a send is overwritten, so it prints "meant for T2".
  bool broken = false;
};
constexpr size_t kValuesWidth = 72;
constexpr size_t kEdgeValues = 3;

// Values of a rank's buffers: "[1, 2, 3]" (NaN as nan, integers without
// ".0"), elided as above. `written` (empty = all written; else one flag per
// value) marks the elements some op has written: the others print as "·",
// so storage nothing has filled yet does not read as data.
std::string format_values(const std::vector<double>& v, const PrintOptions& o = {},
                          const std::vector<bool>& written = {});

// Already formatted elements as one vector text, "[a, b, c]", elided as above.
std::string join_values(const std::vector<std::string>& items, const PrintOptions& o = {});

// Name of a buffer together with the storage it refers to on that rank
// ("send_buff (A)"): work buffers get letters so a swap is visible.
std::string buffer_label(const Schedule& s, int rank, Buf b, int storage);

// "1 element", "3 elements", "0 elements": n and the noun, plural unless n
// is exactly 1 (every count the terminal views print goes through it).
std::string count_noun(int64_t n, std::string_view noun);

// One vocabulary for steps, in every view (CLI, window, lessons, slides).
// A step is named by its index from 0, as ranks are (the seed notes'
// double-buffered ring says "step 0 (even)": the parity decides the
// swap), and a total is a count: step_label(2, 14) is "step 2 (3rd of
// 14)". A position is how many steps have run (0..num_steps, the window's
// slider, `microddp-viz --step K`): position_label(3, 14) is "after step 2
// · 3 of 14 steps run", position_label(0, 14) "before step 0 · 0 of 14
// steps run";
// positions past the end read as the end, "no steps" when num_steps <= 0.
std::string step_label(int step, int num_steps);
std::string position_label(int position, int num_steps);
// "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", ...
std::string ordinal(int n);

// Times here print by format_us(us, 1) (core/ir/units.h): one decimal in
// µs below 1 ms, in ms from 1 ms to 1 s, in s above ("41.3 ms measured").
// A step's measured time (Trace::timing): "5.9 µs median (p10 5.1 µs, p90
// 7.3 µs, 20 reps, barrier included; first run 48.0 µs)", or for an
// unrepeated step "measured 48.0 µs (one run, barrier included)" ("measured
// 48.0 µs" when the time is the slowest rank's own span, without barrier).
std::string format_step_time(const StepTiming& t);

// A run's totals over its steps (Trace::timing of each), in µs. The sum of
// the warm step medians is what a repeated step costs once the caches,
// pages and threads are warm; the first runs' sum is the cold run, which
// can be tens of times larger (page faults, thread wake-ups). median_us is
// < 0 when the steps were not repeated (free mode, a backend that does not
// repeat, --repeat-steps 0); repetitions is the steps' repetition count.
struct RunTotals {
  double median_us = -1, first_run_us = 0;
  int32_t repetitions = 0;
};
RunTotals run_totals(const Trace& t);

// The measured time of `run --steps`' last line: with repeated steps "29.4 µs
// measured (sum of step medians over 50 warm runs; first run 679.3 µs)";
// without, the trace's wall time `total_us` and mode, "721.3 µs measured
// (lockstep)". With repeated steps and predicted_total_us >= 0 (the steps'
// predictions summed) it goes on " · predicted 12.0 µs (error +5.2%)", the
// error as format_predicted gives it, against the sum of the medians; a
// wall time (pipelined, or one cold run) gets no prediction beside it.
std::string format_measured_total(const Trace& t, double total_us, double predicted_total_us = -1);

// " · predicted 8.9 µs" for predicted_us >= 0 ("" below 0), and beside a
// measured median " (error +12.3%)": (predicted - measured) / measured, the
// sign as bench's error column (+ = the model expected more time). Against a
// median of warm repetitions only: a single cold run is no step's cost
// (format_step_time), so it gets no error. measured_median_us < 0: none.
std::string format_predicted(double predicted_us, double measured_median_us);

// One step: phase, each rank's ops in order (transfers with rank -> rank,
// chunk, elements and bytes), the buffers after the step (when recorded),
// measured time (format_step_time) and, if given (>= 0), the predicted time in µs with its error
// (format_predicted). Elements no
// op of steps 0..step has written (the schedule's ops, swaps replayed) print as
// "·".
std::string format_step(const Schedule& s, const Trace& t, int step, double predicted_us = -1,
                        const PrintOptions& o = {});

// One step as one line: "step 3 of 12 · phase reduce · 6 messages, 336 B
// · measured 15.2 µs" (messages and bytes summed over the ranks' sends),
// then format_predicted's " · predicted X µs (error ...)" when predicted_us >= 0, as format_step.
// For walk-throughs that skip over many steps.
std::string format_step_line(const Schedule& s, const Trace& t, int step, double predicted_us = -1);

// Only the buffer rows of format_step: each rank's buffers after `step`
// ("    R0  accum (A) [8, 10, 12]  ...", one row per rank), or "" when the
// trace recorded no buffers. Shows the state a question asks about before the step itself
// is printed.
std::string format_buffers(const Schedule& s, const Trace& t, int step, const PrintOptions& o = {});

// Header + inputs, then every step, then the final outputs.
std::string format_walkthrough(const Schedule& s, const RankData& inputs, const RunResult& r,
                               const std::vector<double>& predicted_step_us = {}, const PrintOptions& o = {});

// Input rows "  R0 [1, 2, 3]" for every rank (ranks without input: "none").
std::string format_inputs(const CollectiveSpec& sp, const RankData& inputs, const PrintOptions& o = {});

// Output rows "  R0 [12, 15, 18]" for every rank (ranks without output: "none").
std::string format_outputs(const Schedule& s, const RankData& outputs, const PrintOptions& o = {});

}  // namespace microddp
