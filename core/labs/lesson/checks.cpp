// Which family a check belongs to: read_check sends each `checks:` entry to
// the parser of its beat's kind (with a message naming the right beat kind
// when it is in the wrong one), and evaluate(Beat) runs the beat and sends
// its checks to the evaluator of its kind.
#include <cmath>
#include <fmt/format.h>

#include <algorithm>

#include "core/labs/lesson/check_kinds.h"

namespace microddp::lesson {
namespace checks {

using yaml::join;
using yaml::str;

const std::vector<std::string> kCollectiveNames = {"buffer",    "bytes",       "steps",          "result",
                                                   "predicted", "ratio",       "faster",         "nic_bytes",
                                                   "nccl_choice", "published_time", "published_error",
                                                   "recorded_faster", "recorded_ratio"};
const std::vector<std::string> kDdpNames = {"allreduce_calls",  "buckets",         "bucket_params",
                                            "overlap_fraction", "exposed_comm_ms", "comm_ms",         "replicas_identical",
                                            "same_params",      "loss"};
const std::vector<std::string> kHangNames = {"named_ranks", "failure", "all_failed", "elapsed", "sequence", "report", "log_line"};
const std::vector<std::string> kLabNames = {"measured_ratio"};

namespace {

const char* kind_name(Beat::Kind k) {
  return k == Beat::Kind::ddp ? "ddp" : k == Beat::Kind::hang ? "hang" : k == Beat::Kind::lab ? "lab" : "collective";
}

const std::vector<std::string>& names_of(Beat::Kind k) {
  return k == Beat::Kind::ddp    ? kDdpNames
         : k == Beat::Kind::hang ? kHangNames
         : k == Beat::Kind::lab  ? kLabNames
                                 : kCollectiveNames;
}

}  // namespace

Check read_check(const yaml::Ctx& c, const YAML::Node& n, const BeatContext& beat) {
  const Beat::Kind bk = beat.kind;
  const std::vector<std::string>& kinds = names_of(bk);
  if (!n.IsMap()) c.fail(n, "a check must be a mapping starting with 'check: KIND'");
  if (!n["check"]) c.fail(n, fmt::format("a check needs 'check: KIND' (one of: {})", join(kinds)));
  // A known kind in the wrong kind of beat says which beat it belongs to.
  const YAML::Node kn = n["check"];
  const std::string want = str(c, kn, "check");
  for (Beat::Kind other : {Beat::Kind::collective, Beat::Kind::ddp, Beat::Kind::hang, Beat::Kind::lab}) {
    if (other == bk) continue;
    const auto& ok = names_of(other);
    if (std::find(ok.begin(), ok.end(), want) != ok.end() && std::find(kinds.begin(), kinds.end(), want) == kinds.end())
      c.fail(kn, fmt::format("a '{}' check belongs in a {} beat (kind: {}); this is a {} beat (its checks: {})", want,
                             kind_name(other), kind_name(other), kind_name(bk), join(kinds)));
  }
  if (std::find(kinds.begin(), kinds.end(), want) == kinds.end())
    c.fail(kn, fmt::format("'check' must be one of: {}; got '{}' (ddp beats: {}; hang beats: {}; lab beats: {})",
                           join(kinds), want, join(kDdpNames), join(kHangNames), join(kLabNames)));
  if (bk == Beat::Kind::ddp) return read_ddp_check(c, n, want, *beat.runs);
  if (bk == Beat::Kind::hang) return read_hang_check(c, n, want, beat.world, beat.log);
  if (bk == Beat::Kind::lab) return read_lab_check(c, n, want, *beat.lab, *beat.lab_runs);
  return read_collective_check(c, n, want, *beat.setup, *beat.prepared);
}

std::string fmt_num(double v) { return fmt::format("{:.6g}", v); }

std::string fmt_seconds(double s) {
  const double a = std::abs(s);
  if (a >= 1 || a == 0 || !std::isfinite(s)) return fmt::format("{:.4g} s", s);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} µs", s * 1e6);
  return fmt::format("{:.4g} ns", s * 1e9);
}

std::string int_list(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

CheckResult wrong_kind(const Mark& m, const char* beat) {
  CheckResult r;
  r.mark = m;
  r.what = fmt::format("a check that does not belong in a {} beat", beat);
  r.expected = "a check of this beat's kind";
  r.actual = "another kind";
  return r;
}

}  // namespace checks

std::vector<CheckResult> evaluate(const Beat& b) {
  if (b.checks.empty()) return {};
  if (b.kind == Beat::Kind::ddp) return evaluate(b, ddp::run_ddp(b.ddp));
  if (b.kind == Beat::Kind::hang) return evaluate(b, hang::run_hang_lab(b.hang));
  if (b.kind == Beat::Kind::lab) return evaluate(b, run_lab(nullptr, b.lab), {});
  return checks::evaluate_collective(b);
}

}  // namespace microddp::lesson
