// Lesson files (lessons/*.yaml, format in lessons/README.md) into Lesson:
// the top level, run options (setup, ddp, hang), beats with their targets,
// highlights and questions. Each check is read by its family's parser
// (check_kinds.h). Every error is a LessonError at the offending node's
// file:line:column saying what was expected.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/algorithms/registry.h"
#include "core/labs/lesson/check_kinds.h"
#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_options.h"
#include "core/labs/lesson/read_yaml.h"
#include "core/model/lab_record.h"
#include "core/model/nccl_tests.h"
#include "core/model/nccl_tuner.h"

namespace microddp::lesson {

using namespace yaml;

namespace {

// ---- beats -------------------------------------------------------------------

// The beat's `view:` (one of `allowed`) and, with `view: compare`, its
// `compare:` map: algorithms of `collective` and the sweep's sizes. The
// largest size is the window's slider's (256M; a model's 4G); sizes are bytes with K / M / G.
void read_view(const Ctx& c, const YAML::Node& bn, BeatView& v, const std::vector<std::string>& allowed,
               Collective collective) {
  if (bn["view"]) {
    const std::string k = one_of(c, bn["view"], "view", allowed);
    v.kind = k == "compare" ? BeatView::Kind::compare
             : k == "ddp"   ? BeatView::Kind::ddp
             : k == "topology" ? BeatView::Kind::topology
                               : BeatView::Kind::steps;
  }
  if (!bn["compare"]) return;
  const YAML::Node n = bn["compare"];
  if (v.kind != BeatView::Kind::compare) c.fail(n, "'compare' (algorithms, sizes) needs 'view: compare' in the same beat");
  only_keys(c, n, "compare", {"algorithms", "sizes", "source", "file", "system", "ranks", "protocols"});
  if (n["source"]) v.source = one_of(c, n["source"], "source", {"shm", "lab", "recorded", "model", "published"});
  if (n["system"]) {
    if (v.source != "model" && v.source != "published") c.fail(n["system"], "'system' goes with 'source: model' or 'source: published'");
    v.system = str(c, n["system"], "system");
    try {
      nccl::system_preset(v.system);
    } catch (const UsageError& e) {
      c.fail(n["system"], e.what());
    }
  }
  if (n["protocols"]) {
    if (v.source != "model") c.fail(n["protocols"], "'protocols' goes with 'source: model'");
    v.protocols = boolean(c, n["protocols"], "protocols");
  }
  if (n["ranks"]) {
    if (v.source != "model") c.fail(n["ranks"], "'ranks' goes with 'source: model' (the ranks the model prices)");
    v.ranks = static_cast<int>(integer(c, n["ranks"], "ranks", 2, nccl::kMaxTunerRanks));
  }
  if (n["file"]) {
    if (v.source != "recorded" && v.source != "published") c.fail(n["file"], "'file' goes with 'source: recorded' or 'source: published'");
    v.file = data_file(c, n["file"], str(c, n["file"], "file"));
    try {  // read now, so that a bad file fails at its line when the lesson loads
      if (v.source == "recorded") load_lab_record(v.file);
      else load_nccl_tests(v.file);
    } catch (const UsageError& e) {
      c.fail(n["file"], e.what());
    }
  }
  if (n["algorithms"]) {
    const auto& known = algorithms_for(collective);
    for (const auto& e : seq(c, n["algorithms"], "algorithms")) {
      const std::string a = str(c, e, "algorithms");
      if (std::find(known.begin(), known.end(), a) == known.end())
        c.fail(e, fmt::format("'{}' is not an algorithm of {} (expected one of: {})", a, name(collective), join(known)));
      if (std::find(v.algorithms.begin(), v.algorithms.end(), a) != v.algorithms.end())
        c.fail(e, fmt::format("'{}' is listed twice in 'algorithms' (each algorithm once)", a));
      v.algorithms.push_back(a);
    }
    if (v.algorithms.empty()) c.fail(n["algorithms"], "'algorithms' needs at least one algorithm");
  }
  if (n["sizes"]) {
    const YAML::Node z = n["sizes"];
    only_keys(c, z, "sizes", {"min", "max"});
    // (A model runs nothing: its sizes go up to 4G, lesson 12 beat 3's 1 GiB.)
    const bool model = v.source == "model";
    const int64_t kMax = model ? int64_t{4} << 30 : int64_t{256} << 20;
    for (const char* key : {"min", "max"}) {
      if (!z[key]) continue;
      const int64_t b = bytes_with_unit(str(c, z[key], key));
      if (b < 1 || b > kMax)
        c.fail(z[key], fmt::format("'{}' must be a size from 1 to {} bytes ({} = powers of 1024); got '{}'", key,
                                   model ? "4G" : "256M", model ? "K, M, G" : "K, M", z[key].Scalar()));
      (std::string(key) == "min" ? v.min_bytes : v.max_bytes) = b;
    }
    if (v.min_bytes > v.max_bytes)
      c.fail(z, fmt::format("'min' ({} bytes) is above 'max' ({} bytes)", v.min_bytes, v.max_bytes));
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

// The chunks a schedule's ops name (Op::chunk) or its boundaries give.
int chunk_count(const Schedule& s) {
  int n = s.chunk_offsets.empty() ? 0 : static_cast<int>(s.chunk_offsets.size()) - 1;
  for (const Step& st : s.steps)
    for (const auto& ops : st.ranks)
      for (const Op& o : ops) n = std::max(n, o.chunk + 1);
  return n;
}

// A beat's `minutes:` (the lecture plan): a number of minutes in
// kMinBeatMinutes..kMaxBeatMinutes, or the default when absent; and its
// `optional:` (true or false: a short lecture may skip it).
void read_minutes(const Ctx& c, const YAML::Node& bn, Beat& b) {
  if (!bn.IsMap()) return;
  if (bn["optional"]) b.optional = boolean(c, bn["optional"], "optional");
  if (!bn["minutes"]) return;
  if (bn["minutes"].IsNull())  // "minutes:" alone: at its own line, not the next one
    c.fail(key_node(bn, "minutes"), "'minutes' must be a number (the minutes planned for this beat), got nothing");
  const double m = number(c, bn["minutes"], "minutes");
  if (!(m >= kMinBeatMinutes && m <= kMaxBeatMinutes))
    c.fail(bn["minutes"], fmt::format("'minutes' is the time planned for this beat, {:g}..{:g} minutes; got '{}'",
                                      kMinBeatMinutes, kMaxBeatMinutes, bn["minutes"].Scalar()));
  b.minutes = m;
  b.minutes_given = true;
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
    if (n["tolerance"]) {
      q.tolerance = number(c, n["tolerance"], "tolerance");
      if (q.tolerance < 0)  // a negative tolerance would make every answer wrong
        c.fail(n["tolerance"], fmt::format("'tolerance' must be 0 or more, got '{}'", n["tolerance"].Scalar()));
    }
  }
  return q;
}

// A lab beat's `view: compare`: source recorded (a file of this beat's own
// request: nodes, ranks per node, NIC, and a row of each algorithm at its
// size) or lab (the live lab, which the window runs with one rank a node).
void check_lab_view(const Ctx& c, const YAML::Node& at, const Beat& b) {
  const BeatView& v = b.view;
  const LabRequest& q = b.lab;
  if (v.source == "lab") {
    if (q.ranks_per_node != 1)
      c.fail(at, fmt::format("the window's live lab runs one rank a node; this lab beat has {} ranks a node "
                             "(use 'source: recorded')",
                             q.ranks_per_node));
    // The window's live lab sweeps max(min, 4 KiB), 4x, ... up to min(max,
    // 16 MiB) (app/viz/compare.h kLabMinBytes, kLabMaxBytes): the beat's
    // own size must be one of those points, or its checks never run.
    constexpr int64_t kMin = 4096, kMax = int64_t{16} << 20;
    if (q.bytes < kMin || q.bytes > kMax)
      c.fail(at, fmt::format("the window's live lab runs 4096 to 16777216 bytes (4 KiB to 16 MiB); this lab beat's "
                             "bytes are {} (use 'source: recorded' with a recorded run)",
                             q.bytes));
    const int64_t lo = std::max(v.min_bytes, kMin), hi = std::min(v.max_bytes, kMax);
    int64_t p = lo;
    while (p < q.bytes && p <= hi / 4) p *= 4;
    if (p != q.bytes || q.bytes > hi)
      c.fail(at, fmt::format("the window's live lab measures sizes {}, 4x, ... up to {} bytes; this lab beat's "
                             "bytes {} are not one of them (set compare's sizes so that min x 4^k = {})",
                             lo, hi, q.bytes, q.bytes));
    return;
  }
  if (v.source != "recorded" || v.file.empty())
    c.fail(at, "a lab beat's compare view needs 'source: recorded' with its 'file', or 'source: lab'");
  const LabRecord r = load_lab_record(v.file);
  const auto differs = [&](const std::string& what, const std::string& rec, const std::string& beat) {
    if (rec != beat)
      c.fail(at, fmt::format("recorded run {} has {} {}, this lab beat {}", v.file, what, rec, beat));
  };
  differs("nodes", std::to_string(r.nodes), std::to_string(q.nodes));
  differs("ranks per node", std::to_string(r.ranks_per_node), std::to_string(q.ranks_per_node));
  differs("NIC", r.nic, q.nic);
  differs("collective", r.collective, q.collective);
  // The note says "median of <iters>": a file timed another count of
  // iterations would be shown under the beat's count.
  for (size_t i = 0; i < r.rows.size(); ++i)
    if (r.rows[i].samples > 0 && r.rows[i].samples != q.iters)
      c.fail(at, fmt::format("recorded run {} is the median of {} timed iterations (rows[{}].samples), this lab "
                             "beat's iters {}: give iters: {} or record the run again with -n {}",
                             v.file, r.rows[i].samples, i, q.iters, r.rows[i].samples, q.iters));
  // The window draws compare's algorithms from the file: each must be in it.
  const std::vector<std::string> rec_algs = r.algorithms();
  for (const std::string& a : v.algorithms)
    if (std::find(rec_algs.begin(), rec_algs.end(), a) == rec_algs.end())
      c.fail(at, fmt::format("recorded run {} has no rows of {} (compare's algorithms); it holds {}", v.file, a,
                             fmt::join(rec_algs, ", ")));
  for (const std::string& a : q.algorithms)
    if (!r.row(a, q.bytes))
      c.fail(at, fmt::format("recorded run {} has no row of {} at {} bytes (this lab beat's size)", v.file, a, q.bytes));
}

// A lab beat: its request merged into the current one and priced by the
// model now (an algorithm that does not exist, or a placement that cannot
// run, fails at its mark); no `at` and no `setup`.
void parse_lab_beat(const Ctx& c, const YAML::Node& bn, Beat& b, const Setup& cur, LabRequest& cur_lab,
                    std::map<std::string, LabRequest>& runs) {
  only_keys(c, bn, "a lab beat", {"kind", "name", "lab", "text", "question", "checks", "minutes", "optional", "view", "compare"});
  b.setup = cur;
  b.at.kind = Target::Kind::end;
  if (bn["lab"]) read_lab(c, bn["lab"], cur_lab);
  for (const std::string& a : cur_lab.algorithms) {
    try {
      (void)predict_lab(cur_lab, a);
    } catch (const std::exception& e) {
      c.fail(bn["lab"] ? bn["lab"] : bn, fmt::format("this lab run cannot run {}: {}", a, e.what()));
    }
  }
  b.lab = cur_lab;
  // The window's picture of the run (the terminal ignores it): Compare with
  // the recorded run of this very request, or the live lab.
  read_view(c, bn, b.view, {"steps", "compare"}, parse_collective(cur_lab.collective));
  if (b.view.kind == BeatView::Kind::compare) check_lab_view(c, bn["compare"] ? bn["compare"] : bn["view"], b);
  if (!bn["text"]) c.fail(bn, "a beat needs 'text'");
  b.text = str(c, bn["text"], "text");
  if (bn["question"]) b.question = read_question(c, bn["question"]);
  if (bn["checks"]) {
    checks::BeatContext ctx;
    ctx.kind = b.kind;
    ctx.lab = &b.lab;
    ctx.lab_runs = &runs;
    for (const auto& cn : seq(c, bn["checks"], "checks")) b.checks.push_back(checks::read_check(c, cn, ctx));
  }
  if (bn["name"]) {
    b.name = str(c, bn["name"], "name");
    if (b.name.empty() || runs.count(b.name))
      c.fail(bn["name"], fmt::format("the lab run name '{}' is empty or already used by an earlier beat", b.name));
    runs[b.name] = b.lab;
  }
}

// A ddp or hang beat: options merged into the current ones and
// validated now, so a bad one fails at its mark; no `at` and no `setup`.
void parse_other_beat(const Ctx& c, const YAML::Node& bn, Beat& b, const Setup& cur, ddp::Options& cur_ddp,
                      hang::LabOptions& cur_hang, std::map<std::string, ddp::Options>& runs) {
  const bool is_ddp = b.kind == Beat::Kind::ddp;
  const char* opt_key = is_ddp ? "ddp" : "hang";
  if (is_ddp)
    only_keys(c, bn, "a ddp beat", {"kind", "name", "ddp", "text", "highlight", "question", "checks"},
              {"view", "minutes", "optional"});
  else
    only_keys(c, bn, "a hang beat", {"kind", "hang", "text", "highlight", "question", "checks", "minutes", "optional"});
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
  // Each key is bounded on its own, but not their product: a beat the
  // reader would wait minutes for, silently, is refused here with its cost.
  if (is_ddp)
    if (const ddp::SleepEstimate t = ddp::min_sleep_time(cur_ddp); t.seconds() > ddp::kLongRunSeconds)
      c.fail(bn["ddp"] ? bn["ddp"] : bn,
             fmt::format("this ddp run sleeps at least {:.0f} s ({}), more than the {:.0f} s one run of a lesson "
                         "beat may take; lower {}",
                         t.seconds(), t.str(cur_ddp, {}), ddp::kLongRunSeconds,
                         t.compute_s >= t.link_s ? "iterations, depth or layer_delay_us"
                                                 : "iterations, link_us_per_mb or the model (depth, width)"));
  b.ddp = cur_ddp;
  b.hang = cur_hang;
  if (is_ddp) {
    b.view.kind = BeatView::Kind::ddp;
    read_view(c, bn, b.view, {"ddp", "steps"}, Collective::all_reduce);
  }
  if (!bn["text"]) c.fail(bn, "a beat needs 'text'");
  b.text = str(c, bn["text"], "text");
  const int world = is_ddp ? cur_ddp.ranks : cur_hang.ranks;
  if (bn["highlight"]) {
    b.highlight = read_highlights(c, bn["highlight"]);
    check_highlights(c, bn["highlight"], b.highlight, world, world, -1);
  }
  if (bn["question"]) b.question = read_question(c, bn["question"]);
  if (bn["checks"]) {
    checks::BeatContext ctx;
    ctx.kind = b.kind;
    ctx.runs = &runs;
    ctx.world = world;
    ctx.log = b.hang.log;
    for (const auto& cn : seq(c, bn["checks"], "checks")) b.checks.push_back(checks::read_check(c, cn, ctx));
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
    no_open_quote(text, file);  // yaml-cpp 0.7 accepts one left open before a final line break
    no_duplicate_keys(text, file);
  } catch (const YAML::Exception& e) {
    if (e.msg == YAML::ErrorMsg::EOF_IN_SCALAR) open_quote_error(text, file, e);
    throw LessonError(fmt::format("{}:{}:{}: not valid YAML: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) {
    if (root.IsNull()) throw LessonError(fmt::format("{}:1:1: empty lesson (expected title, setup and beats)", file));
    c.fail(root, "a lesson must be a mapping with title, summary, setup and beats");
  }
  only_keys(c, root, "the lesson", {"title", "summary", "setup", "beats"}, {"ddp", "hang", "lab"});
  Lesson l;
  l.file = file;
  // `setup` may be left out when every beat is a ddp or hang beat.
  bool needs_setup = true;
  if (root["beats"] && root["beats"].IsSequence() && root["beats"].size() > 0) {
    needs_setup = false;
    for (const auto& bn : root["beats"]) {
      const bool other = bn.IsMap() && bn["kind"] && bn["kind"].IsScalar() &&
                         (bn["kind"].Scalar() == "ddp" || bn["kind"].Scalar() == "hang" ||
                          bn["kind"].Scalar() == "lab");
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
  if (root["lab"]) read_lab(c, root["lab"], l.lab);
  const YAML::Node beats = seq(c, root["beats"], "beats");
  if (beats.size() == 0) c.fail(beats, "'beats' is empty (a lesson needs at least one beat)");
  Setup cur = l.setup;
  ddp::Options cur_ddp = l.ddp;
  hang::LabOptions cur_hang = l.hang;
  LabRequest cur_lab = l.lab;
  std::map<std::string, ddp::Options> runs;  // named ddp beats so far
  std::map<std::string, LabRequest> lab_runs;  // named lab beats so far
  for (const auto& bn : beats) {
    Beat b;
    b.mark = c.mark(bn);
    read_minutes(c, bn, b);
    if (bn.IsMap() && bn["kind"]) {
      const std::string k = one_of(c, bn["kind"], "kind", {"collective", "ddp", "hang", "lab"});
      b.kind = k == "ddp"    ? Beat::Kind::ddp
               : k == "hang" ? Beat::Kind::hang
               : k == "lab"  ? Beat::Kind::lab
                             : Beat::Kind::collective;
    }
    if (b.kind == Beat::Kind::lab) {
      parse_lab_beat(c, bn, b, cur, cur_lab, lab_runs);
      l.beats.push_back(std::move(b));
      continue;
    }
    if (b.kind != Beat::Kind::collective) {
      parse_other_beat(c, bn, b, cur, cur_ddp, cur_hang, runs);
      l.beats.push_back(std::move(b));
      continue;
    }
    only_keys(c, bn, "a beat", {"at", "text", "highlight", "question", "checks", "setup"},
              {"kind", "view", "compare", "minutes", "recorded", "optional"});
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
    read_view(c, bn, b.view, {"steps", "compare", "topology"}, p.spec.collective);
    if (b.view.kind == BeatView::Kind::compare) {
      // The sweep gives every rank the same size: per-rank counts have no
      // place in it, and a size below one element is no message.
      if (!cur.counts.empty())
        c.fail(bn["view"], "'view: compare' sweeps one size for every rank, but this beat's setup has per-rank 'counts' "
                           "(drop them, or use 'view: steps')");
      const int64_t es = static_cast<int64_t>(dtype_size(p.spec.dtype));
      if (bn["compare"] && bn["compare"]["sizes"])
        for (const char* key : {"min", "max"})
          if (const YAML::Node z = bn["compare"]["sizes"][key]; z && (std::string(key) == "min" ? b.view.min_bytes : b.view.max_bytes) < es)
            c.fail(z, fmt::format("'{}' is below one {} element ({} bytes); got '{}'", key, name(p.spec.dtype), es, z.Scalar()));
    }
    if (bn["highlight"]) {
      b.highlight = read_highlights(c, bn["highlight"]);
      check_highlights(c, bn["highlight"], b.highlight, cur.ranks, cur.ranks + p.schedule.switches, chunk_count(p.schedule));
    }
    if (bn["question"]) b.question = read_question(c, bn["question"]);
    if (bn["checks"]) {
      checks::BeatContext ctx;
      ctx.setup = &cur;
      ctx.prepared = &p;
      for (const auto& cn : seq(c, bn["checks"], "checks")) b.checks.push_back(checks::read_check(c, cn, ctx));
    }
    if (bn["recorded"]) read_recorded(c, bn["recorded"], b, p);
    l.beats.push_back(std::move(b));
  }
  return l;
}

std::string_view name(BeatView::Kind k) {
  switch (k) {
    case BeatView::Kind::steps: return "steps";
    case BeatView::Kind::compare: return "compare";
    case BeatView::Kind::ddp: return "ddp";
    case BeatView::Kind::topology: return "topology";
  }
  return "steps";
}

}  // namespace microddp::lesson
