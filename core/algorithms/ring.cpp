// Ring algorithms (Patarasuk & Yuan 2009; Baidu's ring all-reduce).
//
// ring (chunked): the vector is cut into n chunks (uneven when n does not
// divide count). Scatter-reduce: n-1 steps; in each, every rank sends one
// chunk to its right neighbour and reduces the chunk arriving from its left
// neighbour, so after n-1 steps rank r holds chunk (r+1) mod n fully reduced.
// All-gather: n-1 more steps circulate the reduced chunks. Each rank sends
// 2(n-1)/n of the vector in 2(n-1) steps.
//
// With segments k = 1 the arriving chunk is reduced in place as it arrives
// (recv-reduce). With segments k > 1 each chunk moves as k segments inside its step; the
// arriving segments are staged alternately in two buffers (send_buff /
// recv_buff, exchanged by an explicit swap) so that segment j+1 can arrive
// while segment j is being reduced: double buffering.
//
// ring_unchunked (the seed notes' double-buffered ring) is in ring_unchunked.cpp.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

struct Chunks {
  std::vector<int64_t> off;  // n+1 offsets into the work buffer
  int64_t len(int c) const { return off[c + 1] - off[c]; }
};

// Segment j of chunk c (k segments, even split).
std::pair<int64_t, int64_t> segment(const Chunks& ch, int c, int k, int j) {
  const auto s = even_chunks(ch.len(c), k);
  return {ch.off[c] + s[j], s[j + 1] - s[j]};
}

// After this phase rank r holds chunk (r + shift) mod n of `work` reduced.
// `work` starts empty: with k = 1 each chunk is filled from the input (same
// layout) just before its first reduction, and step 0 sends straight from
// the input, so no rank copies the whole vector up front. With k > 1 the
// caller copies the input into `work` first.
void scatter_reduce_phase(ScheduleBuilder& b, const Chunks& ch, Buf work, int shift, int k) {
  const int n = b.spec().world_size;
  int64_t maxseg = 0;
  for (int c = 0; c < n; ++c) maxseg = std::max(maxseg, even_chunks(ch.len(c), k)[1]);
  if (k > 1) {
    b.need(-1, Buf::recv_buff, maxseg);
    b.need(-1, Buf::send_buff, maxseg);
  }
  for (int s = 0; s < n - 1; ++s) {
    b.step("scatter-reduce");
    for (int r = 0; r < n; ++r) {
      const int right = mod(r + 1, n), left = mod(r - 1, n);
      const int cs = mod(r - s + shift - 1, n), cr = mod(r - s + shift - 2, n);
      if (k == 1) {
        // One pass: the arriving chunk is reduced straight into place as it
        // is read (NCCL's recvReduce), no staging copy.
        b.send(r, right, {s == 0 ? Buf::input : work, ch.off[cs]}, ch.len(cs), cs);
        // Every chunk a rank receives in this phase is one it has not touched yet.
        copy_unless_same(b, r, {Buf::input, ch.off[cr]}, {work, ch.off[cr]}, ch.len(cr), cr);
        b.recv_reduce(r, left, {work, ch.off[cr]}, ch.len(cr), cr);
        continue;
      }
      for (int j = 0; j < k; ++j) {
        const auto [so, sl] = segment(ch, cs, k, j);
        const auto [ro, rl] = segment(ch, cr, k, j);
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
        b.send(r, mod(r + 1, n), {work, so}, sl, cs, k > 1 ? j : -1);
        b.recv(r, mod(r - 1, n), {work, ro}, rl, cr, k > 1 ? j : -1);
      }
    }
  }
}

Schedule ring_all_reduce(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  Chunks ch{even_chunks(s.count, n)};
  b.set_chunks(ch.off);
  // One rank, or segments (whose staging reduces into a filled buffer):
  // start from a full copy. Otherwise the phases fill the output chunk by chunk.
  if (n == 1 || s.segments > 1)
    for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::output, 0}, s.count);
  if (n > 1) {
    scatter_reduce_phase(b, ch, Buf::output, 1, s.segments);
    all_gather_phase(b, ch, Buf::output, 1, s.segments);
  }
  return b.finish();
}

Schedule ring_reduce_scatter(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  Chunks ch;
  for (int r = 0; r <= n; ++r) ch.off.push_back(s.displ(r));
  b.set_chunks(ch.off);
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.block(0), 0);
    return b.finish();
  }
  b.need(-1, Buf::accum, s.total());
  if (s.segments > 1)
    for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::accum, 0}, s.total());
  scatter_reduce_phase(b, ch, Buf::accum, 0, s.segments);
  for (int r = 0; r < n; ++r) b.copy(r, {Buf::accum, ch.off[r]}, {Buf::output, 0}, ch.len(r), r);
  return b.finish();
}

Schedule ring_all_gather(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  Chunks ch;
  for (int r = 0; r <= n; ++r) ch.off.push_back(s.displ(r));
  b.set_chunks(ch.off);
  for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::output, ch.off[r]}, ch.len(r), r);
  all_gather_phase(b, ch, Buf::output, 0, s.segments);
  return b.finish();
}

}  // namespace

namespace detail {
Schedule ring_unchunked(const CollectiveSpec& s, bool single_buffer);  // ring_unchunked.cpp

Schedule ring_family(const CollectiveSpec& s) {
  if (s.algorithm == "ring_unchunked") return ring_unchunked(s, false);
  switch (s.collective) {
    case Collective::all_reduce: return ring_all_reduce(s);
    case Collective::reduce_scatter: return ring_reduce_scatter(s);
    case Collective::all_gather: return ring_all_gather(s);
    default: throw std::logic_error("ring_family: unsupported collective");
  }
}
}  // namespace detail

}  // namespace microddp
