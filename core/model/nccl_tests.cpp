// Reading nccl-tests output (core/model/nccl_tests.h). The line shapes are
// those of NVIDIA/nccl-tests src/common.cu (2.x: the "#  Rank %2d Group %2d
// Pid %6d on %10s device %2d [%s] %s" lines, the two header lines of the
// columns, "%12li  %12li  %8s  %6s  %6i" then "%7s  %6.2f  %6.2f  %5s" per
// placement) and of the older 1.x/2.0 outputs people still paste (no Group,
// no root column, "error" as 0e+00, no leading '#').
#include "core/model/nccl_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "core/ir/input_file.h"

namespace microddp {

const std::vector<std::string>& nccl_tests_collectives() {
  static const std::vector<std::string> v = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                                             "alltoall",   "sendrecv",   "gather",         "scatter",   "hypercube"};
  return v;
}

std::optional<Collective> model_collective(const std::string& n) {
  if (n.empty() || n == "sendrecv" || n == "hypercube") return std::nullopt;
  return parse_collective(n == "alltoall" ? "all_to_all" : n);
}

std::vector<int64_t> NcclTestsTable::wrong_sizes() const {
  std::vector<int64_t> out;
  for (const auto& r : rows)
    if (r.out_of_place.present && r.out_of_place.flagged_wrong) out.push_back(r.bytes);
  return out;
}

int NcclTestsTable::nodes() const {
  std::set<std::string> hosts;
  for (const auto& r : ranks) hosts.insert(r.host);
  return static_cast<int>(hosts.size());
}

std::string NcclTestsTable::gpu() const {
  std::vector<std::string> models;
  for (const auto& r : ranks)
    if (std::find(models.begin(), models.end(), r.gpu) == models.end()) models.push_back(r.gpu);
  std::string s;
  for (const auto& m : models) s += (s.empty() ? "" : " + ") + m;
  return s;
}

std::string NcclTestsTable::system_text() const {
  if (ranks.empty()) return "ranks not printed";
  return fmt::format("{} rank{} on {} node{} of {}", world_size(), world_size() == 1 ? "" : "s", nodes(),
                     nodes() == 1 ? "" : "s", gpu());
}

void NcclTestsTable::require_modelled_placement() const {
  if (!placement_problem.empty()) throw UsageError(placement_problem);
}

namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

// The column header: the words size, count, type, time, algbw, busbw (the
// first header line of the columns; "out-of-place  in-place" and the unit
// line "(B) (elements) ... (us) (GB/s)" are not it).
bool is_column_header(const std::vector<std::string>& w) {
  const auto has = [&](const char* k) { return std::find(w.begin(), w.end(), k) != w.end(); };
  return has("size") && has("count") && has("type") && has("time") && has("algbw") && has("busbw");
}

std::string normalize_collective(const std::string& c) {
  if (c == "all_to_all") return "alltoall";
  return c;
}

// The type's size in bytes (nccl-tests' names, old and new).
const std::map<std::string, int64_t>& type_sizes() {
  static const std::map<std::string, int64_t> sizes = {
      {"int8", 1},   {"char", 1},     {"uint8", 1},    {"int32", 4},     {"int", 4},       {"uint32", 4},
      {"int64", 8},  {"uint64", 8},   {"half", 2},     {"float16", 2},   {"float", 4},     {"float32", 4},
      {"double", 8}, {"float64", 8},  {"bfloat16", 2}, {"f8e4m3", 1},    {"f8e5m2", 1},    {"fp8_e4m3", 1},
      {"fp8_e5m2", 1}};
  return sizes;
}

// 0 for a type nccl-tests does not name.
int64_t type_bytes(const std::string& type) {
  const auto it = type_sizes().find(type);
  return it == type_sizes().end() ? 0 : it->second;
}

// nccl-tests prints count = size / the type's size (all_reduce, broadcast,
// reduce, sendrecv), or per rank, size / the type's size / ranks
// (all_gather, reduce_scatter, alltoall, gather, scatter): one of the two,
// with `ranks` ranks when known (> 0; else any whole multiple), or the row
// is not what the tool printed. "" when it is; else what is wrong, without
// the file and line. ranks_from: how the ranks are known ("" = the rank
// lines, " (--ranks)").
std::string count_problem(const NcclTestsRow& r, int64_t n, const std::string& ranks_from) {
  const int64_t elt = type_bytes(r.type);
  const int64_t count_bytes = r.count * elt;  // count has at most 18 digits: no overflow
  const bool ok = count_bytes == r.bytes ||
                  (count_bytes > 0 && (n > 0 ? count_bytes <= r.bytes / n && count_bytes * n == r.bytes
                                             : r.bytes % count_bytes == 0));
  if (ok) return "";
  return fmt::format("count is {} elements of {} ({} B each) = {} B, but size is {} B (expected count = size / {}, or "
                     "size / {} / {}{} for all_gather, reduce_scatter and alltoall)",
                     r.count, r.type, elt, count_bytes, r.bytes, elt, elt,
                     n > 0 ? fmt::format("{} rank{}", n, n == 1 ? "" : "s") : std::string("the ranks"), ranks_from);
}

struct Parser {
  const std::string& path;
  NcclTestsTable t;
  std::map<std::tuple<int64_t, std::string, std::string, int>, int> seen;  // a row's size, type, redop, root -> line
  int fields_per_placement = 3, lead = 3, placements = 1;

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}: {}", path, line, what));
  }

  std::string expected_row() const {
    std::string lead_names = "size count type";
    if (t.has_redop) lead_names += " redop";
    if (t.has_root) lead_names += " root";
    std::string per = t.has_wrong ? "time algbw busbw #wrong" : "time algbw busbw";
    return fmt::format("{} fields as the header at line {} says: {}, then {} for out-of-place{}", lead + placements * fields_per_placement,
                       t.header_line, lead_names, per, placements == 2 ? " and for in-place" : "");
  }

  void header(int line, const std::vector<std::string>& w) {
    std::vector<std::string> words;
    for (const auto& x : w)
      if (x != "#") words.push_back(x);
    t.has_redop = std::find(words.begin(), words.end(), "redop") != words.end();
    t.has_root = std::find(words.begin(), words.end(), "root") != words.end();
    t.has_wrong = std::find(words.begin(), words.end(), "#wrong") != words.end() ||
                  std::find(words.begin(), words.end(), "error") != words.end() ||
                  std::find(words.begin(), words.end(), "wrong") != words.end();
    t.wrong_is_count = std::find(words.begin(), words.end(), "#wrong") != words.end() ||
                       std::find(words.begin(), words.end(), "wrong") != words.end();
    placements = static_cast<int>(std::count(words.begin(), words.end(), "time"));
    if (placements < 1 || placements > 2)
      fail(line, fmt::format("the column header names 'time' {} times (expected once for out-of-place, twice with "
                             "in-place)",
                             placements));
    t.has_in_place = placements == 2;
    fields_per_placement = t.has_wrong ? 4 : 3;
    lead = 3 + (t.has_redop ? 1 : 0) + (t.has_root ? 1 : 0);
    t.header_line = line;
  }

  double number(int line, const std::string& tok, const char* what, bool allow_na, bool* na = nullptr) const {
    if (tok == "N/A" && allow_na) {
      if (na) *na = true;
      return 0;
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
      fail(line, fmt::format("{} is '{}' (expected a number{})", what, tok, allow_na ? " or N/A" : ""));
    return v;
  }

  int64_t integer(int line, const std::string& tok, const char* what, bool allow_negative) const {
    const bool neg = allow_negative && !tok.empty() && tok[0] == '-';
    const std::string digits = neg ? tok.substr(1) : tok;
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      fail(line, fmt::format("{} is '{}' (expected a whole number{})", what, tok, allow_negative ? "" : " >= 0"));
    const int64_t v = std::stoll(digits);
    return neg ? -v : v;
  }

  void check_count(const NcclTestsRow& r) const {
    if (type_bytes(r.type) == 0) {
      std::string names;
      for (const auto& [n, b] : type_sizes()) names += (names.empty() ? "" : ", ") + n;
      fail(r.line, fmt::format("type is '{}' (expected one of nccl-tests' types: {})", r.type, names));
    }
    const std::string why = count_problem(r, static_cast<int64_t>(t.ranks.size()), "");
    if (!why.empty()) fail(r.line, why);
  }

  NcclTestsPlacement placement(int line, const std::vector<std::string>& w, size_t at, const char* which) const {
    NcclTestsPlacement p;
    bool na_time = false, na = false;
    const std::string f = std::string(which) + " ";
    p.time_us = number(line, w[at], (f + "time (us)").c_str(), true, &na_time);
    p.algbw_GBps = number(line, w[at + 1], (f + "algbw (GB/s)").c_str(), true, &na);
    p.busbw_GBps = number(line, w[at + 2], (f + "busbw (GB/s)").c_str(), true, &na);
    if (t.has_wrong) {
      bool na_wrong = false;
      const double v = number(line, w[at + 3], (f + "#wrong").c_str(), true, &na_wrong);
      p.wrong = na_wrong ? -1 : v;
      p.flagged_wrong = t.wrong_is_count && v > 0;
    }
    if (!na_time && p.time_us <= 0)
      fail(line, fmt::format("{}time is {} (expected a time above 0 us, or N/A)", f, w[at]));
    p.present = !na_time;
    return p;
  }

  void row(int line, const std::vector<std::string>& w) {
    const size_t want = static_cast<size_t>(lead + placements * fields_per_placement);
    if (w.size() != want)
      fail(line, fmt::format("the row has {} field{} (expected {}){}", w.size(), w.size() == 1 ? "" : "s",
                             expected_row(), w.size() < want ? ": a truncated row?" : ""));
    NcclTestsRow r;
    r.line = line;
    r.bytes = integer(line, w[0], "size (B)", false);
    r.count = integer(line, w[1], "count (elements)", false);
    r.type = w[2];
    size_t at = 3;
    if (t.has_redop) r.redop = w[at++];
    if (t.has_root) r.root = static_cast<int>(integer(line, w[at++], "root", true));
    r.out_of_place = placement(line, w, at, "out-of-place");
    at += fields_per_placement;
    if (placements == 2) r.in_place = placement(line, w, at, "in-place");
    check_count(r);
    const auto [first, fresh] = seen.try_emplace(std::make_tuple(r.bytes, r.type, r.redop, r.root), line);
    if (!fresh)
      fail(line, fmt::format("a second row of size {} B ({}{}{}) after line {}: one row per size (a table "
                             "pasted twice?)",
                             r.bytes, r.type, r.redop.empty() ? "" : " ", r.redop, first->second));
    t.rows.push_back(std::move(r));
  }
};

// "[1,0]<stdout>:" (mpirun --tag-output) in front of a line.
std::string_view untag(std::string_view s) {
  static const std::regex tag(R"(^\[\d+,\d+\]<std(out|err)>:)");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(s.begin(), s.end(), m, tag)) s.remove_prefix(static_cast<size_t>(m.length(0)));
  return s;
}

// The model places ranks contiguously, the same count on every node (ranks
// 0..k-1 on the first node, k..2k-1 on the second, ...): "" when the rank
// lines say so (or there are none), else why not, "FILE:LINE: ...".
std::string placement_problem(const Parser& p) {
  const auto& ranks = p.t.ranks;
  const auto at = [&](int line, const std::string& what) { return fmt::format("{}:{}: {}", p.path, line, what); };
  std::map<std::string, std::pair<int, int>> hosts;  // host -> first line, ranks
  std::vector<std::string> order;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const NcclTestsRank& r = ranks[i];
    auto it = hosts.find(r.host);
    if (it == hosts.end()) {
      hosts.emplace(r.host, std::make_pair(r.line, 1));
      order.push_back(r.host);
      continue;
    }
    if (ranks[i - 1].host != r.host)
      return at(r.line, fmt::format("rank {} is on {} again after ranks on {} (line {}): the ranks of a node are not "
                                    "contiguous, and microddp's model places ranks contiguously (ranks 0..k-1 on the "
                                    "first node, k..2k-1 on the next): not modelled",
                                    r.rank, r.host, ranks[i - 1].host, ranks[i - 1].line));
    ++it->second.second;
  }
  const int per = hosts.empty() ? 0 : hosts.at(order.front()).second;
  for (const auto& h : order) {
    const auto& [line, n] = hosts.at(h);
    if (n != per)
      return at(line, fmt::format("{} has {} rank{} but {} has {}: microddp's model places the same count of ranks on "
                                  "every node: not modelled",
                                  h, n, n == 1 ? "" : "s", order.front(), per));
  }
  return "";
}

}  // namespace

NcclTestsTable parse_nccl_tests(std::string_view text, const std::string& path, const std::string& collective,
                                RankPlacement placement) {
  Parser p{path, {}, {}, 3, 3, 1};
  p.t.path = path;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw UsageError(fmt::format("{}: the file is empty (expected the output of an nccl-tests *_perf tool)", path));
  static const std::regex rank_re(
      R"(^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s+(.+?)\s*$)");
  static const std::regex version_re(R"(NCCL version (\S+))");
  static const std::regex tool_re(R"(\b([a-z_]+)_perf(_mpi)?\b)");
  static const std::regex avg_re(R"(^#\s*Avg bus bandwidth\s*:\s*(\S+))");
  std::string named_tool;
  std::map<std::tuple<int, std::string, std::string>, int> rank_lines;  // rank, Pid, host -> line
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view sv = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!sv.empty() && sv.back() == '\r') sv.remove_suffix(1);
    sv = untag(sv);
    const std::string line(sv);
    const std::vector<std::string> w = split(line);
    if (w.empty()) {
      if (nl == text.size()) break;
      continue;
    }
    // A row starts with its size: digits, or a sign or '.' before them (a
    // size of -64 or .5 is a broken row, refused by its number, not skipped).
    const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    const std::string& w0 = w[0];
    const bool is_row = digit(w0[0]) || (w0.size() > 1 && (w0[0] == '-' || w0[0] == '+' || w0[0] == '.') &&
                                         (digit(w0[1]) || (w0[1] == '.' && w0.size() > 2 && digit(w0[2]))));
    if (is_row) {
      if (p.t.header_line == 0)
        p.fail(line_no, "a data row before any column header (expected the header '#  size  count  type  redop  "
                        "root  time  algbw  busbw  #wrong ...' first: is the top of the table missing?)");
      p.row(line_no, w);
    } else if (is_column_header(w)) {
      // MPI runs of old versions print the header once per process: a
      // repeat before any row is the same table.
      if (!p.t.rows.empty())
        p.fail(line_no, fmt::format("a second column header after {} data rows (expected one table per file: split "
                                    "the file at this line)",
                                    p.t.rows.size()));
      p.header(line_no, w);
    } else {
      std::smatch m;
      if (std::regex_search(line, m, rank_re)) {
        NcclTestsRank r;
        r.line = line_no;
        // at most 9 digits each (the regex takes any run): no overflow
        const auto small_int = [&](const std::string& d, const char* what) {
          if (d.size() > 9) p.fail(line_no, fmt::format("the {} is '{}' (expected a number below 1e9)", what, d));
          return std::stoi(d);
        };
        r.rank = small_int(m[1].str(), "rank");
        r.host = m[3].str();
        r.device = small_int(m[4].str(), "device");
        r.gpu = m[5].str();
        // One line per rank of one process: the same rank, Pid and host
        // again is the block pasted twice (old versions number ranks per
        // process, so a rank number alone may repeat).
        const auto [first, fresh] = rank_lines.try_emplace(std::make_tuple(r.rank, m[2].str(), r.host), line_no);
        if (!fresh)
          p.fail(line_no, fmt::format("rank {} (Pid {} on {}) is printed again after line {}: one line per rank (the "
                                      "rank lines pasted twice?)",
                                      r.rank, m[2].str(), r.host, first->second));
        p.t.ranks.push_back(std::move(r));
      } else if (std::regex_search(line, m, version_re)) {
        if (p.t.nccl_version.empty()) p.t.nccl_version = m[1].str();
      } else if (std::regex_search(line, m, avg_re)) {
        p.t.avg_busbw_GBps = std::strtod(m[1].str().c_str(), nullptr);
      }
      if (named_tool.empty()) {
        for (auto it = std::sregex_iterator(line.begin(), line.end(), tool_re); it != std::sregex_iterator(); ++it) {
          const std::string stem = (*it)[1].str();
          const auto& known = nccl_tests_collectives();
          if (std::find(known.begin(), known.end(), stem) != known.end()) {
            named_tool = stem;
            break;
          }
        }
      }
    }
    if (nl == text.size()) break;
  }
  if (p.t.header_line == 0)
    throw UsageError(fmt::format("{}: no column header found (expected the nccl-tests line '#  size  count  type  "
                                 "redop  root  time  algbw  busbw  #wrong ...' above the rows)",
                                 path));
  if (p.t.rows.empty())
    p.fail(p.t.header_line, "the column header has no data rows after it (expected rows 'SIZE COUNT TYPE ...': a "
                            "truncated paste?)");
  p.t.placement_problem = placement_problem(p);
  if (placement == RankPlacement::refuse_unmodelled) p.t.require_modelled_placement();
  const std::string asked = normalize_collective(collective);
  if (!asked.empty()) {
    const auto& known = nccl_tests_collectives();
    if (std::find(known.begin(), known.end(), asked) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw UsageError(fmt::format("--collective {}: not an nccl-tests collective (expected one of {})", collective, list));
    }
  }
  if (!named_tool.empty()) {
    p.t.tool = named_tool + "_perf";
    p.t.collective = named_tool;
    p.t.collective_from = "tool name";
    if (!asked.empty() && asked != named_tool)
      throw UsageError(fmt::format("{}: --collective {} contradicts the file, which names {}_perf", path, collective,
                                   named_tool));
  } else if (!asked.empty()) {
    p.t.collective = asked;
    p.t.collective_from = "--collective";
  } else if (p.t.has_root && p.t.rows.front().root >= 0) {
    p.t.collective = p.t.rows.front().redop == "none" || !p.t.has_redop ? "broadcast" : "reduce";
    p.t.collective_from = "column set (root and redop)";
  }
  return std::move(p.t);
}

void NcclTestsTable::check_counts(int ranks, const std::string& from) const {
  for (const auto& r : rows) {
    const std::string why = count_problem(r, ranks, from.empty() ? "" : " (" + from + ")");
    if (!why.empty()) throw UsageError(fmt::format("{}:{}: {}", path, r.line, why));
  }
}

NcclTestsTable load_nccl_tests(const std::string& path, const std::string& collective, RankPlacement placement) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    throw UsageError(fmt::format("{}: no such file (expected the saved output of an nccl-tests *_perf tool)", path));
  require_regular_file(path, "nccl-tests table", "expected the saved output of an nccl-tests *_perf tool");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("{}: cannot be read", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_nccl_tests(ss.str(), path, collective, placement);
}

}  // namespace microddp
