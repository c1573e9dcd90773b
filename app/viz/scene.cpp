#include "app/viz/scene.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/algorithms/registry.h"

namespace microddp::viz {

namespace {
constexpr float kPi = 3.14159265358979f;

std::vector<Rgba> stripes_for(uint64_t mask, int n, bool complete) {
  if (complete) return {complete_color()};
  std::vector<Rgba> out;
  for (int r = 0; r < n; ++r)
    if (mask >> r & 1) out.push_back(rank_color(r));
  if (out.empty()) out.push_back(empty_color());
  return out;
}

bool is_complete(const CollectiveSpec& s, uint64_t mask) {
  return is_reducing(s.collective) && s.world_size > 1 && mask == all_ranks(s.world_size);
}

}  // namespace

Vec2 bezier(Vec2 a, Vec2 c, Vec2 b, float t) {
  const float u = 1 - t;
  return Vec2{u * u * a.x + 2 * u * t * c.x + t * t * b.x, u * u * a.y + 2 * u * t * c.y + t * t * b.y};
}

// The registry's layout hint (core/algorithms/registry.h) decides; an
// unknown algorithm is drawn on a circle.
TopologyKind topology_kind(const CollectiveSpec& s) {
  switch (layout_of(s)) {
    case Layout::ring: return TopologyKind::ring;
    case Layout::tree:
    case Layout::binomial_tree: return TopologyKind::tree;
    case Layout::hypercube: return TopologyKind::hypercube;
    case Layout::star: return TopologyKind::star;
    case Layout::none: return TopologyKind::circle;
  }
  return TopologyKind::circle;
}

std::string_view name(TopologyKind k) {
  switch (k) {
    case TopologyKind::ring: return "ring";
    case TopologyKind::tree: return "tree";
    case TopologyKind::star: return "star";
    case TopologyKind::hypercube: return "hypercube pairs";
    case TopologyKind::circle: return "circle";
  }
  return "?";
}

TopologyScene build_topology(const Session& ses, int position, Vec2 size, float t) {
  TopologyScene sc;
  sc.size = size;
  if (!ses.configured()) return sc;
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const int n = sp.world_size;
  sc.kind = topology_kind(sp);
  const float w = std::max(size.x, 40.f), h = std::max(size.y, 40.f);
  const float cx = w / 2, cy = h / 2;
  // Node radius: room for a label, shrinking with the world size.
  float radius = std::clamp(std::min(w, h) * 0.42f * std::sin(kPi / std::max(n, 2)) * 0.55f, 7.f,
                            std::min(w, h) * 0.085f);
  std::vector<Vec2> pos(n);
  const float margin = radius + 6;
  auto on_circle = [&](int i, int m, float R, float cxx, float cyy, float offset = 0) {
    const float ang = -kPi / 2 + offset + 2 * kPi * float(i) / float(std::max(m, 1));
    return Vec2{cxx + R * std::cos(ang), cyy + R * std::sin(ang)};
  };
  const float R = std::max(std::min(w, h) / 2 - margin - 4, 1.f);
  switch (sc.kind) {
    case TopologyKind::ring:
    case TopologyKind::circle:
      for (int r = 0; r < n; ++r) pos[r] = n == 1 ? Vec2{cx, cy} : on_circle(r, n, R, cx, cy);
      if (sc.kind == TopologyKind::ring && n > 1)
        for (int r = 0; r < n; ++r) sc.links.push_back({r, (r + 1) % n});
      break;
    case TopologyKind::star:
      pos[sp.root] = Vec2{cx, cy};
      for (int v = 1; v < n; ++v) {
        const int r = (v + sp.root) % n;
        pos[r] = on_circle(v - 1, n - 1, R, cx, cy, n == 3 ? kPi / 2 : 0);
        sc.links.push_back({sp.root, r});
      }
      break;
    case TopologyKind::tree: {
      const Tree tr = make_tree(layout_of(sp) == Layout::binomial_tree ? Layout::binomial_tree : Layout::tree, n);
      int max_depth = 0;
      for (int v = 0; v < n; ++v) max_depth = std::max(max_depth, tr.depth[v]);
      // Leaves left to right in depth-first order; parents centred above.
      std::vector<float> xs(n, 0);
      float next_leaf = 0;
      std::function<void(int)> place = [&](int v) {
        if (tr.children[v].empty()) {
          xs[v] = next_leaf++;
          return;
        }
        float sum = 0;
        for (int c : tr.children[v]) {
          place(c);
          sum += xs[c];
        }
        xs[v] = sum / float(tr.children[v].size());
      };
      place(0);
      const float leaves = std::max(next_leaf - 1, 1.f);
      for (int v = 0; v < n; ++v) {
        const int r = (v + sp.root) % n;
        const float fx = n == 1 ? 0.5f : xs[v] / leaves;
        const float fy = max_depth == 0 ? 0.5f : float(tr.depth[v]) / float(max_depth);
        pos[r] = Vec2{margin + fx * (w - 2 * margin), margin + fy * (h - 2 * margin)};
        if (tr.parent[v] >= 0) sc.links.push_back({(tr.parent[v] + sp.root) % n, r});
      }
      const float dx = (w - 2 * margin) / std::max(leaves + 1, 2.f);
      const float dy = (h - 2 * margin) / std::max(float(max_depth) + 1, 2.f);
      radius = std::max(7.f, std::min({radius, dx * 0.42f, dy * 0.4f}));
      break;
    }
    case TopologyKind::hypercube: {
      // Bits 0, 2, 4.. choose the column, bits 1, 3, 5.. the row: partners of
      // each exchange distance (1, 2, 4, ...) line up horizontally or vertically.
      int bits = 0;
      while ((1 << bits) < n) ++bits;
      const int colbits = (bits + 1) / 2, rowbits = bits / 2;
      const int cols = 1 << colbits, rows = 1 << rowbits;
      for (int r = 0; r < n; ++r) {
        int c = 0, rw = 0;
        for (int b = 0; b < bits; ++b)
          if (r >> b & 1) {
            if (b % 2 == 0) c |= 1 << (b / 2);
            else rw |= 1 << (b / 2);
          }
        const float fx = cols == 1 ? 0.5f : float(c) / float(cols - 1);
        const float fy = rows == 1 ? 0.5f : float(rw) / float(rows - 1);
        pos[r] = Vec2{margin + fx * (w - 2 * margin), margin + fy * (h - 2 * margin)};
        for (int b = 0; b < bits; ++b)
          if (!(r >> b & 1) && (r | 1 << b) < n) sc.links.push_back({r, r | 1 << b});
      }
      radius = std::max(7.f, std::min({radius, (w - 2 * margin) / float(cols) * 0.3f,
                                       (h - 2 * margin) / float(rows) * 0.3f}));
      break;
    }
  }
  for (int r = 0; r < n; ++r) sc.nodes.push_back(NodeDraw{r, pos[r], radius, rank_color(r), r == sp.root &&
                                                          sc.kind != TopologyKind::ring, false});

  const int nsteps = s.num_steps();
  if (nsteps == 0) {
    sc.caption = fmt::format("{} - no steps", sp.algorithm);
    return sc;
  }
  sc.shown_step = position > 0 ? std::min(position, nsteps) - 1 : 0;
  sc.upcoming = position == 0;
  const auto& prov = ses.provenance();
  const std::string& phase = s.phases[s.steps[sc.shown_step].phase].name;
  sc.caption = sc.upcoming ? fmt::format("next: step 0 of {} ({})", nsteps, phase)
                           : fmt::format("step {} of {} ({})", sc.shown_step, nsteps, phase);
  const size_t es = dtype_size(sp.dtype);
  const auto& trs = prov.transfers[sc.shown_step];
  std::map<std::pair<int, int>, int> per_link;  // transfers on a link so far (segments)
  std::map<std::pair<int, int>, int> link_total;
  for (const Transfer& x : trs) ++link_total[{x.from, x.to}];
  const float bw = std::clamp(radius * 1.3f, 16.f, 40.f), bh = std::clamp(radius * 0.6f, 9.f, 20.f);
  for (const Transfer& x : trs) {
    ArrowDraw a;
    a.from = x.from;
    a.to = x.to;
    a.chunk = x.chunk;
    a.segment = x.segment;
    a.len = x.len;
    a.bytes = x.len * static_cast<int64_t>(es);
    a.mask = x.mask;
    a.complete = is_complete(sp, x.mask);
    a.stripes = stripes_for(x.mask, n, a.complete);
    sc.nodes[x.from].busy = sc.nodes[x.to].busy = true;
    const Vec2 p = pos[x.from], q = pos[x.to];
    const float dx = q.x - p.x, dy = q.y - p.y;
    const float len = std::max(std::sqrt(dx * dx + dy * dy), 1e-3f);
    const float ux = dx / len, uy = dy / len;
    // Bend every arrow to its own right: two opposite transfers on one pair
    // of ranks separate instead of overlapping.
    const float bend = std::min(len * 0.12f, radius * 1.2f) + 4;
    a.a = Vec2{p.x + ux * (radius + 3), p.y + uy * (radius + 3)};
    a.b = Vec2{q.x - ux * (radius + 5), q.y - uy * (radius + 5)};
    a.ctrl = Vec2{(a.a.x + a.b.x) / 2 - uy * bend, (a.a.y + a.b.y) / 2 + ux * bend};
    const int k = per_link[{x.from, x.to}]++, m = link_total[{x.from, x.to}];
    // Segments of one link travel one behind the other.
    const float tt = m > 1 ? std::clamp(t + (float(m - 1) / 2 - float(k)) * 0.12f, 0.f, 1.f) : t;
    a.badge = bezier(a.a, a.ctrl, a.b, tt);
    a.badge_w = bw;
    a.badge_h = bh;
    sc.arrows.push_back(std::move(a));
  }
  return sc;
}

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

TimelineScene build_timeline(const Session& ses) {
  TimelineScene sc;
  if (!ses.configured()) return sc;
  const Schedule& s = ses.schedule();
  const Trace& tr = ses.trace();
  const int done = ses.steps_run();
  const auto& pred = ses.prediction();
  sc.compressed = ses.params().mode == Mode::lockstep;
  sc.mode_label = sc.compressed ? "lockstep (barrier after each step; idle time between Step clicks removed)"
                                : "free-running (each rank runs ahead as its data arrives)";
  // Display axis: lockstep steps laid end to end; free-running: raw times.
  std::vector<double> origin(done, 0), step_begin(done, 0);
  double cursor = 0;
  for (int k = 0; k < done; ++k) {
    int64_t b = INT64_MAX, e = 0;
    for (const auto& rr : tr.steps[k]) {
      b = std::min(b, rr.begin_ns);
      e = std::max(e, rr.end_ns);
    }
    if (b == INT64_MAX) b = e = 0;
    StepSpan span;
    span.step = k;
    span.measured_us = tr.step_ns(k) / 1e3;
    span.predicted_us = pred.available && k < static_cast<int>(pred.step_us.size()) ? pred.step_us[k] : -1;
    if (sc.compressed) {
      origin[k] = cursor - b / 1e3;
      span.begin_us = cursor;
      const double width = std::max({(e - b) / 1e3, span.predicted_us, 0.001});
      span.end_us = cursor + width;
      cursor = span.end_us + width * 0.05;
    } else {
      span.begin_us = b / 1e3;
      span.end_us = e / 1e3;
      cursor = std::max(cursor, span.end_us);
    }
    step_begin[k] = span.begin_us;
    sc.steps.push_back(span);
  }
  sc.span_us = std::max(cursor, 0.001);
  for (int r = 0; r < static_cast<int>(tr.events.size()); ++r)
    for (const Event& ev : tr.events[r]) {
      if (ev.step >= done || ev.end_ns < ev.begin_ns) continue;
      TimelineBar bar;
      bar.rank = r;
      bar.step = ev.step;
      bar.kind = ev.kind;
      bar.peer = ev.peer;
      bar.bytes = ev.bytes;
      bar.dur_us = (ev.end_ns - ev.begin_ns) / 1e3;
      bar.begin_us = ev.begin_ns / 1e3 + (sc.compressed ? origin[ev.step] : 0);
      bar.end_us = bar.begin_us + bar.dur_us;
      sc.bars.push_back(bar);
    }
  (void)s;
  (void)step_begin;
  return sc;
}

double bus_factor(Collective c, int n) {
  switch (c) {
    case Collective::all_reduce: return n > 0 ? 2.0 * (n - 1) / n : 0;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::gather:
    case Collective::scatter:
    case Collective::all_to_all: return n > 0 ? double(n - 1) / n : 0;
    case Collective::broadcast:
    case Collective::reduce: return 1;
    case Collective::barrier: return 0;
  }
  return 1;
}

int64_t algbw_size_bytes(const CollectiveSpec& s) {
  const int64_t es = static_cast<int64_t>(dtype_size(s.dtype));
  switch (s.collective) {
    case Collective::barrier: return 0;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::all_reduce: return s.count * es;
    case Collective::all_to_all: return s.count * s.world_size * es;
    default: return s.total() * es;
  }
}

Stats build_stats(const Session& ses) {
  Stats st;
  if (!ses.configured()) return st;
  const Schedule& s = ses.schedule();
  const int n = s.world_size();
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  st.steps = s.num_steps();
  st.steps_run = ses.steps_run();
  st.finished = st.steps_run == st.steps;
  st.sent.assign(n, 0);
  st.received.assign(n, 0);
  std::map<std::pair<int, int>, int64_t> links;
  for (const Step& step : s.steps)
    for (int r = 0; r < n; ++r)
      for (const Op& o : step.ranks[r]) {
        if (o.kind == OpKind::send) {
          st.sent[r] += o.len * es;
          links[{r, o.peer}] += o.len * es;
        } else if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
          st.received[r] += o.len * es;
        }
      }
  for (auto& [k, b] : links) st.links.push_back({k.first, k.second, b});
  std::stable_sort(st.links.begin(), st.links.end(), [](const LinkStat& a, const LinkStat& b) { return a.bytes > b.bytes; });
  for (int r = 0; r < n; ++r)
    if (st.sent[r] + st.received[r] > st.busiest_rank_bytes || st.busiest_rank < 0) {
      st.busiest_rank = r;
      st.busiest_rank_bytes = st.sent[r] + st.received[r];
    }
  int ties = 0;
  for (int r = 0; r < n; ++r) ties += st.sent[r] + st.received[r] == st.busiest_rank_bytes;
  st.busiest_unique = ties == 1;
  st.measured_us = ses.measured_ns() / 1e3;
  st.size_bytes = algbw_size_bytes(s.spec);
  st.bus_factor = bus_factor(s.spec.collective, n);
  if (st.finished && st.measured_us > 0) {
    st.algbw_gbps = double(st.size_bytes) / (st.measured_us * 1e-6) / 1e9;
    st.busbw_gbps = st.algbw_gbps * st.bus_factor;
  }
  const auto& pred = ses.prediction();
  if (pred.available) {
    st.predicted_us = pred.total_us;
    if (st.finished && pred.total_us > 0) st.error_pct = (st.measured_us - pred.total_us) / pred.total_us * 100;
  }
  return st;
}

}  // namespace microddp::viz
