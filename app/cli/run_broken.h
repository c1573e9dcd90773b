// `microddp run --algorithm single_buffered_ring` (a broken form in the
// registry, AlgorithmInfo::broken_name): the one-buffer ring, which the
// checker rejects, run for real on the threads backend in lockstep mode,
// with every send's read delayed by a seeded random 0..MAX_US µs
// (--delay RANK,MAX_US; RANK -1 = every rank) and seeds 1..--seeds N tried
// in order until one corrupts the outputs (the lesson `corrupts` check's
// search, core/labs/lesson/lesson.h first_corrupting_seed). Prints which
// seed corrupted and the first wrong element; --save-record FILE keeps that
// run, its delay and seed (core/record/record_io.h "broken", "delay"), and
// the values each message carried (Trace::carried).
// Exit: 1 when a seed corrupted the outputs (what this run sets out to
// show), 0 when none of the N did, 2 for bad options.
#pragma once
#include <optional>
#include <string>

#include "app/cli/run_options.h"

namespace microddp::cli {

struct BrokenArgs {
  std::string delay;  // "RANK,MAX_US" as typed; "" = no delay
  int seeds = 1;
};

// Throws UsageError naming the bad value: --backend other than threads,
// --mode free, --delay not "RANK,MAX_US" (rank -1..ranks-1, 0..1000000 µs),
// options the broken run does not take (--input, --protocol, --nodes); cmd_run.cpp
// refuses --trace, --steps, --outputs, --full, --repeat-steps, --preset,
// --profile, --alpha, --bandwidth, --gamma and --root by name before this.
int run_broken(const RunArgs& a, const BrokenArgs& b, const std::optional<std::string>& record_file, bool json);

}  // namespace microddp::cli
