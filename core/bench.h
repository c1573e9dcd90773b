// The nccl-tests-shaped benchmark: for each message size and algorithm, run
// the collective for real (warm-up, then timed iterations), check the result,
// and put the cost model's prediction beside the measurement.
//
// Sizes follow nccl-tests: "size" is the larger of one rank's input and
// output buffers in BYTES (all_reduce: count·esize; all_gather: the whole
// gathered buffer; reduce_scatter: the whole input), count = size / esize.
// algbw = size / time, busbw = algbw × busbw_factor (core/cost_model.h);
// GB/s means 1e9 bytes per second.
//
// Timing (threads backend): one run_threads call per (size, algorithm) with
// warmup + iters iterations. Lockstep: the time of an iteration is taken
// between the ends of consecutive iterations' last steps (on_step marks), and
// the row reports the MEDIAN iteration (robust on a shared 2-core machine).
// Free-running: (wall(warmup + iters) - wall(warmup)) / iters over two calls.
//
// Buffer rotation (the OSU caveat): every (size, algorithm) call gets its
// own freshly allocated buffers and its own input set; iterations inside a
// call reuse them (the executor has no per-iteration rotation yet), so sizes
// that fit in cache are flattered. Sizes of a few MiB and above are not.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cost_model.h"
#include "core/trace.h"

namespace microddp {

struct BenchOptions {
  Collective collective = Collective::all_reduce;
  std::vector<std::string> algorithms = {"ring"};
  std::string backend = "threads";
  int world_size = 2;
  int64_t min_bytes = 4096, max_bytes = int64_t{64} << 20;
  int64_t factor = 2;  // multiply the size by this between rows (>= 2)
  int iters = 20, warmup = 5;
  ReduceOp op = ReduceOp::sum;
  DType dtype = DType::float32;
  int root = 0;
  bool check = false;   // verify outputs against core/reference.h
  bool record = false;  // record events (trace on) while timing
  Mode mode = Mode::lockstep;
  std::optional<CostParams> params;  // for the predicted column
};

struct BenchRow {
  Collective collective = Collective::all_reduce;
  std::string algorithm, backend;
  int world_size = 0;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = -1;  // -1 for collectives without a root
  Mode mode = Mode::lockstep;
  int64_t bytes = 0, count = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
  int64_t wrong = -1;  // -1 = not checked
  double predicted_us = -1, error_pct = 0;  // predicted < 0: no profile
};

// Parse "4K", "64M", "1G" (powers of 1024, as nccl-tests), "512", "1e9".
// Throws UsageError naming the text when it is negative, empty or malformed.
int64_t parse_size(const std::string& text);

// Validates options (UsageError naming the bad value: -b > -e, factor < 2,
// iters < 1, warmup < 0, world size < 1, unknown backend), then runs every
// row, calling on_row as each finishes.
void validate_bench(const BenchOptions& o);
std::vector<BenchRow> run_bench(const BenchOptions& o, const std::function<void(const BenchRow&)>& on_row = {});

// The spec bench runs for one row (count derived from bytes as above).
CollectiveSpec bench_spec(const BenchOptions& o, const std::string& algorithm, int64_t bytes);

// Text output: the header lines (start with '#'), one row, the footer
// (average busbw, number of wrong values).
std::string bench_table_header(const BenchOptions& o);
std::string bench_table_row(const BenchRow& r);
std::string bench_table_footer(const std::vector<BenchRow>& rows);
// One JSON object on one line with the documented keys.
std::string bench_json_row(const BenchRow& r);
std::string bench_csv_header();
std::string bench_csv_row(const BenchRow& r);

// Per algorithm and world size: median and maximum of |predicted -
// measured| / measured (in %) over the sizes, and the worst size.
struct BenchSummary {
  std::string algorithm;
  int world_size = 0;
  int rows = 0;
  double median_err_pct = 0, max_err_pct = 0;
  int64_t worst_bytes = 0;
};
std::vector<BenchSummary> summarize(const std::vector<BenchRow>& rows);
std::string bench_summary_text(const std::vector<BenchSummary>& s);

}  // namespace microddp
