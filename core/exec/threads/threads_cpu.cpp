// CPU binding and the spin budget of the threads backend (core/exec/executor.h):
// the CPUs this process may use, binding a rank thread to one, and the
// cgroup v2 CPU quota that decides whether a rank thread may spin.
#include "core/exec/executor.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace microddp {

namespace {
// The CPUs this process may use, in increasing order (empty when the
// affinity mask cannot be read).
std::vector<int> allowed_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}
}  // namespace

std::vector<int> cpus_for_threads(int n) {
  const std::vector<int> cpus = allowed_cpus();
  std::vector<int> of_thread;
  if (cpus.empty()) return of_thread;
  for (int t = 0; t < n; ++t) of_thread.push_back(cpus[static_cast<size_t>(t) % cpus.size()]);
  return of_thread;
}

int allowed_cpu_count() { return std::max(1, static_cast<int>(allowed_cpus().size())); }

void bind_this_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof(one), &one);  // best effort
}

// A rank with a core to itself spins, as MPI ranks do: sched_yield is a
// system call, and a rank that only checks its flag between yields notices
// the data late (measured on a 2-vCPU VM: in naive's first step at 8 KiB,
// the sender saw its message consumed 1.3 µs after the receiver finished,
// and its step took 3.1 µs instead of 2.0), by an amount that depends on how
// long it had waited, which the cost model's α and b(n) cannot price. When
// the ranks outnumber the cores, spinning would steal the core of the very
// rank it waits for: a few pauses, then yield.
int64_t threads_spin_budget_ns(int ranks) {
  static const std::optional<int> quota = cgroup_cpu_quota();  // read once: a file walk per run would cost µs
  int cpus = allowed_cpu_count();
  if (quota) cpus = std::min(cpus, *quota);
  return ranks <= cpus ? kThreadsSpinOwnCoreNs : 0;
}

std::optional<int> cpu_quota_cpus(const std::string& cpu_max) {
  // "max 100000" (no quota) or "QUOTA PERIOD" in µs, one line
  std::istringstream in(cpu_max);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  long long q = 0;
  try {
    size_t used = 0;
    q = std::stoll(quota, &used);
    if (used != quota.size() || q <= 0) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // a quota of 1.5 CPUs runs one spinning rank, not two
  return static_cast<int>(std::max<long long>(1, q / period));
}

std::optional<int> cgroup_cpu_quota() {
  // cgroup v2: /proc/self/cgroup holds "0::/PATH"; the quota that binds is
  // the smallest on the way from PATH up to the root
  std::ifstream self("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  const std::filesystem::path root = "/sys/fs/cgroup";
  std::filesystem::path dir = root / std::filesystem::path(path).relative_path();
  std::optional<int> least;
  for (int depth = 0; depth < 64; ++depth) {
    std::ifstream f(dir / "cpu.max");
    std::string text;
    if (std::getline(f, text))
      if (const auto q = cpu_quota_cpus(text); q && (!least || *q < *least)) least = q;
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return least;
}

}  // namespace microddp
