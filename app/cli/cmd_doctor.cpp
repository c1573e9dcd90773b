// microddp doctor: the sanity check the seed notes recommend before trusting
// any collective: an all-reduce (sum) of ones must give the world size on
// every rank, for every all_reduce algorithm; plus which backends and
// devices this build and this machine have.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "app/cli/commands.h"
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
};

int run(const Args& a) {
  if (a.count < 0) throw UsageError(fmt::format("count {}: must be >= 0", a.count));
  for (int n : a.ranks)
    if (n < 1 || n > 256) throw UsageError(fmt::format("ranks {}: must be in 1..256", n));
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
  std::printf("all_reduce(sum) of ones, float32, count %lld, threads backend: every element of every rank must equal the world size\n",
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
        RunResult r = run_threads(sch, in, ro);
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
      std::printf("  ranks %3d  %-20s %s\n", n, alg.c_str(), verdict.c_str());
    }
  }
  std::printf("%d of %d checks passed\n", total - bad, total);
  return bad == 0 ? 0 : 1;
}

}  // namespace

std::function<int()> setup_doctor(CLI::App* sub) {
  static Args a;
  sub->add_option("--ranks,-n", a.ranks, "world sizes to check")->capture_default_str()->delimiter(',');
  sub->add_option("--count", a.count, "elements per rank")->capture_default_str();
  return [] { return run(a); };
}

}  // namespace microddp::cli
