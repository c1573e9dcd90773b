// Symbolic checker (in the spirit of MSCCLang's checks): runs a Schedule on
// contributor sets instead of numbers, and proves, before anything runs,
// that
//  - every send has its matching recv (same step, link, order and length)
//    and nothing deadlocks under the execution rules of core/schedule.h;
//  - no op reads or writes outside its buffer, no reduction touches
//    elements that were never written;
//  - no recv lands in elements whose send is still in flight, and no send
//    reads elements whose recv is still in flight (the MPI_Isend rule that
//    double buffering exists for);
//  - every output element holds exactly the contributors the collective
//    promises, each exactly once (e.g. all_reduce: element i of every rank
//    holds input element i of every rank); a barrier's ranks each hear,
//    directly or not, from every rank;
//  - out-of-place calls leave every input untouched.
// The cost is proportional to the number of ops and chunk boundaries, not to
// the element count (buffers are kept as runs of like elements).
#pragma once
#include <stdexcept>
#include <string>

#include "core/ir/schedule.h"

namespace microddp {

// Throws ScheduleError describing the first violation (step, rank, op,
// elements, what was expected).
void check_schedule(const Schedule& s);

}  // namespace microddp
