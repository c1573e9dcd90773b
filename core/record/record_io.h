// A run's record on disk: what `microddp run --save-record FILE` writes and
// `microddp-viz --replay FILE` reads. It holds the spec (enough to rebuild
// the Schedule with make_schedule), every rank's inputs and outputs, and the
// Trace (events, per-step times and buffer snapshots), so a run made
// elsewhere (e.g. under mpirun, backend "mpi") can be stepped through later
// without running again.
//
// Format: one JSON object, {"format": "microddp-record", "version": 1,
// "spec": {...}, "inputs": [...], "outputs": [...], "trace": {...}}.
//  - Buffers (inputs, outputs) are per rank, lowercase hex of the raw bytes
//    (little-endian elements of spec.dtype): exact for every dtype, and int64
//    values beyond 2^53 survive (JSON numbers would not).
//  - Snapshot values are JSON numbers, except NaN, inf and -inf, written as
//    the strings "nan", "inf", "-inf" (JSON has no such numbers).
//  - Times are in ns as in core/trace.h; enums by their names (name()).
//  - trace.step_timing (optional; absent in older records and when the
//    backend did not repeat steps): one object per step, the fields of
//    StepTiming (core/ir/trace.h): first_run_ns, median_ns, p10_ns, p90_ns,
//    repetitions, includes_barrier.
//  - trace.events[r][i].values (optional; absent in older records and when
//    the run kept no snapshots): what a recv / recv_reduce's message carried
//    (Trace::carried), numbers as in the snapshots; 0 or len entries. A
//    record read back has carried[e] as long as events[e] (empty vectors
//    where a file has no values).
//  - "broken" (optional): the registry's broken form the trace ran
//    ("single_buffered_ring": AlgorithmInfo::broken_name) in place of
//    spec.algorithm (its working twin, e.g. ring_unchunked); the record is
//    checked against that broken schedule. Absent: spec.algorithm itself.
//  - "delay" (optional): the delay hook of a fault-injected run
//    {"rank", "max_delay_us", "seed", "tries"} (tries: seeds run to find it).
//  - "recorded" (optional): where and how the run was made, three strings
//    {"machine", "date", "command"} (scripts/record-corrupt.sh fills them).
//  - "cluster" (only for a run in the cluster lab): the lab's topology as
//    core/model/topology_model.h's cluster_lab_json writes it, {"nodes",
//    "ranks_per_node", "nic_bps", "nics_per_node", "intra", "inter"}.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/ir/schedule.h"
#include "core/ir/trace.h"

namespace microddp {

// A fault-injected run's delay hook (core/exec/executor.h DelayHook) and
// how many seeds were run to find this one (1..tries).
struct RecordDelay {
  int rank = -1;
  int max_delay_us = 0;
  uint64_t seed = 0;
  int tries = 0;
  bool operator==(const RecordDelay&) const = default;
};

// Where a saved run was made: "AMD EPYC ..., 2 vCPUs (lscpu)", "2026-12-07",
// the command line that made it. All "" when the file does not say.
struct RecordOrigin {
  std::string machine, date, command;
  bool empty() const { return machine.empty() && date.empty() && command.empty(); }
  bool operator==(const RecordOrigin&) const = default;
};

struct RunRecord {
  CollectiveSpec spec;
  RankData inputs;   // [rank] input bytes, as given to the backend
  RankData outputs;  // [rank] output bytes (RunResult::outputs)
  Trace trace;       // RunResult::trace (backend names where it ran)
  std::string cluster;  // the lab's topology as one JSON object; "" = not run in the lab
  std::string broken;   // the broken form the trace ran ("single_buffered_ring"), "" = spec.algorithm
  std::optional<RecordDelay> delay;  // a fault-injected run's delays, or none
  RecordOrigin origin;  // "recorded": machine, date, command
};

// The schedule a record's trace ran: make_schedule(spec), or the broken
// form's generator when r.broken names one. Throws UsageError for a broken
// name the registry does not know or whose twin is not spec.algorithm.
Schedule record_schedule(const RunRecord& r);

// To / from the JSON text described above (record_write.cpp writes,
// record_io.cpp reads). record_from_json throws UsageError naming the
// missing or malformed field (`where` prefixes the message, e.g. the file
// name); an integer field that is not a whole number or is out of its
// type's range is refused, not wrapped or truncated ("field
// 'spec.world_size' is 4294967299, not a whole number in
// -2147483648..2147483647"); and when the spec is invalid
// (CollectiveSpec::validate) or a buffer's size does not match the spec, and
// when the trace does not fit the record's own world size and buffer plan
// (the schedule make_schedule rebuilds from the spec): row counts, steps,
// op indices, peers, storages, offsets and lengths, snapshot sizes; when the
// events are not one per op of the schedule, each as its op gives it (kind,
// peer, buffer range, channel, chunk, bytes, and the protocol's wire_bytes and
// flags for that size), or bytes_sent / bytes_received are not what the
// schedule's messages move ("'trace.bytes_sent[1]' is 1000000000000000000 B
// but the schedule's sends of endpoint 1 move 20 B"), so what a viewer draws
// from the schedule is what the record ran; when total_ns or an iteration_ns
// is negative; and when trace.step_timing (when present) has another length
// than the steps, a negative repetition count, or p10 > median or median > p90.
std::string record_to_json(const RunRecord& r);
RunRecord record_from_json(const std::string& text, const std::string& where = "record");

// Writes `text` to `path`, checking the open, the write, the flush and the
// close: throws UsageError "cannot write <what> 'PATH': <reason>", or "the
// <what> path is empty". Every output file of the CLI goes through it.
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

// Files. save_record throws UsageError "cannot write record file 'PATH': ...";
// load_record "record file 'PATH': is a FIFO (named pipe), not a regular
// file" (any path that is not a regular file: a device, a directory),
// "cannot read record file 'PATH'" or the parse errors above.
void save_record(const std::string& path, const RunRecord& r);
RunRecord load_record(const std::string& path);

}  // namespace microddp
