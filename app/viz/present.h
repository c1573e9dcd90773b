// The presenter's kit of `microddp-viz --lesson FILE --present`: a speaker
// view written to a text file (--speaker FILE) for a second screen, the
// reveal key (R shows the current beat's answer and explanation on the
// projected screen, no typing) and the lecture clock (T: the beat's start).
// Plain C++ state in App (view_state.h); no GL, so tests drive it through
// the window's own frames (tests/app/test_present.cpp).
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record_io.h"

namespace microddp::viz {

struct App;

struct Presenter {
  // --speaker FILE: the current beat's speaker notes (core/labs/lesson/plan.h
  // speaker_notes with the clock, and what the projected screen shows of
  // the question), rewritten on every beat change, reveal or answer, and
  // once a second for the clock; "" = none.
  std::string speaker_file;
  // --reveal: every beat's answer is revealed as soon as it is shown (answer
  // slides with --screenshot / --export-frames).
  bool reveal_all = false;
  // The lecture clock: started by the first presenter_tick (the window
  // opening), restarted by T in present mode. It counts from the planned
  // start of the beat shown then (clock_offset_s, seconds): opened at
  // --beat 5 it reads beat 5's planned start, not "17:58 ahead".
  std::optional<std::chrono::steady_clock::time_point> start;
  double clock_offset_s = 0;
  // What the speaker file holds now ("" before the first write) and the
  // error of the last write that failed ("" when none; shown in the panel).
  std::string written, error;
  int writes = 0;  // files written so far (tests)
  // The class poll (P in present mode): the lecturer types how many
  // students picked each choice ("12,30,5"); the panel draws them as bars
  // under the question. polls: counts per beat (0-based), one per choice.
  bool poll_open = false;  // the entry field is shown (closed on a beat change)
  bool poll_focus = false; // give the field the keyboard in the next frame
  int beat = -1;           // the beat of the last presenter_tick
  std::string poll_typed, poll_error;
  std::map<int, std::vector<int>> polls;
  // Where the --present lesson panel (its text, question and checks) began
  // in the last frame: its top edge, window pixels from the top; -1 when
  // no lesson panel was drawn. The PDF handout's picture is the window
  // above it (handout.h handout_picture_rows).
  float lesson_top = -1;
  // A handout page's picture height (window pixels; handout.h
  // handout_picture_h): the layout gives the picture this much and the
  // lesson panel, not printed, the rest; 0 = the default split.
  float handout_picture_h = 0;
  // Continuation pages (issue 37): a slide whose text does not fit the
  // lesson panel at the least text size (lesson_min_px) is shown in pages
  // rather than shrunk further. page: the one shown (0-based; the clicker's
  // next key turns the page before it moves to the next beat); pages: how
  // many the last frame needed (1 when everything fits).
  int page = 0, pages = 1;
  // Set by present_prev when it steps back to the previous beat: that beat
  // opens on its last page (presenter_tick; kLastPage until a frame has
  // counted its pages), as a step back from slide to slide does.
  bool open_last_page = false;
  static constexpr int kLastPage = 1 << 20;
  // Per column of the panel (0: the beat's text and note, 1: question and
  // checks), in the column's content pixels: the tops of the lines drawn
  // in the last frame (the places a page may start), and the pages' starts
  // computed from them (starts[0] = the column's top).
  struct PageColumn {
    std::vector<float> lines, starts{0.f};
    // Per line of `lines`: 1 when no page may start there (the first line
    // after a heading: page_keep_next), so a heading never ends a page.
    std::vector<char> glued;
    float shift = 0;        // how far this frame's content is drawn up (the page's start - the column's top)
    float top = 0;          // the column's top (content pixels)
    bool clip = false;      // a clip rectangle was pushed (popped by end_page_column)
    // Lines on the column's last page as the breaks fall at the page's
    // height (before tail_balance moves one): a short tail when 1..2 of
    // kTailLines on a continuation page.
    int tail = 0;
  };
  PageColumn columns[2];
  bool columns_drawn[2] = {false, false};  // this frame (a slide without a question draws one)
  // Some column's content could not be split between lines to fit a page
  // (a single line taller than the panel): ViewState::lesson_clipped.
  bool unsplittable = false;
  bool pages_moved = false;  // this frame's page breaks differ from the last frame's (not settled)
  // A continuation page of one or two lines (lesson 09 b7's answer: "from
  // 1 MiB." alone on page 2) is avoided: first the text is shrunk a little
  // (fit_lesson, down to lesson_tail_px), so that it fits one page fewer;
  // when that does not do it, the text stays at the font's size and the
  // last page starts earlier, so that it holds kTailLines (tail_balance,
  // set by fit_lesson for this slide; end_page_column).
  static constexpr int kTailLines = 3;
  bool tail_balance = false;
  int tail_from = 0;  // the pages when the squeeze began (0: none): kept only when it saves a page
};

// R in present mode: the current beat's question is answered by the
// lecturer: LessonView's Answer gets answered and revealed (right stays
// false), so the panel shows "Answer: ..." and the explanation, and the
// checks and held-back figures appear as after a student's answer. No-op
// without a lesson, a question, or once answered.
void action_reveal(App& app);
// P in present mode: opens the poll's entry field on a multiple-choice
// beat (again: closes it); on another beat poll_error says why not.
void action_open_poll(App& app);
// Enter in the poll's field: parse_poll(typed) for the current beat; on
// success the counts are stored and the field closes, else poll_error
// says why and the field stays open. True on success.
bool submit_poll(App& app, const std::string& typed);
// Counts from "12,30,5" (spaces allowed; one whole number 0..100000 per
// choice, `choices` of them). Returns nullopt and sets *why ("3 counts for
// 4 choices; type one per choice, e.g. 12,30,5,1", "'x' is not a count
// (a whole number 0..100000)") otherwise.
std::optional<std::vector<int>> parse_poll(const std::string& typed, int choices, std::string* why);
// Each choice's share of the votes in whole percent, summing to exactly 100
// when any vote was cast (all 0 otherwise), by largest remainder: every
// share rounded down, then the points still missing go one each to the
// largest remainders (ties: the choice with more votes, then the earlier
// one). 1,1,4 -> 17,16,67 (rounding each gives 101); 1,1,1 -> 34,33,33.
std::vector<int> poll_percents(const std::vector<int>& counts);
// "1) 12 (25%) · 2) 30 (63%) · 3) 5 (10%) · 4) 1 (2%) · 48 votes" (poll_percents;
// "" without a poll on this beat).
std::string poll_line(const App& app);
// The poll's entry field, its error and the vote count, under the
// choices; and choice `choice`'s bar (votes, percentage) beside its text,
// from x = column_x in the window (present_draw.cpp; ImGui).
void draw_poll(App& app);
void draw_poll_bar(App& app, int choice, float column_x);

// --present's lesson panel fits its text (view_state.h lesson_want_h,
// lesson_scale): begin_fit_lesson, at the top of the panel, starts a fresh
// fit when the beat, its answer, checks, note or the window changed, and
// applies the text scale; fit_lesson, after drawing, takes `want` (the
// height in pixels the content needs at this scale), `have` and `need` (the
// columns' height and the taller column's content, pixels): it asks the
// layout for `want` (the picture above shrinks down to its least share,
// layout.h kLessonMaxShare); what still does not fit goes onto
// continuation pages, the text at the font's size (lesson_min_px);
// lesson_clipped when a single line does not fit a page (present_draw.cpp;
// ImGui).
inline constexpr float kLessonMinPx = 14;
// The least size of a slide's lesson text at a --font-px of `font_px`
// (pixels): the font's own (issue 37, lecturer pass 4: the text gets the
// room, from the picture and then on continuation pages, before it is
// shrunk; it was three quarters of the font, and answer slides at 18 px
// read at 14 px while the picture had room).
float lesson_min_px(float font_px);
// The least size to which a slide's text may be shrunk to save a
// continuation page of one or two lines (Presenter::tail_balance): 7/8 of
// the font, never below kLessonMinPx (18 px: 15.75; 28 px: 24.5).
float lesson_tail_px(float font_px);
// A DDP slide whose picture has no room for its "How to read it"
// paragraph (ui.cpp fit_ddp_note: never cut, left out whole) ends its text
// with this pointer.
inline constexpr const char* kDdpNotePointer =
    "(How to read the picture: the paragraph under the lanes of the window's DDP view, microddp-viz --ddp)";
void begin_fit_lesson(App& app);
void fit_lesson(App& app, float want, float have, float need);

// Continuation pages (present_draw.cpp; ImGui). In --present the lesson
// panel's columns (0 = the beat's text, 1 = question and checks) call
// begin_page_column right after their BeginChild and end_page_column after
// their content: the column shows the lines of the current page (from the
// page's start, those above drawn out of the child's top; below the next
// page's start clipped off), with "continued on the next page" in a band at
// the bottom while pages follow. page_line, before a line of text is
// drawn (the cursor at its start), records where a page may begin: pages
// break only between lines, so no line is cut. end_page_column puts the
// cursor back where the whole column's content ends (the panel's fit
// measures the whole text) and computes the column's pages for the next
// frame; Presenter::pages is the larger column's count, the other column
// shows its last page on the pages past its own. No-op outside --present.
void begin_page_column(App& app, int column);
void page_line();
// After a heading's last line ("Checks (real run)", "Question"): the next
// line page_line records may not start a page, so the heading goes with
// at least its first line (issue 37: lesson 07 beat 5's checks heading
// ended page 1 at --font-px 28, its first check on page 2). Where no other
// place to break is left on a page, the rule gives way (the page breaks
// there rather than cut a line).
void page_keep_next();
void end_page_column(App& app, int column);
// The clicker's next / previous key on a lesson slide: turn to the next
// (previous) page of this beat and return true, or false on its last
// (first) page (the caller moves to the next or previous beat).
bool next_page(App& app);
bool prev_page(App& app);
// The clicker's keys on a lesson in present mode (ui.cpp handle_keys):
// next turns the page, else goes to the next beat (its first page); prev
// turns back a page, else goes to the previous beat at its LAST page;
// home goes to beat 1, page 1 (also from beat 1's page 2). No ImGui.
void present_next(App& app);
void present_prev(App& app);
void present_home(App& app);
// " · page 2 of 3" for the slide's header; "" for a slide of one page.
std::string page_label(const App& app);

// --compare-runs A.json B.json (present_compare.cpp): the compare view's
// columns become replays of `runs` (titled "A: ring (a.json)", "B: ..."),
// stepped together. Throws UsageError / ScheduleError when a record does
// not fit its spec.
void compare_runs(App& app, const std::vector<RunRecord>& runs, const std::vector<std::string>& files);
// A --compare-runs column's title (Compare::titles): its letter, the
// record's collective and algorithm, world size (and nodes when more than
// one), the bytes per rank (spec.count elements of spec.dtype) and the
// file's name: "A: all_reduce ring · 4 ranks · 64 B per rank (16 float32) · a.json".
std::string compare_run_title(char letter, const RunRecord& run, const std::string& file);
// What makes runs `a` and `b` different problems (their algorithms and
// sizes may differ: that is what a comparison shows): the collective, the
// world size, the nodes, the dtype. "A and B differ: collective all_reduce
// vs all_gather, world size 4 vs 3", or "" when they agree.
std::string compare_runs_differ(const RunRecord& a, const RunRecord& b);

// What a slide of the current beat shows, for the export's log line:
// the step position ("after step 13 · 14 of 14 steps run") for a beat that
// steps a collective (a lab beat's stand-in too), else the beat's own state
// ("DDP view, the beat's training run: 4 ranks, 2 iterations", "hang view,
// the beat's hang-lab run", "no run of its own in the window (its checks
// run it)").
std::string slide_state(const App& app);

// T in present mode: the clock starts again, at the current beat's
// planned start (0:00 on the first beat).
void action_restart_clock(App& app);

// Once per lesson_sync (every frame with a lesson, and when the options
// open one): starts the clock, reveals the beat under --reveal, and
// rewrites the speaker file when its text changed (the second ticks).
void presenter_tick(App& app);

// The speaker file's text for the current beat at `elapsed_s` seconds:
// speaker_notes(lesson, beat, elapsed_s) and a last line saying what the
// projected screen shows of the question ("screen: question open (R
// reveals the answer)"; outside present mode the lesson panel and F5), "screen: answer revealed" /
// "answered, right" / "answered, not right", or none), the poll's counts ("poll: " + poll_line),
// and "page: P of N (...)" for a slide with continuation pages in present mode.
std::string speaker_text(const App& app, double elapsed_s);

// Writes `text` to `path` whole (a temporary file beside it, then a
// rename, so a viewer never reads half a file). Returns "" or why not.
std::string write_whole_file(const std::string& path, const std::string& text);

}  // namespace microddp::viz
