// Lab beats: the request's helpers, the model's price of a lab run, and the
// measured_ratio check (parser and evaluator side by side). A lab beat's run
// comes from a LabRunner the viewer supplies (the CLI starts `microddp
// cluster`); this layer only reads the rows it returns.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/algorithms/registry.h"
#include "core/labs/lesson/check_kinds.h"
#include "core/model/topology_model.h"

namespace microddp::lesson {

double LabRequest::nic_bps() const {
  // The subset of tc's rate syntax lessons use: a plain decimal number and
  // kbit, mbit or gbit (powers of 1000, as tc).
  size_t i = 0;
  while (i < nic.size() && (std::isdigit(static_cast<unsigned char>(nic[i])) || nic[i] == '.')) ++i;
  const std::string num = nic.substr(0, i), unit = nic.substr(i);
  const double scale = unit == "kbit" ? 1e3 : unit == "mbit" ? 1e6 : unit == "gbit" ? 1e9 : 0;
  double v = 0;
  try {
    size_t used = 0;
    v = num.empty() ? 0 : std::stod(num, &used);
    if (used != num.size()) v = 0;
  } catch (const std::exception&) {
    v = 0;
  }
  if (scale == 0 || !(v > 0))
    throw UsageError(fmt::format("nic '{}' is not a rate such as 100mbit (units: kbit, mbit, gbit)", nic));
  return v * scale;
}

const LabRow* LabRun::row(const std::string& algorithm) const {
  for (const LabRow& r : rows)
    if (r.algorithm == algorithm) return &r;
  return nullptr;
}

LabRun run_lab(const LabRunner& runner, const LabRequest& q) {
  LabRun run;
  if (!runner) {
    run.reason = "this viewer does not start the cluster lab";
  } else {
    try {
      run = runner(q);
    } catch (const std::exception& e) {
      run.status = LabRun::Status::failed;
      run.reason = e.what();
    }
  }
  run.request = q;
  return run;
}

double predict_lab(const LabRequest& q, const std::string& algorithm) {
  CollectiveSpec s;
  s.collective = parse_collective(q.collective);
  s.algorithm = algorithm;
  s.dtype = DType::float32;
  s.world_size = q.nodes * q.ranks_per_node;
  s.nodes = q.nodes;
  s.count = q.bytes / 4;
  s.validate();
  Network net;
  net.topo = Topology::make(s.world_size, q.nodes, 1);
  // Shared memory inside a node, TCP through the shaped NIC between nodes
  // (the figures in lesson.h); reductions and copies at memcpy-like speed.
  net.intra.alpha = 2e-6;
  net.intra.beta = 1 / 8e9;
  net.intra.gamma = 1 / 8e9;
  net.inter = net.intra;
  net.inter.alpha = 50e-6;
  net.inter.beta = 8 / q.nic_bps();
  net.intra.fused_recv_reduce = net.inter.fused_recv_reduce = false;
  return predict(make_schedule(s), net).pr.lockstep_s;
}

namespace checks {

using namespace yaml;

namespace {

// ---- measured_ratio: one measured median over another ----

check::MeasuredRatio read_measured_ratio(const Ctx& c, const YAML::Node& n, const LabRequest& lab,
                                         const std::map<std::string, LabRequest>& runs) {
  only_keys(c, n, "a measured_ratio check", {"check", "algorithm", "over_algorithm", "over_run", "greater_than",
                                             "less_than"});
  check::MeasuredRatio k;
  auto algorithm_of = [&](const LabRequest& q, const char* key) {
    const std::string a = str(c, n[key], key);
    if (std::find(q.algorithms.begin(), q.algorithms.end(), a) == q.algorithms.end())
      c.fail(n[key], fmt::format("'{}' must be one of the lab run's algorithms ({}); got '{}'", key,
                                 join(q.algorithms), a));
    return a;
  };
  k.algorithm = n["algorithm"] ? algorithm_of(lab, "algorithm") : lab.algorithms.front();
  const LabRequest* other = &lab;
  if (n["over_run"]) {
    k.over_run = str(c, n["over_run"], "over_run");
    const auto it = runs.find(k.over_run);
    if (it == runs.end()) {
      std::vector<std::string> names;
      for (const auto& [name, q] : runs) names.push_back(name);
      c.fail(n["over_run"], fmt::format("'over_run' must name an earlier lab beat (named so far: {}); got '{}'",
                                        names.empty() ? "none" : join(names), k.over_run));
    }
    other = &it->second;
  } else if (!n["over_algorithm"]) {
    c.fail(n, "a 'measured_ratio' check needs 'over_algorithm: ALG' or 'over_run: NAME'");
  }
  k.over_algorithm = n["over_algorithm"] ? algorithm_of(*other, "over_algorithm") : k.algorithm;
  if (!n["over_run"] && k.over_algorithm == k.algorithm)
    c.fail(n["over_algorithm"], "'over_algorithm' is the same as 'algorithm': the ratio would be 1");
  if (n["over_run"] && !n["over_algorithm"] &&
      std::find(other->algorithms.begin(), other->algorithms.end(), k.algorithm) == other->algorithms.end())
    c.fail(n["over_run"], fmt::format("the run '{}' did not measure '{}' (it measured {}); say 'over_algorithm'",
                                      k.over_run, k.algorithm, join(other->algorithms)));
  // A ratio of two times is above 0: a bound at or below 0 would always
  // pass (greater_than) or never (less_than).
  if (n["greater_than"]) k.greater_than = positive(c, n["greater_than"], "greater_than");
  if (n["less_than"]) k.less_than = positive(c, n["less_than"], "less_than");
  if (std::isnan(k.greater_than) && std::isnan(k.less_than))
    c.fail(n, "a 'measured_ratio' check needs 'greater_than: X' and/or 'less_than: Y'");
  if (!std::isnan(k.greater_than) && !std::isnan(k.less_than) && !(k.greater_than < k.less_than))
    c.fail(n["less_than"], fmt::format("'less_than' ({:g}) must be above 'greater_than' ({:g})", k.less_than,
                                       k.greater_than));
  return k;
}

std::string bounds(const check::MeasuredRatio& k) {
  if (std::isnan(k.less_than)) return fmt::format("> {:g}", k.greater_than);
  if (std::isnan(k.greater_than)) return fmt::format("< {:g}", k.less_than);
  return fmt::format("between {:g} and {:g}", k.greater_than, k.less_than);
}

CheckResult eval(const check::MeasuredRatio& k, const LabRun& run, const std::map<std::string, LabRun>& runs) {
  CheckResult r;
  const bool across = !k.over_run.empty();
  r.what = across ? fmt::format("measured {} on {}×{} over {} in run '{}'", k.algorithm, run.request.nodes,
                                run.request.ranks_per_node, k.over_algorithm, k.over_run)
                  : fmt::format("measured {} over {}", k.algorithm, k.over_algorithm);
  r.expected = bounds(k);
  const LabRun* other = &run;
  if (across) {
    const auto it = runs.find(k.over_run);
    other = it == runs.end() ? nullptr : &it->second;
  }
  auto skip = [&](const std::string& why) {
    r.skipped = true;
    r.actual = "skipped: " + why;
    return r;
  };
  if (run.status == LabRun::Status::unavailable) return skip(run.reason);
  if (!other) return skip(fmt::format("the run '{}' was not made", k.over_run));
  if (other->status == LabRun::Status::unavailable) return skip(fmt::format("run '{}': {}", k.over_run, other->reason));
  if (run.status == LabRun::Status::failed || other->status == LabRun::Status::failed) {
    r.actual = "the lab run failed: " + (run.status == LabRun::Status::failed ? run.reason : other->reason);
    return r;
  }
  const LabRow* a = run.row(k.algorithm);
  const LabRow* b = other->row(k.over_algorithm);
  if (!a || !b || !(b->seconds > 0)) {
    r.actual = fmt::format("no measurement of {}", !a ? k.algorithm : k.over_algorithm);
    return r;
  }
  const double ratio = a->seconds / b->seconds;
  std::string model;
  try {
    model = fmt::format("; model {:.2f}",
                        predict_lab(run.request, k.algorithm) / predict_lab(other->request, k.over_algorithm));
  } catch (const std::exception&) {
    // A prediction is shown beside the measurement, never needed for it.
  }
  r.actual = fmt::format("{:.2f} ({:.3f} s / {:.3f} s, medians{})", ratio, a->seconds, b->seconds, model);
  if (!std::isfinite(ratio)) {  // a time of 1e302 s over 1e-303 s: no measurement, whatever the bounds
    r.actual = fmt::format("not a ratio: {} s / {} s = {}", a->seconds, b->seconds, ratio);
    return r;
  }
  r.pass = (std::isnan(k.greater_than) || ratio > k.greater_than) && (std::isnan(k.less_than) || ratio < k.less_than);
  return r;
}

}  // namespace

Check read_lab_check(const Ctx& c, const YAML::Node& n, const std::string& kind, const LabRequest& lab,
                     const std::map<std::string, LabRequest>& runs) {
  (void)kind;  // measured_ratio is the only lab check
  return Check{c.mark(n), read_measured_ratio(c, n, lab, runs)};
}

}  // namespace checks

std::vector<CheckResult> evaluate(const Beat& b, const LabRun& run, const std::map<std::string, LabRun>& runs) {
  std::vector<CheckResult> out;
  for (const Check& k : b.checks) {
    CheckResult r = std::visit(
        [&](const auto& claim) -> CheckResult {
          using K = std::decay_t<decltype(claim)>;
          if constexpr (std::is_same_v<K, check::MeasuredRatio>) return checks::eval(claim, run, runs);
          else return checks::wrong_kind(k.mark, "lab");
        },
        k.claim);
    r.mark = k.mark;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace microddp::lesson
