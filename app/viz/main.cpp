// microddp-viz: the ImGui step-through visualizer.
//   microddp-viz [run options]                      window on the display
//   microddp-viz --screenshot out.png [--size WxH] [--step K] [--view compare] [run options]
//   microddp-viz --export-frames DIR [run options]  one PNG per step (step_NN.png)
//   microddp-viz --export-frames DIR --lesson FILE  one PNG per beat (beat_NN.png), for slides
//   microddp-viz --export-frames DIR --format gif|mp4 [run options]  an animated step-through (ffmpeg)
//   microddp-viz --export-frames DIR --format pdf --lesson FILE  a handout: one page per beat (cairo)
//   microddp-viz --bench-frames N [run options]     average CPU ms per frame
//   microddp-viz --lesson FILE [--beat K] [...]     a lesson panel drives the run (lessons/*.yaml)
//   microddp-viz --replay FILE [...]                step through a saved run (`microddp run --save-record`)
//   microddp-viz --ddp [--bucket-cap-mb X] [...]    the DDP timeline view (run_ddp for real)
//   microddp-viz --present [--font-px 28] [...]     no controls, clicker keys (Esc shows the controls)
// Exit codes: 0 ok, 2 bad options or no display, 1 anything else.
// Options: options.cpp; the frame loop and the paths without a person at the
// window: headless_run.cpp.
#include <chrono>
#include <cstdio>
#include <memory>

#include "app/viz/headless_run.h"
#include "app/viz/options.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"
#include "core/ir/checker.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const auto g_launch = std::chrono::steady_clock::now();

int run(int argc, char** argv) {
  Options o;
  if (const auto rc = parse_options(argc, argv, o)) return *rc;
  App app;
  apply_options(app, o);

  const bool headless = !o.screenshot.empty() || !o.export_dir.empty() || o.bench > 0;
  const std::string no_display =
      "no display: microddp-viz needs an X display. For pictures without one run it under a virtual display, "
      "e.g. `xvfb-run -a microddp-viz --screenshot out.png ...`; to step through in the terminal use "
      "`microddp run --collective all_reduce --algorithm ring_unchunked --ranks 3 --data \"1,2,3;4,5,6;7,8,9\" --steps`";
  if (!display_named()) {
    std::fprintf(stderr, "error: %s\n", no_display.c_str());
    return 2;
  }
  std::unique_ptr<Platform> plat;
  try {
    plat = std::make_unique<Platform>(
        PlatformOptions{o.width, o.height, !headless, !headless && o.bench == 0, o.font_px});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s; %s\n", e.what(), no_display.c_str());
    return 2;
  }
  // An open lesson's beat has already picked the view (lesson_sync), unless one was asked for.
  if (!app.lesson || o.view == "compare") app.vs.view = o.view == "compare" ? View::compare : View::main;
  if (o.ddp_view) {  // starts run_ddp on its background thread
    app.vs.view = View::ddp;
    app.ddp.edit.run.bucket_cap_mb = o.ddp_cap_mb;
    if (o.ranks_given) app.ddp.edit.run.ranks = o.params.spec.world_size;
    if (o.algorithm_given) app.ddp.edit.run.algorithm = o.params.spec.algorithm;
    app.ddp.runner.request(app.ddp.edit);
  }

  Frames frames(app, *plat);
  if (!o.screenshot.empty()) return run_screenshot(app, frames, o);
  if (!o.export_dir.empty()) return run_export_frames(app, frames, o);
  if (o.bench > 0) return run_bench_frames(app, *plat, frames, o, g_launch);
  if (o.step > 0) frames.seek_all(o.step);
  while (!plat->should_close()) frames.frame(nullptr, nullptr, nullptr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const ScheduleError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
