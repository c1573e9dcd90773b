// Limits every command shares, so `run`, `bench`, `predict` and the window
// refuse the same things with the same words.
#pragma once
#include <cstdint>
#include <string>

namespace microddp {

// The most ranks any command runs or models (one thread each on the threads
// backend).
inline constexpr int kMaxRanks = 256;

// Throws UsageError "<option> <value as typed>: ..." unless 1 <= ranks <= kMaxRanks.
void check_ranks(int ranks, const std::string& option = "--ranks");

// Half of this machine's physical memory, in bytes: what one command may
// allocate for buffers (the rest is for the OS, the trace and copies).
double memory_budget_bytes();

// Throws UsageError "<what> needs X GB ..., more than half of this machine's
// memory (Y GB)" when `bytes` exceeds memory_budget_bytes(). Call it before
// allocating.
void check_memory(double bytes, const std::string& what);

}  // namespace microddp
