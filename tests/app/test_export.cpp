// --export-frames' helpers that need no display (app/viz/headless_run.h):
// running ffmpeg under a time limit. The whole export under Xvfb is
// tests/app/export_test.sh.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/viz/headless_run.h"

using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

// A scratch folder, removed afterwards.
struct TempDir {
  fs::path dir;
  explicit TempDir(const char* what) {
    dir = fs::temp_directory_path() / fmt::format("microddp-{}-{}", what, ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string script(const std::string& name, const std::string& body) const {
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
};

// Sets an environment variable for one scope, then restores it.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* o = std::getenv(n)) old = o;
    ::setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_SUITE("export") {
  TEST_CASE("spawn_and_wait: the exit status, and a process past its time limit is killed") {
    TempDir t("spawn");
    CHECK(spawn_and_wait({t.script("exit3", "exit 3")}) == 3);
    CHECK(spawn_and_wait({t.script("exit0", "exit 0")}, 5.0) == 0);
    CHECK(spawn_and_wait({t.script("killed", "kill -TERM $$")}, 5.0) == 128 + SIGTERM);

    // A hung child: it records its pid, then sleeps far past the limit.
    const std::string pidfile = (t.dir / "pid").string();
    const std::string hung = t.script("hung", fmt::format("echo $$ > {}\nexec sleep 300", pidfile));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(spawn_and_wait({hung}, 0.3) == kSpawnTimedOut);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(took >= 0.3);
    CHECK(took < 10);
    // Killed and reaped: the pid names no process any more.
    int pid = 0;
    std::ifstream(pidfile) >> pid;
    REQUIRE(pid > 0);
    errno = 0;
    CHECK(::kill(pid, 0) == -1);
    CHECK(errno == ESRCH);

    CHECK_THROWS_AS(spawn_and_wait({(t.dir / "missing").string()}), std::runtime_error);
  }

  TEST_CASE("ffmpeg's time limit: 120 s + 0.25 s per frame; MICRODDP_FFMPEG_TIMEOUT_S replaces it") {
    {
      ScopedEnv unset("MICRODDP_FFMPEG_TIMEOUT_S", "");
      CHECK(ffmpeg_timeout_s(42) == 130.5);  // the 3-rank ring's animation
      CHECK(ffmpeg_timeout_s(0) == 120);
      CHECK(ffmpeg_timeout_s(1000) == 370);
    }
    {
      ScopedEnv env("MICRODDP_FFMPEG_TIMEOUT_S", "1.5");
      CHECK(ffmpeg_timeout_s(42) == 1.5);
    }
    for (const char* bad : {"x", "0", "-2", "2s", "nan", "1e7"}) {
      ScopedEnv env("MICRODDP_FFMPEG_TIMEOUT_S", bad);
      INFO(bad);
      CHECK_THROWS_WITH_AS(ffmpeg_timeout_s(42),
                           fmt::format("MICRODDP_FFMPEG_TIMEOUT_S '{}' is not a number of seconds in (0, 1e6]", bad).c_str(),
                           microddp::UsageError);
    }
  }
}

TEST_SUITE("export") {
  TEST_CASE("remove_stale_frames removes our step_NN.png / beat_NN.png files and nothing else") {
    TempDir t("stale");
    const auto touch = [&](const std::string& name) { std::ofstream(t.dir / name) << "x"; };
    // An earlier, longer export: steps 0..11 and a lesson's beats.
    for (int k = 0; k <= 11; ++k) touch(fmt::format("step_{:02d}.png", k));
    touch("step_100.png");
    touch("beat_01.png");
    touch("beat_02.png");
    touch("beat_02_answer.png");
    // Not ours: other names, near misses, our animation, a folder.
    const std::vector<std::string> foreign = {"notes.txt",   "step_1.png",        "step_01.PNG",      "step_01.png.bak",
                                              "step_ab.png", "mystep_01.png",     "steps.gif",        "step_.png",
                                              "beat_01.jpg", "step_01_answer.png", "beat_2_answer.png", "beat_02_answer.jpg"};
    for (const std::string& f : foreign) touch(f);
    fs::create_directory(t.dir / "step_99.png");
    fs::create_symlink("notes.txt", t.dir / "beat_03.png");  // a link goes, its target stays

    CHECK(remove_stale_frames(t.dir.string()) == 12 + 1 + 2 + 1 + 1);
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(t.dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    std::vector<std::string> expect = foreign;
    expect.push_back("step_99.png");
    std::sort(expect.begin(), expect.end());
    CHECK(left == expect);
    CHECK(remove_stale_frames(t.dir.string()) == 0);

    CHECK_THROWS_AS(remove_stale_frames((t.dir / "missing").string()), std::runtime_error);
  }
}
