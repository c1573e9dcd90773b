#include "app/viz/headless_run.h"

#include <fmt/format.h>
#include <time.h>

#include <cstdio>
#include <fstream>

#include "app/viz/panels.h"
#include "core/record/record_io.h"

namespace microddp::viz {

namespace {

double cpu_seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace

void Frames::frame(std::vector<uint8_t>* capture, int* cw, int* ch) {
  plat_.new_frame(app_.vs.font_px);
  tick(app_, plat_.time());
  draw_ui(app_);
  plat_.render();
  if (capture) *capture = plat_.read_back_buffer(*cw, *ch);  // before the swap
  plat_.swap();
}

void Frames::seek_all(int k) {
  app_.session.seek(k);
  while (app_.compare.position < k && app_.compare.position < app_.compare.max_steps()) app_.compare.step();
}

std::pair<int, int> Frames::still(const std::string& path, bool with_probes) {
  app_.vs.static_frame = true;
  app_.vs.collect_probes = with_probes;
  for (int i = 0; i < 3; ++i) frame(nullptr, nullptr, nullptr);  // let the layout settle
  std::vector<uint8_t> px;
  int cw = 0, ch = 0;
  frame(&px, &cw, &ch);
  write_png(path, cw, ch, px);
  return std::pair<int, int>{cw, ch};
}

int run_screenshot(App& app, Frames& f, const Options& o) {
  const int step = o.step;
  app.vs.compare_sweep_requested = app.vs.view == View::compare;
  if (!app.lesson || step >= 0) f.seek_all(step < 0 ? 0 : step);
  if (app.lesson) app.lesson->wait_checks();  // the picture shows the checks' results
  if (app.vs.view == View::ddp) app.ddp.runner.wait();  // the picture shows the finished run
  const auto [cw, ch] = f.still(o.screenshot, !o.probes.empty());
  if (!o.probes.empty()) {
    std::string out = fmt::format("size {} {}\n", cw, ch);
    for (const Probe& pr : app.vs.probes)
      out += fmt::format("{} {} {} {} {} {}\n", pr.x, pr.y, int(pr.color.r), int(pr.color.g), int(pr.color.b), pr.what);
    write_text_file(o.probes, out, "--probes file");
  }
  std::printf("wrote %s (%dx%d, after %d of %d steps)\n", o.screenshot.c_str(), cw, ch, app.session.position(),
              app.session.num_steps());
  return 0;
}

int run_export_frames(App& app, Frames& f, const Options& o) {
  app.vs.compare_sweep_requested = app.vs.view == View::compare;
  const int total = app.vs.view == View::compare ? app.compare.max_steps() : app.session.num_steps();
  for (int k = 0; k <= total; ++k) {
    f.seek_all(k);
    const std::string path = fmt::format("{}/step_{:02d}.png", o.export_dir, k);
    f.still(path, false);
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}

int run_bench_frames(App& app, Platform& plat, Frames& f, const Options& o,
                     std::chrono::steady_clock::time_point launch) {
  const int bench = o.bench;
  const RunParams& p = o.params;
  f.frame(nullptr, nullptr, nullptr);
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launch).count();
  // Run every step (the rank threads then exit), then show the middle one:
  // the frames measure drawing, not idle rank threads.
  f.seek_all(app.session.num_steps());
  app.session.seek(app.session.num_steps() / 2);
  const double c0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  const auto w0 = std::chrono::steady_clock::now();
  for (int i = 0; i < bench; ++i) {
    if (i % 30 == 0) {  // keep the step animation running, as when playing
      app.vs.anim = 0;
      app.vs.anim_start = plat.time();
    }
    f.frame(nullptr, nullptr, nullptr);
  }
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
  const double cpu = (cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3, main_cpu = (cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e3;
  std::printf("bench-frames %d at %dx%d, %d ranks, %zu chunks, %s %s\n", bench, o.width, o.height, p.spec.world_size,
              app.session.schedule().chunk_offsets.size() - 1, name(p.spec.collective).data(), p.spec.algorithm.c_str());
  std::printf("average CPU per frame: %.2f ms (whole process, includes the GL rasteriser's threads)\n", cpu / bench);
  std::printf("average CPU per frame on the UI thread: %.2f ms; average wall time per frame: %.2f ms\n",
              main_cpu / bench, wall / bench);
  std::printf("first frame drawn %.0f ms after launch\n", first_ms);
  return 0;
}

}  // namespace microddp::viz
