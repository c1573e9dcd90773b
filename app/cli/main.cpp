#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "app/cli/commands.h"
#include "app/cli/parse_error.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/ir/types.h"

namespace microddp::cli {
namespace {

// Every command, in the order `microddp --help` lists them.
const Command kCommands[] = {
    {"run", "plan, check and run one collective for real; print what moved", setup_run},
    {"predict", "alpha-beta prediction of a collective: α, β, γ terms and total", setup_predict},
    {"bench", "nccl-tests-style benchmark with the prediction beside each measurement", setup_bench},
    {"fit", "fit NCCL's tuner (by default; --model alpha-beta: an α-β line) to published nccl-tests tables of one system; write a profile", setup_fit},
    {"calibrate", "measure this machine's α, β, γ, δ, b(n), w(n), B(k), and its cache curve with ε and φ (--quick: no curve); write a profile", setup_calibrate},
    {"lesson", "follow a lesson script: real runs, step tables, questions, checks", setup_lesson},
    {"ddp", "data-parallel training for real: gradient buckets overlapping backward (DDP), or --sharded (FSDP-style)", setup_ddp},
    {"hang-lab", "inject a fault (skip-collective, wrong-count, wrong-order, sleep) and find it with a monitored barrier", setup_hang_lab},
    {"doctor", "sanity check: all-reduce of ones gives the world size; backends and devices found", setup_doctor},
    {"cluster", "emulated multi-node cluster on this machine (namespaces, tbf-shaped NICs): run a subcommand on it under mpirun", setup_cluster},
};

}  // namespace

std::vector<std::function<void()>>& before_mpi_starts() {
  static std::vector<std::function<void()>> hooks;
  return hooks;
}

SetupCommand find_command_setup(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return c.setup;
  return nullptr;
}

}  // namespace microddp::cli

// Under mpirun every exit must reach the job: a rank that exits without
// starting MPI leaves the others waiting in MPI_Init, and one that exits
// alone leaves them waiting for it. So, when mpirun started this process,
// main starts MPI right after parsing (the commands' before_mpi_starts
// hooks first: bench's --mpi-algorithm is an MCA parameter), and every
// early exit (help, a parse or usage error, any error) goes through
// mpi_leave_job, which aborts the job with the same exit code. An error
// that every rank raised together (MpiJobUsageError: the ranks disagree)
// ends each rank normally instead.
int main(int argc, char** argv) {
  using namespace microddp;
  const bool launched = mpi_launched();
  CLI::App app{"microddp: collective communication, run for real, step by step"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::function<int()>>> runs;
  for (const cli::Command& c : cli::kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runs.emplace_back(sub, c.setup(sub));
  }
  // Leaves with `code`: the message (if any) printed, the job told.
  auto leave = [&](int code, const std::string& error) {
    if (launched) mpi_leave_job(error, code);
    if (!error.empty()) std::fprintf(stderr, "%s\n", error.c_str());
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return leave(app.exit(e), "");
  } catch (const CLI::CallForAllHelp& e) {
    return leave(app.exit(e), "");
  } catch (const CLI::Success& e) {
    return leave(app.exit(e), "");
  } catch (const CLI::ParseError& e) {
    return leave(2, cli::parse_error_line(e.what()));
  }
  try {
    if (launched) {
      for (const auto& hook : cli::before_mpi_starts()) hook();
      mpi_init_once();
    }
    for (auto& [sub, fn] : runs)
      if (sub->parsed()) return fn();
  } catch (const MpiJobUsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    return leave(2, fmt::format("error: {}", e.what()));
  } catch (const std::exception& e) {
    return leave(1, fmt::format("error: {}", e.what()));
  }
  return 0;
}
