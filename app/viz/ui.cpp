#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

#include "app/viz/hang_view.h"
#include "app/viz/keys.h"
#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "assets/palette.h"

namespace microddp::viz {

void fill_stripes(ImDrawList* dl, ImVec2 a, ImVec2 b, const std::vector<Rgba>& stripes) {
  if (stripes.size() > 1) {
    static thread_local std::vector<uint32_t> packed_colours;
    packed_colours.clear();
    for (const Rgba& c : stripes) packed_colours.push_back(im(c));
    if (stripe_quad(dl, a, b, packed_colours.data(), static_cast<int>(packed_colours.size()))) return;
  }
  const int m = std::max<int>(1, static_cast<int>(stripes.size()));
  const float w = (b.x - a.x) / float(m);
  for (int i = 0; i < m; ++i) {
    const float x0 = a.x + w * float(i), x1 = i == m - 1 ? b.x : a.x + w * float(i + 1);
    dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(x1, b.y), im(stripes.empty() ? empty_color() : stripes[i]));
  }
}

std::string contributors_text(uint64_t mask, int n) {
  std::string s;
  for (int r = 0; r < n; ++r)
    if (mask >> r & 1) s += (s.empty() ? "R" : ", R") + std::to_string(r);
  return s.empty() ? "nothing yet" : s;
}

int buffers_position(const App& app) {
  const int p = app.session.position();
  return app.lesson ? app.lesson->buffers_position(p) : p;
}

bool hovered_rect(ImVec2 a, ImVec2 b) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  return ImGui::IsWindowHovered() && m.x >= a.x && m.x < b.x && m.y >= a.y && m.y < b.y;
}

void draw_legend(int n, bool reducing) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sz = ImGui::GetTextLineHeight();
  const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x;
  for (int r = 0; r < n; ++r) {
    const std::string label = fmt::format("R{}", r);
    const float w = sz + 4 + ImGui::CalcTextSize(label.c_str()).x + 10;
    if (r > 0) {
      ImGui::SameLine(0, 0);
      if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sz, p.y + sz), im(rank_color(r)));
    ImGui::Dummy(ImVec2(sz + 4, sz));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine(0, 10);
    ImGui::Dummy(ImVec2(0, sz));
  }
  if (reducing && n > 1) {
    ImGui::SameLine(0, 6);
    if (ImGui::GetCursorScreenPos().x + sz + 4 + ImGui::CalcTextSize("all ranks (complete)").x > right) ImGui::NewLine();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, ImVec2(p.x + sz, p.y + sz), im(complete_color()));
    ImGui::Dummy(ImVec2(sz + 4, sz));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted("all ranks (complete)");
  }
}

void action_step(App& app) {
  if (app.vs.view == View::compare) {
    app.compare.step();
  } else if (!app.session.step()) {
    return;
  }
  app.vs.anim = 0;
  app.vs.anim_start = app.vs.now;
}

void action_back(App& app) {
  if (app.vs.view == View::compare) app.compare.back();
  else app.session.back();
  app.vs.anim = 1;
}

void action_reset(App& app) {
  app.vs.playing = false;
  app.session.reset();
  app.compare.reset();
  app.vs.anim = 1;
}

void action_toggle_play(App& app) {
  app.vs.playing = !app.vs.playing;
  if (app.vs.playing) {
    const bool at_end = app.vs.view == View::compare ? app.compare.position >= app.compare.max_steps()
                                                     : app.session.position() >= app.session.num_steps();
    if (at_end) action_reset(app), app.vs.playing = true;
    app.vs.next_play_time = app.vs.now;
  }
}

void apply_params(App& app) {
  ViewState& vs = app.vs;
  if (vs.source_follows_nodes) {
    using Kind = PredictionSource::Kind;
    vs.source.kind = vs.edit.spec.nodes > 1 ? Kind::topology : Kind::profile;
  }
  if (!(vs.source == app.session.source())) {
    // Re-prices only (an "auto" run may re-plan); the run stays.
    try {
      app.session.set_source(vs.source);
      app.compare.set_source(vs.source);
      vs.error.clear();
    } catch (const std::exception& e) {
      vs.error = e.what();
      vs.source = app.session.source();
    }
  }
  if (vs.edit == app.session.params() && app.session.configured()) return;
  if (vs.edit == vs.rejected) return;
  try {
    app.session.configure(vs.edit);
    vs.error.clear();
    vs.rejected = RunParams{};
    vs.rejected.spec.world_size = -1;
    vs.anim = 1;
    vs.playing = false;
    if (vs.compare_algorithms.empty() || app.compare.base.spec.collective != vs.edit.spec.collective)
      vs.compare_algorithms = Compare::default_algorithms(vs.edit.spec.collective);
    app.compare.configure(vs.edit, vs.compare_algorithms);
  } catch (const std::exception& e) {
    vs.error = e.what();
    vs.rejected = vs.edit;
  }
}

void tick(App& app, double now) {
  ViewState& vs = app.vs;
  vs.now = now;
  // The live cluster lab measures for the compare view alone: leaving the
  // view stops it (its processes ended and reaped, LabJob::stop).
  if (vs.view != View::compare && app.compare.lab_running()) app.compare.stop_lab("the compare view was left");
  if (vs.static_frame) {
    vs.anim = 1;
    return;
  }
  if (vs.anim < 1) vs.anim = std::clamp(float((now - vs.anim_start) / vs.anim_seconds), 0.f, 1.f);
  if (vs.playing && now >= vs.next_play_time) {
    const bool at_end = vs.view == View::compare ? app.compare.position >= app.compare.max_steps()
                                                 : app.session.position() >= app.session.num_steps();
    if (at_end) {
      vs.playing = false;
    } else {
      action_step(app);
      vs.anim_seconds = std::min(0.8f, 0.8f / vs.steps_per_second);
      vs.next_play_time = now + 1.0 / std::max(0.1f, vs.steps_per_second);
    }
  }
}

namespace {

// The DDP view's iteration selector by a clicker key: +1 / -1 / 0 = the
// first iteration. DdpView::iteration -1 means the last one.
void ddp_iteration_key(App& app, int delta) {
  const auto r = app.ddp.runner.result();
  if (!r || r->timelines.empty()) return;
  const int n = static_cast<int>(r->timelines.size());
  const int now = app.ddp.iteration < 0 ? n - 1 : std::min(app.ddp.iteration, n - 1);
  const int next = delta == 0 ? 0 : std::clamp(now + delta, 0, n - 1);
  app.ddp.iteration = next == n - 1 ? -1 : next;
}

// The keys. Present mode takes a presentation clicker's keys: Right, Page
// Down or Space step (a beat in a lesson, an iteration in the DDP view),
// Left or Page Up step back (a lesson slide's continuation pages are
// turned first), Home starts over, R reveals a lesson beat's
// answer, P opens its class poll, T sets the lecture clock to the beat's
// planned start, Esc closes the poll's field when it is open (its typed
// text dropped) and else leaves present mode; F5 enters it.
void handle_keys(App& app) {
  ViewState& vs = app.vs;
  if (vs.present && app.presenter.poll_open && key_pressed_while_typing(Key::escape)) {
    // Esc in (or beside) the poll's field: the field closes, present mode stays.
    app.presenter.poll_open = false;
    app.presenter.poll_focus = false;
    app.presenter.poll_typed.clear();
    app.presenter.poll_error.clear();
    return;
  }
  if (vs.present) {
    const bool next = key_pressed(Key::step) || key_pressed(Key::page_down) || key_pressed(Key::play);
    const bool prev = key_pressed(Key::back) || key_pressed(Key::page_up);
    const bool ddp = !app.lesson && vs.view == View::ddp;
    // A lesson slide's continuation pages first (present.h), then the next beat.
    if (next) app.lesson ? present_next(app) : ddp ? ddp_iteration_key(app, +1) : action_step(app);
    if (prev) app.lesson ? present_prev(app) : ddp ? ddp_iteration_key(app, -1) : action_back(app);
    if (key_pressed(Key::home)) {
      if (app.lesson) present_home(app);
      else if (ddp) ddp_iteration_key(app, 0);
      else action_reset(app);
    }
    if (key_pressed(Key::reveal)) action_reveal(app);  // present.h: the lecturer's reveal, no typing
    if (key_pressed(Key::clock)) action_restart_clock(app);
    if (app.lesson && key_pressed(Key::poll)) action_open_poll(app);
    if (key_pressed(Key::escape)) vs.present = false;
    return;
  }
  if (key_pressed(Key::step)) action_step(app);
  if (key_pressed(Key::back)) action_back(app);
  if (key_pressed(Key::play)) action_toggle_play(app);
  if (key_pressed(Key::reset)) action_reset(app);
  if (app.lesson && key_pressed(Key::next_beat)) action_next_beat(app);
  if (app.lesson && key_pressed(Key::prev_beat)) action_prev_beat(app);
  if (key_pressed(Key::present)) vs.present = true;
}

// What compute_layout needs of this frame: the window, the text size, the
// view and where the controls drawn so far end (0 when none are).
LayoutInput layout_input(const App& app, float controls_bottom) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImGuiStyle& style = ImGui::GetStyle();
  LayoutInput in;
  in.width = io.DisplaySize.x;
  in.height = io.DisplaySize.y;
  in.font_px = ImGui::GetFontSize();
  in.view = app.vs.view;
  in.lesson = app.lesson != nullptr;
  in.present = app.vs.present;
  in.topology_first = app.vs.lesson_topology;
  in.controls_bottom = controls_bottom;
  in.pad = style.WindowPadding.x;
  in.gap = style.ItemSpacing.y;
  // A handout page prints the text below the picture: the panel keeps its
  // default share and the picture above it is what the page shows.
  in.lesson_want_h = app.vs.present && app.lesson && !app.vs.handout ? app.vs.lesson_want_h : 0.f;
  // A hang beat's picture takes the room its rows need at the font's size
  // (present_draw.cpp fit_lesson), a question's too.
  in.lesson_may_shrink = app.lesson && (!app.lesson->current().question ||
                                        (app.vs.present && app.lesson->current().kind == lesson::Beat::Kind::hang));
  in.picture_min_h = app.vs.present && !app.vs.handout ? app.vs.hang_need_h : 0.f;
  // A handout page with room for more picture (handout.h handout_picture_h):
  // the picture takes it, the lesson panel (not printed) the rest.
  if (app.vs.handout && app.lesson && app.presenter.handout_picture_h > 0) {
    in.lesson_want_h = std::max(1.f, in.height - in.pad - in.gap / 2 - app.presenter.handout_picture_h);
    in.lesson_may_shrink = true;
  }
  return in;
}

// A bordered child window at the layout's rectangle, recorded as drawn.
bool begin_panel(ViewState& vs, const char* id, const Rect& r, ImGuiWindowFlags flags = 0) {
  ImGui::SetCursorScreenPos(ImVec2(r.x, r.y));
  vs.panels_drawn.push_back({id, r});
  return ImGui::BeginChild(id, ImVec2(r.w, r.h), true, flags);
}

// The text scale (at most 1) at which the buffers panel's content fits a
// w x h content region without scrolling, found by bisection over the
// buffers scene. Mirrors panel_buffers.cpp's measures (rows of 1.35 lines,
// the legend above, ranks side by side only when they would not fit one
// under the other and every value still fits its cell, as
// build_buffers_arranged decides); the measurement after drawing
// (buffers_panel) corrects it.
float buffers_fit_scale(const Session& ses, int position, float w, float h, bool present, bool& crowd) {
  crowd = false;
  const int n = ses.schedule().world_size();
  const float fs1 = ImGui::GetFontSize(), line1 = ImGui::GetTextLineHeightWithSpacing();
  const auto need = [&](float s) {
    const float fs = fs1 * s, line = line1 * s;
    // The legend: one swatch and name per rank, wrapped.
    float legend_w = 0;
    for (int r = 0; r < n; ++r) legend_w += fs + 14 + ImGui::CalcTextSize(fmt::format("R{}", r).c_str()).x * s;
    legend_w += fs + 10 + ImGui::CalcTextSize("all ranks (complete)").x * s;
    const float legend_h = line * std::ceil(legend_w / std::max(w, 1.f));
    BuffersLayout lay;
    lay.width = w - ImGui::GetStyle().ScrollbarSize;
    lay.row_h = std::round(fs * 1.35f);
    lay.row_gap = std::round(fs * 0.15f);
    lay.rank_gap = std::round(fs * 0.7f);
    lay.char_w = ImGui::CalcTextSize("0").x * s;
    lay.tag_w = rank_tag_width(lay.char_w, ImGui::CalcTextSize("R00").x * s);
    lay.label_w = ImGui::CalcTextSize("send_buff").x * s + lay.char_w * 2.5f;
    lay.col_gap = fs;
    lay.swap_w = ImGui::CalcTextSize("swap").x * s + lay.char_w * 4;
    BuffersScene sc = build_buffers_arranged(ses, position, lay, h - legend_h - line);
    return legend_h + sc.height + (sc.values ? 0.f : line);
  };
  if (need(1) <= h) return 1;
  // Not below the least text size (min_text_px: 9 px, 14 in --present):
  // every rank stays in view (16 ranks at 28 px), as small as a label can
  // still be read. Where even that does not fit, one row per rank
  // (panel_buffers.cpp's crowd view, build_buffers_crowd): its legend and
  // two lines above rows of 1.2 lines, at the largest scale that fits.
  const float floor_s = std::min(1.f, min_text_px(present) / fs1);
  float lo = floor_s, hi = 1;
  const auto crowd_need = [&](float s) {
    const float fs = fs1 * s, line = line1 * s;
    BuffersLayout lay;
    lay.width = w - ImGui::GetStyle().ScrollbarSize;
    lay.row_h = std::round(fs * 1.2f);
    lay.row_gap = std::round(fs * 0.15f);
    lay.char_w = ImGui::CalcTextSize("0").x * s;
    lay.tag_w = ImGui::CalcTextSize("R00").x * s + lay.char_w * 1.2f;
    lay.col_gap = fs;
    const float legend_w = ImGui::CalcTextSize("one rank's data (its colour) partial sum most ranks all ranks").x * s + 6 * fs;
    const float above = line * (std::ceil(legend_w / std::max(w, 1.f)) + 2);
    return above + build_buffers_crowd(ses, position, lay, h - above).buffers.height;
  };
  crowd = need(floor_s) > h;
  const auto& fits = [&](float s) { return (crowd ? crowd_need(s) : need(s)) <= h; };
  if (crowd && fits(1)) return 1;
  for (int i = 0; i < 7; ++i) {
    const float mid = (lo + hi) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The buffers panel at its text scale; then, from what it drew, the scale
// at which its rows fit without scrolling (used from the next frame on).
// Only shrinks while the panel and the run keep their shape, so the choice
// between one and several columns of ranks cannot flip back and forth.
void buffers_panel(App& app, const Rect& r) {
  ViewState& vs = app.vs;
  const CollectiveSpec& sp = app.session.schedule().spec;
  // Before the beat's step (an open question), a line above the rows says so.
  const int shown = buffers_position(app);
  const bool before_note = shown != app.session.position();
  const std::string key = fmt::format("{}x{} {} {} {} {} {} {} {} {}", r.w, r.h, ImGui::GetFontSize(), sp.world_size,
                                      sp.count, name(sp.collective), sp.algorithm, sp.in_place, before_note, vs.present);
  if (key != vs.buffers_scale_key) {
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    const float note_h = before_note ? ImGui::GetTextLineHeightWithSpacing() : 0.f;
    vs.buffers_scale_key = key;
    vs.buffers_scale =
        buffers_fit_scale(app.session, shown, r.w - 2 * pad.x, r.h - 2 * pad.y - note_h, vs.present, vs.buffers_crowd);
  }
  begin_panel(vs, "buffers", r);
  ImGui::SetWindowFontScale(vs.buffers_scale);
  draw_buffers(app);
  ImGuiWindow* outer = ImGui::GetCurrentWindow();
  const float top = outer->Pos.y + outer->WindowPadding.y;
  for (ImGuiWindow* w : outer->DC.ChildWindows) {
    // The rows' own child (panel_buffers.cpp): how far its content reached.
    const float need_bottom = w->DC.CursorMaxPos.y + w->Scroll.y, seen_bottom = w->Pos.y + w->Size.y;
    if (need_bottom > seen_bottom && need_bottom > top) {
      const float fit = (seen_bottom - top) / (need_bottom - top);
      vs.buffers_scale = std::max(std::min(1.f, min_text_px(vs.present) / ImGui::GetFontSize() * vs.buffers_scale),
                                  vs.buffers_scale * fit * 0.99f);
    }
  }
  ImGui::EndChild();
}

// --present or a handout page with a lesson, in the DDP view's child right
// after draw_ddp: the paragraph panel_ddp_plot.cpp draws below the lanes
// ("How to read it: ...", its last item) must not run past the region.
// When it does (by `over` pixels), the region gets at least its height
// and `over` from the next frame on if the lesson panel has that room
// beyond its text's need (a handout page prints no panel text: always),
// else at most the paragraph's top and a line (panel_ddp_plot.cpp draws it
// only with more than three lines left), and the lesson panel points to it
// (ViewState::ddp_note_shown). Kept until the slide changes
// (begin_fit_lesson). Returns true when the split changes (the slide is
// not settled yet).
bool fit_ddp_note(App& app, const LayoutInput& in) {
  ViewState& vs = app.vs;
  const Layout& L = vs.layout;
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  const float region_top = ImGui::GetWindowPos().y, bottom = region_top + ImGui::GetWindowHeight();
  const float top = ImGui::GetItemRectMin().y, end = ImGui::GetItemRectMax().y;
  const float over = end - bottom;
  // The plot was the last item: no paragraph under it (the lesson panel points to it).
  const bool paragraph = app.ddp.runner.result() && std::abs(top - app.ddp.drawn.timeline_box[1]) >= 1;
  vs.ddp_note_shown = paragraph && over <= 0.5f;
  // Any paragraph drawn and cut: panel_ddp_plot.cpp draws it with more
  // than three of ITS lines left (at the DDP view's text scale, smaller than
  // this lh), so a test against three lines here let a cut one stay
  // (lesson 07 beats 6 and 7, lecturer pass 6).
  if (!paragraph || over <= 0.5f) return false;
  const float slack = vs.handout ? 1e9f : L.side.h - in.lesson_want_h;
  // Grown as far as the layout lets it (the lesson keeps its header and two lines): leave it out.
  const bool at_most = vs.ddp_adjust > 0 && L.ddp.h + 0.5f < vs.ddp_adjust;
  if (vs.ddp_adjust >= 0 && slack >= over + 1 && !at_most) {
    vs.ddp_adjust = L.ddp.h + std::ceil(over) + 1;
  } else {
    vs.ddp_adjust = -std::floor(top - region_top + lh);
    vs.ddp_note_dropped = true;
  }
  return true;
}

}  // namespace

void draw_ui(App& app) {
  ViewState& vs = app.vs;
  vs.probes.clear();
  vs.controls_drawn.clear();
  vs.panels_drawn.clear();
  vs.labels_drawn.clear();
  vs.rows_drawn.clear();
  vs.rows_lit.clear();
  app.presenter.lesson_top = -1;  // set again by the lesson panel when it is drawn (present.h)
  handle_keys(app);

  const ImGuiIO& io = ImGui::GetIO();
  // The full-screen window draws no background: Platform::render's glClear
  // already filled the screen with the same colour (kBackground).
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::Begin("microddp-viz", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground);
  lesson_sync(app);  // a lesson's beat drives the session and picks the view (no-op without a lesson)
  if (app.ddp_runs.active()) {  // --compare-runs of two DDP records: the whole window (compare_runs_ddp.h)
    const ImGuiStyle& st = ImGui::GetStyle();
    draw_ddp_runs(app, st.WindowPadding.x, st.WindowPadding.y, io.DisplaySize.x - 2 * st.WindowPadding.x,
                  io.DisplaySize.y - 2 * st.WindowPadding.y);
    ImGui::End();
    return;
  }
  if (app.lesson && vs.view == View::compare) {  // compare above the lesson panel (panel_lesson.cpp)
    draw_view_with_lesson(app);
    ImGui::End();
    return;
  }
  if (vs.view == View::ddp) {
    // The DDP view draws its own controls (none in present mode) in its
    // region (panel_ddp.cpp); the lesson panel, when open, below it.
    LayoutInput in = layout_input(app, 0.f);
    // The lanes drawn: the shown run's, else those of the run requested.
    const auto r = app.ddp.runner.result();
    in.ddp_lanes = (r ? app.ddp.runner.result_params().run.ranks : app.ddp.edit.run.ranks) + 1;
    const bool slide = app.lesson && (vs.present || vs.handout);
    in.ddp_adjust = slide ? vs.ddp_adjust : 0.f;
    in.ddp_text_h = app.ddp.drawn.text_h;  // as the view measured them last frame
    in.ddp_label_row = app.ddp.drawn.label_row;
    vs.layout = compute_layout(in);
    const Layout& L = vs.layout;
    ImGui::SetCursorScreenPos(ImVec2(L.ddp.x, L.ddp.y));
    vs.panels_drawn.push_back({"ddp", L.ddp});
    ImGui::BeginChild("ddp", ImVec2(L.ddp.w, L.ddp.h), false, ImGuiWindowFlags_NoScrollbar);
    draw_ddp(app);
    const bool adjusted = slide && fit_ddp_note(app, in);
    ImGui::EndChild();
    if (app.lesson) {
      begin_panel(vs, "lesson", L.side);
      draw_lesson(app);
      ImGui::EndChild();
    }
    if (adjusted) vs.lesson_fitting = true;  // a still waits for the next frame's split
    ImGui::End();
    return;
  }
  if (!vs.present) draw_controls(app);
  apply_params(app);
  if (!app.session.configured()) {
    ImGui::TextWrapped("%s", vs.error.c_str());
    ImGui::End();
    return;
  }
  vs.layout = compute_layout(layout_input(app, vs.present ? 0.f : ImGui::GetCursorScreenPos().y));
  const Layout& L = vs.layout;
  if (vs.view == View::main) {
    if (!draw_hang_panel(app, hang_panel_rect(L))) {  // a hang beat: the hang view in the top row (hang_panel.cpp)
      begin_panel(vs, "topology", L.topology, ImGuiWindowFlags_NoScrollbar);
      // The buffers' position (held before the beat's steps while its
      // question is open): one slide, one step (hostile review 10, lesson 01).
      draw_topology(app, app.session, buffers_position(app), ImGui::GetContentRegionAvail(), false);
      ImGui::EndChild();
      buffers_panel(app, L.buffers);
    }
    if (L.timeline.w > 0 && !draw_hang_timeline(app, L.timeline)) {  // a hang beat: its time view (hang_panel.cpp)
      begin_panel(vs, "timeline", L.timeline, ImGuiWindowFlags_NoScrollbar);
      draw_timeline(app);
      ImGui::EndChild();
    }
    if (app.lesson) {
      begin_panel(vs, "lesson", L.side);
      draw_lesson(app);
    } else {
      begin_panel(vs, "stats", L.side);
      draw_stats(app);
    }
    ImGui::EndChild();
  } else {
    // panel_compare fills the body: a child of that size, no border.
    ImGui::SetCursorScreenPos(ImVec2(L.compare.x, L.compare.y));
    vs.panels_drawn.push_back({"compare", L.compare});
    ImGui::BeginChild("compare", ImVec2(L.compare.w, L.compare.h), false, ImGuiWindowFlags_NoScrollbar);
    draw_compare(app);
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace microddp::viz
