// Shared by the cost model's tests (test_cost_model.cpp, test_cost_terms.cpp):
// spec() builds a CollectiveSpec; lit() the literature's α, β, γ as distinct
// powers of two, so that no two terms can compensate each other.
#pragma once

#include <cstdint>
#include <string>

#include "core/ir/spec.h"
#include "core/model/cost_model.h"

namespace microddp::cost_test {

inline CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, int segments = 1) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.segments = segments;
  return s;
}
inline CostParams lit() {  // distinct powers of two so that terms cannot compensate each other
  CostParams p;
  p.alpha = 1.0 / 1024;
  p.beta = 1.0 / (1 << 20);
  p.gamma = 1.0 / (1 << 22);
  return p;
}

}  // namespace microddp::cost_test
