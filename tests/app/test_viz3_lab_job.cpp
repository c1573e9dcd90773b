// The live cluster lab's job (app/viz/lab_job.h) stops when its result is
// no longer wanted: another source, another view, the window closed. It
// used to run to its end (and the window's exit waited for it). No root
// needed: stand-in commands play the lab (`sleep 30`, and a shell that
// ignores SIGTERM with a child of its own). The bounds below only keep a
// broken build from hanging; what is asserted is the exit status and that
// the processes are gone (reaped: no zombie).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/headless.h"
#include "app/viz/compare.h"
#include "app/viz/lab_job.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
namespace fs = std::filesystem;

// No process with this pid: exited and reaped (a zombie still answers kill 0).
bool gone(pid_t pid) { return ::kill(pid, 0) == -1 && errno == ESRCH; }

// A process that no longer runs: gone, or a zombie its parent has not reaped yet.
bool not_running(pid_t pid) {
  if (gone(pid)) return true;
  std::ifstream f(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  std::getline(f, stat);
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

// Polls `done` every 10 ms for at most 30 s (a loaded machine's bound, not a timing check).
template <class F>
bool eventually(F done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}
}  // namespace

TEST_SUITE("viz3_lab_job") {
  TEST_CASE("a job runs to its end: exit code and output (stdout and stderr) collected, the process reaped") {
    auto job = LabJob::start({"sh", "-c", "echo out; echo err >&2; exit 3"});
    REQUIRE(job->pid > 0);
    REQUIRE(eventually([&] { return job->ready(); }));
    const auto [rc, out] = job->result.get();
    CHECK(rc == 3);
    CHECK(out == "out\nerr\n");
    CHECK(gone(job->pid));
    auto missing = LabJob::start({"/nonexistent/microddp", "cluster"});
    REQUIRE(eventually([&] { return missing->ready(); }));
    const auto [rc2, out2] = missing->result.get();
    CHECK(rc2 == 127);
    CHECK(out2 == "cannot start: execvp failed\n");
  }

  TEST_CASE("stop(): sleep 30 ends on SIGTERM (exit 143) and is reaped") {
    auto job = LabJob::start({"sleep", "30"});
    const pid_t pid = job->pid;
    REQUIRE(pid > 0);
    CHECK(::getpgid(pid) == pid);  // a process group of its own
    CHECK_FALSE(job->ready());
    job->stop();
    REQUIRE(eventually([&] { return job->ready(); }));
    CHECK(job->result.get().first == 128 + SIGTERM);
    CHECK(gone(pid));
  }

  TEST_CASE("stop(): a job that ignores SIGTERM gets SIGKILL after the grace, its child with it") {
    const fs::path f = fs::temp_directory_path() / fmt::format("microddp-viz3-lab-{}.pid", ::getpid());
    fs::remove(f);
    auto job = LabJob::start({"sh", "-c", fmt::format("trap '' TERM; sleep 30 & echo $! > {}.tmp; mv {}.tmp {}; wait",
                                                      f.string(), f.string(), f.string())},
                             0.2);
    const pid_t pid = job->pid;
    REQUIRE(eventually([&] { return fs::exists(f); }));
    pid_t child = 0;
    std::ifstream(f) >> child;
    REQUIRE(child > 0);
    CHECK(::getpgid(child) == pid);
    job->stop();
    REQUIRE(eventually([&] { return job->ready(); }));
    CHECK(job->result.get().first == 128 + SIGKILL);
    CHECK(gone(pid));
    CHECK(eventually([&] { return not_running(child); }));
    fs::remove(f);
  }

  TEST_CASE("the destructor stops the job and waits only for its end (no hang on exit)") {
    pid_t pid = -1;
    {
      auto job = LabJob::start({"sleep", "30"});
      pid = job->pid;
      REQUIRE(pid > 0);
    }
    CHECK(gone(pid));  // reaped before the destructor returned
  }

  TEST_CASE("the window killed (SIGKILL, no destructor runs): its job gets SIGTERM from the kernel") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t window = ::fork();
    REQUIRE(window >= 0);
    if (window == 0) {  // the stand-in window: starts the job, says its pid, waits to be killed
      ::close(fds[0]);
      auto job = LabJob::start({"sleep", "300"});  // longer than eventually()'s bound
      const pid_t p = job->pid;
      (void)!::write(fds[1], &p, sizeof p);
      for (;;) ::pause();
    }
    ::close(fds[1]);
    pid_t job_pid = -1;
    REQUIRE(::read(fds[0], &job_pid, sizeof job_pid) == sizeof job_pid);
    ::close(fds[0]);
    REQUIRE(job_pid > 0);
    CHECK(::kill(job_pid, 0) == 0);
    ::kill(window, SIGKILL);
    int st = 0;
    REQUIRE(::waitpid(window, &st, 0) == window);
    CHECK(eventually([&] { return not_running(job_pid); }));
  }

  TEST_CASE("Compare: another source, leaving the view, or the Compare going stop the lab's job") {
    // Another source.
    Compare c;
    c.start_lab_job({"sleep", "30"});
    pid_t pid = c.lab_pid();
    REQUIRE(pid > 0);
    CHECK(c.lab_running());
    c.set_sweep_source(SourceSpec{});  // shm
    CHECK_FALSE(c.lab_running());
    CHECK(c.lab_pid() == -1);
    CHECK(eventually([&] { return gone(pid); }));
    // Leaving the compare view: the next frame stops it and says so.
    test::Headless h;
    App app;
    app.vs.view = View::compare;
    app.compare.start_lab_job({"sleep", "30"});
    pid = app.compare.lab_pid();
    REQUIRE(pid > 0);
    tick(app, 1.0);
    CHECK(app.compare.lab_running());  // still in the compare view
    app.vs.view = View::main;
    tick(app, 2.0);
    CHECK_FALSE(app.compare.lab_running());
    CHECK(app.compare.source_label ==
          "Source: measured: cluster lab (live) - stopped (the compare view was left); Measure sweep runs it again");
    CHECK(eventually([&] { return gone(pid); }));
    // The window closed: the App (its Compare) destroyed.
    {
      auto closing = std::make_unique<Compare>();
      closing->start_lab_job({"sleep", "30"});
      pid = closing->lab_pid();
      REQUIRE(pid > 0);
    }
    CHECK(gone(pid));
  }
}
