// The record of one real execution: every op each rank ran, with measured
// times, plus per-step snapshots of small buffers. Everything a view shows
// is derived from a Schedule and a Trace.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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
  int64_t begin_ns = 0, end_ns = 0;
  int32_t storage = -1;   // which storage the buffer name referred to
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

struct Trace {
  Mode mode = Mode::lockstep;
  std::string backend = "threads";
  int world_size = 0;
  int64_t total_ns = 0;                       // wall time of the whole run
  std::vector<std::vector<Event>> events;     // [rank] in execution order
  std::vector<std::vector<RankStepRecord>> steps;  // [step][rank]
  std::vector<RankStepRecord> initial;        // [rank] buffers before step 0
  std::vector<int64_t> bytes_sent, bytes_received;  // per rank
  bool snapshots = false;                     // true when buffers were recorded
  // Wall time of each iteration (RunOptions::iterations), from the barrier
  // that starts it to the barrier that ends it, in ns.
  std::vector<int64_t> iteration_ns;

  // Measured time of step s: the slowest rank's (end - begin).
  int64_t step_ns(int s) const;
};

}  // namespace microddp
