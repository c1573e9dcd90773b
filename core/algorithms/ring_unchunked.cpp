// ring_unchunked: the seed notes' ring. The whole vector rotates for n-1
// steps; each step sends send_buff, receives into recv_buff and adds it into
// accum, then the two buffers swap roles, because the data just received is
// what must be forwarded next while new data arrives. Each rank sends
// (n-1)*S: correct, but not bandwidth-optimal.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace detail {
namespace {

Schedule ring_unchunked(const CollectiveSpec& s, bool single_buffer) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  const int64_t c = s.count;
  b.set_chunks({0, c});
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, c);
    return b.finish();
  }
  b.need(-1, Buf::send_buff, c);
  b.need(-1, Buf::accum, c);
  if (!single_buffer) b.need(-1, Buf::recv_buff, c);
  const Buf rx = single_buffer ? Buf::send_buff : Buf::recv_buff;
  for (int r = 0; r < n; ++r) {
    b.copy_first(r, {Buf::input, 0}, {Buf::send_buff, 0}, c);
    b.copy_first(r, {Buf::input, 0}, {Buf::accum, 0}, c);
  }
  for (int s_ = 0; s_ < n - 1; ++s_) {
    b.step("ring");
    for (int r = 0; r < n; ++r) {
      // chunk = whose input travels (for display): rank r - s_ on the way out.
      b.send(r, mod(r + 1, n), {Buf::send_buff, 0}, c, mod(r - s_, n));
      b.recv(r, mod(r - 1, n), {rx, 0}, c, mod(r - s_ - 1, n));
      b.reduce(r, {rx, 0}, {Buf::accum, 0}, c, mod(r - s_ - 1, n));
      if (s_ < n - 2 && !single_buffer) b.swap(r, Buf::send_buff, Buf::recv_buff);
      if (s_ == n - 2) b.copy(r, {Buf::accum, 0}, {Buf::output, 0}, c);
    }
  }
  return b.finish();
}

}  // namespace

std::vector<AlgorithmInfo> ring_unchunked_algorithms() {
  AlgorithmInfo a;
  a.name = "ring_unchunked";
  a.description = "the seed notes' ring: the whole vector rotates n-1 steps, double-buffered; not bandwidth-optimal";
  a.layout = Layout::ring;
  a.whole_input_chunks = true;
  a.opens_viewer = true;  // the window opens on the seed notes' 3-rank example
  a.broken_name = "single_buffered_ring";
  a.broken = make_single_buffered_ring;
  a.serves.push_back({Collective::all_reduce, [](const CollectiveSpec& s) { return ring_unchunked(s, false); },
                      ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                                   const double n1 = sp.world_size - 1, S = spec_bytes(sp);
                                   return n1 * (m.msgs(1, S) + m.reduce(S));
                                 },
                                 fixed_text("(n-1)·(α + S·β + S·γ)  (the seed notes' unchunked ring)")}});
  return {a};
}

}  // namespace detail

Schedule make_single_buffered_ring(const CollectiveSpec& spec) {
  CollectiveSpec s = spec;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring_unchunked";
  s.validate();
  return ring_unchunked(s, true);
}

}  // namespace microddp
