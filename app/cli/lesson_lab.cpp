// The lesson runner's lab beats (app/cli/lesson_lab.h): `microddp cluster`
// run by this same executable, its bench rows read back, and printed.
#include "app/cli/lesson_lab.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace microddp::cli {

namespace fs = std::filesystem;
using namespace microddp::lesson;

// Lab beats: `microddp cluster ... -- bench --backend mpi ... --json` run by
// this same executable. The lesson's checks read the JSON rows; the lab's
// `cluster:` lines (its stderr, read merged) are passed through only where they say what was
// measured (the NIC check) or why the run did not happen, and bench's
// "# warning: the CPUs were N% busy ..." line where it printed one.
// The command runs through a LabCommand (lesson_lab.h): popen here, a lab's
// saved output in tests (tests/cli/test_lesson_lab.cpp).
std::string lab_line(const LabRequest& q) {
  std::string algs;
  for (const auto& a : q.algorithms) algs += (algs.empty() ? "" : ", ") + a;
  return fmt::format("cluster lab · {} node{} × {} rank{} · NIC {} · {} {} at {} B per rank · median of {} iterations",
                     q.nodes, q.nodes == 1 ? "" : "s", q.ranks_per_node, q.ranks_per_node == 1 ? "" : "s", q.nic,
                     q.collective, algs, q.bytes, q.iters);
}

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

LabRun run_cluster_once(const LabRequest& q, const LabCommand& command, std::FILE* out) {
  LabRun run;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    run.reason = "cannot find this executable (/proc/self/exe) to start the lab with";
    return run;
  }
  std::string algs;
  for (const auto& a : q.algorithms) algs += (algs.empty() ? "" : ",") + a;
  // Every value was validated when the lesson loaded (numbers, a kbit/mbit/
  // gbit rate, registry algorithm names); quoting is for the path.
  const std::string cmd = fmt::format(
      "{} cluster --nodes {} --ranks-per-node {} --nic {} -- bench --backend mpi --collective {} --algorithm {} "
      "-b {} -e {} -n {} -w 1 --json 2>&1",
      shell_quote(exe.string()), q.nodes, q.ranks_per_node, shell_quote(q.nic), q.collective, shell_quote(algs),
      q.bytes, q.bytes, q.iters);
  std::string errors;
  const auto on_line = [&](const std::string& line) {
    if (line.rfind("{", 0) == 0) {
      try {
        const auto j = nlohmann::json::parse(line);
        LabRow r;
        r.algorithm = j.at("algorithm").get<std::string>();
        r.seconds = j.at("time_us").get<double>() * 1e-6;
        r.p10 = j.value("p10_us", nlohmann::json()).is_number() ? j["p10_us"].get<double>() * 1e-6 : r.seconds;
        r.p90 = j.value("p90_us", nlohmann::json()).is_number() ? j["p90_us"].get<double>() * 1e-6 : r.seconds;
        run.rows.push_back(r);
      } catch (const std::exception& e) {
        errors += fmt::format("unreadable bench row ({}): {}\n", e.what(), line);
      }
    } else if (line.rfind("cluster: NIC check", 0) == 0 || line.rfind("# warning: the CPUs were", 0) == 0) {
      // What was measured (the NIC check), and bench's word that other work
      // shared the CPUs while it timed (the times may be slower than the
      // lab's links alone): printed above the beat's times.
      fmt::print(out, "{}\n", line);
      std::fflush(out);
    } else if (line.rfind("error:", 0) == 0) {
      const size_t from = line.find_first_not_of(' ', 6);
      errors += (from == std::string::npos ? std::string() : line.substr(from)) + "\n";
    }
  };
  std::fflush(out);
  const int rc = command(cmd, on_line);
  if (rc < 0) {
    run.status = LabRun::Status::failed;
    run.reason = "cannot start `microddp cluster`";
    return run;
  }
  while (!errors.empty() && errors.back() == '\n') errors.pop_back();
  if (rc == 0 && run.rows.size() == q.algorithms.size()) {
    run.status = LabRun::Status::ok;
  } else if (rc == 2) {
    // `microddp cluster` exits 2, with its reason, where the lab cannot be made.
    run.status = LabRun::Status::unavailable;
    run.reason = errors.empty() ? "`microddp cluster` exited 2" : errors;
  } else {
    run.status = LabRun::Status::failed;
    run.reason = errors.empty() ? fmt::format("`microddp cluster` exited {} with {} of {} rows", rc, run.rows.size(),
                                              q.algorithms.size())
                                : errors;
  }
  return run;
}

}  // namespace

int run_shell_command(const std::string& command, const LabLine& on_line) {
  std::fflush(stdout);
  FILE* f = ::popen(command.c_str(), "r");
  if (!f) return -1;
  std::string line;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) {
    line += buf;
    if (line.back() != '\n') continue;
    line.pop_back();
    on_line(line);
    line.clear();
  }
  if (!line.empty()) on_line(line);  // a last line without its newline
  const int st = ::pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

LabRun run_cluster_lab_with(const LabRequest& q, const LabCommand& command, std::FILE* out) {
  LabRun run = run_cluster_once(q, command, out);
  if (run.status == LabRun::Status::failed) {
    fmt::print(out, "(the lab run failed: {}; trying once more)\n", run.reason);
    run = run_cluster_once(q, command, out);
  }
  return run;
}

// The CLI's LabRunner. MICRODDP_LESSON_NO_LAB=1 (the lesson tests set it)
// keeps the lab off.
LabRun run_cluster_lab(const LabRequest& q) {
  if (const char* env = std::getenv("MICRODDP_LESSON_NO_LAB"); env && *env && std::string(env) != "0") {
    LabRun run;
    run.reason = "MICRODDP_LESSON_NO_LAB is set";
    return run;
  }
  return run_cluster_lab_with(q, run_shell_command, stdout);
}

void print_lab(const LabRun& run, std::FILE* out) {
  if (run.status == LabRun::Status::unavailable) {
    fmt::print(out, "lab beat skipped: {}; its checks are skipped, the model-only beats stand\n", run.reason);
    return;
  }
  if (run.status == LabRun::Status::failed) {
    fmt::print(out, "the lab run failed: {}\n", run.reason);
    return;
  }
  for (const LabRow& r : run.rows) {
    std::string model;
    try {
      model = fmt::format(" · model {:.3f} s", predict_lab(run.request, r.algorithm));
    } catch (const std::exception&) {
    }
    fmt::print(out, "  {:<14} {:.3f} s median (p10 {:.3f}, p90 {:.3f}){}\n", r.algorithm, r.seconds, r.p10, r.p90,
               model);
  }
  fmt::print(out, "(times measured in the lab on this machine)\n");
}

}  // namespace microddp::cli
