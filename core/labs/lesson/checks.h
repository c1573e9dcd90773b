// The claims a lesson beat makes about its run: one struct per check kind
// (the `check:` word of lessons/*.yaml; the format is in lessons/README.md).
// Each kind is parsed and evaluated in one place, next to each other:
//   collective beats  checks_collective.cpp  buffer, bytes, steps, result,
//                                            predicted, ratio, faster,
//                                            nic_bytes; nccl_choice, published_time,
//                                            published_error (checks_nccl.cpp);
//                                            recorded_faster, recorded_ratio (checks_recorded.cpp)
//   ddp beats         checks_ddp.cpp         allreduce_calls, buckets,
//                                            bucket_params, overlap_fraction,
//                                            exposed_comm_ms, comm_ms, replicas_identical,
//                                            same_params, loss
//   hang beats        checks_hang.cpp        named_ranks, failure, all_failed,
//                                            elapsed, sequence, report, log_line
//   lab beats         checks_lab.cpp         measured_ratio
// A check of one beat kind found in another kind of beat is rejected when
// the lesson loads; one built by hand into the wrong beat fails when
// evaluated ("a check that does not belong in a ... beat").
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/labs/ddp/ddp.h"
#include "core/ir/types.h"
#include "core/model/lab_record.h"
#include "core/model/nccl_tests.h"

namespace microddp::lesson::check {

// ---- collective beats: read the real run of the beat's setup, or the α-β
// prediction of its schedule (core/model/cost_model.h) ----

// That buffer's values on `rank` after step `step` (-1 = before step 0;
// step_is_end: after the last step). Compared exactly.
struct Buffer {
  int rank = 0;
  std::string buffer = "output";  // input | output | send_buff | recv_buff | accum | scratch
  int step = -2;
  bool step_is_end = false;
  std::vector<double> values;
};
// Bytes the rank moved (the executor's trace) in step `step` (-2 = the
// whole run); direction sent | received | both.
struct Bytes {
  int rank = 0;
  std::string direction = "sent";
  int step = -2;
  int64_t bytes = 0;
};
// Number of steps of the schedule (in `phase`; "" = all).
struct Steps {
  std::string phase;
  int steps = 0;
};
// expect "correct": outputs equal the independent reference
// (core/ir/reference.h); "corrupts": with the setup's `delay`, at least one
// of `seeds` runs (seeds 1..N) differs from it; "order_dependent": outputs
// equal the algorithm's own order bit for bit and that order leaves the
// reference's bound (core/ir/order_verdict.h: an intermediate overflowed).
struct Result {
  std::string expect = "correct";
  int seeds = 20;
};
// Which model prices a prediction. inter empty: the flat model of
// cost_model.h under the check's preset. inter set: the two-level model of
// core/model/topology_model.h on the setup's nodes, ranks / nodes per node,
// intra (empty = the check's preset) inside a node, inter between nodes.
struct Links {
  std::string intra, inter;
  int nics_per_node = 1;
};
// Predicted lockstep time (s) of this schedule under `preset`, within rel_tol.
struct Predicted {
  std::string preset;
  Links links;
  double seconds = 0, rel_tol = 1e-3;
};
// predicted(algorithm on preset) / predicted(other_algorithm on
// other_preset) (an empty other_* = the same as the numerator's) within
// rel_tol of `ratio`.
// The same links price both (the numerator's preset, or other_preset,
// stands for the intra class when links.intra is empty).
struct Ratio {
  std::string preset, other_preset, algorithm, other_algorithm;
  Links links;
  double ratio = 0, rel_tol = 1e-3;
};
// predicted(algorithm) < predicted(other_algorithm) under `preset`.
struct Faster {
  std::string preset, algorithm, other_algorithm;
  Links links;
};
// Bytes through the busiest inter-node port (a NIC's out or in; the most
// over all of them) of `algorithm` (empty = the setup's) on links, which
// must name `inter`, within rel_tol of `bytes`.
struct NicBytes {
  std::string preset, algorithm;
  Links links;
  double bytes = 0, rel_tol = 1e-3;
};

// ---- ddp beats: read the beat's ddp::Result (core/labs/ddp/ddp.h) ----

// How a ddp figure is compared: `op` equals | less_than | greater_than,
// against `value` or, when other_ddp is set, against `times` x the same
// figure of the earlier named run `other_run` (its options resolved when
// loading). Timing figures (overlap_fraction, exposed_comm_ms, comm_ms) with
// less_than / greater_than are decided on repeated, interleaved runs (see
// checks_ddp.cpp and lessons/README.md).
struct Compare {
  std::string op = "equals";
  double value = 0;
  std::string other_run;
  std::optional<ddp::Options> other_ddp;
  double times = 1;
};
struct AllreduceCalls { Compare cmp; };  // IterationStats::calls of iteration 0
struct Buckets { Compare cmp; };         // Result::buckets.size()
// Timing figures. `clock: measured` (the default): the median over
// iterations of IterationStats::overlap_fraction (0..1) / exposed_comm_ms
// (ms), as this machine ran them. `clock: model`: IterationStats::
// model_overlap_fraction / model_exposed_comm_ms, the run's schedule on the
// model clock (core/labs/ddp/ddp.h): the same on every machine, so decided
// on the beat's one run.
struct OverlapFraction {
  Compare cmp;
  bool model_clock = false;
};
struct ExposedCommMs {
  Compare cmp;
  bool model_clock = false;
};
// The collectives' time per iteration (ms): the median over iterations of
// IterationStats::comm_ms (measured: the all-reduces' durations, one at a
// time) or model_comm_ms (model clock). Lesson 07: six calls per tensor
// against one bucket's one call.
struct CommMs {
  Compare cmp;
  bool model_clock = false;
};
// The parameter indices of bucket `bucket`, in packing order.
struct BucketParams {
  int bucket = 0;
  std::vector<int> params;
};
// Every rank's parameters are the same bytes (Result::replicas_identical).
struct ReplicasIdentical {};
// final_params bit-equal to those of the earlier named run.
struct SameParams {
  std::string other_run;
  ddp::Options other_ddp;
};
// Result::max_reference_rel_error <= rel_tol (NaN, no reference, fails).
struct Loss {
  double rel_tol = 1e-4;
};

// ---- hang beats: read the beat's hang::LabResult (core/labs/hang/hang.h) ----

// The ranks the verdict names, in order (LabResult::missing for a timeout,
// ::mismatched for a mismatch).
struct NamedRanks {
  std::vector<int> ranks;
};
// none | timeout | mismatch (none: every rank passed).
struct Failure {
  std::string expect;
};
// Every rank failed together (LabResult::all_failed).
struct AllFailed {};
// LabResult::seconds <= timeout_s + margin_s.
struct Elapsed {
  double margin_s = 0;
};
// That rank's flight recorder's last started / last completed sequence
// numbers (-1 = no call; -2 = not checked).
struct Sequence {
  int rank = 0;
  int64_t started = -2, completed = -2;
};
// The verdict contains `text`.
struct Report {
  std::string text;
};
// The run's own log (hang: {log: INFO}) holds rank `rank`'s INFO line for
// call `seq`, logged at or after the verdict's time stamp when
// after_verdict is true, before it when false (unset: either); the
// verdict's and the lines' time stamps share one clock
// (hang::LabResult::after_verdict), whether the monitored barrier or the
// watchdog gives the verdict.
struct LogLine {
  int rank = 0;
  int64_t seq = 0;
  std::optional<bool> after_verdict;
};

// ---- lab beats: read the beat's LabRun (lesson.h) ----

// The measured median time of `algorithm` (empty = the beat's first) over
// that of `over_algorithm` in the same run, or, with `over_run`, of the same
// algorithm (or `over_algorithm`) in the earlier named lab beat's run. The
// ratio must be above `greater_than` and below `less_than` (NaN = no bound;
// at least one is set). The result shows the model's ratio beside it
// (predict_lab).
struct MeasuredRatio {
  std::string algorithm, over_algorithm, over_run;
  double greater_than = std::nan(""), less_than = std::nan("");
};

// ---- collective beats about NCCL on real systems (checks_nccl.cpp) ----

// What the NCCL-shaped tuner (core/model/nccl_tuner.h) picks for the beat's
// collective on `system` with `ranks` ranks at `bytes` (nccl-tests' size):
// NCCL's algorithm name (RING, TREE, NVLS, NVLS_TREE) and protocol (LL,
// LL128, SIMPLE); time_us (NaN = not checked) within rel_tol.
struct NcclChoice {
  std::string system, algorithm, protocol;
  Collective collective = Collective::all_reduce;
  int ranks = 0;
  int64_t bytes = 0;
  double time_us = std::nan(""), rel_tol = 1e-3;
};
// A published nccl-tests table's out-of-place time (µs) at `bytes`, within
// rel_tol: the source's own figure, read from the shipped file at `path`.
struct PublishedTime {
  std::string path;
  NcclTestsTable table;  // read once, when the lesson loads
  Collective collective = Collective::all_reduce;
  int64_t bytes = 0;
  double time_us = 0, rel_tol = 1e-3;
};
// The tuner's median |error| (%) on `system` against the table at `path`
// over its out-of-place rows in `range` ("<= 4 KiB", "4 KiB..1 MiB",
// "1 MiB..512 MiB", ">= 512 MiB" or "all"), below below_pct.
struct PublishedError {
  std::string path, system, range = "all";
  NcclTestsTable table;  // read once, when the lesson loads
  Collective collective = Collective::all_reduce;
  double below_pct = 0;
};

// ---- collective beats about a recorded cluster-lab run (checks_recorded.cpp) ----

// In the recorded lab run at `path` (core/model/lab_record.h; read once,
// when the lesson loads), `algorithm`'s median time is below `than`'s at
// every size from `from_bytes` to `to_bytes` that both were measured at (at least one
// size): a network claim checked where a network was measured, on a
// machine without one.
struct RecordedFaster {
  std::string path, algorithm, than;
  LabRecord record;
  int64_t from_bytes = 1, to_bytes = INT64_MAX;  // sizes S in bytes, both included
};

// In the recorded lab run at `path`: `algorithm`'s median at `bytes` over
// either its own median at `over_bytes` (how the time grows with the size:
// about 1 where α dominates, about bytes / over_bytes where β does) or, with
// over_predicted, the record's own model time at `bytes`
// (LabRecordRow::predicted_us). The ratio must be above greater_than and/or
// below less_than (NaN = no bound).
struct RecordedRatio {
  std::string path, algorithm;
  LabRecord record;
  int64_t bytes = 0, over_bytes = 0;  // over_bytes 0 with over_predicted
  bool over_predicted = false;
  double greater_than = std::nan(""), less_than = std::nan("");
};

using Any = std::variant<Buffer, Bytes, Steps, Result, Predicted, Ratio, Faster, NicBytes,  //
                         NcclChoice, PublishedTime, PublishedError, RecordedFaster, RecordedRatio,  //
                         AllreduceCalls, Buckets, BucketParams, OverlapFraction, ExposedCommMs, CommMs, ReplicasIdentical,
                         SameParams, Loss,  //
                         NamedRanks, Failure, AllFailed, Elapsed, Sequence, Report, LogLine,  //
                         MeasuredRatio>;

}  // namespace microddp::lesson::check
