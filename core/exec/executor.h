// Runs a Schedule for real and records it. The execution rules are in
// core/schedule.h; this file is the seam between the rules (one rank's
// program, RankProgram) and the machinery that moves bytes (a Transport).
//
// Backends: "threads" (one thread per rank in this process; this file),
// "mpi" (core/backend_mpi.h), "cuda" and "nccl" (core/backend_cuda.h).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/ir/protocol.h"
#include "core/ir/trace.h"

namespace microddp {

// Test-only fault injection: delays the moment a send's data may be read by
// a seeded random amount (0..max_delay_us) on the chosen rank (-1 = all),
// which widens every window in which a reused buffer would be overwritten.
// Under ll / ll128 the sender stops for that time halfway through storing
// its message, so its receiver polls words still holding old flags.
struct DelayHook {
  int rank = -1;
  uint64_t seed = 1;
  int max_delay_us = 200;
};

inline constexpr int kRepeatStepsAuto = -1;
inline constexpr int kRepeatAutoMin = 5, kRepeatAutoMax = 50;
inline constexpr int64_t kRepeatAutoTarget_ns = 5'000'000;   // 5 ms of repetitions per step
inline constexpr int64_t kRepeatAutoLimit_ns = 200'000'000;  // stop past 0.2 s even below the minimum
inline constexpr int64_t kRepeatAutoMemory_bytes = int64_t{1} << 30;
inline constexpr int kRepeatStepsMax = 100000;  // the largest --repeat-steps accepted

struct RunOptions {
  Mode mode = Mode::lockstep;
  // How each message travels (core/ir/protocol.h). The threads backend runs
  // simple, ll and ll128 for real, and so does cuda (flagged lines stored
  // by kernels into the receiver's GPU memory); mpi and nccl throw
  // UsageError for ll and ll128. Recorded in Trace::protocol and per message in Event::wire_bytes
  // and Event::flags.
  Protocol protocol = Protocol::simple;
  bool record = true;               // events and step times
  int64_t snapshot_limit = 64;      // keep buffers when a rank has <= this many elements in all
  const DelayHook* delay = nullptr; // test only
  int iterations = 1;               // repeat the whole schedule (bench); trace keeps the last
  // Buffer rotation (the OSU caveat: reusing one buffer flatters on-node
  // results): iteration i runs on buffer set i mod buffer_sets, each set a
  // full copy of every rank's buffers holding the same inputs.
  int buffer_sets = 1;
  // Bind rank r to CPU number r mod C of the C CPUs the process may use
  // (cpus_for_threads), as `mpirun --map-by core --bind-to core` binds ranks
  // (with more ranks than CPUs: `--bind-to core:overload-allowed`). Then
  // which ranks share a core is the same in every run (ranks r and r + C),
  // which the cost model's packing assumes (core/cost_model.h); left to the
  // OS, the placement changed from run to run and a 3-rank 4 KiB ring
  // measured 41 µs in one run and 70 µs in the next. Best effort: a refused
  // binding leaves the thread unbound.
  bool pin_threads = true;
  // How long a waiting rank spins on its flag before it yields its CPU (ns):
  // kSpinAuto takes threads_spin_budget_ns(ranks) (spin while every rank has
  // a CPU of its own); 0 yields after a few pauses; a time above the 30 s
  // deadlock watchdog counts as 30 s; another negative value throws
  // UsageError. A caller whose own threads work beside the run (the DDP
  // lab's backward passes) passes 0: a spinning rank would take their CPU.
  static constexpr int64_t kSpinAuto = -1;
  int64_t spin_ns = kSpinAuto;
  // Warm repetitions of every step (Trace::step_timing; threads and mpi
  // backends (run_mpi: between barriers through rank 0, see backend_mpi.h),
  // lockstep mode, with record; the last iteration only). After the real run
  // of a step, every rank re-runs it on a private copy of its memory as it
  // was before the step, `repeat_steps` times, each repetition between two
  // barriers; the real buffers are never touched. 0: off (one cold sample per
  // step); kRepeatStepsAuto: repeat until the repetitions add up to
  // kRepeatAutoTarget_ns with at least kRepeatAutoMin of them, at most
  // kRepeatAutoMax, and stop early once they pass kRepeatAutoLimit_ns (a slow
  // step is not run many times), and off when the copies would need more
  // than kRepeatAutoMemory_bytes. Each rank needs two extra copies of its
  // memory while repeating: run_threads throws UsageError when an explicit
  // count's copies exceed the memory budget (core/ir/limits.h).
  // Free mode runs steps unrepeated: its steps overlap, and fencing a step
  // off with barriers to repeat it would measure another schedule.
  int repeat_steps = 0;
  // Called after every step with the step index, before the next one starts
  // (lockstep only; used by the app's live Step button and by lessons).
  // With repetitions it is called after the step's last repetition.
  std::function<void(int)> on_step;
};

struct RunResult {
  RankData outputs;
  // Each rank's input buffer as it was after the run (out-of-place calls
  // must leave it equal to the input; float avg pre-scales a private copy).
  RankData inputs_after;
  Trace trace;
};

// CPU binding, as mpirun binds ranks to cores. cpus_for_threads(n): the CPU
// for each of n threads ([thread]): the CPUs this process may use in
// increasing order, thread t on CPU number t mod C of those C, so with n <= C
// every thread has a CPU of its own and with n > C threads t and t + C share
// one. Empty for n < 1 or when the allowed set cannot be read.
// bind_this_thread(cpu): binds the calling thread to that CPU (best effort:
// a refused binding leaves it unbound).
// allowed_cpu_count(): how many CPUs this process may use (its affinity
// mask, narrowed by taskset or a cgroup; at least 1); the C above.
std::vector<int> cpus_for_threads(int n);
void bind_this_thread(int cpu);
int allowed_cpu_count();
// How long (ns) a rank of a threads run with `ranks` ranks spins on a flag
// (a message, a completion, a barrier) before it yields its core:
// kThreadsSpinOwnCoreNs when every rank has a CPU of its own (ranks <=
// allowed_cpu_count() and <= the cgroup's CPU quota, cgroup_cpu_quota()),
// 0 when they share, after a few pause instructions either way. Open MPI's ranks poll the same way (they yield only when
// oversubscribed, mpi_yield_when_idle); a rank that yields notices its data
// up to a system call late, about 1 µs on the 2-vCPU VM it was measured on.
constexpr int64_t kThreadsSpinOwnCoreNs = 50'000;
int64_t threads_spin_budget_ns(int ranks);
// A cgroup v2 CPU quota in whole CPUs: the text of a cpu.max file ("QUOTA
// PERIOD", both µs, or "max PERIOD") -> floor(QUOTA / PERIOD), at least 1;
// nullopt for "max" (no quota) or text that is not two positive integers.
// A container limited to 2 CPUs (docker --cpus=2) often sees every host CPU
// in its affinity mask: only the quota says that 8 ranks would share 2.
std::optional<int> cpu_quota_cpus(const std::string& cpu_max);
// The least quota on this process's cgroup and its ancestors
// (/proc/self/cgroup, /sys/fs/cgroup/.../cpu.max); nullopt when none is set
// or cgroup v2 is not mounted there.
std::optional<int> cgroup_cpu_quota();

// Runs on the threads backend. Throws UsageError when inputs have the wrong
// shape. The schedule should have passed check_schedule (an unchecked one
// may deadlock; the threads backend then throws after a 30 s watchdog).
RunResult run_threads(const Schedule& s, const RankData& inputs, const RunOptions& opt = {});

// A paused, step-by-step run on the threads backend: the rank threads
// execute step k only when step() is called (lockstep). Used by the app's
// Step button: every click runs one real step.
class SteppedRun {
 public:
  SteppedRun(const Schedule& s, const RankData& inputs, const RunOptions& opt = {});
  ~SteppedRun();
  SteppedRun(const SteppedRun&) = delete;
  SteppedRun& operator=(const SteppedRun&) = delete;
  int steps_done() const;
  bool finished() const;
  // Runs the next step on every rank; returns after all ranks finished it.
  void step();
  // Runs the remaining steps; returns the result.
  RunResult finish();
  // The record so far (valid for steps < steps_done()).
  const Trace& trace() const;

  struct Impl;  // shared with run_threads

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace microddp
