// Checks of collective beats: each kind's parser and evaluator side by side.
// They read the real run of the beat's setup (threads backend, lockstep,
// buffers recorded; made once, when the first check needs it); the α-β
// prediction checks are in checks_predicted.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/algorithms/alternatives.h"
#include "core/ir/order_verdict.h"
#include "core/ir/reference.h"
#include "core/labs/lesson/check_kinds.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/record/data.h"
#include "core/record/printer.h"

namespace microddp::lesson::checks {

using namespace yaml;

YAML::Node need(const Ctx& c, const YAML::Node& n, const std::string& kind, const char* key) {
  if (!n[key]) c.fail(n, fmt::format("a '{}' check needs '{}'", kind, key));
  return n[key];
}

namespace {


// The beat's run, made when the first check needs it.
struct BeatRun {
  const Beat& beat;
  Prepared p;
  std::optional<RunResult> run;
  const RunResult& get() {
    if (!run) {
      RunOptions opt;
      opt.mode = Mode::lockstep;  // buffer snapshots per step
      opt.snapshot_limit = 1 << 12;
      run = run_threads(p.schedule, p.inputs, opt);
    }
    return *run;
  }
};

// A check that needs the run cannot be in a beat too large to run.
void needs_run(const Ctx& c, const YAML::Node& n, const Prepared& p) {
  if (!p.runnable)
    c.fail(n, fmt::format("this setup is too large to run here ({} input and output elements over all ranks; the "
                          "limit is {}): only predicted, ratio, faster and steps checks apply",
                          p.run_elements, kMaxRunElements));
}

void rank_in_world(const Ctx& c, const YAML::Node& n, int rank, const Setup& s) {
  if (rank >= s.ranks) c.fail(n, fmt::format("rank {} is not below the world size {}", rank, s.ranks));
}

// ---- buffer: a buffer's values on a rank after a step ----

check::Buffer read_buffer(const Ctx& c, const YAML::Node& n, const Setup& s, const Prepared& p) {
  check::Buffer k;
  only_keys(c, n, "a buffer check", {"check", "rank", "buffer", "step", "equals"});
  k.rank = static_cast<int>(integer(c, need(c, n, "buffer", "rank"), "rank", 0, 63));
  k.buffer = one_of(c, need(c, n, "buffer", "buffer"), "buffer", kBufNames);
  const YAML::Node v = need(c, n, "buffer", "step");
  if (v.IsScalar() && v.Scalar() == "end") k.step_is_end = true;
  else if (v.IsScalar() && v.Scalar() == "start") k.step = -1;
  else k.step = static_cast<int>(integer(c, v, "step", 0, 1 << 20));
  // Values, or inf / -inf (an overflowed float: lesson 06's naive float16 sum).
  for (const auto& e : seq(c, need(c, n, "buffer", "equals"), "equals")) {
    const std::string t = e.IsScalar() ? e.Scalar() : "";
    if (t == "inf" || t == "-inf") k.values.push_back(t == "inf" ? INFINITY : -INFINITY);
    else k.values.push_back(number(c, e, "equals"));
  }
  rank_in_world(c, n, k.rank, s);
  if (!k.step_is_end && k.step >= p.schedule.num_steps())
    c.fail(n, fmt::format("step {} does not exist: this run has {} steps", k.step, p.schedule.num_steps()));
  needs_run(c, n, p);
  return k;
}

CheckResult eval(const check::Buffer& k, BeatRun& br) {
  CheckResult r;
  const RunResult& rr = br.get();
  const int step = k.step_is_end ? br.p.schedule.num_steps() - 1 : k.step;
  r.what = fmt::format("R{} {} {}", k.rank, k.buffer,
                       step < 0 ? std::string("before step 0") : fmt::format("after step {}", step));
  r.expected = format_values(k.values);
  const std::vector<RankStepRecord>& recs = step < 0 ? rr.trace.initial : rr.trace.steps[static_cast<size_t>(step)];
  std::optional<std::vector<double>> got;
  if (static_cast<size_t>(k.rank) < recs.size())
    for (const auto& snap : recs[static_cast<size_t>(k.rank)].buffers)
      if (name(snap.buf) == k.buffer) got = snap.values;
  if (!got) {
    r.actual = "(no such buffer recorded on this rank)";
  } else {
    r.actual = format_values(*got);
    r.pass = got->size() == k.values.size();
    for (size_t i = 0; r.pass && i < got->size(); ++i) r.pass = (*got)[i] == k.values[i];
  }
  return r;
}

// ---- bytes: bytes a rank moved, in one step or the whole run ----

check::Bytes read_bytes(const Ctx& c, const YAML::Node& n, const Setup& s, const Prepared& p) {
  check::Bytes k;
  only_keys(c, n, "a bytes check", {"check", "rank", "direction", "step", "equals"});
  k.rank = static_cast<int>(integer(c, need(c, n, "bytes", "rank"), "rank", 0, 63));
  if (n["direction"]) k.direction = one_of(c, n["direction"], "direction", {"sent", "received", "both"});
  if (n["step"]) k.step = static_cast<int>(integer(c, n["step"], "step", 0, 1 << 20));
  k.bytes = integer(c, need(c, n, "bytes", "equals"), "equals", 0, int64_t{1} << 50);
  rank_in_world(c, n, k.rank, s);
  needs_run(c, n, p);
  return k;
}

CheckResult eval(const check::Bytes& k, BeatRun& br) {
  CheckResult r;
  const RunResult& rr = br.get();
  int64_t sent = 0, recvd = 0;
  if (k.step < 0) {
    sent = rr.trace.bytes_sent[static_cast<size_t>(k.rank)];
    recvd = rr.trace.bytes_received[static_cast<size_t>(k.rank)];
  } else {
    for (const Event& e : rr.trace.events[static_cast<size_t>(k.rank)]) {
      if (e.step != k.step) continue;
      if (e.kind == OpKind::send) sent += e.bytes;
      if (e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) recvd += e.bytes;
    }
  }
  const int64_t got = k.direction == "sent" ? sent : k.direction == "received" ? recvd : sent + recvd;
  r.what = fmt::format("bytes R{} {}{}", k.rank, k.direction == "both" ? "sent + received" : k.direction,
                       k.step < 0 ? std::string(" in the whole run") : fmt::format(" in step {}", k.step));
  r.expected = fmt::format("{}", k.bytes);
  r.actual = fmt::format("{}", got);
  r.pass = got == k.bytes;
  return r;
}

// ---- steps: the schedule's number of steps ----

check::Steps read_steps(const Ctx& c, const YAML::Node& n, const Prepared& p) {
  check::Steps k;
  only_keys(c, n, "a steps check", {"check", "phase", "equals"});
  if (n["phase"]) {
    k.phase = str(c, n["phase"], "phase");
    std::vector<std::string> names;
    for (const auto& ph : p.schedule.phases) names.push_back(ph.name);
    if (std::find(names.begin(), names.end(), k.phase) == names.end())
      c.fail(n["phase"], fmt::format("phase '{}' is not in this run (its phases: {})", k.phase, join(names)));
  }
  k.steps = static_cast<int>(integer(c, need(c, n, "steps", "equals"), "equals", 0, 1 << 20));
  return k;
}

CheckResult eval(const check::Steps& k, BeatRun& br) {
  CheckResult r;
  int n = 0;
  for (const Step& s : br.p.schedule.steps)
    if (k.phase.empty() || br.p.schedule.phases[static_cast<size_t>(s.phase)].name == k.phase) ++n;
  r.what = k.phase.empty() ? std::string("number of steps") : fmt::format("steps in phase '{}'", k.phase);
  r.expected = fmt::format("{}", k.steps);
  r.actual = fmt::format("{}", n);
  r.pass = n == k.steps;
  return r;
}

// ---- result: outputs equal the reference, or delayed sends corrupt them ----

check::Result read_result(const Ctx& c, const YAML::Node& n, const Setup& s, const Prepared& p) {
  check::Result k;
  only_keys(c, n, "a result check", {"check", "expect", "seeds"});
  k.expect = one_of(c, need(c, n, "result", "expect"), "expect", {"correct", "corrupts", "order_dependent"});
  if (n["seeds"]) k.seeds = static_cast<int>(integer(c, n["seeds"], "seeds", 1, 1000));
  needs_run(c, n, p);
  if (k.expect == "corrupts" && !s.delay)
    c.fail(n, "'expect: corrupts' needs a 'delay' in the setup (without one, nothing provokes the race)");
  return k;
}

CheckResult eval(const check::Result& k, BeatRun& br) {
  CheckResult r;
  const Prepared& p = br.p;
  const RankData want = reference_outputs(p.spec, p.inputs);
  if (k.expect == "order_dependent") {
    // The run equals its algorithm's own order bit for bit, and that order
    // leaves the double-precision reference (core/ir/order_verdict.h).
    const RunVerdict v = verify_run(p.schedule, p.inputs, br.get().outputs,
                                    [&] { return other_algorithm_schedules(p.spec); });
    r.what = "outputs equal the algorithm's own order, which leaves the double-precision reference";
    r.expected = "own order, order-dependent";
    r.pass = v.ok && v.order_dependent;
    r.actual = !v.ok ? "mismatch: " + v.why
                     : v.order_dependent ? "own order, order-dependent: " + v.note.why
                                         : "own order, within the reference's bound";
    return r;
  }
  if (k.expect == "correct") {
    std::string why;
    r.what = "outputs equal the reference";
    r.expected = "match";
    r.pass = outputs_match(p.spec, p.inputs, br.get().outputs, want, &why);
    r.actual = r.pass ? "match" : "mismatch: " + why;
    return r;
  }
  r.what = fmt::format("some of {} runs with delayed sends corrupt the result", k.seeds);
  r.expected = "at least one mismatch";
  int bad = 0, first_bad = -1;
  std::string first_why;
  for (int seed = 1; seed <= k.seeds; ++seed) {
    const DelayedRun d = run_delayed(p.schedule, p.inputs, *br.beat.setup.delay, static_cast<uint64_t>(seed), false);
    if (d.corrupted && bad++ == 0) {
      first_bad = seed;
      first_why = d.why;
    }
  }
  r.pass = bad > 0;
  r.actual = bad ? fmt::format("{} of {} corrupted (first: seed {}, {})", bad, k.seeds, first_bad, first_why)
                 : fmt::format("all {} runs correct", k.seeds);
  return r;
}

}  // namespace

}  // namespace microddp::lesson::checks

namespace microddp::lesson {

DelayedRun run_delayed(const Schedule& s, const RankData& inputs, const DelayHook& delay, uint64_t seed,
                       bool record) {
  DelayHook d = delay;
  d.seed = seed;
  RunOptions opt;
  opt.delay = &d;
  opt.record = record;
  if (record) opt.snapshot_limit = 1 << 12;
  DelayedRun out;
  out.seed = seed;
  out.run = run_threads(s, inputs, opt);
  out.corrupted = !outputs_match(s.spec, inputs, out.run.outputs, reference_outputs(s.spec, inputs), &out.why);
  if (!out.corrupted) out.why.clear();
  return out;
}

SeedSearch first_corrupting_seed(const Schedule& s, const RankData& inputs, const DelayHook& delay, int max_seeds,
                                 bool record) {
  SeedSearch out;
  for (int seed = 1; seed <= max_seeds; ++seed) {
    out.found = run_delayed(s, inputs, delay, static_cast<uint64_t>(seed), record);
    ++out.tries;
    if (out.found.corrupted) break;
  }
  return out;
}

}  // namespace microddp::lesson

namespace microddp::lesson::checks {

Check read_collective_check(const Ctx& c, const YAML::Node& n, const std::string& kind, const Setup& setup,
                            const Prepared& p) {
  Check k{c.mark(n), {}};
  if (kind == "buffer") k.claim = read_buffer(c, n, setup, p);
  else if (kind == "bytes") k.claim = read_bytes(c, n, setup, p);
  else if (kind == "steps") k.claim = read_steps(c, n, p);
  else if (kind == "result") k.claim = read_result(c, n, setup, p);
  else if (kind == "predicted") k.claim = read_predicted(c, n, setup);
  else if (kind == "ratio") k.claim = read_ratio(c, n, setup);
  else if (kind == "nic_bytes") k.claim = read_nic_bytes(c, n, setup);
  else if (kind == "nccl_choice") k.claim = read_nccl_choice(c, n, setup);
  else if (kind == "published_time") k.claim = read_published_time(c, n, setup);
  else if (kind == "published_error") k.claim = read_published_error(c, n, setup);
  else if (kind == "recorded_faster") k.claim = read_recorded_faster(c, n);
  else if (kind == "recorded_ratio") k.claim = read_recorded_ratio(c, n);
  else k.claim = read_faster(c, n, setup);
  return k;
}

std::vector<CheckResult> evaluate_collective(const Beat& b) {
  std::vector<CheckResult> out;
  BeatRun br{b, prepare(b.setup), std::nullopt};
  for (const Check& k : b.checks) {
    CheckResult r = std::visit(
        [&](const auto& claim) -> CheckResult {
          using K = std::decay_t<decltype(claim)>;
          if constexpr (std::is_same_v<K, check::Buffer> || std::is_same_v<K, check::Bytes> ||
                        std::is_same_v<K, check::Steps> || std::is_same_v<K, check::Result>)
            return eval(claim, br);
          else if constexpr (std::is_same_v<K, check::Predicted> || std::is_same_v<K, check::Ratio> ||
                             std::is_same_v<K, check::Faster> || std::is_same_v<K, check::NicBytes>)
            return eval_predicted(claim, BeatSetup{br.beat, br.p});
          else if constexpr (std::is_same_v<K, check::NcclChoice> || std::is_same_v<K, check::PublishedTime> ||
                             std::is_same_v<K, check::PublishedError>)
            return eval_nccl(claim);
          else if constexpr (std::is_same_v<K, check::RecordedFaster> || std::is_same_v<K, check::RecordedRatio>)
            return eval_recorded(claim);
          else
            return wrong_kind(k.mark, "collective");  // a ddp or hang check built by hand into this beat
        },
        k.claim);
    r.mark = k.mark;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace microddp::lesson::checks
