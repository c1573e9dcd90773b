// A real ImGui context with no GL backend, for UI-logic tests: frames run
// the app's tick + draw_ui exactly as the window does, and key presses go
// through the same GLFW-code helper (app/viz/keys.h).
#pragma once
#include <imgui.h>

#include "app/viz/keys.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"

namespace microddp::viz::test {

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
  void frame(App& app) {
    t += 1.0 / 60;
    ImGui::NewFrame();
    tick(app, t);
    draw_ui(app);
    ImGui::Render();
  }
  void press(App& app, Key k) {
    ImGui::GetIO().KeysDown[static_cast<int>(k)] = true;
    frame(app);
    ImGui::GetIO().KeysDown[static_cast<int>(k)] = false;
    frame(app);
  }
};

}  // namespace microddp::viz::test
