#include "app/viz/lab_job.h"

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>

namespace microddp::viz {

namespace {
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}
}  // namespace

std::unique_ptr<LabJob> LabJob::start(std::vector<std::string> argv) {
  auto job = std::make_unique<LabJob>();
  job->argv = argv;
  std::string cmd;
  for (const auto& a : argv) cmd += shell_quote(a) + " ";
  cmd += "2>&1 </dev/null";
  job->result = std::async(std::launch::async, [cmd]() {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return std::make_pair(127, std::string("cannot start: ") + cmd);
    std::array<char, 4096> buf;
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
    const int st = pclose(p);
    return std::make_pair(WIFEXITED(st) ? WEXITSTATUS(st) : 128, out);
  });
  return job;
}

bool LabJob::ready() const { return result.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready; }

}  // namespace microddp::viz
