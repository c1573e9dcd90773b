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
#include "core/labs/lesson/read_beat.h"
#include "core/labs/lesson/read_options.h"
#include "core/labs/lesson/read_yaml.h"
#include "core/model/lab_record.h"
#include "core/model/nccl_tests.h"
#include "core/model/nccl_tuner.h"

namespace microddp::lesson {

using namespace yaml;

namespace {

// The chunks a schedule's ops name (Op::chunk) or its boundaries give.
int chunk_count(const Schedule& s) {
  int n = s.chunk_offsets.empty() ? 0 : static_cast<int>(s.chunk_offsets.size()) - 1;
  for (const Step& st : s.steps)
    for (const auto& ops : st.ranks)
      for (const Op& o : ops) n = std::max(n, o.chunk + 1);
  return n;
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
    // yaml-cpp's message may end on the byte it choked on: a control byte
    // (a binary file given as a lesson) is written \xNN, not printed raw.
    std::string msg;
    for (const unsigned char ch : e.msg)
      msg += ch < 0x20 || ch == 0x7f ? fmt::format("\\x{:02X}", ch) : std::string(1, static_cast<char>(ch));
    throw LessonError(fmt::format("{}:{}:{}: not valid YAML: {}", file, e.mark.line + 1, e.mark.column + 1, msg));
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
