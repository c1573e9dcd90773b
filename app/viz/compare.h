// Compare view model: several algorithms of one collective on the same input,
// stepping together, plus a quick size sweep (measured on the threads
// backend, predicted by the cost model when it is available). No ImGui.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/viz/session.h"

namespace microddp::viz {

struct SweepCurve {
  std::string algorithm;
  std::vector<double> bytes;         // message size S (nccl-tests' size), bytes
  std::vector<double> measured_us;   // free-running wall time, best of the repetitions
  std::vector<double> predicted_us;  // empty when the cost model is not available
  std::vector<int64_t> counts;       // elements per rank of each point (re-pricing)
};

struct Compare {
  RunParams base;                          // the shared parameters
  std::vector<std::string> algorithms;     // columns, in order
  std::vector<std::unique_ptr<Session>> sessions;  // one per column (null when refused)
  std::vector<std::string> errors;         // per column: why it was refused
  int position = 0;                        // common step position
  std::vector<SweepCurve> sweep;
  std::string crossover;                   // e.g. "ring is fastest from 64 KiB on"
  PredictionSource source;                 // what every column's prediction is based on

  // Default columns for a collective: naive, tree, ring when offered, else
  // the first three algorithms.
  static std::vector<std::string> default_algorithms(Collective c);
  void configure(const RunParams& p, const std::vector<std::string>& algs);
  // Re-prices every column and the sweep's predicted lines (the measured
  // points stay).
  void set_source(const PredictionSource& src);
  int max_steps() const;
  void step();
  void back();
  void reset();
  // Sizes 2^lo .. 2^hi elements (every other power); `reps` runs per size.
  void run_sweep(int lo = 4, int hi = 16, int reps = 3);
};

std::string human_bytes(double b);

}  // namespace microddp::viz
