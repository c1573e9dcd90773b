// A real ImGui context with no GL backend, for UI-logic tests: frames run
// the app's tick + draw_ui exactly as the window does, and key presses go
// through the same GLFW-code helper (app/viz/keys.h).
#pragma once
#include <imgui.h>

#include "app/viz/keys.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"

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

}  // namespace microddp::viz::test
