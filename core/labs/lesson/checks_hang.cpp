// Checks of hang beats: each kind's parser and evaluator side by side. They
// read the beat's hang::LabResult (core/labs/hang/hang.h).
#include <fmt/format.h>

#include "core/labs/lesson/check_kinds.h"

namespace microddp::lesson::checks {

using namespace yaml;

namespace {

// What a hang run's checks read: the run and the kind of its failure.
struct HangRun {
  const Beat& beat;
  const hang::LabResult& run;
  std::string failure;  // none | timeout | mismatch
};

// ---- named_ranks: the ranks the verdict names ----

check::NamedRanks read_named_ranks(const Ctx& c, const YAML::Node& n) {
  check::NamedRanks k;
  only_keys(c, n, "a named_ranks check", {"check", "equals"});
  if (!n["equals"]) c.fail(n, "a 'named_ranks' check needs 'equals: [RANKS]'");
  for (const auto& e : seq(c, n["equals"], "equals")) k.ranks.push_back(static_cast<int>(integer(c, e, "equals", 0, 15)));
  return k;
}

CheckResult eval(const check::NamedRanks& k, const HangRun& h) {
  CheckResult r;
  const std::vector<int>& named = !h.run.missing.empty() ? h.run.missing : h.run.mismatched;
  r.what = fmt::format("ranks the verdict names ({})", !h.run.missing.empty() ? "missing" : "mismatched");
  r.expected = int_list(k.ranks);
  r.actual = int_list(named);
  r.pass = named == k.ranks;
  return r;
}

// ---- failure: none, timeout or mismatch ----

check::Failure read_failure(const Ctx& c, const YAML::Node& n) {
  check::Failure k;
  only_keys(c, n, "a failure check", {"check", "equals"});
  if (!n["equals"]) c.fail(n, "a 'failure' check needs 'equals: none | timeout | mismatch'");
  k.expect = one_of(c, n["equals"], "equals", {"none", "timeout", "mismatch"});
  return k;
}

CheckResult eval(const check::Failure& k, const HangRun& h) {
  CheckResult r;
  r.what = "the failure";
  r.expected = k.expect;
  r.actual = h.run.verdict.empty() ? "none (every rank passed)" : h.failure + ": " + h.run.verdict;
  r.pass = h.failure == k.expect;
  return r;
}

// ---- all_failed: every rank failed together ----

CheckResult eval(const check::AllFailed&, const HangRun& h) {
  CheckResult r;
  int failed = 0;
  for (const auto& o : h.run.ranks) failed += !o.passed;
  r.what = "every rank failed together";
  r.expected = fmt::format("{} of {} failed", h.run.ranks.size(), h.run.ranks.size());
  r.actual = fmt::format("{} of {} failed", failed, h.run.ranks.size());
  r.pass = h.run.all_failed;
  return r;
}

// ---- elapsed: the lab ended within its timeout plus a margin ----

check::Elapsed read_elapsed(const Ctx& c, const YAML::Node& n) {
  check::Elapsed k;
  only_keys(c, n, "a elapsed check", {"check", "within_timeout_plus_s"});
  if (!n["within_timeout_plus_s"]) c.fail(n, "an 'elapsed' check needs 'within_timeout_plus_s: SECONDS'");
  k.margin_s = number(c, n["within_timeout_plus_s"], "within_timeout_plus_s");
  if (k.margin_s < 0) c.fail(n["within_timeout_plus_s"], "'within_timeout_plus_s' must be >= 0");
  return k;
}

CheckResult eval(const check::Elapsed& k, const HangRun& h) {
  CheckResult r;
  r.what = "the lab ended within the timeout plus a margin";
  r.expected = fmt::format("<= {:g} s + {:g} s", h.beat.hang.timeout_s, k.margin_s);
  r.actual = fmt::format("{:.3f} s", h.run.seconds);
  r.pass = h.run.seconds <= h.beat.hang.timeout_s + k.margin_s;
  return r;
}

// ---- sequence: a rank's flight recorder, last started / completed ----

check::Sequence read_sequence(const Ctx& c, const YAML::Node& n, int world) {
  check::Sequence k;
  only_keys(c, n, "a sequence check", {"check", "rank", "started", "completed"});
  if (!n["rank"]) c.fail(n, "a 'sequence' check needs 'rank'");
  if (!n["started"] && !n["completed"]) c.fail(n, "a 'sequence' check needs 'started' and/or 'completed'");
  k.rank = static_cast<int>(integer(c, n["rank"], "rank", 0, 15));
  if (n["started"]) k.started = integer(c, n["started"], "started", -1, 1 << 20);
  if (n["completed"]) k.completed = integer(c, n["completed"], "completed", -1, 1 << 20);
  if (k.rank >= world) c.fail(n, fmt::format("rank {} is not below the world size {}", k.rank, world));
  return k;
}

CheckResult eval(const check::Sequence& k, const HangRun& h) {
  CheckResult r;
  r.what = fmt::format("R{} sequence numbers (last started / last completed)", k.rank);
  auto s = [](int64_t v) { return v == -2 ? std::string("any") : v < 0 ? std::string("-") : fmt::format("#{}", v); };
  r.expected = fmt::format("{} / {}", s(k.started), s(k.completed));
  if (static_cast<size_t>(k.rank) >= h.run.ranks.size()) {
    r.actual = "(no such rank)";
  } else {
    const auto& fr = h.run.ranks[static_cast<size_t>(k.rank)].recorder;
    r.actual = fmt::format("{} / {}", s(fr.last_started), s(fr.last_completed));
    r.pass = (k.started == -2 || fr.last_started == k.started) && (k.completed == -2 || fr.last_completed == k.completed);
  }
  return r;
}

// ---- report: the verdict's text ----

check::Report read_report(const Ctx& c, const YAML::Node& n) {
  check::Report k;
  only_keys(c, n, "a report check", {"check", "contains"});
  if (!n["contains"]) c.fail(n, "a 'report' check needs 'contains: TEXT'");
  k.text = str(c, n["contains"], "contains");
  return k;
}

CheckResult eval(const check::Report& k, const HangRun& h) {
  CheckResult r;
  r.what = "the verdict says";
  r.expected = fmt::format("'{}'", k.text);
  r.actual = h.run.verdict.empty() ? std::string("(no verdict: every rank passed)") : h.run.verdict;
  r.pass = h.run.verdict.find(k.text) != std::string::npos;
  return r;
}

// ---- log_line: a rank's INFO line for a call in the run's own log ----

// The beat's run keeps INFO lines only at log: INFO or TRACE; a check on
// any other beat could never pass, so it is refused while the lesson loads.
check::LogLine read_log_line(const Ctx& c, const YAML::Node& n, int world, std::optional<hang::LogLevel> log) {
  check::LogLine k;
  only_keys(c, n, "a log_line check", {"check", "rank", "seq", "after_verdict"});
  if (!log || *log < hang::LogLevel::info)
    c.fail(n, fmt::format("a 'log_line' check needs the beat's hang 'log: INFO' or 'log: TRACE' (its run's INFO "
                          "lines); this beat has {}",
                          !log || *log == hang::LogLevel::none ? std::string("no log") : std::string("'log: WARN'")));
  if (!n["rank"] || !n["seq"]) c.fail(n, "a 'log_line' check needs 'rank' and 'seq'");
  k.rank = static_cast<int>(integer(c, n["rank"], "rank", 0, 15));
  if (k.rank >= world) c.fail(n["rank"], fmt::format("rank {} is not below the world size {}", k.rank, world));
  k.seq = integer(c, n["seq"], "seq", 0, 2);
  if (n["after_verdict"]) k.after_verdict = boolean(c, n["after_verdict"], "after_verdict");
  return k;
}

CheckResult eval(const check::LogLine& k, const HangRun& h) {
  CheckResult r;
  r.what = fmt::format("R{}'s INFO line for seq {} in the run's log", k.rank, k.seq);
  r.expected = !k.after_verdict ? "logged" : *k.after_verdict ? "logged after the verdict" : "logged before the verdict";
  if (!h.beat.hang.log) {
    r.actual = "(the run kept no log: set 'log: INFO' in the beat's hang options)";
    return r;
  }
  const std::string seq = fmt::format(": seq {} '", k.seq);
  const auto& log = h.run.log;
  size_t at = log.size();
  for (size_t i = 0; i < log.size() && at == log.size(); ++i)
    if (log[i].rank == k.rank && log[i].level == hang::LogLevel::info && log[i].text.find(seq) != std::string::npos) at = i;
  if (at == log.size()) {
    r.actual = fmt::format("no such line (of {} lines)", log.size());
    return r;
  }
  // By time stamps on one clock (the verdict's and the line's), not by the
  // line's place among the ranks' WARN lines of the verdict: when the
  // watchdog gives it, those come in whatever order the ranks wake.
  const bool after = h.run.after_verdict(log[at]);
  const bool verdict = !h.run.verdict.empty() && h.run.verdict_s >= 0;
  r.actual = fmt::format("line {} of {} at {:.3f} s, {}", at + 1, log.size(), log[at].t_s,
                         verdict ? fmt::format("{} the verdict (at {:.3f} s)", after ? "after" : "before", h.run.verdict_s)
                                 : std::string("no verdict"));
  r.pass = !k.after_verdict || *k.after_verdict == after;
  return r;
}

template <class K>
constexpr bool is_hang_check = std::is_same_v<K, check::NamedRanks> || std::is_same_v<K, check::Failure> ||
                               std::is_same_v<K, check::AllFailed> || std::is_same_v<K, check::Elapsed> ||
                               std::is_same_v<K, check::Sequence> || std::is_same_v<K, check::Report> ||
                               std::is_same_v<K, check::LogLine>;

}  // namespace

Check read_hang_check(const Ctx& c, const YAML::Node& n, const std::string& kind, int world,
                      std::optional<hang::LogLevel> log) {
  Check k{c.mark(n), {}};
  if (kind == "named_ranks") k.claim = read_named_ranks(c, n);
  else if (kind == "failure") k.claim = read_failure(c, n);
  else if (kind == "all_failed") {
    only_keys(c, n, "a all_failed check", {"check"});
    k.claim = check::AllFailed{};
  } else if (kind == "elapsed") k.claim = read_elapsed(c, n);
  else if (kind == "sequence") k.claim = read_sequence(c, n, world);
  else if (kind == "log_line") k.claim = read_log_line(c, n, world, log);
  else k.claim = read_report(c, n);
  return k;
}

}  // namespace microddp::lesson::checks

namespace microddp::lesson {

std::vector<CheckResult> evaluate(const Beat& b, const hang::LabResult& run) {
  std::vector<CheckResult> out;
  const checks::HangRun h{b, run, run.verdict.empty() ? "none" : !run.missing.empty() ? "timeout" : "mismatch"};
  for (const Check& k : b.checks) {
    CheckResult r = std::visit(
        [&](const auto& claim) -> CheckResult {
          using K = std::decay_t<decltype(claim)>;
          if constexpr (checks::is_hang_check<K>) return checks::eval(claim, h);
          else return checks::wrong_kind(k.mark, "hang");
        },
        k.claim);
    r.mark = k.mark;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace microddp::lesson
