#include "app/viz/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/viz/lab_recorded.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/probes.h"
#include "core/model/cost_model.h"
#include "core/model/nccl_tests.h"

namespace microddp::viz {

std::string human_bytes(double b) {
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.3g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.3g} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.3g} KiB", b / 1024.0);
  return fmt::format("{} B", static_cast<int64_t>(b));
}

// The registry's compare set (AlgorithmInfo::compare_order: naive, tree,
// ring), filled to three from the teaching order.
std::vector<std::string> Compare::default_algorithms(Collective c) { return compare_set(c, 3); }

namespace {
// A lab job whose result is no longer wanted (a new source or setup, the
// view left): stopped (its process group ended, LabJob::stop) and kept
// until its thread has reaped it, so that dropping it does not wait for
// the lab; the ones already reaped are let go here, the rest when the
// program ends (each then waits at most its grace period).
void retire(std::unique_ptr<LabJob>& job) {
  static std::vector<std::unique_ptr<LabJob>> retired;
  std::erase_if(retired, [](const std::unique_ptr<LabJob>& j) { return j->ready(); });
  if (!job) return;
  job->stop();
  retired.push_back(std::move(job));
}
}  // namespace

void Compare::configure(const RunParams& p, const std::vector<std::string>& algs) {
  retire(lab_);
  lab_stopped_ = false;
  base = p;
  algorithms = algs;
  titles.clear();
  runs_warning.clear();
  sessions.clear();
  errors.clear();
  sweep.clear();
  crossover.clear();
  position = 0;
  for (const auto& a : algs) {
    RunParams q = p;
    q.spec.algorithm = a;
    // Segments and channels only where the record takes them (the others
    // refuse them).
    const AlgorithmInfo* info = find_algorithm(a, q.spec.collective);
    if (!info || !info->pipelines) q.spec.segments = 1;
    if (!info || !info->channels) q.spec.channels = 1;
    auto s = std::make_unique<Session>();
    try {
      s->set_source(source);
      s->configure(q);
      sessions.push_back(std::move(s));
      errors.emplace_back();
    } catch (const std::exception& e) {
      sessions.push_back(nullptr);
      errors.emplace_back(e.what());
    }
  }
}

void Compare::set_source(const PredictionSource& src) {
  if (src == source) return;
  source = src;
  for (size_t i = 0; i < sessions.size(); ++i)
    if (sessions[i]) try {
        sessions[i]->set_source(src);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
  if (sweep_source.kind != SweepSource::shm) return;  // their lines are not this model's
  for (SweepCurve& c : sweep) {
    c.predicted_us.clear();
    for (int64_t count : c.counts) {
      CollectiveSpec spec = base.spec;
      spec.algorithm = c.algorithm;
      spec.count = count;
      spec.segments = 1;
      if (const AlgorithmInfo* info = find_algorithm(c.algorithm, spec.collective); !info || !info->channels)
        spec.channels = 1;
      const Prediction p = predict(make_schedule(spec), source);
      if (!p.available) {
        c.predicted_us.clear();
        break;
      }
      c.predicted_us.push_back(p.total_us);
    }
  }
  if (!sweep.empty() && !sweeping()) finish_sweep();  // the predicted crossover moves with the lines
}

int Compare::max_steps() const {
  int m = 0;
  for (const auto& s : sessions)
    if (s) m = std::max(m, s->num_steps());
  return m;
}

void Compare::step() {
  if (position >= max_steps()) return;
  ++position;
  for (auto& s : sessions)
    if (s && s->position() < std::min(position, s->num_steps())) s->step();
}

void Compare::back() {
  if (position <= 0) return;
  --position;
  for (auto& s : sessions)
    if (s) s->seek(std::min(position, s->num_steps()));
}

void Compare::reset() {
  position = 0;
  for (auto& s : sessions)
    if (s) s->reset();
}

void Compare::go_to_end() {
  while (position < max_steps()) step();
}

void Compare::set_sweep_source(const SourceSpec& s) {
  sweep_source = s;
  retire(lab_);
  lab_stopped_ = false;
  todo_.clear();
  next_point_ = 0;
  sweep.clear();
  crossover.clear();
  skipped.clear();
  source_error.clear();
  source_note.clear();
  crossover_measured = crossover_predicted = -1;
  crossover_predicted_bytes = crossover_predicted_us = -1;
}

void Compare::apply(SourceSweep&& s) {
  sweep = std::move(s.curves);
  source_label = std::move(s.label);
  dots_text = std::move(s.dots);
  lines_text = std::move(s.lines);
  source_word = std::move(s.word);
  source_tag = std::move(s.tag);
  source_note = std::move(s.note);
}

void Compare::stop_lab(const std::string& why) {
  if (!lab_) return;
  retire(lab_);
  lab_stopped_ = true;
  source_label = fmt::format("Source: {} - stopped ({}); Measure sweep runs it again", picker_label(SweepSource::lab), why);
}

void Compare::start_lab_job(std::vector<std::string> argv, double grace_s) {
  retire(lab_);
  lab_stopped_ = false;
  lab_ = LabJob::start(std::move(argv), grace_s);
}

void Compare::load_source(int64_t min_bytes, int64_t max_bytes) {
  const SourceSpec& src = sweep_source;
  try {
    switch (src.kind) {
      case SweepSource::shm: return;
      case SweepSource::recorded: {
        const LabRecord r = load_lab_record(src.file.empty() ? default_recorded_file() : src.file);
        // Another collective's record is not this view's (issue 37: all_reduce plotted under all_gather).
        if (r.collective != name(base.spec.collective))
          throw UsageError(fmt::format("the record is {}, this view {}", r.collective, name(base.spec.collective)));
        // --compare-runs' columns are titled "A: ring (a.json)": the record's rows go by the runs' algorithms.
        std::vector<std::string> algs = algorithms;
        for (size_t i = 0; i < algs.size() && !titles.empty(); ++i)
          if (i < sessions.size() && sessions[i]) algs[i] = sessions[i]->params().spec.algorithm;
        apply(recorded_sweep(r, algs));
        break;
      }
      case SweepSource::model:
        apply(model_sweep(src.system, base.spec.collective, src.ranks > 0 ? src.ranks : base.spec.world_size, min_bytes,
                          max_bytes, src.protocols));
        break;
      case SweepSource::published:
        apply(published_sweep(load_nccl_tests(src.file.empty() ? default_published_file() : src.file), src.system));
        break;
      case SweepSource::lab: {
        const int nodes = base.spec.world_size;
        if (nodes < 2 || nodes > 16)
          throw UsageError(fmt::format("the cluster lab runs 2 to 16 nodes (one rank each); this view has {} ranks", nodes));
        std::vector<std::string> algs;
        for (size_t i = 0; i < algorithms.size(); ++i)
          if (sessions[i]) algs.push_back(algorithms[i]);
        const auto argv = lab_command(base.spec.collective, nodes, src.nic, algs, std::max(min_bytes, kLabMinBytes),
                                      std::clamp(max_bytes, kLabMinBytes, kLabMaxBytes), src.iters);
        source_label = fmt::format("Source: cluster lab, running ({} nodes x 1 rank, NIC {}): {}", nodes, src.nic,
                                   fmt::join(argv.begin() + 1, argv.end(), " "));
        lab_ = LabJob::start(argv);
        return;
      }
    }
  } catch (const std::exception& e) {
    source_error = e.what();
    source_label = fmt::format("Source: {} - not available here: {}", picker_label(src.kind), e.what());
    sweep.clear();
    return;
  }
  finish_sweep();
}

void Compare::start_sweep(int64_t min_bytes, int64_t max_bytes, int iters, int warmup) {
  if (sweep_source.kind != SweepSource::shm) {
    set_sweep_source(sweep_source);
    load_source(min_bytes, max_bytes);
    return;
  }
  source_label = fmt::format("Source: measured on this machine's shared memory ({} threads, one per rank; no network)",
                             base.spec.world_size);
  dots_text = "measured on this machine";
  lines_text.clear();
  source_word = "measured";
  source_tag = "measured here (shared memory)";
  source_note.clear();
  sweep.clear();
  crossover.clear();
  skipped.clear();
  crossover_measured = crossover_predicted = -1;
  crossover_predicted_bytes = crossover_predicted_us = -1;
  todo_.clear();
  next_point_ = 0;
  iters_ = iters, warmup_ = warmup;
  // Before this sweep's threads start (issue 37: bench warned, the window did not).
  note_busy(cpu_busy_fraction());
  for (size_t i = 0; i < algorithms.size(); ++i) {
    if (!sessions[i]) continue;
    SweepCurve c;
    c.algorithm = algorithms[i];
    sweep.push_back(std::move(c));
  }
  // Size-major: the small sizes of every algorithm come first on screen.
  for (int64_t b = std::max<int64_t>(min_bytes, 1); b <= max_bytes; b *= 4)
    for (size_t k = 0; k < sweep.size(); ++k) todo_.push_back({k, b});
}

std::string sweep_busy_warning(double busy) {
  if (!(busy > kBusyWarnFraction)) return "";
  return fmt::format("warning: the CPUs were {:.0f}% busy before this sweep", busy * 100);
}

void Compare::note_busy(double busy) {
  if (sweep_source.kind != SweepSource::shm) return;
  const std::string w = sweep_busy_warning(busy);
  if (w.empty()) return;
  source_label += "; " + w;
  source_tag = fmt::format("measured here (shared memory; CPUs {:.0f}% busy)", busy * 100);
}

bool Compare::sweep_step() {
  if (lab_) {
    // The window keeps drawing: wait a little for the lab, then come back.
    if (lab_->result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) return true;
    const auto [rc, out] = lab_->result.get();
    lab_.reset();
    try {
      const auto rows = parse_bench_json_lines(out, "the cluster lab's output");
      if (rc != 0 || rows.empty()) {
        // `microddp cluster` says what is missing (no namespaces, no mpirun) on its last lines.
        std::string tail = out.substr(out.size() > 400 ? out.size() - 400 : 0);
        while (!tail.empty() && tail.back() == '\n') tail.pop_back();
        throw UsageError(fmt::format("microddp cluster exited {}: {}", rc, tail.substr(tail.rfind('\n') + 1)));
      }
      apply(lab_sweep(rows, base.spec.world_size, sweep_source.nic));
      // Other work on the CPUs disturbed the lab's times: bench said so.
      if (const std::string busy = lab_busy_warning(out); !busy.empty())
        source_note += (source_note.empty() ? "" : "; ") + busy;
      finish_sweep();
    } catch (const std::exception& e) {
      source_error = e.what();
      source_label = fmt::format("Source: {} - not available here: {}", picker_label(sweep_source.kind), e.what());
    }
    return false;
  }
  if (!sweeping()) return false;
  const Point pt = todo_[next_point_++];
  SweepCurve& c = sweep[pt.curve];
  const BenchOptions o = options_for(c.algorithm, pt.bytes);
  try {
    const CollectiveSpec spec = bench_spec(o, c.algorithm, pt.bytes);
    const Schedule s = make_schedule(spec);
    const std::vector<BenchRow> rows = run_bench(o);
    if (!rows.empty()) {
      c.bytes.push_back(double(rows.front().bytes));
      c.counts.push_back(spec.count);
      const BenchRow& r = rows.front();
      c.measured_us.push_back(r.time_us);
      c.samples.push_back(r.samples);
      c.min_us.push_back(r.min_us);
      c.p10_us.push_back(r.p10_us);
      c.p90_us.push_back(r.p90_us);
      c.max_us.push_back(r.max_us);
      const Prediction p = predict(s, source);
      if (p.available) c.predicted_us.push_back(p.total_us);
    }
  } catch (const std::exception& e) {
    // A size the algorithm refuses (e.g. fewer elements than ranks), or one
    // over the memory budget, has no point; the panel says why.
    skipped.push_back(fmt::format("{} {}: {}", c.algorithm, human_bytes(double(pt.bytes)), e.what()));
  }
  if (!sweeping()) finish_sweep();
  return sweeping();
}

BenchOptions Compare::options_for(const std::string& algorithm, int64_t bytes) const {
  BenchOptions o;
  o.collective = base.spec.collective;
  o.algorithms = {algorithm};
  o.world_size = base.spec.world_size;
  o.nodes = base.spec.nodes;
  o.dtype = base.spec.dtype;
  o.op = base.spec.op;
  o.root = base.spec.root;
  o.min_bytes = o.max_bytes = bytes;
  o.iters = iters_;
  o.warmup = warmup_;
  return o;
}

double Compare::predicted_at(const std::string& algorithm, int64_t bytes) const {
  try {
    const Prediction p = predict(make_schedule(bench_spec(options_for(algorithm, bytes), algorithm, bytes)), source);
    return p.available ? p.total_us : -1;
  } catch (const std::exception&) {
    return -1;  // a size the algorithm refuses
  }
}

void Compare::run_sweep(int64_t min_bytes, int64_t max_bytes, int iters, int warmup) {
  start_sweep(min_bytes, max_bytes, iters, warmup);
  while (sweep_step()) {
  }
}

namespace {
// The one rule of both crossovers: ring is the fastest at a size when its
// time there is below every other algorithm's. A tie is not a win (one
// rank: every algorithm does nothing). Times in µs; a negative time is none
// (the model refuses the size): ring without one is not the fastest, a
// rival without one is no rival.
bool ring_fastest_at(double ring_us, const std::vector<double>& others_us) {
  if (ring_us < 0) return false;
  return std::none_of(others_us.begin(), others_us.end(), [&](double t) { return t >= 0 && t <= ring_us; });
}

// The smallest index from which `ring` is the fastest (ring_fastest_at) at
// every larger point (curves compared at the same index, i.e. the same
// size; a curve without that point is no rival there), or -1.
int ring_fastest_from(const std::vector<SweepCurve>& sweep, const SweepCurve& ring,
                      std::vector<double> SweepCurve::*times) {
  const auto& rt = ring.*times;
  if (rt.size() != ring.bytes.size() || rt.empty()) return -1;
  int from = -1;
  std::vector<double> others;
  for (int j = static_cast<int>(rt.size()) - 1; j >= 0; --j) {
    others.clear();
    for (const auto& c : sweep)
      if (&c != &ring && j < static_cast<int>((c.*times).size()) && c.bytes[j] == ring.bytes[j])
        others.push_back((c.*times)[j]);
    if (!ring_fastest_at(rt[j], others)) break;
    from = j;
  }
  return from;
}
}  // namespace

void Compare::finish_sweep() {
  crossover.clear();
  crossover_measured = crossover_predicted = -1;
  crossover_predicted_bytes = crossover_predicted_us = -1;
  for (SweepCurve& c : sweep)
    if (c.predicted_us.size() != c.bytes.size()) c.predicted_us.clear();  // all or nothing
  // The registry's compare_reference ("ring"): where it becomes the fastest.
  const std::string& ref = compare_reference();
  const auto ring = std::find_if(sweep.begin(), sweep.end(), [&](const SweepCurve& c) { return c.algorithm == ref; });
  if (ring == sweep.end() || ring->bytes.empty()) return;
  // "Fastest" needs something to be faster than: another algorithm with
  // points at the ring's sizes.
  const bool rival = std::any_of(sweep.begin(), sweep.end(), [&](const SweepCurve& c) {
    return c.algorithm != ref && !c.bytes.empty();
  });
  if (!rival) return;
  // On one rank every algorithm is the same local copy: which one "wins" is
  // the noise of the measurement, not a crossover.
  if (base.spec.world_size < 2) {
    crossover = "one rank: every algorithm is the same local copy, so there is no crossover";
    return;
  }
  crossover_measured = ring_fastest_from(sweep, *ring, &SweepCurve::measured_us);
  crossover_predicted = ring_fastest_from(sweep, *ring, &SweepCurve::predicted_us);
  const bool dots = ring->measured_us.size() == ring->bytes.size();
  const bool here = sweep_source.kind == SweepSource::shm;
  // This machine's sweep: two sentences, the model's first ("Predicted:
  // ring fastest from 373 KiB. Measured here: ring not the fastest at
  // 16 MiB"; issue 37: one clause read as a garbled sentence).
  std::string measured_here;
  if (dots && here)
    measured_here = crossover_measured < 0
                        ? fmt::format("Measured here: {} not the fastest at {}", ref, human_bytes(ring->bytes.back()))
                        : fmt::format("Measured here: {} fastest from {}", ref, human_bytes(ring->bytes[crossover_measured]));
  else if (dots)
    crossover = crossover_measured < 0
                    ? fmt::format("{} was not the fastest at the largest size {} ({})", ref,
                                  here ? "measured here" : source_word, human_bytes(ring->bytes.back()))
                    : fmt::format("{} is the fastest from {} on ({})", ref, human_bytes(ring->bytes[crossover_measured]),
                                  source_word);
  if (crossover_predicted >= 0 && !here) {
    crossover_predicted_bytes = ring->bytes[crossover_predicted];
    crossover_predicted_us = ring->predicted_us[crossover_predicted];
    crossover += fmt::format("{}from {} on ({})", crossover.empty() ? ref + " is the fastest " : ", ",
                             human_bytes(crossover_predicted_bytes), dots ? "the lab's model" : source_word);
  } else if (crossover_predicted >= 0) {
    const int j = crossover_predicted;
    crossover_predicted_bytes = ring->bytes[j];
    crossover_predicted_us = ring->predicted_us[j];
    if (j > 0) {
      // Bisect in log(size) between the two points: ring is not the fastest
      // at lo, it is at hi (ring_fastest_at on the model's times, of the
      // algorithms whose lines are drawn).
      const auto ring_wins = [&](int64_t b) {
        std::vector<double> others;
        for (const SweepCurve& c : sweep)
          if (&c != &*ring && !c.predicted_us.empty()) others.push_back(predicted_at(c.algorithm, b));
        return ring_fastest_at(predicted_at(ref, b), others);
      };
      const int64_t unit = int64_t(dtype_size(base.spec.dtype)) * std::max(1, base.spec.world_size);
      int64_t lo = int64_t(ring->bytes[j - 1]), hi = int64_t(ring->bytes[j]);
      while (hi - lo >= 2 * unit) {
        const int64_t mid = std::clamp(int64_t(std::sqrt(double(lo) * double(hi))) / unit * unit, lo + unit, hi - unit);
        (ring_wins(mid) ? hi : lo) = mid;
      }
      crossover_predicted_bytes = double(hi);
      crossover_predicted_us = predicted_at(ref, hi);
    }
    crossover = fmt::format("Predicted: {} fastest from {}", ref, human_bytes(crossover_predicted_bytes));
  }
  if (!measured_here.empty()) crossover += (crossover.empty() ? "" : ". ") + measured_here;
}

std::string model_not_here_label(const Compare& cmp) {
  if (cmp.sweep_source.kind != SweepSource::shm || cmp.source.kind != PredictionSource::Kind::profile) return "";
  const ModelInForce m = resolve_model(cmp.base.spec, cmp.source);
  if (m.this_machine || m.hint.empty()) return "";
  return fmt::format("model: preset {}, not this machine — run microddp calibrate", m.flat.name);
}

size_t predicted_points_drawn(const Compare& cmp, bool withheld) {
  size_t all = 0;
  for (const auto& c : cmp.sweep) all = std::max(all, c.predicted_us.size());
  if (!withheld || cmp.crossover_predicted < 0) return all;
  return std::min(all, static_cast<size_t>(cmp.crossover_predicted));
}

}  // namespace microddp::viz
