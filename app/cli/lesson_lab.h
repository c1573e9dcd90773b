// The lab beats of `microddp lesson` (app/cli/cmd_lesson.cpp): a lesson's
// LabRequest run as `microddp cluster ... -- bench --backend mpi ... --json`
// by this same executable (lesson_lab.cpp).
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "core/labs/lesson/lesson.h"

namespace microddp::cli {

// "cluster lab · 2 nodes × 2 ranks · NIC ... · median of N iterations": the beat's run line.
std::string lab_line(const lesson::LabRequest& q);

// One line of a command's output (stdout and stderr merged), without its newline.
using LabLine = std::function<void(const std::string& line)>;
// Runs a shell command line, calling on_line for each line of its output as
// it comes; returns its exit status (128 + the signal when one killed it), or
// -1 when it could not be started.
using LabCommand = std::function<int(const std::string& command, const LabLine& on_line)>;

// The shipped LabCommand: popen(command) (the command merges its stderr).
int run_shell_command(const std::string& command, const LabLine& on_line);

// The CLI's LabRunner (run_lab): MICRODDP_LESSON_NO_LAB=1 keeps the lab off
// (status unavailable); else run_cluster_lab_with(q, run_shell_command, stdout).
lesson::LabRun run_cluster_lab(const lesson::LabRequest& q);

// The lab run of q through `command` (the seam a test fills with a lab's
// output, so that no lab starts): the command line
//   EXE cluster --nodes N --ranks-per-node G --nic 'RATE' -- bench --backend mpi
//     --collective C --algorithm 'A,B' -b S -e S -n ITERS -w 1 --json 2>&1
// (EXE: this executable), its JSON rows read back as the run's rows (time_us,
// p10_us, p90_us in µs -> s); its "cluster: NIC check" line and bench's
// "# warning: the CPUs were ..." line written to `out` as they come; its
// "error:" lines the reason of a run that failed (exit 2: unavailable, the lab
// cannot be made here; another exit or missing rows: failed). A failed run is
// tried once more, said on `out`: on a loaded machine the ranks of one job can
// miss the MPI backend's start-up deadline.
lesson::LabRun run_cluster_lab_with(const lesson::LabRequest& q, const LabCommand& command, std::FILE* out);

// Prints the run's rows (median, p10, p90 in s, with the model's time), or why it did not run.
void print_lab(const lesson::LabRun& run, std::FILE* out = stdout);

}  // namespace microddp::cli
