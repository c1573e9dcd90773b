// The lesson panel's model: an open lesson (core/labs/lesson/lesson.h), the
// beat shown, the answers given and the checks' results. Plain C++ with no
// ImGui and no GL, so tests drive it directly; the panel (panel_lesson.cpp)
// only draws it and calls its actions.
//
// What a beat asks of the viewer (beat_target): the RunParams to plan and run
// (from the beat's effective setup), the position to show, i.e. the
// number of steps whose effect is visible: target_step(at) + 1 (0 = before
// step 0, num_steps = the end), and the view to show it in (the beat's
// `view:`: step-through, compare with its algorithms and sweep sizes, the
// DDP timeline with the beat's ddp options, or the topology panel in front).
// Setups the viewer cannot step as written are reported in `note`:
//   - too large to run (Prepared::runnable false): the panels run a
//     stand-in of kStandInCount elements per rank on the beat's ranks and
//     algorithm, and the note gives the α-β prediction for the real size
//     (under each preset the beat's `predicted` checks name, else the
//     window's prediction source);
//   - algorithm single_buffered_ring (rejected by the checker): the panels
//     show the one-buffer ring itself, run for real with the beat's delays
//     (RunParams::broken: the first of the `corrupts` check's seeds, at most
//     30, that corrupts), its wrong values in red;
//   - other delay hooks and per-rank counts are not shown (the checks use them);
//     per-rank counts leave the running session alone.
// Checks run for real (lesson::evaluate), once per beat, on a background
// thread: the `corrupts` check runs dozens of delayed runs.
#pragma once
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/ddp_view.h"
#include "app/viz/prediction.h"
#include "app/viz/session.h"
#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/picture_runs.h"

namespace microddp::viz {

// Where the session must be for a beat.
struct BeatTarget {
  RunParams params;
  bool drive = true;     // false: the viewer cannot run this setup (see note)
  bool stand_in = false; // params run kStandInCount elements, not the beat's count
  int position = 0;      // steps shown: target_step(at) + 1
  int num_steps = 0;     // steps of the beat's schedule
  std::string note;      // why the panels show something else, or ""
  lesson::BeatView view; // what the window shows (lesson.h)
  DdpParams ddp;         // view ddp: the DDP view's parameters (ddp_params(beat.ddp))
  std::string preset;    // beat_preset(beat): the window predicts with it on this beat, or ""
  std::optional<PredictionSource> links;  // beat_links(beat): its two-level links, or none
  // A stand-in's note quotes the α-β prediction at the real size: that text
  // (a part of `note`) and its totals in seconds, so that the window can
  // hold it back while a question asks for it (LessonView::withholds).
  std::string note_prediction;
  // The bytes-per-rank line inside `note` (beat_bytes.h), or "": shown_note
  // withholds it while the beat's question is open (it can be the answer).
  std::string note_bytes;
  std::vector<double> note_seconds;
};

// The link preset the beat's flat-model checks (`predicted`, `faster`,
// `ratio`, first one with a `preset:` and no `inter:` links) price with, or
// "" when none names one. On such a beat the window predicts with that
// preset, so the compare cards, the predicted lines and the checks agree.
std::string beat_preset(const lesson::Beat& b);

// The two-level links (intra, inter, NICs per node) of the beat's first
// topology check (`predicted`, `ratio`, `faster` or `nic_bytes` with an
// `inter:`), as a topology PredictionSource; none when no check names one.
// On such a beat the window predicts on those links (lesson 12's 8 NICs per
// node), as the checks do.
std::optional<PredictionSource> beat_links(const lesson::Beat& b);

// Does the number `x` give away the numeric answer `v` (tolerance `tol`,
// 0: within 0.5 %)? Also true when x / s or x * s matches for a scale s
// of `scales` (x = 381818 bytes matches 380 KB with scale 1e3).
bool figure_matches(double x, double v, double tol, const std::vector<double>& scales);
// The scales of a size in bytes: B, KB, KiB, MB, MiB, GB, GiB.
const std::vector<double>& byte_scales();

// Elements per rank of the stand-in run of a setup too large to run; the
// note of such a beat starts with kStandInNote (the panel shows it first).
inline constexpr int64_t kStandInCount = 1024;
inline constexpr std::string_view kStandInNote = "stand-in run:";

// The beat's run parameters for the viewer: the setup's spec, and its rows
// or fill as given (the session builds inputs with core's parse_data /
// fill_data, as prepare() does, so the panels show the values the checks
// use). `source` prices the real size of a stand-in beat when its checks
// name no preset. Throws UsageError / ScheduleError naming the bad value.
BeatTarget beat_target(const lesson::Beat& b, const PredictionSource& source = {});

// The numbers of a question's answer: a numeric question's value, or every
// number in the right choice's text ("[8, 10, 12]" gives 8, 10, 12).
std::vector<double> answer_numbers(const lesson::Question& q);

class LessonView;
// Is one of a note's predicted totals (seconds) the answer of an open
// question of L (in s, ms or µs: LessonView::withholds)?
bool prediction_withheld(const LessonView& L, const std::vector<double>& seconds);
// The note the window shows for target t on L's current beat: t.note, with
// the real size's prediction (t.note_prediction) replaced by
// kPredictionWaits while prediction_withheld (lesson 05 beat 1 asks for it).
std::string shown_note(const LessonView& L, const BeatTarget& t);
inline constexpr std::string_view kPredictionWaits = "shown once you answer the question";
// The bytes-per-rank line in its place while the beat's question is open.
inline constexpr std::string_view kBytesWait = "bytes per rank shown once you answer the question";

// A ddp beat's options as the DDP view's parameters: all of them, batch
// included (lesson_batch; to_options in ddp_view.h).
DdpParams ddp_params(const ddp::Options& o);

// A question's state on one beat.
struct Answer {
  int chosen = -1;        // 0-based choice clicked, -1: none
  std::string typed;      // the value field's text
  bool answered = false, right = false;
  bool revealed = false;  // answered by the lecturer's reveal key (present.h), not by a choice
};

// Text runs of a beat's text: *emphasis* marks emphasised runs; a blank line
// starts a new paragraph; single newlines are spaces, except around an
// indented line, which is kept as it is on a line of its own (formulas).
struct TextRun {
  std::string text;
  bool emphasis = false;
  bool paragraph = false;  // a paragraph break (blank line) before this run
  bool newline = false;    // a line break before this run
  bool pre = false;        // an indented line: drawn as is (wrapped at spaces only when wider than the panel)
  bool code = false;       // a `code span`: drawn in the code colour, without its backticks
};
std::vector<TextRun> text_runs(const std::string& text);

// `text` in lines no wider than `width` (measure(word) = a word's width, in
// the same unit), broken only at spaces: a number such as 1.40898e-08 is
// never split (ImGui's own wrapping breaks after '.' and ','). A word wider
// than `width` is broken after its '_' or '/' into parts that fit
// ("MICRODDP_VIZ_" "SKIP_CHECKS"), or gets a line of its own without them.
std::vector<std::string> wrap_words(const std::string& text, float width,
                                    const std::function<float(std::string_view)>& measure);

// A check's line in the panel: "what: actual" when it passed, "what:
// expected E, got A" when it failed, "what: note" when skipped.
std::string check_line(const lesson::CheckResult& r);
// "3 of 4 checks pass" (a lesson's run summary; the panel shows no count while checks_hidden()).
std::string checks_summary(const std::vector<lesson::CheckResult>& rs);

// A slide's checks folded (--present): the passing ones in one line, the
// undecided ones in two, by why ("" = none of that kind; failures are
// listed one by one, not here).
struct PresentCheckFolds {
  std::string pass;       // "✓ 2 checks pass", "✓ 1 other check passes" beside a failure
  std::string not_shown;  // "– 1 not shown on this run (the runs did not decide)": CheckResult::not_shown
  std::string lab;        // "– 2 lab checks not run here": the lab the check needs did not run
};
PresentCheckFolds present_check_folds(const std::vector<lesson::CheckResult>& rs);

// The checks' heading, by what they read: "Checks (real run)" (a run made
// now), "Checks (recorded run)" (a recorded lab run: a recorded lab beat,
// recorded_faster, recorded_ratio), "Checks (published table)"
// (published_time, published_error), "Checks (model)" (predicted,
// ratio, faster, nccl_choice); several joined in that order: "Checks (real run, model)".
std::string checks_heading(const lesson::Beat& b);

class LessonView {
 public:
  explicit LessonView(lesson::Lesson l);
  ~LessonView();  // waits for check runs still in flight
  LessonView(const LessonView&) = delete;
  LessonView& operator=(const LessonView&) = delete;

  const lesson::Lesson& lesson() const { return lesson_; }
  int beat() const { return beat_; }  // 0-based
  int num_beats() const { return static_cast<int>(lesson_.beats.size()); }
  const lesson::Beat& current() const { return lesson_.beats[static_cast<size_t>(beat_)]; }

  // Navigation (clamped); true when the beat changed. The session is driven
  // by the caller (driven_beat() != beat() means "not yet").
  bool next();
  bool previous();
  bool go(int beat);
  int driven_beat() const { return driven_; }
  void mark_driven() { driven_ = beat_, beat_position_ = -1, picture_shown = false; }
  // The session position the driven beat shows (BeatTarget::position), set
  // once the caller drove the session there; -1 before, and on a beat
  // that drives no step-through run.
  void set_beat_position(int position) { beat_position_ = position; }
  int beat_position() const { return beat_position_; }

  // Highlights of the current beat. A buffer row is lit when it matches the
  // beat's ranks (or there are none) and buffers (or there are none), and at
  // least one of the two is given; a cell when chunks are given and its chunk,
  // rank and buffer match.
  bool rank_lit(int rank) const;
  bool chunk_lit(int chunk) const;
  bool link_lit(int from, int to) const;
  bool row_lit(int rank, const std::string& buffer) const;
  bool cell_lit(int rank, const std::string& buffer, int chunk) const;
  // Rank highlights are withheld (rank_lit, row_lit, cell_lit false)
  // while the beat's question is open and its answer names a highlighted
  // rank, or the beat is a hang beat that highlights ranks (lesson 08
  // beat 2 asks whether the flight recorders tell the stuck rank and
  // highlights it).
  bool any_highlight() const { return !current().highlight.empty() && !highlight_withheld(); }
  bool highlight_withheld() const;
  // Is `figure` (a quantity drawn on the picture, e.g. the predicted
  // crossover in bytes) the answer of an open question? True while any
  // numeric question of this or a later beat is unanswered and its answer
  // matches figure / scale
  // within the question's tolerance (0: within 0.5 %) for one of `scales`
  // (bytes: 1, 1e3, 1024, 1e6, 2^20 give B, KB, KiB, MB, MiB). The
  // window keeps such a figure off the picture until the question is
  // answered (lesson 03's crossover, asked at beat 5, drawn from beat 4).
  bool withholds(double figure, const std::vector<double>& scales) const;

  // Questions: answer the current beat's question (choice is 0-based; a
  // typed value for value questions). No-op without a question.
  void choose(int choice);
  void submit(const std::string& typed);
  Answer& answer() { return answers_[static_cast<size_t>(beat_)]; }
  const Answer& answer() const { return answers_[static_cast<size_t>(beat_)]; }
  // "Right." / "Not quite: the answer is ..." (empty before an answer).
  std::string feedback() const;
  std::string right_answer() const;

  // True while the current beat has a question not yet answered: the
  // checks' values would give the answer away, so the panel (and the slide
  // export) shows only how many checks passed.
  bool checks_hidden() const { return current().question.has_value() && !answer().answered; }
  // Is the open question about buffer values? True when every number of
  // its answer (a numeric answer, or the numbers in the right choice's
  // text) is among the values of one of the beat's `buffer` checks: lesson
  // 02 beat 2's "[8, 10, 12]" is R0's accum. False for a question about
  // something else (lesson 06's busbw factor 1.5 beside a buffer check).
  bool question_about_buffers() const;
  // The same rule for the buffers panel: the position whose buffer values
  // it shows while the session is at `position`. Position 0 (the inputs,
  // before step 0) while checks_hidden(), question_about_buffers() and the
  // session is at the driven beat's own position: any later state can give
  // the answer away, not only the beat's own step (lesson 01 beat 8 asks
  // which block R3 keeps; the step before it already shows the whole sum in
  // R0's accum and the other ranks' blocks), so the viewer works it out from
  // the inputs. `position` otherwise: answered, no question, a question
  // about something else (lesson 02's broken ring shows its wrong values
  // while asking why), or a position the viewer stepped to.
  int buffers_position(int position) const;

  // The prediction source the lesson set for a beat naming a preset
  // (beat_preset), so lesson_sync can give "follow the run" back when the
  // viewer leaves the beat without picking another source.
  std::optional<PredictionSource> lesson_source;
  // The driven beat's whole note while a part of it (the prediction at the
  // real size, totals held_seconds) is held back from the picture; "" when
  // nothing is (lesson_sync restores it once the question is answered).
  std::string held_note;
  std::vector<double> held_seconds;

  // Checks of the current beat: start() launches them (once per beat);
  // results() is null while they run; error() says why they could not run.
  void start_checks();
  bool checks_ready();
  void wait_checks();  // blocks until the current beat's checks are done
  // The current beat's results replaced by `r` (a lab beat's checks on the
  // live lab that Compare ran, lab_recorded.h evaluate_live).
  void set_results(std::vector<lesson::CheckResult> r);
  // With the environment variable MICRODDP_VIZ_SKIP_CHECKS set (to
  // anything but "" or "0"), checks never run: check_error() says they
  // were skipped. For tests that compare pictures, not checks.
  static bool checks_skipped_by_env();
  const std::vector<lesson::CheckResult>* results() const;
  const std::string& check_error() const { return errors_[static_cast<size_t>(beat_)]; }
  // A hang beat's hang-lab run (start_checks starts it, MICRODDP_VIZ_SKIP_CHECKS
  // or not; its checks read the same run, and wait_checks waits for it too):
  // null while it runs and on other beats; why it failed in `error` (hang_view.cpp).
  std::shared_ptr<const hang::LabResult> hang_run(std::string* error = nullptr) const;
  // A ddp beat whose measured times a check claims something about, or
  // that a later beat's claim compares with (core/labs/lesson/
  // picture_runs.h): its checks keep their runs of the beat, and picture()
  // holds the median one, which the DDP view draws, and the figures for its
  // caption. Null while the checks run, on other beats, and with
  // MICRODDP_VIZ_SKIP_CHECKS (the DDP view keeps its own one run).
  const lesson::PictureRuns* picture() const;
  // lesson_sync's mark: the DDP view shows the driven beat's picture()
  // (false again at each mark_driven).
  bool picture_shown = false;

 private:
  void collect(size_t b);

  lesson::Lesson lesson_;
  int beat_ = 0, driven_ = -1, beat_position_ = -1;
  std::vector<Answer> answers_;
  std::vector<std::future<std::vector<lesson::CheckResult>>> pending_;
  std::vector<std::optional<std::vector<lesson::CheckResult>>> results_;
  std::vector<std::string> errors_;
  std::vector<std::shared_future<std::shared_ptr<const hang::LabResult>>> hang_runs_;
  std::vector<std::shared_ptr<lesson::PictureRuns>> pictures_;  // filled by the beat's checks thread
};

}  // namespace microddp::viz
