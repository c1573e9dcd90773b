// How `microddp cluster` reports the end of its lab (cmd_cluster.cpp): the
// exit code and the one line (if any) for the way the lab's PID 1 ended
// and the signal the user sent. Header-only, so tests/app tests it without
// namespaces. A user's Ctrl-C is SIGINT, and SIGINT is what is reported
// (exit 130), even when the lab had to be killed with SIGKILL: before its
// signal traps were set (a PID 1 drops a signal it has no handler for),
// or when it did not stop within the grace period.
#pragma once
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <string>

namespace microddp::cli {

// "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL", else "signal N".
inline std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    default: return fmt::format("signal {}", sig);
  }
}

// Why the parent killed the lab with SIGKILL itself, if it did.
enum class LabKill { none, before_ready, second_signal, grace_over };

struct LabEnd {
  int code = 0;
  std::string line;  // "" or "error: cluster: ..." (no newline)
};

// status: waitpid's for the lab's PID 1; user_signal: the first signal the
// user sent (0: none); killed: whether and why the parent sent SIGKILL.
// Exit codes: the lab's own when it exited and no signal was sent; 128 +
// the user's signal when one was (the lab's script exits so itself and
// says "cluster: INT received"); 128 + the signal that ended the lab
// otherwise.
inline LabEnd lab_end(int status, int user_signal, LabKill killed = LabKill::none) {
  LabEnd e;
  if (user_signal > 0) {
    e.code = 128 + user_signal;
    if (WIFEXITED(status) && WEXITSTATUS(status) == e.code) return e;  // the lab named it itself
    const std::string sent = signal_name(user_signal);
    if (killed == LabKill::before_ready)
      e.line = fmt::format("error: cluster: stopped on {}, which came before the lab was up: its namespaces were "
                           "removed at once",
                           sent);
    else if (killed == LabKill::second_signal)
      e.line = fmt::format("error: cluster: stopped on {}; a second signal came before the lab had stopped, so it "
                           "was killed and removed at once",
                           sent);
    else if (killed == LabKill::grace_over)
      e.line = fmt::format("error: cluster: stopped on {}; the lab did not stop within its grace period, so it was "
                           "killed and removed",
                           sent);
    else if (WIFSIGNALED(status))
      e.line = fmt::format("error: cluster: stopped on {}; the lab ended on {}", sent, signal_name(WTERMSIG(status)));
    else
      e.line = fmt::format("error: cluster: stopped on {}; the lab exited with {}", sent,
                           WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    return e;
  }
  if (WIFEXITED(status)) {
    e.code = WEXITSTATUS(status);
    return e;
  }
  if (WIFSIGNALED(status)) {
    e.code = 128 + WTERMSIG(status);
    e.line = fmt::format("error: cluster: the lab ended on {} (sent by something other than microddp)",
                         signal_name(WTERMSIG(status)));
    return e;
  }
  e.code = 1;
  return e;
}

}  // namespace microddp::cli
