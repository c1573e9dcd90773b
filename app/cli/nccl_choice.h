// `microddp predict --nccl-system NAME`: what NCCL's own tuner
// (core/model/nccl_tuner.h, NCCL 2.30.7 tuning.cc constants) would choose
// on a named system, per size, in NCCL's INFO line shape, labelled as that
// and not as microddp's textbook α-β choice (`--algorithm auto`).
//
// The option is named --nccl-system, not --nccl: it takes a system (the
// model needs one: GPUs, NVLink, NVSwitch, NICs), and `--backend nccl`
// already means running the real NCCL.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace microddp::cli {

struct NcclChoiceArgs {
  std::string system;   // empty: not asked for
  std::string profile;  // a profile `microddp fit --model tuner` wrote: its fitted system (system is then empty)
};

// True when `path` is a profile of the tuner fitted to published tables
// (core/model/nccl_system_fit.h); throws UsageError when it is one with a
// bad field.
bool is_tuner_fit_profile(const std::string& path);

// Adds --nccl-system to predict's options.
void add_nccl_choice_options(CLI::App* sub, NcclChoiceArgs& a);

// predict's own options, as given, that the tuner reads.
struct NcclPredictInputs {
  std::string collective;
  int ranks = 0;
  bool ranks_given = false;
  std::string bytes;
  bool bytes_given = false;  // one size, with every candidate's terms
  std::string min_bytes, max_bytes;
  double factor = 2;
  // predict options that mean another model (--preset, --topology, --json, ...)
  // given on this command line: refused by name.
  std::vector<std::string> conflicting;
  // How the tuner was asked for, as refusals name it: "--nccl-system NAME", or
  // "--topology NAME --algorithm auto" (a named system's auto is NCCL's choice).
  std::string asked_as;
  // --against FILE: the published nccl-tests rows beside NCCL's choice per
  // row's size (the file gives the collective, ranks and nodes).
  std::string against;
  bool collective_given = false, json = false;
  std::string dtype = "float32";  // the element type: the table's least step (one element per rank)
  bool min_given = false;         // -b given (else a table starts at one element per rank)
  int root = 0;                   // --root, checked against the system's ranks
};

// True when `name` is one of the tuner's named systems (dgx-a100, dgx-h100, ...).
bool nccl_system_known(const std::string& name);
// The tuner's system names, "dgx-a100, dgx-a100-2node, ...".
std::string nccl_system_names();

// Prints NCCL's choice per size (-b..-e by -f), or at --bytes with every
// candidate's terms; MICRODDP_DEBUG=INFO logs the same lines (subsystem
// TUNING). Throws UsageError for a bad system, size, rank count or a
// conflicting option.
int run_nccl_choice(const NcclChoiceArgs& a, const NcclPredictInputs& in);

}  // namespace microddp::cli
