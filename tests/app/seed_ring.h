// The seed notes' example as the window runs it: the 3-rank double-buffered
// ring all-reduce, ranks holding [1,2,3], [4,5,6], [7,8,9] (every rank ends
// with [12,15,18]). Shared by the app test files.
#pragma once
#include "app/viz/session.h"

namespace microddp::viz::test {

inline RunParams seed_ring() {
  RunParams p;
  p.spec.algorithm = "ring_unchunked";
  p.spec.world_size = 3;
  p.spec.count = 3;
  p.data = "1,2,3;4,5,6;7,8,9";
  return p;
}

}  // namespace microddp::viz::test
