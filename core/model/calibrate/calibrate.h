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

namespace microddp {

struct FitPoint {
  int64_t bytes = 0;
  double seconds = 0;
};

struct LineFit {
  double alpha = 0, beta = 0;   // s, s/byte
  double rms_rel = 0;           // root-mean-square of (fit - t) / t
  double max_rel = 0;           // largest |fit - t| / t
  int64_t worst_bytes = 0;      // where max_rel occurs
  // The free line's intercept was below zero (no latency is negative), so
  // this is the line through zero instead: alpha = 0, and beta, rms_rel,
  // max_rel are that line's (the one the profile keeps).
  bool through_zero = false;
};

// Weighted least squares (weights 1/t²) of t = α + m·β. When the intercept
// comes out below zero the fit is made again with α = 0 (the best line with
// α >= 0: β = Σ(m/t) / Σ(m²/t²)) and through_zero is set. Needs >= 2
// points with distinct sizes; throws std::invalid_argument otherwise.
LineFit fit_line(const std::vector<FitPoint>& pts);

struct CalibrationFit {
  LineFit one;                 // a single line through every point
  int64_t break_bytes = 0;     // 0 = one line fits; else first size of the large-message line
  LineFit small, large;        // valid when break_bytes > 0
};
// One line, or two split at the best break (>= 3 points each side) when the
// single line's max relative residual exceeds 15%.
CalibrationFit fit_message_times(const std::vector<FitPoint>& pts);

// The profile's message lines from the ping-pong's fit: α and β from the
// large-message line (the single line when there is no break), the small
// line's α and β below break_bytes. When the large line is fitted through
// zero (its free intercept fell below 0: the time per byte grows across a
// cache edge among its sizes, so the line resolves no latency), its α is
// the small line's: a message's fixed cost (posting it, the receiver
// seeing it) does not shrink because the message is large, and with α = 0
// the messages just above the break lost about 0.7 µs each (measured on
// the Zen 5 guest, 2026-12-02: with one profile, bench's naive and tree
// all-reduce on 2 ranks came out 21-39% under at 32-256 KiB; with the
// same profile and this α, 5-17% under, two runs minutes apart). β is
// not fitted again with that α: the kept line, α_small + m·β, lies α above
// the through-zero line calibrate prints (about 0.7 µs; at the split about
// 20% of a message's time, under 1% from 1 MiB). No value below 0 is kept.
void set_message_lines(CostParams& p, const CalibrationFit& fit);

// One line describing a fit for calibrate's output (no newline), prefixed
// by `what`. A free line: "α = .. us, bandwidth = .. GB/s, n½ = α/β = .. B,
// residuals ...". A line through zero (through_zero) gets no α or n½:
// "bandwidth only, through zero: .. GB/s, residuals ...; the free line's
// intercept was below zero, ..."; its residuals are the stored line's.
std::string fit_line_text(const std::string& what, const LineFit& f);

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

// This CPU's data caches in bytes, 0 where unknown: cpu0's entries in
// /sys/devices/system/cpu/cpu0/cache (Data or Unified, levels 1-4), else
// sysconf (which a VM may fill with the host's figures).
struct DataCacheSizes {
  int64_t l1d = 0, l2 = 0, l3 = 0, l4 = 0;
  int64_t largest() const { return std::max({l1d, l2, l3, l4}); }
};
DataCacheSizes data_cache_sizes();
// The line calibrate prints after a two-line split at `break_bytes`: the
// caches, and where the ping-pong's pool (ping_pong_slots × message, per
// rank) at the split fits. "(this CPU's caches: L1d 48 KiB, L2 1 MiB, L3
// 508 MiB; at the split, 64 KiB messages, the ping-pong rotates 64 buffer
// slots, 4 MiB per rank, which fits in the L3: the split is where two lines
// fit best, not always a cache edge)". "" when no size is known.
std::string split_cache_text(int64_t break_bytes, const DataCacheSizes& caches);
// The largest data cache of this CPU in bytes (data_cache_sizes().largest()),
// 0 when unknown. Used only to choose the cache sweep.
int64_t last_level_cache_bytes();
// Footprints for the cache curve: 8 KiB doubling while below
// want / 1.25, want = max(4 × llc_bytes, 64 MiB) (llc_bytes = 0: 128 MiB),
// then want rounded up to 4 KiB (260 MiB of L3: ..., 512 MiB, 1040 MiB),
// ending before the first F with 8·F > budget_bytes (measured at F = 2 GiB:
// β's ping-pong alone peaked at 5.0·F, an ε sample at 5.6·F, a whole
// calibrate at 6.25·F; when want does not fit, the power of two it
// replaced still may). Ascending,
// multiples of 4 KiB, at least 2 entries.
std::vector<double> cache_sweep_footprints(int64_t llc_bytes, double budget_bytes);
// Whether measure_cache_curve measures `footprint_bytes` in round `round`
// (0-based) of `total_rounds`: every round up to 64 MiB; above it (one round
// there lasts longer than the machine's speed states) rounds
// floor(j·total_rounds / 3), j = 0, 1, 2 (of 9: 0, 3, 6; of 15: 0, 5, 10;
// all of them when total_rounds <= 3; round 0 always, so no footprint is
// left without a sample).
bool cache_curve_measures_in_round(double footprint_bytes, int round, int total_rounds);
// The curve at those footprints (see the method above); `flat` supplies α
// and b(2) for β. β, γ and δ come from `rounds` interleaved rounds (each
// round's estimate, then the median over the rounds), ε from
// `coherence_samples` shorter interleaved samples (their median); above
// 64 MiB of footprint from 3 of them (cache_curve_measures_in_round). progress
// may be empty.
CacheCurve measure_cache_curve(const std::vector<double>& footprints, const CostParams& flat, int rounds,
                               const std::function<void(const std::string&)>& progress = {},
                               int coherence_samples = 15);
// The profile's "cache_curve" object: {"footprint_bytes": [..], "beta_s_per_byte": [..],
// "gamma_s_per_byte": [..], "delta_s_per_byte": [..], "coherence_s_per_byte":
// [..] (ε; optional, absent in profiles before it = no ε term),
// "fresh_read_s_per_byte": [..] (φ; optional likewise), "rule":
// text}. Absent = flat model. Reading throws UsageError naming the file and the key when
// the arrays differ in length, a footprint is not > 0 and ascending, or a
// value is not a finite number of seconds per byte in [0, 1e-3] (β > 0).
nlohmann::json cache_curve_json(const CacheCurve& c);
CacheCurve cache_curve_from_json(const nlohmann::json& j, const std::string& path);

// The mode of noisy samples: the median of the shortest window that holds
// half of them ("shorth"). Equals the median for a single tight cluster; for
// a bimodal sample it lands in the larger mode. 0 for no samples.
double mode_estimate(std::vector<double> v);

// b(n) for n = 2..max_ranks in seconds ([n-2]); see the method above.
std::vector<double> measure_barrier_s(int max_ranks, int rounds = 9);
// w(n) for n = 2..barrier_s.size() + 1 in seconds ([n-2]), given b(n)
// (barrier_s[n-2], seconds) and the time of one 4-byte message (seconds).
std::vector<double> measure_peer_wait_s(const std::vector<double>& barrier_s, double message_s, int rounds = 9);
// The step w(n) is taken from, alone: a lockstep ring shift of one int32
// among n ranks (each sends to r+1 and receives from r-1), seconds per
// step (message + barrier + any wait), with `barrier_s` (b(n), seconds)
// taken out once per iteration for its closing barrier; the median over
// `rounds` rounds of each round's mode, or of those begun within
// `max_seconds` (> 0; at least one round) when a run must stay short. Throws
// UsageError for n < 2.
double measure_ring_shift_step_s(int n, double barrier_s, int rounds = 9, double max_seconds = 0);
// B(k) for k = 1..max_threads in bytes/s ([k-1]); see the method above.
std::vector<double> measure_mem_bw_Bps(int max_threads, int64_t bytes = int64_t{16} << 20, int rounds = 3);

// Run the measurements. Only "threads" is supported here; throws UsageError
// naming any other backend.
CalibrationResult calibrate(const CalibrateOptions& opt);

// While one is alive, memory the process frees stays in the process (glibc:
// no mmap for large blocks, no trimming of the heap), so the next probe's
// buffers reuse pages that are already mapped. `microddp calibrate` and
// `microddp bench` (threads backend) hold one for their whole run: the
// probes and the sizes allocate and free buffers of up to several GiB, many
// times, and glibc returns a block that large to the kernel at free(), so
// each one paid the first touch of every page again. On the project's AMD
// EPYC guest (2026-12-02) a first touch cost about 13 µs per 4 KiB page
// (0.3 GB/s); calibrate spent 8.5 of its 13.4 minutes in the kernel, bench
// (n = 2, 4 KiB .. 64 MiB) 72 of its 137 s. Only in the main arena: a rank
// thread's own arena still maps a block above 64 MiB (all probe buffers
// are allocated on the calling thread). The destructor cannot give glibc
// back its sliding thresholds (any mallopt call fixes them): it sets where
// they end up (mmap from 32 MiB, trim above 64 MiB free) and returns the
// memory (malloc_trim), so hold one in a process that ends soon after, not
// in a long-lived one (the window). Guards nest (a count: the outermost
// one acts); without effect under a sanitizer's allocator.
class KeepFreedMemory {
 public:
  KeepFreedMemory();
  ~KeepFreedMemory();
  KeepFreedMemory(const KeepFreedMemory&) = delete;
  KeepFreedMemory& operator=(const KeepFreedMemory&) = delete;
};

// Single-thread bandwidth (bytes/s) of kernels::copy over `bytes`-long
// buffers (rotating through a pool of >= 4 buffers), median of `reps`.
double measure_memcpy_Bps(int64_t bytes = int64_t{16} << 20, int reps = 5);
// Same for kernels::reduce (float32 sum).
double measure_reduce_Bps(int64_t bytes = int64_t{16} << 20, int reps = 5);

// Seconds of one lockstep ping-pong step between 2 ranks of the threads
// backend: one `bytes`-long message plus one barrier of 2 ranks (the mode of
// `rounds` runs of 20 iterations; a few ms for small messages).
double measure_message_step_s(int64_t bytes, int rounds = 3);
// The buffer slots calibrate's ping-pong of `bytes`-long messages walks
// through: min(64, 32 MiB / bytes), at least 1. A rank's pool is slots ×
// bytes: 64 messages up to 512 KiB, then 32 MiB, then one message. Once the
// pool exceeds L2 (from 16 KiB messages with a 1 MiB L2), the next ping
// finds its data past L2; a CPU whose L3 holds 32 MiB still serves it from
// L3 (the cache curve measures each footprint on its own).
int ping_pong_slots(int64_t bytes);

// Seconds of every timed step of a lockstep ping-pong between 2 ranks of
// the threads backend (one `bytes`-long message + one barrier of 2 ranks
// each), the pings walking through `slots` buffer slots (1 = the same
// buffers every time: the data stays where the last step left it), `iters`
// iterations after `warmup`.
// `protocol`: every message in that protocol (core/ir/protocol.h).
std::vector<double> ping_pong_step_samples(int64_t bytes, int slots, int warmup, int iters,
                                           Protocol protocol = Protocol::simple);

// The protocol probe (core/model/protocol_model.h): per protocol (simple,
// ll, ll128) a lockstep ping-pong of kProtocolProbeSizes (one slot, the
// same method as the main sweep: per size the median over `rounds`
// interleaved rounds of each round's mode, b(2) = barrier2_s taken out),
// and the line t = α + m·β fitted to those points (fit_line, weights
// 1/t²). The three protocols run in turn within every round, so a change
// of the machine's state hits them alike. About 1-2 s on a 2-vCPU VM with
// rounds = 3. [Protocol] order; derived = false.
inline constexpr int64_t kProtocolProbeSizes[] = {8, 1024, 16384, 262144};
std::vector<ProtocolCost> measure_protocol_costs(double barrier2_s, int rounds = 3,
                                                 const std::function<void(const std::string&)>& progress = {});
// Writing over lines another core has read (the coherence term ε of
// core/model/cost_model.h): seconds per byte that rank 0's copy of
// `bytes` bytes into a region rank 1 has read costs beyond the same copy
// into a region nobody read. Lockstep, 2 ranks, `slots` rotating slots (at least 2);
// for each slot j three steps: rank 0 copies its input slot j into region
// X_j (which rank 1 read one rotation ago), rank 1 receives X_j (reads
// it), rank 0 copies input slot K + j into region Z_j (read by nobody). The
// two copies' sources were both last read one rotation ago, so they come
// from the same level of the caches. The value is the median over slots
// and iterations of (X step - Z step) / bytes: the same copy, the same
// barrier, paired in time so that a slow moment of the machine hits both;
// never below 0. Between rank 1's read of X_j and rank 0's next write of
// it, the ranks touch about 5 · slots · bytes bytes (the footprint it
// stands for in the cache curve).
double measure_coherence_s_per_byte(int64_t bytes, int slots, int warmup, int iters);
// The ε and φ probes' pairing of step times: `samples` as step_samples
// gives them for a schedule of `steps` steps, 3 per slot (each iteration's
// step 0 left out: samples[it · (steps - 1) + i] is step i + 1 of iteration
// it), `iters` iterations. For each iteration and each slot j from
// first_slot to slots - 1: the time of step 3j + a minus that of step 3j + b
// (seconds), in that order. Throws std::out_of_range when a step is out of
// the samples (step 0 included).
std::vector<double> slot_step_differences(const std::vector<double>& samples, int steps, int iters, int slots,
                                          int first_slot, int a, int b);
// Reading lines another core has just written (the read side of the
// coherence term, φ in core/model/cost_model.h): seconds per byte that rank
// 1's receive of `bytes` bytes out of a region rank 0 wrote costs beyond
// the same receive out of a region nobody wrote. Lockstep, 2 ranks,
// `slots` rotating slots (at least 2); for each slot j three steps: rank 0
// copies its input slot j into region X_j; rank 1 receives X_(j+1 mod
// slots), which rank 0 wrote one rotation ago; rank 1 receives Z_j, which
// nobody writes (rank 1 read it one rotation ago). Both reads come from
// the same rotation, so the difference is where the written lines are:
// in the writer's private cache (modified) rather than where a clean line
// read before would be. The value is the median over slots and iterations
// of (X step - Z step) / bytes, never below 0. Between rank 0's write of a
// region and rank 1's read of it the ranks touch about 6 · slots · bytes
// bytes (3 copies of `bytes` per slot, each read + write): the reuse
// distance it stands for in the cache curve.
double measure_fresh_read_s_per_byte(int64_t bytes, int slots, int warmup, int iters);
// Seconds of one lockstep step in which each of 2 ranks receives a
// `bytes`-long message from the other at once (+ one barrier of 2 ranks),
// through the ping-pong's rotating slots: the mode of `rounds` runs of 20
// iterations. Both ranks busy at once, where the ping-pong has one: on a VM
// whose two virtual CPUs compete (for a physical core or the memory), this
// step slows while the ping-pong does not.
double measure_exchange_step_s(int64_t bytes, int rounds = 3);

// Is the machine still in the state a profile was measured in? On a VM the
// host can move the virtual CPUs. Measured here: a 4-byte message took
// 0.15 us one way in one calibration and 0.73-0.87 us in seven others; in
// that fast one, two copying threads moved less memory traffic than one
// (B(2) = 44 < B(1) = 50 GB/s): both fit two threads sharing one physical
// core (cause not confirmed from inside the VM). A bench run in the other
// state missed by 35-60%.
//   now_s     = measure_message_step_s(4) now
//   profile_s = p.message_s(4) + p.barrier_for(2), the same step by the profile
//   cores_now = allowed_cpu_count() (core/executor.h), cores_profile = p.cores
// matches() when now / profile is within a factor of 1.5 either way (the
// spread of this step over eight calibrations in one state was about ±15%)
// and the CPU counts are equal (the model places rank r on core r mod cores).
// Only this 2-rank step and the CPU count are checked: a profile measured by
// an older build, or a machine that changed only for larger world sizes,
// can still match.
struct ProfileCheck {
  double now_s = 0, profile_s = 0;
  int cores_now = 0, cores_profile = 0;
  // the profile was measured with waiting ranks that spin (CostParams::threads_wait == "spin")
  bool profile_spins = true;
  double ratio() const { return profile_s > 0 ? now_s / profile_s : 0.0; }
  bool matches() const {
    return ratio() >= 1 / 1.5 && ratio() <= 1.5 && cores_now == cores_profile && profile_spins;
  }
};
// nullopt when p was not calibrated on the threads backend (no barrier
// table: presets and --alpha/--bandwidth have no machine state to check) or
// predicts no time for the step (profile_s <= 0).
std::optional<ProfileCheck> check_profile(const CostParams& p, int rounds = 3);
// One line (no '#', no newline) saying both times, the ratio and what it means.
std::string profile_check_text(const ProfileCheck& c);

// The same question for a world size with more ranks than CPUs, where the
// model adds the peer wait w(n) to each receiving step of a rank that
// shares a core: calibrate's ring-shift step of n ranks measured again.
//   now_s     = measure_ring_shift_step_s(n, p.barrier_for(n)) now
//   profile_s = p.barrier_for(n) + p.message_s(4) + p.wait_for(n), the
//               step as the profile charges it (calibrate took w(n) as the
//               measured step minus b(n) and α, then kept w non-decreasing
//               in n, so a raised w(n) reads as a slower step)
// matches() within 15% either way: nine-round medians of this step read
// 7.9–8.3 µs within a minute on the Zen 5 guest, and 7.9 then 9.7 µs ten
// minutes apart (docs/performance.md, 2026-12-03); a collective pays the
// difference about once per step.
struct PeerWaitCheck {
  int ranks = 0, cores = 0;
  double now_s = 0, profile_s = 0, wait_s = 0;  // seconds; wait_s: the profile's w(n)
  double ratio() const { return profile_s > 0 ? now_s / profile_s : 0.0; }
  bool matches() const { return ratio() >= 1 / 1.15 && ratio() <= 1.15; }
};
// nullopt unless p has barrier and peer-wait tables (a threads
// calibration) that reach `ranks` (calibrate measured that world size; no
// extrapolation), ranks > p.cores > 0 (no wait is predicted otherwise, so
// also for ranks < 2), and allowed_cpu_count() == p.cores (with another CPU
// count the ranks share other cores; the profile check says so). now_s is
// the median of `rounds` rounds, or of those done within one second (at
// least one): under load a round of n > cores ranks can take seconds.
std::optional<PeerWaitCheck> check_peer_wait(const CostParams& p, int ranks, int rounds = 9);
// One line (no '#', no newline): both times, the ratio, and the µs per
// step the predictions at this world size are off by if it holds.
std::string peer_wait_check_text(const PeerWaitCheck& c);
// A profile that calibrate measured on the threads backend (name "threads",
// a barrier table) before waiting ranks spun (threads_wait != "spin"): one
// line (no newline) saying so, for `run`, `predict` and the window, which
// predict from it without a profile check; "" for any other profile, a
// preset or --alpha/--bandwidth.
std::string stale_profile_note(const CostParams& p);

// The bandwidth side of the same question, cheap enough to ask before every
// size of a bench (a few ms): a lockstep step of one 32 KiB message between
// 2 ranks, through calibrate's rotating ping-pong slots (so the receiver
// reads data that sits in the other core's cache, as a collective's
// receiver does), measured now (measure_message_step_s, the mode over three
// rounds: one round caught a descheduled moment now and then and read x3 on
// a normal size) over the same step as calibrate measured it (point_s, the
// profile's one-way time at 32768 B, CostParams::point_32k_s, + p.barrier_for(2)).
// A profile without that point (calibrate --quick) is not probed: its
// fitted line can be 20-40% off at 32 KiB, as wide as the band. 32 KiB:
// large enough that the bytes, not α, set the step, small enough that the
// probe stays short. On the developers' 2-vCPU VM this ratio swung between
// about 1 and 3-4 from one minute to the next, with nothing else running:
// the host moves the virtual CPUs (a standalone two-thread copy of 64 KiB
// written by the other core ran at 36-38 GB/s in one minute and 10-11 GB/s
// in the next).
// A second step asks the same question with both ranks busy: each of 2
// ranks receives 32 KiB from the other at once (measure_exchange_step_s),
// over the same step in the profile (p.exchange_32k_s). The ping-pong keeps
// one rank busy at a time and can miss a state in which the two virtual
// CPUs slow each other down: here it read x1.07 in a minute when a 32 KiB
// ring all-reduce on 2 ranks took twice the predicted time. The ratio
// returned is the one of the two farther from 1 (by |log ratio|); only the
// ping-pong's when the profile has no exchange step (older profiles).
// Returns 0 when p has no barrier table (not a calibrated threads profile)
// or point_s <= 0.
constexpr int64_t kStateProbeBytes = 32768;
double state_probe_ratio(const CostParams& p, double point_s);
// The choice above: of two ratios, the one farther from 1 by |log ratio|
// (x0.5 and x2 are equally far; a tie keeps one_way). A ratio that is not a
// finite number > 0 is left out; 0 when neither is one.
double farther_state_ratio(double one_way, double both);
// How busy the CPUs already are: the fraction (0..1) of all CPU time, over
// `seconds`, that /proc/stat counts as not idle (user, nice, system, irq,
// softirq, steal), summed over every CPU of the machine. Measured before
// calibrate or bench start their threads, it is other work (a build, a
// browser) that would disturb every figure. -1 when /proc/stat cannot be
// read.
double cpu_busy_fraction(double seconds = 0.2);

// $XDG_CONFIG_HOME/microddp/profile.json, else ~/.config/microddp/profile.json.
std::string default_profile_path();

// JSON profile: {"backend", "alpha_s", "beta_s_per_byte", "bandwidth_Bps",
// "gamma_s_per_byte", "delta_s_per_byte", "n_half_bytes", "cores",
// "fused_recv_reduce", "break_bytes", "alpha_small_s", "beta_small_s_per_byte",
// "exchange_32k_step_s" (seconds, the state probe's both-ranks step; absent
// in older profiles), "barrier_s_by_ranks" ([n-2], seconds), "peer_wait_s_by_ranks" ([n-2],
// seconds), "mem_bw_Bps_by_threads" ([k-1],
// bytes/s), "points": [{"bytes", "seconds"}]}. Profiles written before the
// barrier and bus fields existed still load (missing = empty = not modelled);
// a table that is not an array of numbers in range (b, w: 0..1 s; B: 1..1e15
// B/s) is refused with a UsageError naming the key and the entry. Every
// scalar is checked too (validate_profile_number): alpha_s, alpha_small_s,
// exchange_32k_step_s in [0, 1] s; beta_s_per_byte in (0, 1] s/B; beta_small_s_per_byte,
// gamma_s_per_byte, delta_s_per_byte in [0, 1] s/B; bandwidth_Bps in
// (0, 1e15] B/s; n_half_bytes, break_bytes in [0, 2^50]; cores an integer
// in [1, 65536] (write_profile leaves it out for cores = 0, one per rank); points' bytes in [1, 2^50] and seconds in (0, 1e3]. NaN,
// infinities and absurd magnitudes (1e308) are refused with a UsageError
// naming the file and the field. The optional "cache_curve" object is read
// by cache_curve_from_json.
// calibrate keeps b(n) and w(n) non-decreasing in n (running max: a dip is
// noise, and the last entry decides every larger world size).
// write_profile creates missing parent folders and throws
// std::runtime_error naming the path when it cannot write.
// Refuses a profile path that cannot be written, before anything is
// measured: empty, a directory, a parent that is not (or cannot become) a
// directory, or a file this process may not write. Throws UsageError naming
// the path and the reason (the system's words).
void check_profile_writable(const std::string& path);
void write_profile(const std::string& path, const CostParams& p, const std::vector<FitPoint>& points);
// Throws UsageError naming the path when it is missing, does not parse, or
// lacks alpha_s / beta_s_per_byte, and naming the path, the field and the
// expected type or range for a field that has the wrong one (a number out
// of range, a flag such as "quick" or "fused_recv_reduce" that is not true
// or false, a "backend" or "calibrated_on" that is not a string).
CostParams load_profile(const std::string& path);

// A quick calibration's mark in its profile: "quick": true and
// "calibrated_on": "YYYY-MM-DD" beside the fields above (load_profile
// checks their types and otherwise ignores them). mark_profile_quick adds
// them to the file at `path` (written by write_profile first), throwing
// std::runtime_error naming the path when it cannot read or write it. profile_stamp reads them back:
// quick false and date "" when absent or unreadable (a full calibration's
// profile; its date is the file's).
struct ProfileStamp {
  bool quick = false;
  std::string date;  // "YYYY-MM-DD", or ""
};
void mark_profile_quick(const std::string& path, const std::string& date);
ProfileStamp profile_stamp(const std::string& path);

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

// The parameters a command was asked for, in this order of precedence:
// --alpha/--bandwidth (gamma optional; alpha < 0 = not given), --preset,
// --profile, then the default profile when it exists. nullopt when none was
// given and there is no default profile. Throws UsageError naming a bad
// value (unknown preset, bandwidth <= 0, alpha without bandwidth, an
// unreadable profile).
struct ParamChoice {
  std::string preset, profile;
  double alpha = -1, bandwidth = -1, gamma = 0;
};
std::optional<CostParams> resolve_params(const ParamChoice& c);

// ---- Per link class: calibrate in the cluster lab (backend mpi) ----
// Method (the OSU ping-pong, osu_latency / osu_bw's one-way time): for each
// link class, one pair of ranks of that class -- intra: ranks 0 and 1 (one
// node), inter: ranks 0 and ranks_per_node (node 0 and node 1) -- exchanges
// blocking MPI_Send/MPI_Recv round trips on MPI_COMM_WORLD while the other
// ranks wait in MPI_Barrier; one-way time = the MEDIAN round trip / 2 (one
// warm-up round trip, then enough to fill ~0.5 s per size, 3..50).
//  - α = the one-way time of the smallest size (4 B).
//  - bandwidth = 1 / the slope of fit_line over the sizes >= 256 KiB. Not
//    the single line through every size: tbf lets a full bucket (its burst,
//    64 KiB and more) through at the veth's speed, and an idle ping-pong
//    refills it between messages, so small and middle sizes cross faster
//    than the rate; the slope of the large sizes is the rate (the burst
//    only lowers their intercept).
//  - barrier_s: one lockstep step barrier of the whole job as run_mpi pays
//    it (through rank 0, over the NIC): K empty lockstep steps, one
//    iteration = K + 1 barriers (as b(n) above, on the mpi backend).
//  - γ, δ: as calibrate (single-thread kernels), measured on rank 0.
// The NIC rate is the lab's (shaped_Bps); nothing here shapes.
struct LinkClassCalibration {
  int rank_a = -1, rank_b = -1;    // the pair measured
  std::vector<FitPoint> points;    // one-way median times (s)
  LineFit large;                   // the line through the sizes >= 256 KiB
  double alpha_s = 0, bandwidth_Bps = 0;
};
struct TopologyCalibrateOptions {
  int nodes = 1, ranks_per_node = 1, nics_per_node = 1;
  double shaped_Bps = 0;  // each NIC's rate, bytes/s per direction (0 = not shaped)
  int64_t max_bytes = int64_t{4} << 20;  // largest ping-pong size (bytes, >= 4; sizes above it are skipped)
  std::function<void(const std::string&)> progress;  // rank 0 only
};
struct TopologyCalibration {
  TopologyProfile profile;
  CostParams params;  // the flat part: name "mpi-lab", α/β of the inter class (intra on one node), γ, δ
  std::optional<LinkClassCalibration> intra, inter;
  double reduce_Bps = 0, memcpy_Bps = 0;
};
// Collective: every rank of the MPI job calls it with the same options
// (MPI must be initialized: mpi_init_once); rank 0's result is complete,
// the others' hold only the options. Throws UsageError when the build has
// no MPI, when MPI's world size is not nodes · ranks_per_node (naming
// both), or when no pair of either class exists (one rank in all).
TopologyCalibration calibrate_topology_mpi(const TopologyCalibrateOptions& opt);

// Why a measured inter-node rate is off the shaped one: "" when within 10%
// (|measured / (shaped · nics) - 1| <= 0.10), else lines (no newline at the
// end) naming the likely causes for that direction -- below: a CPU-bound TCP
// stack (cpu_busy = cpu_busy_fraction() before the run, -1 unknown), the
// tbf bucket's burst and timer granularity, TCP windows at this RTT;
// above: a burst that let whole messages through unshaped, or a NIC count
// that is not the one shaped.
std::string shaped_rate_diagnosis(double measured_Bps, double shaped_Bps, int nics, double cpu_busy);

// The profile's "topology" object (kept apart from the flat fields):
//   "topology": {"nodes", "ranks_per_node", "nics_per_node", "barrier_s",
//                "intra": {"alpha_s", "bandwidth_Bps"},
//                "inter": {"alpha_s", "bandwidth_Bps", "shaped_Bps"}}
// seconds, bytes/s per direction; a class that was not measured is absent.
// write_profile_topology adds it to the profile file at `path` (written by
// write_profile first), throwing std::runtime_error naming the path when
// it cannot read or write it. load_profile_topology: nullopt when the
// profile has no "topology"; UsageError naming the key when a count is not
// a positive integer or a number is out of range (α: 0..1 s, bandwidth
// and shaped rate: 1..1e15 B/s, barrier 0..1 s).
void write_profile_topology(const std::string& path, const TopologyProfile& t);
std::optional<TopologyProfile> load_profile_topology(const std::string& path);

// K empty steps on n ranks (a barrier schedule with no ops): in lockstep,
// nothing but the barrier after each step. The barrier probes of calibrate
// (threads) and of the per-link-class calibration (MPI) time it.
Schedule empty_steps(int n, int K);

}  // namespace microddp
