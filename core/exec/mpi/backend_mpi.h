// The Open MPI backend: every rank is a process (launched by mpirun, on one
// machine or several through --hostfile) and executes its own ops of the
// same Schedule. Bytes move with MPI_Isend / MPI_Irecv on a private
// duplicate of MPI_COMM_WORLD (one_shot and two_shot on one node: read in
// place through an MPI shared-memory window, see mpi_window_runs);
// reductions go through kernels/cpu; the rules
// of one rank's program are RankProgram's (core/exec/rank_program.h), so results
// are bit-identical to run_threads.
//
// What happens in one run_mpi call, in order:
//  1. Agreement. Every rank sends rank 0 a small header (collective,
//     algorithm hash, count and counts hash, dtype, op, root, in-place,
//     segments, world size, mode, iterations, record). Rank 0 compares and
//     answers every rank with one verdict, so all ranks throw the same
//     UsageError naming the first rank that differs.
//  2. Clock alignment. Rank 0 and each other rank play kPingPongRounds
//     ping-pongs; rank r takes the round with the shortest round trip (RTT)
//     and estimates offset_r = t0 - (a + b) / 2, where a and b are its send
//     and receive times and t0 is rank 0's clock in between (Cristian,
//     "Probabilistic clock synchronization", Distributed Computing 1989);
//     the true offset lies within RTT/2 of it. Processes under one kernel
//     (same /proc/sys/kernel/random/boot_id: one machine) read the same
//     CLOCK_MONOTONIC, so there the offset applied is exactly 0 and the
//     estimate is only reported (MICRODDP_MPI_CLOCK=pingpong applies the
//     estimate anyway, to see what a cluster would get). Rank 0 decides, in
//     its verdict, when to measure: at the first run, and again after 10 s
//     when some rank has a clock of its own (clocks drift by some ppm).
//  3. Start. A release message from rank 0 carries its start time; every
//     rank then records in rank 0's timeline (local clock + offset - start).
//  4. Steps, with a barrier through rank 0 after each one in lockstep mode.
//     RunOptions::on_step runs on rank 0 inside that barrier (every rank
//     finished step k, none started k+1: the threads backend's moment) and
//     on the other ranks as they leave it. RunOptions::delay (a test hook of
//     the threads transport) is ignored: MPI reads send buffers
//     asynchronously by itself. RunOptions::buffer_sets and
//     Trace::iteration_ns work as on threads (barriers through rank 0 around
//     each iteration; times on rank 0's clock).
//     With RunOptions::repeat_steps (lockstep, record, last iteration):
//     each rank copies its memory before the step, a barrier opens the
//     step, and after its closing barrier every rank re-runs the step on a
//     copy of that state between two more barriers, K times (or auto, as
//     executor.h); each sample runs from one barrier's release to the
//     next's on rank 0's clock, which every rank receives, so all ranks
//     hold the same Trace::step_timing and decide alike when to stop. The
//     ranks must agree on repeat_steps (checked in step 1).
//  5. Gather. Ranks != 0 send their outputs and their part of the Trace to
//     rank 0, which merges them into one Trace (backend "mpi"). Rank 0
//     checks every size, count and index it reads from another rank against
//     what the schedule says that rank holds (core/exec/mpi/wire.h): an
//     announced size out of range aborts the job naming the rank, a share
//     that does not decode throws wire::WireError (a std::runtime_error).
//
// Faults: every wait polls MPI_Test against a deadline (mpi_timeout(),
// 30 s unless MICRODDP_MPI_TIMEOUT=<seconds> or mpi_set_timeout() says
// otherwise; a positive finite number of seconds, at most
// kMaxMpiTimeoutSeconds = one day: anything else is refused with a
// UsageError naming the value). MPI's own waits without a deadline
// (MPI_Init, the MPI_Comm_dup after it, MPI_Finalize) are bounded too:
// during MPI_Init and the dup a watchdog thread ends the process (exit
// code 3, so mpirun ends the job) after 1.5 x the timeout + 11 s, and
// before MPI_Finalize the ranks meet at a barrier through rank 0, which
// names a rank that does not come. When a rank does not arrive, the waiting rank prints
// "error: mpi backend: rank R ... waited S s for rank K ..." on stderr and
// calls MPI_Abort (exit code 3), which ends every process of the job. A rank
// that dies is reported by mpirun itself ("process rank K ... exited"), and
// mpirun then ends the others.
//
// When the build has no MPI (MICRODDP_HAVE_MPI undefined), this header still
// compiles: mpi_available() is false and the other functions throw
// std::runtime_error("this build has no MPI backend").
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/executor.h"

namespace microddp {

constexpr int kPingPongRounds = 16;

// The largest MICRODDP_MPI_TIMEOUT (seconds): one day. A longer wait is
// no longer a timeout but a typo (1e30, inf), and deadlines are kept in
// int64 nanoseconds.
constexpr double kMaxMpiTimeoutSeconds = 86400;

// A UsageError that every rank of the MPI job throws at the same point
// (the ranks disagree on the call): the ranks end together, so none needs
// to abort the job. Any other error on one rank must end the job
// (mpi_leave_job).
struct MpiJobUsageError : UsageError {
  using UsageError::UsageError;
};

// The MCA settings that decide which algorithm Open MPI runs for one of
// its own collectives (bench --reference mpi), as the job sees them: read
// through MPI_T control variables, so mpirun --mca, OMPI_MCA_* variables
// and mca-params.conf files all count. Turned into a name by
// mpi_algorithm_label (core/model/bench.h).
struct MpiCollSettings {
  bool read = false;           // false: not read (no MPI in this build, MPI_T refused)
  std::string library;         // MPI_Get_library_version's first line, e.g. "Open MPI v4.1.4, ..."
  std::string function;        // mpi_library_function(spec), e.g. "MPI_Allreduce"
  std::string coll;            // MCA "coll": "" = every component, "^a,b" excludes, "a,b" only these
  int tuned_priority = -1;     // coll_tuned_priority; -1: coll/tuned is not loaded
  // Other loaded coll components that could serve the call instead of
  // tuned (not the pass-through or special-purpose ones: self, inter,
  // sync, libnbc, cuda, monitoring): name and coll_<name>_priority.
  std::vector<std::pair<std::string, int>> priorities;
  bool dynamic_rules = false;  // coll_tuned_use_dynamic_rules
  std::string rules_file;      // coll_tuned_dynamic_rules_filename ("" = none)
  std::string forced_param;    // e.g. "coll_tuned_allreduce_algorithm"; "" when tuned has none for the call
  std::string forced;          // its value's name when not 0 ("ignore"), e.g. "ring"; else ""
};

#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI

// True: this build has the MPI backend.
bool mpi_available();
// True when mpirun (Open MPI, PMIx or PMI) started this process: its
// environment names a rank. Such a process must start MPI before it exits,
// or the job's other ranks wait for it in MPI_Init.
bool mpi_launched();
// Ends this process with exit code `code` after printing `error` (a whole
// line, unless empty) on stderr. When mpirun started it, it first starts
// MPI if needed and, in a job of several ranks, calls MPI_Abort with
// `code` so that mpirun ends every rank (none waits for this one) and
// exits with that code.
[[noreturn]] void mpi_leave_job(const std::string& error, int code);
// Every rank sends rank 0 the options it was given, (name as typed, value
// as typed; "" for a flag), and rank 0 compares them with its own. Throws
// MpiJobUsageError on every rank naming the first rank and option that
// differ: "mpi backend: ranks disagree: rank 1 called with --data 5;6 but
// rank 0 with --data 1;2" (or "without --trace"). Aborts the job when a
// rank does not arrive within mpi_timeout(). MPI must be started.
void mpi_agree_on_options(const std::vector<std::pair<std::string, std::string>>& given);
// MPI_Init_thread(FUNNELED) unless MPI is already initialized (then first
// keeps glibc from returning large freed blocks to the kernel: see
// world.cpp, it makes the library's own collectives 10x faster here);
// duplicates
// MPI_COMM_WORLD for microddp's own traffic; registers an atexit hook that
// finalizes. Safe to call many times. Without mpirun it starts a singleton
// (world size 1).
void mpi_init_once();
// MPI_Finalize if we initialized and nobody finalized yet. Collective.
void mpi_finalize_if_needed();
// Rank / world size in MPI_COMM_WORLD; 0 / 1 before mpi_init_once().
int mpi_rank();
int mpi_world_size();

// Seconds a rank waits for another before it aborts the job (see above).
// Throws UsageError when MICRODDP_MPI_TIMEOUT is set but not a number of
// seconds in (0, kMaxMpiTimeoutSeconds] (parse_mpi_timeout).
double mpi_timeout();
void mpi_set_timeout(double seconds);  // throws UsageError unless 0 < seconds <= kMaxMpiTimeoutSeconds
// MICRODDP_MPI_TIMEOUT's text -> seconds. The whole text must be a finite
// number in (0, kMaxMpiTimeoutSeconds]; throws UsageError
// "MICRODDP_MPI_TIMEOUT='<text>': <why>; give ..." otherwise ("", "abc",
// "nan", "0", "-5", "inf", "1e30", "30s").
double parse_mpi_timeout(const std::string& text);

// Runs the schedule on MPI_COMM_WORLD. Collective: every rank calls it with
// the same schedule and options. `inputs` holds every rank's input (as for
// run_threads); each rank uses its own row.
// Returns, on rank 0: every rank's output and the merged, clock-aligned
// Trace (events of all ranks; times in ns since rank 0's start). On other
// ranks: outputs[r] of its own rank only (other rows empty) and a Trace with
// only its own events and step records.
// Throws UsageError (on every rank) when MPI's world size differs from
// s.world_size() (naming both) or when the ranks disagree on the call
// (naming the rank); UsageError on the rank whose inputs have the wrong shape.
RunResult run_mpi(const Schedule& s, const RankData& inputs, const RunOptions& opt = {});

// How many run_mpi calls of this process ran through a shared-memory window
// (core/exec/mpi/shm_window.cpp): one_shot and two_shot, when every rank of
// the job is on one node (MPI_Comm_split_type MPI_COMM_TYPE_SHARED gives the
// whole world) and MICRODDP_MPI_SHM is not 0. Then each rank's buffers live
// in an MPI_Win_allocate_shared window and a rank's fold reads its peers'
// inputs in place, in one pass (bit-identical to the messages). With
// MICRODDP_MPI_SHM=0 they run as plain messages; any value other than 0 or
// 1 is a UsageError (on every rank) naming it.
int64_t mpi_window_runs();

// The clock alignment of the last run_mpi, per rank (on rank 0: every
// rank, index = rank; other ranks: their own entry only, index 0).
// offset_ns: added to the rank's clock to get rank 0's (the one applied);
// error_ns: bound on that offset (RTT/2; 0 for rank 0 and for a shared
// clock); measured_*: the ping-pong estimate and its bound, always measured;
// same_clock: the rank reads rank 0's clock (same kernel).
// The CLI prints "clock alignment: ±<max_error_ns/1000> µs" from this.
struct MpiClockSync {
  std::vector<int64_t> offset_ns, error_ns;
  std::vector<int64_t> measured_offset_ns, measured_error_ns;
  std::vector<bool> same_clock;
  int64_t max_error_ns = 0;
};
const MpiClockSync& mpi_last_clock_sync();

// ---- The library's own collectives (bench --reference mpi) ----

// The MPI function that serves the spec: "MPI_Allreduce", "MPI_Bcast",
// "MPI_Reduce", "MPI_Allgather(v)", "MPI_Reduce_scatter_block" (equal
// blocks) or "MPI_Reduce_scatter" (counts), "MPI_Gather(v)",
// "MPI_Scatter(v)", "MPI_Alltoall", "MPI_Barrier".
std::string mpi_library_function(const CollectiveSpec& spec);

struct MpiLibraryResult {
  std::string function;      // mpi_library_function(spec)
  double seconds = 0;        // per call: mean over `iterations`, of the slowest rank
  RankData outputs;          // rank 0: every rank's output; others: own row only
};

// Times the library collective for `spec` (algorithm ignored): each rank
// copies its input row, runs `warmup` untimed calls, then `iterations`
// timed calls between two barriers. Collective over MPI_COMM_WORLD; checks
// agreement like run_mpi. Calls are out of place (spec.in_place ignored).
// dtype: int32/int64/float32/float64 use MPI's types and MPI_SUM / MPI_PROD
// / MPI_MIN / MPI_MAX; float16/bfloat16 (which MPI 3.1 lacks) travel as
// 2-byte elements with a user-defined commutative op that calls
// kernels::reduce. avg: floats are scaled by 1/n first (as the kernels do),
// integers summed and then divided by n (truncating).
MpiLibraryResult run_mpi_library(const CollectiveSpec& spec, const RankData& inputs, int iterations = 1,
                                 int warmup = 1);

// Open MPI's own algorithm names that --mpi-algorithm accepts for c: those
// of the call bench --reference mpi makes, which has equal counts
// (MPI_Reduce_scatter_block, MPI_Allgather, ...; coll/tuned's names from
// `ompi_info --param coll tuned --level 9`, Open MPI 4.1), in Open MPI's
// order (number 1 first).
std::vector<std::string> mpi_library_algorithms(Collective c);
// The coll/tuned MCA parameter that tunes that call and the number Open MPI
// gives `algorithm` there: e.g. reduce_scatter, "recursive_halving" ->
// {"coll_tuned_reduce_scatter_block_algorithm", 3} (the v-variant's own
// numbering, coll_tuned_reduce_scatter_algorithm, would say 2). Throws
// UsageError naming the algorithm and listing the valid ones, also for a
// name only the v-variant has (reduce_scatter "ring", "non-overlapping";
// all_gather "default"). Needs no MPI started.
struct MpiTunedChoice {
  std::string param;  // "coll_tuned_<call>_algorithm"
  int number = 0;     // 1..: Open MPI's number for the algorithm
};
MpiTunedChoice mpi_tuned_choice(Collective c, const std::string& algorithm);
// Throws UsageError (as mpi_tuned_choice, or naming the algorithm, the world
// size and what it needs) when `algorithm` cannot run on `world_size` ranks:
// "two_proc" (allgather, alltoall, barrier) runs on exactly 2, and Open MPI
// aborts the whole job on any larger size (coll/base's *_intra_two_procs
// fail the call with MPI_ERR_UNSUPPORTED_OPERATION); on 1 rank coll/self
// serves the call, so the forced algorithm would never run. Needs no MPI.
void mpi_check_library_algorithm_ranks(Collective c, const std::string& algorithm, int world_size);
// Forces coll/tuned's algorithm for c through its MCA parameters
// (OMPI_MCA_coll_tuned_use_dynamic_rules=1 and the variable of
// mpi_tuned_choice set to its number). Must run BEFORE mpi_init_once() on
// every rank; throws UsageError as mpi_tuned_choice does, when MPI is
// already initialized, or as mpi_check_library_algorithm_ranks does for the
// world size mpirun gave (OMPI_COMM_WORLD_SIZE or PMI_SIZE; 1 outside
// mpirun, the singleton MPI then starts; not checked when a launcher gives
// no size).
void mpi_force_library_algorithm(Collective c, const std::string& algorithm);
// The MCA settings this process runs the library collective for `spec`
// with (MpiCollSettings). Needs MPI initialized (mpi_init_once); local, not
// collective. read = false when MPI_T refuses.
MpiCollSettings mpi_coll_settings(const CollectiveSpec& spec);

#else  // no MPI in this build

inline bool mpi_available() { return false; }
inline bool mpi_launched() { return false; }
[[noreturn]] inline void mpi_leave_job(const std::string& error, int code) {
  if (!error.empty()) std::fprintf(stderr, "%s\n", error.c_str());
  std::exit(code);
}
inline void mpi_agree_on_options(const std::vector<std::pair<std::string, std::string>>&) {}
[[noreturn]] inline void mpi_unavailable() { throw std::runtime_error("this build has no MPI backend"); }
inline void mpi_init_once() { mpi_unavailable(); }
inline void mpi_finalize_if_needed() {}
inline int mpi_rank() { return 0; }
inline int mpi_world_size() { return 1; }
inline RunResult run_mpi(const Schedule&, const RankData&, const RunOptions& = {}) { mpi_unavailable(); }
inline MpiCollSettings mpi_coll_settings(const CollectiveSpec&) { return {}; }
inline int64_t mpi_window_runs() { return 0; }

#endif

}  // namespace microddp
