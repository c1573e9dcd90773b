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
// MICRODDP_LESSON_LAB_OUTPUT=FILE (the tests set it) reads FILE as the lab's
// output instead of starting the lab.
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

LabRun run_cluster_once(const LabRequest& q) {
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
  const char* fake = std::getenv("MICRODDP_LESSON_LAB_OUTPUT");
  std::fflush(stdout);
  FILE* f = ::popen(fake && *fake ? ("cat " + shell_quote(fake) + " 2>&1").c_str() : cmd.c_str(), "r");
  if (!f) {
    run.status = LabRun::Status::failed;
    run.reason = "cannot start `microddp cluster`";
    return run;
  }
  std::string line, errors;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
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
      fmt::print("{}\n", line);
    } else if (line.rfind("error:", 0) == 0) {
      errors += line.substr(line.find_first_not_of(' ', 6)) + "\n";
    }
    line.clear();
  }
  const int st = ::pclose(f);
  const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
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

// The CLI's LabRunner. MICRODDP_LESSON_NO_LAB=1 (the lesson tests set it)
// keeps the lab off. A failed run is tried once more: on a loaded machine
// the ranks of one job can miss the MPI backend's start-up deadline.
LabRun run_cluster_lab(const LabRequest& q) {
  if (const char* env = std::getenv("MICRODDP_LESSON_NO_LAB"); env && *env && std::string(env) != "0") {
    LabRun run;
    run.reason = "MICRODDP_LESSON_NO_LAB is set";
    return run;
  }
  LabRun run = run_cluster_once(q);
  if (run.status == LabRun::Status::failed) {
    fmt::print("(the lab run failed: {}; trying once more)\n", run.reason);
    run = run_cluster_once(q);
  }
  return run;
}

void print_lab(const LabRun& run) {
  if (run.status == LabRun::Status::unavailable) {
    fmt::print("lab beat skipped: {}; its checks are skipped, the model-only beats stand\n", run.reason);
    return;
  }
  if (run.status == LabRun::Status::failed) {
    fmt::print("the lab run failed: {}\n", run.reason);
    return;
  }
  for (const LabRow& r : run.rows) {
    std::string model;
    try {
      model = fmt::format(" · model {:.3f} s", predict_lab(run.request, r.algorithm));
    } catch (const std::exception&) {
    }
    fmt::print("  {:<14} {:.3f} s median (p10 {:.3f}, p90 {:.3f}){}\n", r.algorithm, r.seconds, r.p10, r.p90, model);
  }
  fmt::print("(times measured in the lab on this machine)\n");
}

}  // namespace microddp::cli
