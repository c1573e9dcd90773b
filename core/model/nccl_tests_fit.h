// Published nccl-tests rows beside the model, and an α-β fit to them
// (`microddp fit`, `predict --against`, `bench --against`).
//
// The fit (fit_published) is the textbook α-β model fitted through one of
// microddp's schedules (default the ring) on the table's world size and
// nodes, with ONE link class: every message costs α + m·β whether it stays
// in a node or crosses nodes. It is not NCCL's tuning model (protocols,
// channels, NVLS): the two numbers it finds are effective ones, and
// fitted_network prices with exactly the network `predict --profile`
// builds from the profile it writes (topology_model.h network_from_profile
// with intra = inter = the fitted link, one NIC per node), so predict on the
// fitted table gives back the fit's own residuals.
//  - a = the schedule's α coefficient (its lockstep time at α = 1 s, β = 0:
//    the messages on its critical path, 2(n-1) for the ring all-reduce),
//    b(S) = its β coefficient at size S (its time at α = 0, β = 1 s/B: the
//    bytes on the critical path, 2(n-1)/n·S for the ring all-reduce).
//  - α rows: the out-of-place rows of at most small_max_bytes (the floor);
//    β rows: those of at least large_min_bytes, else the two largest sizes.
//  - α0 = median(t)/a over the α rows; β = median((t - a·α0)/b(S)) over the
//    β rows; then α = median((t - b(S)·β)/a) over the α rows. Medians, not
//    least squares: one outlier row (a 94 µs spike at 256 B) moves nothing.
//  - reductions (γ) are folded into β (the published times include them).
// Errors: UsageError when the tables are not one system (ranks, nodes, GPU,
// collective), name no ranks, have no model collective (sendrecv), no row of
// at most small_max_bytes (α cannot be fitted: the message says to run the
// tool from -b 8), or no present out-of-place row of at least 1 byte.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/nccl_tests.h"
#include "core/model/topology_model.h"

namespace microddp {

// One published row beside a prediction (out-of-place columns).
struct RowComparison {
  int64_t bytes = 0;
  double published_us = 0, predicted_us = 0;
  double error_pct = 0;  // (predicted - published) / published · 100
  double published_busbw_GBps = 0, predicted_busbw_GBps = 0;
};

// Size ranges of the residual report: "<= 4 KiB", "4 KiB..1 MiB",
// "1 MiB..512 MiB", ">= 512 MiB" (lo exclusive, hi inclusive, but the last
// range starts at 512 MiB inclusive); a range with no rows is left out.
struct RangeError {
  std::string name;
  int rows = 0;
  double median_abs_error_pct = 0;
};
std::vector<RangeError> error_by_range(const std::vector<RowComparison>& rows);
double median_abs_error_pct(const std::vector<RowComparison>& rows);  // 0 for no rows

// The rows of `t` whose out-of-place time is present and size >= 1 B,
// predicted by `predict_s(bytes)` (seconds); busbw with nccl-tests' factor
// for the table's collective and world size (the published column's).
std::vector<RowComparison> compare_rows(const NcclTestsTable& t, int world_size,
                                        const std::function<double(int64_t)>& predict_s);

// The model's time (lockstep, s) of `algorithm` for collective c on the
// network, `bytes` as nccl-tests counts them, elements of `dtype`.
double model_time_s(const Network& net, Collective c, const std::string& algorithm, int64_t bytes, DType dtype);

// The dtype of an nccl-tests "type" column: float -> float32, half ->
// float16, double -> float64, int -> int32, bfloat16, int8 ... as named;
// an unknown name -> float32.
DType nccl_tests_dtype(const std::string& type);

// The network of `ranks` ranks on `nodes` nodes (contiguous), one link class
// (α, bandwidth) inside and between nodes, one NIC per node.
Network fitted_network(int ranks, int nodes, double alpha_s, double bandwidth_Bps);

// The checks every fit makes on its tables (UsageError naming the file):
// rank lines present, a named tool with a model collective, one system
// (world size, nodes, GPU, collective) and the same ranks on every node.
void check_one_system(const std::vector<NcclTestsTable>& tables);

struct PublishedFit {
  Collective collective = Collective::all_reduce;
  std::string collective_name, algorithm, gpu;
  int ranks = 0, nodes = 0;
  double alpha_s = 0, bandwidth_Bps = 0;
  double alpha_messages = 0;  // a
  std::vector<int64_t> alpha_rows, beta_rows;  // sizes used (bytes)
  bool beta_fallback = false;                  // no row >= large_min_bytes: the two largest sizes
  std::vector<std::string> sources;            // the files
  std::vector<std::vector<RowComparison>> residuals;  // per table, the fitted model beside its rows
};
struct PublishedFitOptions {
  std::string algorithm = "ring";
  int64_t small_max_bytes = 4096;
  int64_t large_min_bytes = int64_t{512} << 20;
};
PublishedFit fit_published(const std::vector<NcclTestsTable>& tables, const PublishedFitOptions& o = {});

// Writes the fit as a profile (calibrate.h write_profile + its "topology"
// object: nodes, ranks_per_node, one NIC, intra = inter = the fitted link),
// backend "fit", plus "source": [the files] and "fit": {"model": "alpha-beta",
// "algorithm", "collective", "gpu", "alpha_rows_bytes", "beta_rows_bytes"}.
// Throws std::runtime_error naming the path when it cannot be written.
void write_fit_profile(const std::string& path, const PublishedFit& f);

// The rows both fits fall back to for the bandwidth when no row reaches
// their large-message size: the rows of the two largest sizes in the table
// (the only size's rows when there is one). P has an int64_t `bytes`.
template <class P>
std::vector<P> rows_of_two_largest_sizes(const std::vector<P>& pts) {
  std::vector<int64_t> sizes;
  for (const P& p : pts) sizes.push_back(p.bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<P> out;
  if (sizes.empty()) return out;
  const int64_t from = sizes[sizes.size() >= 2 ? sizes.size() - 2 : 0];
  for (const P& p : pts)
    if (p.bytes >= from) out.push_back(p);
  return out;
}

}  // namespace microddp
