// Lesson scripts (lessons/*.yaml; the format is in lessons/README.md): a
// title, a summary, a run configuration (setup) and an ordered list of beats.
// A beat says which step of the REAL run to show, a short text, highlights,
// an optional question, and checks that are evaluated against the real run
// (or against the α-β prediction of its schedule), so a lesson that claims
// something false fails its own test.
//
// Used by `microddp lesson` (app/cli/cmd_lesson.cpp) and by the app's lesson
// panel. Typical use:
//   Lesson l = load_lesson("lessons/02-ring-double-buffering.yaml");
//   for (size_t b = 0; b < l.beats.size(); ++b) {
//     Prepared p = prepare(l.beats[b].setup);          // spec, schedule, inputs
//     int upto = target_step(l.beats[b].at, p.schedule); // -1: before step 0
//     ... run steps 0..upto (SteppedRun), show l.beats[b].text / highlights
//     std::vector<CheckResult> r = evaluate(l.beats[b]); // runs for real
//   }
// Errors: every loading error is a LessonError. One in the file's text
// starts with "FILE:LINE:COLUMN: " (1-based, from yaml-cpp's marks) and says
// what was expected; unknown keys are errors. A file that cannot be opened
// or is not a regular file has no position: "cannot open FILE: <strerror>",
// "FILE is a directory, not a lesson file (...)", "FILE is a FIFO (named
// pipe), not a lesson file (...)" (likewise "a character device", "a block
// device", "a socket"): load_lesson stats the path before opening it, so a
// FIFO or /dev/zero is refused at once instead of blocking or never ending.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labs/ddp/ddp.h"
#include "core/labs/lesson/checks.h"
#include "core/exec/executor.h"
#include "core/labs/hang/hang.h"
#include "core/ir/types.h"
#include "core/record/record_io.h"

namespace microddp::lesson {

// A position in a lesson file (1-based line and column; 0 = unknown).
struct Mark {
  std::string file;
  int line = 0, column = 0;
  std::string str() const;  // "file:line:column"
};

// A malformed lesson file. what() = "file:line:column: <what was expected>".
struct LessonError : UsageError {
  using UsageError::UsageError;
};

// One run configuration, as `microddp run` takes it (app/cli/run_options.h).
// count < 0: from the data rows (else 8). data: rows "1,2,3;4,5,6" (';'
// between ranks). algorithm "single_buffered_ring" is the test-only
// all_reduce ring with one buffer (make_single_buffered_ring): it is NOT
// checked symbolically (the checker rejects it) and exists to be shown
// failing under `delay`.
struct Setup {
  std::string collective = "all_reduce", algorithm = "ring", dtype = "float32", op = "sum";
  int ranks = 3;
  int64_t count = -1;
  std::vector<int64_t> counts;
  int root = 0;
  int segments = 1;
  int channels = 1;  // CollectiveSpec::channels
  int nodes = 1;  // CollectiveSpec::nodes: contiguous placement, ranks / nodes per node
  bool in_place = false;
  std::string data, fill;
  std::string backend = "threads", mode = "lockstep";
  std::optional<DelayHook> delay;  // delayed sends (seed is set per run)
};

// Where a beat goes: before the first step, after step `step` (0-based), to
// the last step of a named phase, or to the end of the run.
struct Target {
  enum class Kind { start, step, phase, end } kind = Kind::end;
  int step = -1;
  std::string phase;
};

struct Highlights {
  std::vector<int> ranks;
  std::vector<int> chunks;
  std::vector<std::string> buffers;          // buffer names: accum, send_buff, ...
  std::vector<std::pair<int, int>> links;    // from rank -> to rank
  bool empty() const { return ranks.empty() && chunks.empty() && buffers.empty() && links.empty(); }
};

// A multiple-choice question (choices non-empty; answer = 1-based index) or
// a value to type (choices empty; the typed number must be within tolerance
// of `value`).
struct Question {
  std::string ask;
  std::vector<std::string> choices;
  int answer = 0;
  double value = 0, tolerance = 0;
  std::string explain;  // shown after the answer, right or wrong
  // True when `typed` is right ("2" or the choice's text; or a number).
  bool is_right(const std::string& typed) const;
  // "" when `typed` is an answer at all (a choice's number 1..N or its
  // text; a number for a question without choices), else why not, in a
  // few words ("7 is not one of the choices 1-4"): the terminal asks again
  // instead of marking a typo wrong.
  std::string not_an_answer(const std::string& typed) const;
  // The answer as the terminal and the plan print it: "2) the text" for a
  // choice; a number with as many decimals as its tolerance asks for
  // ("8.0" for tolerance 0.1, "43.6", "128" for tolerance 0 or >= 1).
  std::string answer_text() const;
};

// A claim checked against the run: where it is written and what it claims
// (one struct per check kind, core/labs/lesson/checks.h).
struct Check {
  Mark mark;
  check::Any claim;
};

// What a lab beat asks the cluster lab for (`microddp cluster`,
// app/cli/cmd_cluster.cpp): `nodes` emulated hosts of `ranks_per_node` ranks,
// one NIC each shaped to `nic` (tc's rate syntax, e.g. "100mbit"), and on
// them an Open MPI benchmark of `collective` with each of `algorithms` at
// `bytes` per rank, `iters` timed iterations after one warm-up:
//   microddp cluster --nodes N --ranks-per-node G --nic RATE -- bench
//     --backend mpi --collective C --algorithm A,B -b BYTES -e BYTES -n ITERS -w 1 --json
struct LabRequest {
  int nodes = 2, ranks_per_node = 1;
  std::string nic = "100mbit";
  std::string collective = "all_reduce";
  std::vector<std::string> algorithms = {"ring"};
  int64_t bytes = int64_t{4} << 20;
  int iters = 5;
  double nic_bps() const;  // `nic` in bits per second (validated when the lesson loads)
};

// One algorithm's measurement: the median of the timed iterations and the
// 10th and 90th percentiles (seconds).
struct LabRow {
  std::string algorithm;
  double seconds = 0, p10 = 0, p90 = 0;
};

// A lab run's outcome. unavailable: the lab cannot run here (no root or
// user namespaces, no mpirun, `microddp cluster` exited 2, or the runner
// was told not to start it); `reason` says why and the beat's checks are
// skipped. failed: it ran and broke (`reason` holds the error); its checks
// fail. ok: `rows` holds one row per requested algorithm.
struct LabRun {
  LabRequest request;  // what was asked (set by run_lab)
  enum class Status { ok, unavailable, failed } status = Status::unavailable;
  std::string reason;
  std::vector<LabRow> rows;
  const LabRow* row(const std::string& algorithm) const;
};

// Starts the cluster lab. The labs layer cannot start processes in
// namespaces; the viewer (the CLI's lesson runner) supplies this.
using LabRunner = std::function<LabRun(const LabRequest&)>;
// runner(q) with its request recorded; an empty runner, or one that throws,
// gives an unavailable / failed run saying so.
LabRun run_lab(const LabRunner& runner, const LabRequest& q);

// What the window (microddp-viz --lesson) shows while a beat is on screen:
// the beat's `view:` key (lessons/README.md). The terminal runner ignores it.
//   steps    the step-through of the beat's collective run (collective,
//            hang and lab beats' default);
//   compare  the Compare view of the beat's collective and world size:
//            `algorithms` side by side, and a size sweep from min_bytes to
//            max_bytes (nccl-tests' message size S, BYTES; the window
//            measures at min_bytes, 4·min_bytes, ... up to max_bytes);
//   ddp      the DDP timeline of the beat's `ddp:` run (ddp beats' default);
//   topology the step-through with the topology panel large (multi-node
//            setups).
struct BeatView {
  enum class Kind { steps, compare, ddp, topology } kind = Kind::steps;
  std::vector<std::string> algorithms;  // compare: empty = the window's default (naive, tree, ring)
  int64_t min_bytes = 4096, max_bytes = int64_t{64} << 20;
  // compare: where the sweep comes from (`compare: {source: ...}`; the
  // window's --compare-source, app/viz/compare_sources.h): "shm" (measured
  // on this machine), "lab" (the cluster lab, live), "recorded" (a saved lab
  // run, `file`), "model" (NCCL on `system`) or "published" (the nccl-tests
  // output `file`). file: resolved against the lesson's folder ("" = the
  // window's default); system: a named NCCL system ("" = the default).
  std::string source = "shm", file, system;
  int ranks = 0;  // model: the ranks priced (0 = the beat's world size)
  bool protocols = false;  // model: the ring's three protocols as lines (LL, LL128, SIMPLE) instead of one per algorithm
};
std::string_view name(BeatView::Kind k);  // "steps", "compare", "ddp", "topology"

struct Beat {
  Mark mark;
  Target at;
  std::string text;   // plain text; *emphasis* is the only markup
  Highlights highlight;
  std::optional<Question> question;
  std::vector<Check> checks;
  Setup setup;        // effective setup of this beat (the lesson's, changed by
                      // this and earlier beats' `setup:` keys)
  bool setup_changed = false;
  // What the beat runs: a collective (everything above), a DDP
  // training run (ddp; `at` is end, setup is the carried collective setup,
  // unused) or a hang-lab run (hang). A viewer that only knows collective
  // beats shows the text and question of the others and skips their run.
  // A lab beat (lab) measures on the cluster lab through a LabRunner.
  enum class Kind { collective, ddp, hang, lab } kind = Kind::collective;
  ddp::Options ddp;      // effective options (lesson's `ddp:`, changed by this and earlier ddp beats)
  hang::LabOptions hang; // effective options (lesson's `hang:`, changed likewise)
  LabRequest lab;        // lab beats: the lesson's `lab:`, changed by this and earlier lab beats
  std::string name;      // ddp and lab beats: a name that later checks compare with ("" = none)
  BeatView view;         // what the window shows (ddp beats: ddp unless `view: steps`)
  // The lecture plan (`minutes:`, any beat kind): minutes planned for this
  // beat, kMinBeatMinutes..kMaxBeatMinutes; kDefaultBeatMinutes when the
  // key is absent (minutes_given false). `microddp lesson --plan` and the
  // speaker view (core/labs/lesson/plan.h) add them up.
  double minutes = 2;
  bool minutes_given = false;
  // `recorded: FILE` (collective beats; lessons/README.md): a saved run of
  // this beat's setup (core/record/record_io.h, e.g. lessons/data/'s
  // single-buffered ring made by scripts/record-corrupt.sh), resolved
  // against the lesson's folder and loaded with the lesson. The window shows
  // it in place of a live run, so every export of the beat shows the same
  // run; the checks still run live. Refused at load (FILE:LINE:COLUMN) when
  // the file is missing or malformed, or when its spec, algorithm or inputs
  // are not the beat's. recorded_path "" / recorded_run null: none.
  std::string recorded_path;
  std::shared_ptr<const RunRecord> recorded_run;
  // `optional: true`: a beat a short lecture may skip (its point is made by
  // another beat); `--plan` marks it and sums the lesson without it. The
  // runner and the window still show it.
  bool optional = false;
};
inline constexpr double kDefaultBeatMinutes = 2, kMinBeatMinutes = 0.25, kMaxBeatMinutes = 60;

struct Lesson {
  std::string file, title, summary;
  Setup setup;  // optional in the file when no beat is a collective beat (then the default)
  std::vector<Beat> beats;
  ddp::Options ddp;       // the lesson's `ddp:` (defaults of its ddp beats)
  hang::LabOptions hang;  // the lesson's `hang:`
  LabRequest lab;         // the lesson's `lab:`
};

// Parse a lesson from text (`file` names it in messages) or from a file.
// Throws LessonError (file:line:column: ...) for malformed YAML, unknown
// keys, duplicate keys, missing keys, wrong types and values out of range,
// and (without a position) for a path that is a directory or cannot be
// opened. Setups are
// validated by building their schedule, so a beat with an impossible setup
// fails here, at its mark.
Lesson parse_lesson(const std::string& text, const std::string& file = "<lesson>");
Lesson load_lesson(const std::string& path);

// A shipped lesson: its file and title (sorted by file name).
struct LessonInfo {
  std::string file, title;
};
// Lessons in `dir` (*.yaml); files that fail to load are listed with the
// title "(error: ...)".
std::vector<LessonInfo> list_lessons(const std::string& dir);

// A setup turned into something to run: checked schedule and input data.
struct Prepared {
  CollectiveSpec spec;
  Schedule schedule;
  RankData inputs;  // empty when the setup is too large to run (prediction only)
  Mode mode = Mode::lockstep;
  bool runnable = true;
  int64_t run_elements = 0;  // input + output elements over all ranks (what kMaxRunElements bounds)
};
// Largest total of input and output elements over all ranks that a lesson
// runs for real; larger setups are prediction-only.
constexpr int64_t kMaxRunElements = int64_t{1} << 22;
// Throws UsageError naming the bad value.
Prepared prepare(const Setup& s);

// The last step to run for `t` (-1 = none: the state before step 0).
int target_step(const Target& t, const Schedule& s);

struct CheckResult {
  bool pass = false;
  bool skipped = false;  // not decided: the lab it needs did not run here (pass is false)
  std::string what;      // "R0 accum after step 0"
  std::string expected, actual;
  Mark mark;
  // Skipped because a measured timing claim's repeated runs showed neither
  // it nor its opposite beyond their spread (checks_ddp.cpp), not for a
  // missing lab: `actual` says "not shown on this run: ..." with the runs
  // and the machine's load.
  bool not_shown = false;
};
// Evaluate the beat's checks: runs its setup for real (threads backend,
// lockstep, buffers recorded) when a check needs a run. ddp and hang beats:
// runs run_ddp(b.ddp) / run_hang_lab(b.hang) (only when it has checks) and
// calls the overloads below.
std::vector<CheckResult> evaluate(const Beat& b);

// Checks of a ddp / hang beat against a run already made (the
// runner prints the run, then checks it). Runs named by `other_run` are
// run here (once per name); a measured timing claim (check::OverlapFraction
// / ExposedCommMs / CommMs with less_than / greater_than) also reruns this beat and
// the named run, alternately, 3 to 9 times each (checks_ddp.cpp); one that
// those runs do not decide is skipped with not_shown. A check of the wrong
// beat kind fails.
std::vector<CheckResult> evaluate(const Beat& b, const ddp::Result& run);
std::vector<CheckResult> evaluate(const Beat& b, const hang::LabResult& run);

// Checks of a lab beat against its run and the earlier named lab runs
// (`runs`, by beat name). When this run or a run a check compares with is
// unavailable, that check is skipped (CheckResult::skipped), not failed.
// evaluate(Beat) on a lab beat has no runner: every check is skipped.
std::vector<CheckResult> evaluate(const Beat& b, const LabRun& run, const std::map<std::string, LabRun>& runs);

// The runs behind a `corrupts` check, for anyone who wants to show one (the
// window's broken single-buffered ring). One delayed run: `s` on the threads
// backend in lockstep mode with `delay` at `seed` (delay.seed is replaced),
// its outputs compared with reference_outputs (core/ir/reference.h, within
// its error bound). record: keep the trace and, up to 4096 elements a rank,
// the buffer snapshots of every step. The schedule is run unchecked (it is
// meant to be the single-buffered ring, which the checker rejects); the
// threads backend's 30 s watchdog throws should it deadlock.
struct DelayedRun {
  uint64_t seed = 0;
  bool corrupted = false;
  std::string why;  // the first wrong element (outputs_match), "" when correct
  RunResult run;
};
DelayedRun run_delayed(const Schedule& s, const RankData& inputs, const DelayHook& delay, uint64_t seed,
                       bool record);
// The check's seed order, 1, 2, ..., stopped at the first seed that
// corrupts: at most max_seeds runs. Returns that seed's run, or (none
// corrupted) the last one with corrupted false; tries = runs made.
struct SeedSearch {
  int tries = 0;
  DelayedRun found;
};
SeedSearch first_corrupting_seed(const Schedule& s, const RankData& inputs, const DelayHook& delay, int max_seeds,
                                 bool record);

// The two-level model's lockstep time (s) of `algorithm` on the lab's
// shape (core/model/topology_model.h): between nodes the NIC's shaped rate
// with TCP's α (50 µs), inside a node shared memory at 8 GB/s with α = 2 µs
// (the lab's calibrate measures 6–9 GB/s), fused_recv_reduce off (every
// byte crosses a wire or vader's copy). Throws UsageError for a placement
// or algorithm that does not exist.
double predict_lab(const LabRequest& q, const std::string& algorithm);

}  // namespace microddp::lesson
