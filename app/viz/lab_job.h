// The live cluster lab's job (compare_sources.h, lab source): a command
// run in the background in a process group of its own, its output
// (stdout and stderr) collected by a thread that also reaps it, and a way
// to stop it when its result is no longer wanted (another source or view,
// the window closed).
#pragma once
#include <sys/types.h>

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace microddp::viz {

struct LabJob {
  std::vector<std::string> argv;
  // The exit status (128 + the signal when a signal ended it; 127 when
  // argv[0] could not be run, the output then saying why) and the output,
  // once the process has exited, been reaped and its output has ended.
  std::future<std::pair<int, std::string>> result;
  // The job's process (execvp(argv[0], argv)), leader of its own process
  // group (pgid == pid), sent SIGTERM by the kernel when the thread that
  // started it dies (PR_SET_PDEATHSIG: the window killed, e.g. Ctrl-C);
  // -1 when fork failed (result then says so).
  pid_t pid = -1;
  // Seconds between stop()'s SIGTERM and the SIGKILL to the group.
  double grace_s = 1.0;

  static std::unique_ptr<LabJob> start(std::vector<std::string> argv, double grace_s = 1.0);
  bool ready() const;
  // Ends the job without waiting: SIGTERM to its process group (`microddp
  // cluster` forwards it to its lab, which stops mpirun; the lab's
  // namespaces die with its PID 1), then SIGKILL to the group after
  // grace_s if the leader still runs, and SIGKILL to whatever of the group
  // still holds the output once the leader has exited. The thread reaps
  // the leader (no zombie is left) and ends. Nothing is sent once the job
  // has been reaped. Safe to call more than once.
  void stop();
  bool stopping() const { return stop_.load(); }
  // stop(), then waits for the thread: at most about grace_s and a
  // SIGKILL's delivery (never for the job's own end).
  ~LabJob();

 private:
  std::atomic<bool> stop_{false};
};

}  // namespace microddp::viz
