// The buffers panel's scene (panel_buffers.cpp draws it).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "app/viz/buffer_notes.h"
#include "app/viz/held_cells.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/ir/reference.h"

namespace microddp::viz {

namespace {

// The reduction the schedule means a buffer element to hold: the op over the
// contributors' input elements, in rank order (the reference's order).
double reduce_of(ReduceOp op, const std::vector<double>& xs) {
  double v = xs.front();
  for (size_t i = 1; i < xs.size(); ++i) {
    switch (op) {
      case ReduceOp::prod: v *= xs[i]; break;
      case ReduceOp::min: v = std::min(v, xs[i]); break;
      case ReduceOp::max: v = std::max(v, xs[i]); break;
      default: v += xs[i]; break;
    }
  }
  return v;
}

// Whether the run can hold `v` as computed here: an integer sum past the
// dtype wraps, a float one past its range turns infinite, and int64 past
// 2^53 is not exact in a double; such elements are not judged.
bool representable(DType t, double v) {
  switch (t) {
    case DType::int32: return v >= -2147483648.0 && v <= 2147483647.0;
    case DType::int64: return std::fabs(v) <= 9007199254740992.0;
    case DType::float16: return std::fabs(v) <= 65504.0;
    case DType::bfloat16:
    case DType::float32: return std::fabs(v) <= 3.4e38;
    case DType::float64: break;
  }
  return std::isfinite(v);
}

bool is_wrong(double got, double want, double bound) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) != std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got != want;
  return std::fabs(got - want) > bound;
}

std::string banner_of(const BrokenRun& b) {
  // The seed fixes the delays, not the race: the threads really run, so which
  // element goes wrong can differ from run to run (and from the terminal's).
  if (b.recorded)  // a saved run: the same picture every time; the live claim is the checks'
    return fmt::format("{}: single-buffered ring, send delays seed {}: {}. The checks run it live now.",
                       recorded_label(RecordOrigin{b.machine, b.date, ""}), b.seed,
                       b.corrupted ? "corrupted" : "came out right");
  if (b.corrupted)
    return fmt::format("single-buffered ring, send delays seed {}: corrupted (a real race: the values differ from run "
                       "to run)",
                       b.seed);
  return fmt::format("single-buffered ring, send delays seed {}: came out right this time (none of {} seeds corrupted)",
                     b.seed, b.tries);
}

}  // namespace

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.4g}", v);
}

std::string wrong_carried_text(const Session& ses, int step, const Transfer& x) {
  return wrong_carried(ses, step, x).text;
}

WrongCarried wrong_carried(const Session& ses, int step, const Transfer& x) {
  if (!ses.configured() || step < 0 || step >= ses.steps_run()) return {};
  const Trace& tr = ses.trace();
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const int n = sp.world_size;
  const AlgorithmInfo* info = find_algorithm(sp.algorithm, sp.collective);
  if (!tr.snapshots || sp.collective != Collective::all_reduce || !info || !info->broken || !sp.counts.empty() ||
      sp.op == ReduceOp::avg || x.from >= n || x.to >= n || static_cast<int>(tr.events.size()) < n)
    return {};
  // The matching recv: the k-th recv of x.to from x.from in this step, for
  // the k-th send of x.from to x.to (core/ir/schedule.h's pairing rule).
  const auto& ops = s.steps[step].ranks[x.from];
  int k = 0;
  for (int i = 0; i < x.op_index && i < static_cast<int>(ops.size()); ++i)
    k += ops[i].kind == OpKind::send && ops[i].peer == x.to;
  const auto& evs = tr.events[x.to];
  const Event* ev = nullptr;
  const std::vector<double>* got = nullptr;
  for (size_t i = 0; i < evs.size(); ++i) {
    const Event& e = evs[i];
    if (e.step == step && e.peer == x.from && (e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) && k-- == 0) {
      ev = &e;
      if (x.to < static_cast<int>(tr.carried.size()) && i < tr.carried[x.to].size()) got = &tr.carried[x.to][i];
      break;
    }
  }
  if (!ev || !got || got->empty()) return {};
  std::vector<const std::vector<double>*> in(static_cast<size_t>(n), nullptr);
  for (int r = 0; r < n; ++r)
    for (const auto& bs : tr.initial[r].buffers)
      if (bs.buf == Buf::input) in[static_cast<size_t>(r)] = &bs.values;
  std::vector<double> want;
  bool differs = false;
  for (size_t i = 0; i < got->size(); ++i) {
    std::vector<double> xs;
    for (int r = 0; r < n; ++r) {
      if (!(x.mask >> r & 1)) continue;
      const auto* v = in[static_cast<size_t>(r)];
      const size_t at = static_cast<size_t>(ev->offset) + i;
      if (!v || at >= v->size()) return {};
      xs.push_back((*v)[at]);
    }
    if (xs.empty()) return {};
    want.push_back(reduce_of(sp.op, xs));
    if (!representable(sp.dtype, want.back())) return {};
    differs = differs || is_wrong((*got)[i], want.back(), 1e-6 * std::max(1.0, std::fabs(want.back())));
  }
  if (!differs) return {};
  const auto list = [](const std::vector<double>& v) {
    std::string out;
    for (size_t i = 0; i < v.size() && i < 3; ++i) out += (i ? "," : "") + format_value(v[i]);
    return v.size() > 3 ? out + ",…" : out;
  };
  std::string who;
  for (int r = 0; r < n; ++r)
    if (x.mask >> r & 1) who += (who.empty() ? "T" : "+T") + std::to_string(r);
  WrongCarried out{fmt::format("sent {}, expected {} = {}", list(*got), who, list(want)), 0};
  // Whose data it was: the first set of ranks, fewest first, whose inputs
  // there combine to every carried value.
  if (n > 12) return out;
  std::vector<uint64_t> masks;
  for (uint64_t m = 1; m < (uint64_t{1} << n); ++m) masks.push_back(m);
  std::stable_sort(masks.begin(), masks.end(),
                   [](uint64_t a, uint64_t b) { return std::popcount(a) < std::popcount(b); });
  for (const uint64_t m : masks) {
    bool same = true;
    for (size_t i = 0; i < got->size() && same; ++i) {
      std::vector<double> xs;
      for (int r = 0; r < n; ++r) {
        if (!(m >> r & 1)) continue;
        const auto* v = in[static_cast<size_t>(r)];
        const size_t at = static_cast<size_t>(ev->offset) + i;
        if (!v || at >= v->size()) return out;
        xs.push_back((*v)[at]);
      }
      const double c = reduce_of(sp.op, xs);
      same = !is_wrong((*got)[i], c, 1e-6 * std::max(1.0, std::fabs(c)));
    }
    if (same) {
      out.mask = m;
      break;
    }
  }
  return out;
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
  if (const auto& b = ses.broken()) {
    sc.banner = banner_of(*b);
    sc.banner_error = b->corrupted;
  }
  // The names a swap ever exchanges on each rank (the double buffer), to
  // letter their storages; with any, a column right of the cells holds the
  // swap marker.
  // Every endpoint's buffers: the ranks', then a switch's (nvls: what it
  // received and the sum it holds).
  const int ne = s.num_endpoints();
  std::vector<std::vector<Buf>> swapped_names(static_cast<size_t>(ne));
  for (const Step& st : s.steps)
    for (int r = 0; r < ne; ++r)
      for (const Op& o : st.ranks[r])
        if (o.kind == OpKind::swap)
          for (Buf b : {o.src.buf, o.dst.buf}) {
            auto& v = swapped_names[static_cast<size_t>(r)];
            if (std::find(v.begin(), v.end(), b) == v.end()) v.push_back(b);
          }
  bool has_swaps = false;
  for (const auto& v : swapped_names) has_swaps = has_swaps || !v.empty();
  // Judging values (see BuffersScene::judged): the inputs as recorded.
  const ReduceOp op = sp.op;
  // Judged: the algorithms with a broken form (the registry's
  // AlgorithmInfo::broken: ring_unchunked), whose wrong values are the lesson.
  const AlgorithmInfo* info = find_algorithm(sp.algorithm, sp.collective);
  sc.judged = have_values && sp.collective == Collective::all_reduce && info && info->broken && sp.counts.empty() &&
              op != ReduceOp::avg;
  std::vector<const std::vector<double>*> input_vals(static_cast<size_t>(n), nullptr);
  if (sc.judged)
    for (int r = 0; r < n; ++r)
      for (const auto& bs : tr.initial[r].buffers)
        if (bs.buf == Buf::input) input_vals[static_cast<size_t>(r)] = &bs.values;
  for (const auto* v : input_vals) sc.judged = sc.judged && v != nullptr;
  std::vector<double> contrib;
  FirstWrongDraw first_output;  // the result's first wrong element, named before any other
  const int cols = std::clamp(lay.columns, 1, std::max(n, 1));
  const float col_w = (lay.width - lay.col_gap * float(cols - 1)) / float(cols);
  const float swap_col = has_swaps ? lay.swap_w : 0.f;
  const float cells_w = std::max(col_w - lay.tag_w - lay.label_w - 4 - swap_col, 20.f);
  float group_top = 0, group_h = 0;
  for (int r = 0; r < ne; ++r) {
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
    // Letters by the storages the swapped names start on, in row order.
    std::vector<int> lettered;
    for (Buf b : order)
      for (Buf sb : swapped_names[static_cast<size_t>(r)])
        if (sb == b)
          if (const BufferState* st0 = prov.find(0, r, b)) lettered.push_back(st0->storage);
    for (Buf b : order) {
      const BufferState* st = prov.find(position, r, b);
      if (!st) continue;
      const BufferState* prev = position > 0 ? prov.find(position - 1, r, b) : nullptr;
      BufferRowDraw row;
      row.rank = r;
      row.tag = endpoint_name(s, r);
      row.is_switch = s.is_switch(r);
      row.buf = b;
      row.storage = st->storage;
      row.label = std::string(name(b));
      row.x = rx;
      row.y = y;
      row.first_of_rank = sc.rows.size() == first_row;
      for (size_t li = 0; li < lettered.size() && li < 26; ++li)
        if (lettered[li] == st->storage) row.letter = std::string(1, char('A' + li));
      const std::vector<double>* vals = nullptr;
      if (rec)
        for (const auto& bs : rec->buffers)
          if (bs.buf == b) vals = &bs.values;
      // Cells: one per element for short buffers, else one per chunk when the
      // buffer is chunked like the schedule, else up to 32 even slices.
      // A sliced buffer shorter than the rank's longest (reduce-scatter's
      // output, all-gather's input: 1/n of it) is drawn that much shorter,
      // so its width tells its size; buffers of up to 16 elements keep one
      // cell per element across the whole width (the seed's 3-rank ring).
      std::vector<int64_t> cuts;
      const bool chunked = st->size == chunk_total && s.chunk_offsets.size() >= 2;
      float row_w = cells_w;
      if (st->size <= 16) {
        for (int64_t i = 0; i <= st->size; ++i) cuts.push_back(i);
      } else if (chunked && s.chunk_offsets.size() <= 65) {
        cuts = s.chunk_offsets;
      } else {
        int64_t longest = st->size;
        for (Buf ob : order)
          if (const BufferState* o = prov.find(position, r, ob)) longest = std::max(longest, o->size);
        const double share = double(st->size) / double(longest);
        row_w = cells_w * float(share);
        // As many slices as the schedule's chunks it spans when the longest
        // buffer is cut in chunks (an all-gather's input, a reduce-scatter's
        // output: one rank's block, one cell, not 8 slices that read as 8
        // chunks), else up to 32.
        const bool longest_chunked = longest == chunk_total && s.chunk_offsets.size() >= 2 && s.chunk_offsets.size() <= 65;
        const double whole = longest_chunked ? double(s.chunk_offsets.size() - 1) : 32.0;
        const int slices = static_cast<int>(std::clamp<double>(std::round(whole * share), 1, 32));
        cuts = even_chunks(st->size, static_cast<int>(std::min<int64_t>(st->size, slices)));
      }
      const int ncell = static_cast<int>(cuts.size()) - 1;
      const float cw = row_w / float(std::max(ncell, 1));
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
          cell.common = rp.common;
          cell.defined = rp.defined;
          cell.uniform = rp.uniform;
          if (prev) {
            const RangeProvenance pp = range_provenance(*prev, cell.begin, cell.len);
            cell.changed = pp.mask != rp.mask || pp.common != rp.common || pp.defined != rp.defined;
          }
        }
        cell.complete = cell.defined && is_complete(sp, cell.common);
        cell.stripes = cell.defined || cell.mask ? stripes_for(cell.mask, n, cell.complete)
                                                 : std::vector<Rgba>{empty_color()};
        cell.text_color = text_on(cell.stripes.size() == 1 ? cell.stripes[0] : cell.stripes[cell.stripes.size() / 2]);
        if (vals && cell.defined && cell.len > 0 && cell.len <= 4 &&
            cell.begin + cell.len <= static_cast<int64_t>(vals->size())) {
          std::string txt, tight;
          for (int64_t i = 0; i < cell.len; ++i) {
            txt += (i ? kValueSep : "") + format_value((*vals)[cell.begin + i]);
            tight += (i ? kValueSepTight : "") + format_value((*vals)[cell.begin + i]);
          }
          // Room for the plate behind text on stripes (3 px a side) and a margin.
          if (float(txt.size()) * lay.char_w <= cell.x1 - cell.x0 - 8) cell.text = txt;
          else if (float(tight.size()) * lay.char_w <= cell.x1 - cell.x0 - 8) cell.text = tight;
          else ++sc.values_hidden;
          cell.value = std::move(txt);
        }
        if (sc.judged && vals && cell.len > 0 && cell.begin + cell.len <= static_cast<int64_t>(vals->size())) {
          std::string want_txt;
          for (const Run& run : st->runs) {
            const int64_t lo = std::max(run.begin, cell.begin), hi = std::min(run.begin + run.len, cell.begin + cell.len);
            if (lo >= hi || !run.defined || run.mask == 0) continue;
            for (int64_t i = lo; i < hi; ++i) {
              contrib.clear();
              for (int q = 0; q < n; ++q)
                if (run.mask >> q & 1) contrib.push_back((*input_vals[static_cast<size_t>(q)])[static_cast<size_t>(i)]);
              const double want = reduce_of(op, contrib), got = (*vals)[static_cast<size_t>(i)];
              if (!want_txt.empty()) want_txt += kValueSep;
              want_txt += format_value(want);
              if (!representable(sp.dtype, want) || !is_wrong(got, want, microddp::error_bound(sp.dtype, op, contrib)))
                continue;
              cell.wrong = true;
              FirstWrongDraw& fw = b == Buf::output ? first_output : sc.first_wrong;
              if (fw.row < 0) {
                fw.row = static_cast<int>(sc.rows.size());
                fw.cell = static_cast<int>(row.cells.size());
                fw.element = i;
                fw.got = got;
                fw.expected = want;
                fw.text = fmt::format("first wrong: R{} {}[{}] = {}, expected {}", r, row.label, i,
                                                  format_value(got), format_value(want));
              }
            }
          }
          if (cell.wrong) {
            cell.expected = std::move(want_txt);
            ++sc.wrong_cells;
          }
        }
        if (b == Buf::output && position == s.num_steps() && cell.len > 0 &&
            r < static_cast<int>(ses.order_dependence().marked.size())) {
          const auto& marks = ses.order_dependence().marked[static_cast<size_t>(r)];
          for (int64_t i = cell.begin; i < cell.begin + cell.len && i < static_cast<int64_t>(marks.size()); ++i)
            cell.order_dependent = cell.order_dependent || marks[static_cast<size_t>(i)] != 0;
          if (cell.order_dependent && sc.order_legend.empty())
            sc.order_legend = "order-dependent (cells with a corner mark): " + ses.order_dependence().first.why;
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
          SwapMarkDraw m;
          m.rank = r;
          m.row_a = std::min(ia, ib);
          m.row_b = std::max(ia, ib);
          m.x0 = rx + lay.tag_w + lay.label_w + cells_w + 4;
          m.x1 = rx + col_w;
          m.y0 = sc.rows[m.row_a].y;
          m.y1 = sc.rows[m.row_b].y + lay.row_h;
          sc.swaps.push_back(m);
        }
      }
    }
  }
  if (first_output.row >= 0) sc.first_wrong = first_output;
  sc.height = group_top + group_h;
  return sc;
}

void merge_unwritten_cells(BuffersScene& sc) {
  const auto unwritten = [](const CellDraw& c) { return !c.defined && c.mask == 0; };
  for (BufferRowDraw& row : sc.rows) {
    std::vector<CellDraw> out;
    for (const CellDraw& c : row.cells) {
      if (!out.empty() && unwritten(c) && unwritten(out.back())) {
        CellDraw& m = out.back();
        m.x1 = c.x1, m.y1 = std::max(m.y1, c.y1), m.len += c.len, m.chunk = -1;
        m.changed = m.changed || c.changed;
      } else {
        out.push_back(c);
      }
    }
    row.cells = std::move(out);
  }
}

std::string received_note(const Session& ses, int position, int r, Buf b) {
  if (!ses.configured() || position <= 0 || position > ses.num_steps()) return "";
  const Schedule& s = ses.schedule();
  if (r < 0 || r >= s.num_endpoints()) return "";
  // The step's first recv, then a swap that renames its buffer.
  Buf got = Buf::input;
  int peer = -1;
  bool renamed = false;
  for (const Op& o : s.steps[static_cast<size_t>(position - 1)].ranks[static_cast<size_t>(r)]) {
    if (o.kind == OpKind::recv && peer < 0) {
      got = o.dst.buf;
      peer = o.peer;
    } else if (o.kind == OpKind::swap && peer >= 0 && !renamed && (o.src.buf == got || o.dst.buf == got)) {
      got = o.src.buf == got ? o.dst.buf : o.src.buf;
      renamed = true;
    }
  }
  if (!renamed || got != b) return "";
  // One rank's input alone in every defined element (the unchunked ring): "T2".
  const BufferState* st = ses.provenance().find(position, r, b);
  uint64_t one = 0;
  bool alone = st && !st->runs.empty();
  for (const Run& run : st ? st->runs : std::vector<Run>{}) {
    alone = alone && run.defined && run.mask != 0 && (run.mask & (run.mask - 1)) == 0 && (one == 0 || run.mask == one);
    one = run.mask;
  }
  int q = 0;
  while (alone && (one >> q) > 1) ++q;
  return alone ? fmt::format("(got T{})", q) : fmt::format("(got {}'s)", endpoint_name(s, peer));
}

BuffersScene build_buffers_arranged(const Session& ses, int position, BuffersLayout& lay, float avail_h) {
  lay.columns = 1;
  BuffersScene sc = build_buffers(ses, position, lay);
  const int n = ses.configured() ? ses.schedule().world_size() : 1;
  for (int c = 2; c <= std::min(n, 4) && sc.height > avail_h; ++c) {
    BuffersLayout l2 = lay;
    l2.columns = c;
    BuffersScene s2 = build_buffers(ses, position, l2);
    float narrowest = 1e9f;
    for (const auto& row : s2.rows)
      for (const auto& cell : row.cells) narrowest = std::min(narrowest, cell.x1 - cell.x0);
    if (s2.values_hidden > sc.values_hidden || narrowest < lay.char_w * 2.5f) break;
    lay = l2;
    sc = std::move(s2);
  }
  return sc;
}

}  // namespace microddp::viz
