// Calibration per link class in the cluster lab (link_classes.cpp): the
// OSU-style ping-pong over MPI for the intra- and inter-node classes.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/protocol.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/model/calibrate/fits.h"

namespace microddp {

// ---- Per link class: calibrate in the cluster lab (backend mpi) ----
// Method (the OSU ping-pong, osu_latency / osu_bw's one-way time): for each
// link class, one pair of ranks of that class -- intra: ranks 0 and 1 (one
// node), inter: ranks 0 and ranks_per_node (node 0 and node 1) -- exchanges
// blocking MPI_Send/MPI_Recv round trips on MPI_COMM_WORLD while the other
// ranks wait in MPI_Barrier; one-way time = the MEDIAN round trip / 2 (one
// warm-up round trip, then enough to fill ~0.5 s per size, 3..50).
//  - α = the one-way time of the smallest size (4 B).
//  - bandwidth = 1 / the slope of fit_line over the sizes >= 256 KiB. Not
//    the single line through every size: tbf lets a full bucket (its burst,
//    64 KiB and more) through at the veth's speed, and an idle ping-pong
//    refills it between messages, so small and middle sizes cross faster
//    than the rate; the slope of the large sizes is the rate (the burst
//    only lowers their intercept).
//  - barrier_s: one lockstep step barrier of the whole job as run_mpi pays
//    it (through rank 0, over the NIC): K empty lockstep steps, one
//    iteration = K + 1 barriers (as b(n) above, on the mpi backend).
//  - γ, δ: as calibrate (single-thread kernels), measured on rank 0.
// The NIC rate is the lab's (shaped_Bps); nothing here shapes.
struct LinkClassCalibration {
  int rank_a = -1, rank_b = -1;    // the pair measured
  std::vector<FitPoint> points;    // one-way median times (s)
  LineFit large;                   // the line through the sizes >= 256 KiB
  double alpha_s = 0, bandwidth_Bps = 0;
};
struct TopologyCalibrateOptions {
  int nodes = 1, ranks_per_node = 1, nics_per_node = 1;
  double shaped_Bps = 0;  // each NIC's rate, bytes/s per direction (0 = not shaped)
  int64_t max_bytes = int64_t{4} << 20;  // largest ping-pong size (bytes, >= 4; sizes above it are skipped)
  std::function<void(const std::string&)> progress;  // rank 0 only
};
struct TopologyCalibration {
  TopologyProfile profile;
  CostParams params;  // the flat part: name "mpi-lab", α/β of the inter class (intra on one node), γ, δ
  std::optional<LinkClassCalibration> intra, inter;
  double reduce_Bps = 0, memcpy_Bps = 0;
};
// Collective: every rank of the MPI job calls it with the same options
// (MPI must be initialized: mpi_init_once); rank 0's result is complete,
// the others' hold only the options. Throws UsageError when the build has
// no MPI, when MPI's world size is not nodes · ranks_per_node (naming
// both), or when no pair of either class exists (one rank in all).
TopologyCalibration calibrate_topology_mpi(const TopologyCalibrateOptions& opt);
// What calibrate_topology_mpi refuses for a job of `world_size` ranks,
// alone (a command calls it before printing its header): nodes x ranks per
// node != world_size, fewer than 2 ranks, max_bytes < 4. Throws UsageError.
void validate_topology_calibrate(const TopologyCalibrateOptions& opt, int world_size);

// Why a measured inter-node rate is off the shaped one: "" when within 10%
// (|measured / (shaped · nics) - 1| <= 0.10), else lines (no newline at the
// end) naming the likely causes for that direction -- below: a CPU-bound TCP
// stack (cpu_busy = cpu_busy_fraction() before the run, -1 unknown), the
// tbf bucket's burst and timer granularity, TCP windows at this RTT;
// above: a burst that let whole messages through unshaped, or a NIC count
// that is not the one shaped.
std::string shaped_rate_diagnosis(double measured_Bps, double shaped_Bps, int nics, double cpu_busy);

}  // namespace microddp
