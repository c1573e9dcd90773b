// Chrome / Perfetto trace export of a recorded run (microddp run --trace).
#pragma once
#include <string>
#include <vector>

#include "core/ir/trace.h"

namespace microddp {

// Chrome / Perfetto trace JSON ("traceEvents"): one process per rank, named
// threads (tracks) for steps, sends, recvs and local reductions, complete
// ("X") slices, a flow arrow from each send to the recv that matched it, and
// counters of bytes sent/received. predicted_step_us (may be empty) is
// attached to each step slice as args.predicted_us; the step's warm timing
// (Trace::step_timing, when measured) as args.median_us, p10_us, p90_us,
// repetitions, first_run_us (µs) and includes_barrier. The slice itself
// spans the real (first) run.
std::string chrome_trace_json(const Schedule& s, const Trace& t,
                              const std::vector<double>& predicted_step_us = {});

}  // namespace microddp
