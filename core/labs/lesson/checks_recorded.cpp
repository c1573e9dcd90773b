// recorded_faster: a claim about a network checked on a recorded cluster-lab
// run (core/model/lab_record.h), so that a machine without namespaces (or
// without a network at all) still checks it where it was measured.
//   {check: recorded_faster, file: data/lab-....json, algorithm: ring, than: tree, from: 256K}
//   (`to: SIZE` bounds the sizes from above: "tree faster than ring up to 64K")
// recorded_ratio: how a recorded median grows with the size, or how far it
// sits from the record's own model line (lesson 05: latency- and
// bandwidth-bound on a network).
//   {check: recorded_ratio, file: ..., algorithm: tree, bytes: 16M, over_bytes: 4M, greater_than: 3.5, less_than: 4.5}
//   {check: recorded_ratio, file: ..., algorithm: tree, bytes: 16M, over_predicted: true, less_than: 1.2}
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "core/labs/lesson/check_kinds.h"
#include "core/model/sweep.h"

namespace microddp::lesson::checks {

using yaml::Ctx;
using yaml::str;

namespace {

// The check's `file:`, relative to the lesson, loaded (a LessonError at it
// when it cannot be read or parsed).
void load_record(const Ctx& c, const YAML::Node& n, const std::string& kind, std::string& path, LabRecord& record) {
  const YAML::Node fn = need(c, n, kind, "file");
  path = yaml::data_file(c, fn, str(c, fn, "file"));
  try {
    record = load_lab_record(path);
  } catch (const UsageError& e) {
    c.fail(n["file"], e.what());
  }
}

std::string record_text(const std::string& path, const LabRecord& rec) {
  return fmt::format("recorded cluster lab run {} ({}, {} on {})", std::filesystem::path(path).filename().string(),
                     rec.setup_text(), rec.machine, rec.date);
}

}  // namespace

check::RecordedFaster read_recorded_faster(const Ctx& c, const YAML::Node& n) {
  check::RecordedFaster k;
  yaml::only_keys(c, n, "a recorded_faster check", {"check", "file", "algorithm", "than", "from", "to"});
  const std::string f = str(c, need(c, n, "recorded_faster", "file"), "file");
  load_record(c, n, "recorded_faster", k.path, k.record);
  k.algorithm = str(c, need(c, n, "recorded_faster", "algorithm"), "algorithm");
  k.than = str(c, need(c, n, "recorded_faster", "than"), "than");
  const auto have = k.record.algorithms();
  for (const char* key : {"algorithm", "than"}) {
    const std::string a = str(c, n[key], key);
    if (std::find(have.begin(), have.end(), a) == have.end())
      c.fail(n[key], fmt::format("'{}' has no rows in {} (it has {})", a, f, yaml::join(have)));
  }
  if (k.algorithm == k.than) c.fail(n["than"], "'than' must name another algorithm");
  if (n["from"]) {
    k.from_bytes = yaml::bytes_with_unit(str(c, n["from"], "from"));
    if (k.from_bytes < 1) c.fail(n["from"], fmt::format("'from' must be a size of 1 byte or more; got '{}'", n["from"].Scalar()));
  }
  if (n["to"]) {
    k.to_bytes = yaml::bytes_with_unit(str(c, n["to"], "to"));
    if (k.to_bytes < 1) c.fail(n["to"], fmt::format("'to' must be a size of 1 byte or more; got '{}'", n["to"].Scalar()));
    if (k.to_bytes < k.from_bytes)
      c.fail(n["to"], fmt::format("'to' ('{}', {} bytes) is below 'from' ('{}', {} bytes)", n["to"].Scalar(),
                                  k.to_bytes, n["from"].Scalar(), k.from_bytes));
  }
  return k;
}

CheckResult eval_recorded(const check::RecordedFaster& k) {
  CheckResult r;
  const LabRecord& rec = k.record;
  std::vector<std::string> ratios;
  bool all = true;
  int sizes = 0;
  for (const LabRecordRow& a : rec.rows) {
    if (a.algorithm != k.algorithm || a.bytes < k.from_bytes || a.bytes > k.to_bytes) continue;
    const LabRecordRow* b = rec.row(k.than, a.bytes);
    if (!b) continue;
    ++sizes;
    all = all && a.time_us < b->time_us;
    ratios.push_back(fmt::format("{} B: {:.3g}", a.bytes, a.time_us / b->time_us));
  }
  const std::string range = k.to_bytes == INT64_MAX
                                ? fmt::format("from {} on", size_text(k.from_bytes))
                                : fmt::format("from {} to {}", size_text(k.from_bytes), size_text(k.to_bytes));
  r.what = fmt::format("{}: {} faster than {} {}", record_text(k.path, rec), k.algorithm, k.than, range);
  r.expected = fmt::format("{} / {} time below 1 at every size", k.algorithm, k.than);
  r.actual = sizes == 0 ? std::string("no size with both") : fmt::format("{}", fmt::join(ratios, ", "));
  r.pass = sizes > 0 && all;
  return r;
}

check::RecordedRatio read_recorded_ratio(const Ctx& c, const YAML::Node& n) {
  check::RecordedRatio k;
  yaml::only_keys(c, n, "a recorded_ratio check",
                  {"check", "file", "algorithm", "bytes", "over_bytes", "over_predicted", "greater_than", "less_than"});
  const std::string f = str(c, need(c, n, "recorded_ratio", "file"), "file");
  load_record(c, n, "recorded_ratio", k.path, k.record);
  const YAML::Node alg = need(c, n, "recorded_ratio", "algorithm");
  k.algorithm = str(c, alg, "algorithm");
  const auto have = k.record.algorithms();
  if (std::find(have.begin(), have.end(), k.algorithm) == have.end())
    c.fail(alg, fmt::format("'{}' has no rows in {} (it has {})", k.algorithm, f, yaml::join(have)));
  // A size the record has a row of, for the algorithm.
  const auto size = [&](const YAML::Node& v, const char* key) {
    const int64_t b = yaml::bytes_with_unit(str(c, v, key));
    if (!k.record.row(k.algorithm, b)) {
      std::vector<std::string> sizes;
      for (const LabRecordRow& r : k.record.rows)
        if (r.algorithm == k.algorithm) sizes.push_back(size_text(r.bytes));
      c.fail(v, fmt::format("'{}': {} has no {} row of {} (it has {})", key, f, k.algorithm, v.Scalar(),
                            yaml::join(sizes)));
    }
    return b;
  };
  k.bytes = size(need(c, n, "recorded_ratio", "bytes"), "bytes");
  if (n["over_predicted"]) k.over_predicted = yaml::boolean(c, n["over_predicted"], "over_predicted");
  if (n["over_bytes"] && k.over_predicted)
    c.fail(n["over_bytes"], "a 'recorded_ratio' check takes one of over_bytes, over_predicted: true");
  if (n["over_bytes"]) {
    k.over_bytes = size(n["over_bytes"], "over_bytes");
    if (k.over_bytes == k.bytes) c.fail(n["over_bytes"], "'over_bytes' must be another size than 'bytes'");
  } else if (!k.over_predicted) {
    c.fail(n, "a 'recorded_ratio' check needs 'over_bytes: SIZE' or 'over_predicted: true'");
  } else if (!(k.record.row(k.algorithm, k.bytes)->predicted_us > 0)) {
    c.fail(n["over_predicted"], fmt::format("{} states no predicted_us for {} at {}", f, k.algorithm, n["bytes"].Scalar()));
  }
  if (n["greater_than"]) k.greater_than = positive(c, n["greater_than"], "greater_than");
  if (n["less_than"]) k.less_than = positive(c, n["less_than"], "less_than");
  if (std::isnan(k.greater_than) && std::isnan(k.less_than))
    c.fail(n, "a 'recorded_ratio' check needs greater_than and/or less_than");
  if (k.greater_than >= k.less_than)
    c.fail(n["less_than"], fmt::format("'less_than' ({:g}) must be above 'greater_than' ({:g})", k.less_than,
                                       k.greater_than));
  return k;
}

CheckResult eval_recorded(const check::RecordedRatio& k) {
  CheckResult r;
  const LabRecordRow* a = k.record.row(k.algorithm, k.bytes);
  const LabRecordRow* b = k.over_predicted ? a : k.record.row(k.algorithm, k.over_bytes);
  const std::string over = k.over_predicted ? std::string("the record's predicted time there")
                                            : fmt::format("its median at {}", size_text(k.over_bytes));
  r.what = fmt::format("{}: {}'s median at {} over {}", record_text(k.path, k.record), k.algorithm,
                       size_text(k.bytes), over);
  std::vector<std::string> bounds;
  if (!std::isnan(k.greater_than)) bounds.push_back(fmt::format("> {:g}", k.greater_than));
  if (!std::isnan(k.less_than)) bounds.push_back(fmt::format("< {:g}", k.less_than));
  r.expected = fmt::format("{}", fmt::join(bounds, " and "));
  if (!a || !b) {  // a record built by hand without the rows
    r.actual = "no such row";
    return r;
  }
  const double den = k.over_predicted ? b->predicted_us : b->time_us;
  const double ratio = a->time_us / den;
  r.actual = fmt::format("{:.3g} ({} / {})", ratio, fmt_seconds(a->time_us * 1e-6), fmt_seconds(den * 1e-6));
  r.pass = std::isfinite(ratio) && (std::isnan(k.greater_than) || ratio > k.greater_than) &&
           (std::isnan(k.less_than) || ratio < k.less_than);
  return r;
}

}  // namespace microddp::lesson::checks
