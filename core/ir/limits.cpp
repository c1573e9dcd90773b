#include "core/ir/limits.h"

#include <fmt/format.h>
#include <unistd.h>

#include "core/ir/types.h"

namespace microddp {

void check_ranks(int ranks, const std::string& option) {
  if (ranks < 1) throw UsageError(fmt::format("{} must be >= 1, got {}", option, ranks));
  if (ranks > kMaxRanks)
    throw UsageError(fmt::format("{} {} is more than this tool runs (at most {})", option, ranks, kMaxRanks));
}

double memory_budget_bytes() {
  return 0.5 * static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double schedule_bytes(int ranks, int segments) {
  return 800.0 * static_cast<double>(ranks) * static_cast<double>(ranks) * static_cast<double>(segments);
}

void check_memory(double bytes, const std::string& what) {
  const double budget = memory_budget_bytes();
  if (!(bytes <= budget))
    throw UsageError(fmt::format("{} needs {:.1f} GB, more than half of this machine's memory ({:.1f} GB)", what,
                                 bytes / 1e9, budget / 1e9));
}

}  // namespace microddp
