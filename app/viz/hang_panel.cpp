// The hang view's panel: draws the HangScene of the open lesson's hang beat
// (hang_view.h) in the buffers panel's place. Per rank a bordered row: its
// label, the step's track (#0, #1, #2, end) coloured by the flight
// recorder's states with the deciding barrier as a bar across every row,
// where the rank stands at that barrier, a bar of the time it waited
// against the timeout, and its last flight-recorder entries; the verdict
// below. Text shrinks to fit the rows, not below 14 px.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/viz/hang_view.h"
#include "app/viz/panels.h"
#include "assets/palette.h"

namespace microddp::viz {

namespace {

// A slide's hang view (draw_hang_panel): the lesson panel keeps room for
// this many lines of its text; the hang view's text is not drawn below
// this share of the font (20 px at --font-px 28), nor below 14 px.
constexpr float kHangSlideLessonLines = 7;
constexpr float kHangSlideLeast = 5.f / 7.f;

Rgba call_color(HangCall c) {
  switch (c) {
    case HangCall::completed: return from_hex(0x009E73);  // bluish green
    case HangCall::failed:
    case HangCall::skipped: return error_color();  // both the fail mark; the cell's word tells them apart
    case HangCall::started: return from_hex(assets::kPredicted);
    case HangCall::not_reached: break;
  }
  return empty_color();
}

const char* call_word(HangCall c) {
  switch (c) {
    case HangCall::completed: return "done";
    case HangCall::failed: return "fail";
    case HangCall::skipped: return "skip";
    case HangCall::started: return "run";
    case HangCall::not_reached: break;
  }
  return "";
}

void text_at(ImDrawList* dl, ImVec2 p, Rgba c, const std::string& t) { dl->AddText(p, im(c), t.c_str()); }

std::string barrier_shown(const HangRow& row) {
  return row.barrier == HangBarrier::hidden ? "? (shown once you answer)" : row.barrier_text;
}

std::string recorder_text(const HangRow& row) {
  std::string rec = "recorder:";
  for (const std::string& e : row.recorder) rec += "  " + e;
  return rec;
}

// The rows take one line each when the barrier state and the recorder fit
// beside the track, else two (the recorder under the barrier state).
bool one_line_rows(const HangScene& sc, float w, float fixed_w, float gap) {
  float state_w = ImGui::CalcTextSize("at the barrier before #0").x, rec_w = 0;
  for (const HangRow& row : sc.rows) {
    state_w = std::max(state_w, ImGui::CalcTextSize(barrier_shown(row).c_str()).x);
    rec_w = std::max(rec_w, ImGui::CalcTextSize(recorder_text(row).c_str()).x);
  }
  return fixed_w + state_w + gap + rec_w <= w;
}

// The log's lines shown under the verdict in `room` pixels at the current
// font scale (wrapped at wrap_w): the lines that do not fit are left out,
// the earliest untagged INFO lines first (the verdict's WARN line and a
// line logged after it stay), then the earliest of the rest, the title's
// count saying so; nothing (no title, h 0) when not even the title fits.
// h: the height drawn (the gap above the title included).
struct LogFit {
  std::vector<const HangLogLine*> shown;
  std::string title;
  float h = 0;
};

float log_line_w(const HangLogLine& l) {
  return ImGui::CalcTextSize(l.text.c_str()).x +
         (l.mark.empty() ? 0.f : ImGui::CalcTextSize(l.mark.c_str()).x + 3 * ImGui::GetFontSize());
}

LogFit fit_log(const HangLog& log, float room, float wrap_w) {
  LogFit f;
  if (log.title.empty()) return f;
  const float fs = ImGui::GetFontSize(), line = ImGui::GetTextLineHeightWithSpacing(), sp = ImGui::GetStyle().ItemSpacing.y;
  for (const HangLogLine& l : log.lines) f.shown.push_back(&l);
  f.title = log.title;
  const float title_h = ImGui::CalcTextSize(f.title.c_str(), nullptr, false, wrap_w).y + sp;
  const auto rows = [&](const HangLogLine& l) {  // a line wider than the panel wraps
    return std::ceil(std::max(1.f, log_line_w(l) / std::max(wrap_w, 1.f)));
  };
  const auto height = [&] {
    float h = 0.3f * fs + sp + title_h;
    for (const HangLogLine* l : f.shown) h += rows(*l) * line;
    return h;
  };
  for (size_t i = 0; i < f.shown.size() && height() > room;) {
    if (f.shown[i]->level == hang::LogLevel::info && f.shown[i]->mark.empty()) f.shown.erase(f.shown.begin() + std::ptrdiff_t(i));
    else ++i;
  }
  while (!f.shown.empty() && height() > room) f.shown.erase(f.shown.begin());  // then the earliest of the rest
  if (height() > room) return LogFit{};  // not even the title: the log is left out (microddp lesson prints it)
  f.h = height();
  const std::string was = fmt::format("({} of ", log.lines.size());
  if (f.shown.size() < log.lines.size() && f.title.find(was) != std::string::npos)
    f.title.replace(f.title.find(was), was.size(), fmt::format("({} of ", f.shown.size()));
  return f;
}

// The run's own log under the verdict: its title, then one line each
// (WARN in the error colour), a line logged after the verdict tagged so.
// present: a slide; the lines that fit the panel's height (fit_log).
void draw_log(App& app, const HangLog& log, bool present) {
  if (log.title.empty()) return;
  const float fs = ImGui::GetFontSize(), pad = fs * 0.3f;
  std::vector<const HangLogLine*> shown;
  for (const HangLogLine& l : log.lines) shown.push_back(&l);
  std::string title = log.title;
  if (present) {
    // The room under the verdict, the gap above the title counted by fit_log.
    const float room = ImGui::GetWindowHeight() - ImGui::GetStyle().WindowPadding.y - ImGui::GetCursorPosY() +
                       ImGui::GetStyle().ItemSpacing.y;
    LogFit f = fit_log(log, room, ImGui::GetContentRegionAvail().x);
    if (f.title.empty()) return;
    shown = std::move(f.shown);
    title = std::move(f.title);
  }
  ImGui::Dummy(ImVec2(1, pad));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(title.c_str());
  ImGui::PopTextWrapPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const HangLogLine* lp : shown) {
    const HangLogLine& l = *lp;
    if (present && log_line_w(l) > ImGui::GetContentRegionAvail().x) {
      // Wider than the panel at the font's size: wrapped, its tag first.
      const ImVec2 p = ImGui::GetCursorScreenPos();
      float x = p.x;
      if (!l.mark.empty()) {
        const ImVec2 b(p.x + ImGui::CalcTextSize(l.mark.c_str()).x + 2 * pad, p.y + fs + pad * 0.5f);
        dl->AddRectFilled(p, b, lesson_highlight_color());
        text_at(dl, ImVec2(p.x + pad, p.y), from_hex(0xFFFFFF), l.mark);
        app.vs.labels_drawn.push_back({"hang log mark", Rect{p.x, p.y, b.x - p.x, b.y - p.y}});
        x = b.x + fs * 0.5f;
        ImGui::SetCursorScreenPos(ImVec2(x, p.y));
      }
      const Rgba c = l.level == hang::LogLevel::warn ? error_color() : from_hex(assets::kInk);
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(c)), "%s", l.text.c_str());
      ImGui::PopTextWrapPos();
      const ImVec2 e = ImGui::GetItemRectMax();
      app.vs.labels_drawn.push_back({"hang log " + l.text, Rect{x, p.y, e.x - x, e.y - p.y}});
      ImGui::SetCursorScreenPos(ImVec2(p.x, ImGui::GetCursorScreenPos().y));
      continue;
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const Rgba c = l.level == hang::LogLevel::warn ? error_color() : from_hex(assets::kInk);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(c)), "%s", l.text.c_str());
    app.vs.labels_drawn.push_back({"hang log " + l.text, Rect{p.x, p.y, ImGui::CalcTextSize(l.text.c_str()).x, fs}});
    if (!l.mark.empty()) {
      const ImVec2 a(p.x + ImGui::CalcTextSize(l.text.c_str()).x + fs, p.y);
      const ImVec2 b(a.x + ImGui::CalcTextSize(l.mark.c_str()).x + 2 * pad, a.y + fs + pad * 0.5f);
      dl->AddRectFilled(a, b, lesson_highlight_color());
      text_at(dl, ImVec2(a.x + pad, a.y), from_hex(0xFFFFFF), l.mark);
      app.vs.labels_drawn.push_back({"hang log mark", Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
    }
  }
}

void draw_scene(App& app, const HangScene& sc) {
  const float fs = ImGui::GetFontSize(), line = ImGui::GetTextLineHeightWithSpacing();
  const Rgba ink = from_hex(assets::kInk), faint = from_hex(assets::kFaint);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(sc.header.c_str());
  ImGui::PopTextWrapPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = ImGui::GetCursorScreenPos().x, w = ImGui::GetContentRegionAvail().x;
  const float pad = fs * 0.3f, label_w = ImGui::CalcTextSize("R00").x + fs * 0.6f;
  const float cell_w =
      std::max({ImGui::CalcTextSize("done").x, ImGui::CalcTextSize("fail").x, ImGui::CalcTextSize("skip").x}) + fs * 0.6f;
  const int cols = static_cast<int>(sc.calls.size());
  const float track_w = cell_w * float(cols);
  const float text_x = x0 + label_w + track_w + fs;
  const bool one = one_line_rows(sc, w, label_w + track_w + 2 * fs, 2 * fs);
  float rec_x = text_x;  // one line: after the widest barrier state
  if (one) {
    float state_w = ImGui::CalcTextSize("at the barrier before #0").x;
    for (const HangRow& row : sc.rows) state_w = std::max(state_w, ImGui::CalcTextSize(barrier_shown(row).c_str()).x);
    rec_x = text_x + state_w + 2 * fs;
  }
  const float row_h = (one ? 1 : 2) * line + 2 * pad;
  // The track's column names, with their calls on hover.
  {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int k = 0; k < cols; ++k) {
      const std::string name = k + 1 == cols ? "end" : fmt::format("#{}", k);
      text_at(dl, ImVec2(p.x + label_w + cell_w * float(k) + pad, p.y), ink, name);
      const ImVec2 a(p.x + label_w + cell_w * float(k), p.y), b(a.x + cell_w, a.y + line);
      if (hovered_rect(a, b)) ImGui::SetTooltip("%s", sc.calls[static_cast<size_t>(k)].c_str());
    }
    text_at(dl, ImVec2(text_x, p.y), ink, sc.barrier.empty() ? "barriers" : "at the " + sc.barrier);
    if (one) text_at(dl, ImVec2(rec_x, p.y), ink, "flight recorder (last calls)");
    ImGui::Dummy(ImVec2(w, line));
  }
  const float rows_y0 = ImGui::GetCursorScreenPos().y;
  for (const HangRow& row : sc.rows) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 box_a(p.x, p.y), box_b(p.x + w, p.y + row_h - pad);
    dl->AddRectFilled(box_a, box_b, im(from_hex(assets::kPanel)));
    if (row.outlined) dl->AddRect(box_a, box_b, lesson_highlight_color(), 0, 0, 3.f);
    else dl->AddRect(box_a, box_b, im(faint));
    const float ty = p.y + pad * 0.5f;
    text_at(dl, ImVec2(p.x + pad, ty), rank_text_color(row.rank), row.label);
    app.vs.labels_drawn.push_back({"hang " + row.label, Rect{p.x + pad, ty, label_w - pad, fs}});
    for (int k = 0; k < cols; ++k) {
      const ImVec2 a(p.x + label_w + cell_w * float(k) + 1, ty), b(a.x + cell_w - 2, ty + line - pad * 0.5f);
      const Rgba c = call_color(row.calls[static_cast<size_t>(k)]);
      dl->AddRectFilled(a, b, im(c));
      // Never colour alone: the state's word in the cell.
      text_at(dl, ImVec2(a.x + pad * 0.5f, ty), text_on(c), call_word(row.calls[static_cast<size_t>(k)]));
      if (row.calls[static_cast<size_t>(k)] == HangCall::skipped && hovered_rect(a, b))
        ImGui::SetTooltip("%s failed here without making the call: it left the step (no flight-recorder entry)",
                          row.label.c_str());
    }
    // The time waited against the timeout: a bar behind the barrier state.
    const float state_w = (one ? rec_x - 2 * fs : box_b.x - pad) - text_x;
    if (row.barrier == HangBarrier::waited) {
      const ImVec2 a(text_x - pad, ty), b(text_x - pad + (state_w + pad) * row.wait_fraction, ty + line - pad * 0.5f);
      dl->AddRectFilled(a, b, im(with_alpha(from_hex(assets::kPredicted), 110)));
      if (hovered_rect(a, ImVec2(text_x + state_w, b.y)))
        ImGui::SetTooltip("waited %.2f s of the %g s timeout", row.waited_s, sc.timeout_s);
    }
    const Rgba state_c = row.barrier == HangBarrier::missing || row.barrier == HangBarrier::mismatched ? error_color() : ink;
    dl->PushClipRect(ImVec2(text_x, p.y), ImVec2(box_b.x - pad, box_b.y), true);
    text_at(dl, ImVec2(text_x, ty), state_c, barrier_shown(row));
    text_at(dl, ImVec2(rec_x, one ? ty : ty + line), ink, one ? recorder_text(row).substr(10) : recorder_text(row));
    dl->PopClipRect();
    if (hovered_rect(box_a, box_b) && !row.state.empty()) ImGui::SetTooltip("%s", row.state.c_str());
    app.vs.rows_drawn.push_back({"hang " + row.label, Rect{box_a.x, box_a.y, box_b.x - box_a.x, box_b.y - box_a.y}});
    ImGui::Dummy(ImVec2(w, row_h - ImGui::GetStyle().ItemSpacing.y));
  }
  // The deciding barrier: a bar across every row, before its call's cell.
  if (sc.barrier_call >= 0) {
    const float bx = x0 + label_w + cell_w * float(sc.barrier_call);
    const float y1 = ImGui::GetCursorScreenPos().y - ImGui::GetStyle().ItemSpacing.y;
    dl->AddRectFilled(ImVec2(bx - 2, rows_y0 - 2), ImVec2(bx + 2, y1), im(ink));
  }
  ImGui::PushTextWrapPos(0);
  const Rgba vc = sc.barrier.empty() ? from_hex(0x007A4D) : sc.withheld ? ink : error_color();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(vc)), "%s", ("verdict: " + sc.verdict).c_str());
  ImGui::PopTextWrapPos();
  draw_log(app, sc.log, app.vs.present);
}

}  // namespace

bool draw_hang_timeline(App& app, const Rect& r) {
  if (!app.lesson || app.lesson->current().kind != lesson::Beat::Kind::hang) {
    app.vs.hang_need_h = 0;
    return false;
  }
  LessonView& L = *app.lesson;
  app.vs.panels_drawn.push_back({"hang time", r});
  ImGui::SetCursorScreenPos(ImVec2(r.x, r.y));
  ImGui::BeginChild("hang time", ImVec2(r.w, r.h), true, ImGuiWindowFlags_NoScrollbar);
  ImGui::TextUnformatted("Time - each rank's calls");
  const auto run = L.hang_run();
  if (!run) {
    ImGui::TextDisabled("running the hang lab…");
  } else {
    const HangScene sc = build_hang_scene(L.current().hang, *run, hang_names_withheld(L, *run));
    if (sc.withheld) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("when each rank called (it tells who was late) is shown once you answer the question");
      ImGui::PopTextWrapPos();
    } else {
      ImDrawList* dl = ImGui::GetWindowDrawList();
      const float fs = ImGui::GetFontSize(), line = ImGui::GetTextLineHeightWithSpacing();
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = ImGui::GetContentRegionAvail().x, label_w = ImGui::CalcTextSize("R00").x + fs * 0.5f;
      const float lanes_h = ImGui::GetContentRegionAvail().y - 2 * line;
      const float lane = std::clamp(lanes_h / std::max<float>(1, float(sc.rows.size())), 4.f, line * 1.2f);
      const double span = std::max(sc.seconds, 1e-6);
      const float x0 = p.x + label_w, x1 = p.x + w - fs;
      const auto x_of = [&](double t) { return x0 + float(std::clamp(t / span, 0.0, 1.0)) * (x1 - x0); };
      for (size_t i = 0; i < sc.rows.size(); ++i) {
        const HangRow& row = sc.rows[i];
        const float y = p.y + lane * float(i);
        if (lane >= fs * 0.8f) text_at(dl, ImVec2(p.x, y), rank_text_color(row.rank), row.label);
        if (row.outlined) dl->AddRect(ImVec2(x0 - 2, y), ImVec2(x1 + 2, y + lane - 1), lesson_highlight_color(), 0, 0, 2.f);
        for (const HangRow::Span& sp : row.spans) {
          const ImVec2 a(x_of(sp.begin_s), y + 2), b(std::max(x_of(sp.end_s), x_of(sp.begin_s) + 2.f), y + lane - 3);
          dl->AddRectFilled(a, b, im(call_color(sp.state)));
          const std::string t = fmt::format("#{}", sp.seq);
          if (b.x - a.x > ImGui::CalcTextSize(t.c_str()).x + 4 && lane >= fs * 0.8f)
            text_at(dl, ImVec2(a.x + 2, y), text_on(call_color(sp.state)), t);
          if (hovered_rect(a, b))
            ImGui::SetTooltip("R%d call #%lld: %.3f-%.3f s, %s", row.rank, static_cast<long long>(sp.seq), sp.begin_s,
                              sp.end_s, call_word(sp.state));
        }
      }
      const float ay = p.y + lane * float(sc.rows.size()) + 2;
      // The timeout, counted from the first arrival at the deciding barrier:
      // a dashed line; its label beside the axis's end, or merged with it.
      std::string end = fmt::format("{:.2f} s", sc.seconds);
      double first = -1;
      for (const HangRow& row : sc.rows)
        if (row.barrier == HangBarrier::waited && !row.spans.empty())
          first = first < 0 ? row.spans.back().begin_s : std::min(first, row.spans.back().begin_s);
      dl->AddLine(ImVec2(x0, ay), ImVec2(x1, ay), im(from_hex(assets::kInk)));
      text_at(dl, ImVec2(x0, ay + 2), from_hex(assets::kInk), "0");
      if (first >= 0 && first + sc.timeout_s <= span * 1.001) {
        const float tx = x_of(first + sc.timeout_s);
        for (float yy = p.y; yy < ay; yy += 6)
          dl->AddLine(ImVec2(tx, yy), ImVec2(tx, std::min(yy + 3, ay)), im(from_hex(assets::kInk)), 2.f);
        const float tw = ImGui::CalcTextSize("timeout").x, ew = ImGui::CalcTextSize(end.c_str()).x;
        if (tx + tw * 0.5f < x1 - ew - fs) text_at(dl, ImVec2(std::max(x0 + fs, tx - tw * 0.5f), ay + 2), from_hex(assets::kInk), "timeout");
        else end = "timeout " + end;
      }
      text_at(dl, ImVec2(x1 - ImGui::CalcTextSize(end.c_str()).x, ay + 2), from_hex(assets::kInk), end);
      ImGui::Dummy(ImVec2(w, ay + line - p.y));
    }
  }
  ImGui::EndChild();
  return true;
}

Rect hang_panel_rect(const Layout& L) {
  return Rect{L.topology.x, L.topology.y, L.buffers.right() - L.topology.x, std::max(L.topology.h, L.buffers.h)};
}

bool draw_hang_panel(App& app, const Rect& r) {
  if (!app.lesson || app.lesson->current().kind != lesson::Beat::Kind::hang) return false;
  LessonView& L = *app.lesson;
  ViewState& vs = app.vs;
  ImGui::SetCursorScreenPos(ImVec2(r.x, r.y));
  vs.panels_drawn.push_back({"hang", r});
  ImGui::BeginChild("hang", ImVec2(r.w, r.h), true, vs.present ? ImGuiWindowFlags_NoScrollbar : 0);
  std::string error;
  const auto run = L.hang_run(&error);
  if (!run) {
    ImGui::TextWrapped("%s", error.empty() ? "running the hang lab for real…" : ("could not run: " + error).c_str());
  } else {
    const HangScene sc = build_hang_scene(L.current().hang, *run, hang_names_withheld(L, *run));
    // Rows of one line when they fit beside the track, else two: the
    // largest text scale (not below 14 px; the child scrolls beyond that)
    // at which the header, the rows and the verdict fit. Measured at scale
    // 1 (the scale persists on the window from the last frame).
    ImGui::SetWindowFontScale(1);
    const float line = ImGui::GetTextLineHeightWithSpacing(), fs = ImGui::GetFontSize();
    const float w = ImGui::GetContentRegionAvail().x, avail = r.h - 2 * ImGui::GetStyle().WindowPadding.y;
    const float fixed = ImGui::CalcTextSize("R00").x + fs * 2.6f + 4 * (ImGui::CalcTextSize("done").x + fs * 0.6f);
    const float lo = std::min(1.f, 14.f / fs);
    // On a slide the header, the rows and the verdict as draw_scene draws
    // them (each text wrapped at the panel's width: lines of `line`).
    const float sp = ImGui::GetStyle().ItemSpacing.y, text_h = ImGui::GetTextLineHeight();
    const float pad_y = ImGui::GetStyle().WindowPadding.y;
    const auto lines_of = [&](const std::string& t, float width) {
      return std::max(1.f, std::round(ImGui::CalcTextSize(t.c_str(), nullptr, false, width).y / text_h));
    };
    // Rows, header and verdict at scale s, as draw_scene draws them.
    const auto scene_h = [&](float s) {
      const bool one = one_line_rows(sc, w / s, fixed, 2 * fs);
      return s * (line * (lines_of(sc.header, w / s) + 1 + lines_of("verdict: " + sc.verdict, w / s)) +
                  float(sc.rows.size()) * ((one ? 1 : 2) * line + 0.6f * fs) + sp);
    };
    // A slide (issue 37): the lesson's text comes first. The picture takes
    // at most what leaves the lesson panel kHangSlideLessonLines lines of
    // text (with its beat title and "continued" line); in that, the header,
    // the rows and the verdict at the largest scale down to kHangSlideLeast
    // of the font (20 px at 28; at 28 px the rows at the font's size left
    // the text 3 lines a page), then the log's lines that fit (fit_log).
    // hang_need_h (layout.h picture_min_h) is what is drawn, no more: the
    // rest of the body goes to the lesson. Without a layout yet, no cap.
    const float usable = vs.layout.side.h > 0 ? vs.layout.side.bottom() - vs.layout.topology.y - sp : 0.f;
    const float cap = usable > 0 ? usable - (kHangSlideLessonLines + 2) * line - 2 * pad_y : 1e9f;
    const float slide_lo = std::min(1.f, std::max(14.f / fs, kHangSlideLeast));
    float cap_scale = slide_lo;
    for (float s = 1; s >= slide_lo - 1e-4f; s -= 0.01f)
      if (scene_h(s) + 2 * pad_y <= cap) {
        cap_scale = s;
        break;
      }
    {  // the slide's picture (layout.h picture_min_h): the scene and the log's lines that fit under it
      ImGui::SetWindowFontScale(cap_scale);
      const LogFit lf = fit_log(sc.log, cap - 2 * pad_y - scene_h(cap_scale), w);
      ImGui::SetWindowFontScale(1);
      vs.hang_need_h = std::ceil(scene_h(cap_scale) + lf.h + 2 * pad_y) + 2;
    }
    float scale = lo;
    // Drawn at the largest scale that fits the room the layout gave: the
    // capped picture's when the lesson's text takes the rest, more when
    // the text is short (a slide of one page).
    for (float s = 1; s >= lo - 1e-4f; s -= 0.01f) {
      const bool one = one_line_rows(sc, w / s, fixed, 2 * fs);
      float need = 0;
      if (vs.present) {
        need = scene_h(s);
      } else {
        const float log_lines = sc.log.title.empty() ? 0.f : 2.5f + float(sc.log.lines.size());
        need = line * s * (5 + (one ? 1.4f : 2.4f) * float(sc.rows.size()) + log_lines);
      }
      if (need <= avail) {
        scale = s;
        break;
      }
    }
    ImGui::SetWindowFontScale(scale);
    draw_scene(app, sc);
  }
  ImGui::EndChild();
  return true;
}

}  // namespace microddp::viz
