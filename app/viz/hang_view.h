// The hang view: a picture of one real hang-lab run (core/labs/hang/hang.h)
// for lesson 08's hang beats. Each rank is a row: the calls of the step
// (#0, #1, #2, then the end-of-step barrier) as a track coloured by its
// flight recorder's state, the call it reached, where it stands at the
// monitored barrier that decided (waited E s of the timeout, did not
// arrive, arrived with a different call, passed), and its last
// flight-recorder entries (op, count, state). Under the rows, the
// barrier's verdict ("rank 2 did not arrive within 0.3 s").
//
// While the beat's open question is about a rank the verdict names
// (lesson 08 beat 2: "Can the flight recorders tell which rank is
// stuck?"), the scene withholds who it is: no row is outlined, no row's
// barrier state is given (they would tell the one that did not arrive),
// and the verdict says only how many ranks arrived. The flight recorders
// stay: every rank started #1 and failed in it, which is the lesson's
// point (sequence numbers say WHERE, the barrier says WHO). A run that
// kept its own log (LabOptions::log) shows its lines under the verdict.
//
// Plain C++ (no ImGui, no GL): tests build scenes from real runs or from
// a constructed LabResult. Times are seconds since the lab began (as in
// hang.h); the panel (hang_panel.cpp) lays the rows out.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "app/viz/layout.h"
#include "app/viz/lesson_view.h"
#include "core/labs/hang/hang.h"

namespace microddp::viz {

struct App;

// The state of one call of a rank's step on its track. skipped: the rank
// failed the step there without making the call (it left the step before
// it, lesson 08 beat 3: its flight recorder has no entry for it). A rank
// that failed carries a fail mark (failed or skipped) in the cell of the
// call it failed at: its failed recorder entry's, else the one after its
// last recorded call (the end of step when every call completed).
enum class HangCall { not_reached, started, completed, failed, skipped };
inline bool fail_mark(HangCall c) { return c == HangCall::failed || c == HangCall::skipped; }

// Where a rank stands at the barrier that decided (the scene's barrier).
enum class HangBarrier {
  passed,      // every call and the end-of-step barrier passed
  waited,      // arrived and waited, then failed with the verdict
  missing,     // did not arrive (named by the verdict)
  mismatched,  // arrived with a different call (named by the verdict)
  hidden       // withheld: the open question asks who it is
};
std::string_view name(HangBarrier b);  // "passed", "waited", "missing", "mismatched", "hidden"

struct HangRow {
  int rank = 0;
  std::string label;             // "R2"
  std::vector<HangCall> calls;   // #0..#K-1, then the end-of-step barrier (passed: completed)
  int64_t last_started = -1, last_completed = -1;  // the flight recorder's counters
  std::string reached;           // "#1 all_reduce 512 (failed)", "#2 all_gather 256 (completed)", "no call"
  HangBarrier barrier = HangBarrier::hidden;
  std::string barrier_text;      // "waited 0.30 s of 0.3 s", "did not arrive", "?" while hidden
  double waited_s = 0;           // waited: seconds at the barrier (end - begin of its failed call)
  float wait_fraction = 0;       // waited_s / timeout, clamped to [0, 1] (the panel's bar)
  std::string state;             // the lab's words for the rank ("" while hidden)
  std::vector<std::string> recorder;  // last kHangRecorderShown entries, oldest first: "#1 all_reduce 512 failed"
  bool outlined = false;         // named by the verdict and shown (lesson highlight colour)
  // The time view: the rank's recorded calls over the lab's time (seconds
  // since it began; a call still running ends at HangScene::seconds),
  // barrier wait included. Empty while withheld (the lanes tell who was late).
  struct Span {
    int64_t seq = 0;
    HangCall state = HangCall::started;
    double begin_s = 0, end_s = 0;
  };
  std::vector<Span> spans;
};

inline constexpr size_t kHangRecorderShown = 3;

// The run's own log (LabOptions::log, lesson 08's last beat), as the hang
// view shows it under the verdict: of the call the deciding barrier stood
// before (#k), every rank's INFO line for seq k, and the first WARN line
// giving the verdict, in the order they were logged; each line
// "0.301 s [2] INFO all_reduce: seq 1 ...". A line other than a WARN logged
// at or after the verdict's time stamp (LabResult::after_verdict: one
// clock, whether the barrier or the watchdog decided) is marked "after the
// verdict" (lesson 08: the sleeping rank's line for seq 1 comes only once
// the verdict woke it). Without a deciding call before the end of the step (every rank
// passed, or the end-of-step barrier failed), the last kHangLogShown lines.
struct HangLogLine {
  int rank = 0;
  hang::LogLevel level = hang::LogLevel::info;
  std::string text;   // "0.301 s [2] INFO all_reduce: seq 1 'grad bucket 1' algorithm ring ..."
  std::string mark;   // "after the verdict" or ""
};
struct HangLog {
  std::string title;  // "MICRODDP_DEBUG=INFO log of this run: each rank's line for seq 1 and the verdict (5 of 17 lines; ...)"; "" without a log
  std::vector<HangLogLine> lines;
  size_t left_out = 0;  // lines of the log not shown
};
inline constexpr size_t kHangLogShown = 6;

struct HangScene {
  std::string header;   // "hang lab: 4 ranks, fault sleep on rank 2, monitored barrier timeout 0.3 s" (fault ranks withheld too)
  std::vector<std::string> calls;  // the track's columns: "#0 all_reduce 1024", ..., "end of step"
  int barrier_call = -1;  // the barrier that decided: before call #k (k < K), K = end of step; -1: all passed
  std::string barrier;    // "barrier before #1", "end-of-step barrier", "" when all passed
  int arrived = 0;        // ranks that arrived at it (world size - missing)
  int ranks = 0;
  double timeout_s = 0;
  bool withheld = false;  // names held back (see above)
  std::string verdict;    // the lab's verdict, or its withheld form; "every rank passed every call" when healthy
  double seconds = 0;     // the lab's wall time (the time view's range)
  std::vector<HangRow> rows;
  HangLog log;            // the run's own log as shown (build_hang_log)
};

// `call`: the scene's barrier_call. Empty (no title, no lines) when the run
// kept no log (o.log unset) or withhold (who is late is the question).
HangLog build_hang_log(const hang::LabOptions& o, const hang::LabResult& r, int call, bool withhold);

// The scene of run `r` made with options `o`. withhold: hide who the
// verdict names (see above). Throws std::invalid_argument when r has no
// ranks or not o.ranks of them.
HangScene build_hang_scene(const hang::LabOptions& o, const hang::LabResult& r, bool withhold);

// Does the open question of L's current beat ask for a rank that r's
// verdict names (missing or mismatched)? True while it is unanswered and a
// number of its answer (LessonView's answer_numbers) is such a rank, or
// the beat's highlight (withheld while the question is open: LessonView::
// highlight_withheld) names such a rank.
bool hang_names_withheld(const LessonView& L, const hang::LabResult& r);

// beat_target of a hang beat (lesson_view.h): the faulted call
// (#fault_call, an all_reduce of count >> fault_call elements) on the
// lesson's ranks, for the topology panel; the hang view shows the run.
BeatTarget hang_beat_target(const lesson::Beat& b, const PredictionSource& source);

// The hang lab run of a hang beat, started on a background thread (the
// window's run and its checks' run are this one run: LessonView::start_checks).
std::shared_future<std::shared_ptr<const hang::LabResult>> start_hang_run(const hang::LabOptions& o);

// The panel (hang_panel.cpp): draws the hang view in rectangle r (screen
// pixels, as compute_layout gives) and returns true when the open lesson's
// beat is a hang beat; returns false, drawing nothing, otherwise (then the
// caller draws the topology and buffers panels there).
bool draw_hang_panel(App& app, const Rect& r);
// The time view (hang_panel.cpp) in the timeline's place: each rank's
// calls over the lab's seconds; true when it drew (a hang beat), false
// otherwise (then the caller draws the timeline there).
bool draw_hang_timeline(App& app, const Rect& r);
// Where the hang view goes in the main view: the top row (the topology's
// and the buffers' rectangles together).
Rect hang_panel_rect(const Layout& L);

// What the hang view shows, for describe_picture: "" without a hang beat,
// else lines "hang: ..." (the barrier, each row's reached call and barrier
// state, the verdict as shown).
std::string describe_hang(const App& app);

}  // namespace microddp::viz
