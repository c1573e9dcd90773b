// The record of one real execution: every op each rank ran, with measured
// times, plus per-step snapshots of small buffers. Everything a view shows
// is derived from a Schedule and a Trace.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/protocol.h"
#include "core/ir/schedule.h"

namespace microddp {

enum class Mode : uint8_t { lockstep, free };
std::string_view name(Mode m);
Mode parse_mode(std::string_view s);  // throws UsageError

// One executed op. Times are steady-clock nanoseconds since the run began.
// send: begin = posted, end = the receiver finished reading it (the send
// completed). recv / recv_reduce: begin = posted, end = data landed.
// copy / reduce / swap: begin/end of the local work (after its waits).
struct Event {
  int32_t step = 0;
  int32_t op_index = 0;   // index in Schedule::steps[step].ranks[rank]
  OpKind kind = OpKind::copy;
  int32_t peer = -1;
  Buf buf = Buf::input;   // the buffer written (recv/copy/reduce) or read (send)
  int64_t offset = 0;     // elements
  int64_t len = 0;        // elements
  int64_t bytes = 0;      // len * dtype size (0 for local ops... see below)
  int32_t chunk = -1;
  int32_t channel = -1;  // Op::channel
  int64_t begin_ns = 0, end_ns = 0;
  int32_t storage = -1;   // which storage the buffer name referred to
  // send / recv / recv_reduce: what the run's protocol (Trace::protocol)
  // put on the wire for this message (core/ir/protocol.h wire_bytes: LL
  // 2×, LL128 128/120 rounded up to lines) and how many flag words (LL) or
  // lines (LL128) carried it (simple: 1, the flag that publishes the data);
  // 0 for local ops.
  int64_t wire_bytes = 0;
  int64_t flags = 0;
};
// `bytes` is set for every op that moves or reduces data (send, recv,
// recv_reduce, copy, reduce); 0 for swap.

// Buffers of one rank after one step, when small enough to keep.
struct BufferSnapshot {
  Buf buf;
  int storage;          // storage the name referred to after the step (shows swaps)
  std::vector<double> values;  // converted for display; NaN/inf kept
};

struct RankStepRecord {
  int64_t begin_ns = 0, end_ns = 0;  // this rank's part of the step (end: after its waits)
  std::vector<BufferSnapshot> buffers;  // empty when not recorded
};

// How long one step took, measured the way benchmarks measure (nccl-tests,
// OSU: warm up, repeat, report a statistic, never one cold sample). The
// threads backend in lockstep mode re-runs the step `repetitions` times on
// private copies of every rank's memory as it was before the step (the real
// buffers, snapshots and outputs come from the one real run only) and
// reports the median and the 10th and 90th percentiles of those warm
// repetitions; the real run's time is kept apart as first_run_ns (it pays the
// threads' wake-up and the first touch of every buffer).
// includes_barrier: true when every time here runs up to the end of the
// barrier that closes the step (lockstep): from the moment the ranks are
// released into the step until the last rank arrives at the next barrier,
// which is what the cost model's lockstep step time step + b(n) prices
// (core/model/cost_model.h). false: the slowest rank's own span, no
// barrier (free mode, or a trace without timings; see Trace::timing).
// All times in ns. With repetitions == 0 (not repeated) median, p10 and p90
// all equal first_run_ns.
struct StepTiming {
  int64_t first_run_ns = 0;
  int64_t median_ns = 0, p10_ns = 0, p90_ns = 0;
  int32_t repetitions = 0;
  bool includes_barrier = false;
};

// The StepTiming of a first run and the warm samples (any order; ns).
// Percentiles interpolate linearly between the sorted samples (the
// definition numpy.percentile uses by default), so p10 <= median <= p90.
StepTiming summarize_step_samples(int64_t first_run_ns, std::vector<int64_t> samples, bool includes_barrier);

// Endpoints: the per-rank arrays (events, steps[s], initial, bytes_sent,
// bytes_received) hold world_size + switches entries: the ranks, then the
// schedule's switch endpoints (core/ir/schedule.h; in-network reduction).
// Code about ranks loops to world_size; code that shows every actor loops
// over events.size() and names entry e with endpoint_name ("SW").
struct Trace {
  Mode mode = Mode::lockstep;
  std::string backend = "threads";
  Protocol protocol = Protocol::simple;       // RunOptions::protocol
  int world_size = 0;
  int switches = 0;                           // switch endpoints after the ranks
  int64_t total_ns = 0;                       // wall time of the whole run
  std::vector<std::vector<Event>> events;     // [endpoint] in execution order
  std::vector<std::vector<RankStepRecord>> steps;  // [step][endpoint]
  std::vector<RankStepRecord> initial;        // [endpoint] buffers before step 0
  std::vector<int64_t> bytes_sent, bytes_received;  // per endpoint
  bool snapshots = false;                     // true when buffers were recorded
  // What each message carried, when the run keeps snapshots: carried[e][i]
  // belongs to events[e][i] and, for a recv / recv_reduce, holds the len
  // values its message brought, as the receiver read them out of the
  // sender's buffer (before adding them into its own), converted to double
  // like BufferSnapshot::values. What travelled, not what the schedule meant
  // to send: a send whose buffer was overwritten while in flight (the
  // one-buffer ring) shows the overwritten values. Empty for other ops;
  // carried[e] empty when not recorded (snapshots off; an mpi run's other
  // ranks). (Not in Event: Event stays trivially copyable for the mpi wire.)
  std::vector<std::vector<std::vector<double>>> carried;
  // Wall time of each iteration (RunOptions::iterations), from the barrier
  // that starts it to the barrier that ends it, in ns.
  std::vector<int64_t> iteration_ns;

  // [step]: the step times as benchmarks measure them (StepTiming); empty
  // when the backend did not measure them (then timing() falls back).
  std::vector<StepTiming> step_timing;

  // Measured time of step s: the slowest rank's (end - begin).
  int64_t step_ns(int s) const;
  // step_timing[s] when present; otherwise one unrepeated sample, step_ns(s),
  // without barrier. Throws std::out_of_range for a step not in steps.
  StepTiming timing(int s) const;
};

}  // namespace microddp
