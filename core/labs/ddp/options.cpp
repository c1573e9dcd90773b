// DDP options: overlap mode names and validation (see ddp.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/algorithms/registry.h"
#include "core/ir/limits.h"
#include "core/ir/schedule.h"
#include "core/ir/types.h"
#include "core/labs/ddp/ddp.h"

namespace microddp::ddp {

std::string_view name(Overlap o) {
  switch (o) {
    case Overlap::none: return "none";
    case Overlap::per_param: return "per-param";
    case Overlap::bucketed: return "bucketed";
  }
  return "?";
}

Overlap parse_overlap(std::string_view s) {
  if (s == "none") return Overlap::none;
  if (s == "per-param" || s == "per_param") return Overlap::per_param;
  if (s == "bucketed") return Overlap::bucketed;
  throw UsageError(fmt::format("unknown overlap mode '{}' (none, per-param, bucketed)", s));
}

void Options::validate() const {
  if (ranks < 1 || ranks > 64) throw UsageError(fmt::format("ranks {}: must be in 1..64", ranks));
  if (depth < 1 || depth > 256) throw UsageError(fmt::format("depth {}: must be in 1..256", depth));
  // Every rank holds the parameters, gradients and buckets: width^2 * depth
  // floats several times over. 4096 keeps one replica of 8 layers at 512 MiB.
  if (width < 1 || width > 4096) throw UsageError(fmt::format("width {}: must be in 1..4096", width));
  if (batch < 1) throw UsageError(fmt::format("batch {}: must be >= 1", batch));
  if (batch % ranks != 0)
    throw UsageError(fmt::format("batch {} is not divisible by {} ranks (every rank gets batch / ranks samples)",
                                 batch, ranks));
  if (iterations < 1) throw UsageError(fmt::format("iterations {}: must be >= 1", iterations));
  if (warmup < 0 || warmup > 10) throw UsageError(fmt::format("warmup {}: must be in 0..10", warmup));
  // Written so that NaN fails every test: an infinite or NaN learning rate
  // trains on NaN from the first step.
  if (!(lr > 0 && std::isfinite(lr))) throw UsageError(fmt::format("lr {}: must be a positive finite number", lr));
  if (!(bucket_cap_mb > 0 && std::isfinite(bucket_cap_mb)))
    throw UsageError(fmt::format("bucket cap {} MB: must be a positive finite number", bucket_cap_mb));
  if (!(layer_delay_us >= 0 && layer_delay_us <= 1e6))
    throw UsageError(fmt::format("layer delay {} us: must be in 0..1000000", layer_delay_us));
  if (!(link_us_per_mb >= 0 && link_us_per_mb <= 1e6))
    throw UsageError(fmt::format("link delay {} us per MB: must be in 0..1000000", link_us_per_mb));
  const auto& algs = algorithms_for(Collective::all_reduce);
  if (std::find(algs.begin(), algs.end(), algorithm) == algs.end()) {
    std::string list;
    for (const auto& a : algs) list += (list.empty() ? "" : ", ") + a;
    throw UsageError(fmt::format("unknown all_reduce algorithm '{}' ({})", algorithm, list));
  }
  check_memory(buffer_bytes(), fmt::format("ddp with {} ranks, depth {}, width {}, batch {}", ranks, depth, width,
                                           batch));
}

double Options::buffer_bytes() const {
  // Per rank: parameters, gradients, the gradient buckets and the
  // collective's copies of them (about 4 copies of the model); the
  // single-process reference: 3 more; activations and their gradients for
  // every sample of the batch at every layer's input, twice; the data.
  const double f = sizeof(float), w = width, d = depth, b = static_cast<double>(batch);
  const double model = d * (w * w + w) * f;
  return (4.0 * ranks + 3) * model + 2 * 2 * b * w * (d + 1) * f + 2 * b * w * f;
}

SleepEstimate min_sleep_time(const Options& o) {
  SleepEstimate e;
  const double iters = o.iterations;
  e.compute_s = iters * 2.0 * o.depth * o.layer_delay_us * 1e-6;
  const double w = o.width, layer_elems = w * w + w, mb = 1024.0 * 1024.0;
  if (o.sharded) {
    // Rank 0's all-gather input is its block (even_chunks gives it the
    // larger share); the reduce-scatter's is the layer's full gradient.
    const std::vector<int64_t> offs = even_chunks(static_cast<int64_t>(layer_elems), std::max(o.ranks, 1));
    const double block = static_cast<double>(offs[1] - offs[0]);
    e.link_mb_per_iteration = o.depth * (2.0 * block + layer_elems) * sizeof(float) / mb;
  } else {
    e.link_mb_per_iteration = o.depth * layer_elems * sizeof(float) / mb;
  }
  e.link_s = iters * o.link_us_per_mb * e.link_mb_per_iteration * 1e-6;
  return e;
}

std::string SleepEstimate::str(const Options& o, const Names& n) const {
  if (compute_s >= link_s)
    return fmt::format("{} {} × 2 passes × {} {} × {} {} = {:.0f} s", n.iterations, o.iterations, n.depth, o.depth,
                       n.layer_delay_us, o.layer_delay_us, compute_s);
  return fmt::format("{} {} × {} {} × {:.3g} MB of collectives per iteration = {:.0f} s", n.iterations, o.iterations,
                     n.link_us_per_mb, o.link_us_per_mb, link_mb_per_iteration, link_s);
}

}  // namespace microddp::ddp
