// The chunked ring with segments k > 1 (ring.cpp's "ring" when
// spec.segments > 1): each chunk moves as k segments inside its step, the
// way NCCL pipelines a ring. The arriving segments are staged alternately in
// two buffers (send_buff / recv_buff, exchanged by an explicit swap) so that
// segment j+1 can arrive while segment j is being reduced: double buffering.
// The work buffer starts as a full copy of the input, because the staged
// segments are reduced into a filled buffer. Chunk indices follow ring.cpp.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

// Segment j of chunk c (k segments, even split): {offset, length}.
std::pair<int64_t, int64_t> segment(const Chunks& ch, int c, int k, int j) {
  const auto s = even_chunks(ch.len(c), k);
  return {ch.off[c] + s[j], s[j + 1] - s[j]};
}

// After this phase rank r holds chunk (r + shift) mod n of `work` reduced.
void scatter_reduce_phase(ScheduleBuilder& b, const Chunks& ch, Buf work, int shift, int k) {
  const int n = b.spec().world_size;
  int64_t maxseg = 0;
  for (int c = 0; c < n; ++c) maxseg = std::max(maxseg, even_chunks(ch.len(c), k)[1]);
  b.need(-1, Buf::recv_buff, maxseg);
  b.need(-1, Buf::send_buff, maxseg);
  for (int s = 0; s < n - 1; ++s) {
    b.step("scatter-reduce");
    for (int r = 0; r < n; ++r) {
      const int right = mod(r + 1, n), left = mod(r - 1, n);
      const int cs = mod(r - s + shift - 1, n), cr = mod(r - s + shift - 2, n);
      for (int j = 0; j < k; ++j) {
        const auto [so, sl] = segment(ch, cs, k, j);
        const int64_t rl = segment(ch, cr, k, j).second;
        if (j > 0) b.swap(r, Buf::send_buff, Buf::recv_buff);
        b.recv(r, left, {Buf::recv_buff, 0}, rl, cr, j);
        b.send(r, right, {work, so}, sl, cs, j);
        if (j > 0) {
          const auto [po, pl] = segment(ch, cr, k, j - 1);
          b.reduce(r, {Buf::send_buff, 0}, {work, po}, pl, cr, j - 1);
        }
      }
      const auto [lo, ll] = segment(ch, cr, k, k - 1);
      b.reduce(r, {Buf::recv_buff, 0}, {work, lo}, ll, cr, k - 1);
    }
  }
}

// Rank r starts holding chunk (r + shift) mod n of `work`; after n-1 steps
// every rank holds every chunk.
void all_gather_phase(ScheduleBuilder& b, const Chunks& ch, Buf work, int shift, int k) {
  const int n = b.spec().world_size;
  for (int s = 0; s < n - 1; ++s) {
    b.step("all-gather");
    for (int r = 0; r < n; ++r) {
      const int cs = mod(r + shift - s, n), cr = mod(r + shift - s - 1, n);
      for (int j = 0; j < k; ++j) {
        const auto [so, sl] = segment(ch, cs, k, j);
        const auto [ro, rl] = segment(ch, cr, k, j);
        b.send(r, mod(r + 1, n), {work, so}, sl, cs, j);
        b.recv(r, mod(r - 1, n), {work, ro}, rl, cr, j);
      }
    }
  }
}

}  // namespace

namespace detail {
Schedule ring_pipelined(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size, k = s.segments;
  switch (s.collective) {
    case Collective::all_reduce: {
      const Chunks ch{even_chunks(s.count, n)};
      b.set_chunks(ch.off);
      for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::output, 0}, s.count);
      if (n > 1) {
        scatter_reduce_phase(b, ch, Buf::output, 1, k);
        all_gather_phase(b, ch, Buf::output, 1, k);
      }
      break;
    }
    case Collective::reduce_scatter: {
      const Chunks ch = rank_block_chunks(s);
      b.set_chunks(ch.off);
      if (n == 1) {
        b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.block(0), 0);
        break;
      }
      b.need(-1, Buf::accum, s.total());
      for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::accum, 0}, s.total());
      scatter_reduce_phase(b, ch, Buf::accum, 0, k);
      for (int r = 0; r < n; ++r) b.copy(r, {Buf::accum, ch.off[r]}, {Buf::output, 0}, ch.len(r), r);
      break;
    }
    case Collective::all_gather: {
      const Chunks ch = rank_block_chunks(s);
      b.set_chunks(ch.off);
      for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::output, ch.off[r]}, ch.len(r), r);
      all_gather_phase(b, ch, Buf::output, 0, k);
      break;
    }
    default: throw std::logic_error("ring_pipelined: the ring serves all_reduce, reduce_scatter, all_gather");
  }
  return b.finish();
}
}  // namespace detail

}  // namespace microddp
