// A recorded run's steps replayed from its own snapshots (recorded_replay.h).
#include "core/labs/lesson/recorded_replay.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/exec/rank_program.h"
#include "kernels/cpu/kernels.h"

namespace microddp::lesson {

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Not exact in a snapshot's double: int64 past 2^53.
bool exact(DType t, double v) { return t != DType::int64 || std::fabs(v) <= 9007199254740992.0; }

// One storage of an endpoint during the replay: its elements and whether
// each is known (held by the snapshot, or computed from known values).
struct Storage {
  std::vector<double> v;
  std::vector<char> known;
};

// a OP b in the dtype, as kernels::reduce rounds it; false when a value
// does not fit the dtype (an edited snapshot), so the result is not known.
bool combine(DType t, ReduceOp op, double a, double b, double& out) {
  std::array<std::byte, 16> x{}, y{};
  try {
    kernels::store_double(t, x.data(), 0, a);
    kernels::store_double(t, y.data(), 0, b);
  } catch (const std::exception&) {
    return false;
  }
  kernels::reduce(t, op, x.data(), y.data(), 1);
  out = kernels::load_double(t, x.data(), 0);
  return true;
}

}  // namespace

std::string initial_contradiction(const RunRecord& r) {
  const CollectiveSpec& s = r.spec;
  const Trace& t = r.trace;
  if (!t.snapshots) return "";
  const size_t es = dtype_size(s.dtype);
  for (int q = 0; q < s.world_size && static_cast<size_t>(q) < t.initial.size() && static_cast<size_t>(q) < r.inputs.size();
       ++q) {
    std::vector<std::byte> in = r.inputs[static_cast<size_t>(q)];
    const auto n = static_cast<int64_t>(in.size() / es);
    if (needs_premul(s) && n > 0) kernels::premul_avg(s.dtype, in.data(), in.data(), n, s.world_size);
    const auto& rows = t.initial[static_cast<size_t>(q)].buffers;
    for (size_t b = 0; b < rows.size(); ++b) {
      if (rows[b].buf != Buf::input) continue;
      for (int64_t i = 0; i < n && i < static_cast<int64_t>(rows[b].values.size()); ++i) {
        const double want = kernels::load_double(s.dtype, in.data(), i), got = rows[b].values[static_cast<size_t>(i)];
        if (!same(got, want) && exact(s.dtype, want))
          return fmt::format("trace.initial[{}].buffers[{}].values[{}] (R{}'s input before step 0) = {:g}, but "
                             "inputs[{}][{}] is {:g}{}",
                             q, b, i, q, got, q, i, want, needs_premul(s) ? " after the avg's 1/n scaling" : "");
      }
    }
  }
  return "";
}

std::string replay_contradiction(const RunRecord& r, const Schedule& sch) {
  const Trace& t = r.trace;
  if (!t.snapshots || t.steps.empty()) return "";
  const DType dt = r.spec.dtype;
  const ReduceOp op = r.spec.op;
  const int ne = sch.num_endpoints();
  for (int e = 0; e < ne && static_cast<size_t>(e) < t.initial.size(); ++e) {
    const RankLayout lay = rank_layout(sch, e);
    auto views = lay.view;  // the names' storages, as the swaps leave them
    // Event index of each (step, op): what a recv carried.
    std::map<std::pair<int, int>, size_t> event_of;
    const auto& evs = t.events[static_cast<size_t>(e)];
    for (size_t i = 0; i < evs.size(); ++i) event_of.emplace(std::make_pair(evs[i].step, evs[i].op_index), i);
    for (int s = 0; s < sch.num_steps() && static_cast<size_t>(s) < t.steps.size(); ++s) {
      const RankStepRecord& before = s == 0 ? t.initial[static_cast<size_t>(e)] : t.steps[static_cast<size_t>(s - 1)][static_cast<size_t>(e)];
      const RankStepRecord& after = t.steps[static_cast<size_t>(s)][static_cast<size_t>(e)];
      std::vector<Storage> mem(lay.storage_size.size());
      for (size_t k = 0; k < mem.size(); ++k) {
        mem[k].v.assign(static_cast<size_t>(lay.storage_size[k]), 0.0);
        mem[k].known.assign(static_cast<size_t>(lay.storage_size[k]), 0);
      }
      // The snapshot before the step, each name at its view (a name's
      // storage as the snapshot says; its offset as the layout's swaps give).
      for (const BufferSnapshot& b : before.buffers) {
        const auto& v = views[static_cast<int>(b.buf)];
        if (b.storage < 0 || static_cast<size_t>(b.storage) >= mem.size() || b.storage != v.storage) continue;
        Storage& m = mem[static_cast<size_t>(b.storage)];
        for (size_t i = 0; i < b.values.size(); ++i) {
          const size_t at = static_cast<size_t>(v.offset) + i;
          if (at < m.v.size() && !m.known[at] && exact(dt, b.values[i])) {
            m.v[at] = b.values[i];
            m.known[at] = 1;
          }
        }
      }
      // Element i of name b (at its view now) as a storage slot; null when outside.
      const auto slot = [&](Buf b, int64_t i) -> std::pair<Storage*, size_t> {
        const auto& v = views[static_cast<int>(b)];
        if (v.storage < 0 || static_cast<size_t>(v.storage) >= mem.size() || i < 0 || i >= v.size) return {nullptr, 0};
        Storage& m = mem[static_cast<size_t>(v.storage)];
        const auto at = static_cast<size_t>(v.offset + i);
        return at < m.v.size() ? std::make_pair(&m, at) : std::make_pair(static_cast<Storage*>(nullptr), size_t{0});
      };
      const auto& ops = sch.steps[static_cast<size_t>(s)].ranks[static_cast<size_t>(e)];
      for (size_t k = 0; k < ops.size(); ++k) {
        const Op& o = ops[k];
        if (o.kind == OpKind::send) continue;
        if (o.kind == OpKind::swap) {
          std::swap(views[static_cast<int>(o.src.buf)], views[static_cast<int>(o.dst.buf)]);
          continue;
        }
        const std::vector<double>* got = nullptr;  // a message's carried values
        if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
          const auto it = event_of.find({s, static_cast<int>(k)});
          if (it != event_of.end() && static_cast<size_t>(e) < t.carried.size() && it->second < t.carried[static_cast<size_t>(e)].size() &&
              static_cast<int64_t>(t.carried[static_cast<size_t>(e)][it->second].size()) == o.len)
            got = &t.carried[static_cast<size_t>(e)][it->second];
        }
        // Reads first (a copy within one storage may overlap: memmove).
        std::vector<double> in(static_cast<size_t>(std::max<int64_t>(o.len, 0)));
        std::vector<char> in_known(in.size(), 0);
        for (int64_t i = 0; i < o.len; ++i) {
          if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            if (got && exact(dt, (*got)[static_cast<size_t>(i)])) {
              in[static_cast<size_t>(i)] = (*got)[static_cast<size_t>(i)];
              in_known[static_cast<size_t>(i)] = 1;
            }
          } else if (const auto [m, at] = slot(o.src.buf, o.src.offset + i); m && m->known[at]) {
            in[static_cast<size_t>(i)] = m->v[at];
            in_known[static_cast<size_t>(i)] = 1;
          }
        }
        const bool reduces = o.kind == OpKind::reduce || o.kind == OpKind::recv_reduce;
        for (int64_t i = 0; i < o.len; ++i) {
          const auto [m, at] = slot(o.dst.buf, o.dst.offset + i);
          if (!m) continue;
          const auto j = static_cast<size_t>(i);
          if (!in_known[j] || (reduces && !m->known[at])) {
            m->known[at] = 0;
            continue;
          }
          double x = in[j];
          if (reduces && !combine(dt, op, m->v[at], in[j], x)) {
            m->known[at] = 0;
            continue;
          }
          m->v[at] = x;
          m->known[at] = exact(dt, x);
        }
      }
      // The snapshot after the step against the replay.
      for (size_t b = 0; b < after.buffers.size(); ++b) {
        const BufferSnapshot& row = after.buffers[b];
        const std::string field = fmt::format("trace.steps[{}][{}].buffers[{}]", s, e, b);
        const std::string who = fmt::format("{}'s {} after step {}", endpoint_name(sch, e), name(row.buf), s);
        const auto& v = views[static_cast<int>(row.buf)];
        if (row.storage != v.storage)
          return fmt::format("{}.storage ({}) = {}, but step {}'s swaps leave {} on storage {}", field, who, row.storage, s,
                             name(row.buf), v.storage);
        for (size_t i = 0; i < row.values.size(); ++i) {
          const auto [m, at] = slot(row.buf, static_cast<int64_t>(i));
          if (!m || !m->known[at] || !exact(dt, row.values[i]) || same(row.values[i], m->v[at])) continue;
          return fmt::format("{}.values[{}] ({}) = {:g}, but step {}'s ops on the snapshot before it give {:g}", field, i,
                             who, row.values[i], s, m->v[at]);
        }
      }
    }
  }
  return "";
}

}  // namespace microddp::lesson
