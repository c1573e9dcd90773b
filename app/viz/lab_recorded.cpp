#include "app/viz/lab_recorded.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <variant>

#include "app/viz/compare.h"
#include "app/viz/units.h"

namespace microddp::viz {

using namespace microddp::lesson;

std::optional<LabRecord> beat_record(const Beat& b) {
  if (b.kind != Beat::Kind::lab || b.view.kind != BeatView::Kind::compare || b.view.source != "recorded" ||
      b.view.file.empty())
    return std::nullopt;
  return load_lab_record(b.view.file);
}

LabRun recorded_lab_run(const LabRecord& r, const LabRequest& q) {
  LabRun run;
  run.request = q;
  for (const std::string& a : q.algorithms) {
    const LabRecordRow* row = r.row(a, q.bytes);
    if (!row) {
      run.status = LabRun::Status::unavailable;
      run.reason = fmt::format("recorded run {} has no row of {} at {} bytes", r.path, a, q.bytes);
      run.rows.clear();
      return run;
    }
    LabRow x;
    x.algorithm = a;
    x.seconds = row->time_us * 1e-6;
    x.p10 = (row->p10_us >= 0 ? row->p10_us : row->time_us) * 1e-6;
    x.p90 = (row->p90_us >= 0 ? row->p90_us : row->time_us) * 1e-6;
    run.rows.push_back(x);
  }
  run.status = LabRun::Status::ok;
  return run;
}

namespace {

// The recorded runs of the named lab beats before `beat`.
std::map<std::string, LabRun> earlier_runs(const Lesson& l, int beat) {
  std::map<std::string, LabRun> runs;
  for (int i = 0; i < beat; ++i) {
    const Beat& b = l.beats[static_cast<size_t>(i)];
    if (b.name.empty()) continue;
    if (const auto r = beat_record(b)) runs[b.name] = recorded_lab_run(*r, b.lab);
  }
  return runs;
}

// "AMD EPYC, 2 vCPUs (lscpu)": the machine without the notes after it.
std::string short_machine(const std::string& m) {
  const size_t p = m.find("(lscpu)");
  return p == std::string::npos ? m : m.substr(0, p + 7);
}

}  // namespace

std::vector<CheckResult> evaluate_recorded(const Lesson& l, int beat) {
  const Beat& b = l.beats.at(static_cast<size_t>(beat));
  const auto rec = beat_record(b);
  if (!rec) return evaluate(b);
  std::vector<CheckResult> out = evaluate(b, recorded_lab_run(*rec, b.lab), earlier_runs(l, beat));
  for (CheckResult& r : out) r.what = fmt::format("recorded {}: {}", rec->date, r.what);
  return out;
}

std::string recorded_note(const Lesson& l, int beat) {
  const Beat& b = l.beats.at(static_cast<size_t>(beat));
  const auto rec = beat_record(b);
  if (!rec) return "";
  const LabRun run = recorded_lab_run(*rec, b.lab);
  std::string out = fmt::format("RECORDED cluster lab run, {}, {}: {}, {} per rank, median of {}:", rec->date,
                                short_machine(rec->machine), rec->setup_text(), human_bytes(double(b.lab.bytes)),
                                b.lab.iters);
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const LabRow& x = run.rows[i];
    // No parenthesis of its own: the window shows the whole note in one.
    out += fmt::format("{} {} {}, p10-p90 {} to {}", i ? ";" : "", x.algorithm, format_us(x.seconds * 1e6),
                       format_us(x.p10 * 1e6), format_us(x.p90 * 1e6));
  }
  const auto runs = earlier_runs(l, beat);
  for (const Check& c : b.checks) {
    const auto* k = std::get_if<check::MeasuredRatio>(&c.claim);
    if (!k) continue;
    const LabRun* other = &run;
    if (!k->over_run.empty()) {
      const auto it = runs.find(k->over_run);
      if (it == runs.end()) continue;
      other = &it->second;
    }
    const LabRow* a = run.row(k->algorithm);
    const LabRow* o = other->row(k->over_algorithm);
    if (!a || !o || !(o->seconds > 0)) continue;
    const std::string bound = std::isnan(k->less_than)      ? fmt::format("> {:g}", k->greater_than)
                              : std::isnan(k->greater_than) ? fmt::format("< {:g}", k->less_than)
                                                            : fmt::format("{:g} to {:g}", k->greater_than, k->less_than);
    out += fmt::format("; {} / {}{} ({}) = {:.2f}, the check: {}", k->algorithm, k->over_algorithm,
                       k->over_run.empty() ? "" : fmt::format(" in run '{}'", k->over_run), format_us(o->seconds * 1e6),
                       a->seconds / o->seconds, bound);
  }
  return out;
}

std::vector<SweepCurve> compared_run_curves(const Lesson& l, int beat) {
  std::vector<SweepCurve> out;
  const Beat& b = l.beats.at(static_cast<size_t>(beat));
  if (!beat_record(b)) return out;
  for (const Check& c : b.checks) {
    const auto* k = std::get_if<check::MeasuredRatio>(&c.claim);
    if (!k || k->over_run.empty()) continue;
    for (int i = 0; i < beat; ++i) {
      const Beat& o = l.beats[static_cast<size_t>(i)];
      if (o.name != k->over_run) continue;
      const auto rec = beat_record(o);
      const LabRecordRow* row = rec ? rec->row(k->over_algorithm, o.lab.bytes) : nullptr;
      if (!row) break;
      SweepCurve s;
      s.algorithm = fmt::format("{}, run '{}' ({} node{} x {} rank{})", k->over_algorithm, o.name, o.lab.nodes,
                                o.lab.nodes == 1 ? "" : "s", o.lab.ranks_per_node, o.lab.ranks_per_node == 1 ? "" : "s");
      s.bytes = {double(row->bytes)};
      s.measured_us = {row->time_us};
      s.samples = {row->samples};
      s.min_us = {row->min_us};
      s.p10_us = {row->p10_us};
      s.p90_us = {row->p90_us};
      s.max_us = {row->max_us};
      if (row->predicted_us > 0) s.predicted_us = {row->predicted_us};
      s.counts = {row->count};
      if (std::none_of(out.begin(), out.end(), [&](const SweepCurve& x) { return x.algorithm == s.algorithm; }))
        out.push_back(s);
      break;
    }
  }
  return out;
}

SourceSpec beat_source(const Beat& b) {
  SourceSpec src;
  src.kind = parse_sweep_source(b.view.source);
  src.file = b.view.file;
  src.system = b.view.system;
  src.ranks = b.view.ranks;
  src.protocols = b.view.protocols;
  if (b.kind == Beat::Kind::lab && src.kind == SweepSource::lab) {
    src.nic = b.lab.nic;
    src.iters = b.lab.iters;
  }
  return src;
}

bool is_beats_live_lab(const SourceSpec& s, const Beat& b) {
  return b.kind == Beat::Kind::lab && b.view.source == "lab" && s.kind == SweepSource::lab && s.nic == b.lab.nic &&
         s.iters == b.lab.iters;
}

std::vector<CheckResult> live_lab_pending(const Beat& b, LiveLab state, const std::string& why) {
  const std::string line =
      state == LiveLab::running ? std::string("waiting for the lab run (the Compare view runs it now)")
      : state == LiveLab::stopped
          ? std::string("the lab run was stopped when the Compare view was left; it runs again when Compare is shown")
          : fmt::format("the cluster lab gave no rows for this beat: {}", why.empty() ? "(no reason given)" : why);
  std::vector<CheckResult> out = evaluate(b);  // the claims' words, skipped (no runner)
  for (CheckResult& r : out) {
    r.pass = false;
    r.skipped = true;
    r.actual = line;
  }
  return out;
}

std::optional<LabRun> live_lab_run(const std::vector<SweepCurve>& sweep, const LabRequest& q) {
  LabRun run;
  run.request = q;
  run.status = LabRun::Status::ok;
  for (const std::string& a : q.algorithms) {
    const auto c = std::find_if(sweep.begin(), sweep.end(), [&](const SweepCurve& x) { return x.algorithm == a; });
    if (c == sweep.end()) return std::nullopt;
    size_t i = 0;
    while (i < c->bytes.size() && c->bytes[i] != double(q.bytes)) ++i;
    if (i >= c->bytes.size() || i >= c->measured_us.size()) return std::nullopt;
    LabRow x;
    x.algorithm = a;
    x.seconds = c->measured_us[i] * 1e-6;
    x.p10 = (i < c->p10_us.size() && c->p10_us[i] > 0 ? c->p10_us[i] : c->measured_us[i]) * 1e-6;
    x.p90 = (i < c->p90_us.size() && c->p90_us[i] > 0 ? c->p90_us[i] : c->measured_us[i]) * 1e-6;
    run.rows.push_back(x);
  }
  return run;
}

std::vector<CheckResult> evaluate_live(const Beat& b, const LabRun& run) {
  std::vector<CheckResult> out = evaluate(b, run, {});
  for (CheckResult& r : out) r.what = "measured now in the cluster lab: " + r.what;
  return out;
}

std::string lab_busy_warning(const std::string& lab_output) {
  static const std::string kStart = "# warning: the CPUs were";
  for (size_t at = 0; at < lab_output.size();) {
    size_t end = lab_output.find('\n', at);
    if (end == std::string::npos) end = lab_output.size();
    if (lab_output.compare(at, kStart.size(), kStart) == 0) return lab_output.substr(at + 2, end - at - 2);
    at = end + 1;
  }
  return "";
}

}  // namespace microddp::viz
