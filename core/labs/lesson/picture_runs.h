// The run a viewer draws for a ddp beat whose measured times a check makes
// a claim about (lesson 07 beat 3: six calls' communication ms against one
// bucket's; beat 6: overlap below 0.3). One run's times move with the
// machine's load (a 3 KB all-reduce took 1 to 12 ms on the 2-vCPU VM), so
// the checks decide such a claim on repeated runs (timing_rule.h); the
// picture is the median one of those same runs, and its caption says where
// it stands among them and whether the runs decided the claim.
//
// Which runs (picture_rule):
//  - a beat with a measured timing claim of its own (comm_ms,
//    exposed_comm_ms or overlap_fraction with less_than / greater_than on
//    the measured clock; the first such check): the runs that check made
//    of this beat, 5 or 10 (against a run) or 8 or 16 (against a number),
//    the beat's own run first;
//  - else a named beat whose figure a later beat's measured claim compares
//    with (lesson 07 beat 1, 'one_bucket', compared in beat 3):
//    kPictureRuns runs of it made for the picture, its own run first;
//  - else none: the viewer draws the beat's one run.
// Each run's figure is the check's: the median over its iterations of
// IterationStats::comm_ms / exposed_comm_ms (ms) or overlap_fraction (0..1).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/timing_rule.h"

namespace microddp::lesson {

enum class PictureFigure { comm_ms, exposed_comm_ms, overlap_fraction };
// "comm", "exposed comm", "overlap" (the DDP view's header words).
std::string_view name(PictureFigure f);

// Runs made for the picture of a beat that a later beat compares with.
inline constexpr size_t kPictureRuns = 5;

struct PictureRule {
  PictureFigure figure = PictureFigure::comm_ms;
  int check = -1;        // index into the beat's checks: its runs are that check's; -1: none
  int compared_in = -1;  // check < 0: the later beat (0-based) whose claim compares with this one
  size_t runs = 0;       // compared_in >= 0: runs made for the picture (kPictureRuns)
};

// The rule for beat `beat` (0-based) of `l`, or none (not a ddp beat, or no
// measured timing claim on it or against it). Throws std::out_of_range for
// a beat outside the lesson.
std::optional<PictureRule> picture_rule(const Lesson& l, int beat);

// One run's figure: the median over its iterations (as the checks take it);
// NaN for a run without iterations.
double run_figure(PictureFigure f, const ddp::Result& r);

// The runs behind a beat's picture and the one shown.
struct PictureRuns {
  PictureRule rule;
  std::vector<double> figures;              // this beat's runs' figures, in run order
  size_t shown = 0;                         // timing::median_run(figures)
  std::shared_ptr<const ddp::Result> run;   // that run, whole (null when no run was kept)
  int iteration = 0;                        // its iteration nearest its figure (median_run over iterations)
  // rule.check >= 0: the claim's verdict on those runs.
  timing::Verdict verdict = timing::Verdict::not_shown;
  bool less = true;                   // the claim is "<" (else ">")
  std::string other_run;              // the run compared with ("" for a claim against a number)
  std::vector<double> other_figures;  // its runs' figures, its `times` applied
  double number = 0;                  // a claim against a number: the number
};

// Sets p.shown, p.run and p.iteration from p.figures and `runs` (the
// runs in the same order; runs.size() == p.figures.size()).
void choose_picture(PictureRuns& p, const std::vector<std::shared_ptr<const ddp::Result>>& runs);

// evaluate(b) that also fills `picture` by `rule` (picture_rule(l, i) of
// this beat): the same checks on the same kind of runs, the runs the rule
// names kept and the median one chosen. Throws as run_ddp does.
std::vector<CheckResult> evaluate(const Beat& b, const PictureRule& rule, PictureRuns& picture);

// The caption for the note under the picture (ms figures "{:.3g} ms",
// fractions "{:.2f}"; no capital, no full stop: the viewer writes it in
// parentheses), by the verdict:
//   pass:      "the picture: the median of the 10 runs the check made (comm
//               per iteration): this run 4.2 ms, the other 9 runs 2.1 to
//               12.3 ms; run 'one_bucket', 10 runs interleaved with them:
//               median 1.1 ms (0.9 to 10.2 ms)"
//   not shown: "not shown on this run: the 10 runs of each overlap (this
//               beat 2.1 to 12.3 ms, run 'one_bucket' 0.9 to 10.2 ms), so
//               no one picture shows the claim; the picture is the median
//               run: 4.2 ms"
//   fail:      as pass, led by "the runs show the opposite of the claim; ".
// With several iterations, this run's figure is followed by its
// iterations' and the one drawn: "4.2 ms (its iterations 5.92 and 2.48 ms;
// shown: iteration 2)"; other runs all equal to it read ", as are the
// other 7 runs". A claim against a number names it ("; the claim: below 0.30"; not shown:
// "the 16 runs straddle 0.30 (0.12 to 0.45)"). compared_in: "the picture:
// the median of 5 runs of this beat (comm per iteration): this run 1.2 ms,
// the other 4 runs 0.9 to 11.6 ms; beat 3 compares this figure on runs of
// its own" (beats numbered from 1, as the viewer shows them). "" for no runs.
std::string picture_caption(const PictureRuns& p);

}  // namespace microddp::lesson
