#include "core/algorithms/common.h"

namespace microddp::detail {

void copy_unless_same(ScheduleBuilder& b, int r, BufRange src, BufRange dst, int64_t len, int chunk) {
  if (!same_elements(b.spec(), r, src, dst)) b.copy(r, src, dst, len, chunk);
}

Chunks rank_block_chunks(const CollectiveSpec& s) {
  Chunks ch;
  for (int r = 0; r <= s.world_size; ++r) ch.off.push_back(s.displ(r));
  return ch;
}

void local_step(ScheduleBuilder& b, const std::string& phase) { b.step(phase); }

}  // namespace microddp::detail
