// Calibration: measure α, β, γ and δ on the machine in front of you, and keep
// them in a JSON profile that predict and bench pick up.
//
// Method (the usual ping-pong, e.g. the OSU latency/bandwidth benchmarks and
// Hockney's original fit):
//  - ping-pong between two ranks of the chosen backend, sizes 4 B .. 64 MiB
//    (powers of two; 4 B is the smallest float32 message), a warm-up, then
//    the MEDIAN of many one-way times. Each measured step is one message plus
//    one lockstep barrier, which is exactly what a lockstep step costs.
//    Buffers rotate: the pings walk through min(64, 32 MiB / m) slots (at
//    least one, ping_pong_slots), so once that pool exceeds L2 consecutive
//    messages do not find their data in L1 or L2. In L3 they may: a 32 MiB
//    pool fits in the L3 of many server CPUs (260 MiB and 508 MiB reported
//    on two of the project's VMs). The cache curve below measures β at each
//    footprint instead.
//  - α, β: weighted least squares on t = α + m·β with weights 1/t² (relative
//    residuals), so small messages pin α and large ones pin β. When one line
//    leaves a relative residual above 15%, the points are split in two at the
//    break that minimises the residual, and each side gets its own line.
//  - γ: the reduction kernel (float32 sum), single thread, rotating buffers,
//    seconds per byte of the destination. δ: kernels::copy the same way (the
//    single-thread memcpy bandwidth).
//  - barrier b(n), n = 2..8 (oversubscribed sizes included): lockstep runs of
//    a schedule of K empty steps; one iteration = K + 1 barriers, so
//    b(n) = iteration time / (K + 1). Each ping-pong step holds one message
//    AND one barrier of 2 ranks, so b(2) is subtracted from every ping-pong
//    time before the fit: α is then the message alone, and the barrier is a
//    term of its own (core/cost_model.h).
//  - peer wait w(n), n = 2..8 (core/cost_model.h): lockstep runs of K steps,
//    each a ring shift of one 4-byte message per rank; one step costs
//    s(n) = (iteration - b(n)) / K, and w(n) = max(0, s(n) - b(n) - the
//    fitted time of one 4-byte message). Measured last, once α is known.
//  - shared memory bus B(k), k = 1..cores (at most 16): k threads copy their
//    own 16 MiB buffers, starting each pass together; B(k) = bytes read +
//    written by all k in one pass / that pass's wall time, the BEST pass
//    (as STREAM reports the best of its trials: the roofline is a ceiling;
//    threads bound to one core each, as the rank threads are).
// Robust statistics for a shared, loaded machine: every quantity is measured
// in interleaved rounds (round 1 of every size, then round 2, ...; the
// barriers, the ping-pong, the peer waits and the cache curve's β, γ, δ in
// `state_rounds`, the rest in `rounds`), so a burst of load hits all sizes a
// little instead of one size a lot. The ping-pong, barrier and peer-wait
// estimates are, per size (world size), the MEDIAN over the rounds of each
// round's MODE (the midpoint of the densest half of its samples, "shorth"):
// the mode ignores descheduled samples within a round; a round lasts a few
// ms, less than the machine's speed states (on the project's VM a 4-byte
// step moves between about 0.3 and 1.4 µs, each for 0.1-0.5 s), so the
// median over nine rounds is the usual state where the pooled mode of three
// followed whichever state two of them caught. B(k) is the best over the
// rounds. Before the fit, a 3-point running median over the sizes removes a
// size that caught an isolated quiet or busy moment (points holds the
// smoothed times).
//  - cache curve (the cache-aware model of core/model/cost_model.h, after
//    Ilic, Pratas & Sousa, IEEE CAL 13(1), 2014): β, γ and δ at footprints
//    F from 8 KiB, doubling, then 4× the last-level cache itself (the cache
//    sizes are read from the system only to choose where the sweep ends;
//    every value is measured), no footprint above an eighth of the memory
//    budget (core/ir/limits.h). F is in the model's unit (bytes read + written by
//    the ranks of one step): δ(F) = one copy of F/2 bytes (reads F/2,
//    writes F/2), γ(F) = one float32 sum of F/3 bytes (reads 2·F/3, writes
//    F/3), each repeated on the same buffers so the data is where the
//    previous pass left it, per byte of the destination; β(F) = a lockstep
//    ping-pong of F/2-byte messages on ONE buffer slot (the receiver reads
//    F/2 and writes F/2 per step), (step - b(2) - α) / message bytes, never
//    below δ(F) (a recv is one copy out of the peer's buffer; at small F
//    the subtraction is noise); ε(F) = measure_coherence_s_per_byte below,
//    with copies of m = min(F/8, 64 KiB) bytes in F / (5m) slots (at least
//    2), so that about F bytes are touched between rank 1's read of a
//    region and rank 0's next write over it; φ(F) =
//    measure_fresh_read_s_per_byte below, with the same m in F / (6m)
//    slots (at least 2): about F bytes between rank 0's write of a region
//    and rank 1's read of it. β, γ and δ are the median over
//    `state_rounds` interleaved rounds of each round's estimate (β: the
//    mode of its steps; γ, δ: the median of its passes), ε and φ the median of
//    5 × `rounds` shorter samples (on a VM it changes within a fraction of
//    a second), then a 3-point running median over F. Above 64 MiB of
//    footprint a round lasts longer than a speed state (over 10 s at
//    1 GiB, mostly the kernel zeroing fresh pages), so those footprints
//    take 3 of the rounds and 3 of the ε and φ samples.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/ir/protocol.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/model/calibrate/fits.h"
#include "core/model/calibrate/link_classes.h"
#include "core/model/calibrate/probes.h"
#include "core/model/calibrate/profile_io.h"

namespace microddp {

struct CalibrateOptions {
  std::string backend = "threads";
  int64_t min_bytes = 4, max_bytes = int64_t{64} << 20;
  int warmup = 3;
  int max_iters = 200;                       // iterations of the K-slot ping-pong per size (>= 5 run)
  int64_t kernel_bytes = int64_t{16} << 20;  // buffer size for timing γ, δ and B(k)
  int rounds = 3;        // interleaved rounds of B(k) and the state probe; ε takes 5 × rounds samples (>= 1)
  // Interleaved rounds of b(n), the ping-pong, w(n) and the cache curve's β, γ, δ,
  // each round one estimate, the median over them taken (>= 1; see above).
  int state_rounds = 9;
  int max_barrier_ranks = 8;                 // b(n) for n = 2..this
  bool cache_curve = true;                   // measure β, γ, δ by footprint (the cache curve)
  int size_factor = 2;                       // ping-pong sizes: min_bytes, min_bytes·factor, ... <= max_bytes (>= 2)
  // Progress lines ("ping-pong 1048576 B: 123.4 us"), may be empty.
  std::function<void(const std::string&)> progress;
  // The fraction of the measurements done, in (0, 1], after each piece
  // (barriers, each ping-pong size of each round, the kernels, the bus, the
  // peer waits, the cache curve); non-decreasing, the last call is 1. A
  // share of the pieces, not of the time. May be empty.
  std::function<void(double)> fraction;
};

// The quick sweep (`microddp calibrate --quick`, the window's "Quick
// calibrate"): ping-pong sizes 4 B .. 1 MiB by factors of 4 (10 sizes), one
// round, at most 20 iterations per size after 1 warm-up, kernels and bus on
// 4 MiB buffers, barriers and peer waits for n = 2..4, no cache curve. The
// same method and profile format as the full sweep, with fewer samples:
// about 2-5 s on a 2-core VM instead of 1-4 minutes. Larger world sizes take
// b(n) and w(n) from the n = 4 entry (CostParams::barrier_for).
CalibrateOptions quick_calibrate_options();

struct CalibrationResult {
  CostParams params;             // name = backend; ready for predict()
  CalibrationFit fit;
  std::vector<FitPoint> points;  // one-way median times
  double memcpy_Bps = 0;         // single-thread kernels::copy bandwidth
  double reduce_Bps = 0;         // single-thread float32 sum, bytes of dst per second
  std::vector<double> barrier_s;   // [n-2]: one lockstep barrier of n ranks (s)
  std::vector<double> peer_wait_s; // [n-2]: w(n), seconds per receiving step
  std::vector<double> mem_bw_Bps;  // [k-1]: aggregate traffic of k copying threads (bytes/s)
  int64_t llc_bytes = 0;           // last-level cache the sweep was sized by (0 = unknown)
};

// Run the measurements. Only "threads" is supported here; throws UsageError
// naming any other backend.
CalibrationResult calibrate(const CalibrateOptions& opt);
// What calibrate refuses, alone (a command calls it before printing its
// header): backend not "threads", sizes outside 4 <= min <= max, a largest
// ping-pong whose buffers exceed the memory budget (check_memory, naming
// --max), size_factor < 2. Throws UsageError.
void validate_calibrate(const CalibrateOptions& opt);

// The quick calibration as one job, with its clock and measurement
// injectable (tests drive it with a fake clock and a fake measurement):
// measure(quick_calibrate_options()) with progress forwarded, then
// write_profile + mark_profile_quick at `path` dated by clock() (local
// date). progress(fraction in [0, 1], what) is called with the measurement's
// fractions (capped below 1 while it runs) and its lines, then once with
// 1.0 and "wrote PATH" after the profile is written. Errors of measure and
// of writing propagate.
struct QuickCalibrationHooks {
  std::function<CalibrationResult(const CalibrateOptions&)> measure;  // empty: calibrate()
  std::function<std::chrono::system_clock::time_point()> clock;       // empty: system_clock::now
  std::function<void(double, const std::string&)> progress;           // may be empty
};
struct QuickCalibrationOutcome {
  CalibrationResult result;
  std::string path, date;  // the profile written; its "calibrated_on"
  double seconds = 0;      // clock() after writing minus clock() before measuring
};
QuickCalibrationOutcome run_quick_calibration(const std::string& path, const QuickCalibrationHooks& hooks = {});

}  // namespace microddp
