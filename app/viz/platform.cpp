#include "app/viz/platform.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <GL/gl.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <stb_image_write.h>  // implementation lives in libstb

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "assets/palette.h"
#include "core/types.h"

namespace microddp::viz {

bool display_named() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

void setup_style() {
  ImGui::StyleColorsLight();
  ImGuiStyle& st = ImGui::GetStyle();
  st.WindowRounding = 0;
  st.ChildRounding = 4;
  st.FrameRounding = 4;
  st.GrabRounding = 4;
  st.FramePadding = ImVec2(6, 4);
  st.ItemSpacing = ImVec2(8, 6);
  st.WindowPadding = ImVec2(8, 8);
  auto c = [](uint32_t rgb, float a = 1.f) {
    return ImVec4(float((rgb >> 16) & 255) / 255.f, float((rgb >> 8) & 255) / 255.f, float(rgb & 255) / 255.f, a);
  };
  st.Colors[ImGuiCol_WindowBg] = c(assets::kBackground);
  st.Colors[ImGuiCol_ChildBg] = c(assets::kPanel);
  st.Colors[ImGuiCol_Text] = c(assets::kInk);
  st.Colors[ImGuiCol_Border] = c(assets::kFaint);
  st.Colors[ImGuiCol_Button] = c(assets::kActive, 0.18f);
  st.Colors[ImGuiCol_ButtonHovered] = c(assets::kActive, 0.35f);
  st.Colors[ImGuiCol_ButtonActive] = c(assets::kActive, 0.55f);
  st.Colors[ImGuiCol_FrameBg] = c(0xE6E6E2);
}

void add_fonts(float px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (std::filesystem::exists(path)) {
    // Latin-1 plus the Greek letters (α, β, γ), dashes, arrows, ≈ ≤ ≥ − and
    // the ✓ / ✗ marks that lesson texts and the lesson panel use.
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0391, 0x03C9, 0x2013, 0x2014, 0x2190, 0x2193,
                                     0x2212, 0x2212, 0x2248, 0x2248, 0x2264, 0x2265, 0x2713, 0x2713,
                                     0x2717, 0x2717, 0};
    io.Fonts->AddFontFromFileTTF(path, px, nullptr, ranges);
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    io.Fonts->AddFontDefault(&cfg);
  }
}

Platform::Platform(const PlatformOptions& opt) {
  glfwSetErrorCallback([](int, const char*) {});
  if (!glfwInit()) throw std::runtime_error("GLFW could not open the display");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_VISIBLE, opt.visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  win_ = glfwCreateWindow(opt.width, opt.height, "microddp-viz", nullptr, nullptr);
  if (!win_) {
    glfwTerminate();
    throw std::runtime_error("no OpenGL 3.3 core context on this display");
  }
  glfwMakeContextCurrent(win_);
  glfwSwapInterval(opt.vsync ? 1 : 0);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini
  ImGui::GetIO().LogFilename = nullptr;
  setup_style();
  ImGui_ImplGlfw_InitForOpenGL(win_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  load_fonts(opt.font_px);
}

Platform::~Platform() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(win_);
  glfwTerminate();
}

void Platform::load_fonts(float px) {
  add_fonts(px);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  font_px_ = px;
}

bool Platform::should_close() const { return glfwWindowShouldClose(win_); }

void Platform::new_frame(float font_px) {
  glfwPollEvents();
  if (font_px != font_px_) load_fonts(font_px);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void Platform::render() {
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(win_, &w, &h);
  glViewport(0, 0, w, h);
  const uint32_t bg = assets::kBackground;
  glClearColor(float((bg >> 16) & 255) / 255.f, float((bg >> 8) & 255) / 255.f, float(bg & 255) / 255.f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

std::vector<uint8_t> Platform::read_back_buffer(int& w, int& h) const {
  glfwGetFramebufferSize(win_, &w, &h);
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's first row is the bottom one.
  std::vector<uint8_t> out(px.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) std::copy_n(px.data() + (h - 1 - y) * row, row, out.data() + y * row);
  return out;
}

void Platform::swap() { glfwSwapBuffers(win_); }
double Platform::time() const { return glfwGetTime(); }

void write_png(const std::string& path, int w, int h, const std::vector<uint8_t>& rgba) {
  if (!stbi_write_png(path.c_str(), w, h, 4, rgba.data(), w * 4))
    throw UsageError(fmt::format("cannot write PNG '{}'", path));
}

}  // namespace microddp::viz
