// A DDP / FSDP training run's record on disk: what `microddp ddp --record
// FILE` writes and `microddp-viz --compare-runs A.json B.json` reads (two
// runs' timelines one above the other on one time axis, e.g. FSDP with
// prefetch on and off, or DDP with bucket caps 1 MiB and 25 MiB).
//
// Format: one JSON object,
//   {"format": "microddp-ddp-record", "version": 1,
//    "settings": {...}, "params": P, "param_elements": E, "buckets": [...],
//    "warmup_iterations": W, "warmup_calls": C, "replicas_identical": bool,
//    "max_reference_rel_error": x | null, "iterations": [...], "command": "..."}
//  - Times are integer NANOSECONDS since the iteration began (every worker
//    released together), on one steady clock: the fields ending in "_ns".
//    In memory (ddp::Result, core/labs/ddp/ddp.h) they are milliseconds:
//    written as llround(ms * 1e6), read back as ns / 1e6 (so a record read
//    and written again is the same bytes).
//  - Sizes are BYTES ("bytes", "bucket.bytes"; per rank for a collective).
//  - settings: the ddp::Options of the run: "ranks" (world size), "depth",
//    "width", "batch" (global), "iterations" (timed), "warmup", "lr",
//    "bucket_cap_mb" (MB of 2^20 bytes, PyTorch's; DDP only), "overlap"
//    ("none", "per-param", "bucketed"), "algorithm" (all_reduce's),
//    "seed", "sharded" (FSDP-style), "prefetch" (sharded only),
//    "layer_delay_us" (µs of sleep per layer and pass), "link_us_per_mb"
//    (µs of sleep per MiB of a collective).
//  - buckets (DDP; [] when sharded): {"params": [..], "offsets": [..]
//    (elements), "elements", "bytes"}.
//  - iterations: one per timed iteration, in order:
//    {"loss", "reference_loss" (null when not run), "compute_ns", "comm_ns",
//     "waited_ns", "exposed_comm_ns", "overlap_fraction" (0..1), "calls",
//     "timeline": {"backward_end_ns", "end_ns",
//       "layers": [{"rank", "layer", "pass": "forward"|"backward", "begin_ns", "end_ns"}],
//       "fills":  [{"rank", "bucket", "ready_ns", "posted_ns", "layers_done"}],
//       "comm":   [{"call", "collective", "what", "bucket", "layer", "bytes", "begin_ns", "end_ns"}],
//       "waits":  [{"rank", "call", "begin_ns", "end_ns"}]}}
//    The model-clock figures (IterationStats::model_*) and the final
//    parameters are not recorded (read back: NaN and empty).
//  - command: the command line that made the run ("" when not known).
#pragma once
#include <string>

#include "core/labs/ddp/ddp.h"

namespace microddp::ddp {

inline constexpr const char* kDdpRecordFormat = "microddp-ddp-record";
// The "format" of a collective run's record (core/record/record_io.h).
inline constexpr const char* kRunRecordFormat = "microddp-record";

struct DdpRecord {
  Result run;           // options, buckets, per-iteration stats and timelines
  std::string command;  // the command line that made it, or ""
};

// To / from the JSON text above. ddp_record_from_json throws UsageError
// "<where>: missing field 'iterations[0].timeline.comm[2].end_ns'" for a
// missing or mistyped field, and names the field when a value is out of
// range: a rank outside 0..ranks-1, a negative time or size, a span that
// ends before it begins, settings that Options::validate refuses, or as
// many timelines as not settings.iterations.
std::string ddp_record_to_json(const DdpRecord& r);
DdpRecord ddp_record_from_json(const std::string& text, const std::string& where = "DDP record");

// Files: save_ddp_record throws UsageError "cannot write DDP record file
// 'PATH': <reason>"; load_ddp_record "DDP record file 'PATH': is a
// directory" (anything not a regular file), "cannot read ..." or the
// parse errors above, prefixed by the path.
void save_ddp_record(const std::string& path, const DdpRecord& r);
DdpRecord load_ddp_record(const std::string& path);

// Before a run: throws UsageError "--record 'PATH' ..." when PATH is empty,
// a directory, in a folder that does not exist, or cannot be opened for
// writing (nothing is left behind by the probe).
void check_record_path(const std::string& path);

// What kind of record the file holds, by its "format" field:
// kDdpRecordFormat, kRunRecordFormat, or "" when it has neither (or is not
// JSON; the loader of either kind then names the problem). Throws
// UsageError when the file cannot be read.
std::string record_file_format(const std::string& path);

}  // namespace microddp::ddp
