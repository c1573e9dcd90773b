// One function per panel (one file each). Each first builds its plain scene
// (scene.h) and then only draws it.
#pragma once
#include <imgui.h>

#include "app/viz/scene.h"
#include "app/viz/units.h"
#include "app/viz/view_state.h"

namespace microddp::viz {

void draw_controls(App& app);                  // panel_controls.cpp
void draw_topology(App& app, const Session& s, int position, ImVec2 size, bool compact);  // panel_topology.cpp
void draw_buffers(App& app);                   // panel_buffers.cpp
void draw_timeline(App& app);                  // panel_timeline.cpp
void draw_stats(App& app);                     // panel_stats.cpp
void draw_compare(App& app);                   // panel_compare.cpp
void draw_lesson(App& app);                    // panel_lesson.cpp
void draw_ddp(App& app);                       // panel_ddp.cpp (the DDP view: its own controls, none in present mode)
// The DDP view's plot of iteration `iteration` of r, in the space left (panel_ddp_plot.cpp).
void draw_ddp_plot(const ddp::Result& r, int iteration, DdpDrawn& drawn);
// Beside the prediction source (panel_controls.cpp): while no calibration
// profile exists, the quick calibration's button, then its progress bar
// (panel_calibrate.cpp).
void draw_quick_calibrate(App& app);

// Lesson highlights (panel_lesson.cpp). lesson_sync drives the session to the
// current beat's setup and step when the beat changed (re-planning through
// vs.edit when the setup differs) and puts the window in the beat's view
// (step-through, compare with its algorithms and sweep, DDP with its options,
// topology in front). The highlight colour outlines what the
// beat points at in the topology and buffers panels.
void lesson_sync(App& app);
ImU32 lesson_highlight_color();
// The compare view with the lesson panel below it (a lesson is open and its
// beat, or the user, picked that view). The DDP view places its lesson panel
// from compute_layout (ui.cpp).
void draw_view_with_lesson(App& app);

// The position whose values the buffers panel shows (ui.cpp): the session's,
// or one step earlier while the open lesson's question would be answered by
// them (LessonView::buffers_position).
int buffers_position(const App& app);

// Shared drawing helpers (ui.cpp).
inline ImU32 im(Rgba c) { return packed(c); }
inline ImVec2 iv(Vec2 v, ImVec2 o) { return ImVec2(o.x + v.x, o.y + v.y); }
// A cell or badge filled with vertical stripes, one per colour.
void fill_stripes(ImDrawList* dl, ImVec2 a, ImVec2 b, const std::vector<Rgba>& stripes);

// Anti-aliased lines for one scope of drawing. The style turns them off
// (setup_style: the panels' lines are axis-aligned and crisp without, and
// each fringe costs a software rasteriser); curves, circles and diagonals
// turn them back on with this.
class SmoothLines {
 public:
  explicit SmoothLines(ImDrawList* dl) : dl_(dl), saved_(dl->Flags) {
    dl->Flags |= ImDrawListFlags_AntiAliasedLines | ImDrawListFlags_AntiAliasedLinesUseTex;
  }
  ~SmoothLines() { dl_->Flags = saved_; }
  SmoothLines(const SmoothLines&) = delete;
  SmoothLines& operator=(const SmoothLines&) = delete;

 private:
  ImDrawList* dl_;
  ImDrawListFlags saved_;
};
// Rank colour legend on one wrapped line, plus the "complete" swatch.
void draw_legend(int n, bool reducing);
std::string contributors_text(uint64_t mask, int n);
// The position slider's text, with the 0-based step numbers the topology
// title and the CLI print ("step 0 of 2" is the first of two steps):
// "before step 0 of 2", "after step 0 of 2", "after step 1 of 2" (the end);
// "no steps" when total is 0. printf-safe (no '%'). Short: it must fit the
// slider.
std::string position_text(int position, int total);
// The line over the buffers while a question holds them before the beat's
// step: position is the shown position (buffers_position), current the
// session's (> position): "buffers before step 0; step 0's result once you
// answer", or "... steps 0-2' results ..." for several steps.
std::string buffers_wait_text(int position, int current);
// The name of what a run executes (the topology title): spec.algorithm, or
// for a broken run (RunParams::broken) "single_buffered_ring (one buffer,
// sends delayed)" ("(one buffer)" without a delay).
std::string run_algorithm_name(const RunParams& p);
// A tooltip with the given text when the mouse is inside [a, b).
bool hovered_rect(ImVec2 a, ImVec2 b);
// The topology canvas's channel strips and protocol flag words
// (TopologyScene::channels, protocol; panel_nccl.cpp), with their tooltips.
void draw_nccl_strips(ImDrawList* dl, ImVec2 origin, const TopologyScene& sc);

}  // namespace microddp::viz
