// An iteration's per-rank records and their summary into the Result
// (internal to core/labs/ddp; apart from train.h so that tests can build
// records without the model's Eigen).
#pragma once
#include <vector>

#include "core/labs/ddp/ddp.h"

namespace microddp::ddp::detail {

// Per-rank record of one iteration.
struct RankRecord {
  std::vector<LayerSpan> layers;
  std::vector<BucketFill> fills;
  std::vector<WaitSpan> waits;
  double backward_end_ms = 0, end_ms = 0;
  float loss = 0;
};

// Merges the ranks' records of one iteration into res (see train.cpp).
void summarize_iteration(const Options& o, const std::vector<RankRecord>& rec, std::vector<CommSpan> comm, int calls,
                         bool after_backward, Result& res);

}  // namespace microddp::ddp::detail
