// microddp doctor: the sanity check the seed notes recommend before trusting
// any collective: an all-reduce (sum) of ones must give the world size on
// every rank, for every all_reduce algorithm; plus which backends and
// devices this build and this machine have. --backend mpi (the default
// under mpirun, and what `microddp cluster` runs): the check is the MPI
// job itself -- its world size, every rank's host named -- not a threads
// copy per rank.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstring>

#include "app/cli/commands.h"
#include "app/cli/lab_job.h"
#include "core/algorithms/registry.h"
#include "core/exec/cuda/backend_cuda.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/ir/checker.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/record/printer.h"

namespace microddp::cli {
namespace {

struct Args {
  std::vector<int> ranks = {1, 2, 3, 4, 8};
  int64_t count = 1000;
  std::string backend;  // "" = mpi under mpirun, else threads
};

// Which backends this build has, and the CUDA devices found.
void print_backends() {
  std::printf("backends:\n  threads: yes (one thread per rank)\n");
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  std::printf("  mpi:     compiled in (run under mpirun: microddp run --backend mpi)\n");
#else
  std::printf("  mpi:     not in this build\n");
#endif
#if defined(MICRODDP_HAVE_CUDA) && MICRODDP_HAVE_CUDA
  {
    std::string why;
    if (cuda_device_available(&why))
      std::printf("  cuda:    compiled in; %d device(s)\n", cuda_device_count());
    else
      std::printf("  cuda:    compiled in; no usable device (%s)\n", why.c_str());
  }
#else
  std::printf("  cuda:    not in this build\n");
#endif
}

int run(Args a, bool ranks_given) {
  if (a.count < 0) throw UsageError(fmt::format("count {}: must be >= 0", a.count));
  for (int n : a.ranks)
    if (n < 1 || n > 256) throw UsageError(fmt::format("ranks {}: must be in 1..256", n));
  const std::string backend = !a.backend.empty() ? a.backend : mpi_launched() ? "mpi" : "threads";
  if (backend != "threads" && backend != "mpi")
    throw UsageError(fmt::format("--backend '{}': doctor checks threads or mpi", backend));
  const bool mpi = backend == "mpi";
  std::string hosts;  // mpi: each rank's host, rank 0 first
  if (mpi) {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
    mpi_init_once();
    const int w = mpi_world_size();
    if (ranks_given && (a.ranks.size() != 1 || a.ranks[0] != w))
      throw MpiJobUsageError(fmt::format("--ranks {}: the mpi backend checks the job's own world size, {} (mpirun "
                                         "-n); give --ranks {} or leave it out",
                                         fmt::join(a.ranks, ","), w, w));
    a.ranks = {w};
    for (const std::string& h : mpi_host_names()) hosts += " " + h;
#else
    throw UsageError("--backend mpi: this build has no MPI backend (install libopenmpi-dev and rebuild)");
#endif
  }
  // Under MPI every rank runs each check; rank 0 verifies and prints.
  const bool root = !mpi || mpi_rank() == 0;
  auto say = [root](const std::string& line) {
    if (root) std::fputs(line.c_str(), stdout);
  };
  if (root) print_backends();
  if (root && mpi)
    std::printf("all_reduce(sum) of ones, float32, count %lld, mpi backend: one job of world size %d, ranks on hosts%s "
                "(rank 0 first): every element of every rank must equal the world size\n",
                static_cast<long long>(a.count), a.ranks[0], hosts.c_str());
  else if (root)
    std::printf("all_reduce(sum) of ones, float32, count %lld, threads backend: every element of every rank must equal "
                "the world size\n",
                static_cast<long long>(a.count));
  int bad = 0, total = 0;
  for (int n : a.ranks) {
    for (const auto& alg : algorithms_for(Collective::all_reduce)) {
      CollectiveSpec s;
      s.collective = Collective::all_reduce;
      s.algorithm = alg;
      s.world_size = n;
      s.count = a.count;
      s.dtype = DType::float32;
      s.op = ReduceOp::sum;
      std::string verdict;
      try {
        Schedule sch = make_schedule(s);
        check_schedule(sch);
        std::vector<float> ones(static_cast<size_t>(a.count), 1.0f);
        RankData in(n, std::vector<std::byte>(ones.size() * sizeof(float)));
        for (auto& v : in)
          if (!ones.empty()) std::memcpy(v.data(), ones.data(), v.size());
        RunOptions ro;
        ro.record = false;
        RunResult r;
        if (mpi) {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
          r = run_mpi(sch, in, ro);
#endif
        } else {
          r = run_threads(sch, in, ro);
        }
        if (!root) continue;
        const OutputVerdict v = verify_outputs(s, in, r.outputs, reference_outputs(s, in));
        const int64_t wrong = v.ok ? 0 : std::max<int64_t>(1, v.wrong_elements);
        verdict = wrong == 0 ? "ok" : fmt::format("WRONG ({}: {})", count_noun(wrong, "element"), v.why);
        if (wrong) ++bad;
      } catch (const UsageError& e) {
        verdict = fmt::format("n/a ({})", e.what());  // the algorithm refuses this world size
        --total;
      } catch (const std::exception& e) {
        verdict = fmt::format("FAILED ({})", e.what());
        ++bad;
      }
      ++total;
      say(fmt::format("  ranks {:3}  {:<20} {}\n", n, alg, verdict));
    }
  }
  say(fmt::format("{} of {} checks passed\n", total - bad, total));
  return bad == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> setup_doctor(CLI::App* sub) {
  static Args a;
  sub->add_option("--ranks,-n", a.ranks, "world sizes to check")->capture_default_str()->delimiter(',');
  sub->add_option("--count", a.count, "elements per rank")->capture_default_str();
  sub->add_option("--backend", a.backend,
                  "threads | mpi (one job: its world size, each rank's host); default: mpi under mpirun, else threads");
  return [sub] { return run(a, sub->count("--ranks") > 0); };
}

}  // namespace microddp::cli
