// microddp lesson: the terminal runner for lesson scripts (core/lesson.h).
//   microddp lesson FILE                   beats, step tables, questions on stdin
//   microddp lesson FILE --non-interactive every beat and check; exit 1 if one fails
//   microddp lesson --list                 the shipped lessons with their titles
//   microddp lesson --list --plan          every shipped lesson's plan, then their minutes added up
//   microddp lesson FILE --plan | --speaker the lecture plan / every beat's speaker notes (plan.h)
//   microddp lesson A B ... --plan          each plan, then their minutes added up
// Lab beats run through app/cli/lesson_lab.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/lesson_lab.h"
#include "app/cli/run_options.h"
#include "core/labs/lesson/lesson.h"
#include "core/model/calibrate/calibrate.h"
#include "core/labs/lesson/lessons_dir.h"
#include "core/labs/lesson/plan.h"
#include "core/ir/reference.h"
#include "core/ir/units.h"
#include "core/record/printer.h"

namespace microddp::cli {
namespace {

namespace fs = std::filesystem;
using namespace microddp::lesson;

struct Args {
  std::string file;                // the lesson (the first of `files`)
  std::vector<std::string> files;  // several only with --plan
  bool non_interactive = false, list = false, full = false, plan = false, speaker = false;
};

std::string setup_line(const Prepared& p) {
  const auto& s = p.spec;
  return fmt::format("{} · {} · {} · {} × {} · op {}{}", name(s.collective), s.algorithm,
                     count_noun(s.world_size, "rank"),
                     s.count_text(), name(s.dtype), name(s.op),
                     p.runnable ? "" : " · prediction only (too large to run here)");
}

std::string highlight_line(const Highlights& h) {
  std::string out;
  auto add = [&](const std::string& what, const std::string& list) {
    if (!list.empty()) out += (out.empty() ? "" : " · ") + what + " " + list;
  };
  std::string ranks, chunks, bufs, links;
  for (int r : h.ranks) ranks += (ranks.empty() ? "R" : ", R") + std::to_string(r);
  for (int c : h.chunks) chunks += (chunks.empty() ? "" : ", ") + std::to_string(c);
  for (const auto& b : h.buffers) bufs += (bufs.empty() ? "" : ", ") + b;
  for (const auto& [a, b] : h.links) links += fmt::format("{}R{}->R{}", links.empty() ? "" : ", ", a, b);
  add("ranks", ranks);
  add("chunks", chunks);
  add("buffers", bufs);
  add("links", links);
  return out;
}

// DDP and hang-lab beats: the run is printed, then checked.
std::string ddp_line(const ddp::Options& o) {
  // Sharded runs have no buckets and always use the ring: say only what applies.
  if (o.sharded)
    return fmt::format("ddp · {} ranks · depth {} · width {} · batch {} · {} iterations · sharded (FSDP-style), {} · "
                       "layer delay {}",
                       o.ranks, o.depth, o.width, o.batch, o.iterations, o.prefetch ? "prefetch" : "no prefetch",
                       format_us(o.layer_delay_us));
  return fmt::format("ddp · {} ranks · depth {} · width {} · batch {} · {} iterations · overlap {} · bucket cap {} "
                     "· {} · layer delay {}",
                     o.ranks, o.depth, o.width, o.batch, o.iterations, ddp::name(o.overlap), mib_text(o.bucket_cap_mb),
                     o.algorithm, format_us(o.layer_delay_us));
}

void print_ddp(const ddp::Result& r) {
  fmt::print("{}, {}; {}:\n", count_noun(r.params, "parameter tensor"), count_noun(r.param_elements, "element"),
             count_noun(static_cast<int64_t>(r.buckets.size()), "bucket"));
  for (size_t i = 0; i < r.buckets.size() && i < 12; ++i) {
    std::string ps;
    for (int p : r.buckets[i].params) ps += (ps.empty() ? "" : ", ") + std::to_string(p);
    fmt::print("  bucket {}: params [{}] · {} bytes\n", i, ps, r.buckets[i].bytes);
  }
  if (r.warmup_iterations > 0)
    fmt::print("  (after {} untimed warm-up iteration{}, left out below: the first collectives pay thread start-up and "
               "the first touch of buffers)\n",
               r.warmup_iterations, r.warmup_iterations == 1 ? "" : "s");
  fmt::print("  iter  calls  compute ms  comm ms  exposed ms  overlap  loss (reference)\n");
  for (size_t i = 0; i < r.iterations.size(); ++i) {
    const auto& it = r.iterations[i];
    fmt::print("  {:>4}  {:>5}  {:>10.2f}  {:>7.2f}  {:>10.2f}  {:>6.0f}%  {:.6g} ({:.6g})\n", i, it.calls, it.compute_ms,
               it.comm_ms, it.exposed_comm_ms, 100 * it.overlap_fraction, it.loss, it.reference_loss);
  }
  fmt::print("replicas {}; launch order of the last iteration:", r.replicas_identical ? "bit-identical" : "DIFFER");
  for (int b : r.launch_order) fmt::print(" {}", b);
  fmt::print("\n(times measured on this machine)\n");
}

std::string hang_line(const hang::LabOptions& o) {
  std::string ranks;
  for (int r : o.fault_ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  return fmt::format("hang lab · {} ranks · fault {}{} · call {} · timeout {:g} s · count {} · {}", o.ranks,
                     hang::name(o.fault), o.fault == hang::Fault::none ? "" : " on rank " + ranks, o.fault_call,
                     o.timeout_s, o.count, o.algorithm);
}

// Steps a beat prints in full before it switches to one line per step.
constexpr int kDetailedSteps = 3;

// One line from stdin; std::nullopt at EOF.
std::optional<std::string> read_line() {
  std::string line;
  if (!std::getline(std::cin, line)) return std::nullopt;
  return line;
}

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t\r") == std::string::npos;
}

int run_lesson(const Args& a) {
  hang::check_debug_env();  // hang beats log through it
  const std::string path = resolve_lesson_file(a.file);
  const Lesson l = load_lesson(path);
  const bool ask = !a.non_interactive;
  const PrintOptions po{a.full};
  bool stdin_open = true;
  fmt::print("{}\n{}\n", l.title, std::string(l.title.size() > 70 ? 70 : l.title.size(), '='));
  if (!l.summary.empty()) fmt::print("{}\n", l.summary);

  int failed = 0, passed = 0, skipped = 0, not_shown = 0, right = 0, asked = 0;
  std::map<std::string, LabRun> lab_runs;  // named lab beats run so far
  std::optional<Prepared> prep;
  std::optional<RunResult> run;
  std::vector<double> predicted;  // [step] µs for the current setup; empty: no model
  // Predicted step times come from this machine's profile when there is one
  // (as in `run` and the window); a broken profile costs the predictions, not
  // the lesson.
  std::optional<CostParams> model;
  try {
    model = resolve_params({});
  } catch (const UsageError& e) {
    std::fprintf(stderr, "no predicted step times: %s\n", e.what());
  }
  int shown = -2;  // last step printed for the current setup
  for (size_t bi = 0; bi < l.beats.size(); ++bi) {
    const Beat& b = l.beats[bi];
    fmt::print("\n── beat {}/{} ──────────────────────────────────────────\n", bi + 1, l.beats.size());
    // A question comes before its answer: the beat shows the state before
    // its step(s), its text and the question, reads the answer (or, with
    // --non-interactive or after the end of stdin, prints it), and only then
    // prints the step(s), the run and the checks (which often contain the
    // answer). A beat without a question prints run, text, checks.
    const bool ask_first = b.question.has_value();
    const bool read_answer = ask && stdin_open;
    std::vector<CheckResult> results;
    std::string reveal;  // what the beat's run prints
    if (b.kind == Beat::Kind::ddp) {
      fmt::print("run: {}{}\n", ddp_line(b.ddp), b.name.empty() ? "" : fmt::format("  (run '{}')", b.name));
    } else if (b.kind == Beat::Kind::hang) {
      fmt::print("run: {}\n", hang_line(b.hang));
      fmt::print("every rank: #0 all_reduce count {}, #1 all_reduce count {}, #2 all_gather count {}, then an "
                 "end-of-step barrier; a monitored barrier checks each call's fingerprint first\n",
                 b.hang.count, b.hang.count / 2, b.hang.count / 4);
    } else if (b.kind == Beat::Kind::lab) {
      fmt::print("run: {}{}\n", lab_line(b.lab), b.name.empty() ? "" : fmt::format("  (run '{}')", b.name));
    } else if (!prep || b.setup_changed) {
      prep = prepare(b.setup);
      run.reset();
      shown = -2;
      fmt::print("setup: {}{}\n", setup_line(*prep),
                 b.setup.algorithm == prep->spec.algorithm
                     ? ""
                     : fmt::format(" · run as {} (the checker rejects it; run anyway)", b.setup.algorithm));
      if (prep->runnable) {
        RunOptions opt;
        opt.mode = prep->mode;
        opt.snapshot_limit = 1 << 12;
        // A step's time is the median of warm repetitions (the first, cold
        // run apart), as `run --steps` and the window show it.
        opt.repeat_steps = kRepeatStepsAuto;
        run = run_threads(prep->schedule, prep->inputs, opt);
      }
      predicted = model ? predicted_step_us(prep->schedule, *model) : std::vector<double>{};
    }
    // The run's part of the beat, printed now or after the question.
    auto run_beat = [&] {
      if (b.kind == Beat::Kind::ddp) {
        const ddp::Result r = ddp::run_ddp(b.ddp);
        print_ddp(r);
        results = evaluate(b, r);
      } else if (b.kind == Beat::Kind::hang) {
        const hang::LabResult r = hang::run_hang_lab(b.hang);
        fmt::print("{}", r.report());
        results = evaluate(b, r);
      } else if (b.kind == Beat::Kind::lab) {
        const LabRun r = run_lab(run_cluster_lab, b.lab);
        print_lab(r);
        results = evaluate(b, r, lab_runs);
        if (!b.name.empty()) lab_runs[b.name] = r;
      }
    };
    const int upto = b.kind == Beat::Kind::collective ? target_step(b.at, prep->schedule) : -1;
    // Print the steps reached since the last beat (or the target step again when going back).
    const int from = (shown >= -1 && shown < upto) ? shown + 1 : (shown == -2 ? 0 : upto);
    auto input_rows = [&] {
      std::string rows;
      for (int r = 0; r < prep->spec.world_size; ++r) {
        std::vector<double> v;
        for (int64_t i = 0; i < prep->spec.input_count(r); ++i)
          v.push_back(kernels::load_double(prep->spec.dtype, prep->inputs[static_cast<size_t>(r)].data(), i));
        rows += fmt::format("R{} input {}\n", r, format_values(v, po));
      }
      return rows;
    };
    auto print_collective = [&] {
      if (b.kind != Beat::Kind::collective) return;
      if (run) {
        if (upto < 0) {
          fmt::print("before step 0:\n{}", input_rows());  // the state before step 0: the inputs
        } else {
          // A beat that stays where the last one left off (a step, then the
          // end of the same run) says so in a line instead of printing the
          // step again.
          if (shown == upto)
            fmt::print("(the state {}, as above)\n", position_label(upto + 1, prep->schedule.num_steps()));
          // A beat that jumps over many steps details only the last one (the
          // state it talks about); the others get a line each, unless --full.
          const auto predicted_at = [&](int s) { return s < static_cast<int>(predicted.size()) ? predicted[s] : -1.0; };
          for (int s = from; shown != upto && s <= upto; ++s)
            fmt::print("{}", a.full || s == upto || upto - from < kDetailedSteps
                                 ? format_step(prep->schedule, run->trace, s, predicted_at(s),
                                               PrintOptions{po.full, b.setup.algorithm != prep->spec.algorithm})
                                 : format_step_line(prep->schedule, run->trace, s, predicted_at(s)));
          if (b.at.kind == Target::Kind::end) {
            fmt::print("outputs:\n{}", format_outputs(prep->schedule, run->outputs, po));
            // Say whether this one run came out right: a racy schedule (the
            // single-buffered ring) may or may not, and the table alone
            // does not tell.
            std::string why;
            const bool ok = outputs_match(prep->spec, prep->inputs, run->outputs,
                                          reference_outputs(prep->spec, prep->inputs), &why);
            fmt::print("{}\n", ok ? "these outputs match the reference" : "these outputs are WRONG: " + why);
          }
        }
        shown = upto;
      } else {
        fmt::print("({}; schedule and prediction only)\n", count_noun(prep->schedule.num_steps(), "step"));
      }
    };
    auto print_checks = [&] {
      if (b.kind == Beat::Kind::collective) results = evaluate(b);
      for (const CheckResult& r : results) {
        if (r.skipped) {
          ++(r.not_shown ? not_shown : skipped);
          fmt::print("  – {}: {}\n", r.what, r.actual);
        } else if (r.pass) {
          ++passed;
          fmt::print("  ✓ {}: {}\n", r.what, r.actual);
        } else {
          ++failed;
          fmt::print("  ✗ {}: expected {}, got {}  ({}, beat {})\n", r.what, r.expected, r.actual, r.mark.str(),
                     bi + 1);
        }
      }
    };
    if (ask_first) {
      // The state the question is about: before this beat's first new step.
      // A beat that stays where the last one ended adds nothing: that state
      // is already on screen.
      const bool advances = shown == -2 || from > shown;
      if (b.kind == Beat::Kind::collective && run && upto >= 0 && !advances) {
        // nothing to add
      } else if (b.kind == Beat::Kind::collective && run && upto >= 0) {
        if (from == 0) {
          fmt::print("before step 0:\n{}", input_rows());
        } else {
          const std::string rows = format_buffers(prep->schedule, run->trace, from - 1, po);
          if (!rows.empty()) fmt::print("before the next step (after step {}):\n{}", from - 1, rows);
        }
      } else if (b.kind == Beat::Kind::collective && run) {
        print_collective();  // at start: the inputs are the state asked about
      }
    } else {
      run_beat();
      print_collective();
    }
    std::string text = plain_text(b.text);  // no *emphasis* / `code` marks in a terminal
    while (!text.empty() && text.back() == '\n') text.pop_back();  // one blank line before the question, not two
    fmt::print("\n{}\n", text);
    if (!b.highlight.empty()) fmt::print("look at: {}\n", highlight_line(b.highlight));
    if (!ask_first) print_checks();

    if (b.question) {
      const Question& q = *b.question;
      fmt::print("\n? {}\n", plain_text(q.ask));
      for (size_t i = 0; i < q.choices.size(); ++i) fmt::print("  {}) {}\n", i + 1, plain_text(q.choices[i]));
      const std::string answer = q.answer_text();
      if (!read_answer) {
        fmt::print("answer: {}\n", answer);
      } else {
        // A stray Enter is not an answer: ask again until something is typed.
        std::optional<std::string> line;
        for (;;) {
          fmt::print("{}> ", q.choices.empty() ? "your value" : "your choice");
          std::fflush(stdout);
          line = read_line();
          if (!line) break;
          if (blank(*line)) {
            fmt::print("(nothing typed; type your answer)\n");
            continue;
          }
          const std::string why = q.not_an_answer(*line);
          if (why.empty()) break;
          fmt::print("({}; type your answer)\n", why);
        }
        if (!line) {
          stdin_open = false;  // EOF: stop asking, show the answers
          fmt::print("\n(no more input: showing the answers)\n");
          fmt::print("answer: {}\n", answer);
        } else {
          ++asked;
          const bool ok = q.is_right(*line);
          right += ok;
          fmt::print("{}\n", ok ? "right." : fmt::format("not quite: the answer is {}", answer));
        }
      }
      if (!q.explain.empty()) fmt::print("{}\n", plain_text(q.explain));
      // The reveal: what happened in the step(s), then the checks.
      fmt::print("\n");
      run_beat();
      if (b.kind == Beat::Kind::collective && !(run && upto < 0)) print_collective();
      print_checks();
    }
    // Pace the class: wait for Enter between beats (q quits); EOF runs on.
    if (ask && stdin_open && bi + 1 < l.beats.size()) {
      fmt::print("\n[Enter] next beat · q quits > ");
      std::fflush(stdout);
      const auto line = read_line();
      if (!line) {
        stdin_open = false;
        fmt::print("\n");
      } else if (*line == "q" || *line == "quit") {
        break;
      }
    }
  }
  fmt::print("\n{} checks passed, {} failed", passed, failed);
  if (skipped) fmt::print(", {} skipped (no cluster lab here)", skipped);
  if (not_shown) fmt::print(", {} not shown on this run (the runs did not decide a timing claim; each says why)", not_shown);
  if (asked) fmt::print(" · {} of {} questions right", right, asked);
  fmt::print("\n");
  return failed ? 1 : 0;
}

// Several lessons' plans, one after the other, then their minutes added up.
void print_plans(const std::vector<Lesson>& ls) {
  for (size_t i = 0; i < ls.size(); ++i) fmt::print("{}{}", i ? "\n" : "", format_plan(ls[i]));
  fmt::print("\n{}", format_plan_sum(ls));
}

// --list: the shipped lessons with their titles; with --plan, every shipped
// lesson's plan and the course's total (a lesson that does not load stops it,
// naming the file: a course plan with a hole would add up wrong).
int list(bool plans) {
  const std::string dir = lessons_dir();
  if (plans) {  // each file read once (list_lessons reads them for their titles)
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".yaml") files.push_back(it->path().string());
    if (files.empty()) throw UsageError(fmt::format("no lessons found in '{}' (set MICRODDP_LESSONS)", dir));
    std::sort(files.begin(), files.end());
    std::vector<Lesson> ls;
    for (const auto& f : files) ls.push_back(load_lesson(f));
    print_plans(ls);
    return 0;
  }
  const auto lessons = list_lessons(dir);
  if (lessons.empty()) throw UsageError(fmt::format("no lessons found in '{}' (set MICRODDP_LESSONS)", dir));
  for (const auto& l : lessons) fmt::print("{:<44} {}\n", fs::path(l.file).filename().string(), l.title);
  return 0;
}

}  // namespace

std::function<int()> setup_lesson(CLI::App* sub) {
  static Args a;
  sub->add_option("file", a.files,
                  "lesson file, or a shipped lesson's name (02-ring-double-buffering; see --list); several with --plan");
  sub->add_flag("--non-interactive", a.non_interactive, "ask nothing; run every beat and check; exit 1 if one fails");
  sub->add_flag("--list", a.list, "list the shipped lessons with their titles (with --plan: each one's plan and the total)");
  sub->add_flag("--full", a.full, "print every element of long vectors instead of eliding them in the middle");
  sub->add_flag("--plan", a.plan, "print the lecture plan (beats, first lines, minutes per beat, total) and exit");
  sub->add_flag("--speaker", a.speaker, "print every beat's speaker notes (text, answer, next beat, planned time)");
  return std::function<int()>([] {
    if (a.list && !a.files.empty())
      throw UsageError(fmt::format("lesson: --list lists the shipped lessons and takes no lesson file; got {} ({})",
                                   a.files.size(), fmt::join(a.files, ", ")));
    if (a.list) {
      // Flags --list would not use are refused, not dropped.
      for (const auto& [given, flag] : {std::pair{a.speaker, "--speaker"}, std::pair{a.non_interactive, "--non-interactive"},
                                        std::pair{a.full, "--full"}})
        if (given)
          throw UsageError(fmt::format("lesson: --list lists the shipped lessons (with --plan: each one's plan and the "
                                       "total); {} is for a lesson FILE: leave out --list or {}",
                                       flag, flag));
      return list(a.plan);
    }
    if (a.files.empty()) throw UsageError("lesson: give a lesson FILE, or --list");
    if (a.files.size() > 1 && (!a.plan || a.speaker))
      throw UsageError(fmt::format("lesson: {} lesson files given ({}); several files only with --plan (their plans and "
                                   "the sum)",
                                   a.files.size(), fmt::join(a.files, ", ")));
    a.file = a.files[0];
    if (a.files.size() > 1) {  // a lecture of several lessons: each plan, then the sum
      std::vector<Lesson> ls;
      std::vector<std::pair<std::string, std::string>> seen;  // (file as given, the file it names)
      for (const std::string& f : a.files) {
        const std::string path = resolve_lesson_file(f);
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(path, ec);
        const std::string key = ec ? path : real.string();
        for (const auto& [given, k] : seen)
          if (k == key)
            throw UsageError(given == f ? fmt::format("lesson: '{}' is given twice; each lesson once", f)
                                        : fmt::format("lesson: '{}' and '{}' are the same lesson ({}); each lesson once",
                                                      given, f, path));
        seen.emplace_back(f, key);
      }
      for (const std::string& f : a.files) ls.push_back(load_lesson(resolve_lesson_file(f)));
      print_plans(ls);
      return 0;
    }
    if ((a.plan || a.speaker) && a.non_interactive)  // a CI job would pass without a check run
      throw UsageError(fmt::format("lesson: {} and --non-interactive exclude each other ({} prints the file and runs no "
                                   "check; --non-interactive runs the checks)",
                                   a.plan ? "--plan" : "--speaker", a.plan ? "--plan" : "--speaker"));
    if (a.plan || a.speaker) {  // nothing runs: the file, read
      const Lesson l = load_lesson(resolve_lesson_file(a.file));
      if (a.plan) fmt::print("{}", format_plan(l));
      for (int b = 0; a.speaker && b < static_cast<int>(l.beats.size()); ++b)
        fmt::print("{}── beat {}/{} ──\n{}", b || a.plan ? "\n" : "", b + 1, l.beats.size(), speaker_notes(l, b));
      return 0;
    }
    return run_lesson(a);
  });
}

}  // namespace microddp::cli
