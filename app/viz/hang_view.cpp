#include "app/viz/hang_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "app/viz/view_state.h"

namespace microddp::viz {

using namespace microddp::lesson;

BeatTarget hang_beat_target(const Beat& b, const PredictionSource& source) {
  // The hang lab's own ranks and call: the faulted call (#fault_call, an
  // all_reduce of count >> fault_call elements) on the lesson's ranks,
  // before its first step when a fault stops it (every rank that got
  // there waits at its monitored barrier), after its last when healthy.
  const hang::LabOptions& h = b.hang;
  Beat c = b;
  c.kind = Beat::Kind::collective;
  c.checks.clear();
  c.setup = Setup{};
  c.setup.collective = "all_reduce";
  c.setup.algorithm = h.algorithm;
  c.setup.ranks = h.ranks;
  c.setup.count = std::max<int64_t>(1, h.count >> h.fault_call);
  c.setup.fill = "iota";
  const bool healthy = h.fault == hang::Fault::none;
  c.at.kind = healthy ? Target::Kind::end : Target::Kind::start;
  BeatTarget t = beat_target(c, source);
  t.view = b.view;
  // Words for the desk window and the slide alike (--present shows no
  // controls, so the note names none).
  // (It names no step: the hang view shows calls, not the steps inside one.)
  t.note = fmt::format("the hang view is the hang lab's real run (its checks read the same run; `microddp hang-lab` "
                       "prints the report); call #{} is an all_reduce of {} elements on {} ranks",
                       h.fault_call, c.setup.count, h.ranks);
  return t;
}

std::shared_future<std::shared_ptr<const hang::LabResult>> start_hang_run(const hang::LabOptions& o) {
  return std::async(std::launch::async, [o] { return std::make_shared<const hang::LabResult>(hang::run_hang_lab(o)); })
      .share();
}

std::shared_ptr<const hang::LabResult> LessonView::hang_run(std::string* error) const {
  const auto& f = hang_runs_[static_cast<size_t>(beat_)];
  if (!f.valid() || f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
  try {
    return f.get();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return nullptr;
  }
}

std::string_view name(HangBarrier b) {
  switch (b) {
    case HangBarrier::passed: return "passed";
    case HangBarrier::waited: return "waited";
    case HangBarrier::missing: return "missing";
    case HangBarrier::mismatched: return "mismatched";
    case HangBarrier::hidden: return "hidden";
  }
  return "hidden";
}

namespace {

constexpr int kCalls = 3;  // the lab's step: #0 all_reduce, #1 all_reduce, #2 all_gather (hang.h)

std::string entry_text(const hang::CallRecord& c) {
  return fmt::format("#{} {} {} {}", c.seq, c.collective, c.count, hang::name(c.state));
}

std::string ranks_text(const std::vector<int>& rs) {
  std::string out;
  for (size_t i = 0; i < rs.size(); ++i) out += (i ? ", " : "") + std::to_string(rs[i]);
  return out;
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

HangScene build_hang_scene(const hang::LabOptions& o, const hang::LabResult& r, bool withhold) {
  if (r.ranks.empty() || static_cast<int>(r.ranks.size()) != o.ranks)
    throw std::invalid_argument(fmt::format("hang scene: the run has {} ranks, its options {}", r.ranks.size(), o.ranks));
  HangScene sc;
  sc.ranks = o.ranks;
  sc.timeout_s = o.timeout_s;
  sc.withheld = withhold;
  sc.seconds = r.seconds;
  const bool faulted = o.fault != hang::Fault::none;
  sc.header = fmt::format("hang lab: {} ranks, fault {}{}, monitored barrier timeout {:g} s", o.ranks, hang::name(o.fault),
                          !faulted    ? ""
                          : withhold ? " on a rank"
                                     : fmt::format(" on rank{} {}", o.fault_ranks.size() == 1 ? "" : "s", ranks_text(o.fault_ranks)),
                          o.timeout_s);
  const int64_t counts[kCalls] = {o.count, o.count / 2, o.count / 4};
  const char* ops[kCalls] = {"all_reduce", "all_reduce", "all_gather"};
  for (int k = 0; k < kCalls; ++k) sc.calls.push_back(fmt::format("#{} {} {}", k, ops[k], counts[k]));
  sc.calls.push_back("end of step");
  // The barrier that decided: before the call the waiting ranks failed in
  // (their last record failed at it), the end of step when every call
  // completed somewhere but a rank did not pass; none when all passed.
  const std::vector<int> named = [&] {
    std::vector<int> v = r.missing;
    v.insert(v.end(), r.mismatched.begin(), r.mismatched.end());
    return v;
  }();
  if (!r.all_passed) {
    sc.barrier_call = kCalls;
    for (const auto& x : r.ranks)
      if (!contains(named, x.rank) && !x.recorder.calls.empty() &&
          x.recorder.calls.back().state == hang::CallRecord::State::failed)
        sc.barrier_call = std::min<int>(sc.barrier_call, static_cast<int>(x.recorder.calls.back().seq));
    sc.barrier = r.verdict.rfind("watchdog", 0) == 0 ? "watchdog (no barrier saw it)"
                 : sc.barrier_call < kCalls   ? fmt::format("barrier before #{}", sc.barrier_call)
                                              : "end-of-step barrier";
  }
  sc.arrived = o.ranks - static_cast<int>(r.missing.size());
  for (const hang::RankOutcome& x : r.ranks) {
    HangRow row;
    row.rank = x.rank;
    row.label = fmt::format("R{}", x.rank);
    row.last_started = x.recorder.last_started;
    row.last_completed = x.recorder.last_completed;
    row.calls.assign(kCalls + 1, HangCall::not_reached);
    for (const hang::CallRecord& c : x.recorder.calls)
      if (c.seq >= 0 && c.seq < kCalls)
        row.calls[static_cast<size_t>(c.seq)] = c.state == hang::CallRecord::State::completed ? HangCall::completed
                                                : c.state == hang::CallRecord::State::failed  ? HangCall::failed
                                                                                              : HangCall::started;
    const auto& calls = x.recorder.calls;
    if (x.passed) {
      row.calls[kCalls] = HangCall::completed;
    } else if (calls.empty() || calls.back().state == hang::CallRecord::State::completed) {
      // Failed without a failed entry: at the call after its last one
      // (skipped: it left the step there), or at the end-of-step barrier.
      const int64_t next = calls.empty() ? 0 : std::max<int64_t>(0, calls.back().seq + 1);
      if (next >= kCalls) row.calls[kCalls] = HangCall::failed;
      else row.calls[static_cast<size_t>(next)] = HangCall::skipped;
    }
    const auto last = std::find_if(calls.rbegin(), calls.rend(),
                                   [&](const hang::CallRecord& c) { return c.seq == x.recorder.last_started; });
    row.reached = last == calls.rend() ? "no call" : entry_text(*last);
    for (size_t i = calls.size() > kHangRecorderShown ? calls.size() - kHangRecorderShown : 0; i < calls.size(); ++i)
      row.recorder.push_back(entry_text(calls[i]));
    if (x.passed) {
      row.barrier = HangBarrier::passed;
      row.barrier_text = "passed the end-of-step barrier";
    } else if (contains(r.missing, x.rank)) {
      row.barrier = HangBarrier::missing;
      row.barrier_text = fmt::format("did not arrive at the {}", sc.barrier);
    } else if (contains(r.mismatched, x.rank)) {
      row.barrier = HangBarrier::mismatched;
      row.barrier_text = fmt::format("arrived with another call: {}", row.reached);
    } else {
      row.barrier = HangBarrier::waited;
      if (last != calls.rend() && last->end_s > 0) row.waited_s = std::max(0.0, last->end_s - last->begin_s);
      row.wait_fraction = o.timeout_s > 0 ? static_cast<float>(std::clamp(row.waited_s / o.timeout_s, 0.0, 1.0)) : 0.f;
      row.barrier_text = fmt::format("waited {:.2f} s of {:g} s at the {}", row.waited_s, o.timeout_s, sc.barrier);
    }
    row.state = x.state;
    row.outlined = contains(named, x.rank);
    for (const hang::CallRecord& c : calls)
      row.spans.push_back({c.seq, row.calls[static_cast<size_t>(std::clamp<int64_t>(c.seq, 0, kCalls - 1))], c.begin_s,
                           c.end_s > 0 ? c.end_s : r.seconds});
    if (withhold && !r.all_passed) {
      // Who did not arrive is the question: no row says where it stands.
      row.barrier = HangBarrier::hidden;
      row.barrier_text = "?";
      row.waited_s = 0;
      row.wait_fraction = 0;
      row.state.clear();
      row.spans.clear();
      row.outlined = false;
    }
    sc.rows.push_back(std::move(row));
  }
  sc.log = build_hang_log(o, r, sc.barrier_call, withhold && !r.all_passed);
  if (r.all_passed) sc.verdict = "every rank arrived with the same call at every barrier; all calls verified";
  else if (!withhold) sc.verdict = r.verdict;
  else if (!r.missing.empty())
    sc.verdict = fmt::format("{} of {} ranks arrived at the {} within {:g} s; which rank did not is shown once you "
                             "answer the question",
                             sc.arrived, o.ranks, sc.barrier, o.timeout_s);
  else
    sc.verdict = fmt::format("{} rank{} arrived at the {} with another call than rank 0's; which is shown once you "
                             "answer the question",
                             r.mismatched.size(), r.mismatched.size() == 1 ? "" : "s", sc.barrier);
  return sc;
}

HangLog build_hang_log(const hang::LabOptions& o, const hang::LabResult& r, int call, bool withhold) {
  HangLog out;
  if (!o.log || withhold) return out;
  const size_t verdict = r.verdict_line();
  std::vector<size_t> pick;
  const bool of_call = call >= 0 && call < kCalls;
  if (of_call) {
    const std::string seq = fmt::format(": seq {} '", call);
    for (size_t i = 0; i < r.log.size(); ++i)
      if (i == verdict || (r.log[i].level == hang::LogLevel::info && r.log[i].text.find(seq) != std::string::npos))
        pick.push_back(i);
  } else {
    for (size_t i = r.log.size() > kHangLogShown ? r.log.size() - kHangLogShown : 0; i < r.log.size(); ++i) pick.push_back(i);
  }
  for (size_t i : pick) {
    const hang::LogEntry& e = r.log[i];
    HangLogLine l;
    l.rank = e.rank;
    l.level = e.level;
    l.text = fmt::format("{:.3f} s [{}] {} {}", e.t_s, e.rank, hang::name(e.level), e.text);
    if (r.after_verdict(e) && e.level != hang::LogLevel::warn) l.mark = "after the verdict";  // by time stamps
    out.lines.push_back(std::move(l));
  }
  out.left_out = r.log.size() - out.lines.size();
  const std::string level(hang::name(*o.log));
  out.title = of_call ? fmt::format("MICRODDP_DEBUG={} log of this run: each rank's line for seq {} and the verdict "
                                    "({} of {} lines; `microddp lesson` prints them all)",
                                    level, call, out.lines.size(), r.log.size())
                      : fmt::format("MICRODDP_DEBUG={} log of this run: its last {} lines (of {})", level,
                                    out.lines.size(), r.log.size());
  return out;
}

bool hang_names_withheld(const LessonView& L, const hang::LabResult& r) {
  if (!L.checks_hidden()) return false;
  if (L.highlight_withheld())
    for (int h : L.current().highlight.ranks)
      if (contains(r.missing, h) || contains(r.mismatched, h)) return true;
  for (double v : answer_numbers(*L.current().question))
    if (contains(r.missing, static_cast<int>(v)) || contains(r.mismatched, static_cast<int>(v)))
      if (v == static_cast<int>(v)) return true;
  return false;
}

std::string describe_hang(const App& app) {
  const LessonView* L = app.lesson.get();
  if (!L || L->current().kind != lesson::Beat::Kind::hang) return "";
  std::string error;
  const auto run = L->hang_run(&error);
  if (!run) return fmt::format("hang: {}\n", error.empty() ? "running the hang lab for real…" : "could not run: " + error);
  const HangScene sc = build_hang_scene(L->current().hang, *run, hang_names_withheld(*L, *run));
  std::string out = fmt::format("hang: {}; {}\n", sc.header, sc.barrier.empty() ? "no failed barrier" : sc.barrier);
  for (const HangRow& row : sc.rows)
    out += fmt::format("hang {}: reached {}; barrier {}{}\n", row.label, row.reached, name(row.barrier),
                       row.outlined ? " (outlined)" : "");
  out += fmt::format("hang verdict: {}\n", sc.verdict);
  if (!sc.log.title.empty()) out += fmt::format("hang log: {}\n", sc.log.title);
  for (const HangLogLine& l : sc.log.lines)
    out += fmt::format("hang log: {}{}\n", l.text, l.mark.empty() ? "" : " <- " + l.mark);
  return out;
}

}  // namespace microddp::viz
