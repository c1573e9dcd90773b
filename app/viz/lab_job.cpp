#include "app/viz/lab_job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace microddp::viz {

namespace {

int exit_code(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 128;
}

}  // namespace

std::unique_ptr<LabJob> LabJob::start(std::vector<std::string> argv, double grace_s) {
  auto job = std::make_unique<LabJob>();
  job->argv = argv;
  job->grace_s = grace_s;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  int fds[2];
  if (argv.empty() || pipe2(fds, O_CLOEXEC) != 0) {
    std::promise<std::pair<int, std::string>> p;
    p.set_value({127, "cannot start: " + cmd + (argv.empty() ? " (no command)" : ": " + std::string(strerror(errno)))});
    job->result = p.get_future();
    return job;
  }
  std::vector<char*> cargv;
  for (auto& a : job->argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: a process group of its own (stop() signals the group),
    // output to the pipe, no input. Only async-signal-safe calls here. Out
    // of the terminal's group a Ctrl-C no longer reaches it: SIGTERM when
    // the window's thread that started it dies (the window killed), as
    // stop() would send it.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    execvp(cargv[0], cargv.data());
    const char* why = "cannot start: execvp failed\n";
    (void)!write(2, why, strlen(why));
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    std::promise<std::pair<int, std::string>> p;
    p.set_value({127, "cannot start: " + cmd + ": fork: " + strerror(errno)});
    job->result = p.get_future();
    return job;
  }
  setpgid(pid, pid);  // also here: no signal may reach the group before it exists
  job->pid = pid;
  LabJob* self = job.get();  // outlives the thread: ~LabJob waits for it
  job->result = std::async(std::launch::async, [self, pid, fd = fds[0]]() {
    using clock = std::chrono::steady_clock;
    std::string out;
    std::array<char, 4096> buf;
    bool eof = false, reaped = false, term_sent = false, kill_sent = false, stray_killed = false;
    int status = 0;
    clock::time_point term_at{}, reaped_at{};
    const auto grace = std::chrono::duration<double>(self->grace_s);
    while (!(eof && reaped)) {
      if (!eof) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 50) > 0) {
          const ssize_t n = read(fd, buf.data(), buf.size());
          if (n > 0) out.append(buf.data(), size_t(n));
          else if (n == 0 || (errno != EINTR && errno != EAGAIN)) eof = true;
        }
      } else {
        usleep(20000);
      }
      if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true, reaped_at = clock::now();
      if (!self->stopping()) continue;
      if (!reaped) {
        // The leader still runs (not reaped: its pid is still its own).
        if (!term_sent) killpg(pid, SIGTERM), term_sent = true, term_at = clock::now();
        else if (!kill_sent && clock::now() - term_at >= grace) killpg(pid, SIGKILL), kill_sent = true;
      } else if (!eof) {
        // The leader is gone but some of its group still holds the output.
        if (!stray_killed) killpg(pid, SIGKILL), stray_killed = true;
        else if (clock::now() - reaped_at >= grace) eof = true;  // a process that left the group: stop reading
      }
    }
    close(fd);
    return std::make_pair(exit_code(status), out);
  });
  return job;
}

bool LabJob::ready() const { return result.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready; }

void LabJob::stop() { stop_ = true; }

LabJob::~LabJob() {
  stop();
  if (result.valid()) result.wait();
}

}  // namespace microddp::viz
