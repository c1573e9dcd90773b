#include "app/viz/headless_run.h"

#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "app/viz/describe.h"
#include "app/viz/handout.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "core/record/record_io.h"
#include "core/record/printer.h"

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
  tick(app_, fixed_now ? *fixed_now : plat_.time());
  draw_ui(app_);
  plat_.render();
  if (capture) *capture = plat_.read_back_buffer(*cw, *ch);  // before the swap
  plat_.swap();
}

void Frames::seek_all(int k) {
  app_.session.seek(k);
  // Both ways: --compare-runs opens its columns at the end (Compare::go_to_end).
  while (app_.compare.position > k) app_.compare.back();
  while (app_.compare.position < k && app_.compare.position < app_.compare.max_steps()) app_.compare.step();
}

std::pair<int, int> Frames::still(const std::string& path, bool with_probes) {
  app_.vs.static_frame = true;
  app_.vs.collect_probes = with_probes;
  for (int i = 0; i < 3; ++i) frame(nullptr, nullptr, nullptr);  // let the layout settle
  // --present: the lesson panel fits its text over a few frames (present.h).
  for (int i = 0; i < 40 && app_.vs.lesson_fitting; ++i) frame(nullptr, nullptr, nullptr);
  std::vector<uint8_t> px;
  int cw = 0, ch = 0;
  frame(&px, &cw, &ch);
  write_png(path, cw, ch, px);
  return std::pair<int, int>{cw, ch};
}

int run_screenshot(App& app, Frames& f, const Options& o) {
  const int step = o.step;
  app.vs.compare_sweep_requested = app.vs.view == View::compare;
  // Without --step the picture is where the view opens: the start, or the
  // end of --compare-runs' records (Compare::go_to_end).
  if (step >= 0) f.seek_all(step);
  if (app.lesson) app.lesson->wait_checks();  // the picture shows the checks' results
  if (app.vs.view == View::ddp) app.ddp.runner.wait();  // the picture shows the finished run
  const auto [cw, ch] = f.still(o.screenshot, !o.probes.empty());
  if (!o.probes.empty()) {
    std::string out = fmt::format("size {} {}\n", cw, ch);
    for (const Probe& pr : app.vs.probes)
      out += fmt::format("{} {} {} {} {} {}\n", pr.x, pr.y, int(pr.color.r), int(pr.color.g), int(pr.color.b), pr.what);
    write_text_file(o.probes, out, "--probes file");
  }
  if (!o.describe.empty()) write_text_file(o.describe, describe_picture(app), "--describe file");
  // What is shown: the compare columns' step, else the slide's own state
  // (a DDP or hang view has no steps: slide_state says which run).
  std::printf("wrote %s (%dx%d, %s)\n", o.screenshot.c_str(), cw, ch,
              (app.ddp_runs.active() ? std::string("two DDP training records, the last iteration of each")
               : app.vs.view == View::compare ? position_label(app.compare.position, app.compare.max_steps())
                                            : slide_state(app))
                  .c_str());
  return 0;
}

std::string find_ffmpeg() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  const std::string dirs = path;
  size_t i = 0;
  while (i <= dirs.size()) {
    const size_t e = std::min(dirs.find(':', i), dirs.size());
    const std::string dir = e > i ? dirs.substr(i, e - i) : ".";
    const std::string cand = dir + "/ffmpeg";
    std::error_code ec;
    if (std::filesystem::is_regular_file(cand, ec) && access(cand.c_str(), X_OK) == 0) return cand;
    i = e + 1;
  }
  return "";
}

extern "C" char** environ;

int spawn_and_wait(const std::vector<std::string>& argv, double timeout_s) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (const int err = posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ); err != 0)
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(err)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t got = waitpid(pid, &status, timeout_s > 0 ? WNOHANG : 0);
    if (got == pid) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      // SIGKILL, not SIGTERM: a process that stopped making progress may
      // ignore a polite request too, and its output is discarded anyway.
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return kSpawnTimedOut;
    }
    // Polling (no SIGCHLD handler to install and restore): 20 ms is far
    // below an encode's duration and costs nothing while it runs.
    const timespec nap{0, 20'000'000};
    nanosleep(&nap, nullptr);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

double ffmpeg_timeout_s(int frames) {
  if (const char* env = std::getenv("MICRODDP_FFMPEG_TIMEOUT_S"); env && *env) {
    char* end = nullptr;
    const double t = std::strtod(env, &end);
    if (*end != '\0' || !(t > 0) || t > 1e6)
      throw UsageError(fmt::format("MICRODDP_FFMPEG_TIMEOUT_S '{}' is not a number of seconds in (0, 1e6]", env));
    return t;
  }
  return kFfmpegTimeoutBaseS + kFfmpegTimeoutPerFrameS * frames;
}

int remove_stale_frames(const std::string& dir) {
  namespace fs = std::filesystem;
  const auto ours = [](const std::string& name) {
    // step_NN.png, beat_NN.png, and beat_NN_answer.png (a beat's question
    // answered), each with its continuation pages (beat_NN_page2.png).
    for (const auto& [prefix, suffix] : {std::pair<std::string, std::string>{"step_", ".png"},
                                         {"beat_", ".png"}, {"beat_", "_answer.png"}}) {
      std::string n = name;
      if (const size_t pg = n.rfind("_page"); prefix == "beat_" && pg != std::string::npos) {
        const size_t dot = n.rfind(".png");
        const bool digits = dot != std::string::npos && dot > pg + 5 &&
                            std::all_of(n.begin() + long(pg) + 5, n.begin() + long(dot), [](char c) { return c >= '0' && c <= '9'; });
        if (digits) n.erase(pg, dot - pg);
      }
      const size_t p = prefix.size(), s = suffix.size();
      if (n.size() < p + 2 + s || n.compare(0, p, prefix) != 0 || n.compare(n.size() - s, s, suffix) != 0)
        continue;
      if (std::all_of(n.begin() + long(p), n.end() - long(s), [](char c) { return c >= '0' && c <= '9'; })) return true;
    }
    return false;
  };
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code kind_ec;
    // A folder with a frame's name is not a frame: only files (or links) go.
    if (ours(it->path().filename().string()) && !it->is_directory(kind_ec)) stale.push_back(it->path());
  }
  if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", dir, ec.message()));
  int removed = 0;
  for (const fs::path& p : stale) {
    removed += fs::remove(p, ec) ? 1 : 0;  // false without ec: someone else removed it meanwhile
    if (ec)
      throw std::runtime_error(fmt::format("cannot remove {} (a frame of an earlier export): {}", p.string(),
                                           ec.message()));
  }
  return removed;
}

namespace {

int export_steps_png(App& app, Frames& f, const Options& o) {
  app.vs.compare_sweep_requested = app.vs.view == View::compare;
  const int total = app.vs.view == View::compare ? app.compare.max_steps() : app.session.num_steps();
  std::string described;
  for (int k = 0; k <= total; ++k) {
    f.seek_all(k);
    const std::string path = fmt::format("{}/step_{:02d}.png", o.export_dir, k);
    f.still(path, false);
    std::printf("wrote %s\n", path.c_str());
    described += fmt::format("slide: step_{:02d}.png\n{}\n", k, describe_picture(app));
  }
  if (!o.describe.empty()) write_text_file(o.describe, described, "--describe file");
  return 0;
}

// One still per beat, through the window's own lesson navigation: go() then
// lesson_sync (the beat's setup, position and view, as Next would).
int export_beats_png(App& app, Frames& f, const Options& o) {
  LessonView& lesson = *app.lesson;
  const int beats = lesson.num_beats();
  // The beat as the window shows it now, its checks finished, as one still.
  std::string described;
  const auto slide = [&](int b, const std::string& suffix, const char* state) {
    lesson_sync(app);
    lesson.wait_checks();
    // The beat's own run finished, as --screenshot --beat shows it: a DDP
    // beat's training run (started by lesson_sync on a background thread)
    // is waited for, not drawn half-way or as the previous beat's.
    if (app.vs.view == View::ddp) app.ddp.runner.wait();
    const std::string path = fmt::format("{}/beat_{:02d}{}.png", o.export_dir, b + 1, suffix);
    f.still(path, false);
    described += fmt::format("slide: beat_{:02d}{}.png\n{}\n", b + 1, suffix, describe_picture(app));
    std::printf("wrote %s (beat %d of %d%s%s, %s)\n", path.c_str(), b + 1, beats, state, page_label(app).c_str(),
                slide_state(app).c_str());
  };
  // A slide whose text goes on over continuation pages (present.h): one
  // still per page, beat_NN_page2.png (beat_NN_answer_page2.png) on.
  const auto slides = [&](int b, const std::string& suffix, const char* state) {
    app.presenter.page = 0;
    slide(b, suffix, state);
    for (int pg = 1; pg < app.presenter.pages; ++pg) {
      app.presenter.page = pg;
      slide(b, fmt::format("{}_page{}", suffix, pg + 1), state);
    }
    app.presenter.page = 0;
  };
  for (int b = 0; b < beats; ++b) {
    lesson.go(b);
    // A beat's question stays unanswered, so (as in the window) its checks
    // show only how many pass.
    slides(b, "", "");
    // A beat that asks gets a second slide with the right answer given: the
    // state the question held back (the buffers after the step, the
    // crossover) and the checks, for the slide after the question.
    if (const auto& q = lesson.current().question) {
      if (q->choices.empty()) lesson.submit(fmt::format("{:g}", q->value));
      else lesson.choose(q->answer - 1);
      slides(b, "_answer", " answered");
    }
  }
  if (!o.describe.empty()) write_text_file(o.describe, described, "--describe file");
  return 0;
}

// The frames of the animation as numbered PNGs in a scratch folder of our
// own inside DIR (a fresh mkdtemp name, so nothing of the user's is ever
// reused or removed; removed afterwards, on every way out), then one
// ffmpeg run over them.
int export_animation(App& app, Frames& f, const Options& o) {
  namespace fs = std::filesystem;
  const bool cmp = app.vs.view == View::compare;
  app.vs.compare_sweep_requested = cmp;
  const int total = cmp ? app.compare.max_steps() : app.session.num_steps();
  std::string tmpl = (fs::path(o.export_dir) / ".microddp-frames-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot create a scratch folder in {}: {}", o.export_dir, std::strerror(errno)));
  const fs::path scratch = tmpl;
  std::error_code ec;
  struct RemoveScratch {
    const fs::path& dir;
    ~RemoveScratch() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } remove_scratch{scratch};
  int n = 0;
  std::vector<uint8_t> px;
  int cw = 0, ch = 0;
  const auto capture = [&] {
    f.frame(&px, &cw, &ch);
    write_png((scratch / fmt::format("f_{:05d}.png", n++)).string(), cw, ch, px);
  };
  f.seek_all(0);
  app.vs.static_frame = true;
  app.vs.collect_probes = false;
  for (int i = 0; i < 3; ++i) f.frame();  // let the layout settle
  for (int i = 0; i < kAnimHoldFrames; ++i) capture();
  // Each step: the state after it, with the animation's progress sampled
  // at 1/N .. N/N (tick maps now - anim_start to progress over anim_seconds).
  app.vs.static_frame = false;
  app.vs.playing = false;
  app.vs.anim_seconds = 1.0f;
  for (int k = 0; k < total; ++k) {
    f.seek_all(k + 1);
    app.vs.anim = 0;
    app.vs.anim_start = 0;
    for (int i = 1; i <= kAnimFramesPerStep; ++i) {
      f.fixed_now = double(i) / kAnimFramesPerStep;
      capture();
    }
  }
  f.fixed_now.reset();
  app.vs.static_frame = true;
  for (int i = 0; i < 2 * kAnimHoldFrames; ++i) capture();
  const std::string out = (fs::path(o.export_dir) / ("steps." + o.format)).string();
  std::vector<std::string> argv = {o.ffmpeg, "-y", "-hide_banner", "-loglevel", "error", "-framerate",
                                   std::to_string(kAnimFps), "-i", (scratch / "f_%05d.png").string()};
  if (o.format == "gif") {
    // One palette for the whole clip (palettegen), applied with ordered
    // dithering: flat panel colours stay flat instead of GIF's default
    // 256-colour web palette.
    argv.insert(argv.end(), {"-vf", "split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=bayer:bayer_scale=5",
                             "-loop", "0"});
  } else {
    // yuv420p (what players expect) needs even dimensions.
    argv.insert(argv.end(), {"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                             "-movflags", "+faststart"});
  }
  argv.push_back(out);
  const double timeout_s = ffmpeg_timeout_s(n);
  // A hung ffmpeg is stopped; its partial output and the frames go, and the
  // export fails naming the limit (a runtime failure like a non-zero exit:
  // exit 1, the command line was fine).
  const auto timed_out = [&] {
    fs::remove(out, ec);
    const char* env = std::getenv("MICRODDP_FFMPEG_TIMEOUT_S");
    const std::string why = env && *env ? "MICRODDP_FFMPEG_TIMEOUT_S"
                                        : fmt::format("{:g} s + {:g} s per frame, {} frames", kFfmpegTimeoutBaseS,
                                                      kFfmpegTimeoutPerFrameS, n);
    return std::runtime_error(
        fmt::format("ffmpeg did not finish within {:g} s writing {}: stopped, the file removed (limit: {})", timeout_s,
                    out, why));
  };
  int rc = spawn_and_wait(argv, timeout_s);
  if (rc == kSpawnTimedOut) throw timed_out();
  if (rc != 0 && o.format == "mp4") {
    // An ffmpeg built without libx264: its own MPEG-4 Part 2 encoder.
    std::fprintf(stderr, "note: ffmpeg could not encode H.264 (libx264); trying its mpeg4 encoder\n");
    const auto c = std::find(argv.begin(), argv.end(), "libx264");
    *c = "mpeg4";
    argv.insert(c + 1, {"-q:v", "3"});
    rc = spawn_and_wait(argv, timeout_s);
    if (rc == kSpawnTimedOut) throw timed_out();
  }
  if (rc != 0) throw std::runtime_error(fmt::format("ffmpeg exited with status {} writing {}", rc, out));
  std::printf("wrote %s (%d frames at %d fps, %dx%d, %d steps)\n", out.c_str(), n, kAnimFps, cw, ch, total);
  return 0;
}

}  // namespace

int run_export_frames(App& app, Frames& f, const Options& o) {
  if (o.format == "pdf") return export_handout(app, f, o);
  if (o.format != "png") return export_animation(app, f, o);
  // DIR then holds this export's frames only, not the tail of a longer one.
  if (const int removed = remove_stale_frames(o.export_dir); removed > 0)
    std::printf("removed %d frame file%s (step_NN.png, beat_NN.png, beat_NN_answer.png) of an earlier export from %s\n", removed,
                removed == 1 ? "" : "s", o.export_dir.c_str());
  if (app.lesson) return export_beats_png(app, f, o);
  return export_steps_png(app, f, o);
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
