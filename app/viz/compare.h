// Compare view model: several algorithms of one collective on the same input,
// stepping together, plus a size sweep (measured on the threads backend as
// `microddp bench` measures, predicted by the cost model when it is
// available). No ImGui.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/viz/compare_sources.h"
#include "app/viz/session.h"
#include "core/model/bench.h"

namespace microddp::viz {


struct Compare {
  RunParams base;                          // the shared parameters
  std::vector<std::string> algorithms;     // columns, in order
  // Per column, a title line drawn at its top ("" or absent: none): the
  // runs of --compare-runs (compare_run_title, present.h).
  std::vector<std::string> titles;
  // --compare-runs: "A and B differ: collective all_reduce vs all_gather,
  // world size 4 vs 3" when the two records are not the same problem (drawn
  // above the columns, in --describe); "" when they are (compare_runs_differ).
  std::string runs_warning;
  std::vector<std::unique_ptr<Session>> sessions;  // one per column (null when refused)
  std::vector<std::string> errors;         // per column: why it was refused
  int position = 0;                        // common step position
  std::vector<SweepCurve> sweep;
  std::string crossover;                   // e.g. "Predicted: ring fastest from 373 KiB. Measured here: ring not the fastest at 16 MiB"
  // Points the sweep could not take, each with the reason ("256 MiB: ... exceeds the memory budget").
  std::vector<std::string> skipped;
  PredictionSource source;                 // what every column's prediction is based on
  // Where the sweep's curves come from (compare_sources.h): shm measures
  // here point by point; lab runs the cluster lab in the background;
  // recorded, model and published fill the curves at once. The words below
  // go on screen (set when the sweep starts or ends).
  SourceSpec sweep_source;
  std::string source_label;   // "Source: measured on this machine's shared memory (...)"
  std::string dots_text, lines_text;  // what the dots and the lines are ("" = none)
  std::string source_word = "measured";  // the crossover's word
  std::string source_tag;     // the label in a few words (a short plot's header)
  std::string source_error;   // why the source gave no curves ("" = it did)
  std::string source_note;    // a line under the label: what the source left out ("" = nothing)
  // Sets the source; clears the sweep (start_sweep fills it).
  void set_sweep_source(const SourceSpec& s);
  bool lab_running() const { return lab_ != nullptr; }
  // The live lab's process (its process group's id), -1 when none runs.
  pid_t lab_pid() const { return lab_ ? lab_->pid : -1; }
  // Stops the live lab (LabJob::stop: its process group ended and reaped
  // in the background, the window not waiting) when one runs; the source
  // label then says it was stopped and `why` ("the view was left").
  void stop_lab(const std::string& why);
  // True after stop_lab stopped a running lab, until a sweep, a source or a
  // setup starts anew: a lesson's live lab beat runs it again when its
  // Compare view is shown again (lesson_sync).
  bool lab_stopped() const { return lab_stopped_; }
  // Runs `argv` as the lab's job, as the lab source does with
  // lab_command's (tests start a stand-in command).
  void start_lab_job(std::vector<std::string> argv, double grace_s = 1.0);

  // Default columns for a collective: naive, tree, ring when offered, else
  // the first three algorithms.
  static std::vector<std::string> default_algorithms(Collective c);
  void configure(const RunParams& p, const std::vector<std::string>& algs);
  // Re-prices every column and the sweep's predicted lines (the measured
  // points stay).
  void set_source(const PredictionSource& src);
  int max_steps() const;
  void step();
  void back();
  void reset();
  // Steps every column to the end (position = max_steps()): --compare-runs
  // opens there, each run's buffers and timeline whole (issue 37: it opened
  // "before step 0", links grey, nothing run).
  void go_to_end();
  // The sweep, measured as `microddp bench` measures (core/model/bench.h:
  // run_bench on the threads backend, `warmup` untimed then `iters` timed
  // iterations, rotated buffers, the median iteration), at sizes min_bytes,
  // 4·min_bytes, ... up to max_bytes (nccl-tests' size S, bytes). It runs in
  // increments, one (algorithm, size) point per sweep_step(), so that the
  // window keeps drawing between points; run_sweep does it all at once.
  void start_sweep(int64_t min_bytes, int64_t max_bytes, int iters = 5, int warmup = 2);
  // Measures the next point; false when none is left (the crossovers are
  // then computed).
  bool sweep_step();
  bool sweeping() const { return next_point_ < todo_.size() || lab_ != nullptr; }
  double sweep_progress() const {
    return lab_ ? 0.5 : todo_.empty() ? 1.0 : double(next_point_) / double(todo_.size());
  }
  void run_sweep(int64_t min_bytes, int64_t max_bytes, int iters = 5, int warmup = 2);
  // How busy the CPUs were with other work before a shared-memory sweep
  // (0..1, -1 unknown): start_sweep measures it as `microddp bench` does
  // (cpu_busy_fraction, core/model/calibrate/probes.h: 0.2 s of /proc/stat,
  // before any thread starts) and passes it here; over kBusyWarnFraction the
  // source's line and tag say so (sweep_busy_warning). Tests give a fraction.
  void note_busy(double busy);
  // Index into the ring curve's points from which ring is the fastest at
  // every larger size: by the measured points, and by the predicted lines;
  // -1 when there is none (or no ring curve, or no prediction).
  int crossover_measured = -1, crossover_predicted = -1;
  // Where the predicted lines cross (S in bytes), found by bisecting the
  // model between the point before crossover_predicted and it, and the
  // ring's predicted time there (µs); the sweep's own point when the ring
  // is fastest from the first one; -1 when there is no predicted crossover.
  // The points are 4x apart: the crossover a lesson derives from α/β lies
  // between two of them.
  double crossover_predicted_bytes = -1, crossover_predicted_us = -1;
  // Sets the crossovers and their sentence from `sweep` (called when the
  // last point is in; public so tests can give it hand-made curves).
  void finish_sweep();

 private:
  struct Point {
    size_t curve;
    int64_t bytes;
  };
  // bench's options for one algorithm at one size (the sweep's points).
  BenchOptions options_for(const std::string& algorithm, int64_t bytes) const;
  // The model's time (µs) of `algorithm` at `bytes` under `source`; -1
  // when it has none or refuses the size.
  double predicted_at(const std::string& algorithm, int64_t bytes) const;
  // Fills the sweep from a source other than shm (the lab: starts its job).
  void load_source(int64_t min_bytes, int64_t max_bytes);
  void apply(SourceSweep&& s);
  std::unique_ptr<LabJob> lab_;
  bool lab_stopped_ = false;
  std::vector<Point> todo_;
  size_t next_point_ = 0;
  int iters_ = 5, warmup_ = 2;
};

// The live lab's sizes: at most 16 MiB (8 nodes at 1 Gbit/s: naive takes
// about 2 s an iteration there), at least 4 KiB.
inline constexpr int64_t kLabMaxBytes = int64_t{16} << 20, kLabMinBytes = 4096;
// The compare view's default largest sweep size, bytes: above the size from
// which ring beats naive and tree at 8 ranks on the threads backend (on a
// busy 2-core machine `microddp bench` saw ring first only at 64 MiB).
inline constexpr int64_t kSweepMaxBytes = int64_t{64} << 20;
inline constexpr int64_t kSweepMinBytes = 64;
// `microddp-viz --view compare` without --ranks runs on this many ranks:
// at the seed's 3, naive and tree both load their busiest rank with 48 B;
// at 8 (8 float32 per rank) naive 448 B, tree 192 B, ring 112 B.
inline constexpr int kCompareDefaultRanks = 8;

std::string human_bytes(double b);

// Above this fraction of the CPUs busy with other work before a measured
// sweep, its dots are disturbed: `microddp bench`'s threshold (its "#
// warning: the CPUs were N% busy ..." line, app/cli/cmd_bench.cpp).
inline constexpr double kBusyWarnFraction = 0.25;
// The warning for a shared-memory sweep begun with the CPUs `busy` (0..1)
// busy, in bench's words, short enough that the source's line stays one
// line on a 1280 px slide at 18 px (the columns above keep their text):
// "warning: the CPUs were 63% busy before this sweep"; "" at or under
// kBusyWarnFraction, or when unknown (busy < 0).
std::string sweep_busy_warning(double busy);

// How many points of each predicted line the plot draws: all of them, or,
// while a question withholds the crossover (`withheld`), only those before
// the predicted crossover's bracket (crossover_predicted: the lines end at
// the last swept size where the ring is not yet the fastest, so they
// approach but are not seen to cross; issue 37, lesson 03 beats 4-5 showed
// them crossing between 256 KiB and 1 MiB before beat 5 asked where). 0
// when the ring is the fastest from the first size (no line drawn).
size_t predicted_points_drawn(const Compare& cmp, bool withheld);

// Said on the plot beside the lines when they are a preset's because this
// machine has no calibration profile (the source is the profile): "model:
// preset infiniband, not this machine — run microddp calibrate" (issue 37,
// lesson 05 beat 6: the line 2-3 decades below this machine's dots read as
// its own). "" when a profile exists, the source names a preset or a
// topology on purpose, or the sweep is not measured here (shm).
std::string model_not_here_label(const Compare& cmp);

}  // namespace microddp::viz
