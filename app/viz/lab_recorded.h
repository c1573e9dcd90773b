// A lab beat's RECORDED run in the window (`kind: lab` with `view: compare`,
// `compare: {source: recorded, file: data/lab-....json}`; lessons 03 and
// 09): the window cannot start the cluster lab on every machine, so it shows
// the run kept as a file (core/model/lab_record.h, recorded with
// scripts/record-lab.sh: the beat's own command, machine and date) and
// checks the beat's lab checks on it, each labelled as recorded.
// No ImGui, no processes: tests call it directly.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/viz/compare_sources.h"
#include "core/labs/lesson/lesson.h"
#include "core/model/lab_record.h"

namespace microddp::viz {

// The recorded run a lab beat shows, or none (not a lab beat, or its view
// is not Compare with source recorded). Throws UsageError naming the file
// when it cannot be read (the loader checked it when the lesson loaded).
std::optional<LabRecord> beat_record(const lesson::Beat& b);

// The record's rows at q's size as the lab would have returned them for q:
// status ok, one LabRow per requested algorithm (median, p10, p90 in
// seconds, from the record's µs); status unavailable, naming the file, when
// an algorithm has no row at q.bytes.
lesson::LabRun recorded_lab_run(const LabRecord& r, const lesson::LabRequest& q);

// The beat's checks on the recorded runs: this beat's and, for a check over
// another run (`over_run: NAME`), the recorded run of the earlier beat of
// that name. Each result's `what` starts "recorded DATE: ". A lab beat
// without a recorded run gives evaluate(b) (every lab check skipped).
std::vector<lesson::CheckResult> evaluate_recorded(const lesson::Lesson& l, int beat);

// The line the window shows over a recorded lab beat:
// "RECORDED cluster lab run, 2026-12-07, AMD EPYC, 2 vCPUs (lscpu): 2 nodes x
// 1 rank, NIC 100mbit, 4 MiB per rank, median of 5: ring 358 ms, p10-p90 356 ms to 369 ms" (rows apart by "; ")
// followed, for each measured_ratio check, by "; ring / ring in run 'one_node' (1.24 ms) = 289.0, the check: > 10"
// (no closing parenthesis: the window shows the note in parentheses).
// "" for a beat without a recorded run.
std::string recorded_note(const lesson::Lesson& l, int beat);

// The runs the beat's measured_ratio checks compare with in another beat
// (`over_run: NAME`), as one-point curves for the compare view beside the
// beat's own: algorithm "ring, run 'one_node' (1 node x 2 ranks)", the
// recorded median, p10, p90 and model time (µs) at that beat's size. Empty
// when the beat has no recorded run or no such check.
std::vector<SweepCurve> compared_run_curves(const lesson::Lesson& l, int beat);

// The sweep source a compare beat asks for (`compare: {source, file,
// system, ranks, protocols}`); a lab beat with `source: lab` also gives its
// request's NIC rate and timed iterations (`lab: {nic: 100mbit, iters: 3}`),
// which the live lab then runs with. Throws UsageError for an unknown source.
SourceSpec beat_source(const lesson::Beat& b);
// Whether `s` is the live lab that beat b asks for (source lab, its NIC and
// iterations): only such a sweep's points are b's run.
bool is_beats_live_lab(const SourceSpec& s, const lesson::Beat& b);
// Where a live lab beat's run stands before its rows are in, for its
// checks' lines (lesson_sync): running (the Compare view started it),
// stopped (the view was left: showing Compare again runs it anew), ended
// (the job ended without the beat's rows; `why` says what it printed).
enum class LiveLab { running, stopped, ended };
// b's checks, each skipped, its actual saying where the run stands:
//   running: "waiting for the lab run (the Compare view runs it now)"
//   stopped: "the lab run was stopped when the Compare view was left; it runs again when Compare is shown"
//   ended:   "the cluster lab gave no rows for this beat: WHY"
std::vector<lesson::CheckResult> live_lab_pending(const lesson::Beat& b, LiveLab state, const std::string& why = "");

// The live lab's result in Compare (`compare: {source: lab}`, lesson 03's
// last beat) as the lab beat's run: each of q's algorithms at q.bytes from
// the sweep's curves (µs to s); none until every one has that point.
std::optional<lesson::LabRun> live_lab_run(const std::vector<SweepCurve>& sweep, const lesson::LabRequest& q);
// bench's "# warning: the CPUs were N% busy ..." line in the live lab's
// output (`microddp cluster ... -- bench ... --json`, stdout and stderr),
// without its "# ", for the Compare view's note: "" when bench printed none.
std::string lab_busy_warning(const std::string& lab_output);
// The beat's checks on that run, each `what` starting "measured now in the
// cluster lab: ".
std::vector<lesson::CheckResult> evaluate_live(const lesson::Beat& b, const lesson::LabRun& run);

}  // namespace microddp::viz
