// Calibration probes (probes.cpp, cache_curve.cpp, protocol_probe.cpp,
// machine_check.cpp; calibrate() itself is in calibrate.cpp): what calibrate
// measures, one function per quantity, and the checks that a profile still
// describes this machine. Part of calibrate.h (the method, the statistics).
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

// K empty steps on n ranks (a barrier schedule with no ops): in lockstep,
// nothing but the barrier after each step. The barrier probes of calibrate
// (threads) and of the per-link-class calibration (MPI) time it.
Schedule empty_steps(int n, int K);

}  // namespace microddp
