#include "core/algorithms/alternatives.h"

#include "core/algorithms/registry.h"

namespace microddp {

std::vector<Schedule> other_algorithm_schedules(const CollectiveSpec& spec) {
  std::vector<Schedule> out;
  for (const std::string& alg : algorithms_for(spec.collective)) {
    if (alg == spec.algorithm) continue;
    CollectiveSpec s = spec;
    s.algorithm = alg;
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        out.push_back(make_schedule(s));
        break;
      } catch (const UsageError&) {
        s.segments = 1;
        s.nodes = 1;
      }
    }
  }
  return out;
}

}  // namespace microddp
