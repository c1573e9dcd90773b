#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "app/cli/commands.h"
#include "app/cli/parse_error.h"
#include "core/ir/types.h"

namespace microddp::cli {
std::vector<Registered>& registry() {
  static std::vector<Registered> r;
  return r;
}
Command::Command(int order, Setup setup) { registry().push_back({order, std::move(setup)}); }
}  // namespace microddp::cli

int main(int argc, char** argv) {
  using namespace microddp;
  CLI::App app{"microddp: collective communication, run for real, step by step"};
  app.require_subcommand(1);
  auto& reg = cli::registry();
  std::sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runs;
  for (auto& c : reg) {
    const size_t before = app.get_subcommands({}).size();
    auto fn = c.setup(app);
    auto subs = app.get_subcommands({});
    runs.emplace_back(subs.size() > before ? subs.back() : nullptr, std::move(fn));
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
      if (sub && sub->parsed()) return fn();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
