#include "core/labs/lesson/lesson.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"
#include "core/model/cost_model.h"
#include "core/record/data.h"
#include "core/record/printer.h"
#include "core/ir/reference.h"

namespace microddp::lesson {

std::string Mark::str() const { return fmt::format("{}:{}:{}", file, line, column); }

namespace {

// ---- loading ---------------------------------------------------------------

struct Ctx {
  std::string file;
  Mark mark(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return {file, 0, 0};
    return {file, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw LessonError(mark(n).str() + ": " + msg);
  }
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Every key of map `n` must be one of `allowed`.
// `also`: further allowed keys, listed after the main ones (issue 8 keys, so
// that the messages about the original keys keep their wording).
void only_keys(const Ctx& c, const YAML::Node& n, const std::string& where, const std::vector<std::string>& allowed,
               const std::vector<std::string>& also = {}) {
  if (!n.IsMap()) c.fail(n, fmt::format("{} must be a mapping (key: value lines)", where));
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar()) c.fail(it->first, fmt::format("{}: keys must be plain words", where));
    const std::string k = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end() &&
        std::find(also.begin(), also.end(), k) == also.end())
      c.fail(it->first, fmt::format("unknown key '{}' in {} (expected one of: {}){}", k, where, join(allowed),
                                    also.empty() ? std::string() : fmt::format("; also: {}", join(also))));
  }
}

std::string str(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) c.fail(n, fmt::format("'{}' must be a single value (text)", key));
  return n.Scalar();
}

int64_t integer(const Ctx& c, const YAML::Node& n, const std::string& key, int64_t lo, int64_t hi) {
  const std::string s = str(c, n, key);
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) c.fail(n, fmt::format("'{}' must be an integer, got '{}'", key, s));
  if (v < lo || v > hi) c.fail(n, fmt::format("'{}' must be between {} and {}, got {}", key, lo, hi, v));
  return v;
}

double number(const Ctx& c, const YAML::Node& n, const std::string& key) {
  const std::string s = str(c, n, key);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v))
    c.fail(n, fmt::format("'{}' must be a number, got '{}'", key, s));
  return v;
}

bool boolean(const Ctx& c, const YAML::Node& n, const std::string& key) {
  const std::string s = str(c, n, key);
  if (s == "true") return true;
  if (s == "false") return false;
  c.fail(n, fmt::format("'{}' must be true or false, got '{}'", key, s));
}

// Returns a copy (a YAML::Node is a handle): callers pass temporaries such
// as n["key"], and range-for over a returned reference would dangle.
YAML::Node seq(const Ctx& c, const YAML::Node& n, const std::string& key) {
  if (!n.IsSequence()) c.fail(n, fmt::format("'{}' must be a list ([a, b] or '- ' lines)", key));
  return n;
}

std::string one_of(const Ctx& c, const YAML::Node& n, const std::string& key, const std::vector<std::string>& ok) {
  const std::string s = str(c, n, key);
  if (std::find(ok.begin(), ok.end(), s) == ok.end())
    c.fail(n, fmt::format("'{}' must be one of: {}; got '{}'", key, join(ok), s));
  return s;
}

const std::vector<std::string> kBufNames = {"input", "output", "send_buff", "recv_buff", "accum", "scratch"};

void read_setup(const Ctx& c, const YAML::Node& n, Setup& s) {
  only_keys(c, n, "setup",
            {"collective", "algorithm", "ranks", "count", "counts", "dtype", "op", "root", "segments", "in_place",
             "data", "fill", "backend", "mode", "delay"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;  // a copy: it->second is a temporary proxy's member
    if (k == "collective") s.collective = str(c, v, k);
    else if (k == "algorithm") s.algorithm = str(c, v, k);
    else if (k == "ranks") s.ranks = static_cast<int>(integer(c, v, k, 1, 32));
    else if (k == "count") s.count = integer(c, v, k, 0, int64_t{1} << 40);
    else if (k == "counts") {
      s.counts.clear();
      for (const auto& e : seq(c, v, k)) s.counts.push_back(integer(c, e, k, 0, int64_t{1} << 40));
    } else if (k == "dtype") s.dtype = str(c, v, k);
    else if (k == "op") s.op = str(c, v, k);
    else if (k == "root") s.root = static_cast<int>(integer(c, v, k, 0, 31));
    else if (k == "segments") s.segments = static_cast<int>(integer(c, v, k, 1, 16));
    else if (k == "in_place") s.in_place = boolean(c, v, k);
    else if (k == "data") {
      // Either rows "1,2,3;4,5,6" or a list of lists [[1,2,3],[4,5,6]].
      if (v.IsScalar()) {
        s.data = v.Scalar();
      } else {
        std::string rows;
        bool first_row = true;
        for (const auto& row : seq(c, v, k)) {
          if (!first_row) rows += ";";
          first_row = false;
          bool first = true;
          for (const auto& e : seq(c, row, "data row")) {
            rows += (first ? "" : ",") + str(c, e, "data value");
            first = false;
          }
        }
        s.data = rows;
      }
      s.fill.clear();
    } else if (k == "fill") {
      s.fill = str(c, v, k);
      s.data.clear();
    } else if (k == "backend") s.backend = one_of(c, v, k, {"threads"});
    else if (k == "mode") s.mode = one_of(c, v, k, {"lockstep", "free"});
    else if (k == "delay" && v.IsScalar() && v.Scalar() == "none") {
      s.delay.reset();
    } else if (k == "delay") {
      only_keys(c, v, "delay", {"rank", "max_delay_us"});
      DelayHook d;
      if (v["rank"]) d.rank = static_cast<int>(integer(c, v["rank"], "rank", -1, 63));
      if (v["max_delay_us"]) d.max_delay_us = static_cast<int>(integer(c, v["max_delay_us"], "max_delay_us", 0, 100000));
      s.delay = d;
    }
  }
}

// ---- issue 8: ddp and hang options ---------------------------------------------

// Bounds keep a lesson's run small (a lesson runs in seconds).
void read_ddp(const Ctx& c, const YAML::Node& n, ddp::Options& o) {
  only_keys(c, n, "ddp",
            {"ranks", "depth", "width", "batch", "iterations", "lr", "bucket_cap_mb", "overlap", "algorithm", "seed",
             "layer_delay_us", "link_us_per_mb", "sharded", "prefetch"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;
    if (k == "ranks") o.ranks = static_cast<int>(integer(c, v, k, 1, 16));
    else if (k == "depth") o.depth = static_cast<int>(integer(c, v, k, 1, 64));
    else if (k == "width") o.width = static_cast<int>(integer(c, v, k, 1, 1024));
    else if (k == "batch") o.batch = integer(c, v, k, 1, 4096);
    else if (k == "iterations") o.iterations = static_cast<int>(integer(c, v, k, 1, 100));
    else if (k == "lr") {
      o.lr = number(c, v, k);
      if (!(o.lr > 0)) c.fail(v, fmt::format("'lr' must be > 0, got {}", o.lr));
    } else if (k == "bucket_cap_mb") {
      o.bucket_cap_mb = number(c, v, k);
      if (!(o.bucket_cap_mb > 0)) c.fail(v, fmt::format("'bucket_cap_mb' must be > 0, got {}", o.bucket_cap_mb));
    } else if (k == "overlap") {
      o.overlap = ddp::parse_overlap(one_of(c, v, k, {"none", "per_param", "per-param", "bucketed"}));
    } else if (k == "algorithm") o.algorithm = str(c, v, k);
    else if (k == "seed") o.seed = static_cast<uint64_t>(integer(c, v, k, 0, int64_t{1} << 62));
    else if (k == "layer_delay_us") o.layer_delay_us = static_cast<int>(integer(c, v, k, 0, 100000));
    else if (k == "link_us_per_mb") {
      o.link_us_per_mb = number(c, v, k);
      if (!(o.link_us_per_mb >= 0 && o.link_us_per_mb <= 100000))
        c.fail(v, fmt::format("'link_us_per_mb' must be between 0 and 100000, got {}", o.link_us_per_mb));
    }
    else if (k == "sharded") o.sharded = boolean(c, v, k);
    else if (k == "prefetch") o.prefetch = boolean(c, v, k);
  }
}

void read_hang(const Ctx& c, const YAML::Node& n, hang::LabOptions& o) {
  only_keys(c, n, "hang", {"ranks", "fault", "fault_ranks", "timeout_s", "count", "algorithm", "fault_call"});
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string k = it->first.Scalar();
    const YAML::Node v = it->second;
    if (k == "ranks") o.ranks = static_cast<int>(integer(c, v, k, 2, 16));
    else if (k == "fault")
      o.fault = hang::parse_fault(one_of(c, v, k, {"none", "skip-collective", "wrong-count", "wrong-order", "sleep"}));
    else if (k == "fault_ranks") {
      // One rank (fault_ranks: 2) or a list (fault_ranks: [3, 1]).
      o.fault_ranks.clear();
      if (v.IsScalar()) o.fault_ranks.push_back(static_cast<int>(integer(c, v, k, 0, 15)));
      else
        for (const auto& e : seq(c, v, k)) o.fault_ranks.push_back(static_cast<int>(integer(c, e, k, 0, 15)));
    } else if (k == "timeout_s") {
      o.timeout_s = number(c, v, k);
      if (!(o.timeout_s >= 0.01 && o.timeout_s <= 10))
        c.fail(v, fmt::format("'timeout_s' must be between 0.01 and 10 (seconds), got {}", o.timeout_s));
    } else if (k == "count") o.count = integer(c, v, k, 4, int64_t{1} << 20);
    else if (k == "algorithm") o.algorithm = str(c, v, k);
    else if (k == "fault_call") o.fault_call = static_cast<int>(integer(c, v, k, 0, 1));
  }
}

Target read_target(const Ctx& c, const YAML::Node& n) {
  Target t;
  if (n.IsMap()) {
    only_keys(c, n, "at", {"phase"});
    if (!n["phase"]) c.fail(n, "'at' as a mapping needs 'phase: NAME'");
    t.kind = Target::Kind::phase;
    t.phase = str(c, n["phase"], "phase");
    return t;
  }
  const std::string s = str(c, n, "at");
  if (s == "start") t.kind = Target::Kind::start;
  else if (s == "end") t.kind = Target::Kind::end;
  else {
    t.kind = Target::Kind::step;
    size_t used = 0;
    try {
      t.step = std::stoi(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || t.step < 0)
      c.fail(n, fmt::format("'at' must be a step number (0, 1, ...), start, end or {{phase: NAME}}; got '{}'", s));
  }
  return t;
}

Highlights read_highlights(const Ctx& c, const YAML::Node& n) {
  only_keys(c, n, "highlight", {"ranks", "chunks", "buffers", "links"});
  Highlights h;
  if (n["ranks"])
    for (const auto& e : seq(c, n["ranks"], "ranks")) h.ranks.push_back(static_cast<int>(integer(c, e, "ranks", 0, 63)));
  if (n["chunks"])
    for (const auto& e : seq(c, n["chunks"], "chunks"))
      h.chunks.push_back(static_cast<int>(integer(c, e, "chunks", 0, 1 << 20)));
  if (n["buffers"])
    for (const auto& e : seq(c, n["buffers"], "buffers")) h.buffers.push_back(one_of(c, e, "buffers", kBufNames));
  if (n["links"])
    for (const auto& e : seq(c, n["links"], "links")) {
      const std::string s = str(c, e, "links");
      int a = -1, b = -1;
      char tail = 0;
      if (std::sscanf(s.c_str(), "%d->%d%c", &a, &b, &tail) != 2 || a < 0 || b < 0)
        c.fail(e, fmt::format("a link is written 'FROM->TO' (e.g. '2->0'), got '{}'", s));
      h.links.emplace_back(a, b);
    }
  return h;
}

Question read_question(const Ctx& c, const YAML::Node& n) {
  only_keys(c, n, "question", {"ask", "choices", "answer", "tolerance", "explain"});
  Question q;
  if (!n["ask"]) c.fail(n, "a question needs 'ask'");
  if (!n["answer"]) c.fail(n, "a question needs 'answer' (a choice number, or the value to type)");
  q.ask = str(c, n["ask"], "ask");
  if (n["explain"]) q.explain = str(c, n["explain"], "explain");
  if (n["choices"]) {
    for (const auto& e : seq(c, n["choices"], "choices")) q.choices.push_back(str(c, e, "choices"));
    if (q.choices.size() < 2) c.fail(n["choices"], "'choices' needs at least two entries");
    q.answer = static_cast<int>(integer(c, n["answer"], "answer", 1, static_cast<int64_t>(q.choices.size())));
    if (n["tolerance"]) c.fail(n["tolerance"], "'tolerance' is for typed values, not for choices");
  } else {
    q.value = number(c, n["answer"], "answer");
    if (n["tolerance"]) q.tolerance = number(c, n["tolerance"], "tolerance");
  }
  return q;
}

const std::vector<std::string> kCollectiveChecks = {"buffer", "bytes", "steps", "result", "predicted", "ratio", "faster"};
const std::vector<std::string> kDdpChecks = {"allreduce_calls",  "buckets",            "bucket_params",
                                             "overlap_fraction", "exposed_comm_ms",    "replicas_identical",
                                             "same_params",      "loss"};
const std::vector<std::string> kHangChecks = {"named_ranks", "failure", "all_failed", "elapsed", "sequence", "report"};

const char* kind_name(Beat::Kind k) {
  return k == Beat::Kind::ddp ? "ddp" : k == Beat::Kind::hang ? "hang" : "collective";
}

Check read_check_ddp(const Ctx& c, const YAML::Node& n, const std::string& kind,
                     const std::map<std::string, ddp::Options>& runs);
Check read_check_hang(const Ctx& c, const YAML::Node& n, const std::string& kind);

Check read_check(const Ctx& c, const YAML::Node& n, Beat::Kind bk = Beat::Kind::collective,
                 const std::map<std::string, ddp::Options>& runs = {}) {
  const std::vector<std::string>& kinds =
      bk == Beat::Kind::ddp ? kDdpChecks : bk == Beat::Kind::hang ? kHangChecks : kCollectiveChecks;
  if (!n.IsMap()) c.fail(n, "a check must be a mapping starting with 'check: KIND'");
  if (!n["check"]) c.fail(n, fmt::format("a check needs 'check: KIND' (one of: {})", join(kinds)));
  {
    // A known kind in the wrong kind of beat says which beat it belongs to.
    const YAML::Node kn = n["check"];
    const std::string want = str(c, kn, "check");
    for (Beat::Kind other : {Beat::Kind::collective, Beat::Kind::ddp, Beat::Kind::hang}) {
      if (other == bk) continue;
      const auto& ok = other == Beat::Kind::ddp ? kDdpChecks : other == Beat::Kind::hang ? kHangChecks : kCollectiveChecks;
      if (std::find(ok.begin(), ok.end(), want) != ok.end() && std::find(kinds.begin(), kinds.end(), want) == kinds.end())
        c.fail(kn, fmt::format("a '{}' check belongs in a {} beat (kind: {}); this is a {} beat (its checks: {})", want,
                               kind_name(other), kind_name(other), kind_name(bk), join(kinds)));
    }
    if (std::find(kinds.begin(), kinds.end(), want) == kinds.end())
      c.fail(kn, fmt::format("'check' must be one of: {}; got '{}' (ddp beats: {}; hang beats: {})", join(kinds), want,
                             join(kDdpChecks), join(kHangChecks)));
  }
  if (bk == Beat::Kind::ddp) return read_check_ddp(c, n, n["check"].Scalar(), runs);
  if (bk == Beat::Kind::hang) return read_check_hang(c, n, n["check"].Scalar());
  Check k;
  k.mark = c.mark(n);
  const std::string kind = one_of(c, n["check"], "check", kinds);
  auto need = [&](const char* key) -> YAML::Node {
    if (!n[key]) c.fail(n, fmt::format("a '{}' check needs '{}'", kind, key));
    return n[key];
  };
  auto read_step = [&](const YAML::Node& v) {
    if (v.IsScalar() && v.Scalar() == "end") k.step_is_end = true;
    else if (v.IsScalar() && v.Scalar() == "start") k.step = -1;
    else k.step = static_cast<int>(integer(c, v, "step", 0, 1 << 20));
  };
  if (kind == "buffer") {
    k.kind = Check::Kind::buffer;
    only_keys(c, n, "a buffer check", {"check", "rank", "buffer", "step", "equals"});
    k.rank = static_cast<int>(integer(c, need("rank"), "rank", 0, 63));
    k.buffer = one_of(c, need("buffer"), "buffer", kBufNames);
    read_step(need("step"));
    for (const auto& e : seq(c, need("equals"), "equals")) k.values.push_back(number(c, e, "equals"));
  } else if (kind == "bytes") {
    k.kind = Check::Kind::bytes;
    only_keys(c, n, "a bytes check", {"check", "rank", "direction", "step", "equals"});
    k.rank = static_cast<int>(integer(c, need("rank"), "rank", 0, 63));
    if (n["direction"]) k.direction = one_of(c, n["direction"], "direction", {"sent", "received", "both"});
    if (n["step"]) k.step = static_cast<int>(integer(c, n["step"], "step", 0, 1 << 20));
    k.value = static_cast<double>(integer(c, need("equals"), "equals", 0, int64_t{1} << 50));
  } else if (kind == "steps") {
    k.kind = Check::Kind::steps;
    only_keys(c, n, "a steps check", {"check", "phase", "equals"});
    if (n["phase"]) k.phase = str(c, n["phase"], "phase");
    k.value = static_cast<double>(integer(c, need("equals"), "equals", 0, 1 << 20));
  } else if (kind == "result") {
    k.kind = Check::Kind::result;
    only_keys(c, n, "a result check", {"check", "expect", "seeds"});
    k.expect = one_of(c, need("expect"), "expect", {"correct", "corrupts"});
    if (n["seeds"]) k.seeds = static_cast<int>(integer(c, n["seeds"], "seeds", 1, 1000));
  } else if (kind == "predicted") {
    k.kind = Check::Kind::predicted;
    only_keys(c, n, "a predicted check", {"check", "preset", "seconds", "rel_tol"});
    k.preset = str(c, need("preset"), "preset");
    k.value = number(c, need("seconds"), "seconds");
    if (n["rel_tol"]) k.rel_tol = number(c, n["rel_tol"], "rel_tol");
  } else if (kind == "ratio") {
    k.kind = Check::Kind::ratio;
    only_keys(c, n, "a ratio check",
              {"check", "preset", "over_preset", "algorithm", "over_algorithm", "equals", "rel_tol"});
    k.preset = str(c, need("preset"), "preset");
    if (n["over_preset"]) k.other_preset = str(c, n["over_preset"], "over_preset");
    if (n["algorithm"]) k.algorithm = str(c, n["algorithm"], "algorithm");
    if (n["over_algorithm"]) k.other_algorithm = str(c, n["over_algorithm"], "over_algorithm");
    if (k.other_preset.empty() && k.other_algorithm.empty())
      c.fail(n, "a ratio check needs 'over_preset' or 'over_algorithm' (what to divide by)");
    k.value = number(c, need("equals"), "equals");
    if (n["rel_tol"]) k.rel_tol = number(c, n["rel_tol"], "rel_tol");
  } else {
    k.kind = Check::Kind::faster;
    only_keys(c, n, "a faster check", {"check", "preset", "algorithm", "than"});
    k.preset = str(c, need("preset"), "preset");
    k.algorithm = str(c, need("algorithm"), "algorithm");
    k.other_algorithm = str(c, need("than"), "than");
  }
  // Names are checked now, so a typo in a preset fails at load time.
  for (const std::string* p : {&k.preset, &k.other_preset})
    if (!p->empty()) {
      try {
        (void)microddp::preset(*p);
      } catch (const UsageError& e) {
        c.fail(n, e.what());
      }
    }
  return k;
}

// The comparison of a ddp figure: exactly one of equals / less_than /
// greater_than, each a number or {run: NAME, times: X}.
void read_compare(const Ctx& c, const YAML::Node& n, const std::string& kind, Check& k,
                  const std::map<std::string, ddp::Options>& runs, bool integral) {
  int found = 0;
  for (const char* key : {"equals", "less_than", "greater_than"}) {
    if (!n[key]) continue;
    if (found++) c.fail(n[key], fmt::format("a '{}' check takes one of equals, less_than, greater_than", kind));
    k.compare = key;
    const YAML::Node v = n[key];
    if (v.IsMap()) {
      only_keys(c, v, fmt::format("'{}'", key), {"run", "times"});
      if (!v["run"]) c.fail(v, fmt::format("'{}' as a mapping needs 'run: NAME' (an earlier ddp beat's name)", key));
      k.other_run = str(c, v["run"], "run");
      const auto it = runs.find(k.other_run);
      if (it == runs.end()) {
        std::vector<std::string> names;
        for (const auto& [nm, o] : runs) names.push_back(nm);
        c.fail(v["run"], fmt::format("no earlier ddp beat is named '{}' (named so far: {})", k.other_run,
                                     names.empty() ? std::string("none") : join(names)));
      }
      k.other_ddp = it->second;
      if (v["times"]) {
        k.times = number(c, v["times"], "times");
        if (!(k.times > 0)) c.fail(v["times"], fmt::format("'times' must be > 0, got {}", k.times));
      }
    } else if (integral) {
      k.value = static_cast<double>(integer(c, v, key, 0, int64_t{1} << 40));
    } else {
      k.value = number(c, v, key);
    }
  }
  if (!found) c.fail(n, fmt::format("a '{}' check needs equals, less_than or greater_than", kind));
}

Check read_check_ddp(const Ctx& c, const YAML::Node& n, const std::string& kind,
                     const std::map<std::string, ddp::Options>& runs) {
  Check k;
  k.mark = c.mark(n);
  const std::string where = fmt::format("a {} check", kind);
  if (kind == "allreduce_calls" || kind == "buckets" || kind == "overlap_fraction" || kind == "exposed_comm_ms") {
    k.kind = kind == "allreduce_calls"    ? Check::Kind::allreduce_calls
             : kind == "buckets"          ? Check::Kind::buckets
             : kind == "overlap_fraction" ? Check::Kind::overlap_fraction
                                          : Check::Kind::exposed_comm_ms;
    only_keys(c, n, where, {"check", "equals", "less_than", "greater_than"});
    read_compare(c, n, kind, k, runs, k.kind == Check::Kind::allreduce_calls || k.kind == Check::Kind::buckets);
  } else if (kind == "bucket_params") {
    k.kind = Check::Kind::bucket_params;
    only_keys(c, n, where, {"check", "bucket", "equals"});
    if (!n["bucket"]) c.fail(n, "a 'bucket_params' check needs 'bucket'");
    if (!n["equals"]) c.fail(n, "a 'bucket_params' check needs 'equals'");
    k.bucket = static_cast<int>(integer(c, n["bucket"], "bucket", 0, 1 << 20));
    for (const auto& e : seq(c, n["equals"], "equals"))
      k.values.push_back(static_cast<double>(integer(c, e, "equals", 0, 1 << 20)));
  } else if (kind == "replicas_identical") {
    k.kind = Check::Kind::replicas_identical;
    only_keys(c, n, where, {"check"});
  } else if (kind == "same_params") {
    k.kind = Check::Kind::same_params;
    only_keys(c, n, where, {"check", "as"});
    if (!n["as"]) c.fail(n, "a 'same_params' check needs 'as: {run: NAME}'");
    only_keys(c, n["as"], "'as'", {"run"});
    if (!n["as"]["run"]) c.fail(n["as"], "'as' needs 'run: NAME' (an earlier ddp beat's name)");
    k.other_run = str(c, n["as"]["run"], "run");
    const auto it = runs.find(k.other_run);
    if (it == runs.end()) c.fail(n["as"]["run"], fmt::format("no earlier ddp beat is named '{}'", k.other_run));
    k.other_ddp = it->second;
  } else {
    k.kind = Check::Kind::loss;
    only_keys(c, n, where, {"check", "rel_tol"});
    k.rel_tol = 1e-4;
    if (n["rel_tol"]) k.rel_tol = number(c, n["rel_tol"], "rel_tol");
  }
  return k;
}

Check read_check_hang(const Ctx& c, const YAML::Node& n, const std::string& kind) {
  Check k;
  k.mark = c.mark(n);
  const std::string where = fmt::format("a {} check", kind);
  if (kind == "named_ranks") {
    k.kind = Check::Kind::named_ranks;
    only_keys(c, n, where, {"check", "equals"});
    if (!n["equals"]) c.fail(n, "a 'named_ranks' check needs 'equals: [RANKS]'");
    for (const auto& e : seq(c, n["equals"], "equals"))
      k.values.push_back(static_cast<double>(integer(c, e, "equals", 0, 15)));
  } else if (kind == "failure") {
    k.kind = Check::Kind::failure;
    only_keys(c, n, where, {"check", "equals"});
    if (!n["equals"]) c.fail(n, "a 'failure' check needs 'equals: none | timeout | mismatch'");
    k.expect = one_of(c, n["equals"], "equals", {"none", "timeout", "mismatch"});
  } else if (kind == "all_failed") {
    k.kind = Check::Kind::all_failed;
    only_keys(c, n, where, {"check"});
  } else if (kind == "elapsed") {
    k.kind = Check::Kind::elapsed;
    only_keys(c, n, where, {"check", "within_timeout_plus_s"});
    if (!n["within_timeout_plus_s"]) c.fail(n, "an 'elapsed' check needs 'within_timeout_plus_s: SECONDS'");
    k.value = number(c, n["within_timeout_plus_s"], "within_timeout_plus_s");
    if (k.value < 0) c.fail(n["within_timeout_plus_s"], "'within_timeout_plus_s' must be >= 0");
  } else if (kind == "sequence") {
    k.kind = Check::Kind::sequence;
    only_keys(c, n, where, {"check", "rank", "started", "completed"});
    if (!n["rank"]) c.fail(n, "a 'sequence' check needs 'rank'");
    if (!n["started"] && !n["completed"]) c.fail(n, "a 'sequence' check needs 'started' and/or 'completed'");
    k.rank = static_cast<int>(integer(c, n["rank"], "rank", 0, 15));
    k.started = k.completed = -2;  // -2: not checked
    if (n["started"]) k.started = integer(c, n["started"], "started", -1, 1 << 20);
    if (n["completed"]) k.completed = integer(c, n["completed"], "completed", -1, 1 << 20);
  } else {
    k.kind = Check::Kind::report;
    only_keys(c, n, where, {"check", "contains"});
    if (!n["contains"]) c.fail(n, "a 'report' check needs 'contains: TEXT'");
    k.expect = str(c, n["contains"], "contains");
  }
  return k;
}

}  // namespace

Prepared prepare(const Setup& a) {
  Prepared p;
  CollectiveSpec& s = p.spec;
  s.collective = parse_collective(a.collective);
  s.algorithm = a.algorithm == "single_buffered_ring" ? "ring_unchunked" : a.algorithm;
  s.dtype = parse_dtype(a.dtype);
  s.op = parse_op(a.op);
  s.world_size = a.ranks;
  s.root = a.root;
  s.in_place = a.in_place;
  s.segments = a.segments;
  s.counts = a.counts;
  p.mode = parse_mode(a.mode);
  if (a.count >= 0) s.count = a.count;
  else if (!a.data.empty()) s.count = count_from_rows(s, a.data);
  else s.count = 8;
  if (s.collective == Collective::barrier) s.count = 0;
  s.validate();
  if (a.algorithm == "single_buffered_ring") {
    if (s.collective != Collective::all_reduce)
      throw UsageError(fmt::format("algorithm single_buffered_ring is an all_reduce, not a {}", name(s.collective)));
    p.schedule = make_single_buffered_ring(s);
  } else {
    p.schedule = make_schedule(s);
    check_schedule(p.schedule);
  }
  int64_t total = 0;
  for (int r = 0; r < s.world_size; ++r) total += s.input_count(r) + s.output_count(r);
  p.runnable = total <= kMaxRunElements;
  if (!a.data.empty()) p.inputs = parse_data(s, a.data);
  else if (p.runnable) p.inputs = fill_data(s, a.fill.empty() ? "iota" : a.fill);
  return p;
}

namespace {

// A ddp or hang beat (issue 8): options merged into the current ones and
// validated now, so a bad one fails at its mark; no `at` and no `setup`.
void parse_other_beat(const Ctx& c, const YAML::Node& bn, Beat& b, const Setup& cur, ddp::Options& cur_ddp,
                      hang::LabOptions& cur_hang, std::map<std::string, ddp::Options>& runs) {
  const bool is_ddp = b.kind == Beat::Kind::ddp;
  const char* opt_key = is_ddp ? "ddp" : "hang";
  if (is_ddp)
    only_keys(c, bn, "a ddp beat", {"kind", "name", "ddp", "text", "highlight", "question", "checks"});
  else
    only_keys(c, bn, "a hang beat", {"kind", "hang", "text", "highlight", "question", "checks"});
  b.setup = cur;
  b.at.kind = Target::Kind::end;
  try {
    if (is_ddp) {
      if (bn["ddp"]) read_ddp(c, bn["ddp"], cur_ddp);
      cur_ddp.validate();
    } else {
      if (bn["hang"]) read_hang(c, bn["hang"], cur_hang);
      cur_hang.validate();
    }
  } catch (const LessonError&) {
    throw;
  } catch (const std::exception& e) {
    c.fail(bn[opt_key] ? bn[opt_key] : bn, fmt::format("this {} run cannot run: {}", opt_key, e.what()));
  }
  b.ddp = cur_ddp;
  b.hang = cur_hang;
  if (!bn["text"]) c.fail(bn, "a beat needs 'text'");
  b.text = str(c, bn["text"], "text");
  const int world = is_ddp ? cur_ddp.ranks : cur_hang.ranks;
  if (bn["highlight"]) b.highlight = read_highlights(c, bn["highlight"]);
  for (int r : b.highlight.ranks)
    if (r >= world) c.fail(bn["highlight"], fmt::format("highlighted rank {} is not below the world size {}", r, world));
  if (bn["question"]) b.question = read_question(c, bn["question"]);
  if (bn["checks"])
    for (const auto& cn : seq(c, bn["checks"], "checks")) {
      Check k = read_check(c, cn, b.kind, runs);
      if (k.kind == Check::Kind::sequence && k.rank >= world)
        c.fail(cn, fmt::format("rank {} is not below the world size {}", k.rank, world));
      b.checks.push_back(std::move(k));
    }
  if (bn["name"]) {
    b.name = str(c, bn["name"], "name");
    if (b.name.empty() || runs.count(b.name))
      c.fail(bn["name"], fmt::format("the run name '{}' is empty or already used by an earlier beat", b.name));
    runs[b.name] = b.ddp;
  }
}

}  // namespace

Lesson parse_lesson(const std::string& text, const std::string& file) {
  Ctx c{file};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw LessonError(fmt::format("{}:{}:{}: not valid YAML: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) {
    if (root.IsNull()) throw LessonError(fmt::format("{}:1:1: empty lesson (expected title, setup and beats)", file));
    c.fail(root, "a lesson must be a mapping with title, summary, setup and beats");
  }
  only_keys(c, root, "the lesson", {"title", "summary", "setup", "beats"}, {"ddp", "hang"});
  Lesson l;
  l.file = file;
  // `setup` may be left out when every beat is a ddp or hang beat.
  bool needs_setup = true;
  if (root["beats"] && root["beats"].IsSequence() && root["beats"].size() > 0) {
    needs_setup = false;
    for (const auto& bn : root["beats"]) {
      const bool other = bn.IsMap() && bn["kind"] && bn["kind"].IsScalar() &&
                         (bn["kind"].Scalar() == "ddp" || bn["kind"].Scalar() == "hang");
      needs_setup |= !other;
    }
  }
  for (const char* k : {"title", "setup", "beats"})
    if (!root[k] && (needs_setup || std::string(k) != "setup"))
      throw LessonError(fmt::format("{}: the lesson needs '{}'", c.mark(root).str(), k));
  l.title = str(c, root["title"], "title");
  if (root["summary"]) l.summary = str(c, root["summary"], "summary");
  if (root["setup"]) read_setup(c, root["setup"], l.setup);
  try {
    (void)prepare(l.setup);
  } catch (const std::exception& e) {
    c.fail(root["setup"], fmt::format("this setup cannot run: {}", e.what()));
  }
  if (root["ddp"]) read_ddp(c, root["ddp"], l.ddp);
  if (root["hang"]) read_hang(c, root["hang"], l.hang);
  const YAML::Node beats = seq(c, root["beats"], "beats");
  if (beats.size() == 0) c.fail(beats, "'beats' is empty (a lesson needs at least one beat)");
  Setup cur = l.setup;
  ddp::Options cur_ddp = l.ddp;
  hang::LabOptions cur_hang = l.hang;
  std::map<std::string, ddp::Options> runs;  // named ddp beats so far
  for (const auto& bn : beats) {
    Beat b;
    b.mark = c.mark(bn);
    if (bn.IsMap() && bn["kind"]) {
      const std::string k = one_of(c, bn["kind"], "kind", {"collective", "ddp", "hang"});
      b.kind = k == "ddp" ? Beat::Kind::ddp : k == "hang" ? Beat::Kind::hang : Beat::Kind::collective;
    }
    if (b.kind != Beat::Kind::collective) {
      parse_other_beat(c, bn, b, cur, cur_ddp, cur_hang, runs);
      l.beats.push_back(std::move(b));
      continue;
    }
    only_keys(c, bn, "a beat", {"at", "text", "highlight", "question", "checks", "setup"}, {"kind"});
    if (bn["setup"]) {
      read_setup(c, bn["setup"], cur);
      b.setup_changed = true;
    }
    b.setup = cur;
    Prepared p;
    try {
      p = prepare(cur);
    } catch (const std::exception& e) {
      c.fail(bn["setup"] ? bn["setup"] : bn, fmt::format("this setup cannot run: {}", e.what()));
    }
    if (!bn["text"]) c.fail(bn, "a beat needs 'text'");
    b.text = str(c, bn["text"], "text");
    if (bn["at"]) b.at = read_target(c, bn["at"]);
    if (b.at.kind == Target::Kind::step && b.at.step >= p.schedule.num_steps())
      c.fail(bn["at"], fmt::format("step {} does not exist: this run has {} steps (0..{})", b.at.step,
                                   p.schedule.num_steps(), p.schedule.num_steps() - 1));
    if (b.at.kind == Target::Kind::phase) {
      bool found = false;
      for (const auto& ph : p.schedule.phases) found |= ph.name == b.at.phase;
      if (!found) {
        std::vector<std::string> names;
        for (const auto& ph : p.schedule.phases) names.push_back(ph.name);
        c.fail(bn["at"], fmt::format("phase '{}' is not in this run (its phases: {})", b.at.phase, join(names)));
      }
    }
    if (bn["highlight"]) b.highlight = read_highlights(c, bn["highlight"]);
    for (int r : b.highlight.ranks)
      if (r >= cur.ranks) c.fail(bn["highlight"], fmt::format("highlighted rank {} is not below the world size {}", r, cur.ranks));
    if (bn["question"]) b.question = read_question(c, bn["question"]);
    if (bn["checks"])
      for (const auto& cn : seq(c, bn["checks"], "checks")) {
        Check k = read_check(c, cn);
        if ((k.kind == Check::Kind::buffer || k.kind == Check::Kind::bytes) && k.rank >= cur.ranks)
          c.fail(cn, fmt::format("rank {} is not below the world size {}", k.rank, cur.ranks));
        if (k.kind == Check::Kind::buffer && !k.step_is_end && k.step >= p.schedule.num_steps())
          c.fail(cn, fmt::format("step {} does not exist: this run has {} steps", k.step, p.schedule.num_steps()));
        if ((k.kind == Check::Kind::buffer || k.kind == Check::Kind::bytes || k.kind == Check::Kind::result) &&
            !p.runnable)
          c.fail(cn, fmt::format("this setup is too large to run here (over {} elements): only predicted, ratio, "
                                 "faster and steps checks apply",
                                 kMaxRunElements));
        if (k.kind == Check::Kind::result && k.expect == "corrupts" && !cur.delay)
          c.fail(cn, "'expect: corrupts' needs a 'delay' in the setup (without one, nothing provokes the race)");
        b.checks.push_back(std::move(k));
      }
    l.beats.push_back(std::move(b));
  }
  return l;
}

Lesson load_lesson(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw LessonError(fmt::format("{}:0:0: cannot read the lesson file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_lesson(ss.str(), path);
}

std::vector<LessonInfo> list_lessons(const std::string& dir) {
  std::vector<LessonInfo> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".yaml") continue;
    LessonInfo info{e.path().string(), ""};
    try {
      info.title = load_lesson(info.file).title;
    } catch (const std::exception& x) {
      info.title = fmt::format("(error: {})", x.what());
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const LessonInfo& a, const LessonInfo& b) { return a.file < b.file; });
  return out;
}

bool Question::is_right(const std::string& typed) const {
  std::string t = typed;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(t.begin());
  if (!choices.empty()) {
    if (t == std::to_string(answer)) return true;
    return t == choices[static_cast<size_t>(answer - 1)];
  }
  try {
    size_t used = 0;
    const double v = std::stod(t, &used);
    return used == t.size() && std::fabs(v - value) <= tolerance + 1e-12 * std::fabs(value);
  } catch (const std::exception&) {
    return false;
  }
}

int target_step(const Target& t, const Schedule& s) {
  switch (t.kind) {
    case Target::Kind::start: return -1;
    case Target::Kind::step: return std::min(t.step, s.num_steps() - 1);
    case Target::Kind::phase: {
      int last = -1;
      for (int i = 0; i < s.num_steps(); ++i)
        if (s.phases[static_cast<size_t>(s.steps[static_cast<size_t>(i)].phase)].name == t.phase) last = i;
      return last;
    }
    case Target::Kind::end: break;
  }
  return s.num_steps() - 1;
}

// ---- evaluating --------------------------------------------------------------

namespace {

std::string fmt_num(double v) { return fmt::format("{:.6g}", v); }

double predicted_s(const Setup& base, const std::string& algorithm, const std::string& preset_name) {
  Setup s = base;
  if (!algorithm.empty()) s.algorithm = algorithm;
  return predict(prepare(s).schedule, preset(preset_name)).lockstep_s;
}

bool rel_close(double got, double want, double tol) {
  return std::fabs(got - want) <= tol * std::max(std::fabs(want), 1e-300);
}

}  // namespace

std::vector<CheckResult> evaluate(const Beat& b) {
  std::vector<CheckResult> out;
  if (b.checks.empty()) return out;
  if (b.kind == Beat::Kind::ddp) return evaluate(b, ddp::run_ddp(b.ddp));
  if (b.kind == Beat::Kind::hang) return evaluate(b, hang::run_hang_lab(b.hang));
  Prepared p = prepare(b.setup);
  std::optional<RunResult> run;
  auto get_run = [&]() -> const RunResult& {
    if (!run) {
      RunOptions opt;
      opt.mode = Mode::lockstep;  // buffer snapshots per step
      opt.snapshot_limit = 1 << 12;
      run = run_threads(p.schedule, p.inputs, opt);
    }
    return *run;
  };
  for (const Check& k : b.checks) {
    CheckResult r;
    r.mark = k.mark;
    switch (k.kind) {
      case Check::Kind::buffer: {
        const RunResult& rr = get_run();
        const int step = k.step_is_end ? p.schedule.num_steps() - 1 : k.step;
        r.what = fmt::format("R{} {} {}", k.rank, k.buffer,
                             step < 0 ? std::string("before step 0") : fmt::format("after step {}", step));
        r.expected = format_values(k.values);
        const std::vector<RankStepRecord>& recs =
            step < 0 ? rr.trace.initial : rr.trace.steps[static_cast<size_t>(step)];
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
        break;
      }
      case Check::Kind::bytes: {
        const RunResult& rr = get_run();
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
        r.expected = fmt::format("{}", static_cast<int64_t>(k.value));
        r.actual = fmt::format("{}", got);
        r.pass = got == static_cast<int64_t>(k.value);
        break;
      }
      case Check::Kind::steps: {
        int n = 0;
        for (const Step& s : p.schedule.steps)
          if (k.phase.empty() || p.schedule.phases[static_cast<size_t>(s.phase)].name == k.phase) ++n;
        r.what = k.phase.empty() ? std::string("number of steps") : fmt::format("steps in phase '{}'", k.phase);
        r.expected = fmt::format("{}", static_cast<int>(k.value));
        r.actual = fmt::format("{}", n);
        r.pass = n == static_cast<int>(k.value);
        break;
      }
      case Check::Kind::result: {
        const RankData want = reference_outputs(p.spec, p.inputs);
        if (k.expect == "correct") {
          std::string why;
          r.what = "outputs equal the reference";
          r.expected = "match";
          r.pass = outputs_match(p.spec, p.inputs, get_run().outputs, want, &why);
          r.actual = r.pass ? "match" : "mismatch: " + why;
        } else {
          r.what = fmt::format("some of {} runs with delayed sends corrupt the result", k.seeds);
          r.expected = "at least one mismatch";
          int bad = 0, first_bad = -1;
          std::string first_why;
          for (int seed = 1; seed <= k.seeds; ++seed) {
            DelayHook d = *b.setup.delay;
            d.seed = static_cast<uint64_t>(seed);
            RunOptions opt;
            opt.delay = &d;
            opt.record = false;
            const RunResult rr = run_threads(p.schedule, p.inputs, opt);
            std::string why;
            if (!outputs_match(p.spec, p.inputs, rr.outputs, want, &why)) {
              if (bad++ == 0) {
                first_bad = seed;
                first_why = why;
              }
            }
          }
          r.pass = bad > 0;
          r.actual = bad ? fmt::format("{} of {} corrupted (first: seed {}, {})", bad, k.seeds, first_bad, first_why)
                         : fmt::format("all {} runs correct", k.seeds);
        }
        break;
      }
      case Check::Kind::predicted: {
        const double t = predicted_s(b.setup, "", k.preset);
        r.what = fmt::format("predicted time ({}, {}, {} ranks)", k.preset, p.spec.algorithm, p.spec.world_size);
        r.expected = fmt::format("{} s (±{:g}%)", fmt_num(k.value), k.rel_tol * 100);
        r.actual = fmt::format("{} s", fmt_num(t));
        r.pass = rel_close(t, k.value, k.rel_tol);
        break;
      }
      case Check::Kind::ratio: {
        const double num = predicted_s(b.setup, k.algorithm, k.preset);
        const double den = predicted_s(b.setup, k.other_algorithm.empty() ? k.algorithm : k.other_algorithm,
                                       k.other_preset.empty() ? k.preset : k.other_preset);
        r.what = fmt::format("predicted time {} / {}",
                             k.algorithm.empty() ? k.preset : k.algorithm + " on " + k.preset,
                             k.other_algorithm.empty() ? k.other_preset
                                                       : k.other_algorithm + " on " +
                                                             (k.other_preset.empty() ? k.preset : k.other_preset));
        r.expected = fmt::format("{} (±{:g}%)", fmt_num(k.value), k.rel_tol * 100);
        r.actual = fmt_num(num / den);
        r.pass = rel_close(num / den, k.value, k.rel_tol);
        break;
      }
      case Check::Kind::faster: {
        const double a = predicted_s(b.setup, k.algorithm, k.preset);
        const double o = predicted_s(b.setup, k.other_algorithm, k.preset);
        r.what = fmt::format("{} predicted faster than {} on {} (count {})", k.algorithm, k.other_algorithm, k.preset,
                             p.spec.count);
        r.expected = fmt::format("{} < {}", k.algorithm, k.other_algorithm);
        r.actual = fmt::format("{} s vs {} s", fmt_num(a), fmt_num(o));
        r.pass = a < o;
        break;
      }
      default:  // an issue 8 check built by hand into a collective beat
        r.what = "a check that does not belong in a collective beat";
        r.expected = "a check of this beat's kind";
        r.actual = "another kind";
        break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// ---- issue 8: ddp and hang beats ----------------------------------------------

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The figure a comparable ddp check reads from a run.
double ddp_figure(Check::Kind k, const ddp::Result& r) {
  std::vector<double> v;
  switch (k) {
    case Check::Kind::allreduce_calls: return r.iterations.empty() ? 0 : r.iterations[0].calls;
    case Check::Kind::buckets: return static_cast<double>(r.buckets.size());
    case Check::Kind::overlap_fraction:
      for (const auto& it : r.iterations) v.push_back(it.overlap_fraction);
      return median(v);
    case Check::Kind::exposed_comm_ms:
      for (const auto& it : r.iterations) v.push_back(it.exposed_comm_ms);
      return median(v);
    default: return 0;
  }
}

const char* ddp_figure_name(Check::Kind k) {
  switch (k) {
    case Check::Kind::allreduce_calls: return "all-reduce calls per iteration";
    case Check::Kind::buckets: return "buckets";
    case Check::Kind::overlap_fraction: return "overlap fraction (median over iterations)";
    case Check::Kind::exposed_comm_ms: return "exposed communication ms (median over iterations)";
    default: return "?";
  }
}

std::string ddp_run_label(const ddp::Options& o) {
  return fmt::format("overlap {}, cap {:g} MB, {}", ddp::name(o.overlap), o.bucket_cap_mb, o.algorithm);
}

std::string int_list(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::vector<int> to_ints(const std::vector<double>& v) {
  std::vector<int> out;
  for (double d : v) out.push_back(static_cast<int>(d));
  return out;
}

// Median absolute deviation: the typical distance of a sample from the
// median, unmoved by one outlier (one run slowed down by another process).
double mad(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> d;
  for (double x : v) d.push_back(std::fabs(x - m));
  return median(d);
}

std::string num_list(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt_num(v[i]);
  return s;
}

// Runs per round, and the most rounds, of a timing claim.
constexpr size_t kTimingRound = 3, kTimingRounds = 3;

// A timing figure (overlap fraction, exposed ms) compared with less_than /
// greater_than. One run's figure moves with whatever else the machine runs,
// so the claim is decided on repeated runs, never on one: this beat's runs
// (the given run first) and, for {run: NAME}, that run's, made alternately
// (other, this, other, this, ...) so that a change in the machine's load
// hits both sides alike. Each run gives its median over iterations; the
// claim holds when the median of this beat's runs beats the median of the
// other side (or the number) by more than the runs' own spread (the larger
// median absolute deviation of the two sides). If it does not, another
// round of runs is made, up to kTimingRounds rounds; then it fails.
CheckResult timing_claim(const Check& k, const ddp::Result& run, const ddp::Options& mine_opts) {
  auto rerun = [&](const ddp::Options& o) {
    ddp::Options q = o;
    q.check_reference = false;  // the reference has no timing; skipping it saves a run
    return ddp_figure(k.kind, ddp::run_ddp(q));
  };
  std::vector<double> mine{ddp_figure(k.kind, run)}, theirs;
  const bool less = k.compare == "less_than";
  double got = 0, want = k.value, spread = 0;
  bool pass = false;
  for (size_t round = 1; round <= kTimingRounds && !pass; ++round) {
    while (mine.size() < round * kTimingRound) {
      if (k.other_ddp) theirs.push_back(k.times * rerun(*k.other_ddp));
      mine.push_back(rerun(mine_opts));
    }
    if (k.other_ddp && theirs.size() < mine.size()) theirs.push_back(k.times * rerun(*k.other_ddp));
    got = median(mine);
    spread = mad(mine);
    if (k.other_ddp) {
      want = median(theirs);
      spread = std::max(spread, mad(theirs));
    }
    pass = less ? got + spread < want : got - spread > want;
  }
  CheckResult r;
  r.mark = k.mark;
  const char* op = less ? "<" : ">";
  const std::string runs = fmt::format("median of {} runs", mine.size());
  if (k.other_ddp) {
    r.what = fmt::format("{} vs run '{}', {} each, interleaved", ddp_figure_name(k.kind), k.other_run, runs);
    r.expected = fmt::format("{} {}{} of run '{}' ({}) by more than the spread {}", op,
                             k.times == 1 ? "" : fmt::format("{:g} × ", k.times), fmt_num(want / k.times),
                             k.other_run, ddp_run_label(*k.other_ddp), fmt_num(spread));
    if (k.times != 1) {
      std::vector<double> raw;
      for (double t : theirs) raw.push_back(t / k.times);
      r.actual = fmt::format("{} (runs: {}; run '{}': {})", fmt_num(got), num_list(mine), k.other_run, num_list(raw));
    } else {
      r.actual = fmt::format("{} (runs: {}; run '{}': {})", fmt_num(got), num_list(mine), k.other_run, num_list(theirs));
    }
  } else {
    r.what = fmt::format("{}, {}", ddp_figure_name(k.kind), runs);
    r.expected = fmt::format("{} {} by more than the spread {}", op, fmt_num(want), fmt_num(spread));
    r.actual = fmt::format("{} (runs: {})", fmt_num(got), num_list(mine));
  }
  r.pass = pass;
  return r;
}

CheckResult wrong_kind(const Check& k, const char* beat) {
  CheckResult r;
  r.mark = k.mark;
  r.what = fmt::format("a check that does not belong in a {} beat", beat);
  r.expected = "a check of this beat's kind";
  r.actual = "another kind";
  return r;
}

}  // namespace

std::vector<CheckResult> evaluate(const Beat& b, const ddp::Result& run) {
  std::vector<CheckResult> out;
  std::map<std::string, ddp::Result> others;  // named runs, run once each
  auto other = [&](const Check& k) -> const ddp::Result& {
    auto it = others.find(k.other_run);
    if (it == others.end()) it = others.emplace(k.other_run, ddp::run_ddp(*k.other_ddp)).first;
    return it->second;
  };
  for (const Check& k : b.checks) {
    CheckResult r;
    r.mark = k.mark;
    switch (k.kind) {
      case Check::Kind::overlap_fraction:
      case Check::Kind::exposed_comm_ms:
        if (k.compare != "equals") {
          r = timing_claim(k, run, b.ddp);
          break;
        }
        [[fallthrough]];
      case Check::Kind::allreduce_calls:
      case Check::Kind::buckets: {
        const double got = ddp_figure(k.kind, run);
        double want = k.value;
        std::string against = fmt_num(k.value);
        if (k.other_ddp) {
          want = k.times * ddp_figure(k.kind, other(k));
          against = fmt::format("{}{} of run '{}' ({})", k.times == 1 ? "" : fmt::format("{:g} × ", k.times),
                                fmt_num(want / k.times), k.other_run, ddp_run_label(*k.other_ddp));
        }
        const char* op = k.compare == "less_than" ? "<" : k.compare == "greater_than" ? ">" : "=";
        r.what = k.other_ddp ? fmt::format("{} vs run '{}'", ddp_figure_name(k.kind), k.other_run)
                             : std::string(ddp_figure_name(k.kind));
        r.expected = fmt::format("{} {}", op, against);
        r.actual = fmt_num(got);
        r.pass = k.compare == "less_than" ? got < want : k.compare == "greater_than" ? got > want : got == want;
        break;
      }
      case Check::Kind::bucket_params: {
        r.what = fmt::format("parameters in bucket {}", k.bucket);
        r.expected = int_list(to_ints(k.values));
        if (static_cast<size_t>(k.bucket) >= run.buckets.size()) {
          r.actual = fmt::format("(only {} buckets)", run.buckets.size());
        } else {
          const auto& ps = run.buckets[static_cast<size_t>(k.bucket)].params;
          r.actual = int_list(ps);
          r.pass = ps == to_ints(k.values);
        }
        break;
      }
      case Check::Kind::replicas_identical:
        r.what = "every rank's parameters are the same bytes";
        r.expected = "identical";
        r.actual = run.replicas_identical ? "identical" : "replicas differ";
        r.pass = run.replicas_identical;
        break;
      case Check::Kind::same_params: {
        const ddp::Result& o = other(k);
        r.what = fmt::format("final parameters bit-equal to run '{}' ({})", k.other_run, ddp_run_label(*k.other_ddp));
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
        break;
      }
      case Check::Kind::loss: {
        r.what = "loss vs the single-process reference (max relative error)";
        r.expected = fmt::format("<= {:g}", k.rel_tol);
        r.actual = fmt_num(run.max_reference_rel_error);
        r.pass = run.max_reference_rel_error <= k.rel_tol;  // NaN (no reference) fails
        break;
      }
      default: r = wrong_kind(k, "ddp"); break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<CheckResult> evaluate(const Beat& b, const hang::LabResult& run) {
  std::vector<CheckResult> out;
  const std::string kind = run.verdict.empty() ? "none" : !run.missing.empty() ? "timeout" : "mismatch";
  for (const Check& k : b.checks) {
    CheckResult r;
    r.mark = k.mark;
    switch (k.kind) {
      case Check::Kind::named_ranks: {
        const std::vector<int>& named = !run.missing.empty() ? run.missing : run.mismatched;
        r.what = fmt::format("ranks the verdict names ({})", !run.missing.empty() ? "missing" : "mismatched");
        r.expected = int_list(to_ints(k.values));
        r.actual = int_list(named);
        r.pass = named == to_ints(k.values);
        break;
      }
      case Check::Kind::failure:
        r.what = "the failure";
        r.expected = k.expect;
        r.actual = run.verdict.empty() ? "none (every rank passed)" : kind + ": " + run.verdict;
        r.pass = kind == k.expect;
        break;
      case Check::Kind::all_failed: {
        int failed = 0;
        for (const auto& o : run.ranks) failed += !o.passed;
        r.what = "every rank failed together";
        r.expected = fmt::format("{} of {} failed", run.ranks.size(), run.ranks.size());
        r.actual = fmt::format("{} of {} failed", failed, run.ranks.size());
        r.pass = run.all_failed;
        break;
      }
      case Check::Kind::elapsed:
        r.what = "the lab ended within the timeout plus a margin";
        r.expected = fmt::format("<= {:g} s + {:g} s", b.hang.timeout_s, k.value);
        r.actual = fmt::format("{:.3f} s", run.seconds);
        r.pass = run.seconds <= b.hang.timeout_s + k.value;
        break;
      case Check::Kind::sequence: {
        r.what = fmt::format("R{} sequence numbers (last started / last completed)", k.rank);
        auto s = [](int64_t v) { return v == -2 ? std::string("any") : v < 0 ? std::string("-") : fmt::format("#{}", v); };
        r.expected = fmt::format("{} / {}", s(k.started), s(k.completed));
        if (static_cast<size_t>(k.rank) >= run.ranks.size()) {
          r.actual = "(no such rank)";
        } else {
          const auto& fr = run.ranks[static_cast<size_t>(k.rank)].recorder;
          r.actual = fmt::format("{} / {}", s(fr.last_started), s(fr.last_completed));
          r.pass = (k.started == -2 || fr.last_started == k.started) &&
                   (k.completed == -2 || fr.last_completed == k.completed);
        }
        break;
      }
      case Check::Kind::report:
        r.what = "the verdict says";
        r.expected = fmt::format("'{}'", k.expect);
        r.actual = run.verdict.empty() ? std::string("(no verdict: every rank passed)") : run.verdict;
        r.pass = run.verdict.find(k.expect) != std::string::npos;
        break;
      default: r = wrong_kind(k, "hang"); break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace microddp::lesson
