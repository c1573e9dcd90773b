// The microddp command line: one file per subcommand (cmd_<name>.cpp), each
// defining a setup function declared here. main.cpp holds the one list of
// commands (kCommands: name, one-line help, setup): it creates each
// subcommand from it (so `microddp --help` lists them in that order, with
// that help), dispatches to the chosen one, and turns errors into
// "error: ..." with exit code 2.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace microddp::cli {

// Adds the subcommand's options to `sub` (created by main with the table's
// name and help) and returns the function to run when it was chosen (its
// return value is the exit code).
using SetupCommand = std::function<int()> (*)(CLI::App* sub);

struct Command {
  const char* name;
  const char* help;  // one line, shown by `microddp --help`
  SetupCommand setup;
};

// Under mpirun main starts MPI right after parsing, before the command
// runs. What must happen before MPI starts (an MCA parameter, as bench's
// --mpi-algorithm) goes here, from a command's setup: main calls each hook
// after parsing (a hook checks that its command was chosen) and may throw
// UsageError.
std::vector<std::function<void()>>& before_mpi_starts();

// The setup function of the command named `name` (kCommands, main.cpp);
// nullptr when there is none. `microddp cluster` parses a subcommand's
// arguments with it before it starts the lab (app/cli/lab_job.h).
SetupCommand find_command_setup(const std::string& name);

std::function<int()> setup_run(CLI::App* sub);  // cmd_run.cpp
std::function<int()> setup_predict(CLI::App* sub);  // cmd_predict.cpp
std::function<int()> setup_bench(CLI::App* sub);  // cmd_bench.cpp
std::function<int()> setup_calibrate(CLI::App* sub);  // cmd_calibrate.cpp
std::function<int()> setup_lesson(CLI::App* sub);  // cmd_lesson.cpp
std::function<int()> setup_ddp(CLI::App* sub);  // cmd_ddp.cpp
std::function<int()> setup_hang_lab(CLI::App* sub);  // cmd_hang_lab.cpp
std::function<int()> setup_doctor(CLI::App* sub);  // cmd_doctor.cpp
std::function<int()> setup_cluster(CLI::App* sub);  // cmd_cluster.cpp
std::function<int()> setup_fit(CLI::App* sub);  // cmd_fit.cpp

}  // namespace microddp::cli
