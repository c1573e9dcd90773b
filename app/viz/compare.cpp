#include "app/viz/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/model/cost_model.h"

namespace microddp::viz {

std::string human_bytes(double b) {
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.3g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.3g} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.3g} KiB", b / 1024.0);
  return fmt::format("{} B", static_cast<int64_t>(b));
}

std::vector<std::string> Compare::default_algorithms(Collective c) {
  const auto& all = algorithms_for(c);
  std::vector<std::string> out;
  for (const char* a : {"naive", "tree", "ring"})
    if (std::find(all.begin(), all.end(), a) != all.end()) out.push_back(a);
  for (const auto& a : all)
    if (out.size() < 3 && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  return out;
}

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
    if (const AlgorithmInfo* info = find_algorithm(a, q.spec.collective); !info || !info->pipelines)
      q.spec.segments = 1;
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
      const Prediction p = predict(make_schedule(spec), source);
      if (!p.available) {
        c.predicted_us.clear();
        break;
      }
      c.predicted_us.push_back(p.total_us);
    }
  }
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

void Compare::run_sweep(int lo, int hi, int reps) {
  sweep.clear();
  crossover.clear();
  for (size_t i = 0; i < algorithms.size(); ++i) {
    if (!sessions[i]) continue;
    SweepCurve c;
    c.algorithm = algorithms[i];
    bool have_pred = true;
    for (int k = lo; k <= hi; k += 2) {
      RunParams q = base;
      q.spec.algorithm = algorithms[i];
      q.spec.count = int64_t{1} << k;
      q.data = "rank";
      q.spec.segments = 1;
      const CollectiveSpec& spec = q.spec;
      Schedule s;
      try {
        s = make_schedule(spec);
      } catch (const std::exception&) {
        continue;
      }
      const RankData in = make_inputs(spec, q.data);
      RunOptions opt;
      opt.mode = Mode::free;
      opt.snapshot_limit = 0;
      double best = 1e300;
      for (int r = 0; r < reps; ++r) {
        const RunResult res = run_threads(s, in, opt);
        best = std::min(best, res.trace.total_ns / 1e3);
      }
      c.bytes.push_back(double(bench_bytes(spec)));
      c.counts.push_back(spec.count);
      c.measured_us.push_back(best);
      const Prediction p = predict(s, source);
      if (p.available) c.predicted_us.push_back(p.total_us);
      else have_pred = false;
    }
    if (!have_pred) c.predicted_us.clear();
    sweep.push_back(std::move(c));
  }
  // Crossover: the smallest size from which the ring is fastest at every
  // larger size measured.
  const auto ring = std::find_if(sweep.begin(), sweep.end(), [](const SweepCurve& c) { return c.algorithm == "ring"; });
  if (ring == sweep.end() || ring->bytes.empty()) return;
  int from = -1;
  for (int j = static_cast<int>(ring->bytes.size()) - 1; j >= 0; --j) {
    bool fastest = true;
    for (const auto& c : sweep)
      if (&c != &*ring && j < static_cast<int>(c.measured_us.size()) && c.measured_us[j] < ring->measured_us[j])
        fastest = false;
    if (!fastest) break;
    from = j;
  }
  crossover = from < 0 ? "ring was not the fastest at the largest size measured here"
                       : fmt::format("ring is the fastest from {} on (measured)", human_bytes(ring->bytes[from]));
}

}  // namespace microddp::viz
