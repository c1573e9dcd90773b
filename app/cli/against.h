// --against FILE (predict, bench): a published nccl-tests table
// (core/model/nccl_tests.h) beside microddp's figures, row by row, with the
// error of each row and the median |error|; and `microddp fit` (cmd_fit.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/model/bench.h"
#include "core/model/nccl_tests_fit.h"

namespace microddp::cli {

// The table, checked against the command's own options:
//  - collective: the file's tool; else --collective when given (collective
//    as the command holds it; collective_given says whether the user typed
//    it); a --collective that contradicts the file is refused, and so is a
//    file that names none when --collective was not given;
//  - ranks: the file's rank lines; a --ranks that differs is refused; a
//    file without rank lines takes --ranks (which must then be given), and
//    its count column must agree with them (NcclTestsTable::check_counts);
//  - nodes: the file's hosts; a --nodes that differs is refused;
//  - placement: rank lines that place ranks otherwise than the model
//    (round-robin, uneven: NcclTestsTable::placement_problem) are refused
//    with --nodes; else the caller refuses them where its model places
//    ranks on nodes (require_modelled_placement), and print_against /
//    print_bench_against say in a line that the placement was not used.
//  - rows: a file with no usable out-of-place row (every row #wrong, N/A or
//    0 B) is refused: nothing to compare with.
// Throws UsageError naming the file (and the line, from the parser).
struct AgainstTable {
  NcclTestsTable table;
  Collective collective = Collective::all_reduce;
  int ranks = 0, nodes = 1;
};
AgainstTable load_against(const std::string& path, const std::string& collective, bool collective_given, int ranks,
                          bool ranks_given, int nodes);

// The published out-of-place rows beside `predict_s(bytes)` (seconds):
// text (a header naming the file and the model, one line per row with the
// error, the median |error| and the median per size range, then
// wrong_rows_line when rows were left out) or JSON (one object per row,
// then one summary object; "wrong_rows_left_out": the sizes left out).
// Rows flagged wrong are not compared (NcclTestsRow::out_of_place_usable).
// `kind` names what the predicted column is ("lockstep prediction" for
// microddp's schedules, the tuner's own words for --nccl-system).
void print_against(const AgainstTable& t, const std::string& model_text, const std::string& algorithm, bool json,
                   const std::function<double(int64_t)>& predict_s, const std::string& kind = "lockstep prediction");

// "" when no out-of-place row of t is flagged wrong; else one line (no
// newline): "FILE: left out 2 rows nccl-tests flags wrong (out-of-place
// #wrong above 0) from the error medians: 1 MiB (1048576 B), 2 MiB (...)".
// predict, bench --against and fit print it; the rows are left out of
// every comparison and fit (NcclTestsRow::out_of_place_usable).
std::string wrong_rows_line(const NcclTestsTable& t, const std::string& from = "the error medians");

// "" when t's rank placement is the model's; else one line (no newline):
// "note: this model has no nodes, so the file's rank placement is not used
// and the rows are compared: FILE:LINE: ...".
std::string placement_line(const NcclTestsTable& t);

// bench --against: the published rows whose size a bench row has, beside
// that row's measured and predicted times (error: predicted vs published;
// measured/published as a ratio); a line when no size matches. Reference
// rows (mpi, nccl) are left out.
void print_bench_against(const AgainstTable& t, const std::vector<BenchRow>& rows, bool json);

}  // namespace microddp::cli
