// What an explicit --repeat-steps N asks of the machine, and the cap on it
// (`microddp run`; RunOptions::repeat_steps). Each of the N repetitions of
// each step restores every rank's memory from a copy (a memcpy of all its
// storages) and runs the step between two barriers (threads.cpp
// repeat_step; backend_mpi.cpp the same through rank 0), so the work grows
// with N x steps x (the ranks' memory + two barriers). A run that would
// take minutes is refused before it starts, with the estimate: a user who
// asks for 100000 repetitions of a 14-step, 8-rank, 1M-element all-reduce
// (hours of copying) wants to be told, not to watch a silent terminal.
//
// The estimate is deliberately simple and errs long: copies at
// kRepeatCopyBytesPerS, and per repetition kRepeatBarrierPairS x w^2 with
// w = ceil(ranks / CPUs) (oversubscribed ranks wait for each other's turn
// on a CPU at both barriers). Measured on the project's 2-vCPU VM
// (loaded): 8 ranks x count 8, 14 steps x 10000 repetitions: 48 s, 340 µs
// per repetition (the model: 320 µs); 2 ranks x count 8, 2 steps x 100000:
// 1.1 s (the model: 4 s); 8 ranks x count 1M (68 MB of storages), 14 x 10:
// 12 s, 85 ms per repetition (the model: 68 ms).
#pragma once
#include <string>

#include "core/ir/schedule.h"

namespace microddp {

inline constexpr double kRepeatCopyBytesPerS = 1e9;  // restoring the copies (all ranks together)
inline constexpr double kRepeatBarrierPairS = 20e-6;  // two barriers, ranks <= CPUs
inline constexpr double kRepeatMaxSeconds = 60;       // the most an explicit count may ask for

struct RepeatEstimate {
  int64_t repetitions = 0;  // steps x N
  double bytes_per_repetition = 0;  // every rank's storages (restored each time)
  double bytes_copied = 0;          // in all
  double seconds = 0;               // the estimate above
  int max_fitting = 0;              // the largest N within kRepeatMaxSeconds (0: none)
};

// The estimate for `repeat_steps` (> 0) repetitions of every step of s on
// `cpus` CPUs (the caller's allowed CPUs: allowed_cpu_count, narrowed by a
// cgroup quota).
RepeatEstimate estimate_repeat_steps(const Schedule& s, int repeat_steps, int cpus);

// Throws UsageError "--repeat-steps N: S steps x N = R step repetitions, each
// restoring every rank's memory (X MB), Y GB copied in all: about T at ...;
// at most 60 s of repetitions: give --repeat-steps M or fewer, or leave it
// out (auto: ...)" when the estimate exceeds kRepeatMaxSeconds. No-op for
// repeat_steps <= 0 (off, auto).
void check_repeat_steps(const Schedule& s, int repeat_steps, int cpus);

}  // namespace microddp
