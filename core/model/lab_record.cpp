#include "core/model/lab_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/algorithms/registry.h"
#include "core/ir/input_file.h"
#include "core/ir/types.h"

namespace microddp {
namespace {

using nlohmann::json;

std::string need_string(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw UsageError(fmt::format("{}: '{}' is missing", where, key));
  if (!j[key].is_string()) throw UsageError(fmt::format("{}.{}: expected a string, got {}", where, key, j[key].dump()));
  return j[key].get<std::string>();
}
std::string opt_string(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
double need_number(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw UsageError(fmt::format("{}: '{}' is missing", where, key));
  if (!j[key].is_number()) throw UsageError(fmt::format("{}.{}: expected a number, got {}", where, key, j[key].dump()));
  return j[key].get<double>();
}
// A whole number in [lo, hi] at `key` (the record's counts and sizes): a
// fraction or an out-of-range value is refused, naming it, instead of being
// cut to an int (nodes 1e12 read as -2147483648, 2.9 as 2).
int64_t need_whole(const json& j, const char* key, const std::string& where, int64_t lo, int64_t hi) {
  const double v = need_number(j, key, where);
  if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v))
    throw UsageError(fmt::format("{}{}{}: {} is not a whole number from {} to {}", where,
                                 !where.empty() && where.back() == ']' ? "." : ": ", key, j[key].dump(), lo, hi));
  return static_cast<int64_t>(v);
}
// As need_whole, `dflt` when absent or null.
int64_t opt_whole(const json& j, const char* key, const std::string& where, int64_t lo, int64_t hi, int64_t dflt) {
  return j.contains(key) && !j[key].is_null() ? need_whole(j, key, where, lo, hi) : dflt;
}
// A time in µs above 0 at `key`, or -1 (not stated) when absent or null; a
// value that is not a number, or not above 0, is refused, naming it.
double opt_time(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return -1;
  if (!j[key].is_number()) throw UsageError(fmt::format("{}.{}: expected a number or null, got {}", where, key, j[key].dump()));
  const double v = j[key].get<double>();
  if (!(v > 0) || !std::isfinite(v))
    throw UsageError(fmt::format("{}.{}: {} is not a time (above 0 µs)", where, key, j[key].dump()));
  return v;
}

LabRecordRow read_row(const json& r, const std::string& where) {
  if (!r.is_object()) throw UsageError(fmt::format("{}: expected an object, got {}", where, r.dump()));
  LabRecordRow row;
  row.algorithm = need_string(r, "algorithm", where);
  row.bytes = need_whole(r, "bytes", where, 1, kMaxRecordBytes);
  row.time_us = need_number(r, "time_us", where);
  if (!(row.time_us > 0)) throw UsageError(fmt::format("{}.time_us: {} is not a time (above 0 µs)", where, row.time_us));
  row.count = opt_whole(r, "count", where, 0, kMaxRecordBytes, 0);
  row.samples = static_cast<int>(opt_whole(r, "samples", where, 0, kMaxRecordSamples, 0));
  row.min_us = opt_time(r, "min_us", where);
  row.p10_us = opt_time(r, "p10_us", where);
  row.p90_us = opt_time(r, "p90_us", where);
  row.max_us = opt_time(r, "max_us", where);
  row.predicted_us = opt_time(r, "predicted_us", where);
  // The spread drawn around the median: p10 <= median <= p90 when stated.
  const auto order = [&](const char* lo_key, double lo, const char* hi_key, double hi) {
    if (lo >= 0 && hi >= 0 && lo > hi)
      throw UsageError(fmt::format("{}: {} {:g} is above {} {:g}", where, lo_key, lo, hi_key, hi));
  };
  order("min_us", row.min_us, "p10_us", row.p10_us);
  order("min_us", row.min_us, "time_us (the median)", row.time_us);
  order("p10_us", row.p10_us, "time_us (the median)", row.time_us);
  order("time_us (the median)", row.time_us, "p90_us", row.p90_us);
  order("p10_us", row.p10_us, "p90_us", row.p90_us);
  order("p90_us", row.p90_us, "max_us", row.max_us);
  order("time_us (the median)", row.time_us, "max_us", row.max_us);
  return row;
}

}  // namespace

std::vector<std::string> LabRecord::algorithms() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (std::find(out.begin(), out.end(), r.algorithm) == out.end()) out.push_back(r.algorithm);
  return out;
}

const LabRecordRow* LabRecord::row(const std::string& algorithm, int64_t bytes) const {
  for (const auto& r : rows)
    if (r.algorithm == algorithm && r.bytes == bytes) return &r;
  return nullptr;
}

std::string LabRecord::setup_text() const {
  return fmt::format("{} node{} x {} rank{}, NIC {}", nodes, nodes == 1 ? "" : "s", ranks_per_node,
                     ranks_per_node == 1 ? "" : "s", nic);
}

LabRecord parse_lab_record(std::string_view text, const std::string& path) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw UsageError(fmt::format("{}: not JSON (a recorded lab run is one JSON object)", path));
  if (!j.is_object()) throw UsageError(fmt::format("{}: expected a JSON object, got {}", path, j.type_name()));
  LabRecord r;
  r.path = path;
  r.date = need_string(j, "date", path);
  r.machine = need_string(j, "machine", path);
  r.command = need_string(j, "command", path);
  r.nic = need_string(j, "nic", path);
  r.collective = need_string(j, "collective", path);
  r.nic_check = opt_string(j, "nic_check");
  r.predicted = opt_string(j, "predicted");
  r.nodes = static_cast<int>(need_whole(j, "nodes", path, 1, kMaxRecordRanks));
  r.ranks_per_node = static_cast<int>(need_whole(j, "ranks_per_node", path, 1, kMaxRecordRanks));
  if (int64_t{r.nodes} * r.ranks_per_node > kMaxRecordRanks)
    throw UsageError(fmt::format("{}: nodes x ranks_per_node: {} x {} = {} ranks (expected at most {})", path, r.nodes,
                                 r.ranks_per_node, int64_t{r.nodes} * r.ranks_per_node, kMaxRecordRanks));
  if (!j.contains("rows") || !j["rows"].is_array() || j["rows"].empty())
    throw UsageError(fmt::format("{}: 'rows' must be a non-empty array of bench rows", path));
  Collective c;
  try {
    c = parse_collective(r.collective);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: collective: {}", path, e.what()));
  }
  // The first row of each algorithm and size (a map: a file of many rows
  // reads in n log n, not n^2).
  std::map<std::pair<std::string, int64_t>, size_t> first_row;
  for (size_t i = 0; i < j["rows"].size(); ++i) {
    const std::string where = fmt::format("{}: rows[{}]", path, i);
    const json& jr = j["rows"][i];
    r.rows.push_back(read_row(jr, where));
    // bench's rows carry their own run's world_size, nodes and collective:
    // a row of another run pasted in is refused, naming both values.
    const auto same = [&](const char* key, const json& top, const char* top_name) {
      if (jr.contains(key) && !jr[key].is_null() && jr[key] != top)
        throw UsageError(fmt::format("{}.{}: {}, but the record's {} is {}", where, key, jr[key].dump(), top_name,
                                     top.dump()));
    };
    same("world_size", json(r.world_size()), "nodes x ranks_per_node");
    same("nodes", json(r.nodes), "nodes");
    same("collective", json(r.collective), "collective");
    // A row of an algorithm microddp does not know would drop out of every
    // plot and check unseen: refuse it, naming the row.
    if (!find_algorithm(r.rows.back().algorithm, c))
      throw UsageError(fmt::format("{}.algorithm: unknown algorithm '{}' for {} (expected one of: {})", where,
                                   r.rows.back().algorithm, name(c), fmt::join(algorithms_for(c), ", ")));
    // Two rows of one algorithm at one size: row() would read the first and
    // hide the second. Refuse, naming both.
    const auto [first, fresh] = first_row.try_emplace({r.rows.back().algorithm, r.rows.back().bytes}, i);
    if (!fresh)
      throw UsageError(fmt::format("{}: a second row of {} at {} bytes (the first is rows[{}])", where,
                                   r.rows.back().algorithm, r.rows.back().bytes, first->second));
  }
  return r;
}

LabRecord load_lab_record(const std::string& path) {
  require_regular_file(path, "recorded lab run");
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("recorded lab run '{}': cannot open it", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_lab_record(ss.str(), path);
}

std::vector<LabRecordRow> parse_bench_json_lines(std::string_view text, const std::string& what) {
  std::vector<LabRecordRow> out;
  std::istringstream in{std::string(text)};
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty() || line.front() != '{') continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) throw UsageError(fmt::format("{}: line {}: not JSON", what, n));
    out.push_back(read_row(j, fmt::format("{}: line {}", what, n)));
  }
  return out;
}

}  // namespace microddp
