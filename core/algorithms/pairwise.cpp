// all_to_all by pairwise exchange (MPICH's long-message algorithm; Thakur et
// al. 2005): in step s = 1..n-1 rank r sends its block for rank r+s and
// receives the block from rank r-s, so every link carries one block.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {
Schedule pairwise_exchange(const CollectiveSpec& s) {
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
}  // namespace

namespace detail {
std::vector<AlgorithmInfo> pairwise_algorithms() {
  AlgorithmInfo a;
  a.name = "naive";
  a.description = "pairwise exchange: in step s every rank sends its block for rank r+s";
  a.layout = Layout::none;  // every rank talks to every other: no fixed links to draw
  // S = one block (count × dtype size).
  a.serves.push_back({Collective::all_to_all, pairwise_exchange,
                      ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                                   const double n1 = sp.world_size - 1;
                                   return n1 * m.msgs(1, spec_bytes(sp));
                                 },
                                 fixed_text("(n-1)·(α + S·β)  (pairwise exchange)")}});
  return {a};
}
}  // namespace detail

}  // namespace microddp
