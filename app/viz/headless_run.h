// Drawing the viewer's frames, with a person at the window or without one:
// --screenshot (one PNG), --export-frames (one PNG per step), --bench-frames
// (average CPU per frame), and the interactive loop.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "app/viz/options.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"

namespace microddp::viz {

// One frame loop over app on plat (both outlive it).
class Frames {
 public:
  Frames(App& app, Platform& plat) : app_(app), plat_(plat) {}
  // One frame: tick, draw, render; with `capture`, the back buffer (RGBA8,
  // cw x ch pixels) is read back before the swap.
  void frame(std::vector<uint8_t>* capture = nullptr, int* cw = nullptr, int* ch = nullptr);
  // The session and every compare session at position k (runs missing steps).
  void seek_all(int k);
  // A still picture to the PNG at path after the layout settled; returns its
  // size in pixels.
  std::pair<int, int> still(const std::string& path, bool with_probes);

 private:
  App& app_;
  Platform& plat_;
};

// Each returns the exit code (0). launch: when the process started, for the
// bench's "first frame drawn" line.
int run_screenshot(App& app, Frames& f, const Options& o);
int run_export_frames(App& app, Frames& f, const Options& o);
int run_bench_frames(App& app, Platform& plat, Frames& f, const Options& o,
                     std::chrono::steady_clock::time_point launch);

}  // namespace microddp::viz
