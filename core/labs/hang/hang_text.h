// Two text helpers shared by the hang lab's files (hang_barrier.cpp, hang.cpp):
// a list of ranks, "1, 3", and a time in seconds, "2 s". Private to core/labs/hang/.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace microddp::hang::detail {

inline std::string rank_list(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ", ")); }
inline std::string secs(double s) { return fmt::format("{:g} s", s); }

}  // namespace microddp::hang::detail
