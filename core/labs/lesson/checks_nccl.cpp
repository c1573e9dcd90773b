// Checks of collective beats about NCCL on real systems: what the
// NCCL-shaped tuner (core/model/nccl_tuner.h) picks on a named system, a
// figure of a published nccl-tests table (core/model/nccl_tests.h), and
// the tuner's median error against such a table. Each kind's parser and
// evaluator side by side. A table's path is relative to the lesson file;
// the table is read (and a bad one refused, naming the check) when the
// lesson loads.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/labs/lesson/check_kinds.h"
#include "core/model/nccl_tests.h"
#include "core/model/nccl_tests_fit.h"
#include "core/model/nccl_tuner.h"

namespace microddp::lesson::checks {

using namespace yaml;

// A number above 0 (a time, a tolerance, a percentage): 0 or less could
// never pass, so it is refused while the lesson loads.
double positive(const Ctx& c, const YAML::Node& n, const std::string& key) {
  const double v = number(c, n, key);
  if (!(v > 0)) c.fail(n, fmt::format("'{}' must be above 0; got {}", key, n.Scalar()));
  return v;
}

namespace {

std::string table_path(const Ctx& c, const YAML::Node& n) {
  return yaml::data_file(c, n, str(c, n, "file"));
}

// The table at `path`, read once per evaluation; a file that does not parse
// fails at the check (loading) with the parser's message.
NcclTestsTable read_table(const Ctx& c, const YAML::Node& n, const std::string& path, Collective col) {
  try {
    return load_nccl_tests(path, std::string(name(col)));
  } catch (const std::exception& e) {
    c.fail(n, fmt::format("file: {}", e.what()));
  }
}

// The named system with `ranks` ranks; an unknown name fails at `name_node`,
// ranks it cannot take at `ranks_node`.
nccl::SystemDesc system_for(const Ctx& c, const YAML::Node& name_node, const YAML::Node& ranks_node,
                            const std::string& name, int ranks) {
  const nccl::SystemDesc* s = nullptr;
  try {
    s = &nccl::system_preset(name);
  } catch (const std::exception& e) {
    c.fail(name_node, e.what());
  }
  try {
    return nccl::with_ranks(*s, ranks);
  } catch (const std::exception& e) {
    c.fail(ranks_node, e.what());
  }
}

// "8", "64K", "4M", "1G" (powers of 1024), at least 1 B and below 2^40.
int64_t size_of(const Ctx& c, const YAML::Node& n) {
  const std::string text = str(c, n, "bytes");
  const int64_t b = bytes_with_unit(text);
  if (b < 1)
    c.fail(n, fmt::format("'bytes' must be a size from 1 B below 1 TiB (8, 64K, 4M, 1G; powers of 1024); got '{}'",
                          text));
  return b;
}


const std::vector<std::string> kRanges = {"<= 4 KiB", "4 KiB..1 MiB", "1 MiB..512 MiB", ">= 512 MiB", "all"};

}  // namespace

// ---- nccl_choice: the tuner's algorithm and protocol at a size ----

check::NcclChoice read_nccl_choice(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::NcclChoice k;
  only_keys(c, n, "an nccl_choice check",
            {"check", "system", "ranks", "bytes", "algorithm", "protocol", "time_us", "rel_tol"});
  k.system = str(c, need(c, n, "nccl_choice", "system"), "system");
  k.ranks = static_cast<int>(integer(c, need(c, n, "nccl_choice", "ranks"), "ranks", 2, nccl::kMaxTunerRanks));
  (void)system_for(c, n["system"], n["ranks"], k.system, k.ranks);  // the system exists and takes the ranks
  k.bytes = size_of(c, need(c, n, "nccl_choice", "bytes"));
  k.collective = parse_collective(s.collective);
  k.algorithm = one_of(c, need(c, n, "nccl_choice", "algorithm"), "algorithm", {"RING", "TREE", "NVLS", "NVLS_TREE"});
  k.protocol = one_of(c, need(c, n, "nccl_choice", "protocol"), "protocol", {"LL", "LL128", "SIMPLE"});
  if (n["time_us"]) k.time_us = positive(c, n["time_us"], "time_us");
  if (n["rel_tol"]) {
    if (!n["time_us"]) c.fail(n["rel_tol"], "'rel_tol' is the tolerance of 'time_us': give 'time_us' or leave it out");
    k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  }
  try {
    (void)nccl::tune(nccl::with_ranks(nccl::system_preset(k.system), k.ranks), k.collective, k.bytes);
  } catch (const std::exception& e) {
    c.fail(n, e.what());
  }
  return k;
}

CheckResult eval_nccl(const check::NcclChoice& k) {
  CheckResult r;
  const nccl::Choice ch = nccl::tune(nccl::with_ranks(nccl::system_preset(k.system), k.ranks), k.collective, k.bytes);
  const nccl::Candidate& b = ch.best();
  const std::string got_alg(nccl::nccl_name(b.algo)), got_proto(nccl::nccl_name(b.proto));
  r.what = fmt::format("NCCL's choice on {} ({} ranks) at {} B (NCCL-shaped tuner)", k.system, k.ranks, k.bytes);
  r.expected = fmt::format("Algo {} proto {}", k.algorithm, k.protocol);
  r.actual = fmt::format("Algo {} proto {}, {:.3f} us", got_alg, got_proto, b.time_us);
  r.pass = got_alg == k.algorithm && got_proto == k.protocol;
  if (!std::isnan(k.time_us)) {
    r.expected += fmt::format(", {:g} us (±{:g}%)", k.time_us, k.rel_tol * 100);
    r.pass = r.pass && std::abs(b.time_us - k.time_us) <= k.rel_tol * std::abs(k.time_us);
  }
  return r;
}

// ---- published_time: a published table's out-of-place time at a size ----

check::PublishedTime read_published_time(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::PublishedTime k;
  k.collective = parse_collective(s.collective);
  only_keys(c, n, "a published_time check", {"check", "file", "bytes", "time_us", "rel_tol"});
  k.path = table_path(c, need(c, n, "published_time", "file"));
  k.table = read_table(c, n["file"], k.path, k.collective);
  const NcclTestsTable& t = k.table;
  k.bytes = size_of(c, need(c, n, "published_time", "bytes"));
  const bool has = std::any_of(t.rows.begin(), t.rows.end(), [&](const NcclTestsRow& row) {
    return row.bytes == k.bytes && row.out_of_place.present;
  });
  if (!has) c.fail(n["bytes"], fmt::format("{} has no out-of-place row of {} B", k.path, k.bytes));
  for (const NcclTestsRow& row : t.rows)  // a 0.00 µs row is no measurement (predict --against drops it too)
    if (row.bytes == k.bytes && row.out_of_place.present && !(row.out_of_place.time_us > 0))
      c.fail(n["bytes"], fmt::format("{}'s out-of-place time at {} B is {}: no measurement to check", k.path, k.bytes,
                                     row.out_of_place.time_us));
  k.time_us = positive(c, need(c, n, "published_time", "time_us"), "time_us");
  if (n["rel_tol"]) k.rel_tol = positive(c, n["rel_tol"], "rel_tol");
  return k;
}

CheckResult eval_nccl(const check::PublishedTime& k) {
  CheckResult r;
  const NcclTestsTable& t = k.table;
  double got = -1;
  for (const NcclTestsRow& row : t.rows)
    if (row.bytes == k.bytes && row.out_of_place.present) got = row.out_of_place.time_us;
  r.what = fmt::format("published out-of-place time at {} B ({}: {})", k.bytes,
                       std::filesystem::path(k.path).filename().string(), t.system_text());
  r.expected = fmt::format("{:g} us (±{:g}%)", k.time_us, k.rel_tol * 100);
  r.actual = fmt::format("{:g} us", got);
  r.pass = got >= 0 && std::abs(got - k.time_us) <= k.rel_tol * std::abs(k.time_us);
  return r;
}

// ---- published_error: the tuner's median |error| against a table ----

check::PublishedError read_published_error(const Ctx& c, const YAML::Node& n, const Setup& s) {
  check::PublishedError k;
  k.collective = parse_collective(s.collective);
  only_keys(c, n, "a published_error check", {"check", "file", "system", "range", "below_pct"});
  if (n["range"]) k.range = one_of(c, n["range"], "range", kRanges);
  k.below_pct = positive(c, need(c, n, "published_error", "below_pct"), "below_pct");
  k.path = table_path(c, need(c, n, "published_error", "file"));
  k.table = read_table(c, n["file"], k.path, k.collective);
  const NcclTestsTable& t = k.table;
  if (t.world_size() < 2) c.fail(n["file"], fmt::format("{} prints no rank lines: its world size is unknown", k.path));
  k.system = str(c, need(c, n, "published_error", "system"), "system");
  const nccl::SystemDesc sys = system_for(c, n["system"], n["file"], k.system, t.world_size());
  if (t.nodes() > 1 && t.nodes() != sys.nodes)  // as predict --nccl-system --against refuses it
    c.fail(n["system"], fmt::format("{} has its {} ranks on {} nodes; NCCL system {} puts {} GPUs on a node ({} nodes)",
                                    k.path, t.world_size(), t.nodes(), sys.name, sys.gpus_per_node, sys.nodes));
  return k;
}

CheckResult eval_nccl(const check::PublishedError& k) {
  CheckResult r;
  const NcclTestsTable& t = k.table;
  const nccl::SystemDesc sys = nccl::with_ranks(nccl::system_preset(k.system), t.world_size());
  const auto rows = compare_rows(t, t.world_size(), [&](int64_t bytes) {
    return nccl::tune(sys, k.collective, bytes).best().time_us * 1e-6;
  });
  double err = -1;
  int n = 0;
  if (k.range == "all") {
    err = median_abs_error_pct(rows);
    n = static_cast<int>(rows.size());
  } else {
    for (const RangeError& g : error_by_range(rows))
      if (g.name == k.range) err = g.median_abs_error_pct, n = g.rows;
  }
  r.what = fmt::format("median |error| of the NCCL-shaped tuner on {} against {} ({} rows)", k.system,
                       std::filesystem::path(k.path).filename().string(), k.range);
  r.expected = fmt::format("below {:g}%", k.below_pct);
  r.actual = n == 0 ? std::string("no rows in that range") : fmt::format("{:.1f}% over {} rows", err, n);
  r.pass = n > 0 && err < k.below_pct;
  return r;
}

}  // namespace microddp::lesson::checks
