// The viewer: one plain view-state struct (Tracy / Dear ImGui demo style),
// the models it shows, and the actions the controls and keys trigger.
// draw_ui() (ui.cpp) draws one frame with ImGui; it needs an ImGui context and
// a NewFrame() but no GL, so tests drive it headless.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/viz/compare.h"
#include "app/viz/compare_runs_ddp.h"
#include "app/viz/ddp_view.h"
#include "app/viz/layout.h"
#include "app/viz/lesson_view.h"
#include "app/viz/palette.h"
#include "app/viz/present.h"
#include "app/viz/session.h"

namespace microddp::viz {

enum class View { main, compare, ddp };  // ddp: the DDP timeline (panel_ddp.cpp)

// A pixel whose colour the scene knows (for screenshot tests): screen
// coordinates and the expected colour.
struct Probe {
  int x = 0, y = 0;
  Rgba color;
  std::string what;
};

struct ViewState {
  RunParams edit;                  // what the controls show; applied when it differs
  PredictionSource source;         // the controls' "predict with"; applied when it differs
  // Until a source is picked (controls, --preset, --topology, --intra,
  // --inter, --nics-per-node), the source follows the run's nodes: a
  // topology (nvlink inside, infiniband across) on several nodes, the
  // calibrated profile on one (a lesson's beats move between them).
  bool source_follows_nodes = true;
  RunParams rejected = [] { RunParams p; p.spec.world_size = -1; return p; }();  // last failed (not retried)
  std::string error;               // why they failed
  View view = View::main;
  bool playing = false;
  float steps_per_second = 1.0f;
  double next_play_time = 0;
  double now = 0;                  // seconds, set by the caller each frame
  float anim = 1;                  // 0..1 progress of the step animation
  double anim_start = -1;
  float anim_seconds = 0.8f;
  bool static_frame = false;       // screenshots: no animation, badges mid-link
  bool handout = false;            // the PDF handout (handout.h): no presenter's key hints on its pages
  float font_px = 18;              // text size (projector control)
  std::vector<std::string> compare_algorithms;
  bool compare_sweep_requested = false;
  int compare_sweep_max_log2 = 26;  // the sweep's largest size, 2^k bytes (log slider)
  // Filled by the panels when collect_probes is set (screenshot tests).
  bool collect_probes = false;
  std::vector<Probe> probes;
  // Screen rectangle of the Step button as last drawn (tests click it).
  float step_button[4] = {0, 0, 0, 0};
  // Lesson panel: its Next button as last drawn (tests click it); the error
  // when a beat's setup could not be applied; what the panels show instead
  // of the beat's setup (BeatTarget::note).
  float lesson_next_button[4] = {0, 0, 0, 0};
  std::string lesson_error, lesson_note;
  // A beat's `view: topology`: the step-through's topology panel takes most
  // of the top row. lesson_sweep: what the compare sweep a beat started
  // measures (collective, ranks, algorithms, sizes), so that a later beat
  // asking for the same keeps the measured points.
  bool lesson_topology = false;
  std::string lesson_sweep;
  // --present: the lesson panel fits its text (panel_lesson.cpp). Each
  // frame the panel measures the height its content needs at the current
  // text scale (lesson_want_h, pixels, header and padding included); the
  // next frame's layout gives it up to kLessonMaxShare of the body (the
  // picture shrinks), and what still does not fit goes onto continuation
  // pages (lesson_scale stays 1: lesson_min_px is the font). lesson_fitting: the scale changed
  // this frame (a still waits for it to settle); lesson_clipped: the text
  // does not fit even so (a slide would cut it; tests assert it is false).
  // lesson_fit_key: the beat, answer state and size the fit was found for.
  float lesson_want_h = 0, lesson_scale = 1;
  bool lesson_fitting = false, lesson_clipped = false;
  std::string lesson_fit_key;
  // The same slide answered (or its checks in): the panel keeps the height
  // the question had (lesson_hold_h), so that the picture does not jump on
  // reveal; released when the answer does not fit it (the text is not
  // shrunk: lesson_min_px is the font). lesson_slide_key: the fit key
  // without the answer and checks state.
  std::string lesson_slide_key;
  bool lesson_hold_h = false;
  // DDP view with a lesson (--present, a handout page): the "How to read
  // it" paragraph below the lanes is never cut. When it ran past the DDP
  // region, ui.cpp gives the region a least height that holds it (while the
  // lesson panel has that room beyond its text's need) or a most height
  // that leaves it out (ddp_note_dropped), until the slide changes
  // (LayoutInput::ddp_adjust). ddp_note_shown: the paragraph was drawn
  // whole in the last frame; when not, the lesson panel's text ends with a
  // pointer to it (present.h kDdpNotePointer).
  float ddp_adjust = 0;
  bool ddp_note_dropped = false, ddp_note_shown = false;
  // A hang beat: the height (pixels) the hang view needs at the font's
  // size (hang_panel.cpp), the slide's picture least height; 0 otherwise.
  float hang_need_h = 0;
  // --present (or F5): no controls, the view takes the window, and the keys
  // of a presentation clicker step (keys.h); Esc leaves it.
  bool present = false;
  // As last drawn, in screen pixels (tests assert them inside the window):
  // each control's rectangle (label included) and each panel's.
  struct Drawn {
    std::string what;
    Rect r;
  };
  std::vector<Drawn> controls_drawn, panels_drawn;
  // Rank labels as last drawn ("timeline R3", "topology R3"): every rank
  // carries one. Also the timeline's axis labels ("timeline axis 0",
  // "timeline axis 72.5 us"), drawn once a step has run.
  std::vector<Drawn> labels_drawn;
  // Buffer rows as last drawn ("R0 accum"): the whole row, tag to last cell.
  std::vector<Drawn> rows_drawn;
  // Buffer rows outlined by a lesson's highlight this frame ("R0 send_buff B": tag, name, storage letter).
  std::vector<std::string> rows_lit;
  // Each buffer cell's value text as last drawn: the cell ("R0 accum [0, 1)"),
  // its values, what was drawn (the values, or "…" elided), the text size
  // in pixels, and the cell's and the text's rectangles.
  struct CellText {
    std::string what, value, shown;
    float px = 0;
    Rect cell, text;
  };
  std::vector<CellText> cell_texts;
  Layout layout;  // the layout of the last frame (compute_layout)
  // The buffers panel's text scale (1 = the window's text): below 1 when
  // its rows would otherwise scroll out of view; found again from 1 when
  // the panel's size, the text size or the run's shape changes.
  float buffers_scale = 1;
  std::string buffers_scale_key;
  // Too many ranks for their rows at the least text size (min_text_px): the
  // buffers panel draws one row per rank instead (build_buffers_crowd).
  bool buffers_crowd = false;
  // The compare view as last drawn, in screen pixels (layout tests): the
  // area below its controls ("area"), each column ("column naive"), each
  // column's text lines ("naive text 0".."naive text 3"), each drawn rank
  // label of a column's small topology ("naive R3"), and the sweep's parts
  // ("sweep plot" = the whole sweep region, "sweep axes" = the plot box,
  // "sweep header", "sweep legend", "sweep y label 10 us", "sweep x label 4 KiB").
  std::vector<Drawn> compare_drawn;
  // Per column (in order): true when the column was too short for a legible
  // topology drawing and shows only its text lines.
  std::vector<bool> compare_text_only;
};

struct App {
  ViewState vs;
  Session session;
  Compare compare;
  DdpView ddp;                         // the DDP view: runs run_ddp on a background thread
  DdpRunsCompare ddp_runs;             // --compare-runs of two DDP records (compare_runs_ddp.h)
  std::unique_ptr<LessonView> lesson;  // the open lesson (--lesson FILE), or null
  Presenter presenter;                 // speaker file, reveal, clock (present.h)
};

// Actions (shared by buttons and keys).
void action_step(App& app);
void action_back(App& app);
void action_reset(App& app);
void action_toggle_play(App& app);
// Lesson beats (no-ops without a lesson); the session follows in the next
// draw_ui (lesson_sync).
void action_next_beat(App& app);
void action_prev_beat(App& app);
// Applies vs.edit when it differs from what runs: re-plans and re-runs the
// main session and the compare columns. Errors go to vs.error.
void apply_params(App& app);
// Advances playback and the animation to time `now` (seconds).
void tick(App& app, double now);

// Draws one whole frame's UI (between ImGui::NewFrame and ImGui::Render).
void draw_ui(App& app);

}  // namespace microddp::viz
