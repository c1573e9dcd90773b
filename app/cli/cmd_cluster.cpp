// microddp cluster: an emulated multi-node cluster on this machine -- one
// network namespace per node, veth NICs to a bridge (the switch), each NIC
// shaped with tbf in both directions -- and a microddp subcommand run on it
// as an Open MPI job, ranks placed node by node.
//
//   microddp cluster --nodes 2 --ranks-per-node 2 --nic 100mbit -- run --ranks 4
//
// This file validates the options, decides what runs (app/cli/lab_job.h:
// run, bench, doctor and calibrate as one MPI job on the mpi backend with
// the lab's world size; predict here, without a lab; the rest refused, all
// before any namespace exists) and creates the lab's outer namespaces;
// scripts/cluster-lab.sh builds the nodes and runs mpirun inside them. Why
// clone(2) here rather than `unshare` in the script: the script runs as PID 1
// of a new PID namespace, so when it ends for any reason the kernel kills
// every process of the lab and the network namespaces die with them; and
// this process stays outside as the parent that knows PID 1's real PID, so
// it can forward SIGINT/SIGTERM to it (util-linux unshare blocks those
// while it waits) and, through PDEATHSIG, takes the lab down if it is itself
// killed with SIGKILL. Nothing is named on the host, so nothing persists.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <fstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/lab_exit.h"
#include "app/cli/lab_job.h"
#include "core/model/nic_rate.h"
#include "core/ir/types.h"

namespace microddp::cli {
namespace fs = std::filesystem;
namespace {

struct Args {
  int nodes = 2;
  int ranks_per_node = 1;
  std::string nic;
  int nics_per_node = 1;
  bool keep_going = false;
  std::vector<std::string> command;
};

// scripts/cluster-lab.sh: $MICRODDP_CLUSTER_SCRIPT, or scripts/ above the
// executable (build/<preset>/app/microddp -> <repo>/scripts).
std::string find_script() {
  if (const char* env = std::getenv("MICRODDP_CLUSTER_SCRIPT"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::exists(p / "scripts" / "cluster-lab.sh")) return (p / "scripts" / "cluster-lab.sh").string();
  return "";
}

bool in_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path p = fs::path(dirs.substr(start, end - start)) / tool;
    if (access(p.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

volatile sig_atomic_t g_lab_pid = 0;
volatile sig_atomic_t g_signals = 0;
volatile sig_atomic_t g_user_signal = 0;  // the first signal the user sent
volatile sig_atomic_t g_lab_ready = 0;    // the lab's traps are set (its READY_FD byte came)
volatile sig_atomic_t g_killed = 0;       // LabKill: why this process sent SIGKILL

void kill_lab(LabKill why) {
  if (g_killed == 0) g_killed = static_cast<sig_atomic_t>(why);
  if (g_lab_pid > 0) kill(g_lab_pid, SIGKILL);
}

// SIGALRM: the grace period after the first signal is over.
void grace_over(int) { kill_lab(LabKill::grace_over); }

// The first signal goes to the lab's PID 1 as it was sent (its trap names
// it, stops mpirun and exits 128 + its number). Before the lab's traps are
// set the kernel would drop it (a namespace's init without a handler), and
// nothing runs yet that needs a graceful stop: SIGKILL, which removes the
// whole lab. 10 s later, or on a second signal, SIGKILL too.
void forward_signal(int sig) {
  g_signals = g_signals + 1;
  if (g_user_signal == 0) g_user_signal = sig;
  if (g_signals > 1) return kill_lab(LabKill::second_signal);
  if (!g_lab_ready) return kill_lab(LabKill::before_ready);
  if (g_lab_pid > 0) kill(g_lab_pid, sig);
  alarm(10);
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

int run(const Args& a) {
  if (a.nodes < 1 || a.nodes > 16) throw UsageError(fmt::format("--nodes {}: must be in 1..16", a.nodes));
  if (a.ranks_per_node < 1 || a.ranks_per_node > 64)
    throw UsageError(fmt::format("--ranks-per-node {}: must be in 1..64", a.ranks_per_node));
  if (a.nics_per_node < 1 || a.nics_per_node > 4)
    throw UsageError(fmt::format("--nics-per-node {}: must be in 1..4", a.nics_per_node));
  const uint64_t nic_bps = parse_nic_rate(a.nic);
  if (a.command.empty()) throw UsageError("no subcommand: give one after --, e.g. -- run --backend mpi --ranks 4");
  // What runs: one MPI job across the lab's nodes, or something here
  // (predict, --help), or a refusal -- decided before any namespace exists
  // (app/cli/lab_job.h).
  const LabPlan plan = plan_lab_job({a.nodes, a.ranks_per_node, a.nics_per_node, nic_bps}, a.command);
  if (plan.run_here) return plan.run_here();

  const std::string script = find_script();
  if (script.empty() || access(script.c_str(), R_OK) != 0)
    throw UsageError("scripts/cluster-lab.sh not found above the executable; set MICRODDP_CLUSTER_SCRIPT");
  for (const char* tool : {"bash", "ip", "tc", "nsenter", "unshare", "mpirun", "awk"})
    if (!in_path(tool))
      throw UsageError(fmt::format("cluster: '{}' not found in PATH (Debian: scripts/install-deps.sh installs iproute2, "
                                   "util-linux, openmpi-bin)",
                                   tool));

  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  // The lab says on this pipe when its signal traps are set (READY_FD).
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<std::string> argv_s = {"bash", script, "lab", std::to_string(a.nodes), std::to_string(a.ranks_per_node),
                                     std::to_string(nic_bps), std::to_string(a.nics_per_node), a.keep_going ? "1" : "0",
                                     std::to_string(ready[1]), "--", self};
  argv_s.insert(argv_s.end(), plan.command.begin(), plan.command.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::string bash;
  for (const char* p : {"/bin/bash", "/usr/bin/bash"})
    if (access(p, X_OK) == 0) bash = p;
  if (bash.empty()) throw UsageError("cluster: /bin/bash not found");

  // Not root: an unprivileged user namespace makes us root of the lab's
  // namespaces (uid 0 -> our uid), enough for veth, bridges and tc.
  const bool userns = geteuid() != 0;
  int flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWUTS | (userns ? CLONE_NEWUSER : 0);
  int sync[2];
  if (pipe2(sync, O_CLOEXEC) != 0) {
    close(ready[0]);
    close(ready[1]);
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // A fork with namespace flags: the child is PID 1 of the new PID namespace
  // and this process sees its real PID.
  const long pid = syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
  if (pid < 0) {
    const int e = errno;
    for (int fd : {sync[0], sync[1], ready[0], ready[1]}) close(fd);
    throw UsageError(fmt::format(
        "cluster: cannot create the lab's namespaces (clone: {}): {}", std::strerror(e),
        userns ? "run as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
                 "and user.max_user_namespaces > 0; in a container, run it with --privileged or CAP_SYS_ADMIN)"
               : "root but not allowed (a container without CAP_SYS_ADMIN/CAP_NET_ADMIN? run it with --privileged)"));
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    close(sync[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the parent killed -> the lab goes
    // The lab's script traps INT, TERM and HUP, but a shell cannot trap a
    // signal that was ignored when it started (POSIX trap; bash): a
    // `microddp cluster ... &` from a script inherits SIGINT ignored.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &dfl, nullptr);
    char c;
    if (read(sync[0], &c, 1) != 1) _exit(1);  // the parent died, or failed the uid map
    // READY_FD stays open across exec (the script writes, then closes it).
    if (fcntl(ready[1], F_SETFD, 0) != 0) _exit(1);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      const char msg[] = "error: cluster: cannot make the lab's mounts private or mount its /proc\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(1);
    }
    execv(bash.c_str(), argv.data());
    _exit(127);
  }
  close(sync[0]);
  close(ready[1]);
  g_lab_pid = static_cast<sig_atomic_t>(pid);
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  // One handler at a time: the counts and the first signal stay consistent.
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGALRM}) sigaddset(&sa.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
  sa.sa_handler = grace_over;
  sigaction(SIGALRM, &sa, nullptr);
  if (userns) {
    const std::string proc = fmt::format("/proc/{}/", pid);
    if (!write_file(proc + "setgroups", "deny") || !write_file(proc + "uid_map", fmt::format("0 {} 1", geteuid())) ||
        !write_file(proc + "gid_map", fmt::format("0 {} 1", getegid()))) {
      kill(static_cast<pid_t>(pid), SIGKILL);
      waitpid(static_cast<pid_t>(pid), nullptr, 0);
      close(ready[0]);
      throw UsageError("cluster: cannot map our uid into the lab's user namespace; run as root");
    }
  }
  // What the lab added to the command, once it is sure to run (before the
  // lab's own lines: it waits for the byte below).
  if (!plan.added.empty())
    std::fprintf(stderr, "cluster: one MPI job across the lab's nodes; added to the command: %s\n",
                 fmt::format("{}", fmt::join(plan.added, " ")).c_str());
  (void)!write(sync[1], "x", 1);
  close(sync[1]);
  // Until the lab's byte (or its end: EOF), a signal kills the lab at once.
  for (char c = 0;;) {
    const ssize_t n = read(ready[0], &c, 1);
    if (n == 1) g_lab_ready = 1;
    if (n >= 0 || errno != EINTR) break;
  }
  close(ready[0]);
  // A signal that came while g_lab_ready was being set found it 0 and
  // killed the lab: nothing is lost either way.
  int status = 0;
  while (waitpid(static_cast<pid_t>(pid), &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  alarm(0);
  g_lab_pid = 0;
  const LabEnd end = lab_end(status, g_user_signal, static_cast<LabKill>(g_killed));
  if (!end.line.empty()) std::fprintf(stderr, "%s\n", end.line.c_str());
  return end.code;
}

}  // namespace

std::function<int()> setup_cluster(CLI::App* sub) {
  auto a = std::make_shared<Args>();
  sub->add_option("--nodes", a->nodes, "emulated hosts (network namespaces), 1..16")->capture_default_str();
  sub->add_option("--ranks-per-node", a->ranks_per_node, "MPI ranks on each node (node k holds ranks k*G .. k*G+G-1)")
      ->capture_default_str();
  sub->add_option("--nic", a->nic, "each NIC's rate, tc units: 100mbit, 1gbit, 12.5mbps (bits unless ...bps)")->required();
  sub->add_option("--nics-per-node", a->nics_per_node, "NICs per node, one switch (subnet) each")->capture_default_str();
  sub->add_flag("--keep-going", a->keep_going, "run the subcommand even when the NIC check fails");
  sub->add_option("command", a->command, "-- SUBCOMMAND [ARGS...]: run, bench, doctor or calibrate (one MPI job across the nodes), or predict (the lab's topology, run here)");
  return [a] { return run(*a); };
}

}  // namespace microddp::cli
