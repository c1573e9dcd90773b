// Calibration per link class in the cluster lab: an MPI ping-pong between
// one pair of ranks on one node and one pair on two nodes, the lockstep
// barrier of the whole job, and what to say when the inter-node rate is
// off the shaped one (core/model/calibrate/calibrate.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/exec/executor.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
#include <mpi.h>
#endif

namespace microddp {

void validate_topology_calibrate(const TopologyCalibrateOptions& opt, int n) {
  if (opt.nodes < 1 || opt.ranks_per_node < 1 || n != opt.nodes * opt.ranks_per_node)
    throw UsageError(fmt::format("calibrate: {} nodes x {} ranks per node = {} ranks, but mpirun started {}",
                                 opt.nodes, opt.ranks_per_node, opt.nodes * opt.ranks_per_node, n));
  if (n < 2) throw UsageError("calibrate --backend mpi: one rank has no link to measure (start 2 or more)");
  if (opt.max_bytes < 4) throw UsageError(fmt::format("calibrate: --max {} B must be at least 4", opt.max_bytes));
}

#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
namespace {

constexpr int kTag = 7311;  // apart from the transport's tags (it uses its own communicator anyway)

// Median one-way seconds of `bytes` between ranks a and b (round trip / 2),
// measured on a; every rank calls it, the others only wait at the barrier.
// Returns the time on rank 0 (a sends it there when a != 0).
double one_way_s(int a, int b, int64_t bytes, std::vector<char>& buf) {
  const int me = mpi_rank();
  const int len = static_cast<int>(bytes);
  double result = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == a || me == b) {
    const int peer = me == a ? b : a;
    auto round_trip = [&] {
      if (me == a) {
        MPI_Send(buf.data(), len, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), len, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), len, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), len, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
      }
    };
    // Warm-up, timed on a: it sets how many round trips fill ~0.5 s, and
    // a tells b (both must run the same number).
    const double t0 = MPI_Wtime();
    round_trip();
    int reps = static_cast<int>(std::clamp(0.5 / std::max(MPI_Wtime() - t0, 1e-7), 3.0, 50.0));
    if (me == a) MPI_Send(&reps, 1, MPI_INT, peer, kTag + 1, MPI_COMM_WORLD);
    else MPI_Recv(&reps, 1, MPI_INT, peer, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      const double s = MPI_Wtime();
      round_trip();
      t.push_back((MPI_Wtime() - s) / 2);
    }
    result = median(t);
  }
  if (a != 0) {
    if (me == a) MPI_Send(&result, 1, MPI_DOUBLE, 0, kTag + 2, MPI_COMM_WORLD);
    if (me == 0) MPI_Recv(&result, 1, MPI_DOUBLE, a, kTag + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return result;
}

LinkClassCalibration measure_class(const char* what, int a, int b, int64_t max_bytes,
                                   const std::function<void(const std::string&)>& progress) {
  LinkClassCalibration c;
  c.rank_a = a;
  c.rank_b = b;
  // 4 B .. 64 KiB by 16x for α, then every power of two from 256 KiB for the slope.
  std::vector<int64_t> sizes;
  for (int64_t m : {4, 64, 1024, 16384, 65536})
    if (m <= max_bytes) sizes.push_back(m);
  for (int64_t m = int64_t{256} << 10; m <= max_bytes; m *= 2) sizes.push_back(m);
  std::vector<char> buf(static_cast<size_t>(sizes.back()), 1);
  const bool root = mpi_rank() == 0;
  for (int64_t m : sizes) {
    const double t = one_way_s(a, b, m, buf);
    if (!root) continue;
    c.points.push_back({m, t});
    if (progress)
      progress(fmt::format("{} ranks {} <-> {}: {:>9} B one way {:10.2f} µs ({:.3f} MB/s)", what, a, b, m, t * 1e6,
                           t > 0 ? m / t / 1e6 : 0.0));
  }
  if (!root) return c;
  c.alpha_s = c.points.front().seconds;
  std::vector<FitPoint> big;
  for (const auto& p : c.points)
    if (p.bytes >= (int64_t{256} << 10)) big.push_back(p);
  if (big.size() >= 2) {
    c.large = fit_line(big);
    c.bandwidth_Bps = c.large.beta > 0 ? 1.0 / c.large.beta : 0.0;
  }
  if (!(c.bandwidth_Bps > 0)) {
    // Too few large sizes (a small --max), or times that did not grow with
    // the size: the largest message's own rate.
    const FitPoint& last = c.points.back();
    c.bandwidth_Bps = last.seconds > 0 ? last.bytes / last.seconds : 0.0;
  }
  return c;
}


}  // namespace

TopologyCalibration calibrate_topology_mpi(const TopologyCalibrateOptions& opt) {
  mpi_init_once();
  const int n = mpi_world_size();
  validate_topology_calibrate(opt, n);
  TopologyCalibration res;
  TopologyProfile& t = res.profile;
  t.nodes = opt.nodes;
  t.ranks_per_node = opt.ranks_per_node;
  t.nics_per_node = opt.nics_per_node;
  t.shaped_Bps = opt.shaped_Bps;
  const bool root = mpi_rank() == 0;
  if (opt.ranks_per_node >= 2) {
    res.intra = measure_class("intra", 0, 1, opt.max_bytes, opt.progress);
    t.intra = {res.intra->alpha_s, res.intra->bandwidth_Bps};
  }
  if (opt.nodes >= 2) {
    res.inter = measure_class("inter", 0, opt.ranks_per_node, opt.max_bytes, opt.progress);
    t.inter = {res.inter->alpha_s, res.inter->bandwidth_Bps};
  }
  {
    constexpr int K = 16, warm = 2, iters = 10;
    RunOptions ro;
    ro.mode = Mode::lockstep;
    ro.record = false;
    ro.snapshot_limit = 0;
    ro.iterations = warm + iters;
    const RunResult r = run_mpi(empty_steps(n, K), RankData(static_cast<size_t>(n)), ro);
    if (root && r.trace.iteration_ns.size() == static_cast<size_t>(ro.iterations)) {
      std::vector<double> v;
      for (int i = warm; i < ro.iterations; ++i) v.push_back(r.trace.iteration_ns[i] * 1e-9 / (K + 1));
      t.barrier_s = mode_estimate(v);
      if (opt.progress) opt.progress(fmt::format("lockstep barrier of {} ranks: {:10.2f} µs", n, t.barrier_s * 1e6));
    }
  }
  if (root) {
    res.reduce_Bps = measure_reduce_Bps();
    res.memcpy_Bps = measure_memcpy_Bps();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CostParams& p = res.params;
  p.name = "mpi-lab";
  const LinkClassProfile& flat = t.inter.bandwidth_Bps > 0 ? t.inter : t.intra;
  p.alpha = flat.alpha_s;
  p.beta = flat.bandwidth_Bps > 0 ? 1.0 / flat.bandwidth_Bps : 0.0;
  p.gamma = res.reduce_Bps > 0 ? 1.0 / res.reduce_Bps : 0.0;
  p.delta = res.memcpy_Bps > 0 ? 1.0 / res.memcpy_Bps : 0.0;
  if (t.barrier_s > 0) p.barrier_s = {t.barrier_s};
  return res;
}

#else

TopologyCalibration calibrate_topology_mpi(const TopologyCalibrateOptions&) {
  throw UsageError("calibrate --backend mpi: this build has no MPI backend (install libopenmpi-dev and rebuild)");
}

#endif

std::string shaped_rate_diagnosis(double measured_Bps, double shaped_Bps, int nics, double cpu_busy) {
  const double cap = shaped_Bps * std::max(1, nics);
  if (!(cap > 0) || !(measured_Bps > 0)) return "";
  const double ratio = measured_Bps / cap;
  if (std::abs(ratio - 1.0) <= 0.10) return "";
  std::string s = fmt::format("inter-node bandwidth {:.3f} MB/s is {:.0f}% of the shaped {:.3f} MB/s{}; likely causes:",
                              measured_Bps / 1e6, ratio * 100, cap / 1e6,
                              nics > 1 ? fmt::format(" ({} NICs)", nics) : "");
  if (ratio < 1) {
    if (cpu_busy >= 0)
      s += fmt::format("\n  - a CPU-bound TCP stack: every byte crosses two veths and two tbf queues in software, on "
                       "the same cores as the ranks; the CPUs were {:.0f}% busy before the run{}",
                       cpu_busy * 100, cpu_busy > 0.25 ? " (other work: measure on an idle machine)" : "");
    else
      s += "\n  - a CPU-bound TCP stack: every byte crosses two veths and two tbf queues in software, on the same "
           "cores as the ranks (a busy machine, or a rate too high for it: try a lower --nic)";
    s += "\n  - tbf's bucket and timer: a queue limit (latency 50ms) that drops the tail of a TCP window, or a "
         "kernel timer too coarse for the rate, leaves the link idle between bursts";
    s += "\n  - TCP's window at this round-trip time: too small a window (net.ipv4.tcp_rmem/wmem) cannot fill the "
         "link; Open MPI's btl_tcp_sndbuf/rcvbuf set it";
    if (nics > 1)
      s += "\n  - Open MPI striping one message over several NICs only above btl_tcp_min_send_size; smaller "
           "messages use one NIC";
  } else {
    s += "\n  - tbf's burst: a full bucket passes that many bytes at the veth's speed; messages not much larger "
         "than the burst, with idle time between them, cross faster than the rate (use larger --max)";
    s += "\n  - the shaping is not where the traffic goes (a NIC without tbf, or more NICs carrying it than "
         "counted)";
  }
  return s;
}

}  // namespace microddp
