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
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "assets/palette.h"
#include "core/ir/types.h"
#include "core/record/record_io.h"

namespace microddp::viz {

namespace {
// The stripe strip in the font atlas (stripe_quad). Each pattern takes
// kStripeRowH texel rows (sampled in the middle one, so bilinear filtering
// never reaches a neighbour) and its width plus one padding texel each side.
constexpr int kStripeW = 256, kStripeRows = 64, kStripeRowH = 3;
struct StripeStrip {
  int rect_id = -1;          // ImFontAtlas custom rect, set by add_fonts
  bool ready = false;        // atlas built and uploaded (Platform::load_fonts)
  int x = 0, y = 0;          // the strip's place in the atlas, texels
  int row = 0, col = 0;      // allocation cursor for this frame
  int rows_used = 0;
  std::vector<uint32_t> px;  // kStripeW x kStripeRows * kStripeRowH texels
} g_strip;
}  // namespace

bool display_named() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

void setup_style() {
  ImGui::StyleColorsLight();
  ImGuiStyle& st = ImGui::GetStyle();
  // Square corners throughout: a rounded rectangle is a fan of long thin
  // triangles plus an anti-aliased fringe, which a software rasteriser
  // (llvmpipe under Xvfb) shades several times over; a square one is two.
  // Lines without anti-aliased fringes: nearly all of ours are axis-aligned
  // and crisp without one, and every fringe is more triangles for a software
  // rasteriser. Curves, circles and diagonals re-enable it (SmoothLines).
  st.AntiAliasedLines = false;
  st.WindowRounding = 0;
  st.ChildRounding = 0;
  st.FrameRounding = 0;
  st.GrabRounding = 0;
  st.ScrollbarRounding = 0;
  st.TabRounding = 0;
  st.FramePadding = ImVec2(6, 4);
  st.ItemSpacing = ImVec2(8, 6);
  st.WindowPadding = ImVec2(8, 8);
  auto c = [](uint32_t rgb, float a = 1.f) {
    return ImVec4(float((rgb >> 16) & 255) / 255.f, float((rgb >> 8) & 255) / 255.f, float(rgb & 255) / 255.f, a);
  };
  st.Colors[ImGuiCol_WindowBg] = c(assets::kBackground);
  // Panels are not filled (transparent child windows): their borders frame
  // them on the cleared background. A filled panel costs a software
  // rasteriser as much as everything drawn in it.
  st.Colors[ImGuiCol_ChildBg] = c(assets::kPanel, 0.f);
  st.Colors[ImGuiCol_Text] = c(assets::kInk);
  // Secondary text (the beat's heading, notes, legends such as lesson 09's
  // "intra-node (thin): nvlink..."): a grey still at least 4.5:1 against
  // the window, the panels and empty cells (WCAG AA; ImGui's light style
  // has #999999, 2.8:1 on white, unreadable on a projector).
  st.Colors[ImGuiCol_TextDisabled] = c(kSecondaryText);
  st.Colors[ImGuiCol_Border] = c(assets::kFaint);
  st.Colors[ImGuiCol_Button] = c(assets::kActive, 0.18f);
  st.Colors[ImGuiCol_ButtonHovered] = c(assets::kActive, 0.35f);
  st.Colors[ImGuiCol_ButtonActive] = c(assets::kActive, 0.55f);
  st.Colors[ImGuiCol_FrameBg] = c(0xE6E6E2);
}

namespace {
// Latin-1 plus the Greek letters (α, β, γ), dashes, the ellipsis …, arrows,
// ≈ ≤ ≥ − and the ✓ / ✗ marks that lesson texts and the panels use.
// ImGui's glyph ranges: inclusive [first, last] pairs, zero-terminated.
const ImWchar kUiGlyphRanges[] = {0x0020, 0x00FF, 0x0391, 0x03C9, 0x2013, 0x2014, 0x2026, 0x2026,
                                  0x2190, 0x2193, 0x2212, 0x2212, 0x2248, 0x2248, 0x2264, 0x2265,
                                  0x2713, 0x2713, 0x2717, 0x2717, 0};
}  // namespace

bool ui_font_covers(char32_t c) {
  for (const ImWchar* r = kUiGlyphRanges; r[0] != 0; r += 2)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}

void add_fonts(float px) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (std::filesystem::exists(path)) {
    io.Fonts->AddFontFromFileTTF(path, px, nullptr, kUiGlyphRanges);
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    io.Fonts->AddFontDefault(&cfg);
  }
  g_strip = StripeStrip{};
  g_strip.rect_id = io.Fonts->AddCustomRectRegular(kStripeW, kStripeRows * kStripeRowH);
}

bool stripe_quad(ImDrawList* dl, const ImVec2& a, const ImVec2& b, const uint32_t* colours, int m) {
  StripeStrip& st = g_strip;
  if (!st.ready || m < 1) return false;
  const float x0 = std::round(a.x), x1 = std::round(b.x), y0 = std::round(a.y), y1 = std::round(b.y);
  const int w = static_cast<int>(x1 - x0);
  if (w <= 0 || y1 <= y0 || w + 2 > kStripeW) return false;
  if (st.col + w + 2 > kStripeW) ++st.row, st.col = 0;
  if (st.row >= kStripeRows) return false;
  // Texel k is the colour of the stripe holding pixel column k's centre, as
  // a filled rectangle per stripe would have coloured it.
  uint32_t* line = st.px.data() + static_cast<size_t>(st.row) * kStripeRowH * kStripeW + st.col;
  for (int k = 0; k < w; ++k) line[k + 1] = colours[std::min(m - 1, static_cast<int>((float(k) + 0.5f) * float(m) / float(w)))];
  line[0] = line[1], line[w + 1] = line[w];  // padding: a neighbour never bleeds in
  for (int r = 1; r < kStripeRowH; ++r) std::copy_n(line, w + 2, line + static_cast<size_t>(r) * kStripeW);
  const ImVec2 uv_scale = ImGui::GetIO().Fonts->TexUvScale;
  const float u0 = float(st.x + st.col + 1) * uv_scale.x, u1 = float(st.x + st.col + 1 + w) * uv_scale.x;
  const float v = (float(st.y + st.row * kStripeRowH) + 1.5f) * uv_scale.y;
  dl->PrimReserve(6, 4);
  dl->PrimRectUV(ImVec2(x0, y0), ImVec2(x1, y1), ImVec2(u0, v), ImVec2(u1, v), IM_COL32_WHITE);
  st.col += w + 2;
  st.rows_used = std::max(st.rows_used, st.row + 1);
  return true;
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
  const ImFontAtlasCustomRect* r = ImGui::GetIO().Fonts->GetCustomRectByIndex(g_strip.rect_id);
  if (r && r->IsPacked()) {
    g_strip.x = r->X, g_strip.y = r->Y;
    g_strip.px.assign(static_cast<size_t>(kStripeW) * kStripeRows * kStripeRowH, 0);
    g_strip.ready = true;
  }
  font_px_ = px;
}

bool Platform::should_close() const { return glfwWindowShouldClose(win_); }

void Platform::new_frame(float font_px) {
  glfwPollEvents();
  if (font_px != font_px_) load_fonts(font_px);
  g_strip.row = g_strip.col = g_strip.rows_used = 0;
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
  if (g_strip.ready && g_strip.rows_used > 0) {  // this frame's stripe patterns (stripe_quad)
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<intptr_t>(ImGui::GetIO().Fonts->TexID)));
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, g_strip.x, g_strip.y, kStripeW, g_strip.rows_used * kStripeRowH, GL_RGBA,
                    GL_UNSIGNED_BYTE, g_strip.px.data());
  }
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
  // Encode in memory, then write with every step checked: stbi_write_png
  // ignores write and close errors (a full disk gave a silent empty file).
  std::string bytes;
  auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, w, h, 4, rgba.data(), w * 4))
    throw UsageError(fmt::format("cannot encode PNG '{}'", path));
  write_text_file(path, bytes, "PNG");
}

}  // namespace microddp::viz
