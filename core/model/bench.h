// The nccl-tests-shaped benchmark: for each message size and algorithm, run
// the collective for real (warm-up, then timed iterations), check the result,
// and put the cost model's prediction beside the measurement.
//
// Sizes follow nccl-tests: "size" is the larger of one rank's input and
// output buffers in BYTES (all_reduce: count·esize; all_gather: the whole
// gathered buffer; reduce_scatter: the whole input), count = size / esize.
// algbw = size / time, busbw = algbw × busbw_factor (core/cost_model.h);
// GB/s means 1e9 bytes per second.
//
// Timing (threads backend): one run_threads call per (size, algorithm) with
// warmup + iters iterations; the executor clocks each iteration from the
// barrier that opens it to the barrier that closes it (trace.iteration_ns,
// thread start-up excluded), in either mode, and the row reports the MEDIAN
// iteration (robust on a shared 2-core machine). With passes > 1 that is
// repeated over the whole sweep `passes` times (BenchOptions::passes) and the
// row reports the median of the pass medians.
//
// Buffer rotation (the OSU caveat): iterations rotate over enough buffer
// sets (RunOptions::buffer_sets, up to 16) to span 32 MiB together, so only
// the smallest sizes can still find their data in cache.
//
// Predicted column: predict() in the bench's mode (lockstep_s or
// pipelined_s) plus ONE barrier b(n) (CostParams::barrier_for): the closing
// barrier the iteration clock includes on top of the model's step barriers.
// Threads backend: with a cache curve in the profile, every step is priced
// at a footprint of at least the rotation's bytes (buffer sets × every
// rank's storages; CostParams::min_footprint_bytes), since that is how long
// ago the rotation last touched the step's data.
//
// Timing (mpi backend, under mpirun; every rank calls run_bench with the
// same options, only rank 0's rows are complete): one run_mpi call per
// (size, algorithm) with warmup + iters iterations, record off; the row
// reports the MEDIAN of the last `iters` entries of Trace::iteration_ns
// (barrier to barrier through rank 0, on rank 0's clock). #wrong is counted
// on rank 0, which holds every rank's output.
//
// Library references, one extra row per size with algorithm "mpi" / "nccl":
//  - reference "mpi" (backend mpi): Open MPI's own collective on the same
//    inputs through run_mpi_library (core/backend_mpi.h): warmup untimed
//    calls, then the MEAN of `iters` calls of the slowest rank (what the
//    library offers; no per-call times).
//  - reference "nccl" (backend threads): run_nccl_library through
//    BenchOptions::nccl_runner (the CLI sets it: the CUDA backend links
//    above core), mean of `iters` calls on GPU events.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/exec/executor.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/ir/trace.h"
#include "core/model/sweep.h"

namespace microddp {

struct BenchOptions {
  Collective collective = Collective::all_reduce;
  std::vector<std::string> algorithms = {"ring"};
  // Every algorithm runs once per protocol (core/ir/protocol.h), in this
  // order; the rows name it (BenchRow::protocol) and are predicted with it
  // (protocol_model.h for_protocol). ll / ll128 need the threads backend.
  // With more than one, the footer names the crossover sizes, measured and
  // predicted (bench_protocol_crossovers).
  std::vector<Protocol> protocols = {Protocol::simple};
  // --protocol auto: one more row per algorithm and size, in the protocol
  // choose_protocol (protocol_model.h) predicts fastest for that schedule
  // on params (validate_bench refuses it without params); the row says
  // auto (BenchRow::protocol_auto) and names the pick.
  bool protocol_auto = false;
  std::string backend = "threads";
  int world_size = 2;
  int64_t min_bytes = 4096, max_bytes = int64_t{64} << 20;
  // Multiply the size by this between rows (> 1; core/model/sweep.h: each
  // row at least one element above the one before, at most kBenchMaxSizes).
  double factor = 2;
  int iters = 20, warmup = 5;
  // Passes over the whole sweep (>= 1), alternating direction and ending
  // ascending: every row is measured `passes` times, at moments spread over
  // the run, and reports the MEDIAN of its pass medians, so a size that ran
  // while the machine was busy elsewhere (a descheduled virtual CPU, a
  // neighbour on the memory bus) is outvoted instead of setting the row.
  // Hoefler & Belli, "Scientific Benchmarking of Parallel Computing
  // Systems", SC'15: repeat measurements at different times and report
  // medians. Each pass builds fresh buffers; --check runs in the first pass.
  int passes = 1;
  ReduceOp op = ReduceOp::sum;
  DType dtype = DType::float32;
  int root = 0;
  bool check = false;   // verify outputs against core/reference.h
  bool record = false;  // record events (trace on) while timing
  // > 0: measure what recording costs. Each row is timed 2·record_pairs
  // times, recording off and on in pairs of back-to-back runs (one
  // run_threads call each; which half goes first alternates between pairs),
  // so both halves of a pair see the same machine load: time_us = the median
  // with recording off, recorded_us = the median with it on, and
  // record_overhead_pct = the median over the pairs of (on / off - 1)·100.
  // Threads backend only.
  int record_pairs = 0;
  Mode mode = Mode::lockstep;
  std::optional<CostParams> params;  // for the predicted column
  // Topology: ranks on `nodes` nodes (contiguous, spec.nodes of every row:
  // the hierarchical algorithm needs it). With `network` (its world size =
  // world_size) the predicted column is the topology model's
  // (topology_model.h) plus one closing barrier net.intra.barrier_for(n),
  // instead of params'.
  int nodes = 1;
  std::optional<Network> network;
  // The algorithm "auto" in `algorithms`: per size, the one
  // choose_algorithm (topology_model.h) predicts fastest on `network`, else
  // on params (validate_bench refuses auto without either); the row keeps
  // algorithm "auto" and names the pick in auto_pick.
  // cluster: cluster_lab_json() of the lab this runs in, copied into every
  // row's JSON as "cluster" ("" = not in the lab: no field).
  std::string cluster;
  // "" (none), "mpi" (needs backend mpi) or "nccl" (needs nccl_runner).
  std::string reference;
  // Shown in the header only: --mpi-algorithm (forced before MPI starts,
  // see mpi_force_library_algorithm) and --nccl-algo ("", ring, tree).
  std::string mpi_algorithm, nccl_algo;
  // How the "nccl" reference runs: seconds per call and every rank's output.
  struct LibraryCall {
    double seconds = 0;
    RankData outputs;
  };
  std::function<LibraryCall(const CollectiveSpec& spec, const RankData& inputs, int iters, int warmup)> nccl_runner;
  // Machine-state probe, called once before each size's rows (outside any
  // timed region): the ratio measured / profile of one reference step
  // (calibrate.h, state_probe_ratio), or <= 0 when it cannot say. Empty =
  // no probe (presets, the mpi backend). Every row of the size carries the
  // ratio in BenchRow::state_x.
  std::function<double()> state_probe;
};

struct BenchRow {
  Collective collective = Collective::all_reduce;
  std::string algorithm, backend;
  // The protocol the row ran (JSON "protocol", always); the table names it
  // after the algorithm ("ring/ll") when the bench was given protocols
  // other than simple alone (show_protocol).
  Protocol protocol = Protocol::simple;
  bool show_protocol = false;
  bool protocol_auto = false;  // protocol was chosen by --protocol auto (JSON "protocol_auto": true; table "ring/auto->ll")
  int world_size = 0;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = -1;  // -1 for collectives without a root
  Mode mode = Mode::lockstep;
  int64_t bytes = 0, count = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
  int64_t wrong = -1;  // -1 = not checked
  double predicted_us = -1, error_pct = 0;  // predicted < 0: no profile
  // What the coherence terms ε and φ add to predicted_us (µs;
  // cost_model.h: bytes an iteration writes over what a rank on another
  // core read when its buffers were last used, and bytes a rank receives
  // that their sender on another core wrote since): predicted_us minus the
  // same prediction without them, in either mode (they can add less than
  // their own terms where the memory bus binds the step). < 0: not charged
  // (no profile, a profile with neither, the MPI backend or the network
  // model). JSON "predicted_coherence_us".
  double predicted_coherence_us = -1;
  double recorded_us = -1, record_overhead_pct = 0;  // recorded < 0: not measured (record_pairs = 0)
  int nodes = 1;            // JSON "nodes" when > 1
  std::string auto_pick;    // algorithm "auto": the algorithm it ran (JSON "auto_pick"; table "auto->ring")
  std::string cluster;      // BenchOptions::cluster (JSON "cluster": {...} when set)
  // Spread of the timed iterations behind time_us (µs; < 0 = not available:
  // library reference rows, which report a mean, and MPI ranks other than 0).
  // Quantiles by linear interpolation between order statistics; with
  // record_pairs > 0 they are over the pairs' recording-off medians.
  int samples = 0;
  double min_us = -1, p10_us = -1, p90_us = -1, max_us = -1;
  // BenchOptions::passes: time_us is the median of this many pass medians
  // (pass medians of recorded_us and record_overhead_pct likewise; state_x
  // is the median of the probes before the size in each pass). JSON "passes".
  int passes = 1;
  // Reference rows "mpi": the algorithm Open MPI ran, as far as it can be
  // known (mpi_algorithm_label); "" on every other row. JSON
  // "mpi_algorithm" (on "mpi" rows only); text: a footer line per run of
  // sizes with the same name.
  std::string mpi_algorithm;
  // BenchOptions::state_probe's ratio before this row's size; 0 = not
  // probed. In the profile's state when in_profile_state(state_x). JSON
  // "state_x" (null when 0).
  double state_x = 0;
};

// The band of state ratios counted as "the machine is in the state the
// profile was measured in": 1/1.25 .. 1.25 (within 25% either way; over
// five calibrations in one state the reference step of 32 KiB spread by
// about ±10%, and the two states seen on a 2-vCPU VM differ by 2-4x).
bool in_profile_state(double state_x);

// Open MPI 4.1's coll/tuned fixed decision for MPI_Allreduce: the algorithm
// it runs on `comm_size` ranks for a message of `bytes` (datatype size x
// count), by the switch points of ompi_coll_tuned_allreduce_intra_dec_fixed
// in ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (open-mpi/ompi
// v4.1.x, unchanged from v4.1.0 to v4.1.8). Names as coll_tuned_allreduce_algorithm
// spells them: "basic_linear", "nonoverlapping", "recursive_doubling",
// "ring", "segmented_ring", "rabenseifner". commutative = false: the rule
// for non-commutative ops (every op of ours is commutative).
// comm_size < 2: "" (coll/self serves one rank).
std::string openmpi41_allreduce_fixed_rule(int comm_size, int64_t bytes, bool commutative = true);

// The name of the algorithm Open MPI runs for the reference row of
// collective c (comm_size ranks, `bytes` as BenchRow::bytes) under
// settings s (core/exec/mpi/backend_mpi.h):
//  - coll/tuned with dynamic rules and its <fn>_algorithm forced:
//    "<name> (forced: coll_tuned_<fn>_algorithm)";
//  - coll/tuned on its fixed rule, all_reduce, Open MPI 4.1:
//    "<name> (Open MPI 4.1 fixed rule)";
//  - otherwise "unknown (<why>)": coll/tuned not selected (the "coll"
//    list leaves it out, another component's priority is at least
//    tuned's), a dynamic rules file, another library or version, a
//    collective whose fixed rule is not modelled here.
std::string mpi_algorithm_label(const MpiCollSettings& s, Collective c, int comm_size, int64_t bytes);

// Parse "4K", "64M", "1G" (powers of 1024, as nccl-tests), "512", "1e9".
// Throws UsageError naming the text when it is negative, empty or malformed.
int64_t parse_size(const std::string& text);

// The most sizes one bench sweeps: each is timed passes × (warmup + iters)
// times per algorithm, so a factor near 1 would run for hours.
inline constexpr int kBenchMaxSizes = 100;
// The sizes bench times (sweep_sizes: -b, then × factor, -e last).
std::vector<int64_t> bench_sizes(const BenchOptions& o);

// Pass `pass` (0-based) of `passes` sweeps the sizes upward: the passes
// alternate direction and the last one ascends, so rows come out in order.
bool pass_ascends(int pass, int passes);

// Validates options (UsageError naming the bad value: -b > -e, a factor that
// makes no sweep (bench_sizes),
// iters < 1, warmup < 0, record_pairs < 0 or > 0 with the mpi backend, world size < 1, unknown backend (threads, mpi),
// unknown reference (mpi, nccl) or one that does not fit the backend), then
// runs every row, calling on_row as each finishes. Backend mpi: MPI must be
// initialized (mpi_init_once) and its world size must equal world_size.
void validate_bench(const BenchOptions& o);
std::vector<BenchRow> run_bench(const BenchOptions& o, const std::function<void(const BenchRow&)>& on_row = {});

// The cost parameters bench prices a threads row of schedule s with: p with
// the footprint floor of bench's buffer rotation (min_footprint_bytes = the
// sets × the bytes of one set: a step's data was last touched one rotation
// ago), back_to_back (the coherence term ε: each iteration writes over
// what a peer read when its buffers were last used) and rotation_sets = the
// sets (ε's reuse distance). `predict` shows the same.
CostParams bench_params(const Schedule& s, const CostParams& p);

// The spec bench runs for one row (count derived from bytes as above).
CollectiveSpec bench_spec(const BenchOptions& o, const std::string& algorithm, int64_t bytes);

// Text output: the header lines (start with '#'), one row, the footer
// (number of wrong values; average busbw as nccl-tests prints it, the mean
// over the rows, one figure per algorithm and world size when the rows mix
// them; and, unless summary_follows (bench_summary_text prints the same
// figures as a table), per algorithm and world size with predictions the
// median and worst |predicted - measured| / measured over the sizes, as
// summarize()). With record_pairs > 0 the header
// and rows gain two columns: recorded (us) and rec.ovh (%). JSON rows carry
// "recorded_us" and "record_overhead_pct" (null when not measured); CSV rows
// end with the same two fields (empty when not measured) and state_x (empty
// when not probed). JSON rows also
// carry the spread: "samples", "min_us", "p10_us", "p90_us", "max_us" (null
// when not available), and "state_x" (null when not probed). The footer
// adds bench_state_text() when the rows were probed.
std::string bench_table_header(const BenchOptions& o);
std::string bench_table_row(const BenchRow& r);
std::string bench_table_footer(const std::vector<BenchRow>& rows, bool summary_follows = false);
// With a topology (o.network, more than one node): why rows whose busbw is
// above one NIC's rate per direction do not break physics -- busbw counts
// every rank's traffic as if it crossed one link, most of it stays inside
// the node -- with, per such row, the bytes the busiest NIC port carried
// (the topology model's count for the row's schedule) over the measured
// time. "" when no row is above the NIC's rate.
std::string bench_busbw_note(const BenchOptions& o, const std::vector<BenchRow>& rows);
// One JSON object on one line with the documented keys.
std::string bench_json_row(const BenchRow& r);
std::string bench_csv_header();
std::string bench_csv_row(const BenchRow& r);

// Per algorithm and world size: median and maximum of |predicted -
// measured| / measured (in %) over the sizes, the worst size, and the
// signed error there (worst_err_pct: < 0 = under-predicted). When the
// rows were probed (state_x > 0): probed_rows, and the median over the
// rows measured in the profile's state (in_state_rows of them; median -1
// when none), so a reader can tell a model that misses from a machine
// that moved.
struct BenchSummary {
  std::string algorithm;
  int world_size = 0;
  int rows = 0;
  double median_err_pct = 0, max_err_pct = 0;
  double worst_err_pct = 0;  // (predicted - measured) / measured at worst_bytes, signed
  int64_t worst_bytes = 0;
  int under_rows = 0;  // sizes the model under-predicted (predicted < measured: a negative error)
  int probed_rows = 0, in_state_rows = 0;
  double in_state_median_err_pct = -1;
};
// The footer's machine-state line(s): the range of the ratios and the sizes
// measured outside the profile's state; "" when no row was probed.
std::string bench_state_text(const std::vector<BenchRow>& rows);
// With rows of more than one protocol: per algorithm and world size, the
// protocol fastest at each size, measured and predicted, as the sizes
// where the winner changes ("# Protocol crossovers : ring on 2 ranks,
// measured: ll up to 4096 B, ll128 from 8192 B, simple from 262144 B;
// predicted: ..."). "" otherwise.
std::string bench_protocol_crossovers(const std::vector<BenchRow>& rows);
std::vector<BenchSummary> summarize(const std::vector<BenchRow>& rows);
std::string bench_summary_text(const std::vector<BenchSummary>& s);

}  // namespace microddp
