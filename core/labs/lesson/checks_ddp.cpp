// Checks of ddp beats: each kind's parser and evaluator side by side. They
// read the beat's ddp::Result (core/labs/ddp/ddp.h); a comparison with an
// earlier named run runs that run again here (once per name).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>

#include "core/labs/lesson/check_kinds.h"
#include "core/labs/lesson/picture_runs.h"
#include "core/labs/lesson/timing_rule.h"
#include "core/model/stats.h"

namespace microddp::lesson::checks {

using namespace yaml;

namespace {

// The runs a beat's checks compare with, run once per name. With a
// picture (picture_runs.h): the check at index picture_check keeps this
// beat's runs for it (`run_ptr` is `run`, the first of them).
struct DdpRuns {
  const Beat& beat;
  const ddp::Result& run;
  std::map<std::string, ddp::Result> others;
  std::shared_ptr<const ddp::Result> run_ptr = nullptr;
  PictureRuns* picture = nullptr;
  int picture_check = -1, current = -1;
  const ddp::Result& other(const std::string& name, const ddp::Options& o) {
    auto it = others.find(name);
    if (it == others.end()) it = others.emplace(name, ddp::run_ddp(o)).first;
    return it->second;
  }
};

std::string ddp_run_label(const ddp::Options& o) {
  // A sharded run has no buckets and always uses the ring (train.cpp shard_spec).
  if (o.sharded) return o.prefetch ? "sharded, prefetch" : "sharded, no prefetch";
  return fmt::format("overlap {}, cap {:g} MiB, {}", ddp::name(o.overlap), o.bucket_cap_mb, o.algorithm);
}

// The run named NAME, defined by an earlier ddp beat.
const ddp::Options& named_run(const Ctx& c, const YAML::Node& name_node, const std::string& name,
                              const std::map<std::string, ddp::Options>& runs, bool list_names) {
  const auto it = runs.find(name);
  if (it == runs.end()) {
    if (!list_names) c.fail(name_node, fmt::format("no earlier ddp beat is named '{}'", name));
    std::vector<std::string> names;
    for (const auto& [nm, o] : runs) names.push_back(nm);
    c.fail(name_node, fmt::format("no earlier ddp beat is named '{}' (named so far: {})", name,
                                  names.empty() ? std::string("none") : join(names)));
  }
  return it->second;
}

// ---- the comparable figures: allreduce_calls, buckets, overlap_fraction,
// exposed_comm_ms ----

// Exactly one of equals / less_than / greater_than, each a number or
// {run: NAME, times: X}.
check::Compare read_compare(const Ctx& c, const YAML::Node& n, const std::string& kind,
                            const std::map<std::string, ddp::Options>& runs, bool integral) {
  if (integral)
    only_keys(c, n, fmt::format("a {} check", kind), {"check", "equals", "less_than", "greater_than"});
  else
    only_keys(c, n, fmt::format("a {} check", kind), {"check", "equals", "less_than", "greater_than", "clock"});
  check::Compare k;
  int found = 0;
  for (const char* key : {"equals", "less_than", "greater_than"}) {
    if (!n[key]) continue;
    if (found++) c.fail(n[key], fmt::format("a '{}' check takes one of equals, less_than, greater_than", kind));
    k.op = key;
    const YAML::Node v = n[key];
    if (v.IsMap()) {
      only_keys(c, v, fmt::format("'{}'", key), {"run", "times"});
      if (!v["run"]) c.fail(v, fmt::format("'{}' as a mapping needs 'run: NAME' (an earlier ddp beat's name)", key));
      k.other_run = str(c, v["run"], "run");
      k.other_ddp = named_run(c, v["run"], k.other_run, runs, true);
      if (v["times"]) {
        k.times = number(c, v["times"], "times");
        if (!(k.times > 0)) c.fail(v["times"], fmt::format("'times' must be > 0, got {}", k.times));
      }
    } else if (integral) {
      k.value = static_cast<double>(integer(c, v, key, 0, int64_t{1} << 40));
    } else {
      k.value = number(c, v, key);
      // Times and fractions are never below 0: `greater_than: -1` would hold
      // on every run and `less_than: 0` on none.
      if (k.op != "equals" && !(k.value > 0))
        c.fail(v, fmt::format("'{}' must be above 0 (a time or fraction is never below 0), got {}", key, fmt_num(k.value)));
    }
  }
  if (!found) c.fail(n, fmt::format("a '{}' check needs equals, less_than or greater_than", kind));
  // A measured time never comes out the same twice: `equals` on one would
  // pass or fail by the luck of one run (and on the median of many, too).
  // Refused here, at load: the claim a lesson can make about a measured
  // time is a comparison, decided on repeated runs; an exact figure is the
  // model clock's, which gives the same figures on every run.
  if (!integral && k.op == "equals" && !(n["clock"] && n["clock"].IsScalar() && n["clock"].Scalar() == "model"))
    c.fail(n["equals"], fmt::format("'equals' on {}, a figure of measured times, would be decided by one run, and "
                                    "measured times never repeat exactly (expected less_than or greater_than, "
                                    "decided on the median of repeated runs, or 'clock: model' for an exact figure)",
                                    kind));
  return k;
}

std::string num_list(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt_num(v[i]);
  return s;
}

double figure(const check::AllreduceCalls&, const ddp::Result& r) {
  return r.iterations.empty() ? 0 : r.iterations[0].calls;
}
double figure(const check::Buckets&, const ddp::Result& r) { return static_cast<double>(r.buckets.size()); }
double figure(const check::OverlapFraction& k, const ddp::Result& r) {
  std::vector<double> v;
  for (const auto& it : r.iterations) v.push_back(k.model_clock ? it.model_overlap_fraction : it.overlap_fraction);
  return median(v);
}
double figure(const check::ExposedCommMs& k, const ddp::Result& r) {
  std::vector<double> v;
  for (const auto& it : r.iterations) v.push_back(k.model_clock ? it.model_exposed_comm_ms : it.exposed_comm_ms);
  return median(v);
}
double figure(const check::CommMs& k, const ddp::Result& r) {
  std::vector<double> v;
  for (const auto& it : r.iterations) v.push_back(k.model_clock ? it.model_comm_ms : it.comm_ms);
  return median(v);
}

const char* figure_name(const check::AllreduceCalls&) { return "all-reduce calls per iteration"; }
const char* figure_name(const check::Buckets&) { return "buckets"; }
const char* figure_name(const check::OverlapFraction& k) {
  return k.model_clock ? "overlap fraction on the model clock" : "overlap fraction (median over iterations)";
}
const char* figure_name(const check::CommMs& k) {
  return k.model_clock ? "communication ms per iteration on the model clock"
                       : "communication ms per iteration (median over iterations)";
}
const char* figure_name(const check::ExposedCommMs& k) {
  return k.model_clock ? "exposed communication ms on the model clock"
                       : "exposed communication ms (median over iterations)";
}

// `clock: measured | model` of a timing check (default measured).
bool read_clock(const Ctx& c, const YAML::Node& n) {
  return n["clock"] && one_of(c, n["clock"], "clock", {"measured", "model"}) == "model";
}

// A count (calls, buckets), or a timing figure on the model clock (the
// only one `equals` may compare: read_compare): decided on the beat's run
// (and one run of the compared run).
template <class K>
CheckResult eval_once(const K& k, DdpRuns& runs) {
  const check::Compare& cmp = k.cmp;
  CheckResult r;
  const double got = figure(k, runs.run);
  double want = cmp.value;
  std::string against = fmt_num(cmp.value);
  if (cmp.other_ddp) {
    want = cmp.times * figure(k, runs.other(cmp.other_run, *cmp.other_ddp));
    against = fmt::format("{}{} of run '{}' ({})", cmp.times == 1 ? "" : fmt::format("{:g} × ", cmp.times),
                          fmt_num(want / cmp.times), cmp.other_run, ddp_run_label(*cmp.other_ddp));
  }
  const char* op = cmp.op == "less_than" ? "<" : cmp.op == "greater_than" ? ">" : "=";
  // A sharded run's calls are all-gathers and reduce-scatters, not all-reduces.
  std::string fig = figure_name(k);
  if constexpr (std::is_same_v<K, check::AllreduceCalls>)
    if (runs.run.options.sharded) fig = "collective calls per iteration (all-gathers and reduce-scatters)";
  r.what = cmp.other_ddp ? fmt::format("{} vs run '{}'", fig, cmp.other_run) : fig;
  r.expected = fmt::format("{} {}", op, against);
  r.actual = fmt_num(got);
  r.pass = cmp.op == "less_than" ? got < want : cmp.op == "greater_than" ? got > want : got == want;
  return r;
}

// What else the machine ran: "load average 3.71 on 2 CPUs" (/proc/loadavg's
// 1-minute figure), or "load average unknown on N CPUs".
std::string machine_load() {
  const unsigned cpus = std::thread::hardware_concurrency();
  double load = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load < 0 ? fmt::format("load average unknown on {} CPUs", cpus)
                  : fmt::format("load average {:.2f} on {} CPUs", load, cpus);
}

// Runs per round, and the most rounds, of a timing claim against another
// run (against a number: timing::kFixedRound, kFixedRounds).
constexpr size_t kVsRound = 5, kVsRounds = 2;

// A timing figure (overlap fraction, exposed ms) compared with less_than /
// greater_than. One run's figure moves with whatever else the machine runs,
// so the claim is decided on repeated runs, never on one: this beat's runs
// (the given run first) and, for {run: NAME}, that run's, made alternately
// (other, this, other, this, ...) so that a change in the machine's load
// hits both sides alike. Each run gives its median over iterations.
// Against {run: NAME}: by timing::decide (medians apart by a factor 1.5 and
// a rank test at p <= 0.005 a look), after 5 or 10 runs each; a false claim
// (the same run against itself) then passes at most 1 time in 100. Against
// a number: by timing::decide_fixed (a sign test at p <= 0.005 and the
// median past the number by 10%), after 8 or 16 runs; runs straddling it never
// pass. Either fails when the opposite passes the same tests (the machine
// measured the opposite), and is skipped as "not shown on this run" when
// neither does (the load's noise hides the difference), naming the runs,
// the reason and the machine's load.
template <class K>
CheckResult eval_timing(const K& k, DdpRuns& runs) {
  const check::Compare& cmp = k.cmp;
  // The picture's check keeps this beat's runs whole (the first: runs.run).
  const bool keep = runs.picture && runs.current == runs.picture_check && runs.run_ptr;
  std::vector<std::shared_ptr<const ddp::Result>> kept;
  if (keep) kept.push_back(runs.run_ptr);
  auto rerun = [&](const ddp::Options& o, bool this_beat = false) {
    ddp::Options q = o;
    q.check_reference = false;  // the reference has no timing; skipping it saves a run
    auto r = std::make_shared<const ddp::Result>(ddp::run_ddp(q));
    if (keep && this_beat) kept.push_back(r);
    return figure(k, *r);
  };
  std::vector<double> mine{figure(k, runs.run)}, theirs;  // theirs: before `times`
  const bool less = cmp.op == "less_than";
  double got = 0, want = cmp.value;
  timing::Decision dec;
  timing::FixedDecision fixed;
  timing::Verdict verdict = timing::Verdict::not_shown;
  const size_t per_round = cmp.other_ddp ? kVsRound : timing::kFixedRound;
  const size_t rounds = cmp.other_ddp ? kVsRounds : timing::kFixedRounds;
  for (size_t round = 1; round <= rounds && verdict != timing::Verdict::pass; ++round) {
    while (mine.size() < round * per_round) {
      if (cmp.other_ddp) theirs.push_back(rerun(*cmp.other_ddp));
      mine.push_back(rerun(runs.beat.ddp, true));
    }
    if (cmp.other_ddp && theirs.size() < mine.size()) theirs.push_back(rerun(*cmp.other_ddp));
    got = median(mine);
    if (cmp.other_ddp) {
      std::vector<double> scaled;
      for (double x : theirs) scaled.push_back(cmp.times * x);
      want = median(scaled);
      dec = timing::decide(mine, scaled, less);
      verdict = dec.verdict;
    } else {
      fixed = timing::decide_fixed(mine, want, less);
      verdict = fixed.verdict;
    }
  }
  if (keep) {
    PictureRuns& p = *runs.picture;
    p.figures = mine;
    p.verdict = verdict;
    p.less = less;
    p.other_run = cmp.other_ddp ? cmp.other_run : std::string();
    p.other_figures.clear();
    for (double x : theirs) p.other_figures.push_back(cmp.times * x);
    p.number = cmp.value;
    choose_picture(p, kept);
  }
  CheckResult r;
  const char* op = less ? "<" : ">";
  const std::string each = fmt::format("median of {} runs", mine.size());
  const size_t n = mine.size();
  if (cmp.other_ddp) {
    r.what = fmt::format("{} vs run '{}', {} each, interleaved", figure_name(k), cmp.other_run, each);
    r.expected = fmt::format("{} {}{} of run '{}' ({}) by a factor {:g} and a rank test p <= {:g}", op,
                             cmp.times == 1 ? "" : fmt::format("{:g} × ", cmp.times), fmt_num(want / cmp.times),
                             cmp.other_run, ddp_run_label(*cmp.other_ddp), timing::kTimingMargin, timing::kTimingP);
    r.actual = fmt::format("{} (p = {:.3g}; runs: {}; run '{}': {})", fmt_num(got), dec.p, num_list(mine),
                           cmp.other_run, num_list(theirs));
  } else {
    r.what = fmt::format("{}, {}", figure_name(k), each);
    r.expected = fmt::format("{} {}: median {} {:.3g} ({} {} {:g}), sign test p <= {:g}", op, fmt_num(want), op,
                             less ? want / timing::kFixedMargin : want * timing::kFixedMargin, fmt_num(want),
                             less ? "/" : "×", timing::kFixedMargin, timing::kTimingP);
    r.actual = fmt::format("{} ({} of {} runs {} {}, p = {:.3g}; runs: {})", fmt_num(got), fixed.held, n, op,
                           fmt_num(want), fixed.p, num_list(mine));
  }
  r.pass = verdict == timing::Verdict::pass;
  if (verdict == timing::Verdict::not_shown) {
    // Neither the claim nor its opposite stands out of the runs' own noise:
    // this run does not show it (skipped, not failed), and says why.
    r.not_shown = r.skipped = true;
    if (cmp.other_ddp)
      r.actual = fmt::format("not shown on this run: after {} runs each the medians {} and {} do not differ by a "
                             "factor {:g} with a rank test p <= {:g} (p = {:.3g}; runs: {}; run '{}': {}); {}",
                             mine.size(), fmt_num(got), fmt_num(want), timing::kTimingMargin, timing::kTimingP, dec.p,
                             num_list(mine), cmp.other_run, num_list(theirs), machine_load());
    else
      r.actual = fmt::format("not shown on this run: {}; runs: {}; {}", timing::fixed_reason(fixed, n, want, less),
                             num_list(mine), machine_load());
  }
  return r;
}

CheckResult eval(const check::AllreduceCalls& k, DdpRuns& runs) { return eval_once(k, runs); }
CheckResult eval(const check::Buckets& k, DdpRuns& runs) { return eval_once(k, runs); }
// The model clock gives the same figures on every run: one run decides.
CheckResult eval(const check::OverlapFraction& k, DdpRuns& runs) {
  return k.model_clock || k.cmp.op == "equals" ? eval_once(k, runs) : eval_timing(k, runs);
}
CheckResult eval(const check::ExposedCommMs& k, DdpRuns& runs) {
  return k.model_clock || k.cmp.op == "equals" ? eval_once(k, runs) : eval_timing(k, runs);
}
CheckResult eval(const check::CommMs& k, DdpRuns& runs) {
  return k.model_clock || k.cmp.op == "equals" ? eval_once(k, runs) : eval_timing(k, runs);
}

// ---- bucket_params: the parameters of one bucket, in packing order ----

check::BucketParams read_bucket_params(const Ctx& c, const YAML::Node& n) {
  check::BucketParams k;
  only_keys(c, n, "a bucket_params check", {"check", "bucket", "equals"});
  if (!n["bucket"]) c.fail(n, "a 'bucket_params' check needs 'bucket'");
  if (!n["equals"]) c.fail(n, "a 'bucket_params' check needs 'equals'");
  k.bucket = static_cast<int>(integer(c, n["bucket"], "bucket", 0, 1 << 20));
  for (const auto& e : seq(c, n["equals"], "equals")) k.params.push_back(static_cast<int>(integer(c, e, "equals", 0, 1 << 20)));
  return k;
}

CheckResult eval(const check::BucketParams& k, DdpRuns& runs) {
  CheckResult r;
  r.what = fmt::format("parameters in bucket {}", k.bucket);
  r.expected = int_list(k.params);
  if (static_cast<size_t>(k.bucket) >= runs.run.buckets.size()) {
    r.actual = fmt::format("(only {} bucket{})", runs.run.buckets.size(), runs.run.buckets.size() == 1 ? "" : "s");
  } else {
    const auto& ps = runs.run.buckets[static_cast<size_t>(k.bucket)].params;
    r.actual = int_list(ps);
    r.pass = ps == k.params;
  }
  return r;
}

// ---- replicas_identical: every rank ends with the same bytes ----

CheckResult eval(const check::ReplicasIdentical&, DdpRuns& runs) {
  CheckResult r;
  r.what = "every rank's parameters are the same bytes";
  r.expected = "identical";
  r.actual = runs.run.replicas_identical ? "identical" : "replicas differ";
  r.pass = runs.run.replicas_identical;
  return r;
}

// ---- same_params: final parameters bit-equal to another run's ----

check::SameParams read_same_params(const Ctx& c, const YAML::Node& n, const std::map<std::string, ddp::Options>& runs) {
  check::SameParams k;
  only_keys(c, n, "a same_params check", {"check", "as"});
  if (!n["as"]) c.fail(n, "a 'same_params' check needs 'as: {run: NAME}'");
  only_keys(c, n["as"], "'as'", {"run"});
  if (!n["as"]["run"]) c.fail(n["as"], "'as' needs 'run: NAME' (an earlier ddp beat's name)");
  k.other_run = str(c, n["as"]["run"], "run");
  k.other_ddp = named_run(c, n["as"]["run"], k.other_run, runs, false);
  return k;
}

CheckResult eval(const check::SameParams& k, DdpRuns& runs) {
  CheckResult r;
  const ddp::Result& o = runs.other(k.other_run, k.other_ddp);
  const ddp::Result& run = runs.run;
  r.what = fmt::format("final parameters bit-equal to run '{}' ({})", k.other_run, ddp_run_label(k.other_ddp));
  r.expected = "bit-equal";
  size_t diff = 0;
  const bool same_size = o.final_params.size() == run.final_params.size();
  if (same_size)
    for (size_t i = 0; i < o.final_params.size(); ++i)
      diff += std::memcmp(&o.final_params[i], &run.final_params[i], sizeof(float)) != 0;
  r.pass = same_size && diff == 0 && !run.final_params.empty();
  r.actual = !same_size ? std::string("different sizes")
             : diff     ? fmt::format("{} of {} values differ", diff, o.final_params.size())
                        : "bit-equal";
  return r;
}

// ---- loss: the loss follows the single-process reference ----

check::Loss read_loss(const Ctx& c, const YAML::Node& n) {
  check::Loss k;
  only_keys(c, n, "a loss check", {"check", "rel_tol"});
  if (n["rel_tol"]) k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  return k;
}

CheckResult eval(const check::Loss& k, DdpRuns& runs) {
  CheckResult r;
  r.what = "loss vs the single-process reference (max relative error)";
  r.expected = fmt::format("<= {:g}", k.rel_tol);
  r.actual = fmt_num(runs.run.max_reference_rel_error);
  r.pass = runs.run.max_reference_rel_error <= k.rel_tol;  // NaN (no reference) fails
  return r;
}

template <class K>
constexpr bool is_ddp_check =
    std::is_same_v<K, check::AllreduceCalls> || std::is_same_v<K, check::Buckets> ||
    std::is_same_v<K, check::BucketParams> || std::is_same_v<K, check::OverlapFraction> ||
    std::is_same_v<K, check::ExposedCommMs> || std::is_same_v<K, check::CommMs> ||
    std::is_same_v<K, check::ReplicasIdentical> ||
    std::is_same_v<K, check::SameParams> || std::is_same_v<K, check::Loss>;

}  // namespace

Check read_ddp_check(const Ctx& c, const YAML::Node& n, const std::string& kind,
                     const std::map<std::string, ddp::Options>& runs) {
  Check k{c.mark(n), {}};
  if (kind == "allreduce_calls") k.claim = check::AllreduceCalls{read_compare(c, n, kind, runs, true)};
  else if (kind == "buckets") k.claim = check::Buckets{read_compare(c, n, kind, runs, true)};
  else if (kind == "overlap_fraction")
    k.claim = check::OverlapFraction{read_compare(c, n, kind, runs, false), read_clock(c, n)};
  else if (kind == "exposed_comm_ms")
    k.claim = check::ExposedCommMs{read_compare(c, n, kind, runs, false), read_clock(c, n)};
  else if (kind == "comm_ms") k.claim = check::CommMs{read_compare(c, n, kind, runs, false), read_clock(c, n)};
  else if (kind == "bucket_params") k.claim = read_bucket_params(c, n);
  else if (kind == "replicas_identical") {
    only_keys(c, n, "a replicas_identical check", {"check"});
    k.claim = check::ReplicasIdentical{};
  } else if (kind == "same_params") k.claim = read_same_params(c, n, runs);
  else k.claim = read_loss(c, n);
  return k;
}

}  // namespace microddp::lesson::checks

namespace microddp::lesson {

namespace {

std::vector<CheckResult> evaluate_runs(checks::DdpRuns& runs) {
  const Beat& b = runs.beat;
  std::vector<CheckResult> out;
  for (const Check& k : b.checks) {
    ++runs.current;
    CheckResult r = std::visit(
        [&](const auto& claim) -> CheckResult {
          using K = std::decay_t<decltype(claim)>;
          if constexpr (checks::is_ddp_check<K>) return checks::eval(claim, runs);
          else return checks::wrong_kind(k.mark, "ddp");
        },
        k.claim);
    r.mark = k.mark;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<CheckResult> evaluate(const Beat& b, const ddp::Result& run) {
  checks::DdpRuns runs{b, run, {}};
  return evaluate_runs(runs);
}

std::vector<CheckResult> evaluate(const Beat& b, const PictureRule& rule, PictureRuns& picture) {
  picture = PictureRuns{};
  picture.rule = rule;
  const auto first = std::make_shared<const ddp::Result>(ddp::run_ddp(b.ddp));
  checks::DdpRuns runs{b, *first, {}};
  runs.run_ptr = first;
  runs.picture = &picture;
  runs.picture_check = rule.check;
  std::vector<CheckResult> out = evaluate_runs(runs);
  if (rule.check < 0 && rule.runs > 0) {
    // Runs of this beat for the picture alone (a later beat compares with it).
    std::vector<std::shared_ptr<const ddp::Result>> kept{first};
    while (kept.size() < rule.runs) {
      ddp::Options q = b.ddp;
      q.check_reference = false;
      kept.push_back(std::make_shared<const ddp::Result>(ddp::run_ddp(q)));
    }
    for (const auto& r : kept) picture.figures.push_back(run_figure(rule.figure, *r));
    choose_picture(picture, kept);
  }
  return out;
}

}  // namespace microddp::lesson
