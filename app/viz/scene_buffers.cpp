// The buffers panel's scene (panel_buffers.cpp draws it).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/viz/scene.h"
#include "core/algorithms/registry.h"

namespace microddp::viz {

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.4g}", v);
}

BuffersScene build_buffers(const Session& ses, int position, const BuffersLayout& lay) {
  BuffersScene sc;
  if (!ses.configured()) return sc;
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const auto& prov = ses.provenance();
  const int n = sp.world_size;
  position = std::clamp(position, 0, s.num_steps());
  // Values: from the real run's snapshots, when recorded and this position ran.
  const Trace& tr = ses.trace();
  const bool have_values = tr.snapshots && position <= ses.steps_run();
  sc.values = have_values;
  static constexpr Buf order[] = {Buf::input, Buf::send_buff, Buf::recv_buff, Buf::accum, Buf::scratch, Buf::output};
  const int64_t chunk_total = s.chunk_offsets.empty() ? -1 : s.chunk_offsets.back();
  const int cols = std::clamp(lay.columns, 1, std::max(n, 1));
  const float col_w = (lay.width - lay.col_gap * float(cols - 1)) / float(cols);
  const float cells_w = std::max(col_w - lay.tag_w - lay.label_w - 4, 20.f);
  float group_top = 0, group_h = 0;
  for (int r = 0; r < n; ++r) {
    const int col = r % cols;
    if (col == 0 && r > 0) {
      group_top += group_h + lay.rank_gap;
      group_h = 0;
    }
    const float rx = float(col) * (col_w + lay.col_gap);
    const float x0 = rx + lay.tag_w + lay.label_w;
    float y = group_top;
    const RankStepRecord* rec = nullptr;
    if (have_values) rec = position == 0 ? &tr.initial[r] : &tr.steps[position - 1][r];
    const size_t first_row = sc.rows.size();
    for (Buf b : order) {
      const BufferState* st = prov.find(position, r, b);
      if (!st) continue;
      const BufferState* prev = position > 0 ? prov.find(position - 1, r, b) : nullptr;
      BufferRowDraw row;
      row.rank = r;
      row.buf = b;
      row.storage = st->storage;
      row.label = std::string(name(b));
      row.x = rx;
      row.y = y;
      row.first_of_rank = sc.rows.size() == first_row;
      const std::vector<double>* vals = nullptr;
      if (rec)
        for (const auto& bs : rec->buffers)
          if (bs.buf == b) vals = &bs.values;
      // Cells: one per element for short buffers, else one per chunk when the
      // buffer is chunked like the schedule, else up to 32 even slices.
      std::vector<int64_t> cuts;
      const bool chunked = st->size == chunk_total && s.chunk_offsets.size() >= 2;
      if (st->size <= 16) {
        for (int64_t i = 0; i <= st->size; ++i) cuts.push_back(i);
      } else if (chunked && s.chunk_offsets.size() <= 65) {
        cuts = s.chunk_offsets;
      } else {
        cuts = even_chunks(st->size, static_cast<int>(std::min<int64_t>(st->size, 32)));
      }
      const int ncell = static_cast<int>(cuts.size()) - 1;
      const float cw = cells_w / float(std::max(ncell, 1));
      for (int c = 0; c < ncell; ++c) {
        CellDraw cell;
        cell.begin = cuts[c];
        cell.len = cuts[c + 1] - cuts[c];
        cell.x0 = x0 + cw * float(c);
        cell.x1 = x0 + cw * float(c + 1) - (ncell > 48 ? 0.f : 2.f);
        cell.y0 = y;
        cell.y1 = y + lay.row_h;
        if (chunked) {
          const auto it = std::upper_bound(s.chunk_offsets.begin(), s.chunk_offsets.end(), cell.begin);
          cell.chunk = static_cast<int>(it - s.chunk_offsets.begin()) - 1;
        }
        if (cell.len > 0) {
          const RangeProvenance rp = range_provenance(*st, cell.begin, cell.len);
          cell.mask = rp.mask;
          cell.defined = rp.defined;
          cell.uniform = rp.uniform;
          if (prev) {
            const RangeProvenance pp = range_provenance(*prev, cell.begin, cell.len);
            cell.changed = pp.mask != rp.mask || pp.defined != rp.defined;
          }
        }
        cell.complete = cell.defined && is_complete(sp, cell.mask);
        cell.stripes = cell.defined || cell.mask ? stripes_for(cell.mask, n, cell.complete)
                                                 : std::vector<Rgba>{empty_color()};
        cell.text_color = text_on(cell.stripes.size() == 1 ? cell.stripes[0] : cell.stripes[cell.stripes.size() / 2]);
        if (vals && cell.defined && cell.len > 0 && cell.len <= 4 &&
            cell.begin + cell.len <= static_cast<int64_t>(vals->size())) {
          std::string txt;
          for (int64_t i = 0; i < cell.len; ++i) txt += (i ? "," : "") + format_value((*vals)[cell.begin + i]);
          if (float(txt.size()) * lay.char_w <= cell.x1 - cell.x0 - 4) cell.text = std::move(txt);
        }
        row.cells.push_back(std::move(cell));
      }
      sc.rows.push_back(std::move(row));
      y += lay.row_h + lay.row_gap;
    }
    group_h = std::max(group_h, y - group_top);
    // Swaps of the shown step: pair the rows whose names were exchanged.
    if (position > 0) {
      for (const Op& o : s.steps[position - 1].ranks[r]) {
        if (o.kind != OpKind::swap) continue;
        int ia = -1, ib = -1;
        for (size_t i = first_row; i < sc.rows.size(); ++i) {
          if (sc.rows[i].buf == o.src.buf) ia = static_cast<int>(i);
          if (sc.rows[i].buf == o.dst.buf) ib = static_cast<int>(i);
        }
        if (ia >= 0 && ib >= 0) {
          sc.rows[ia].swap_partner = ib;
          sc.rows[ib].swap_partner = ia;
        }
      }
    }
  }
  sc.height = group_top + group_h;
  return sc;
}

}  // namespace microddp::viz
