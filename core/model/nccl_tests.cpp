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
    if (!na_time && p.time_us < 0) fail(line, fmt::format("{}time is {} (expected a time >= 0 us)", f, w[at]));
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

}  // namespace

NcclTestsTable parse_nccl_tests(std::string_view text, const std::string& path, const std::string& collective) {
  Parser p{path, {}, {}, 3, 3, 1};
  p.t.path = path;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw UsageError(fmt::format("{}: the file is empty (expected the output of an nccl-tests *_perf tool)", path));
  static const std::regex rank_re(
      R"(^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s+(.+?)\s*$)");
  static const std::regex version_re(R"(NCCL version (\S+))");
  static const std::regex tool_re(R"(\b([a-z_]+)_perf(_mpi)?\b)");
  static const std::regex avg_re(R"(^#\s*Avg bus bandwidth\s*:\s*(\S+))");
  std::string named_tool;
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
    const bool is_row = std::isdigit(static_cast<unsigned char>(w[0][0])) != 0;
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
        r.host = m[2].str();
        r.device = small_int(m[3].str(), "device");
        r.gpu = m[4].str();
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

NcclTestsTable load_nccl_tests(const std::string& path, const std::string& collective) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    throw UsageError(fmt::format("{}: no such file (expected the saved output of an nccl-tests *_perf tool)", path));
  if (!std::filesystem::is_regular_file(st))
    throw UsageError(fmt::format("{}: not a regular file (expected the saved output of an nccl-tests *_perf tool)", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("{}: cannot be read", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_nccl_tests(ss.str(), path, collective);
}

}  // namespace microddp
