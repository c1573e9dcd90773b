// The alpha-beta(-gamma) cost model: a prediction of how long a Schedule
// takes, derived from the Schedule alone, plus the closed forms from the
// literature to check it against.
//
// Model (Hockney; the form used by Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 19(1), 2005, and by Patarasuk & Yuan, "Bandwidth optimal all-reduce
// algorithms for clusters of workstations", JPDC 69(2), 2009):
//   one message of m bytes costs  α + m·β
//   reducing m bytes costs        m·γ        (recv_reduce and reduce ops)
//   copying m bytes locally costs m·δ        (copy ops; δ = 0 in the papers,
//                                             calibrate measures it because
//                                             on one machine copies cost as
//                                             much as messages)
// Units: α in SECONDS per message, β, γ, δ in SECONDS per BYTE (β = 1 /
// bandwidth in bytes/s). Every time returned here is in seconds unless the
// name says _us.
//
// One rank in one step: each rank has one port each way (full duplex, one
// message at a time per direction), so
//   cost = max(Σ over its sends (α + m·β), Σ over its recvs (α + m·β))
//        + bytes reduced·γ + bytes copied·δ.
// A step takes as long as its slowest rank.
//   lockstep  total = Σ over steps of the step times (a barrier between steps);
//   pipelined total = the critical path through the op dependencies when
//                     ranks run free: rank r starts step s when it finished
//                     step s-1 AND every peer it exchanges messages with in
//                     step s has started step s (a message needs both ends).
// Two terms for ranks that share one machine (the threads backend; both 0 =
// not modelled, as in the presets and the papers):
//  - barrier b(n): in lockstep every step ends with a barrier of all n ranks,
//    which costs b(n) seconds (measured by calibrate per world size; a
//    dissemination-style barrier grows like a + c·log2 n, and much faster once
//    ranks outnumber cores and must be scheduled in turn).
//  - shared memory bus (the roofline idea of Williams, Waterman & Patterson,
//    "Roofline: an insightful visual performance model for multicore
//    architectures", CACM 52(4), 2009): the ranks of a step move their bytes
//    through ONE memory system, so a step takes at least
//      (memory traffic of the step, all ranks) / B(min(n, cores))
//    where B(k) is the aggregate bandwidth (bytes/s) that k threads copying at
//    once reach. Traffic counts bytes read plus bytes written: a recv or a
//    copy of m bytes moves 2m (read the source, write the destination), a
//    recv_reduce or a reduce 3m (read both operands, write one); a send moves
//    nothing by itself (the receiver reads the sender's buffer).
//  - peer wait w(n): a rank that receives in a step first waits for its
//    sender to run. With a core per rank that wait is the α already counted.
//    When ranks outnumber cores, the threads backend binds rank r to core
//    r mod cores, and ranks on one core take turns: a receiver whose sender
//    is switched out waits for the scheduler to switch it in. calibrate
//    measures w(n) per world size as what a lockstep step of a ring shift of
//    one 4-byte message per rank costs beyond α and b(n). The model adds
//    w(n) once (not per message: one switch-in serves all of the step's
//    messages) to every rank that receives in a step while it or one of its
//    senders shares a core with another rank busy in that step (with ops of
//    its own). Measured at n = 3 (ranks 0 and 2 on core 0): naive all-reduce
//    pairs R0 with R1, then R0 with R2; the R0-R2 steps pay about w(3), the
//    R0-R1 steps (R2 idle at the barrier) pay nothing. Charging every step
//    over-predicted naive at 4 KiB by 40% (n = 3) and 74% (n = 4).
// So one step costs
//   step = max( max over ranks of the per-rank cost above (+ w(n) as above),
//               traffic / B(min(n, cores)) )          (roofline; when B known)
//        + b(n)                                       (lockstep only)
// Cache-aware per-byte costs (the cache-aware roofline of Ilic, Pratas &
// Sousa, "Cache-aware Roofline model: Upgrading the loft", IEEE Computer
// Architecture Letters 13(1), 2014: each level of the memory hierarchy has
// its own bandwidth ceiling, and a kernel runs under the ceiling of the level
// its working set fits in). A profile may carry a cache curve (CacheCurve
// below): β, γ and δ measured by calibrate at working-set sizes from a few
// KiB to beyond the last-level cache. The model then prices each step with
// the values at that step's FOOTPRINT:
//   footprint(step) = (largest memory traffic of one rank in the step, bytes
//                      read + written as counted for the bus above)
//                   × (number of ranks with traffic in the step)
// i.e. per-rank bytes times the ranks that share the cache at that moment
// (on one machine every rank shares the last-level cache). The curve is
// measured in the same unit (calibrate.h), and values between two measured
// footprints are interpolated linearly in log2(footprint); below the first
// and beyond the last the end values hold. The bus ceiling B(k) (measured
// beyond the caches) rises by the same factor as δ falls at that footprint
// (δ(last footprint) / δ(footprint), never below 1): the cache level's
// ceiling. The reference is the curve's own value beyond the caches, not
// the flat δ: calibrate measures that one on 16 MiB buffers, and on the
// Zen 5 guest it came out 10% slower than the curve's last point, which
// raised B by 10-20% at footprints far beyond every cache (the ring at
// n = 2 went from 34% to 12% median error with this and ε's distance).
// Limits: B(k) itself is still measured on those 16 MiB buffers, so where
// their δ is slower than the curve's last point, B(1) sits below one
// thread's own copy speed by that much (B(k) for k >= 2, what collectives
// use, is measured with k threads at once); and when the memory budget
// cuts the sweep short of the last-level cache, the last point is not
// beyond the caches. B measured on the curve, per footprint, would fix
// both. Without
// a curve (presets, older profiles) the flat β, γ, δ and B apply as before.
// Coherence ε (caches stay coherent: before a core writes a line that
// another core's cache holds, that copy is invalidated, the "read for
// ownership" of invalidation protocols such as MESI: Papamarcos & Patel,
// ISCA 1984; Hennessy & Patterson, Computer Architecture: A Quantitative
// Approach, 6th ed., section 5.2). A rank that writes bytes a peer on
// another core has read since the rank last wrote them pays ε(d) seconds
// per such byte on top of its op's β, γ or δ, where d is the REUSE
// DISTANCE: the memory traffic of every rank between the peer's read and
// this write (the traffic of the steps from the read's step up to the
// write's step, not counting the write's; the read's step alone when both
// fall in one step; plus, when the read was in the previous run and bench
// rotates R buffer sets, the R - 1 runs over the other sets in between).
// It stands for what calibrate measures ε against
// (measure_coherence_s_per_byte: about F bytes touched between the read and
// the write), and decides whether the reader's cache still holds the
// lines. (Until 2026-12-02 ε
// was priced at the writing step's footprint, at least bench's rotation:
// for a ring all-reduce whose all-gather reads a chunk that the next
// run's scatter-reduce writes right after, that priced a line the peer
// read one step ago at the step's 40 MiB, and on an AMD EPYC Zen 5 guest,
// where ε falls from about 100 ps/B below 16 MiB to under 20 beyond
// 32 MiB, bench measured about 1.8× the predicted scatter-reduce step at
// 8 MiB.) The unit is the model's traffic; calibrate's footprint F for ε
// counts about 5 of the 6 copies between its read and its write, so the
// model's count of that probe's schedule is about 1.2 F, and a rotation's
// runs count their traffic, not their distinct bytes (about 1.75× the
// bytes of one set for a ring at n = 2): close on the curve's log scale,
// not exact.
// Which bytes: every op
// that writes (recv, recv_reduce, copy, reduce) is checked against the
// regions of the writer's buffers that ranks on other cores read as message
// sources since its last write there, with the schedule running back to back
// over the same buffers, so the reads of its later steps count against the
// writes of its earlier ones (peer_read_overwrites below). Charged only
// when CostParams::back_to_back says the schedule runs so: bench's timed
// iterations do (a rotation of up to 16 buffer sets puts a read in the run
// before one rotation back: CostParams::rotation_sets).
// `run`, the window and lessons time each step in warm repetitions whose
// owning rank restores the step's memory before the timing barrier, taking
// its lines back untimed, so their predictions leave ε out (a cold single
// run of an in-place schedule does pay it for writes over what a peer read
// earlier in the same run). calibrate measures ε on the cache curve
// (calibrate.h) with copies; the model charges the same per byte for recv
// and recv_reduce, an approximation. It is large while the reader's private
// cache still holds the lines and small once the footprint between the read
// and the write has pushed them out. Measured on a 2-vCPU EPYC VM: about 100
// ps per byte (5× a local copy's δ) up to 1-2 MiB.
// Without a measured ε (presets, older profiles) the term is 0.
// The read side φ (the same move the other way): a collective mostly sends
// what it has just written (a reduced chunk, a partial sum), and a receiver
// on another core pulls those lines out of the sender's private cache,
// where they sit modified. calibrate's ping-pong sends from inputs nobody
// writes and cannot see it (measured on the Zen 5 guest, 2026-12-02, 16
// KiB, lockstep: 3.2 µs a step for a message whose source the sender had
// just written, 1.6 µs for the same message sent again). So a rank that
// receives bytes its sender on another core wrote since a rank on another
// core last read them pays φ(d) seconds per such byte, d the reuse
// distance from that write to this read (the same rule as ε's, with the
// roles swapped: fresh_peer_reads). φ has its own curve, measured with
// receives (measure_fresh_read_s_per_byte, calibrate.h): pricing these
// reads with ε's curve over-predicted a 2-rank ring by 13-43% from 512 KiB
// to 2 MiB, where a line written some MiB ago costs the reader far less
// than a write over a line the reader holds. Charged with ε (bench's back
// to back runs only) and reported in the same coherence term; without a
// measured φ (profiles before it) 0. Approximations, to say to learners:
//  - φ is charged per byte, but on the Zen 5 guest part of it is a fixed
//    cost per message (about 0.45 µs); the probe's messages are F/8 bytes,
//    so a message much smaller or larger than d/8 at distance d gets that
//    part scaled wrongly (a fit a + b·m per distance would fix it).
//  - only the first reader on another core pays: the first such read takes
//    the bytes out of the fresh set, so a second reader on a third core
//    reads them for free. Exact with 2 cores, where every figure was
//    measured; an under-count with more.
//  - `run`, the window and lessons leave φ out, although their warm step
//    repetitions restore the sender's memory just before each repetition,
//    so its receivers read freshly written lines too (not measured; at the
//    seed example's 12 bytes a few ns).
// Messages below break_bytes keep the small-message line α_small + m·β_small:
// calibrate fits that line on messages whose buffers already sit in cache.
// Known limits (say them to learners): no contention between links, no
// overlap of a reduction with the next segment's transfer, cache effects only
// through the measured β, γ, δ, ε and B (without a cache curve all measured
// beyond the caches, so small messages that stay in cache are
// over-predicted; with one, a step's data is assumed to be where a warm
// repetition of that step would find it), and scheduler noise from
// oversubscribed cores only as the averages in `cores`, b(n) and B.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

// Per-byte costs by working-set size (the cache-aware model above). All
// vectors have the same length; footprint_bytes ascends strictly and is > 0;
// beta, gamma, delta in SECONDS PER BYTE (β per message byte received, γ
// per byte reduced, δ per byte copied). Empty = flat model.
struct CacheCurve {
  std::vector<double> footprint_bytes;
  std::vector<double> beta, gamma, delta;
  // ε: SECONDS PER BYTE written over bytes a peer on another core has read
  // (the coherence term above); empty = not measured (profiles before it),
  // else as long as footprint_bytes (a mismatch counts as not measured).
  std::vector<double> coherence;
  bool empty() const { return footprint_bytes.empty(); }
  // A measured ε, one value per footprint: what coherence_at and the
  // ε term need (a mismatch counts as not measured).
  bool has_coherence() const { return !empty() && coherence.size() == footprint_bytes.size(); }
  // φ: SECONDS PER BYTE a rank receives that its sender on another core
  // wrote since a rank on another core last read them (the read side of
  // the coherence term above), by reuse distance; empty = not measured
  // (profiles before 2026-12-02 evening), else as long as footprint_bytes.
  std::vector<double> fresh_read;
  bool has_fresh_read() const { return !empty() && fresh_read.size() == footprint_bytes.size(); }
  // v (one of beta, gamma, delta, coherence, fresh_read) at `footprint` bytes (for ε and φ: at a reuse distance): linear in
  // log2(footprint) between the two measured footprints around it, the end
  // value outside the measured range. Requires !empty().
  double at(const std::vector<double>& v, double footprint) const;
};

// One protocol's message line t = α + m·β (core/ir/protocol.h): α in
// seconds per message, β in seconds per PAYLOAD byte (the wire overhead of
// ll and ll128 is inside β). derived: not measured, taken from simple's
// line and the wire ratio (core/model/protocol_model.h).
struct ProtocolCost {
  double alpha = 0, beta = 0;
  bool derived = true;
};

struct CostParams {
  std::string name = "custom";
  double alpha = 0;  // s per message
  double beta = 0;   // s per byte (1 / bandwidth)
  double gamma = 0;  // s per byte reduced
  double delta = 0;  // s per byte copied locally (0 = the literature's model)
  // Optional second line for small messages (calibration found a break):
  // messages of fewer than break_bytes bytes cost alpha_small + m·beta_small.
  int64_t break_bytes = 0;
  double alpha_small = 0, beta_small = 0;
  // Shared-memory backends (threads): the receiver reads straight out of
  // the sender's buffer, so the receiver moves the bytes: a send costs α
  // only (posting it), a recv α + m·β (one copy), a recv_reduce α + m·γ (one
  // pass, no separate m·β). false = the papers' model: the bytes cross a
  // link first, and a send costs α + m·β on the sender's port too.
  bool fused_recv_reduce = false;
  // CPU cores the ranks share (0 = one per rank, the papers' assumption).
  // When ranks outnumber cores, rank r runs on core r mod cores (the threads
  // backend binds its threads so, RunOptions::pin_threads), and a rank's
  // byte-proportional terms (β, γ, δ, ε) stretch to the sum of those terms
  // over every rank on its core: 3 equal ranks on 2 cores take 2× one
  // rank's work. (bench's MPI rows use the same profile, but mpirun binds
  // its own way, by default not at all when oversubscribed: for them this
  // placement is an approximation.)
  int cores = 0;
  // Lockstep barrier: barrier_s[i] = seconds of one barrier of i + 2 ranks
  // (calibrate measures n = 2..8). Empty = not modelled (presets, old
  // profiles). barrier_for(n): 0 for n < 2 or an empty table; beyond the table
  // it extrapolates linearly in log2 n from the last two entries.
  std::vector<double> barrier_s;
  // Peer wait: wait_s[i] = w(n) in seconds for n = i + 2 ranks (the term
  // above; calibrate measures n = 2..8). Empty = not modelled. wait_for(n)
  // follows the same rules as barrier_for(n). Charged only when ranks
  // outnumber cores (cores > 0 and n > cores), as described above.
  std::vector<double> wait_s;
  // Shared memory bus: mem_bw_Bps[k-1] = aggregate memory traffic (bytes read
  // + written per second) when k threads copy at once (calibrate measures
  // k = 1..cores). Empty = no roofline. mem_bw_for(k) clamps k to the table.
  std::vector<double> mem_bw_Bps;
  // β, γ, δ by step footprint (the cache-aware model above); empty = the
  // flat beta, gamma, delta for every step.
  CacheCurve cache;
  // The least footprint (bytes) any step is priced at. A caller that runs
  // the schedule over several buffer sets in turn (bench rotates them so
  // the data does not stay in cache) sets it to the bytes of all the sets:
  // a step's data was last touched that many bytes ago. 0 = the step's own
  // footprint, as above.
  double min_footprint_bytes = 0;
  // The schedule runs back to back over the same buffers (bench's timed
  // iterations): charge ε for writes over what a peer read in the last run
  // over the same buffer set (the coherence term above). false: no ε
  // (`run` and the window, whose warm step repetitions do not pay it).
  bool back_to_back = false;
  // Buffer sets the back-to-back runs rotate over (bench: up to 16; >= 1):
  // a peer's read in the run before is that many runs back, which adds
  // rotation_sets - 1 runs' traffic to ε's reuse distance (above).
  int rotation_sets = 1;
  // The profile's own measured one-way time (seconds, barrier taken out) of
  // a 32 KiB message, calibrate's "points" entry for 32768 B: bench's
  // machine-state probe compares with it (calibrate.h, state_probe_ratio).
  // 0 = no such point (presets, quick profiles); load_profile sets it.
  double point_32k_s = 0;
  // The same probe with both ranks busy: seconds of one lockstep step in
  // which each of 2 ranks receives 32 KiB from the other at once (barrier
  // included), as calibrate measured it (measure_exchange_step_s). 0 = not
  // measured (older profiles).
  double exchange_32k_s = 0;
  // How the threads backend's waiting ranks waited while calibrate measured
  // (the profile's "threads_wait"): "spin" since 2026-12-02 evening (a rank
  // with a CPU of its own spins before it yields, threads_spin_budget_ns);
  // "" for older profiles, measured with ranks that yielded at once, whose
  // barriers and steps are slower than this build's (bench's profile check
  // says so), and for presets.
  std::string threads_wait;
  // Per protocol, indexed by Protocol (simple, ll, ll128): calibrate's
  // protocol ping-pong (calibrate.h, measure_protocol_costs). Empty for
  // presets and profiles before it: protocol_costs() (protocol_model.h)
  // derives them. The model prices a protocol through for_protocol().
  std::vector<ProtocolCost> protocols;

  double bandwidth() const { return beta > 0 ? 1.0 / beta : 0.0; }  // bytes/s
  // n½ = α/β: the message size (bytes) that reaches half the peak bandwidth.
  double n_half() const { return beta > 0 ? alpha / beta : 0.0; }
  double alpha_for(double bytes) const { return bytes < break_bytes ? alpha_small : alpha; }
  double beta_for(double bytes) const { return bytes < break_bytes ? beta_small : beta; }
  double message_s(double bytes) const { return alpha_for(bytes) + bytes * beta_for(bytes); }
  // The same at a step footprint (bytes, as defined above): the cache
  // curve's value when there is one (for messages of at least break_bytes),
  // else the flat one.
  double beta_at(double bytes, double footprint) const;
  double gamma_at(double footprint) const;
  double delta_at(double footprint) const;
  // ε at a footprint (s/byte); 0 without a measured one.
  double coherence_at(double footprint) const;
  // φ at a reuse distance (s/byte); 0 without a measured one.
  double fresh_read_at(double distance) const;
  // B(k) at a footprint: mem_bw_for(threads) × max(1, cache.delta.back() / delta_at(footprint)).
  double mem_bw_at(int threads, double footprint) const;
  double barrier_for(int n) const;         // seconds
  double wait_for(int n) const;            // seconds
  double mem_bw_for(int threads) const;    // bytes/s; 0 = not modelled
  // Threads that stream at once for n ranks: min(n, cores) (n when cores = 0).
  int bus_threads(int n) const { return cores > 0 ? (n < cores ? n : cores) : n; }
};

// Built-in what-if presets (classes, not measurements; γ = δ = 0, as in the
// seed notes' formula):
//   nvlink         1 µs,  600e9 B/s  (NVLink 4 class, the seed example)
//   infiniband     2 µs,   25e9 B/s  (200 Gb/s HDR)
//   pcie5          1.5 µs, 50e9 B/s  (PCIe 5.0 x16, ~63 GB/s raw per direction)
//   ethernet-100g 10 µs, 12.5e9 B/s
//   ethernet-10g  25 µs, 1.25e9 B/s
const std::vector<CostParams>& cost_presets();
// Throws UsageError naming the preset and listing the known ones.
CostParams preset(const std::string& name);

// The terms of a time, in seconds.
// bus_s: what the shared memory bus adds on top of the slowest rank
// (max(0, traffic / B - slowest rank)); barrier_s: the lockstep barriers;
// wait_s: the peer waits w(n); coherence_s: bytes written over what a peer
// read, times ε, plus bytes received fresh from a peer's writes, times φ.
struct CostTerms {
  double alpha_s = 0, beta_s = 0, gamma_s = 0, delta_s = 0;
  double bus_s = 0, barrier_s = 0, wait_s = 0, coherence_s = 0;
  double total() const { return alpha_s + beta_s + gamma_s + delta_s + bus_s + barrier_s + wait_s + coherence_s; }
  CostTerms& operator+=(const CostTerms& o);
};

// What one rank does in one step, and what it costs.
struct RankStepCost {
  int sends = 0, recvs = 0;
  int64_t bytes_sent = 0, bytes_received = 0, bytes_reduced = 0, bytes_copied = 0;
  int64_t bytes_traffic = 0;  // memory traffic (read + written) of its ops, as above
  int64_t bytes_over_peer_reads = 0;  // written over bytes a peer read since (ε above)
  int64_t bytes_fresh_from_peers = 0; // received bytes their sender wrote since a peer read them (φ above)
  CostTerms terms;            // α..δ and the peer wait (the per-rank part; no bus, no barrier)
};

// Adds one op of b bytes to c's counts (messages, bytes sent / received /
// reduced / copied, memory traffic): the bookkeeping shared by the flat model
// and the per-port topology model (topology_model.h), which differ only in
// how they price the messages.
void count_op(RankStepCost& c, OpKind kind, int64_t b);

// ε's bytes with their reuse distance: [step][rank] lists the pieces the
// rank's ops write over bytes that a rank on another core read since this
// rank last wrote them (rules below, as bytes_over_peer_reads), each with
// distance_bytes = the memory traffic of every rank between that read and
// this write (the rule above; bytes read + written, as count_op counts
// them; > 0). rotation_sets as in CostParams.
struct PeerReadOverwrite {
  int64_t bytes = 0;
  double distance_bytes = 0;
};
std::vector<std::vector<std::vector<PeerReadOverwrite>>> peer_read_overwrites(const Schedule& s, int cores = 0,
                                                                              int rotation_sets = 1);
// The other direction, the same rules and distances: [step][rank] lists
// the pieces the rank RECEIVES (recv, recv_reduce) from a sender on
// another core that the sender wrote since a rank on another core last read
// them, each with distance_bytes = the traffic between that write and
// this read. A collective mostly sends what it just wrote (a reduced
// chunk, a partial sum); those lines sit dirty in the sender's private
// cache and must move to the reader's.
std::vector<std::vector<std::vector<PeerReadOverwrite>>> fresh_peer_reads(const Schedule& s, int cores = 0,
                                                                          int rotation_sets = 1);
// For every step and rank ([step][rank]): the bytes the rank's ops write
// into its own buffers over bytes that another rank read (as the source of
// a message it received) since this rank last wrote them; the ε term above.
// The schedule is taken to repeat: it is walked twice, and the second walk
// is counted, so a read in the last step counts against a write in the
// first. A rank's ops count in program order (a send's source is read
// after the ops before it wrote it); swap ops exchange the two buffers'
// storages.
// cores > 0: ranks share cores as in CostParams::cores (rank r on core
// r mod cores), and a read by a rank on the writer's own core does not
// count (one core's caches hold one copy; nothing to take away).
std::vector<std::vector<int64_t>> bytes_over_peer_reads(const Schedule& s, int cores = 0);

struct Prediction {
  std::vector<std::vector<RankStepCost>> ranks;  // [step][rank]
  std::vector<double> step_s;                    // [step]: max(slowest rank, bus) + barrier
  std::vector<int> critical_rank;                // [step]: the slowest rank
  std::vector<double> bus_s;                     // [step]: traffic / B (0 = no roofline)
  std::vector<double> footprint_bytes;           // [step]: the footprint the step is priced at
  CostTerms lockstep;                            // Σ of the critical ranks' terms + bus + barriers
  double lockstep_s = 0;                         // = lockstep.total()
  double pipelined_s = 0;                        // critical path, free-running (no
                                                 // barriers; a rank with traffic in a
                                                 // step takes at least that step's bus time)
  std::vector<std::vector<double>> finish_s;     // [step][rank]: pipelined finish times
};

// Predict a schedule. Sizes come from the schedule's spec (dtype size ×
// elements). Never throws for a well-formed schedule.
Prediction predict(const Schedule& s, const CostParams& p);

// Per-step predicted times in MICROSECONDS (lockstep), one per step: what
// chrome_trace_json's predicted_step_us and the app attach to each step.
std::vector<double> predicted_step_us(const Schedule& s, const CostParams& p);

// The closed form from the literature for spec's collective and algorithm,
// in the same model (δ is left out: the papers do not count local copies),
// priced with p. The formulas live with their algorithms: each record of
// the algorithm registry (core/algorithms/registry.h, closed_form.h) states
// its own, e.g. the ring all_reduce's 2(n-1)k·α + 2(n-1)/n·S·β + (n-1)/n·S·γ
// (Patarasuk & Yuan 2009; k = segments) in core/algorithms/ring.cpp. S is in
// bytes (count × dtype size); the terms in seconds. One rank costs 0.
// Exact against predict() for power-of-two n and counts that split evenly;
// otherwise within one element per message and step. Returns nullopt when
// the algorithm has none: gather and scatter through the binary "tree"
// (message sizes are subtree sizes), and, for n not a power of two,
// binomial gather/scatter, recursive_doubling all_gather and
// halving_doubling reduce_scatter.
std::optional<CostTerms> closed_form(const CollectiveSpec& spec, const CostParams& p);
// The registered formula as text, with its source (for `microddp predict`);
// "" when none.
std::string closed_form_text(const CollectiveSpec& spec);

// nccl-tests bus bandwidth factor (DESIGN.md): all_reduce 2(n-1)/n;
// all_gather, reduce_scatter, gather, scatter, all_to_all (n-1)/n;
// broadcast, reduce 1; barrier 0.
double busbw_factor(Collective c, int n);
// Bytes nccl-tests calls the "size" of a call (the larger of one rank's
// input and output buffer) for spec.
int64_t bench_bytes(const CollectiveSpec& spec);

}  // namespace microddp
