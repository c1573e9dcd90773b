// Channels (NCCL's word for the parallel rings or trees one collective is
// split across; NVIDIA/nccl src/enqueue.cc cuts the buffer by channel): the
// vector is cut into spec.channels contiguous slices, one copy of the
// algorithm runs on each slice, and the copies run at once: channel c's ops
// of step k are in step k, after channel c-1's, as separate messages.
//
// Slices (even_chunks, so sizes differ by at most one element, the larger
// first): all_reduce cuts [0, count); all_gather and reduce_scatter cut every
// rank's block q into C slices, and channel c runs the collective on slice c
// of every block (a "v" spec whose counts[q] is that slice's length). An op
// of the channel's schedule on a blocked buffer (reduce_scatter's input,
// all_gather's output) must stay inside one block; its offset maps block by
// block. Work buffers get one region per channel, after the channels below
// it. Chunk indices: all_reduce renumbers them c·m + i (m chunks a channel)
// and lists every channel's chunk offsets; the blocked collectives keep the
// block index (their chunks are the rank blocks).
//
// Rails: on several nodes (spec.nodes > 1, g = world_size / nodes > 1 ranks
// each) an all_reduce's channel c runs its copy on ranks relabelled within
// every node: local rank i plays local rank (i + c) mod g. A ring then
// leaves each node from a different local rank in every channel, and with a
// NIC per local rank (the topology model's rail-optimised placement: rank r
// uses NIC (r mod g) mod K) channel c crosses through NIC (c − 1) mod g, so C
// channels use min(C, K) NICs at once, as NCCL's channels do (each
// channel's ring is searched through a different NIC, src/graph/search.cc).
// Relabelling keeps nodes (intra stays intra) and an all_reduce stays one
// (every rank still ends with every contribution; the checker proves it);
// the blocked collectives are not relabelled (rank q's block has to end on
// rank q).
#include <fmt/format.h>

#include "core/algorithms/common.h"

namespace microddp {

namespace {

bool blocked(Collective c, Buf b) {
  return (c == Collective::reduce_scatter && b == Buf::input) || (c == Collective::all_gather && b == Buf::output);
}
bool own_block(Collective c, Buf b) {
  return (c == Collective::reduce_scatter && b == Buf::output) || (c == Collective::all_gather && b == Buf::input);
}

}  // namespace

Schedule with_channels(const CollectiveSpec& spec, const Generator& generate) {
  const int C = spec.channels, n = spec.world_size;
  const Collective col = spec.collective;
  const bool by_block = col == Collective::all_gather || col == Collective::reduce_scatter;
  if (!by_block && col != Collective::all_reduce)
    throw std::logic_error(fmt::format("with_channels: {} is not split in channels", name(col)));
  // slice[q][c]: offset of channel c's slice inside block q (all_reduce: one block)
  const int blocks = by_block ? n : 1;
  std::vector<std::vector<int64_t>> slice(blocks);
  for (int q = 0; q < blocks; ++q) slice[q] = even_chunks(by_block ? spec.block(q) : spec.count, C);

  Schedule out;
  out.spec = spec;
  out.buffers.resize(n);
  std::vector<BufferPlan> base(n);  // work-buffer region of the current channel
  const int g = spec.nodes > 1 ? n / spec.nodes : 1;
  const bool rails = !by_block && spec.nodes > 1 && g > 1;
  for (int c = 0; c < C; ++c) {
    // The endpoint that plays sub-schedule rank r in channel c (switch
    // endpoints, r >= n, are not relabelled).
    const auto at = [&](int r) { return rails && r < n ? r - r % g + (r % g + c) % g : r; };
    CollectiveSpec sub = spec;
    sub.channels = 1;
    if (by_block) {
      sub.counts.assign(n, 0);
      for (int q = 0; q < n; ++q) sub.counts[q] = slice[q][c + 1] - slice[q][c];
    } else {
      sub.count = slice[0][c + 1] - slice[0][c];
    }
    const Schedule s = generate(sub);
    if (c == 0) {
      out.phases = s.phases;
      out.steps.resize(s.steps.size());
      for (size_t k = 0; k < s.steps.size(); ++k) {
        out.steps[k].phase = s.steps[k].phase;
        out.steps[k].ranks.resize(n);
      }
    } else if (s.steps.size() != out.steps.size() || s.phases.size() != out.phases.size()) {
      throw std::logic_error(fmt::format("with_channels: channel {} has {} steps, channel 0 {}", c, s.steps.size(),
                                         out.steps.size()));
    }
    const int64_t chunks = s.chunk_offsets.empty() ? 0 : static_cast<int64_t>(s.chunk_offsets.size()) - 1;
    if (!by_block)
      for (int64_t i = 0; i < chunks; ++i) out.chunk_offsets.push_back(slice[0][c] + s.chunk_offsets[i]);
    for (int r = 0; r < n; ++r) {
      const int e = at(r);
      // Where [x, x+len) of buffer b (channel space) lies in the full spec.
      auto map = [&](BufRange x, int64_t len) -> BufRange {
        if (static_cast<int>(x.buf) >= static_cast<int>(Buf::send_buff))
          return {x.buf, x.offset + base[e].size[static_cast<int>(x.buf)]};
        if (!by_block) return {x.buf, x.offset + slice[0][c]};
        if (own_block(col, x.buf)) return {x.buf, x.offset + slice[r][c]};
        if (!blocked(col, x.buf)) throw std::logic_error("with_channels: unexpected buffer");
        int q = 0;
        while (q + 1 < n && sub.displ(q + 1) <= x.offset && (len > 0 || sub.displ(q + 1) < x.offset)) ++q;
        if (x.offset + len > sub.displ(q) + sub.block(q))
          throw std::logic_error("with_channels: an op crosses a block boundary");
        return {x.buf, spec.displ(q) + slice[q][c] + (x.offset - sub.displ(q))};
      };
      for (size_t k = 0; k < s.steps.size(); ++k) {
        if (s.steps[k].phase != out.steps[k].phase)
          throw std::logic_error(fmt::format("with_channels: channel {} step {} is in another phase", c, k));
        for (Op op : s.steps[k].ranks[r]) {
          if (op.kind == OpKind::swap)
            throw std::logic_error("with_channels: a schedule that swaps buffers cannot run in channels");
          const bool reads = op.kind == OpKind::send || op.kind == OpKind::copy || op.kind == OpKind::reduce;
          const bool writes = op.kind != OpKind::send;
          if (reads) op.src = map(op.src, op.len);
          if (writes) op.dst = map(op.dst, op.len);
          if (!by_block && op.chunk >= 0) op.chunk = static_cast<int>(c * chunks + op.chunk);
          op.channel = c;
          if (op.peer >= 0) op.peer = at(op.peer);
          out.steps[k].ranks[e].push_back(op);
        }
      }
      for (int b = static_cast<int>(Buf::send_buff); b < kNumBufs; ++b) {
        const int64_t add = s.buffers.empty() ? 0 : s.buffers[r].size[b];
        base[e].size[b] += add;
        out.buffers[e].size[b] = base[e].size[b];
      }
    }
  }
  if (by_block) {
    for (int r = 0; r <= n; ++r) out.chunk_offsets.push_back(spec.displ(r));
  } else {
    out.chunk_offsets.push_back(spec.count);
  }
  return out;
}

}  // namespace microddp
