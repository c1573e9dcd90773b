// Prints (no assertions): one all_reduce size, our schedule on the MPI
// backend beside Open MPI's MPI_Allreduce, or our schedule on the threads
// backend (no MPI) for the same size.
//   mpirun -n N bench_mpi_allreduce mpi     [MiB] [algorithm] [iters]
//   bench_mpi_allreduce threads N           [MiB] [algorithm] [iters]
// Times are per call. Ours: the median of Trace::iteration_ns (each
// iteration between two barriers) after one warm-up call. The library: the
// slowest rank's loop over iters calls, divided by iters, after one warm-up
// call (MPI offers no per-call barrier-free timing that is fairer).
// busbw = 2(n-1)/n * S / t (nccl-tests), GB = 1e9 bytes.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>
#include <string>

#include "core/algorithms/registry.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/exec/executor.h"

using namespace microddp;

namespace {
RankData inputs(const CollectiveSpec& s) {
  RankData in(s.world_size);
  for (int r = 0; r < s.world_size; ++r) {
    in[r].resize(s.input_count(r) * dtype_size(s.dtype));
    auto* p = reinterpret_cast<float*>(in[r].data());
    for (int64_t i = 0; i < s.input_count(r); ++i) p[i] = static_cast<float>((i + r) % 17) - 8;
  }
  return in;
}
// Median of Trace::iteration_ns, in seconds (robust on a shared machine;
// the first iteration on fresh buffers is the slow one).
double median_s(const Trace& t) {
  std::vector<int64_t> v = t.iteration_ns;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[v.size() / 2]) * 1e-9;
}
double busbw(int n, int64_t bytes, double s) { return n > 1 ? 2.0 * (n - 1) / n * bytes / s / 1e9 : 0; }
}  // namespace

int main(int argc, char** argv) {
  const std::string backend = argc > 1 ? argv[1] : "mpi";
  int arg = 2;
  int n = 0;
  if (backend == "threads") n = argc > arg ? std::atoi(argv[arg++]) : 2;
  const int64_t mib = argc > arg ? std::atoll(argv[arg++]) : 64;
  const std::string alg = argc > arg ? argv[arg++] : "ring";
  const int iters = argc > arg ? std::atoi(argv[arg++]) : 10;
  if (backend == "mpi") {
    mpi_init_once();
    n = mpi_world_size();
  }
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = alg;
  s.world_size = n;
  s.count = mib * (1 << 20) / 4;
  const int64_t bytes = s.count * 4;
  const Schedule sch = make_schedule(s);
  const RankData in = inputs(s);
  RunOptions opt;
  opt.mode = Mode::free;
  opt.record = false;
  if (backend == "threads") {
    run_threads(sch, in, opt);  // warm-up (page faults)
    opt.iterations = iters;
    const double t = median_s(run_threads(sch, in, opt).trace);
    fmt::print("threads  n={} {} MiB {:<18} {:9.3f} ms  busbw {:6.2f} GB/s\n", n, mib, alg, t * 1e3, busbw(n, bytes, t));
    return 0;
  }
  run_mpi(sch, in, opt);
  opt.iterations = iters;
  const double ours = median_s(run_mpi(sch, in, opt).trace);
  const MpiLibraryResult lib = run_mpi_library(s, in, iters, 1);
  if (mpi_rank() == 0) {
    fmt::print("mpi      n={} {} MiB {:<18} {:9.3f} ms  busbw {:6.2f} GB/s\n", n, mib, alg, ours * 1e3,
               busbw(n, bytes, ours));
    fmt::print("mpi      n={} {} MiB {:<18} {:9.3f} ms  busbw {:6.2f} GB/s  (ours / library time: {:.2f}x speed)\n", n,
               mib, lib.function, lib.seconds * 1e3, busbw(n, bytes, lib.seconds), lib.seconds / ours);
  }
  mpi_finalize_if_needed();
  return 0;
}
