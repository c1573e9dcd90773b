// Limits every command shares, so `run`, `bench`, `predict` and the window
// refuse the same things with the same words.
#pragma once
#include <cstdint>
#include <string>

namespace microddp {

// The most ranks any command runs or models (one thread each on the threads
// backend).
inline constexpr int kMaxRanks = 256;

// The most ranks the window (microddp-viz) draws: it colours every byte by
// the ranks it came from, one bit per rank in a 64-bit mask
// (app/viz/provenance.h). Commands without a window take kMaxRanks.
inline constexpr int kMaxViewRanks = 64;
static_assert(kMaxViewRanks <= kMaxRanks);

// Throws UsageError "<option> <value as typed>: ..." unless 1 <= ranks <= kMaxRanks.
void check_ranks(int ranks, const std::string& option = "--ranks");

// An upper estimate, in bytes, of what a built schedule of `ranks` ranks
// pipelined in `segments` segments takes with its message plan and the
// structures every command derives from it: 800 B per rank pair and
// segment. Measured: the ring all-reduce takes 330 to 650 B per rank pair
// and segment at n = 256..1024 (predict's peak resident memory); the naive
// algorithms send n^2 messages, tree-like ones n log n.
double schedule_bytes(int ranks, int segments);

// Half of this machine's physical memory, in bytes: what one command may
// allocate for buffers (the rest is for the OS, the trace and copies).
double memory_budget_bytes();

// Throws UsageError "<what> needs X GB, more than half of this machine's
// memory (Y GB)" when `bytes` (or NaN) exceeds memory_budget_bytes(). Call it
// before allocating.
void check_memory(double bytes, const std::string& what);

}  // namespace microddp
