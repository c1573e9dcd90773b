#include "app/viz/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <random>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"

namespace microddp::viz {

CollectiveSpec to_spec(const RunParams& p) {
  CollectiveSpec s;
  s.collective = p.collective;
  s.algorithm = p.algorithm;
  s.world_size = p.ranks;
  s.count = p.count;
  s.dtype = p.dtype;
  s.op = p.op;
  s.root = p.root;
  s.segments = p.segments;
  s.in_place = p.in_place;
  return s;
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

void store(const CollectiveSpec& s, std::vector<std::byte>& row, int64_t i, double v, int r) {
  try {
    kernels::store_double(s.dtype, row.data(), i, v);
  } catch (const std::out_of_range& e) {
    throw UsageError(fmt::format("data: rank {} element {}: {}", r, i, e.what()));
  }
}

}  // namespace

RankData make_inputs(const CollectiveSpec& s, const std::string& data) {
  const int n = s.world_size;
  const size_t es = dtype_size(s.dtype);
  RankData in(n);
  for (int r = 0; r < n; ++r) in[r].assign(static_cast<size_t>(s.input_count(r)) * es, std::byte{0});
  if (data == "iota" || data.empty()) {
    for (int r = 0; r < n; ++r)
      for (int64_t i = 0; i < s.input_count(r); ++i)
        store(s, in[r], i, double((r * std::max<int64_t>(s.input_count(r), 1) + i) % 1000 + 1), r);
    return in;
  }
  if (data == "rank") {
    for (int r = 0; r < n; ++r)
      for (int64_t i = 0; i < s.input_count(r); ++i) store(s, in[r], i, double(r + 1), r);
    return in;
  }
  if (data.rfind("random", 0) == 0) {
    uint64_t seed = 1;
    if (data.size() > 7 && data[6] == ':') {
      const auto t = data.substr(7);
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), seed);
      if (ec != std::errc{} || p != t.data() + t.size())
        throw UsageError(fmt::format("data: bad random seed '{}'", t));
    } else if (data != "random") {
      throw UsageError(fmt::format("data: unknown pattern '{}' (expected iota, rank, random[:SEED] or rows)", data));
    }
    std::mt19937_64 rng(seed);
    for (int r = 0; r < n; ++r)
      for (int64_t i = 0; i < s.input_count(r); ++i) store(s, in[r], i, double(rng() % 10), r);
    return in;
  }
  const auto rows = split(data, ';');
  if (static_cast<int>(rows.size()) != n)
    throw UsageError(fmt::format("data: {} rows for {} ranks in '{}'", rows.size(), n, data));
  for (int r = 0; r < n; ++r) {
    const std::string row = trim(rows[r]);
    const auto vals = row.empty() ? std::vector<std::string>{} : split(row, ',');
    if (static_cast<int64_t>(vals.size()) != s.input_count(r))
      throw UsageError(fmt::format("data: rank {} has {} values but needs {} ('{}')", r, vals.size(),
                                   s.input_count(r), row));
    for (size_t i = 0; i < vals.size(); ++i) {
      const std::string v = trim(vals[i]);
      double d = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      if (ec != std::errc{} || p != v.data() + v.size() || v.empty())
        throw UsageError(fmt::format("data: rank {} value '{}' is not a number", r, v));
      store(s, in[r], static_cast<int64_t>(i), d, r);
    }
  }
  return in;
}

Session::~Session() { run_.reset(); }

void Session::configure(const RunParams& p) {
  if (p.backend != "threads")
    throw UsageError(fmt::format("backend '{}' is not available in the viewer (expected: threads)", p.backend));
  if (p.ranks < 1 || p.ranks > 64) throw UsageError(fmt::format("ranks {} is outside 1..64", p.ranks));
  const CollectiveSpec spec = to_spec(p);
  auto sched = std::make_unique<Schedule>(make_schedule(spec));
  check_schedule(*sched);
  RankData inputs = make_inputs(spec, p.data);
  Provenance prov = compute_provenance(*sched);
  // Commit: the old run refers to the old schedule, so it goes first.
  replay_ = false;
  run_.reset();
  done_trace_.reset();
  outputs_.clear();
  schedule_ = std::move(sched);
  params_ = p;
  inputs_ = std::move(inputs);
  prov_ = std::move(prov);
  pred_ = predict(*schedule_);
  start_run();
}

void Session::load_replay(const RunRecord& rec) {
  const CollectiveSpec& spec = rec.spec;
  if (spec.world_size < 1 || spec.world_size > 64)
    throw UsageError(fmt::format("record: ranks {} is outside 1..64", spec.world_size));
  auto sched = std::make_unique<Schedule>(make_schedule(spec));
  check_schedule(*sched);
  const int n = spec.world_size;
  if (rec.trace.world_size != n || static_cast<int>(rec.trace.steps.size()) != sched->num_steps() ||
      static_cast<int>(rec.outputs.size()) != n)
    throw UsageError(fmt::format("record: the trace has {} steps for {} ranks but the schedule {} steps for {} ranks",
                                 rec.trace.steps.size(), rec.trace.world_size, sched->num_steps(), n));
  for (const auto& st : rec.trace.steps)
    if (static_cast<int>(st.size()) != n) throw UsageError("record: a step of the trace does not cover every rank");
  Provenance prov = compute_provenance(*sched);
  run_.reset();
  schedule_ = std::move(sched);
  params_ = RunParams{};
  params_.collective = spec.collective;
  params_.algorithm = spec.algorithm;
  params_.ranks = n;
  params_.count = spec.count;
  params_.dtype = spec.dtype;
  params_.op = spec.op;
  params_.root = spec.root;
  params_.segments = spec.segments;
  params_.in_place = spec.in_place;
  params_.data = "record";
  params_.mode = rec.trace.mode;
  params_.backend = rec.trace.backend;
  inputs_ = rec.inputs;
  outputs_ = rec.outputs;
  prov_ = std::move(prov);
  pred_ = predict(*schedule_);
  done_trace_ = rec.trace;
  position_ = 0;
  replay_ = true;
}

void Session::start_run() {
  if (replay_) {  // the run already happened: back to the inputs
    position_ = 0;
    return;
  }
  run_.reset();
  done_trace_.reset();
  outputs_.clear();
  position_ = 0;
  RunOptions opt;
  opt.snapshot_limit = 4096;
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
  for (int s = 0; s < steps_run(); ++s) t += trace().step_ns(s);
  return t;
}

}  // namespace microddp::viz
