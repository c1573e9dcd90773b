// Lesson panel: the open lesson's title, "beat k of N", Previous /
// Next, the beat's text (with *emphasis*), its question (choice buttons or a
// value field, then the feedback and the explanation) and its checks, each
// ✓ or ✗ with expected vs actual from a real run. lesson_sync() drives the
// session to the beat's setup and step; the topology and buffers panels
// outline what the beat highlights (lesson_highlight_color()).
#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/viz/keys.h"
#include "app/viz/panels.h"
#include "assets/palette.h"

namespace microddp::viz {

static_assert(static_cast<int>(Key::next_beat) == GLFW_KEY_N && static_cast<int>(Key::prev_beat) == GLFW_KEY_P);

namespace {

constexpr uint32_t kHighlight = 0xE6007E;  // magenta: no rank colour, reads on the light theme
constexpr uint32_t kPass = 0x007A4D, kFail = 0xC0392B;

// Words with ImGui's own wrapping, so emphasised runs can take a colour.
void draw_runs(const std::vector<TextRun>& runs) {
  const float right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
  const float space = ImGui::CalcTextSize(" ").x;
  const ImVec4 emph = ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive)));
  bool line_start = true, gap = false;
  for (const TextRun& run : runs) {
    if (run.paragraph) ImGui::Spacing();
    if (run.newline) line_start = true, gap = false;
    if (run.pre) {  // an indented line (a formula): as is, on its own line
      ImGui::TextUnformatted(run.text.c_str());
      line_start = true;
      continue;
    }
    size_t i = 0;
    while (i < run.text.size()) {
      if (run.text[i] == ' ') {
        gap = true;
        ++i;
        continue;
      }
      const size_t e = std::min(run.text.find(' ', i), run.text.size());
      const std::string word = run.text.substr(i, e - i);
      i = e;
      const float w = ImGui::CalcTextSize(word.c_str()).x;
      if (!line_start) {
        ImGui::SameLine(0, gap ? space : 0);
        if (ImGui::GetCursorPosX() + w > right) ImGui::NewLine();
      }
      if (run.emphasis) ImGui::TextColored(emph, "%s", word.c_str());
      else ImGui::TextUnformatted(word.c_str());
      line_start = false;
      gap = false;
    }
  }
}

void draw_question(App& app) {
  LessonView& L = *app.lesson;
  const auto& q = *L.current().question;
  Answer& a = L.answer();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive))), "Question");
  ImGui::TextWrapped("%s", q.ask.c_str());
  if (!q.choices.empty()) {
    for (size_t i = 0; i < q.choices.size(); ++i) {
      const bool picked = a.answered && a.chosen == static_cast<int>(i);
      if (picked) {
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(a.right ? kPass : kFail)));
        ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(c.x, c.y, c.z, 0.35f));
      }
      // A numbered button and the choice's text, wrapped (long choices fit).
      const std::string label = fmt::format("{}##choice{}", i + 1, i);
      if (ImGui::Button(label.c_str())) L.choose(static_cast<int>(i));
      if (picked) ImGui::PopStyleColor();
      ImGui::SameLine();
      ImGui::TextWrapped("%s", q.choices[i].c_str());
      if (ImGui::IsItemClicked()) L.choose(static_cast<int>(i));
    }
  } else {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    const bool enter = ImGui::InputText("##value", &a.typed, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Check") || enter) L.submit(a.typed);
  }
  if (a.answered) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(a.right ? kPass : kFail))), "%s",
                       L.feedback().c_str());
    if (!q.explain.empty()) ImGui::TextWrapped("%s", q.explain.c_str());
  }
}

void draw_checks(App& app) {
  LessonView& L = *app.lesson;
  const auto& checks = L.current().checks;
  if (checks.empty()) return;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(assets::kActive))), "Checks (real run)");
  if (!L.checks_ready()) {
    ImGui::TextDisabled("running %zu check%s...", checks.size(), checks.size() == 1 ? "" : "s");
    return;
  }
  if (!L.check_error().empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail))), "could not run: %s",
                       L.check_error().c_str());
    return;
  }
  for (const auto& r : *L.results()) {
    if (r.skipped) {  // a lab check: the window does not start the cluster lab
      ImGui::TextDisabled("\u2013 %s: %s", r.what.c_str(), r.actual.c_str());
      continue;
    }
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(im(from_hex(r.pass ? kPass : kFail)));
    ImGui::TextColored(c, "%s", r.pass ? "\u2713" : "\u2717");
    ImGui::SameLine();
    if (r.pass) ImGui::TextWrapped("%s: %s", r.what.c_str(), r.actual.c_str());
    else ImGui::TextWrapped("%s: expected %s, got %s", r.what.c_str(), r.expected.c_str(), r.actual.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("expected %s\nactual %s\n%s", r.expected.c_str(), r.actual.c_str(), r.mark.str().c_str());
  }
}

void draw_body(App& app) {
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

  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float text_w = std::floor((ImGui::GetContentRegionAvail().x - gap) * 0.56f);
  ImGui::BeginChild("beat_text", ImVec2(text_w, 0), false);
  if (!vs.lesson_error.empty())
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im(from_hex(kFail))), "%s", vs.lesson_error.c_str());
  draw_runs(text_runs(L.current().text));
  if (!vs.lesson_note.empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("(%s)", vs.lesson_note.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("beat_qa", ImVec2(0, 0), false);
  if (L.current().question) {
    draw_question(app);
    ImGui::Spacing();
  }
  draw_checks(app);
  if (!L.current().question && L.current().checks.empty()) ImGui::TextDisabled("(no question or checks in this beat)");
  ImGui::EndChild();
}

}  // namespace

ImU32 lesson_highlight_color() { return im(from_hex(kHighlight)); }

void action_next_beat(App& app) {
  if (app.lesson) app.lesson->next();
}

void action_prev_beat(App& app) {
  if (app.lesson) app.lesson->previous();
}

void lesson_sync(App& app) {
  if (!app.lesson) return;
  LessonView& L = *app.lesson;
  if (L.driven_beat() == L.beat()) return;
  L.mark_driven();
  ViewState& vs = app.vs;
  vs.lesson_error.clear();
  vs.lesson_note.clear();
  vs.playing = false;
  L.start_checks();
  BeatTarget t;
  try {
    t = beat_target(L.current());
  } catch (const std::exception& e) {
    vs.lesson_error = e.what();
    return;
  }
  vs.lesson_note = t.note;
  if (!t.drive) return;
  vs.edit = t.params;
  apply_params(app);  // re-plans and re-runs only when the setup differs
  if (!(app.session.params() == t.params)) {
    vs.lesson_error = vs.error.empty() ? "this beat's setup could not be applied" : vs.error;
    return;
  }
  app.session.seek(t.position);
  vs.anim = 1;
}

void draw_lesson(App& app) {
  if (!app.lesson) return;
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
