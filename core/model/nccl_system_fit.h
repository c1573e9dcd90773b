// The NCCL-shaped tuner (nccl_tuner.h) fitted to published nccl-tests
// tables of one system (`microddp fit`, its default model): NCCL's own cost
// model on the closest named system, plus the two system constants NCCL
// does not have (SystemDesc::launch_us and bw_scale), fitted to the tables.
// `predict --profile PROFILE --against ANOTHER_TABLE` then prices with the
// tuner on that system: NCCL's choice per size, its protocols and channels,
// where the α-β fit (nccl_tests_fit.h) has one straight line in S.
//
// The fit, on the base system with the tables' ranks (with_ranks), launch 0
// and scale 1 to start:
//  - bw rows: the out-of-place rows of at least large_min_bytes (512 MiB),
//    else the two largest sizes; no row of at least bw_min_bytes (64 MiB):
//    refused (below it every size is latency-bound, and a scale fitted there
//    is off by tens of percent, or a factor of 1000, at 1 GiB). bw_scale = median over them of
//    (the chosen candidate's bytes term) / (published − its latency), three
//    times over (the choice may move with the scale);
//  - launch rows: the out-of-place rows of at most small_max_bytes (4 KiB).
//    launch_us = max(0, median of (published − tuner time)); no such row:
//    0, not fitted (launch_fitted false);
//  - then bw_scale once more with the launch in the latency.
// Medians, not least squares: one spiking row (94 µs at 256 B) moves
// nothing. Deterministic: the same tables give the same two numbers, which
// is how the shipped fitted systems' constants (nccl_tuning_table.h
// fitted_table()) are checked against their tables in the tests.
//
// Errors (UsageError, naming the file or the value): those of
// check_one_system (nccl_tests_fit.h); a collective the tuner lacks; a GPU
// that matches no named system when no base is given; ranks per node other
// than the base system's; no row of at least bw_min_bytes; no row whose
// published time exceeds the tuner's latency among the bw rows.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/model/nccl_tests.h"
#include "core/model/nccl_tests_fit.h"
#include "core/model/nccl_tuner.h"

namespace microddp::nccl {

// The named system whose hardware the GPU of a table's rank lines names:
// "H200" -> hgx-h200, "H100" -> dgx-h100, "A100" with "PCIe" -> pcie-a100,
// other "A100" -> dgx-a100; "" when none matches (GH200, V100, ...).
std::string system_for_gpu(const std::string& gpu);

struct SystemFitOptions {
  std::string base;  // a named system; "" = system_for_gpu(the tables' GPU)
  int64_t small_max_bytes = 4096;
  int64_t large_min_bytes = int64_t{512} << 20;
  int64_t bw_min_bytes = int64_t{64} << 20;  // the largest row must reach it
};

struct SystemFit {
  SystemDesc system;  // the base with the tables' ranks, launch_us and bw_scale set
  std::string base;   // the named system fitted from
  Collective collective = Collective::all_reduce;
  std::string collective_name, gpu;
  int ranks = 0, nodes = 0;
  bool launch_fitted = false;  // a row of at most small_max_bytes existed
  bool bw_fallback = false;    // no row of at least large_min_bytes: the two largest sizes
  std::vector<int64_t> launch_rows, bw_rows;  // sizes used (bytes)
  std::vector<std::string> sources;
  std::vector<std::vector<RowComparison>> residuals;  // per table, the fitted tuner beside its rows
};

SystemFit fit_system(const std::vector<NcclTestsTable>& tables, const SystemFitOptions& o = {});

// The published rows of `t` beside the tuner's time of NCCL's choice on `s`
// with the table's ranks (out-of-place rows, as compare_rows).
std::vector<RowComparison> compare_tuner(const NcclTestsTable& t, Collective c, const SystemDesc& s);

// Writes the fit as a profile: {"backend": "fit", "source": [files],
// "fit": {"model": "nccl-tuner", "system", "collective", "gpu", "ranks",
// "nodes", "launch_us", "bw_scale", "launch_rows_bytes", "bw_rows_bytes"}}.
// It has no alpha_s: run and bench refuse it as a calibrated profile.
// Throws std::runtime_error naming the path when it cannot be written.
void write_system_fit_profile(const std::string& path, const SystemFit& f);

// The fitted system a profile holds: nullopt when the file is not a tuner
// fit (no "fit" object with model "nccl-tuner", or not readable as JSON:
// the caller's own profile reader names that); UsageError naming the path
// and field when it is one but a field is missing or out of range
// (launch_us >= 0, bw_scale > 0, a known system, nodes >= 1).
std::optional<SystemDesc> load_system_fit_profile(const std::string& path);

}  // namespace microddp::nccl
