// A real ImGui context with no GL backend, for UI-logic tests: frames run
// the app's tick + draw_ui exactly as the window does, and key presses go
// through the same GLFW-code helper (app/viz/keys.h). With the slide tests'
// shared set-up: a lesson opened at a beat as --present shows it, the
// lesson panel alone, the binary's options, the lesson checks held back.
#pragma once
#include <imgui.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/viz/keys.h"
#include "app/viz/layout.h"
#include "app/viz/lesson_view.h"
#include "app/viz/options.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"
#include "core/ir/types.h"
#include "core/labs/lesson/lesson.h"

namespace microddp::viz::test {

// One frame as the window runs it: the clock a 60th of a second on, the
// app's tick, then draw_ui.
inline void run_frame(App& app, double& t) {
  t += 1.0 / 60;
  ImGui::NewFrame();
  tick(app, t);
  draw_ui(app);
  ImGui::Render();
}

struct Headless {
  double t = 0;
  Headless() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 720);
    io.DeltaTime = 1.f / 60;
    setup_style();
    io.Fonts->AddFontDefault();
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);  // builds the font atlas, no GL needed
  }
  ~Headless() { ImGui::DestroyContext(); }
  Headless(const Headless&) = delete;
  Headless& operator=(const Headless&) = delete;
  void frame(App& app) { run_frame(app, t); }
  void press(App& app, Key k) {
    ImGui::GetIO().KeysDown[static_cast<int>(k)] = true;
    frame(app);
    ImGui::GetIO().KeysDown[static_cast<int>(k)] = false;
    frame(app);
  }
};

// A headless window with the real font at `px` (DejaVu Sans, as a slide and
// --export-frames draw it; Headless has ImGui's narrower 13 px default) and
// a display of `size`: for slide layout and glyph-size tests.
struct FontWindow {
  double t = 0;
  explicit FontWindow(float px = 18, ImVec2 size = ImVec2(1280, 720)) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = size;
    io.DeltaTime = 1.f / 60;
    setup_style();
    add_fonts(px);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  ~FontWindow() { ImGui::DestroyContext(); }
  FontWindow(const FontWindow&) = delete;
  FontWindow& operator=(const FontWindow&) = delete;
  void frame(App& app) { run_frame(app, t); }
  void frames(App& app, int n = 4) {
    for (int i = 0; i < n; ++i) frame(app);
  }
  // As Frames::still: a few frames, then until the lesson panel's fit settles.
  void settle(App& app) {
    for (int i = 0; i < 3; ++i) frame(app);
    for (int i = 0; i < 40 && app.vs.lesson_fitting; ++i) frame(app);
  }
};

// MICRODDP_VIZ_SKIP_CHECKS set while one lives: the lesson's checks are not
// run (the slides are what is tested); it unsets the variable again, so the
// other suites of the binary run theirs. Declared before the App it serves.
struct SkipLessonChecks {
  SkipLessonChecks() { ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipLessonChecks() { ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
  SkipLessonChecks(const SkipLessonChecks&) = delete;
  SkipLessonChecks& operator=(const SkipLessonChecks&) = delete;
};

// The lesson at `file` (a path) open in app at `beat` (0-based), as
// `microddp-viz --lesson FILE --beat N --present --font-px PX` shows it
// (reveal: --reveal, the answer slide). No frame is drawn: the caller
// settles its FontWindow (built at the same px). Throws LessonError for a
// bad lesson, as the window would.
inline void present_at(App& app, const std::string& file, int beat, float px, bool reveal = false) {
  app.vs.font_px = px;
  app.vs.present = true;
  app.presenter.reveal_all = reveal;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(file));
  app.lesson->go(beat);
}

// The lesson panel alone in w's 1280x720 window: draw_lesson in a child
// window panel_h pixels high (most_h(): the most the main view's layout
// gives it, kLessonMaxShare of the body), no GL and no run driven.
struct PanelOnly {
  FontWindow& w;
  float panel_h;
  // 349 px at 1280x720 with the app's style (FontWindow's).
  static float most_h() {
    const ImGuiStyle& st = ImGui::GetStyle();
    return std::floor((720 - 2 * st.WindowPadding.y - st.ItemSpacing.y) * kLessonMaxShare);
  }
  void draw(App& app) {
    w.t += 1.0 / 60;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1280, 720));
    ImGui::Begin("slide", nullptr, ImGuiWindowFlags_NoDecoration);
    ImGui::BeginChild("lesson", ImVec2(0, panel_h), true);
    draw_lesson(app);
    ImGui::EndChild();
    ImGui::End();
    ImGui::Render();
  }
  // One frame, then up to `most` more until the panel's fit settles.
  void settle(App& app, int most = 60) {
    draw(app);
    for (int i = 0; i < most && app.vs.lesson_fitting; ++i) draw(app);
  }
};

// parse_options and apply_options as the binary runs them on `args` (without
// the program's name): "" or the UsageError's text.
inline std::string open_with(App& app, std::vector<std::string> args) {
  args.insert(args.begin(), "microddp-viz");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Options o;
  try {
    if (parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value()) return "(parse_options: exit)";
    apply_options(app, o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace microddp::viz::test
