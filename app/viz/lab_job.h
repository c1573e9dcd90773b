// The live cluster lab's job (compare_sources.h, lab source): a command
// run in the background, its output collected (moved out of
// compare_sources.h).
#pragma once
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace microddp::viz {

struct LabJob {
  std::vector<std::string> argv;
  std::future<std::pair<int, std::string>> result;  // exit status, stdout and stderr
  static std::unique_ptr<LabJob> start(std::vector<std::string> argv);
  bool ready() const;
};

}  // namespace microddp::viz
