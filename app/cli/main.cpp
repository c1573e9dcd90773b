#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "app/cli/commands.h"
#include "app/cli/parse_error.h"
#include "core/ir/types.h"

namespace microddp::cli {
namespace {

// Every command, in the order `microddp --help` lists them.
const Command kCommands[] = {
    {"run", "plan, check and run one collective for real; print what moved", setup_run},
    {"predict", "alpha-beta prediction of a collective: α, β, γ terms and total", setup_predict},
    {"bench", "nccl-tests-style benchmark with the prediction beside each measurement", setup_bench},
    {"calibrate", "measure α, β, γ on this machine and write a profile", setup_calibrate},
    {"lesson", "follow a lesson script: real runs, step tables, questions, checks", setup_lesson},
    {"ddp", "data-parallel training for real: gradient buckets overlapping backward (DDP), or --sharded (FSDP-style)", setup_ddp},
    {"hang-lab", "inject a fault (skip-collective, wrong-count, wrong-order, sleep) and find it with a monitored barrier", setup_hang_lab},
    {"doctor", "sanity check: all-reduce of ones gives the world size; backends and devices found", setup_doctor},
    {"cluster", "emulated multi-node cluster on this machine (namespaces, tbf-shaped NICs): run a subcommand on it under mpirun", setup_cluster},
};

}  // namespace
}  // namespace microddp::cli

int main(int argc, char** argv) {
  using namespace microddp;
  CLI::App app{"microddp: collective communication, run for real, step by step"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::function<int()>>> runs;
  for (const cli::Command& c : cli::kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runs.emplace_back(sub, c.setup(sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", cli::parse_error_line(e.what()).c_str());
    return 2;
  }
  try {
    for (auto& [sub, fn] : runs)
      if (sub->parsed()) return fn();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
