// Internal to the compare view's panel (panel_compare.cpp: the columns and
// controls; panel_compare_plot.cpp: the sweep plot): the helpers both use.
#pragma once
#include <imgui.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app/viz/compare_plot_place.h"
#include "app/viz/panels.h"

namespace microddp::viz::compare_panel {

inline void rec(ViewState& vs, std::string what, ImVec2 a, ImVec2 b) {
  vs.compare_drawn.push_back({std::move(what), Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
}
inline void rec_item(ViewState& vs, std::string what) { rec(vs, std::move(what), ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }
inline void rec_control(ViewState& vs, const std::string& what) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  vs.controls_drawn.push_back({what, Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
}

// Starts the next item on this line when `w` pixels still fit, else on the
// next line (large text wraps instead of running off the window).
inline void same_line_if_fits(float w) {
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
}


// The window's compare view under an open lesson (no --present): the height
// in pixels the lesson_view child needs for its controls whole, the
// columns' text and a sweep plot of kDeskPlotShare of the window (issue 37:
// lesson 03 beat 9's plot was 55 px, its count field and source picker
// cut), as the last frame's draw_compare measured it; 0 when it drew none.
// draw_view_with_lesson (panel_lesson.cpp) gives the view that height, the
// lesson below keeping at least a few lines (it scrolls).
inline constexpr float kDeskPlotShare = 1.f / 3;
float desk_compare_want_h();

// The crossover in few words for the sweep's short header (the full
// sentence is Compare::crossover, on hover): "ring fastest from 256 KiB
// (1 MiB predicted)" or "ring not fastest up to 16 MiB" from the dots; a
// source without dots (the model) says only its line's: "ring fastest from
// 64 B (model)". "" when there is no crossover to say.
std::string short_crossover(const Compare& cmp);

// Is the compare view's crossover held back (its lines, labels, ratio
// strip)? While a lesson's question, on this beat or a later one, asks for
// it (LessonView::withholds: lesson 03 beat 5), or while the beat's open
// question is a multiple choice (it can be about which algorithm wins).
// A numeric question about something else (lesson 05 beat 7's α) does not
// hide it.
bool crossover_hidden(const App& app);
// Is the beat about the crossover (issue 37: lesson 05 beat 7 drew the
// crossover markers beside a question about α)? True outside a lesson;
// on a lesson's beat when its text names the crossover or who leads
// (crossover_words), or its question, once answered, asks for it (its ask
// or explanation names it, or its numeric answer is the predicted
// crossover in bytes).
bool beat_about_crossover(const App& app);
// The words that make a beat's text about the crossover, whole words,
// any case: "crossover", "cross", "overtaken", "ahead", "fastest", "lead", ...
bool crossover_words(const std::string& text);
// Are the crossover's markers (the dashed lines, their labels, the ringed
// dot), its sentence in the header and the ratio strip drawn? Not while
// hidden (crossover_hidden), nor on a beat not about it.
inline bool crossover_shown(const App& app) { return !crossover_hidden(app) && beat_about_crossover(app); }
// The caption while it is: kCrossoverWaits when a question asks for the
// crossover itself, else kCrossoverQuestionOpen.
std::string crossover_caption(const App& app);
inline constexpr const char* kCrossoverWaits = "the crossover shows once its question is answered";
inline constexpr const char* kCrossoverQuestionOpen = "the crossover shows once the question is answered";
// A lesson beat's own size marked on the sweep's x axis, bytes per rank
// (the compare run's count × its dtype's bytes); -1 outside a lesson's
// compare beat, on a source other than shm, or while a question asks for
// that size (LessonView::withholds).
double beat_size_bytes(const App& app);
// Do the columns withhold their predicted times (the beat's question is
// open: lesson 03 beat 5's cards showed tree 11.5 µs against ring 12.7 µs
// while it asked where the ring overtakes)?
bool column_predictions_hidden(const App& app);

// A column's text lines, (text, drawn in the predicted colour): the
// busiest rank's bytes, the stepped run's measured time ("one stepped run,
// with barriers: 17.9 ms", mid-run "(2 of 14 steps run)"; "stepped run:
// 17.9 ms" when that is wider than `width` pixels at the current font) and
// the prediction of the same steps. Needs an ImGui frame (text widths).
// hide_prediction: the prediction's line says kPredictionWaits instead
// ("predicted: shown once you answer the question").
std::vector<std::pair<std::string, bool>> column_lines(const Session& s, float width, bool hide_prediction = false);

// --compare-runs' column strips (compare_runs_strips.cpp): the run's
// buffers at its shown step (a bar per rank, coloured as the crowd view)
// and its timeline (a lane per rank), `width` pixels wide at the cursor;
// recorded as "<alg> buffers" and "<alg> timeline". run_strips_height: the
// pixels they take for `ranks` ranks at the current font.
void draw_run_strips(App& app, const std::string& alg, const Session& s, float width);
float run_strips_height(int ranks);

// The sweep's ratio strip in the box q0..q1 (panel_compare_ratio.cpp): x
// the swept sizes xmin..xmax (bytes, log), y each algorithm's predicted
// time over the fastest's, from 1x; its largest size's label ends by `right`,
// its "1×" left of q0 (the caller leaves that gap clear of the plot's box).
// Its labels are recorded as "sweep ratio label 1x", "sweep ratio x label
// 4 KiB", "sweep ratio title", "sweep ratio top label".
void draw_ratio_strip(App& app, ImDrawList* dl, ImVec2 q0, ImVec2 q1, double xmin, double xmax, float right);

// What the plot draws, in the words of its marks (issue 37, lesson 09 beat
// 13 at 28 px captioned a bar chart "dots measured"): "dots measured,
// lines predicted", "dots measured", "lines predicted", for one size
// (one_size, size_bars.h) "bars measured, ticks predicted" or "bars
// measured"; "" with no sweep.
std::string what_is_drawn(const Compare& cmp);
// A short plot's one line above its box on a slide (at --font-px 28 the tag
// inside the box covered the lines): "Source: " + the source in a few words
// + " · " + what_is_drawn.
std::string brief_caption(const Compare& cmp);

// The sweep's header text as draw_sweep_plot writes it above the box at
// `width` pixels (shortened at large text; `brief`: a short area). One
// size's bars on a short slide: "Time at 4 MiB per rank: bars the median of
// 5 iterations (whiskers p10-p90), ticks the lab's model." (the source on
// the caption's line above it, brief_caption). Needs an ImGui frame.
std::string sweep_header_text(const App& app, float width, bool brief);

// The sweep plot (header, legend, axes, dots, lines, crossovers) in `size`
// at the cursor; brief: the short header (a short area).
void draw_sweep_plot(App& app, ImVec2 size, bool brief);
// The sweep plot's box and scales, for its labels.
struct PlotFrame {
  ImVec2 p0, p1;          // the plot box, screen pixels
  double xmin, xmax;      // the sizes swept, bytes
  float inset, spread_px; // sizes map inside the box by `inset`; the curves' dots sit spread_px apart
  std::function<float(double)> X, Y;  // bytes -> x, µs -> y
};
// The plot's markers and labels (compare_plot_labels.cpp), each label
// where none of the drawn lines `segs` crosses it and it covers none of
// `marks` (the dots, error bars, labels placed; compare_plot_place.h) and
// never over another label (`texts`, the labels placed: one with no spot
// clear of them is left out; the model's note also where no spot is free
// of lines and dots):
// the crossovers' dashed lines (their segments added to `segs`), labels
// and marked points (while crossover_shown), the beat's size as a tick on
// the x axis and "this beat: 363 KiB" (beat_size_bytes), and the model's
// "not this machine" note (model_not_here_label). Recorded as "sweep
// crossover (...)", "sweep beat size ...", "sweep model not here"; the
// dashed lines as "sweep segment crossover (...)", from (x, y) to
// (x + w, y + h) as the plot's other "sweep segment" records.
void draw_plot_labels(App& app, ImDrawList* dl, const PlotFrame& f, std::vector<Segment>& segs,
                      std::vector<Rect>& marks, std::vector<Rect>& texts);
// Height the sweep needs besides its plot box.
float sweep_overhead(const App& app, float width, bool brief);

}  // namespace microddp::viz::compare_panel
