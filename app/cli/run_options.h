// Options shared by `microddp run`, the app and the lessons: they describe
// one run (spec + data + backend + mode). add_run_options registers them on
// a CLI11 (sub)command; build_run turns them into a checked Schedule and the
// input data, throwing UsageError naming any bad value.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"

namespace microddp::cli {

struct RunArgs {
  std::string collective = "all_reduce", algorithm = "ring", dtype = "float32", op = "sum";
  int ranks = 3;
  // As typed (parse_count_text checks them); unset: --count from --data,
  // else 8.
  std::optional<std::string> count;
  std::optional<std::string> counts;  // "a,b,c"
  int root = 0;
  bool in_place = false;
  int segments = 1;
  std::string data, input_file, fill;
  std::string backend = "threads", mode = "lockstep";
  bool data_given = false;  // --data was on the command line (possibly empty)
};

void add_run_options(CLI::App& app, RunArgs& a);

struct PreparedRun {
  CollectiveSpec spec;
  Schedule schedule;
  RankData inputs;
  Mode mode;
};
// Parses names, sizes and data; builds and symbolically checks the schedule.
PreparedRun prepare_run(const RunArgs& a);

}  // namespace microddp::cli
