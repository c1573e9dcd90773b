#include "core/ir/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/ir/limits.h"

namespace microddp {

// Buffers are addressed in bytes by int64: 8-byte elements, times n for
// all_to_all / all_gather, must not overflow.
static constexpr int64_t kMaxElements = INT64_MAX / 8;

static bool has_v_variant(Collective c) {
  return c == Collective::gather || c == Collective::scatter || c == Collective::all_gather ||
         c == Collective::reduce_scatter;
}

std::string CollectiveSpec::count_text() const {
  return counts.empty() ? fmt::format("count {}", count) : fmt::format("counts {}", fmt::join(counts, ", "));
}

int64_t CollectiveSpec::block(int r) const { return counts.empty() ? count : counts[r]; }

int64_t CollectiveSpec::displ(int r) const {
  if (counts.empty()) return count * r;
  int64_t d = 0;
  for (int q = 0; q < r; ++q) d += counts[q];
  return d;
}

int64_t CollectiveSpec::total() const { return displ(world_size); }

int64_t CollectiveSpec::input_count(int r) const {
  switch (collective) {
    case Collective::broadcast: return count;
    case Collective::reduce:
    case Collective::all_reduce: return count;
    case Collective::gather:
    case Collective::all_gather: return block(r);
    case Collective::scatter: return r == root ? total() : 0;
    case Collective::reduce_scatter: return total();
    case Collective::all_to_all: return count * world_size;
    case Collective::barrier: return 0;
  }
  return 0;
}

int64_t CollectiveSpec::output_count(int r) const {
  switch (collective) {
    case Collective::broadcast:
    case Collective::all_reduce: return count;
    case Collective::reduce: return r == root ? count : 0;
    case Collective::gather: return r == root ? total() : 0;
    case Collective::all_gather: return total();
    case Collective::scatter:
    case Collective::reduce_scatter: return block(r);
    case Collective::all_to_all: return count * world_size;
    case Collective::barrier: return 0;
  }
  return 0;
}

void CollectiveSpec::validate() const {
  if (world_size < 1) throw UsageError(fmt::format("world size must be >= 1, got {}", world_size));
  if (root < 0 || root >= world_size)
    throw UsageError(fmt::format("root {} is out of range for world size {} (valid: 0..{})", root,
                                 world_size, world_size - 1));
  if (count < 0) throw UsageError(fmt::format("count must be >= 0, got {}", count));
  if (segments < 1 || segments > 4096)
    throw UsageError(fmt::format("segments must be in 1..4096, got {}", segments));
  if (channels < 1 || channels > 64)
    throw UsageError(fmt::format("channels must be in 1..64, got {}", channels));
  // The schedule is built before any buffer: refuse it before it is.
  check_memory(schedule_bytes(world_size, segments * channels),
               channels == 1 ? fmt::format("a schedule of {} ranks in {} segments", world_size, segments)
                             : fmt::format("a schedule of {} ranks in {} segments x {} channels", world_size,
                                           segments, channels));
  if (nodes < 1) throw UsageError(fmt::format("--nodes {} must be at least 1", nodes));
  if (world_size % nodes != 0)
    throw UsageError(fmt::format("--ranks {} is not divisible by --nodes {} (placement is contiguous: every node "
                                 "holds the same number of ranks)",
                                 world_size, nodes));
  if (!counts.empty()) {
    if (!has_v_variant(collective))
      throw UsageError(fmt::format("--counts is only for gather, scatter, all_gather and reduce_scatter, not {}",
                                   name(collective)));
    if (static_cast<int>(counts.size()) != world_size)
      throw UsageError(fmt::format("counts has {} entries but the world size is {}", counts.size(), world_size));
    // Every buffer's size in bytes must fit int64: the sum of the blocks
    // (gather's output, scatter's input) is checked before anyone adds them.
    int64_t sum = 0;
    for (int r = 0; r < world_size; ++r) {
      if (counts[r] < 0) throw UsageError(fmt::format("counts[{}] must be >= 0, got {}", r, counts[r]));
      if (counts[r] > kMaxElements - sum)
        throw UsageError(fmt::format("counts add up to more than {} elements (at counts[{}] = {})", kMaxElements, r,
                                     counts[r]));
      sum += counts[r];
    }
  }
  if (count > kMaxElements / world_size)
    throw UsageError(fmt::format("count {} on {} ranks is more than {} elements in one buffer", count, world_size,
                                 kMaxElements));
}

InPlaceLayout in_place_layout(const CollectiveSpec& s, int r) {
  switch (s.collective) {
    case Collective::all_gather: return {true, s.displ(r)};
    case Collective::gather: return {true, r == s.root ? s.displ(r) : 0};
    case Collective::reduce_scatter: return {false, s.displ(r)};
    case Collective::scatter: return {false, r == s.root ? s.displ(r) : 0};
    default: return {true, 0};
  }
}

}  // namespace microddp
