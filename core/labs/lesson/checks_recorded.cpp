// recorded_faster: a claim about a network checked on a recorded cluster-lab
// run (core/model/lab_record.h), so that a machine without namespaces (or
// without a network at all) still checks it where it was measured.
//   {check: recorded_faster, file: data/lab-....json, algorithm: ring, than: tree, from: 256K}
//   (`to: SIZE` bounds the sizes from above: "tree faster than ring up to 64K")
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "core/labs/lesson/check_kinds.h"
#include "core/model/sweep.h"

namespace microddp::lesson::checks {

using yaml::Ctx;
using yaml::str;

check::RecordedFaster read_recorded_faster(const Ctx& c, const YAML::Node& n) {
  check::RecordedFaster k;
  yaml::only_keys(c, n, "a recorded_faster check", {"check", "file", "algorithm", "than", "from", "to"});
  const std::string f = str(c, need(c, n, "recorded_faster", "file"), "file");
  const std::filesystem::path fp(f);
  k.path = fp.is_absolute() ? f : (std::filesystem::path(c.file).parent_path() / fp).lexically_normal().string();
  try {
    k.record = load_lab_record(k.path);
  } catch (const UsageError& e) {
    c.fail(n["file"], e.what());
  }
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
    if (k.to_bytes < k.from_bytes)
      c.fail(n["to"], fmt::format("'to' ({} bytes) is below 'from' ({} bytes)", k.to_bytes, k.from_bytes));
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
  r.what = fmt::format("recorded cluster lab run {} ({}, {} on {}): {} faster than {} {}",
                       std::filesystem::path(k.path).filename().string(), rec.setup_text(), rec.machine, rec.date,
                       k.algorithm, k.than, range);
  r.expected = fmt::format("{} / {} time below 1 at every size", k.algorithm, k.than);
  r.actual = sizes == 0 ? std::string("no size with both") : fmt::format("{}", fmt::join(ratios, ", "));
  r.pass = sizes > 0 && all;
  return r;
}

}  // namespace microddp::lesson::checks
