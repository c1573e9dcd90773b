// Where the window's panels go: a plain function of the window size, the
// text size, the view and whether a lesson is open, so tests can assert the
// layout without drawing it (and draw_ui places every panel from it).
// All lengths are in screen pixels, origin at the window's top-left.
#pragma once

namespace microddp::viz {

enum class View;

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
  // Inside `o`, allowing half a pixel for rounding.
  bool inside(const Rect& o) const {
    return x >= o.x - 0.5f && y >= o.y - 0.5f && right() <= o.right() + 0.5f && bottom() <= o.bottom() + 0.5f;
  }
  bool overlaps(const Rect& o) const { return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom(); }
};

struct LayoutInput {
  float width = 1280, height = 720;  // window (display) size
  float font_px = 18;                // text size
  View view{};                       // main when not set
  bool lesson = false;               // a lesson panel is open (main view)
  bool present = false;              // --present: no controls, the view takes the window
  bool topology_first = false;       // a lesson beat's `view: topology`: the topology panel takes most of the top row
  // Where the controls end (their measured height this frame, 0 when
  // hidden): they wrap or collapse with the text size, so draw_ui measures.
  float controls_bottom = 0;
  float pad = 8, gap = 8;            // ImGui's WindowPadding and ItemSpacing
  // DDP view: the timeline's lanes (one per rank and the communication
  // lane); 0 before a run, when nothing claims a least height.
  int ddp_lanes = 0;
  // --present with a lesson: the height the lesson panel's content needs
  // (pixels; 0 = no claim). The panel gets it, up to kLessonMaxShare of
  // the body, and the picture above takes the rest (more than its default
  // share when the text is short).
  float lesson_want_h = 0;
  // The panel may also be lower than its default share (the picture takes
  // the rest): not on a beat with a question, whose answer comes into the
  // same panel (the picture must not jump on the reveal).
  bool lesson_may_shrink = false;
  // DDP view with a lesson (a slide or a handout page): > 0 the DDP
  // region's least height (pixels; the lesson keeps its header and two
  // lines), < 0 minus its most; 0 none (ui.cpp fit_ddp_note: the "How to
  // read it" paragraph below the lanes fits whole, or is left out).
  float ddp_adjust = 0;
  // --present, main view: the picture's least height when it is known
  // (a hang beat's hang view: its rows and flight recorders at the font's
  // size, ViewState::hang_need_h); 0: kLessonMaxShare. The lesson panel
  // then may take the rest, up to kDdpLessonMaxShare.
  float picture_min_h = 0;
  // DDP view: the height of its header, stats and legend at ddp_text_px
  // (pixels, spacing included, as panel_ddp.cpp measured them in its last
  // frame: DdpDrawn::text_h); 0 = not known, kDdpMinHeaderLines lines.
  float ddp_text_h = 0;
  // DDP view: whether the run shown labels a call in the row under the
  // comm lane (DdpDrawn::label_row, its last frame); counted in the view's
  // least height only then (lesson 07's runs label every call inside its bar).
  bool ddp_label_row = true;
};

// --present, DDP view above a lesson at 36 px and up: the lesson panel
// keeps at least this many lines (its beat title, four lines of text and
// the "continued" band; at 40 px it kept four lines and paged the text one
// line at a time, issue 37, lesson 10 b5); the DDP view gives way.
inline constexpr float kDdpPresentLessonLines = 6;

// The most of the body's height a present-mode lesson panel may claim:
// the picture is shrunk down to its least share before the text goes onto
// continuation pages (present.h), and the text is never shrunk below the
// font (issue 37, lecturer pass 4: answer slides drew their text at 14 px
// while the picture above had room). The main view's picture keeps half
// of the body (at 0.68 lesson 09 beat 2's buffers were cut to their legend
// at --font-px 28); the DDP view's down to its lanes' least height
// (layout.cpp), at most kDdpLessonMaxShare taken from it.
inline constexpr float kLessonMaxShare = 0.5f;
inline constexpr float kDdpLessonMaxShare = 0.7f;
// In the compare view (panel_lesson.cpp draw_view_with_lesson): less, so
// that the columns and the sweep plot keep their lines at --font-px 28
// (issue 37: at 0.45 lesson 03's plot box was 50-90 px tall; the lesson's
// text goes on over continuation pages instead).
inline constexpr float kCompareLessonMaxShare = 0.30f;
// --present with a lesson: the compare view's sweep plot box (its axes,
// without the header and labels) keeps at least this share of the
// window's height, 180 px at 1280x720; the columns drop their mini
// topologies first (panel_compare.cpp).
inline constexpr float kPresentPlotBoxShare = 0.25f;

struct Layout {
  Rect window, body;                           // body: below the controls
  // Main view: topology | buffers over timeline | stats (or the lesson).
  Rect topology, buffers, timeline, side;
  // Compare view: the region panel_compare draws into (columns and sweep).
  Rect compare;
  // DDP view: the region panel_ddp draws into (its own controls unless
  // --present, the run's header and stats, the legend, the timeline); with a
  // lesson open, the lesson panel is `side`, below it.
  Rect ddp;
  float ddp_base_h = 0;  // the DDP region's height before ddp_adjust
};

// The DDP timeline's lanes are at least this many lines of text tall: a
// lane shows its rank label and the bars' layer names ("L3") at the text
// size, with a margin. Two lines would not fit five lanes, the axis and a
// lesson's beat in 720 px at 40 px text.
inline constexpr float kDdpMinLaneLines = 1.25f;

// The DDP view's texts above the timeline (header, stats, legend) shrink
// to fit above the lanes' least height, down to this text size (pixels),
// and are cut off below it.
inline constexpr float kDdpMinTextPx = 14;
// The size those texts keep while the view has the room (pixels): 5/7 of
// the font, no less than kDdpMinTextPx nor more than the font: 14 px at 18,
// 20 px at 28 (issue 37, lecturer pass 7: at 14 px the header and legend
// were small on a projector beside 28 px text). The lanes give way to one
// line of text before the texts go below it, and a slide's layout at 28 px
// and up counts them at this size (ddp_view_min_height); only a region
// smaller still (a 40 px slide, where the lesson keeps its six lines)
// shrinks them further, down to kDdpMinTextPx.
inline constexpr float kDdpTextShare = 5.f / 7;
float ddp_text_px(float font_px);

// The least text size (pixels) the window draws: in --present, readable
// from the back of a lecture hall (tests/app/test_text_size.cpp reads every
// glyph of a frame back and holds it to this); elsewhere the panels' old
// floors, small but legible on a laptop (9 px). Labels that would come out
// smaller are left out (every k-th rank labelled), values move to the hover.
inline constexpr float kPresentMinTextPx = 14;
inline constexpr float kDeskMinTextPx = 9;
inline float min_text_px(bool present) { return present ? kPresentMinTextPx : kDeskMinTextPx; }

// The gap between two DDP lanes at font_px (pixels).
float ddp_lane_gap(float font_px);

// The DDP timeline's least height (pixels) with `lanes` lanes at font_px:
// the lanes at kDdpMinLaneLines lines each, the gaps between them and the
// time axis below (a line and 6 px, then 4 px), as panel_ddp.cpp draws
// them. The texts above the timeline (header, stats, legend) give way to it.
float ddp_timeline_min_height(int lanes, float font_px);
// The same with lanes `lane_lines` lines of text tall: a slide at 36-40 px
// above a lesson's text lets its lanes go down to one line (their names and
// "L3" still fit) before the texts above are cut (panel_ddp.cpp).
float ddp_timeline_height(int lanes, float font_px, float lane_lines);

// The row under the DDP comm lane that labels the calls too short for
// their label (panel_ddp_plot.cpp): its labels' text size, the font's up
// to kDdpLabelMaxPx (12 labels of "AG L2" fit one row of a 1280 px window
// at 28 px, not at 40: issue 37, lesson 10 b5 ran off the window's right
// edge), and the row's height, a line of that text and 6 px (pixels).
inline constexpr float kDdpLabelMaxPx = 28;
float ddp_label_px(float font_px);
float ddp_label_row_height(float font_px);

// The DDP view's least height on a slide (pixels), what --present at 28
// px and up gives way to for a long lesson text: the header, stats and
// legend, `text_h` pixels tall at ddp_text_px (panel_ddp.cpp measures
// them; 0: kDdpMinHeaderLines lines of that size, `gap` apart), the
// timeline with its lanes a line of text tall (ddp_timeline_height) and,
// when `label_row`, the comm label row (lesson 10 b4's FSDP run needs it;
// lesson 07's runs do not). 324 px at 28 px with an 8 px gap, the row and
// no measure.
inline constexpr float kDdpMinHeaderLines = 3;
float ddp_view_min_height(int lanes, float font_px, float gap, float text_h = 0, bool label_row = true);

// True when the run controls no longer fit a line or two at this text size:
// they fold into a "Setup" popup and the transport row stays.
bool compact_controls(float width, float font_px);

// The panels' rectangles. With a lesson open the lesson panel takes the
// whole lower half (below the DDP view, the lower 38%); with large text (or
// --present) the top row, where the buffers are, gets a larger share. The
// DDP view draws its controls inside its own region, so its body starts at
// the top whatever controls_bottom says; above a lesson it takes 62% of the
// height, more when its lanes (ddp_lanes) need it at large text: their
// least height and three lines of text, the lesson keeping its tabs, its
// beat navigation and two lines of its text (which scrolls).
Layout compute_layout(const LayoutInput& in);

}  // namespace microddp::viz
