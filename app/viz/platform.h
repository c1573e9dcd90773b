// The thin platform layer: GLFW window + OpenGL 3.3 core context + the Dear
// ImGui GLFW/OpenGL3 backends, fonts, back-buffer read-back and PNG writing.
// Nothing else in the viewer touches GLFW or GL.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct GLFWwindow;
struct ImDrawList;
struct ImVec2;

namespace microddp::viz {

// True when an X (or Wayland) display is named in the environment.
bool display_named();

struct PlatformOptions {
  int width = 1280, height = 720;
  bool visible = true;   // false for screenshots, frame export and benchmarks
  bool vsync = true;
  float font_px = 18;
};

class Platform {
 public:
  // Throws std::runtime_error when GLFW cannot start or no GL 3.3 context.
  explicit Platform(const PlatformOptions& opt);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  bool should_close() const;
  // Polls events, rebuilds the font atlas when font_px changed, and starts
  // an ImGui frame.
  void new_frame(float font_px);
  // ImGui::Render and the GL draw into the back buffer (no swap).
  void render();
  // The back buffer as RGBA8, top row first. Call after render(), before swap().
  std::vector<uint8_t> read_back_buffer(int& w, int& h) const;
  void swap();
  double time() const;

 private:
  void load_fonts(float px);
  GLFWwindow* win_ = nullptr;
  float font_px_ = 0;
};

// Sets up the ImGui style used on screen and in tests (light, projector
// friendly) and the fonts (DejaVu Sans when installed, else ImGui's default).
void setup_style();
// ImGui's TextDisabled in that style (0xRRGGBB): secondary text, at least
// 4.5:1 against the window (white), the panels (#F7F7F4) and empty buffer
// cells (#F2F2F2): 5.3:1 on white, 4.7:1 on #F2F2F2.
inline constexpr uint32_t kSecondaryText = 0x6B6B6B;
void add_fonts(float px);
// Whether add_fonts loads code point c from DejaVu Sans (the ranges it asks
// the atlas for). Text outside them shows ImGui's fallback glyph "?", and
// ImGui's default font (no DejaVu) has ASCII only.
bool ui_font_covers(char32_t c);

// A rectangle [a, b) filled with m vertical stripes of equal width, colours[i]
// (ImGui's packed RGBA) from left to right, drawn as ONE textured quad: the
// stripes are written, one texel per pixel column, into a strip of the font
// atlas reserved by add_fonts and uploaded by Platform::render. Each stripe
// as its own rectangle costs a software rasteriser (llvmpipe under Xvfb) a
// pass over every 4x4 pixel block it touches, twice per thin rectangle; 16
// stripes in a 37-pixel cell is most of the buffers panel's cost. The edges
// snap to whole pixels, where a filled rectangle's would fall anyway.
// Returns false, drawing nothing, when the strip is not available (no
// Platform, e.g. the headless tests), full for this frame, or the quad is
// wider than it: the caller then draws the stripes as rectangles.
bool stripe_quad(ImDrawList* dl, const ImVec2& a, const ImVec2& b, const uint32_t* colours, int m);

// Writes an RGBA8 image as PNG (stb_image_write). Throws UsageError naming
// the path when it cannot be written.
void write_png(const std::string& path, int w, int h, const std::vector<uint8_t>& rgba);

}  // namespace microddp::viz
