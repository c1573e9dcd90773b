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
    ImGui::TextUnformatted("Class poll: votes per choice, then Enter");
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
  const float bar_max = std::max(ImGui::GetFontSize() * 3, ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6);
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

void begin_fit_lesson(App& app) {
  ViewState& vs = app.vs;
  LessonView& L = *app.lesson;
  const Answer& a = L.answer();
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const std::string key =
      fmt::format("{} {}{}{} {} {} {}x{} {} {} {} {}", L.beat(), a.answered, a.revealed, a.right, L.checks_ready(),
                  vs.lesson_note, d.x, d.y, vs.font_px, static_cast<int>(vs.view), app.presenter.poll_open,
                  app.presenter.polls.count(L.beat()));
  // The slide is the same before and after the answer: its note as answered
  // (a held note, e.g. the bytes line, comes back with the answer).
  const std::string& note = L.held_note.empty() ? vs.lesson_note : L.held_note;
  const std::string slide = fmt::format("{} {} {}x{} {} {} {}", L.beat(), note, d.x, d.y, vs.font_px,
                                        static_cast<int>(vs.view), app.presenter.poll_open);
  if (key != vs.lesson_fit_key) {
    vs.lesson_fit_key = key;
    // The same slide, answered: keep the panel's height (no jump on reveal).
    vs.lesson_hold_h = slide == vs.lesson_slide_key && vs.lesson_want_h > 0;
    vs.lesson_slide_key = slide;
    vs.lesson_scale = 1;
    if (!vs.lesson_hold_h) vs.lesson_want_h = 0;
    vs.lesson_clipped = false;
    vs.lesson_fitting = true;
  }
  ImGui::SetWindowFontScale(1.f);
  const float base_px = ImGui::GetFontSize();
  vs.lesson_scale = std::max(vs.lesson_scale, std::min(1.f, kLessonMinPx / base_px));
  ImGui::SetWindowFontScale(vs.lesson_scale);
}

void fit_lesson(App& app, float want, float have, float need) {
  ViewState& vs = app.vs;
  want = std::ceil(want) + 2;
  vs.lesson_fitting = false;
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
  const float min_scale = std::min(1.f, kLessonMinPx / ImGui::GetFontSize());
  ImGui::SetWindowFontScale(vs.lesson_scale);
  if (vs.lesson_scale <= min_scale + 1e-4f) {
    if (vs.lesson_hold_h) {  // the answer needs more room than the question had: take it after all
      vs.lesson_hold_h = false;
      vs.lesson_scale = 1;
      vs.lesson_fitting = true;
      return;
    }
    vs.lesson_clipped = true;  // the slide cuts the text: kLessonMaxShare and kLessonMinPx leave no more room
    return;
  }
  vs.lesson_scale = std::max(min_scale, vs.lesson_scale * std::clamp(std::sqrt(have / need), 0.8f, 0.97f));
  vs.lesson_fitting = true;
}

}  // namespace microddp::viz
