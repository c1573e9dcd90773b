// Internal to core/labs/lesson: a recorded run's steps replayed from its own
// snapshots (recorded_replay.cpp), for record_contradiction
// (read_options.h). Each endpoint's step s is the schedule's ops of step s
// run in list order on the snapshot before it (trace.initial for step 0):
// copy, reduce, swap (the names trade storages) as the rank program runs
// them, recv / recv_reduce with the values the record says the message
// carried (Trace::carried; elements of a message without values are not
// known and not compared). Arithmetic is the kernels' (kernels/cpu/kernels.h)
// in the spec's dtype, so a correct record replays bit for bit; int64
// values beyond 2^53 (not exact in a snapshot's doubles) are not compared.
#pragma once
#include <string>

#include "core/record/record_io.h"

namespace microddp::lesson {

// The first snapshot element, or a snapshot row's storage, that the replay
// of its step does not give, as "FIELD = got, but ...":
//   "trace.steps[0][0].buffers[3].values[2] (R0's accum after step 0) = 13,
//    but step 0's ops on the snapshot before it give 12"
// "" when every known element agrees.
std::string replay_contradiction(const RunRecord& r, const Schedule& sch);

// trace.initial's input rows against the record's inputs (the run's first
// input snapshot is the inputs, or for a floating avg the inputs times
// 1/world size, kernels::premul_avg): "trace.initial[1].buffers[0].values[2]
// (R1's input before step 0) = 7, but inputs[1][2] is 6". "" when they agree.
std::string initial_contradiction(const RunRecord& r);

}  // namespace microddp::lesson
