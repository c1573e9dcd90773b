// What a step moves, for a lesson's chunk highlight in the buffers panel
// (buffer_notes.h: moved_in_step, lit_where_moved).
#include <algorithm>

#include "app/viz/buffer_notes.h"

namespace microddp::viz {

namespace {

struct Range {
  Buf buf;
  int64_t begin, end;
};

bool overlaps(const Range& a, Buf b, int64_t begin, int64_t end) {
  return a.buf == b && a.begin < end && begin < a.end;
}

// The ranges of endpoint r's buffers that step `step` moves: what its sends
// read, what its recvs and recv_reduces write, and what a copy or reduce
// later in the step writes from a received range (accum reduced from
// recv_buff). Names as the step's ops use them (before a swap at its end).
std::vector<Range> moved_ranges(const Schedule& s, int step, int r) {
  std::vector<Range> got, moved;
  for (const Op& o : s.steps[static_cast<size_t>(step)].ranks[static_cast<size_t>(r)]) {
    switch (o.kind) {
      case OpKind::send: moved.push_back({o.src.buf, o.src.offset, o.src.offset + o.len}); break;
      case OpKind::recv:
      case OpKind::recv_reduce: got.push_back({o.dst.buf, o.dst.offset, o.dst.offset + o.len}); break;
      case OpKind::copy:
      case OpKind::reduce:
        if (std::any_of(got.begin(), got.end(),
                        [&](const Range& g) { return overlaps(g, o.src.buf, o.src.offset, o.src.offset + o.len); }))
          got.push_back({o.dst.buf, o.dst.offset, o.dst.offset + o.len});
        break;
      case OpKind::swap: break;
    }
  }
  moved.insert(moved.end(), got.begin(), got.end());
  return moved;
}

}  // namespace

bool moved_in_step(const Session& ses, int position, int r, Buf b, int64_t begin, int64_t len) {
  if (!ses.configured() || position <= 0 || position > ses.num_steps() || len <= 0) return false;
  const Schedule& s = ses.schedule();
  if (r < 0 || r >= s.num_endpoints()) return false;
  for (const Range& m : moved_ranges(s, position - 1, r))
    if (overlaps(m, b, begin, begin + len)) return true;
  return false;
}

bool lit_where_moved(const Session& ses, int position, const std::vector<int>& chunks, int r, Buf b, int64_t begin,
                     int64_t len) {
  if (!ses.configured() || position <= 0 || position > ses.num_steps()) return true;
  const Schedule& s = ses.schedule();
  // A highlight of some chunks picks them out (lesson 04 beat 5: the two
  // larger chunks, wherever they are); one of every chunk means "the chunks
  // this step moves", or it would light every cell.
  const int nchunks = static_cast<int>(s.chunk_offsets.size()) - 1;
  for (int c = 0; c < nchunks; ++c)
    if (std::find(chunks.begin(), chunks.end(), c) == chunks.end()) return true;
  bool moves = false;  // does the shown step move any of the chunks?
  for (const auto& ops : s.steps[static_cast<size_t>(position - 1)].ranks)
    for (const Op& o : ops)
      moves = moves || (is_comm(o.kind) && std::find(chunks.begin(), chunks.end(), o.chunk) != chunks.end());
  return !moves || moved_in_step(ses, position, r, b, begin, len);
}

}  // namespace microddp::viz
