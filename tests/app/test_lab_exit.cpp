// `microddp cluster`'s report when its lab ends (app/cli/lab_exit.h): the
// signal the user sent is the one named, and the exit code is 128 + it,
// however the lab itself had to end (a Ctrl-C during the NIC check was
// reported as "ended on signal 9", the grace period's SIGKILL).
#include <doctest/doctest.h>
#include <signal.h>

#include "app/cli/lab_exit.h"

using namespace microddp::cli;

namespace {
// waitpid statuses as the kernel encodes them (wait(2), <bits/waitstatus.h>).
int exited(int code) { return (code & 0xff) << 8; }
int killed_by(int sig) { return sig & 0x7f; }
}  // namespace

TEST_SUITE("cluster_exit") {
  TEST_CASE("the encodings above are what the wait macros read") {
    CHECK(WIFEXITED(exited(130)));
    CHECK(WEXITSTATUS(exited(130)) == 130);
    CHECK(WIFSIGNALED(killed_by(SIGKILL)));
    CHECK(WTERMSIG(killed_by(SIGKILL)) == SIGKILL);
  }

  TEST_CASE("Ctrl-C: SIGINT is reported, exit 130, whatever ended the lab") {
    // The lab's trap named it ("cluster: INT received") and exited 130: no second line.
    LabEnd e = lab_end(exited(130), SIGINT);
    CHECK(e.code == 130);
    CHECK(e.line.empty());
    // The grace period ran out and the parent sent SIGKILL: still SIGINT, never "signal 9".
    e = lab_end(killed_by(SIGKILL), SIGINT, LabKill::grace_over);
    CHECK(e.code == 130);
    CHECK(e.line ==
          "error: cluster: stopped on SIGINT; the lab did not stop within its grace period, so it was killed and removed");
    // Before the lab's traps were set (a PID 1 would drop the signal): killed at once.
    e = lab_end(killed_by(SIGKILL), SIGINT, LabKill::before_ready);
    CHECK(e.code == 130);
    CHECK(e.line ==
          "error: cluster: stopped on SIGINT, which came before the lab was up: its namespaces were removed at once");
    e = lab_end(killed_by(SIGKILL), SIGINT, LabKill::second_signal);
    CHECK(e.code == 130);
    CHECK(e.line.rfind("error: cluster: stopped on SIGINT; a second signal came", 0) == 0);
    // The job had finished as the signal came: the signal is still what the user sees.
    e = lab_end(exited(0), SIGINT);
    CHECK(e.code == 130);
    CHECK(e.line == "error: cluster: stopped on SIGINT; the lab exited with 0");
  }

  TEST_CASE("SIGTERM and SIGHUP: 143 and 129; no signal: the lab's own code") {
    CHECK(lab_end(exited(143), SIGTERM).code == 143);
    CHECK(lab_end(exited(143), SIGTERM).line.empty());
    CHECK(lab_end(killed_by(SIGKILL), SIGHUP, LabKill::grace_over).code == 129);
    CHECK(lab_end(exited(0), 0).code == 0);
    CHECK(lab_end(exited(0), 0).line.empty());
    CHECK(lab_end(exited(3), 0).code == 3);
    // Killed by something else (the OOM killer): named as it was.
    const LabEnd e = lab_end(killed_by(SIGKILL), 0);
    CHECK(e.code == 137);
    CHECK(e.line == "error: cluster: the lab ended on SIGKILL (sent by something other than microddp)");
  }
}
