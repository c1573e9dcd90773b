// Options shared by `microddp run`, the app and the lessons: they describe
// one run (spec + data + backend + mode). add_run_options registers them on
// a CLI11 (sub)command; build_run turns them into a checked Schedule and the
// input data, throwing UsageError naming any bad value.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/model/protocol_model.h"
#include "core/model/topology_model.h"

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
  std::string protocol = "simple";  // simple | ll | ll128 | auto (core/ir/protocol.h)
  bool data_given = false;  // --data was on the command line (possibly empty)
  // Placement (core/ir/topology.h) and, for --algorithm auto, the network
  // to price the candidates on (--inter switches the two-level model on).
  int nodes = 1, nics = 1;
  std::string intra, inter;
};

void add_run_options(CLI::App& app, RunArgs& a);
// --protocol's value (not auto) -> Protocol; UsageError "--protocol 'X' is
// unknown (expected one of: simple, ll, ll128, auto)".
Protocol parse_protocol_arg(const std::string& text);

// The options given to `app` (a parsed subcommand), as typed: (long name
// such as "--data", its values joined by ","; "" for a flag), in the order
// the command registered them. An MPI job's ranks compare these
// (mpi_agree_on_options) so that a rank given other options is named,
// option and all, before anything runs.
std::vector<std::pair<std::string, std::string>> given_options(const CLI::App& app);

struct PreparedRun {
  CollectiveSpec spec;
  Schedule schedule;
  RankData inputs;
  Mode mode;
  // --algorithm auto: what was chosen, on which model (spec.algorithm is
  // the chosen one).
  std::optional<AutoChoice> auto_choice;
  std::string auto_model;
  // --protocol: the protocol the run uses; with auto, what was chosen on
  // which model (core/model/protocol_model.h choose_protocol).
  Protocol protocol = Protocol::simple;
  std::optional<ProtocolChoice> protocol_choice;
  std::string protocol_model;
};
// Parses names, sizes and data; builds and symbolically checks the schedule.
// `model` prices --algorithm auto's candidates (a profile or preset the
// command resolved); without it and without --inter, the nvlink preset.
PreparedRun prepare_run(const RunArgs& a, const std::optional<CostParams>& model = std::nullopt);

}  // namespace microddp::cli
