// all_to_all by pairwise exchange (MPICH's long-message algorithm; Thakur et
// al. 2005): in step s = 1..n-1 rank r sends its block for rank r+s and
// receives the block from rank r-s, so every link carries one block.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace detail {
Schedule pairwise_family(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  const int64_t c = s.count;
  b.set_chunks(even_chunks(c * n, n));
  // In place, a block may be overwritten before it is sent: send from a copy.
  const Buf src = s.in_place && n > 1 ? Buf::scratch : Buf::input;
  for (int r = 0; r < n; ++r) {
    if (src == Buf::scratch) {
      b.need(r, Buf::scratch, c * n);
      b.copy_first(r, {Buf::input, 0}, {Buf::scratch, 0}, c * n);
    }
    b.copy_first(r, {Buf::input, c * r}, {Buf::output, c * r}, c, r);
  }
  for (int st = 1; st < n; ++st) {
    b.step("pairwise exchange");
    for (int r = 0; r < n; ++r) {
      const int to = mod(r + st, n), from = mod(r - st, n);
      b.send(r, to, {src, c * to}, c, to);
      b.recv(r, from, {Buf::output, c * from}, c, from);
    }
  }
  return b.finish();
}
}  // namespace detail

}  // namespace microddp
