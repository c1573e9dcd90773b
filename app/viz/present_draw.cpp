// The class poll under a lesson beat's question (present.h): the entry
// field P opens, and the counts typed as bars, one per choice, the right
// choice green once the question is answered or revealed.
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "assets/palette.h"

namespace microddp::viz {

namespace {
constexpr uint32_t kPass = 0x007A4D, kFail = 0xC0392B;  // as the lesson panel's
}  // namespace

void draw_poll(App& app) {
  if (!app.lesson || !app.lesson->current().question) return;
  Presenter& p = app.presenter;
  if (p.poll_open) {
    ImGui::PushTextWrapPos(0);  // at --font-px 40 wider than the question's column
    ImGui::TextUnformatted("Class poll: votes per choice, then Enter");
    ImGui::PopTextWrapPos();
    if (p.poll_focus) {
      ImGui::SetKeyboardFocusHere();
      p.poll_focus = false;
    }
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::InputTextWithHint("##poll", "12,30,5", &p.poll_typed, ImGuiInputTextFlags_EnterReturnsTrue))
      submit_poll(app, p.poll_typed);
  }
  if (!p.poll_error.empty())
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail))), "%s", p.poll_error.c_str());
  if (const std::string line = poll_line(app); !line.empty()) {
    const size_t votes = line.rfind(" · ");
    ImGui::TextDisabled("class poll: %s", line.substr(votes + std::string_view(" · ").size()).c_str());  // "48 votes"
  }
}

void draw_poll_bar(App& app, int choice, float column_x) {
  if (!app.lesson || !app.lesson->current().question) return;
  const LessonView& L = *app.lesson;
  const auto it = app.presenter.polls.find(L.beat());
  const auto& q = *L.current().question;
  if (it == app.presenter.polls.end() || it->second.size() != q.choices.size()) return;
  const std::vector<int>& counts = it->second;
  int most = 1;
  for (int c : counts) most = std::max(most, c);
  // Beside the choice's text, in a column of its own (below it when the text reaches that far).
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() > column_x) ImGui::NewLine();
  ImGui::SetCursorPosX(column_x);
  // Room for the widest count label ("100000 (100%)": issue 37 clipped it at 6 font sizes).
  float label_w = 0;
  const std::vector<int> pct = poll_percents(counts);
  for (size_t i = 0; i < counts.size(); ++i)
    label_w = std::max(label_w, ImGui::CalcTextSize(fmt::format("{} ({}%)", counts[i], pct[i]).c_str()).x);
  const float bar_max = std::max(ImGui::GetFontSize() * 3,
                                 ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ItemSpacing.x - 1);
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const float w = std::max(2.f, bar_max * static_cast<float>(counts[choice]) / static_cast<float>(most));
  // The right choice turns green once it is out (answered or revealed).
  const bool right = L.answer().answered && choice + 1 == q.answer;
  ImGui::GetWindowDrawList()->AddRectFilled(a, ImVec2(a.x + w, a.y + h),
                                            im(from_hex(right ? kPass : assets::kActive)));
  ImGui::Dummy(ImVec2(bar_max, h));
  ImGui::SameLine();
  ImGui::Text("%d (%d%%)", counts[choice], poll_percents(counts)[static_cast<size_t>(choice)]);
}

float lesson_min_px(float font_px) { return font_px; }

float lesson_tail_px(float font_px) { return std::max(kLessonMinPx, font_px * 0.875f); }

namespace {
Presenter::PageColumn* g_column = nullptr;  // the column between begin_page_column and end_page_column
bool g_keep = false;                        // page_keep_next: the next line recorded is glued to the one before
// Per column: where each recorded line's last item ends (content pixels, as
// lines), taken when the next line starts or the column ends. A question's
// choice drawn whole is one recorded line over two or more rows: its end,
// not its top plus one row, says whether it reaches into the band (at
// --font-px 40 lesson 08 beat 2's second choice row was drawn over
// "continued on the next page").
std::vector<float> g_ends[2];
int g_index = 0;

// The content y where the last item drawn ends.
float last_item_end(const Presenter::PageColumn& c) {
  return ImGui::GetItemRectMax().y - ImGui::GetWindowPos().y + ImGui::GetScrollY() + c.shift;
}
constexpr const char* kContinued = "continued on the next page";
}  // namespace

void begin_page_column(App& app, int column) {
  if (!app.vs.present || !app.lesson) return;
  Presenter& p = app.presenter;
  Presenter::PageColumn& c = p.columns[column];
  c.lines.clear();
  c.glued.clear();
  g_keep = false;
  g_index = std::clamp(column, 0, 1);
  g_ends[g_index].clear();
  c.top = ImGui::GetCursorPosY();
  if (c.starts.empty()) c.starts = {c.top};
  const int k = std::clamp(p.page, 0, static_cast<int>(c.starts.size()) - 1);
  c.shift = c.starts[static_cast<size_t>(k)] - c.starts.front();
  ImGui::SetCursorPosY(c.top - c.shift);  // the page's first line at the column's top
  if (k + 1 < static_cast<int>(c.starts.size())) {
    // Nothing of the next page below: cut where it starts.
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const float end = pos.y + c.starts[static_cast<size_t>(k) + 1] - c.shift - ImGui::GetScrollY();
    ImGui::PushClipRect(pos, ImVec2(pos.x + size.x, end), true);
    c.clip = true;
  }
  g_column = &c;
}

void page_line() {
  if (!g_column) return;
  const float y = ImGui::GetCursorPosY() + g_column->shift;
  if (g_column->lines.empty() || y > g_column->lines.back() + 0.5f) {
    if (!g_column->lines.empty()) g_ends[g_index].resize(g_column->lines.size(), last_item_end(*g_column));
    g_column->lines.push_back(y);
    g_column->glued.push_back(g_keep ? 1 : 0);
    g_keep = false;
  }
}

void page_keep_next() {
  if (g_column) g_keep = true;
}

void end_page_column(App& app, int column) {
  if (!app.vs.present || !app.lesson) return;
  Presenter& p = app.presenter;
  Presenter::PageColumn& c = p.columns[column];
  std::vector<float>& ends = g_ends[std::clamp(column, 0, 1)];
  if (g_column && !c.lines.empty()) ends.resize(c.lines.size(), last_item_end(c));
  g_column = nullptr;
  if (c.clip) ImGui::PopClipRect();
  c.clip = false;
  const int shown = std::clamp(p.page, 0, static_cast<int>(c.starts.size()) - 1);
  const bool more = shown + 1 < static_cast<int>(c.starts.size());
  // The whole content's end, as if drawn from the top (the fit measures it).
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + c.shift);
  const float end = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y;
  const float cap = ImGui::GetWindowHeight() - c.top;  // a page's height
  const float band = ImGui::GetTextLineHeightWithSpacing();
  const float line_h = ImGui::GetTextLineHeight();
  std::vector<float> starts{c.top};
  bool cut = false;
  while (end - starts.back() > cap + 0.5f) {
    // The next page starts at the line after the last one that ENDS above
    // the band (a paragraph's last line stays on this page though the gap
    // before the next paragraph reaches into the band: lessons 07 b5 and
    // 09 b7's answers left a page 2 of one line), or at the last line that
    // starts above the band; never past the page's bottom.
    // A line glued to a heading (page_keep_next) is no place to start,
    // unless the page has no other.
    float next = -1, next_glued = -1;
    for (size_t i = 0; i < c.lines.size(); ++i) {
      const float t = c.lines[i];
      if (t <= starts.back() + 0.5f) continue;
      const bool starts_above = t - starts.back() <= cap - band + 0.5f;
      // (A line's end: its last item's bottom where recorded, else one row.)
      const float prev_end = i == 0 ? 0.f
                             : std::max(c.lines[i - 1] + line_h, i - 1 < ends.size() ? ends[i - 1] : 0.f);
      const bool prev_ends_above = i > 0 && c.lines[i - 1] > starts.back() - 0.5f &&
                                   prev_end - starts.back() <= cap - band + 0.5f &&
                                   t - starts.back() <= cap + 0.5f;
      if (starts_above || prev_ends_above) (c.glued[i] ? next_glued : next) = t;
    }
    if (next < 0) next = next_glued;
    if (next < 0) {
      cut = true;
      break;
    }
    starts.push_back(next);
  }
  // The last page's lines; with tail_balance a short one starts earlier,
  // as long as the page before keeps kTailLines (present.h).
  const auto line_at = [&](float y) {
    return static_cast<size_t>(std::lower_bound(c.lines.begin(), c.lines.end(), y - 0.5f) - c.lines.begin());
  };
  const size_t n = c.lines.size(), last = line_at(starts.back());
  c.tail = starts.size() > 1 ? static_cast<int>(n - last) : 0;
  if (p.tail_balance && starts.size() > 1 && c.tail < Presenter::kTailLines) {
    const size_t prev = line_at(starts[starts.size() - 2]);
    const size_t want = n >= Presenter::kTailLines ? n - Presenter::kTailLines : 0;
    const size_t j = std::max(want, prev + Presenter::kTailLines);
    size_t k = j;
    while (k > prev + 1 && k < n && c.glued[k]) --k;  // not between a heading and its first line
    if (k < n && !c.glued[k] && k < last) starts.back() = c.lines[k];
  }
  if (starts != c.starts) p.pages_moved = true;  // the page breaks move: the slide is not settled yet (fit_lesson)
  c.starts = std::move(starts);
  p.columns_drawn[column] = true;
  p.unsplittable = p.unsplittable || cut;
  p.pages = 1;
  for (int i = 0; i < 2; ++i)
    if (p.columns_drawn[i]) p.pages = std::max(p.pages, static_cast<int>(p.columns[i].starts.size()));
  if (more) {  // the band: this column goes on over the page
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const float y = pos.y + size.y - band;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // Shorter in a narrow column (the checks' beside the text at --font-px 40).
    const char* text = ImGui::CalcTextSize(kContinued).x <= size.x ? kContinued : "continued";
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(pos.x, y + ImGui::GetStyle().ItemSpacing.y),
                im(from_hex(assets::kActive)), text);
  }
}

bool next_page(App& app) {
  Presenter& p = app.presenter;
  p.page = std::clamp(p.page, 0, std::max(p.pages - 1, 0));  // kLastPage: the last one
  if (!app.vs.present || !app.lesson || p.page + 1 >= p.pages) return false;
  ++p.page;
  return true;
}

bool prev_page(App& app) {
  Presenter& p = app.presenter;
  p.page = std::clamp(p.page, 0, std::max(p.pages - 1, 0));
  if (!app.vs.present || !app.lesson || p.page <= 0) return false;
  --p.page;
  return true;
}

void present_next(App& app) {
  if (!app.lesson || next_page(app)) return;
  app.presenter.open_last_page = false;
  action_next_beat(app);
}

void present_prev(App& app) {
  if (!app.lesson || prev_page(app)) return;
  const int was = app.lesson->beat();
  action_prev_beat(app);
  app.presenter.open_last_page = app.lesson->beat() != was;  // not on beat 1: it stays on its first page
}

void present_home(App& app) {
  if (!app.lesson) return;
  app.lesson->go(0);
  app.presenter.page = 0;
  app.presenter.open_last_page = false;
}

std::string page_label(const App& app) {
  const Presenter& p = app.presenter;
  if (!app.vs.present || p.pages <= 1) return "";
  return fmt::format(" \u00b7 page {} of {}", std::min(p.page, p.pages - 1) + 1, p.pages);
}

void begin_fit_lesson(App& app) {
  ViewState& vs = app.vs;
  LessonView& L = *app.lesson;
  const Answer& a = L.answer();
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const std::string key =
      fmt::format("{} {}{}{} {} {} {}x{} {} {} {} {} {:.0f}", L.beat(), a.answered, a.revealed, a.right, L.checks_ready(),
                  vs.lesson_note, d.x, d.y, vs.font_px, static_cast<int>(vs.view), app.presenter.poll_open,
                  app.presenter.polls.count(L.beat()), vs.hang_need_h);
  // The slide is the same before and after the answer: its note as answered
  // (a held note, e.g. the bytes line, comes back with the answer).
  const std::string& note = L.held_note.empty() ? vs.lesson_note : L.held_note;
  // A hang beat's picture measured once its run is in (hang_need_h): another slide, its room given again.
  const std::string slide = fmt::format("{} {} {}x{} {} {} {} {:.0f}", L.beat(), note, d.x, d.y, vs.font_px,
                                        static_cast<int>(vs.view), app.presenter.poll_open, vs.hang_need_h);
  if (key != vs.lesson_fit_key) {
    vs.lesson_fit_key = key;
    // The same slide, answered: keep the panel's height (no jump on reveal).
    vs.lesson_hold_h = slide == vs.lesson_slide_key && vs.lesson_want_h > 0;
    vs.lesson_slide_key = slide;
    vs.lesson_scale = 1;
    if (!vs.lesson_hold_h) vs.lesson_want_h = 0;
    vs.lesson_clipped = false;
    vs.lesson_fitting = true;
    vs.ddp_adjust = 0;  // the DDP paragraph's room is measured again for this slide (ui.cpp fit_ddp_note)
    vs.ddp_note_dropped = false;
    app.presenter.tail_balance = false;  // a short last page is squeezed again (squeeze_tail)
    app.presenter.tail_from = 0;
  }
  app.presenter.lesson_top = ImGui::GetWindowPos().y;  // the handout's picture ends above (handout.h)
  for (int i = 0; i < 2; ++i) {  // a column not drawn in the last frame has no pages
    if (!app.presenter.columns_drawn[i]) app.presenter.columns[i].starts.clear();
    app.presenter.columns_drawn[i] = false;
  }
  app.presenter.unsplittable = false;
  app.presenter.pages_moved = false;
  ImGui::SetWindowFontScale(1.f);
  const float base_px = ImGui::GetFontSize();
  vs.lesson_scale = std::max(vs.lesson_scale, lesson_tail_px(base_px) / base_px);  // squeeze_tail's least
  ImGui::SetWindowFontScale(vs.lesson_scale);
}

namespace {
// A continuation page of one or two lines (present.h tail_balance): the
// text a little smaller (3% a frame, down to lesson_tail_px) until the
// page is gone or holds kTailLines; else back at `font_scale` with the
// last page started earlier.
void squeeze_tail(App& app, float font_scale) {
  Presenter& p = app.presenter;
  ViewState& vs = app.vs;
  if (p.tail_balance || p.pages <= 1) return;
  bool short_tail = false;
  for (int i = 0; i < 2; ++i)
    short_tail = short_tail || (p.columns_drawn[i] && p.columns[i].starts.size() > 1 && p.columns[i].tail < Presenter::kTailLines);
  if (!short_tail) {
    if (p.tail_from > 0 && p.pages >= p.tail_from && vs.lesson_scale < font_scale) {
      // Smaller text that saves no page (the tail only grew): the font's size, the last page started earlier.
      p.tail_balance = true;
      vs.lesson_scale = font_scale;
      vs.lesson_fitting = true;
    }
    return;
  }
  if (p.tail_from == 0) p.tail_from = p.pages;
  ImGui::SetWindowFontScale(1.f);
  const float base = ImGui::GetFontSize();
  ImGui::SetWindowFontScale(vs.lesson_scale);
  const float least = lesson_tail_px(base) / base;
  vs.lesson_fitting = true;
  if (vs.lesson_scale > least + 1e-4f) {
    vs.lesson_scale = std::max(least, vs.lesson_scale * 0.97f);
    return;
  }
  p.tail_balance = true;
  vs.lesson_scale = font_scale;
}
}  // namespace

void fit_lesson(App& app, float want, float have, float need) {
  ViewState& vs = app.vs;
  want = std::ceil(want) + 2;
  // A hang beat's picture at the font's size (hang_panel.cpp): the lesson
  // claims no more than the room it leaves (five lines at least); its text
  // goes on over continuation pages.
  if (vs.hang_need_h > 0 && app.lesson->current().kind == lesson::Beat::Kind::hang && vs.layout.side.h > 0) {
    const float usable = vs.layout.side.bottom() - vs.layout.topology.y - ImGui::GetStyle().ItemSpacing.y;
    const float least = 5 * ImGui::GetTextLineHeightWithSpacing() + 2 * ImGui::GetStyle().WindowPadding.y;
    want = std::min(want, std::max(least, std::floor(usable - vs.hang_need_h)));
  }
  vs.lesson_fitting = app.presenter.pages_moved;
  if (!vs.lesson_hold_h && std::abs(want - vs.lesson_want_h) > 1) {  // the layout gives the room from the next frame
    vs.lesson_want_h = want;
    vs.lesson_fitting = true;
    return;
  }
  if (need <= have + 1) {
    vs.lesson_clipped = false;
    return;
  }
  ImGui::SetWindowFontScale(1.f);
  const float min_scale = lesson_min_px(ImGui::GetFontSize()) / ImGui::GetFontSize();
  ImGui::SetWindowFontScale(vs.lesson_scale);
  if (vs.lesson_scale <= min_scale + 1e-4f) {
    if (vs.lesson_hold_h) {  // the answer needs more room than the question had: take it after all
      vs.lesson_hold_h = false;
      vs.lesson_scale = 1;
      vs.lesson_fitting = true;
      return;
    }
    // kLessonMaxShare and lesson_min_px leave no more room: the text goes
    // on over continuation pages (end_page_column), cut only where a single
    // line does not fit a page.
    vs.lesson_clipped = app.presenter.unsplittable;
    squeeze_tail(app, min_scale);
    return;
  }
  vs.lesson_scale = std::max(min_scale, vs.lesson_scale * std::clamp(std::sqrt(have / need), 0.8f, 0.97f));
  vs.lesson_fitting = true;
}

}  // namespace microddp::viz
