// microddp-viz: the ImGui step-through visualizer.
//   microddp-viz [run options]                      window on the display
//   microddp-viz --screenshot out.png [--size WxH] [--step K] [--view compare] [run options]
//   microddp-viz --export-frames DIR [run options]  one PNG per step, for slides
//   microddp-viz --bench-frames N [run options]     average CPU ms per frame
//   microddp-viz --lesson FILE [--beat K] [...]     a lesson panel drives the run (lessons/*.yaml)
//   microddp-viz --replay FILE [...]                step through a saved run (`microddp run --save-record`)
//   microddp-viz --ddp [--bucket-cap-mb X] [...]    the DDP timeline view (run_ddp for real)
// Exit codes: 0 ok, 2 bad options or no display, 1 anything else.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <imgui.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "app/cli/parse_error.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"
#include "core/ir/checker.h"
#include "core/record/data.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const auto g_launch = std::chrono::steady_clock::now();

double cpu_seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void parse_size(const std::string& s, int& w, int& h) {
  int a = 0, b = 0;
  char x = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%d%c%d%c", &a, &x, &b, &extra) != 3 || (x != 'x' && x != 'X'))
    throw UsageError(fmt::format("--size '{}' is not WIDTHxHEIGHT (e.g. 1280x720)", s));
  if (a < 64 || b < 64 || a > 8192 || b > 8192)
    throw UsageError(fmt::format("--size {}x{} is outside 64x64 .. 8192x8192", a, b));
  w = a, h = b;
}

void check_writable_file(const std::string& path, const char* what) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0 ||
      (fs::exists(p, ec) && (fs::is_directory(p, ec) || access(p.c_str(), W_OK) != 0)))
    throw UsageError(fmt::format("{} '{}' is not writable", what, path));
}

int run(int argc, char** argv) {
  CLI::App cli{"microddp-viz: step through collective communication, run for real"};
  RunParams p;
  std::string collective = "all_reduce", dtype = "float32", op = "sum", mode = "lockstep";
  std::string screenshot, size = "1280x720", export_dir, view = "main", compare_list, probes;
  int step = -1, bench = 0, beat = 1;
  std::string lesson_file, replay_file;
  float font_px = 18;
  cli.add_option("--collective", collective, "broadcast reduce gather scatter barrier all_reduce all_gather reduce_scatter all_to_all");
  cli.add_option("--algorithm", p.spec.algorithm, "algorithm (see `microddp run --help`)");
  cli.add_option("--ranks", p.spec.world_size, "world size (1..64)");
  cli.add_option("--count", p.spec.count, "elements per rank; default: from --data, else the number of ranks");
  cli.add_option("--dtype", dtype, "int32 int64 float16 bfloat16 float32 float64");
  cli.add_option("--op", op, "sum prod min max avg");
  cli.add_option("--root", p.spec.root, "root rank");
  cli.add_option("--segments", p.spec.segments, "ring pipeline segments per chunk");
  cli.add_flag("--in-place", p.spec.in_place, "in-place call");
  auto* data_opt = cli.add_option("--data", p.data, "rows \"1,2,3;4,5,6;7,8,9\" or iota | rank | random:SEED");
  cli.add_option("--fill", p.data, "iota | rank | random:SEED")->excludes(data_opt);
  cli.add_option("--mode", mode, "lockstep | free");
  cli.add_option("--backend", p.backend, "threads");
  cli.add_option("--screenshot", screenshot, "render one frame to this PNG and exit");
  cli.add_option("--size", size, "window size WIDTHxHEIGHT");
  cli.add_option("--step", step, "show the state after K steps (screenshot)");
  cli.add_option("--view", view, "main | compare");
  cli.add_option("--compare", compare_list, "algorithms for the compare view, comma-separated");
  cli.add_option("--export-frames", export_dir, "write one PNG per step into DIR and exit");
  cli.add_option("--bench-frames", bench, "render N frames, print the average CPU ms per frame, exit");
  cli.add_option("--probes", probes, "(tests) write the screen pixels whose colours the scene knows");
  cli.add_option("--font-px", font_px, "text size in pixels (12..40)");
  cli.add_option("--lesson", lesson_file, "open a lesson (lessons/*.yaml): its beats drive the run");
  cli.add_option("--beat", beat, "with --lesson: start at beat K (1-based)");
  bool ddp_view = false;  // the DDP view (issue 8; panel_ddp.cpp)
  double ddp_cap_mb = 0.25;
  cli.add_flag("--ddp", ddp_view, "open the DDP view: data-parallel training run for real, drawn as a timeline");
  cli.add_option("--bucket-cap-mb", ddp_cap_mb, "with --ddp: gradient bucket cap in MB (1 MB = 2^20 bytes)");
  cli.add_option("--replay", replay_file, "step through a record saved by `microddp run --save-record` (e.g. an MPI run)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", microddp::cli::parse_error_line(e.what()).c_str());
    return 2;
  }
  bool explicit_count = cli.count("--count") > 0;

  // Everything about the options is checked before the display is touched.
  p.spec.collective = parse_collective(collective);
  p.spec.dtype = parse_dtype(dtype);
  p.spec.op = parse_op(op);
  p.mode = parse_mode(mode);
  // Without --count: core's inference from --data rows (as `microddp run`),
  // else one element per rank (the seed's 3 ranks x 3).
  if (!explicit_count) p.spec.count = infer_count(p.spec, is_fill(p.data) ? "" : p.data, "", p.spec.world_size);
  int w = 1280, h = 720;
  parse_size(size, w, h);
  if (view != "main" && view != "compare") throw UsageError(fmt::format("--view '{}' (expected main or compare)", view));
  if (font_px < 12 || font_px > 40) throw UsageError(fmt::format("--font-px {} is outside 12..40", font_px));
  if (bench < 0) throw UsageError(fmt::format("--bench-frames {} is negative", bench));
  if (cli.count("--bucket-cap-mb") && !ddp_view) throw UsageError(fmt::format("--bucket-cap-mb {} needs --ddp", ddp_cap_mb));
  if (!(ddp_cap_mb > 0) || ddp_cap_mb > 1024)
    throw UsageError(fmt::format("--bucket-cap-mb {} is outside (0, 1024]", ddp_cap_mb));
  std::unique_ptr<LessonView> opened;
  if (!lesson_file.empty()) {
    // A bad file is a LessonError (a UsageError): "file:line:column: ..." and exit 2.
    opened = std::make_unique<LessonView>(lesson::load_lesson(lesson_file));
    if (beat < 1 || beat > opened->num_beats())
      throw UsageError(fmt::format("--beat {} is outside 1..{} (the lesson has {} beats)", beat, opened->num_beats(),
                                   opened->num_beats()));
    opened->go(beat - 1);
    // The lesson's setup replaces the run options (when the viewer can run it).
    if (const BeatTarget t = beat_target(opened->current()); t.drive) p = t.params;
  } else if (cli.count("--beat")) {
    throw UsageError(fmt::format("--beat {} needs --lesson FILE", beat));
  }
  std::optional<RunRecord> replay;
  if (!replay_file.empty()) {
    if (opened) throw UsageError(fmt::format("--replay {} and --lesson exclude each other", replay_file));
    replay = load_record(replay_file);  // UsageError naming the file and field
    p = RunParams{};
    p.spec = replay->spec;  // the compare view runs it on threads
  }
  App app;
  app.vs.edit = p;
  app.vs.font_px = font_px;
  if (replay) {
    app.session.load_replay(*replay);  // the run already happened: Step replays it
    app.vs.edit = app.session.params();  // backend as recorded, e.g. "mpi"
  } else {
    app.session.configure(p);  // UsageError / ScheduleError name the bad value
  }
  if (!compare_list.empty()) {
    app.vs.compare_algorithms.clear();
    std::stringstream ss(compare_list);
    for (std::string a; std::getline(ss, a, ',');) app.vs.compare_algorithms.push_back(a);
  } else {
    app.vs.compare_algorithms = Compare::default_algorithms(p.spec.collective);
  }
  app.compare.configure(p, app.vs.compare_algorithms);
  if (opened) {
    app.lesson = std::move(opened);
    lesson_sync(app);  // the beat's step (no frame drawn yet)
  }
  for (size_t i = 0; i < app.compare.errors.size(); ++i)
    if (!app.compare.errors[i].empty()) throw UsageError(app.compare.errors[i]);
  // -1 means "not given"; a negative value typed by the user is refused too.
  if (step > app.session.num_steps() || step < -1 || (step < 0 && cli.count("--step") > 0))
    throw UsageError(fmt::format("--step {} is outside 0..{} (the schedule has {} steps)", step,
                                 app.session.num_steps(), app.session.num_steps()));
  if (!screenshot.empty()) check_writable_file(screenshot, "--screenshot");
  if (!probes.empty()) check_writable_file(probes, "--probes");
  if (!export_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(export_dir, ec);
    if (!std::filesystem::is_directory(export_dir) || access(export_dir.c_str(), W_OK) != 0)
      throw UsageError(fmt::format("--export-frames '{}' is not a writable directory", export_dir));
  }

  const bool headless = !screenshot.empty() || !export_dir.empty() || bench > 0;
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
    plat = std::make_unique<Platform>(PlatformOptions{w, h, !headless, !headless && bench == 0, font_px});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s; %s\n", e.what(), no_display.c_str());
    return 2;
  }
  app.vs.view = view == "compare" ? View::compare : View::main;
  if (ddp_view) {  // starts run_ddp on its background thread
    app.vs.view = View::ddp;
    app.ddp.edit.bucket_cap_mb = ddp_cap_mb;
    if (cli.count("--ranks")) app.ddp.edit.ranks = p.spec.world_size;
    if (cli.count("--algorithm")) app.ddp.edit.algorithm = p.spec.algorithm;
    app.ddp.runner.request(app.ddp.edit);
  }

  auto frame = [&](std::vector<uint8_t>* capture, int* cw, int* ch) {
    plat->new_frame(app.vs.font_px);
    tick(app, plat->time());
    draw_ui(app);
    plat->render();
    if (capture) *capture = plat->read_back_buffer(*cw, *ch);  // before the swap
    plat->swap();
  };
  auto seek_all = [&](int k) {
    app.session.seek(k);
    while (app.compare.position < k && app.compare.position < app.compare.max_steps()) app.compare.step();
  };
  auto still = [&](const std::string& path, bool with_probes) {
    app.vs.static_frame = true;
    app.vs.collect_probes = with_probes;
    for (int i = 0; i < 3; ++i) frame(nullptr, nullptr, nullptr);  // let the layout settle
    std::vector<uint8_t> px;
    int cw = 0, ch = 0;
    frame(&px, &cw, &ch);
    write_png(path, cw, ch, px);
    return std::pair<int, int>{cw, ch};
  };

  if (!screenshot.empty()) {
    app.vs.compare_sweep_requested = app.vs.view == View::compare;
    if (!app.lesson || step >= 0) seek_all(step < 0 ? 0 : step);
    if (app.lesson) app.lesson->wait_checks();  // the picture shows the checks' results
    if (app.vs.view == View::ddp) app.ddp.runner.wait();  // the picture shows the finished run
    const auto [cw, ch] = still(screenshot, !probes.empty());
    if (!probes.empty()) {
      std::ofstream f(probes);
      f << "size " << cw << " " << ch << "\n";
      for (const Probe& pr : app.vs.probes)
        f << pr.x << " " << pr.y << " " << int(pr.color.r) << " " << int(pr.color.g) << " " << int(pr.color.b) << " "
          << pr.what << "\n";
    }
    std::printf("wrote %s (%dx%d, after %d of %d steps)\n", screenshot.c_str(), cw, ch, app.session.position(),
                app.session.num_steps());
    return 0;
  }
  if (!export_dir.empty()) {
    app.vs.compare_sweep_requested = app.vs.view == View::compare;
    const int total = app.vs.view == View::compare ? app.compare.max_steps() : app.session.num_steps();
    for (int k = 0; k <= total; ++k) {
      seek_all(k);
      const std::string path = fmt::format("{}/step_{:02d}.png", export_dir, k);
      still(path, false);
      std::printf("wrote %s\n", path.c_str());
    }
    return 0;
  }
  if (bench > 0) {
    frame(nullptr, nullptr, nullptr);
    const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_launch).count();
    // Run every step (the rank threads then exit), then show the middle one:
    // the frames measure drawing, not idle rank threads.
    seek_all(app.session.num_steps());
    app.session.seek(app.session.num_steps() / 2);
    const double c0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    const auto w0 = std::chrono::steady_clock::now();
    for (int i = 0; i < bench; ++i) {
      if (i % 30 == 0) {  // keep the step animation running, as when playing
        app.vs.anim = 0;
        app.vs.anim_start = plat->time();
      }
      frame(nullptr, nullptr, nullptr);
    }
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
    const double cpu = (cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3, main_cpu = (cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e3;
    std::printf("bench-frames %d at %dx%d, %d ranks, %zu chunks, %s %s\n", bench, w, h, p.spec.world_size,
                app.session.schedule().chunk_offsets.size() - 1, name(p.spec.collective).data(), p.spec.algorithm.c_str());
    std::printf("average CPU per frame: %.2f ms (whole process, includes the GL rasteriser's threads)\n", cpu / bench);
    std::printf("average CPU per frame on the UI thread: %.2f ms; average wall time per frame: %.2f ms\n",
                main_cpu / bench, wall / bench);
    std::printf("first frame drawn %.0f ms after launch\n", first_ms);
    return 0;
  }
  if (step > 0) seek_all(step);
  while (!plat->should_close()) frame(nullptr, nullptr, nullptr);
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
