// The viewer's model: one planned, checked and really executed collective.
// No ImGui, no GL (Tracy's split): the panels only read it and call its
// actions. Stepping is real: step() runs the next step of the schedule on the
// rank threads (SteppedRun, lockstep) unless it was already run, in which case
// it replays the recorded snapshot. back() and seek() only replay.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/viz/prediction.h"
#include "app/viz/provenance.h"
#include "core/algorithms/registry.h"
#include "core/ir/order_verdict.h"
#include "core/exec/executor.h"
#include "core/record/record_io.h"

namespace microddp::viz {

// Everything the controls can change. The run itself is core's
// CollectiveSpec (sizes in ELEMENTS); the viewer's default is the seed:
// all_reduce, the registry's viewer_algorithm (ring_unchunked), 3 ranks x 3
// float32 elements.
struct RunParams {
  CollectiveSpec spec = [] {
    CollectiveSpec s;
    s.algorithm = viewer_algorithm();
    s.world_size = 3;
    s.count = 3;
    return s;
  }();
  // A fill pattern as `microddp run --fill` takes it ("iota", "rank",
  // "random:SEED"; "" means iota), or explicit rows as `--data` takes them
  // ("1,2,3;4,5,6;7,8,9"). Both go through core (make_inputs below), so the
  // window shows the bytes `microddp run` uses.
  std::string data = "iota";
  Mode mode = Mode::lockstep;
  std::string backend = "threads";
  // How each message travels on the threads backend (core/ir/protocol.h:
  // simple, ll, ll128; RunOptions::protocol); the topology panel shows the
  // LL / LL128 flag words of a message turning over.
  Protocol protocol = Protocol::simple;
  // A deliberately broken run, for lesson beats whose setup is
  // single_buffered_ring with a delay hook: the all_reduce ring with ONE
  // buffer (make_single_buffered_ring, core/algorithms/registry.h), which the
  // checker rejects, run for real on threads with every send's read delayed
  // by up to max_delay_us (on delay_rank, -1 = all) through the lesson's
  // `corrupts` seed search (core/labs/lesson/lesson.h first_corrupting_seed):
  // seeds 1..max_seeds in order, the first whose outputs differ from the
  // reference is shown. It applies to the algorithm whose record has a
  // broken form (AlgorithmInfo::broken: ring_unchunked) (the
  // one-buffer ring is its broken form; any other algorithm, e.g. picked in
  // the controls, runs as itself, checked); spec.collective must then be
  // all_reduce and mode lockstep (UsageError otherwise).
  struct Broken {
    int delay_rank = -1;
    int max_delay_us = 200;
    int max_seeds = 30;
    bool operator==(const Broken&) const = default;
  };
  std::optional<Broken> broken;
  // A saved run shown in place of a live one (a lesson beat's `recorded:`,
  // core/labs/lesson/lesson.h; core/record/record_io.h): when its spec is
  // this spec, configure() takes its schedule (the broken form it names,
  // unchecked), inputs, outputs and trace and runs nothing, so every frame
  // and export of the beat shows the same run; `broken` then only names the
  // form. Another spec (the controls changed it) runs live as above.
  std::shared_ptr<const RunRecord> recorded;
  bool operator==(const RunParams&) const = default;
};

// What the broken run (RunParams::broken) came to: the seed shown, how many
// seeds were run to find it, and whether it corrupted the outputs (false:
// none of the max_seeds runs did, the last one is shown).
struct BrokenRun {
  uint64_t seed = 0;
  int tries = 0;
  int max_seeds = 0;
  bool corrupted = false;
  std::string why;  // core's outputs_match: the first wrong output element
  // Shown from a saved run (RunParams::recorded), not run now: where and
  // when it was made (RunRecord::origin; "" when the file does not say).
  bool recorded = false;
  std::string machine, date;
};

// "recorded run (AMD EPYC 7B13, 2 vCPUs, 2026-12-07)": how the window
// labels a saved run; "recorded run (machine and date not recorded)" when
// the record has neither.
std::string recorded_label(const RecordOrigin& o);

// True when `data` names a fill pattern rather than rows: "iota", "rank" or
// anything starting with "random" (fill_data then checks the seed).
bool is_fill(const std::string& data);
// Per-rank input bytes for `data` (see RunParams::data): core's fill_data or
// parse_data, exactly as `microddp run --fill` / `--data`. Throws UsageError
// naming the bad row or value.
RankData make_inputs(const CollectiveSpec& s, const std::string& data);

class Session {
 public:
  Session() = default;
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Re-plans (make_schedule + check_schedule), computes provenance and the
  // prediction, and starts a fresh real run paused before step 0. Throws
  // UsageError (bad parameters) or ScheduleError; on a throw the previous
  // configuration stays. A broken run (p.broken) is planned unchecked and
  // run to the end here, seeds searched as RunParams::broken says.
  // Algorithm "auto" picks, on the prediction source in force, the algorithm
  // with the lowest predicted time (core's choose_algorithm): the schedule's
  // spec names the chosen one, params() keeps "auto", auto_choice() says why.
  void configure(const RunParams& p);
  bool configured() const { return schedule_ != nullptr; }

  // What the prediction is based on. Changing it re-prices the run without
  // re-running it (an "auto" algorithm is chosen again, which re-plans and
  // re-runs when the choice changes). Throws UsageError when the source
  // does not resolve for an "auto" run; otherwise a bad source shows as
  // "predicted n/a" with the reason.
  void set_source(const PredictionSource& src);
  const PredictionSource& source() const { return source_; }
  // The candidates of the last "auto" choice (empty chosen when the
  // algorithm was named).
  const AutoChoice& auto_choice() const { return auto_; }

  // Shows a run that already happened (microddp-viz --replay FILE, e.g. an
  // MPI run saved by `microddp run --save-record`): rebuilds the schedule
  // from the record's spec (make_schedule + check_schedule) and takes its
  // trace and outputs as the finished run, so step/back/seek only replay and
  // reset() returns to position 0 without running. params().backend is the
  // record's backend (e.g. "mpi"). Throws UsageError / ScheduleError when the
  // record does not fit its spec; a later configure() leaves replay mode.
  // A broken form's record (RunRecord::broken: single_buffered_ring) is
  // shown as a lesson beat shows it: params().broken set (its delays), so
  // the title names the one-buffer ring, and broken() holds the recorded
  // run's banner ("recorded run (machine, date): single-buffered ring ...").
  void load_replay(const RunRecord& rec);
  bool replaying() const { return replay_; }
  // Set while a saved run (RunParams::recorded, or a --replay record that
  // names its machine or date) is shown: its label (recorded_label), else "".
  const std::string& recorded_label() const { return recorded_label_; }
  // Where the measured times come from when not this machine's threads
  // (e.g. "measured: cluster lab, 100 Mbit/s NIC" for a
  // lab record); "" otherwise. configure() clears it.
  void set_measured_note(std::string note) { measured_note_ = std::move(note); }
  const std::string& measured_note() const { return measured_note_; }

  const RunParams& params() const { return params_; }
  const Schedule& schedule() const { return *schedule_; }
  const Provenance& provenance() const { return prov_; }
  const Prediction& prediction() const { return pred_; }
  const RankData& inputs() const { return inputs_; }
  // The output elements whose result depends on the algorithm's order: its
  // exact order leaves the double-precision reference's bound (an
  // intermediate overflowed). core's order_dependence, computed when the
  // run is configured, for runs of at most 65,536 output elements in all
  // (empty marks beyond); first.why explains the first one.
  const OrderDependence& order_dependence() const { return order_; }
  // Set while a broken run (RunParams::broken) is shown; the run is then
  // finished at configure() (step/back/seek replay its snapshots, reset()
  // searches the seeds again).
  const std::optional<BrokenRun>& broken() const { return broken_; }

  // Position = number of steps whose effect is shown (0 = the inputs,
  // num_steps() = the end).
  int position() const { return position_; }
  int num_steps() const { return schedule_ ? schedule_->num_steps() : 0; }
  // Steps really executed so far in this run.
  int steps_run() const;
  // Total real steps executed by this session since it was created (tests).
  int64_t real_steps_executed() const { return real_steps_; }

  // The record of the real run so far (steps < steps_run() are valid).
  const Trace& trace() const;
  // Outputs once every step has run; empty before.
  const RankData& outputs() const { return outputs_; }

  bool step();          // forward one position (runs it for real if needed)
  bool back();          // one position back (replay)
  void seek(int k);     // clamp to [0, num_steps()], running steps as needed
  void reset();         // fresh real run, position 0

  // Measured time of step s (ns), or -1 if it has not run.
  int64_t step_ns(int s) const;
  // Sum of the measured step times of the steps run (lockstep: each step's
  // median over its warm repetitions, Trace::timing, so the cold first run
  // is not the cost), or the free-running wall time once finished (ns).
  int64_t measured_ns() const;
  // The same steps' cold first runs, summed (ns; lockstep only, else 0), and
  // the fewest warm repetitions behind any of their medians (0: none).
  int64_t first_run_ns() const;
  int repetitions() const;

 private:
  void start_run();
  void run_one();

  RunParams params_;
  PredictionSource source_;
  AutoChoice auto_;
  std::unique_ptr<Schedule> schedule_;
  Provenance prov_;
  Prediction pred_;
  RankData inputs_;
  RankData outputs_;
  OrderDependence order_;
  std::unique_ptr<SteppedRun> run_;
  std::optional<Trace> done_trace_;  // once finished (lockstep) or for free-running
  int position_ = 0;
  int64_t real_steps_ = 0;
  bool replay_ = false;
  std::optional<BrokenRun> broken_;
  std::string measured_note_;
  std::string recorded_label_;
  void configure_recorded(const RunParams& p);
  // The record's inputs, outputs, trace and provenance as the shown run, at
  // position 0, replaying (configure_recorded and load_replay).
  void adopt_record(const RunRecord& rec, Provenance prov);
};

}  // namespace microddp::viz
