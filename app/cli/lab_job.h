// What `microddp cluster` runs, and what the job's ranks read of the lab.
//
// Outside (in `microddp cluster`, before any namespace is made):
// plan_lab_job turns the subcommand the user gave into the one MPI job the
// lab runs -- run, bench, doctor and calibrate with --backend mpi and the
// lab's world size (nodes x ranks per node, ranks placed contiguously per
// node), run also with the lab's --nodes -- or refuses it (UsageError, exit
// 2, one line naming the reason), or runs it here: predict (the lab's
// topology, priced on the lab's own profile or shaped links, no mpirun)
// and a subcommand's --help.
//
// Inside (a rank of the lab's job; the lab is cluster_lab_from_env,
// core/model/topology_model.h): the host names of the job's ranks, the
// "cluster"/"hosts" fields of run --json, and the lab's own prediction
// model for bench.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/calibrate/calibrate.h"
#include "core/model/topology_model.h"

namespace microddp::cli {

// The lab's shape as `microddp cluster` was given it (already checked).
struct LabShape {
  int nodes = 2, ranks_per_node = 1, nics_per_node = 1;
  uint64_t nic_bps = 0;  // each NIC's shaped rate, bits per second
  int world_size() const { return nodes * ranks_per_node; }
};

struct LabPlan {
  // The command line the MPI job runs (the subcommand first), with the
  // options the lab added; empty when the plan runs here instead.
  std::vector<std::string> command;
  std::vector<std::string> added;  // those options, as added ("--backend", "mpi", ...)
  // Set: run this in `microddp cluster` itself (predict; --help) and
  // build no lab; its return value is the exit code.
  std::function<int()> run_here;
};

// command: the subcommand and its arguments as typed after `--`. Parses
// them with the subcommand's own options (a parse error is the
// subcommand's, exit 2), then: run / bench / doctor / calibrate get
// --backend mpi and (not calibrate) --ranks nodes·ranks_per_node when not
// given, run also --nodes; a given --backend other than mpi, a --ranks (or
// doctor's list) other than the lab's world size, a --nodes or
// --ranks-per-node other than the lab's are refused naming both values.
// predict gets the lab's --nodes, --ranks, --nics-per-node and its links
// (lab_predict_args) and runs here. ddp, hang-lab, lesson, fit, cluster and
// unknown names are refused with the reason. Throws UsageError.
LabPlan plan_lab_job(const LabShape& lab, const std::vector<std::string>& command);

// Where calibrate in the lab writes its profile unless --out says: beside
// the default (threads) profile, as lab-profile.json.
std::string default_lab_profile_path();

// The lab's own prediction model, for bench and predict inside the lab when
// no --profile, --preset or --alpha was given: the lab profile
// (default_lab_profile_path, calibrated in a lab of the same NIC rate),
// else one built from the lab's shaped NIC rate (inter-node bandwidth; α
// 50 µs, the "lab" topology's assumption) and, inside a node, the
// machine's calibrated threads profile (α, bandwidth, γ, δ) or else
// the "lab" topology's shared memory (1 µs, 10 GB/s). source: what the
// prediction header names, one line without the "# prediction: ".
struct LabPrediction {
  CostParams params;  // the flat part (γ, δ, and the inter class's α, β)
  TopologyProfile topo;
  std::string source;
  std::string profile_path;  // the lab profile used, or ""
};
std::optional<LabPrediction> lab_prediction(const ClusterLab& lab, const ParamChoice& given);
// In the lab (cluster_lab_from_env) with nothing chosen: lab_prediction;
// else nullopt.
std::optional<LabPrediction> lab_prediction_from_env(const ParamChoice& given);

// The host name of every rank of the MPI job, rank 0 first (gethostname:
// the lab's nodes are UTS namespaces named node0, node1, ...). Collective
// over MPI_COMM_WORLD (MPI started); rank 0 gets the list, other ranks an
// empty one. Without MPI in the build: this process's name.
std::vector<std::string> mpi_host_names();

// run --json in the lab: `, "cluster": {...}, "hosts": [...]` (the lab's
// topology as cluster_lab_json, each rank's host) on rank 0, "" on other
// ranks and outside the lab. Collective in the lab (every rank calls it).
std::string lab_run_json_fields();

}  // namespace microddp::cli
