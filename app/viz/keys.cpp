#include "app/viz/keys.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

namespace microddp::viz {

static_assert(static_cast<int>(Key::step) == GLFW_KEY_RIGHT && static_cast<int>(Key::back) == GLFW_KEY_LEFT &&
              static_cast<int>(Key::play) == GLFW_KEY_SPACE && static_cast<int>(Key::reset) == GLFW_KEY_R);
static_assert(static_cast<int>(Key::page_down) == GLFW_KEY_PAGE_DOWN && static_cast<int>(Key::page_up) == GLFW_KEY_PAGE_UP &&
              static_cast<int>(Key::home) == GLFW_KEY_HOME && static_cast<int>(Key::escape) == GLFW_KEY_ESCAPE &&
              static_cast<int>(Key::present) == GLFW_KEY_F5);

bool key_pressed(Key k) {
  if (ImGui::GetIO().WantTextInput) return false;
  return ImGui::IsKeyPressed(static_cast<int>(k), true);
}

bool key_pressed_while_typing(Key k) { return ImGui::IsKeyPressed(static_cast<int>(k), false); }

}  // namespace microddp::viz
