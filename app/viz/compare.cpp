#include "app/viz/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/cost_model.h"

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

void Compare::configure(const RunParams& p, const std::vector<std::string>& algs) {
  base = p;
  algorithms = algs;
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

void Compare::start_sweep(int64_t min_bytes, int64_t max_bytes, int iters, int warmup) {
  sweep.clear();
  crossover.clear();
  skipped.clear();
  crossover_measured = crossover_predicted = -1;
  crossover_predicted_bytes = crossover_predicted_us = -1;
  todo_.clear();
  next_point_ = 0;
  iters_ = iters, warmup_ = warmup;
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

bool Compare::sweep_step() {
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
  crossover = crossover_measured < 0
                  ? fmt::format("{} was not the fastest at the largest size measured here ({})", ref,
                                human_bytes(ring->bytes.back()))
                  : fmt::format("{} is the fastest from {} on (measured)", ref,
                                human_bytes(ring->bytes[crossover_measured]));
  if (crossover_predicted >= 0) {
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
    crossover += fmt::format(", from {} on (predicted)", human_bytes(crossover_predicted_bytes));
  }
}

}  // namespace microddp::viz
