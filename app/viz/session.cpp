#include "app/viz/session.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/algorithms/alternatives.h"
#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/ir/limits.h"
#include "core/ir/reference.h"
#include "core/labs/lesson/lesson.h"
#include "core/record/data.h"

namespace microddp::viz {

namespace {
// order_dependence for small runs only: the scalar evaluation and its
// alternatives are cheap there, and the marks are for cells one can read.
OrderDependence small_order_dependence(const Schedule& s, const RankData& in) {
  int64_t total = 0;
  for (int r = 0; r < s.world_size(); ++r) total += s.spec.output_count(r);
  if (total > 65536) return {};
  try {
    return order_dependence(s, in, [&] { return other_algorithm_schedules(s.spec); });
  } catch (const ScheduleError&) {
    return {};  // a schedule the checker rejects (the one-buffer ring): no marks
  }
}
}  // namespace

bool is_fill(const std::string& data) {
  return data.empty() || data == "iota" || data == "rank" || data.rfind("random", 0) == 0;
}

RankData make_inputs(const CollectiveSpec& s, const std::string& data) {
  if (is_fill(data)) return microddp::make_inputs(s, "", std::nullopt, data);
  return microddp::make_inputs(s, data, std::nullopt, "");
}

Session::~Session() { run_.reset(); }

namespace {
// The one-buffer ring is the unchunked ring's broken form (the registry's
// AlgorithmInfo::broken): another algorithm picked in the controls runs as
// itself, checked. The broken forms are all_reduce rings.
const AlgorithmInfo* broken_of(const RunParams& p) {
  if (!p.broken) return nullptr;
  const AlgorithmInfo* a = find_algorithm(p.spec.algorithm, Collective::all_reduce);
  return a && a->broken ? a : nullptr;
}
bool shows_broken(const RunParams& p) { return broken_of(p) != nullptr; }

// The window's own cap, below the other commands' (core/ir/limits.h).
void check_view_ranks(int n, const char* what) {
  if (n < 1 || n > kMaxViewRanks)
    throw UsageError(fmt::format("{} {} is outside 1..{}: the window colours every byte by the ranks it came from, one "
                                 "bit per rank in a {}-bit mask (`microddp run` takes up to {} ranks)",
                                 what, n, kMaxViewRanks, kMaxViewRanks, kMaxRanks));
}
}  // namespace

std::string recorded_label(const RecordOrigin& o) {
  if (o.machine.empty() && o.date.empty()) return "recorded run (machine and date not recorded)";
  if (o.machine.empty()) return fmt::format("recorded run ({})", o.date);
  if (o.date.empty()) return fmt::format("recorded run ({})", o.machine);
  return fmt::format("recorded run ({}, {})", o.machine, o.date);
}

namespace {
// What a saved broken run (RunRecord::broken, e.g. single_buffered_ring) came
// to, as the lesson's beat and --replay show it: its seed, machine and date,
// and whether its outputs differ from the correct ones. None for a record of
// a correct algorithm. max_seeds < 0: the record's own tries.
std::optional<BrokenRun> recorded_broken_run(const RunRecord& rec, int max_seeds) {
  if (rec.broken.empty()) return std::nullopt;
  BrokenRun b;
  b.recorded = true;
  b.machine = rec.origin.machine;
  b.date = rec.origin.date;
  if (rec.delay) b.seed = rec.delay->seed, b.tries = rec.delay->tries;
  b.max_seeds = max_seeds >= 0 ? max_seeds : b.tries;
  b.corrupted = !outputs_match(rec.spec, rec.inputs, rec.outputs, reference_outputs(rec.spec, rec.inputs), &b.why);
  if (!b.corrupted) b.why.clear();
  return b;
}
}  // namespace

void Session::configure_recorded(const RunParams& p) {
  const RunRecord& rec = *p.recorded;
  check_view_ranks(rec.spec.world_size, "record: ranks");
  auto sched = std::make_unique<Schedule>(record_schedule(rec));
  if (rec.broken.empty()) check_schedule(*sched);
  Provenance prov = compute_provenance(*sched);
  std::optional<BrokenRun> br = recorded_broken_run(rec, p.broken ? p.broken->max_seeds : -1);
  run_.reset();
  done_trace_.reset();
  schedule_ = std::move(sched);
  params_ = p;
  broken_ = std::move(br);
  adopt_record(rec, std::move(prov));
  recorded_label_ = viz::recorded_label(rec.origin);  // a lesson's recording is labelled even without its origin
}

void Session::configure(const RunParams& p) {
  measured_note_.clear();
  if (p.recorded && p.recorded->spec == p.spec) {
    configure_recorded(p);
    return;
  }
  if (p.backend != "threads")
    throw UsageError(fmt::format("backend '{}' is not available in the viewer (expected: threads)", p.backend));
  check_view_ranks(p.spec.world_size, "ranks");
  CollectiveSpec spec = p.spec;
  AutoChoice choice;
  if (spec.algorithm == "auto") {
    const ModelInForce m = resolve_model(spec, source_);
    choice = m.network ? choose_algorithm(spec, m.flat, &*m.network) : choose_algorithm_flat(spec, m.flat, true);
    spec.algorithm = choice.chosen;
  }
  std::unique_ptr<Schedule> sched;
  if (shows_broken(p)) {
    // The one-buffer ring is what the checker rejects: planned unchecked.
    if (spec.collective != Collective::all_reduce)
      throw UsageError(fmt::format("the single-buffered ring is an all_reduce, not a {}", name(spec.collective)));
    if (p.mode != Mode::lockstep)
      throw UsageError("the single-buffered ring is shown in lockstep mode only (its snapshots are per step)");
    sched = std::make_unique<Schedule>(broken_of(p)->broken(spec));
  } else {
    sched = std::make_unique<Schedule>(make_schedule(spec));
    check_schedule(*sched);
  }
  RankData inputs = make_inputs(spec, p.data);
  Provenance prov = compute_provenance(*sched);
  // Commit: the old run refers to the old schedule, so it goes first.
  replay_ = false;
  recorded_label_.clear();
  run_.reset();
  done_trace_.reset();
  outputs_.clear();
  schedule_ = std::move(sched);
  params_ = p;
  auto_ = std::move(choice);
  inputs_ = std::move(inputs);
  order_ = small_order_dependence(*schedule_, inputs_);
  prov_ = std::move(prov);
  pred_ = predict(*schedule_, source_);
  start_run();
}

void Session::set_source(const PredictionSource& src) {
  if (src == source_) return;
  const PredictionSource old = source_;
  source_ = src;
  if (!schedule_) return;
  if (params_.spec.algorithm == "auto" && !replay_) {
    try {
      const ModelInForce m = resolve_model(params_.spec, source_);
      const AutoChoice c = m.network ? choose_algorithm(params_.spec, m.flat, &*m.network)
                                     : choose_algorithm_flat(params_.spec, m.flat, true);
      if (c.chosen != schedule_->spec.algorithm) {
        configure(params_);  // a different algorithm: plan and run it
        return;
      }
      auto_ = c;
    } catch (...) {
      source_ = old;
      throw;
    }
  }
  pred_ = predict(*schedule_, source_);
}

void Session::load_replay(const RunRecord& rec) {
  const CollectiveSpec& spec = rec.spec;
  check_view_ranks(spec.world_size, "record: ranks");
  auto sched = std::make_unique<Schedule>(record_schedule(rec));  // a broken form's record: its own schedule, unchecked
  if (rec.broken.empty()) check_schedule(*sched);
  const int n = spec.world_size;
  if (rec.trace.world_size != n || static_cast<int>(rec.trace.steps.size()) != sched->num_steps() ||
      static_cast<int>(rec.outputs.size()) != n)
    throw UsageError(fmt::format("record: the trace has {} steps for {} ranks but the schedule {} steps for {} ranks",
                                 rec.trace.steps.size(), rec.trace.world_size, sched->num_steps(), n));
  for (const auto& st : rec.trace.steps)
    if (static_cast<int>(st.size()) != n) throw UsageError("record: a step of the trace does not cover every rank");
  Provenance prov = compute_provenance(*sched);
  std::optional<BrokenRun> br = recorded_broken_run(rec, -1);
  run_.reset();
  schedule_ = std::move(sched);
  params_ = RunParams{};
  params_.spec = spec;
  params_.data = "record";
  params_.mode = rec.trace.mode;
  params_.backend = rec.trace.backend;
  if (br) {
    // A broken form's record (lessons/data/single-buffered-ring-3x3.json):
    // titled and bannered as the lesson shows it, not as the correct ring.
    RunParams::Broken b;
    if (rec.delay) b.delay_rank = rec.delay->rank, b.max_delay_us = rec.delay->max_delay_us;
    else b.max_delay_us = 0;
    b.max_seeds = br->max_seeds;
    params_.broken = b;
  }
  broken_ = std::move(br);
  adopt_record(rec, std::move(prov));
}

void Session::adopt_record(const RunRecord& rec, Provenance prov) {
  auto_ = AutoChoice{};
  inputs_ = rec.inputs;
  order_ = small_order_dependence(*schedule_, inputs_);
  outputs_ = rec.outputs;
  prov_ = std::move(prov);
  pred_ = predict(*schedule_, source_);
  done_trace_ = rec.trace;
  recorded_label_ = rec.origin.empty() ? "" : viz::recorded_label(rec.origin);
  position_ = 0;
  replay_ = true;  // reset() returns to the inputs; nothing runs
}

void Session::start_run() {
  if (replay_) {  // the run already happened: back to the inputs
    position_ = 0;
    return;
  }
  run_.reset();
  done_trace_.reset();
  outputs_.clear();
  broken_.reset();
  position_ = 0;
  if (shows_broken(params_)) {
    // The lesson's own seed search (the `corrupts` check's runs), recorded:
    // the whole run happens here and stepping replays its snapshots.
    const RunParams::Broken& b = *params_.broken;
    DelayHook d;
    d.rank = b.delay_rank;
    d.max_delay_us = b.max_delay_us;
    lesson::SeedSearch found = lesson::first_corrupting_seed(*schedule_, inputs_, d, b.max_seeds, true);
    real_steps_ += int64_t{found.tries} * schedule_->num_steps();
    broken_ = BrokenRun{found.found.seed, found.tries, b.max_seeds, found.found.corrupted, found.found.why, false, {}, {}};
    outputs_ = std::move(found.found.run.outputs);
    done_trace_ = std::move(found.found.run.trace);
    return;
  }
  RunOptions opt;
  opt.snapshot_limit = 4096;
  opt.repeat_steps = kRepeatStepsAuto;  // step times as warm medians (lockstep)
  opt.protocol = params_.protocol;
  if (params_.mode == Mode::free) {
    opt.mode = Mode::free;
    RunResult res = run_threads(*schedule_, inputs_, opt);
    real_steps_ += schedule_->num_steps();
    outputs_ = std::move(res.outputs);
    done_trace_ = std::move(res.trace);
    return;
  }
  run_ = std::make_unique<SteppedRun>(*schedule_, inputs_, opt);
  if (schedule_->num_steps() == 0) run_one();
}

int Session::steps_run() const {
  if (done_trace_) return num_steps();
  return run_ ? run_->steps_done() : 0;
}

const Trace& Session::trace() const {
  if (done_trace_) return *done_trace_;
  return run_->trace();
}

void Session::run_one() {
  if (!run_) return;
  if (!run_->finished()) {
    try {
      run_->step();
    } catch (const std::runtime_error&) {
      // The paused rank threads gave up waiting (the threads backend's
      // watchdog); start a fresh real run and re-run the steps already shown.
      const int done = run_->steps_done();
      RunOptions opt;
      opt.snapshot_limit = 4096;
      opt.repeat_steps = kRepeatStepsAuto;
      opt.protocol = params_.protocol;
      run_.reset();
      run_ = std::make_unique<SteppedRun>(*schedule_, inputs_, opt);
      for (int k = 0; k <= done; ++k) run_->step();
      real_steps_ += done;
    }
    ++real_steps_;
  }
  if (run_->finished()) {
    RunResult res = run_->finish();
    outputs_ = std::move(res.outputs);
    done_trace_ = std::move(res.trace);
    run_.reset();
  }
}

bool Session::step() {
  if (!schedule_ || position_ >= num_steps()) return false;
  if (position_ >= steps_run()) run_one();
  ++position_;
  return true;
}

bool Session::back() {
  if (position_ <= 0) return false;
  --position_;
  return true;
}

void Session::seek(int k) {
  k = std::clamp(k, 0, num_steps());
  while (position_ < k) step();
  position_ = k;
}

void Session::reset() {
  if (schedule_) start_run();
}

int64_t Session::step_ns(int s) const {
  if (!schedule_ || s < 0 || s >= steps_run()) return -1;
  return trace().step_ns(s);
}

int64_t Session::measured_ns() const {
  if (!schedule_) return 0;
  if (params_.mode == Mode::free) return done_trace_ ? done_trace_->total_ns : 0;
  int64_t t = 0;
  for (int s = 0; s < steps_run(); ++s) t += trace().timing(s).median_ns;
  return t;
}

int64_t Session::first_run_ns() const {
  if (!schedule_ || params_.mode == Mode::free) return 0;
  int64_t t = 0;
  for (int s = 0; s < steps_run(); ++s) t += trace().timing(s).first_run_ns;
  return t;
}

int Session::repetitions() const {
  if (!schedule_ || params_.mode == Mode::free || steps_run() == 0) return 0;
  int r = trace().timing(0).repetitions;
  for (int s = 1; s < steps_run(); ++s) r = std::min(r, static_cast<int>(trace().timing(s).repetitions));
  return r;
}

}  // namespace microddp::viz
