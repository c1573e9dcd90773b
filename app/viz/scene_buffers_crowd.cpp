// The buffers panel's crowd view (scene.h build_buffers_crowd): one row per
// rank, the most complete copy of each chunk, for 16-64 ranks.
#include <fmt/format.h>

#include <algorithm>

#include "app/viz/scene.h"

namespace microddp::viz {

namespace {

// " (all ranks)", " (2 ranks)", or for a cell whose elements differ
// " (4 ranks in every element, 8 in some)".
std::string contributors_text(const CellDraw& c) {
  if (c.complete) return " (all ranks)";
  const int k = __builtin_popcountll(c.common), u = __builtin_popcountll(c.mask);
  if (c.uniform || k == u) return fmt::format(" ({} rank{})", k, k == 1 ? "" : "s");
  return fmt::format(" ({} rank{} in every element, {} in some)", k, k == 1 ? "" : "s", u);
}

}  // namespace

Rgba crowd_fill(uint64_t mask, int n, bool complete) {
  if (complete) return complete_color();
  const int k = __builtin_popcountll(mask);
  if (k == 0) return empty_color();
  if (k == 1) return rank_color(__builtin_ctzll(mask));
  // Two ranks: lavender; all but one: deep violet (palette.h; the complete colour is darker still).
  return crowd_color(k, n);
}

CrowdScene build_buffers_crowd(const Session& ses, int position, BuffersLayout& lay, float avail_h) {
  CrowdScene cs;
  BuffersScene& sc = cs.buffers;
  if (!ses.configured()) return cs;
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const auto& prov = ses.provenance();
  const int n = sp.world_size, ne = s.num_endpoints();
  position = std::clamp(position, 0, s.num_steps());
  const Trace& tr = ses.trace();
  const bool have_values = tr.snapshots && position <= ses.steps_run();
  sc.values = have_values;
  static constexpr Buf order[] = {Buf::input, Buf::send_buff, Buf::recv_buff, Buf::accum, Buf::scratch, Buf::output};
  // Columns: the fewest whose rows fit.
  const float pitch = lay.row_h + lay.row_gap;
  int cols = 1;
  while (cols < 4 && float((ne + cols - 1) / cols) * pitch > avail_h) ++cols;
  lay.columns = cols;
  const int per_col = (ne + cols - 1) / cols;
  const float col_w = (lay.width - lay.col_gap * float(cols - 1)) / float(cols);
  const float cells_w = std::max(col_w - lay.tag_w - 4, 8.f);
  const int64_t chunk_total = s.chunk_offsets.empty() ? -1 : s.chunk_offsets.back();
  int changed = 0;
  std::string first_change;
  for (int r = 0; r < ne; ++r) {
    // The result buffer: output, else the largest.
    const BufferState* ref = prov.find(position, r, Buf::output);
    Buf ref_buf = Buf::output;
    for (Buf b : order)
      if (const BufferState* st = prov.find(position, r, b); st && (!ref || (ref_buf != Buf::output && st->size > ref->size)))
        ref = st, ref_buf = b;
    // A switch (nvls): its sum as its row once complete, not the ranks'
    // contributions it holds apart (lesson 11 beat 8: "the switch adds").
    if (const BufferState* acc = s.is_switch(r) ? prov.find(position, r, Buf::accum) : nullptr; acc && acc->size > 0)
      if (const RangeProvenance all = range_provenance(*acc, 0, acc->size); all.defined && is_complete(sp, all.common))
        ref = acc, ref_buf = Buf::accum;
    if (!ref) continue;
    if (cs.buffer.empty() && r < n) cs.buffer = std::string(name(ref_buf));
    const RankStepRecord* rec = nullptr;
    if (have_values) rec = position == 0 ? &tr.initial[r] : &tr.steps[position - 1][r];
    BufferRowDraw row;
    row.rank = r;
    row.tag = endpoint_name(s, r);
    row.is_switch = s.is_switch(r);
    row.buf = ref_buf;
    row.first_of_rank = true;
    row.x = float(r / per_col) * (col_w + lay.col_gap);
    row.y = float(r % per_col) * pitch;
    // Cells: the schedule's chunks, but one per element for a result of up
    // to 16 elements whose chunks are longer than a cell's 4 values (lesson
    // 03's naive on 7 ranks x 14: one chunk of 14, drawn as a bar without
    // values), else up to 64 even slices.
    const bool chunked = ref->size == chunk_total && s.chunk_offsets.size() >= 2;
    bool long_chunks = !chunked;
    for (size_t k = 1; chunked && k < s.chunk_offsets.size(); ++k)
      long_chunks = long_chunks || s.chunk_offsets[k] - s.chunk_offsets[k - 1] > 4;
    std::vector<int64_t> cuts;
    if (ref->size <= 16 && long_chunks)
      for (int64_t i = 0; i <= ref->size; ++i) cuts.push_back(i);
    else if (chunked && s.chunk_offsets.size() <= 129)
      cuts = s.chunk_offsets;
    else
      cuts = even_chunks(ref->size, static_cast<int>(std::clamp<int64_t>(ref->size, 1, 64)));
    const int ncell = static_cast<int>(cuts.size()) - 1;
    const float cw = cells_w / float(std::max(ncell, 1));
    const float x0 = row.x + lay.tag_w;
    for (int c = 0; c < ncell; ++c) {
      CellDraw cell;
      cell.begin = cuts[c];
      cell.len = cuts[c + 1] - cuts[c];
      // The chunk the cell lies in (its first element's), for a lesson's highlight.
      if (chunked && cell.len > 0) {
        const auto it = std::upper_bound(s.chunk_offsets.begin(), s.chunk_offsets.end(), cell.begin);
        cell.chunk = static_cast<int>(it - s.chunk_offsets.begin()) - 1;
      }
      // Named as a chunk only when it is one whole chunk.
      const bool whole_chunk = cell.chunk >= 0 && s.chunk_offsets[static_cast<size_t>(cell.chunk)] == cell.begin &&
                               s.chunk_offsets[static_cast<size_t>(cell.chunk) + 1] == cell.begin + cell.len;
      cell.x0 = x0 + cw * float(c);
      cell.x1 = x0 + cw * float(c + 1) - (cw >= 6 ? 1.f : 0.f);
      cell.y0 = row.y;
      cell.y1 = row.y + lay.row_h;
      // The most complete copy of the range in any buffer of the same length.
      int best = -1;
      Buf best_buf = ref_buf;
      for (Buf b : order) {
        const BufferState* st = prov.find(position, r, b);
        if (!st || st->size != ref->size || cell.len <= 0) continue;
        const RangeProvenance rp = range_provenance(*st, cell.begin, cell.len);
        // Ranked by the contributors every element holds, then by the union.
        const int k = rp.defined ? 128 * __builtin_popcountll(rp.common) + __builtin_popcountll(rp.mask) : -1;
        if (k > best || (k == best && b == Buf::output)) {
          best = k, best_buf = b;
          cell.mask = rp.mask, cell.common = rp.common, cell.defined = rp.defined, cell.uniform = rp.uniform;
        }
        if (position > 0)
          if (const BufferState* pv = prov.find(position - 1, r, b)) {
            const RangeProvenance pp = range_provenance(*pv, cell.begin, cell.len);
            cell.changed = cell.changed || pp.mask != rp.mask || pp.common != rp.common || pp.defined != rp.defined;
          }
      }
      cell.complete = cell.defined && is_complete(sp, cell.common);
      // A cell is coloured by what every element holds (a half-reduced chunk
      // is not drawn as reduced).
      cell.stripes = {cell.defined ? crowd_fill(cell.common, n, cell.complete) : empty_color()};
      cell.text_color = text_on(cell.stripes[0]);
      if (rec && cell.defined && cell.len <= 4)
        for (const auto& bs : rec->buffers)
          if (bs.buf == best_buf && cell.begin + cell.len <= static_cast<int64_t>(bs.values.size())) {
            std::string tight;
            for (int64_t i = 0; i < cell.len; ++i) {
              const std::string v = format_value(bs.values[static_cast<size_t>(cell.begin + i)]);
              cell.value += (i ? kValueSep : "") + v;
              tight += (i ? kValueSepTight : "") + v;
            }
            if (float(cell.value.size()) * lay.char_w <= cell.x1 - cell.x0 - 4) cell.text = cell.value;
            else if (float(tight.size()) * lay.char_w <= cell.x1 - cell.x0 - 4) cell.text = tight;
            else ++sc.values_hidden;
          }
      if (cell.changed) {
        ++changed;
        if (first_change.empty() && cell.defined) {
          first_change = fmt::format("{} {} {}{}{}", row.tag,
                                     whole_chunk ? "chunk" : cell.len == 1 ? "element" : "elements",
                                     whole_chunk      ? std::to_string(cell.chunk)
                                     : cell.len == 1  ? std::to_string(cell.begin)
                                                      : fmt::format("[{}, {})", cell.begin, cell.begin + cell.len),
                                     cell.value.empty() ? "" : " = " + cell.value, contributors_text(cell));
        }
      }
      row.cells.push_back(std::move(cell));
    }
    sc.rows.push_back(std::move(row));
  }
  sc.height = float(per_col) * pitch - lay.row_gap;
  if (position > 0)
    cs.step_line = fmt::format("step {}: {} {} changed{}", position - 1, changed, changed == 1 ? "cell" : "cells",
                               first_change.empty() ? "" : "; " + first_change);
  return cs;
}

}  // namespace microddp::viz
