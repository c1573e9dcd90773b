// Adapter between the viewer and the alpha-beta cost model
// (core/model/cost_model.h). The viewer asks only for per-step predicted times; when no cost
// model is available the answer is empty and the panels print "n/a".
#pragma once
#include <string>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp::viz {

struct Prediction {
  bool available = false;
  std::vector<double> step_us;  // predicted time of each step, MICROSECONDS
  double total_us = 0;          // lockstep total (sum of the steps)
  std::string source;           // e.g. the profile or preset used; or why n/a
};

Prediction predict(const Schedule& s);

}  // namespace microddp::viz
