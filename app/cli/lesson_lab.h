// The lab beats of `microddp lesson` (app/cli/cmd_lesson.cpp): a lesson's
// LabRequest run as `microddp cluster ... -- bench --backend mpi ... --json`
// by this same executable (lesson_lab.cpp).
#pragma once

#include <string>

#include "core/labs/lesson/lesson.h"

namespace microddp::cli {

// "cluster lab · 2 nodes × 2 ranks · NIC ... · median of N iterations": the beat's run line.
std::string lab_line(const lesson::LabRequest& q);

// The CLI's LabRunner (run_lab): MICRODDP_LESSON_NO_LAB=1 keeps the lab off
// (status unavailable); a failed run is tried once more.
lesson::LabRun run_cluster_lab(const lesson::LabRequest& q);

// Prints the run's rows (median, p10, p90 in s, with the model's time), or why it did not run.
void print_lab(const lesson::LabRun& run);

}  // namespace microddp::cli
