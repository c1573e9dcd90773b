// Drawing the viewer's frames, with a person at the window or without one:
// --screenshot (one PNG), --export-frames (one PNG per step, one per beat
// with --lesson, or an animated gif / mp4 through ffmpeg), --bench-frames
// (average CPU per frame), and the interactive loop.
#pragma once
#include <chrono>
#include <optional>
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
  // Frames drawn while set use this time (seconds) instead of the
  // platform's clock: the animated export samples the step animation at
  // chosen points.
  std::optional<double> fixed_now;
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
// --export-frames DIR:
//  - png without a lesson: step_00.png .. step_NN.png, the state after k
//    steps (k = 0..num_steps);
//  - png with --lesson: beat_01.png .. beat_NN.png (1-based), one per beat,
//    each drawn as the window shows that beat (lesson_sync: the beat's setup
//    and position; `at: start` = before step 0) with its text in the lesson
//    panel and its checks finished; every beat is exported (--beat is refused
//    beside --export-frames: options.h); a beat with a
//    question also gets beat_NN_answer.png, the same beat with the right
//    answer given (what the question held back, and the checks);
//  - png: first removes the frames of an earlier export from DIR
//    (remove_stale_frames) and prints how many, so that DIR never mixes a
//    longer earlier export's tail into this one;
//  - gif / mp4: DIR/steps.gif or DIR/steps.mp4, a step-through of the run:
//    kAnimFramesPerStep frames per step sampling the step animation's
//    progress (so chunks travel along the links), a still hold before the
//    first step and after the last, at kAnimFps frames per second, encoded
//    by ffmpeg (o.ffmpeg, found by find_ffmpeg): gif with one palette for
//    the clip (palettegen + paletteuse), mp4 as H.264 (libx264; ffmpeg's
//    mpeg4 encoder when that fails), yuv420p, padded to even dimensions.
//    Throws std::runtime_error when ffmpeg cannot start, exits non-zero
//    (with its status), or runs past ffmpeg_timeout_s (it is killed and its
//    partial output removed; the message names the limit and the file).
int run_export_frames(App& app, Frames& f, const Options& o);
inline constexpr int kAnimFramesPerStep = 12, kAnimFps = 12, kAnimHoldFrames = 6;

// Removes, from the folder dir, the files named as --export-frames names its
// PNG frames: step_ or beat_, then two or more digits, then .png (or, for
// beat_, _answer.png). Nothing
// else (other files, folders of any name) is touched. Returns how many were
// removed; throws std::runtime_error naming the file or folder when one
// cannot be removed or dir cannot be listed.
int remove_stale_frames(const std::string& dir);

// How long ffmpeg may encode an animation of `frames` frames, in seconds:
// kFfmpegTimeoutBaseS + kFfmpegTimeoutPerFrameS per frame (the 3-rank
// ring's 42 frames: 130.5 s; a 1280x720 H.264 encode runs far faster than
// 4 frames/s, so only a hung ffmpeg reaches it). The environment variable
// MICRODDP_FFMPEG_TIMEOUT_S (seconds, in (0, 1e6]) replaces it, for tests
// of the timeout; UsageError (exit 2) naming the value when it is set to
// anything else. microddp-viz checks it with the options, before any frame
// is drawn.
double ffmpeg_timeout_s(int frames);
inline constexpr double kFfmpegTimeoutBaseS = 120, kFfmpegTimeoutPerFrameS = 0.25;

// The ffmpeg executable on $PATH (the Debian `ffmpeg` package), or "" when
// there is none.
std::string find_ffmpeg();
// Runs argv (argv[0] an executable path) with posix_spawn, no shell, and
// waits for it; returns its exit status (128 + signal when killed). With
// timeout_s > 0 (seconds) a process still running after it is killed
// (SIGKILL) and reaped, and kSpawnTimedOut is returned. Throws
// std::runtime_error when it cannot be started.
int spawn_and_wait(const std::vector<std::string>& argv, double timeout_s = 0);
inline constexpr int kSpawnTimedOut = -1;
int run_bench_frames(App& app, Platform& plat, Frames& f, const Options& o,
                     std::chrono::steady_clock::time_point launch);

}  // namespace microddp::viz
