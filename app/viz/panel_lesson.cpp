// Lesson panel: the open lesson's title, "beat k of N", Previous /
// Next, the beat's text (with *emphasis*), its question (choice buttons or a
// value field, then the feedback and the explanation) and its checks, each
// ✓ or ✗ with expected vs actual from a real run. lesson_sync()
// (lesson_sync.cpp) drives the session to the beat's setup and step; the
// topology and buffers panels outline what the beat highlights
// (lesson_highlight_color()). --present: a slide (present.h).
#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "app/viz/compare_panel.h"
#include "app/viz/keys.h"
#include "app/viz/lesson_text.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "assets/palette.h"

namespace microddp::viz {

static_assert(static_cast<int>(Key::next_beat) == GLFW_KEY_N && static_cast<int>(Key::prev_beat) == GLFW_KEY_P);

namespace {

constexpr uint32_t kHighlight = 0xE6007E;  // magenta: no rank colour, reads on the light theme
constexpr uint32_t kPass = 0x007A4D, kFail = 0xC0392B;
constexpr uint32_t kCode = 0x8A4B08;  // a `code span`: brown, apart from the blue emphasis

// The runs laid out in lines (lesson_text.h wrap_runs: a bracket stays
// with the code span it opens), each piece in its run's colour.
void draw_runs(const std::vector<TextRun>& runs) {
  const float space = ImGui::CalcTextSize(" ").x;
  const ImVec4 emph = ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive)));
  const ImVec4 code = ImGui::ColorConvertU32ToFloat4(im(from_hex(kCode)));
  const auto measure = [](std::string_view w) { return ImGui::CalcTextSize(w.data(), w.data() + w.size()).x; };
  for (const RunLine& line : wrap_runs(runs, ImGui::GetContentRegionAvail().x, space, measure)) {
    if (line.paragraph) ImGui::Spacing();
    page_line();  // a page may start at this line (present.h)
    bool first = true;
    for (const RunPiece& p : line.pieces) {
      if (!first) ImGui::SameLine(0, p.gap ? space : 0);
      first = false;
      const TextRun& run = runs[p.run];
      if (run.code) ImGui::TextColored(code, "%s", p.text.c_str());
      else if (run.emphasis) ImGui::TextColored(emph, "%s", p.text.c_str());
      else ImGui::TextUnformatted(p.text.c_str());
    }
  }
}

// `text` wrapped at spaces only, from the cursor's x (a number never breaks
// mid-number, as ImGui::TextWrapped does after '.'); `color` when given;
// up to the window's x = right_x when given (the class poll's bars beside);
// `whole`: a continuation page may start at its first line only (a
// question's choice is never split over two pages).
void draw_wrapped(const std::string& text, const ImVec4* color = nullptr, float right_x = 0, bool whole = false) {
  const float x = ImGui::GetCursorPosX();
  const auto measure = [](std::string_view w) { return ImGui::CalcTextSize(w.data(), w.data() + w.size()).x; };
  bool first = true;
  const float width = right_x > x ? right_x - x : ImGui::GetContentRegionAvail().x;  // right_x: up to there
  for (const std::string& line : wrap_words(text, width, measure)) {
    if (!first) ImGui::SetCursorPosX(x);
    if (first || !whole) page_line();
    first = false;
    if (color) ImGui::TextColored(*color, "%s", line.c_str());
    else ImGui::TextUnformatted(line.c_str());
  }
}

// A heading ("Question", "Checks (real run)"): whole on one page, and
// never the last line of a page (present.h page_keep_next).
void draw_heading(const std::string& text, const ImVec4* color) {
  draw_wrapped(text, color, 0, true);
  page_keep_next();
}

// A note or a question's text ("(this beat measures in the cluster lab ... (`microddp lesson` does))") without the code spans' backticks.
std::string plain(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

void draw_question(App& app) {
  LessonView& L = *app.lesson;
  const auto& q = *L.current().question;
  Answer& a = L.answer();
  const ImVec4 title = ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive)));
  draw_heading("Question", &title);
  draw_wrapped(plain(q.ask));
  if (app.vs.present) {
    // A projected slide: no buttons or field (R reveals, P polls); the
    // choices as numbered text, the picked (or revealed) one coloured.
    const float poll_x = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x * 0.5f;
    const bool poll = app.presenter.polls.count(L.beat()) > 0;
    for (size_t i = 0; i < q.choices.size(); ++i) {
      const bool picked = a.answered && (a.revealed ? q.answer == static_cast<int>(i) + 1 : a.chosen == static_cast<int>(i));
      const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(a.right || a.revealed ? kPass : kFail)));
      ImGui::BeginGroup();
      draw_wrapped(fmt::format("{}) {}", i + 1, plain(q.choices[i])), picked ? &c : nullptr,
                   poll ? poll_x - ImGui::GetStyle().ItemSpacing.x : 0, true);
      ImGui::EndGroup();
      draw_poll_bar(app, static_cast<int>(i), poll_x);
    }
  } else if (!q.choices.empty()) {
    const float poll_x = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x * 0.5f;
    for (size_t i = 0; i < q.choices.size(); ++i) {
      // Revealed (R, present.h): the right choice is marked as if picked.
      const bool picked = a.answered && (a.revealed ? q.answer == static_cast<int>(i) + 1 : a.chosen == static_cast<int>(i));
      if (picked) {
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(a.right || a.revealed ? kPass : kFail)));
        ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(c.x, c.y, c.z, 0.35f));
      }
      // A numbered button and the choice's text, wrapped (long choices fit).
      const std::string label = fmt::format("{}##choice{}", i + 1, i);
      if (ImGui::Button(label.c_str())) L.choose(static_cast<int>(i));
      if (picked) ImGui::PopStyleColor();
      ImGui::SameLine();
      const bool poll = app.presenter.polls.count(L.beat()) > 0;
      ImGui::BeginGroup();
      draw_wrapped(q.choices[i], nullptr, poll ? poll_x - ImGui::GetStyle().ItemSpacing.x : 0);  // bars on the right
      ImGui::EndGroup();
      if (ImGui::IsItemClicked()) L.choose(static_cast<int>(i));
      draw_poll_bar(app, static_cast<int>(i), poll_x);
    }
  } else {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    const bool enter = ImGui::InputText("##value", &a.typed, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Check") || enter) L.submit(a.typed);
  }
  draw_poll(app);  // present.h: P's field and the class's votes as bars
  if (a.revealed || (app.vs.present && a.answered && a.right)) {  // on a slide the answer as text
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(kPass)));
    draw_wrapped((a.revealed ? "Answer: " : "Right. Answer: ") + L.right_answer(), &c);
    if (!q.explain.empty()) draw_runs(text_runs(q.explain));  // its `code` in the code colour, as the beat text's
  } else if (a.answered) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(a.right ? kPass : kFail)));
    draw_wrapped(L.feedback(), &c);
    if (!q.explain.empty()) draw_runs(text_runs(q.explain));  // its `code` in the code colour, as the beat text's
  }
  // No key hint ("R reveals the answer") on a projected or printed slide:
  // the class sees it, the lecturer's speaker view (--speaker) says it.
}

void draw_checks(App& app) {
  LessonView& L = *app.lesson;
  const auto& checks = L.current().checks;
  if (checks.empty()) return;
  const ImVec4 title = ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive)));
  if (L.checks_hidden()) {
    // The checks' values would answer the question, and a count of those
    // that pass beside "shown after you answer" reads as both at once: one
    // line, the checks themselves once answered.
    draw_wrapped("Checks: shown after you answer", &title);
    return;
  }
  // Wrapped: "Checks (real run, model ...)" is wider than the checks'
  // column at --font-px 28 (it was cut at the panel's right edge).
  draw_heading(checks_heading(L.current()), &title);
  if (!L.checks_ready()) {
    const ImVec4 faint = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    draw_wrapped(fmt::format("running {} check{}\u2026", checks.size(), checks.size() == 1 ? "" : "s"), &faint);
    return;
  }
  if (!L.check_error().empty() && LessonView::checks_skipped_by_env()) {
    // Not a failure: "checks skipped (MICRODDP_VIZ_SKIP_CHECKS is set)", the
    // variable's name broken after an '_' where the column is narrower (wrap_words).
    const ImVec4 faint = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    draw_wrapped("checks " + L.check_error(), &faint);
    return;
  }
  if (!L.check_error().empty()) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail)));
    draw_wrapped("could not run: " + L.check_error(), &c);
    return;
  }
  const ImVec4 disabled = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  if (app.vs.present) {  // a slide: the passing checks folded into one line, the others listed
    const ImVec4 fail = ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail)));
    for (const auto& r : *L.results())
      if (!r.skipped && !r.pass) draw_wrapped("\u2717 " + check_line(r), &fail);
    const PresentCheckFolds f = present_check_folds(*L.results());
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(kPass)));
    if (!f.pass.empty()) draw_wrapped(f.pass, &c);
    if (!f.not_shown.empty()) draw_wrapped(f.not_shown, &disabled);
    if (!f.lab.empty()) draw_wrapped(f.lab, &disabled);
    return;
  }
  for (const auto& r : *L.results()) {
    if (r.skipped) {  // a lab check: the window does not start the cluster lab
      draw_wrapped("\u2013 " + check_line(r), &disabled);
      continue;
    }
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(r.pass ? kPass : kFail)));
    ImGui::TextColored(c, "%s", r.pass ? "\u2713" : "\u2717");
    ImGui::SameLine();
    ImGui::BeginGroup();
    draw_wrapped(check_line(r));
    ImGui::EndGroup();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("expected %s\nactual %s\n%s", r.expected.c_str(), r.actual.c_str(), r.mark.str().c_str());
  }
}

// Present mode's header: the beat and the lesson's title, no buttons (N / P step).
void draw_present_header(const App& app, const LessonView& L) {
  const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  draw_wrapped(fmt::format("Beat {} of {}{} \u00b7 {}", L.beat() + 1, L.num_beats(), page_label(app), L.lesson().title), &c);
}

void draw_buttons_header(App& app) {
  ViewState& vs = app.vs;
  LessonView& L = *app.lesson;
  if (ImGui::Button("< Previous (P)")) action_prev_beat(app);
  ImGui::SameLine();
  if (ImGui::Button("Next (N) >")) action_next_beat(app);
  {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    vs.lesson_next_button[0] = a.x, vs.lesson_next_button[1] = a.y;
    vs.lesson_next_button[2] = b.x, vs.lesson_next_button[3] = b.y;
  }
  ImGui::SameLine();
  ImGui::Text("Beat %d of %d", L.beat() + 1, L.num_beats());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", L.lesson().title.c_str());
  if (ImGui::IsItemHovered() && !L.lesson().summary.empty()) ImGui::SetTooltip("%s", L.lesson().summary.c_str());
}

void draw_body(App& app) {
  ViewState& vs = app.vs;
  LessonView& L = *app.lesson;
  const bool present = vs.present;
  if (present) {
    draw_present_header(app, L);
  } else {
    draw_buttons_header(app);
  }
  const float header_y = ImGui::GetCursorPosY();
  // Present mode: no scrollbars; the heights the two columns need are
  // measured and the panel fitted (fit_lesson) instead.
  const ImGuiWindowFlags flags = present ? ImGuiWindowFlags_NoScrollbar : 0;
  float need = 0, have = 0;
  const auto measure = [&] {
    need = std::max(need, ImGui::GetCursorPosY());
    have = ImGui::GetWindowHeight();
  };

  const float gap = ImGui::GetStyle().ItemSpacing.x;
  // A slide of a beat with no question or checks: the text takes the width.
  const bool qa = !present || L.current().question || !L.current().checks.empty();
  // Checks alone (folded to a line or two on a slide) need less of the width than a question.
  const float qa_share = present && !L.current().question ? 0.22f : 0.44f;
  const float text_w = qa ? std::floor((ImGui::GetContentRegionAvail().x - gap) * (1 - qa_share)) : 0.f;
  ImGui::BeginChild("beat_text", ImVec2(text_w, 0), false, flags);
  begin_page_column(app, 0);  // --present: this page's lines (present.h)
  if (!vs.lesson_error.empty()) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail)));
    draw_wrapped(vs.lesson_error, &c);
  }
  // A stand-in run is said before the text: the panels above are not the
  // beat's own size.
  const bool note_first = vs.lesson_note.rfind(kStandInNote, 0) == 0;
  if (note_first) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive)));
    draw_wrapped(plain(vs.lesson_note), &c);
    ImGui::Spacing();
  }
  draw_runs(text_runs(L.current().text));
  if (!vs.lesson_note.empty() && !note_first) {
    ImGui::Spacing();
    const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    draw_wrapped("(" + plain(vs.lesson_note) + ")", &c);
  }
  if (present && vs.view == View::ddp && app.ddp.runner.result() && !vs.ddp_note_shown) {
    // The DDP picture's "How to read it" paragraph did not fit above (ui.cpp fit_ddp_note): say where it is.
    const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    draw_wrapped(kDdpNotePointer, &c);
  }
  end_page_column(app, 0);
  measure();
  ImGui::EndChild();
  if (!qa) {
    fit_lesson(app, header_y + need + ImGui::GetStyle().WindowPadding.y, have, need);
    return;
  }
  ImGui::SameLine();
  ImGui::BeginChild("beat_qa", ImVec2(0, 0), false, flags);
  begin_page_column(app, 1);
  if (L.current().question) {
    draw_question(app);
    ImGui::Spacing();
  }
  draw_checks(app);
  if (!L.current().question && L.current().checks.empty()) {
    const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    draw_wrapped("(no question or checks in this beat)", &c);
  }
  end_page_column(app, 1);
  measure();
  ImGui::EndChild();
  if (present) fit_lesson(app, header_y + need + ImGui::GetStyle().WindowPadding.y, have, need);
}


}  // namespace

ImU32 lesson_highlight_color() { return im(from_hex(kHighlight)); }

void action_next_beat(App& app) {
  if (app.lesson) app.lesson->next();
}

void action_prev_beat(App& app) {
  if (app.lesson) app.lesson->previous();
}

void draw_view_with_lesson(App& app) {
  // With large text the compare view's controls wrap onto more lines:
  // it gets more of the height so that its columns' text and the sweep
  // plot both stay legible (the lesson's text scrolls). Present mode has
  // no controls: the lesson gets the height they took, so that a
  // question's answer field shows at 28 px (lesson 03 beat 8).
  const float share = app.vs.present ? 0.55f : ImGui::GetFontSize() >= 24 ? 0.72f : 0.62f;
  const float avail = ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y;
  float h = std::floor(avail * share);
  // --present, once the lesson panel has measured its text (present.h): it
  // gets the height the text needs (a quarter of the window at least, at
  // most kCompareLessonMaxShare), and the compare view the rest.
  // Less than the other views' kLessonMaxShare: the columns' text and the
  // sweep plot both need lines of the text size (at --font-px 28 the plot
  // was squeezed to a line), so the lesson's text goes onto continuation
  // pages first (at the font's size, present.h lesson_min_px).
  // At smaller text the plot's lines take less of the window: up to 45% at
  // 18 px (issue 37, lecturer pass 4: lesson 05 beat 7's answer shrank to
  // 14 px beside a plot with room), kCompareLessonMaxShare from 28 px on.
  const float most = std::clamp(kCompareLessonMaxShare + (28 - ImGui::GetFontSize()) * 0.015f,
                                kCompareLessonMaxShare, 0.45f);
  if (app.vs.present && app.vs.lesson_want_h > 0)
    h = std::floor(avail - std::clamp(app.vs.lesson_want_h, avail * 0.25f, avail * most));
  // A handout page with room for more picture (handout.h handout_picture_h); the lesson panel, not printed, keeps a line.
  if (app.vs.handout && app.presenter.handout_picture_h > 0)
    h = std::floor(std::clamp(app.presenter.handout_picture_h - ImGui::GetCursorScreenPos().y -
                                  ImGui::GetStyle().ItemSpacing.y / 2,
                              h, avail - 2 * ImGui::GetTextLineHeightWithSpacing()));
  // The window (no --present) on a compare beat: the view's controls whole
  // and its plot at kDeskPlotShare of the window (compare_panel.h), the
  // lesson below keeping three lines at least.
  if (!app.vs.present && !app.vs.handout && app.vs.view == View::compare) {
    const float lesson_least = 3 * ImGui::GetTextLineHeightWithSpacing() + 2 * ImGui::GetStyle().WindowPadding.y +
                               2 * ImGui::GetFrameHeightWithSpacing();  // its tabs and buttons, three lines of text
    h = std::floor(std::clamp(compare_panel::desk_compare_want_h(), h, std::max(h, avail - lesson_least)));
  }
  ImGui::BeginChild("lesson_view", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar);
  if (!app.vs.present) draw_controls(app);
  apply_params(app);
  if (app.session.configured()) draw_compare(app);
  else ImGui::TextWrapped("%s", app.vs.error.c_str());
  ImGui::EndChild();
  ImGui::BeginChild("lesson", ImVec2(0, 0), true);
  draw_lesson(app);
  ImGui::EndChild();
}

void draw_lesson(App& app) {
  if (!app.lesson) return;
  if (app.vs.present) {  // a slide: no tabs (the stats are the window's, not the lecture's)
    begin_fit_lesson(app);
    draw_body(app);
    return;
  }
  ImGui::SetWindowFontScale(1.f);
  if (ImGui::BeginTabBar("lesson_tabs")) {
    if (ImGui::BeginTabItem("Lesson")) {
      draw_body(app);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Stats")) {
      draw_stats(app);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace microddp::viz
