// nccl-tests output, read back: the tables the `*_perf` tools of
// NVIDIA/nccl-tests print (src/common.cu: the "# nThread" header, one
// "#  Rank  r Group g Pid p on HOST device d [PCI] GPU MODEL" line per GPU,
// the "NCCL version" line, the column headers, one row per size, the
// "# Avg bus bandwidth" trailer), as people paste them into issues and
// pages. Used by `microddp fit` and by `predict` / `bench --against`.
//
// What is accepted (one table per file):
//  - any tool: all_reduce, all_gather, reduce_scatter, broadcast, reduce,
//    alltoall, sendrecv (gather, scatter, hypercube are read too, and have
//    no model collective);
//  - `-g N` runs (one process, N rank lines with one Pid) and MPI runs
//    (one rank line per process, hosts named; old versions whose processes
//    each print their own header and rank lines: every rank line counts);
//  - the column sets: size count type [redop] [root], then per placement
//    (out-of-place, and in-place when printed) time algbw busbw [#wrong |
//    error] -- the newest (2.x: redop root #wrong), older ones (no root,
//    "error" values such as 0e+00), and `-c 0` (#wrong printed "N/A");
//  - "N/A" in a placement's fields (alltoall / sendrecv print it for the
//    in-place #wrong; a time of N/A leaves that placement absent);
//  - header lines with or without the leading '#', lines of other programs
//    in between (NCCL INFO, MPI help messages, the command line, markdown
//    blank lines), and mpirun --tag-output prefixes "[1,0]<stdout>:".
// Units: bytes and counts as printed (count in elements), time in µs,
// algbw and busbw in GB/s (1e9 B/s), as nccl-tests prints them.
// Errors: UsageError naming "FILE:LINE" and what was expected, for an empty
// file, a file without a column header, a data row before the header, a
// row with too few or too many fields (a truncated paste), a field that is
// not a number where one is needed, a header with no rows after it, a
// second table after rows, a second row of one size (type, redop and root
// alike: a table pasted twice), a rank line printed twice (same rank, Pid
// and host: the block pasted twice), ranks a node holds that are not
// contiguous in the rank lines or not the same count on every node (the
// model places ranks contiguously, ranks/nodes per node: such a file is
// refused where the placement is modelled, RankPlacement below), a
// negative or fractional size, a time of 0 (a placement's time is above
// 0 us or N/A), a type nccl-tests does not name
// (int8 ... f8e5m2, old char/int), a count that is neither size / the
// type's size nor that / the ranks (all_gather, reduce_scatter and alltoall
// print a rank's count), and a --collective that contradicts the tool the
// file names.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/types.h"

namespace microddp {

struct NcclTestsRank {
  int line = 0;      // 1-based line of the file
  int rank = 0;      // as printed
  std::string host;  // "on HOST"
  int device = 0;
  std::string gpu;  // the model, e.g. "NVIDIA H100 80GB HBM3"
};

// One placement (out-of-place or in-place) of a row.
struct NcclTestsPlacement {
  bool present = false;  // false: not printed, or its time is N/A
  double time_us = 0, algbw_GBps = 0, busbw_GBps = 0;
  double wrong = -1;  // the #wrong (or old "error") value; -1 = N/A or no such column
  // nccl-tests counted wrong elements in this placement: a "#wrong" (or
  // "wrong") column above 0. An old "error" column is the largest deviation
  // from the expected result, which a float reduction may have without
  // being wrong: it flags nothing.
  bool flagged_wrong = false;
};

struct NcclTestsRow {
  int line = 0;
  int64_t bytes = 0, count = 0;  // size (B), count (elements)
  std::string type, redop;       // redop "" when the column set has none
  int root = -1;                 // -1: no root (or no root column)
  NcclTestsPlacement out_of_place, in_place;
  // The out-of-place columns hold a time to compare with or fit to: printed
  // (not N/A), a size >= 1 B, and not flagged wrong (a time of 0 is refused
  // when read).
  bool out_of_place_usable() const {
    return out_of_place.present && bytes >= 1 && out_of_place.time_us > 0 && !out_of_place.flagged_wrong;
  }
};

struct NcclTestsTable {
  std::string path;
  std::string tool;        // "all_reduce_perf" when a line of the file names it, else ""
  std::string collective;  // nccl-tests' name without "_perf" ("all_reduce", "alltoall", "sendrecv"); "" = unknown
  std::string collective_from;  // "tool name" | "--collective" | "column set (root and redop)" | ""
  std::string nccl_version;     // "2.26.2+cuda12.8" from an "NCCL version" line, else ""
  double avg_busbw_GBps = -1;   // "# Avg bus bandwidth" (-1: not printed)
  int header_line = 0;
  bool has_redop = false, has_root = false, has_wrong = false, has_in_place = false;
  std::vector<NcclTestsRank> ranks;
  std::vector<NcclTestsRow> rows;
  // "" when the rank lines place ranks as microddp's model does (contiguous,
  // the same count on every node) or there are none; else why not, as
  // "FILE:LINE: ..." (round-robin or uneven placement). Only a model that
  // places ranks on nodes (a topology, a named multi-node system, a fit)
  // needs it empty: require_modelled_placement.
  std::string placement_problem;
  // Throws UsageError(placement_problem) when it is not empty.
  void require_modelled_placement() const;
  // The count column against `ranks` ranks known from elsewhere (a file
  // without rank lines, whose own check takes any whole multiple): each row's
  // count is size / the type's size, or that / ranks; else UsageError
  // "FILE:LINE: count is ... (expected ... / R ranks (FROM) ...)". from: where
  // the ranks come from, e.g. "--ranks".
  void check_counts(int ranks, const std::string& from) const;

  bool wrong_is_count = false;  // the column is "#wrong" (a count), not the old "error" (a deviation)
  int world_size() const { return static_cast<int>(ranks.size()); }  // 0 = the file prints no rank lines
  int nodes() const;              // distinct hosts (0 without rank lines)
  std::string gpu() const;        // the model of every rank, "A + B" when they differ, "" without rank lines
  // "16 ranks on 2 nodes of NVIDIA H100 80GB HBM3" (or "ranks not printed").
  std::string system_text() const;
  // The sizes of the rows whose out-of-place #wrong is above 0 (in file
  // order): left out of every comparison and fit.
  std::vector<int64_t> wrong_sizes() const;
};

// The collectives nccl-tests names (without "_perf").
const std::vector<std::string>& nccl_tests_collectives();

// microddp's collective for an nccl-tests one: alltoall -> all_to_all, the
// others by the same name; nullopt for sendrecv and hypercube (no such
// collective in the model) and for "".
std::optional<Collective> model_collective(const std::string& nccl_tests_name);

// What the reader does with rank lines that place ranks otherwise than the
// model (NcclTestsTable::placement_problem): refuse the file (the default,
// for a reader that models the placement), or record it for the caller to
// refuse where it uses the placement (predict and bench --against: a flat
// model has no nodes).
enum class RankPlacement { refuse_unmodelled, record };

// Parses `text` (the whole file; `path` names it in errors). collective:
// --collective as nccl-tests or microddp spells it ("all_to_all" is
// accepted for alltoall), "" = none. The table's collective is the tool the
// file names; else `collective`; else, from the column set, broadcast (a
// root >= 0 with redop "none") or reduce (a root >= 0 with a reduction);
// else "" (the caller asks for --collective).
NcclTestsTable parse_nccl_tests(std::string_view text, const std::string& path, const std::string& collective = "",
                                RankPlacement placement = RankPlacement::refuse_unmodelled);

// Reads the file at `path` (a regular file; UsageError naming it when it is
// missing, not a file or unreadable) and parses it.
NcclTestsTable load_nccl_tests(const std::string& path, const std::string& collective = "",
                               RankPlacement placement = RankPlacement::refuse_unmodelled);

}  // namespace microddp
