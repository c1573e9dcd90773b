// The microddp command line: one file per subcommand (cmd_<name>.cpp), each
// registering itself with a static Command object. main.cpp parses, runs the
// chosen command, and turns errors into "error: ..." with exit code 2.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace microddp::cli {

struct Command {
  // setup adds the subcommand and its options to `app` and returns the
  // function to run when it was chosen (its return value is the exit code).
  using Setup = std::function<std::function<int()>(CLI::App& app)>;
  Command(int order, Setup setup);
};

struct Registered {
  int order;
  Command::Setup setup;
};
std::vector<Registered>& registry();

}  // namespace microddp::cli
