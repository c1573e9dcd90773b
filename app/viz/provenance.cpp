#include "app/viz/provenance.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/ir/limits.h"

namespace microddp::viz {

static_assert(kMaxViewRanks <= 64, "provenance keeps one bit per rank in a uint64_t mask");
namespace {

using Runs = std::vector<Run>;

struct Storage {
  int64_t size = 0;
  Runs runs;  // covering [0, size)
};

void split_at(Runs& rs, int64_t pos) {
  auto it = std::upper_bound(rs.begin(), rs.end(), pos, [](int64_t p, const Run& r) { return p < r.begin; });
  if (it == rs.begin()) return;
  --it;
  if (it->begin == pos || pos >= it->begin + it->len) return;
  Run right = *it;
  right.begin = pos;
  right.len = it->begin + it->len - pos;
  it->len = pos - it->begin;
  rs.insert(it + 1, right);
}

Runs read(Storage& st, int64_t off, int64_t len) {
  Runs out;
  if (len <= 0) return out;
  split_at(st.runs, off);
  split_at(st.runs, off + len);
  for (const Run& r : st.runs)
    if (r.begin >= off && r.begin < off + len) {
      out.push_back(r);
      out.back().begin -= off;
    }
  return out;
}

void merge_adjacent(Runs& rs) {
  Runs out;
  for (const Run& r : rs) {
    if (r.len == 0) continue;
    if (!out.empty() && out.back().mask == r.mask && out.back().defined == r.defined &&
        out.back().begin + out.back().len == r.begin)
      out.back().len += r.len;
    else
      out.push_back(r);
  }
  rs = std::move(out);
}

void write(Storage& st, int64_t off, const Runs& data) {
  int64_t len = 0;
  for (const Run& r : data) len += r.len;
  if (len == 0) return;
  split_at(st.runs, off);
  split_at(st.runs, off + len);
  auto first = std::find_if(st.runs.begin(), st.runs.end(), [&](const Run& r) { return r.begin >= off; });
  auto last = std::find_if(first, st.runs.end(), [&](const Run& r) { return r.begin >= off + len; });
  Runs repl = data;
  for (Run& r : repl) r.begin += off;
  auto pos = st.runs.erase(first, last);
  st.runs.insert(pos, repl.begin(), repl.end());
  merge_adjacent(st.runs);
}

// dst = dst OP src, as contributor sets: the union.
void reduce_into(Storage& st, int64_t off, const Runs& src) {
  int64_t pos = off;
  for (const Run& s : src) {
    Runs dst = read(st, pos, s.len);
    for (Run& d : dst) {
      d.mask |= s.mask;
      d.defined = d.defined && s.defined;
    }
    write(st, pos, dst);
    pos += s.len;
  }
}

struct PendingRecv {
  int peer, storage;
  int64_t off, len;
  bool reduce;
  int ordinal;
  bool done = false;
};

bool overlaps(const PendingRecv& p, int storage, int64_t off, int64_t len) {
  return p.storage == storage && len > 0 && p.len > 0 && off < p.off + p.len && p.off < off + len;
}

}  // namespace

const BufferState* Provenance::find(int k, int rank, Buf buf) const {
  if (k < 0 || k >= static_cast<int>(at.size()) || rank < 0 || rank >= static_cast<int>(at[k].size())) return nullptr;
  for (const BufferState& b : at[k][rank])
    if (b.buf == buf) return &b;
  return nullptr;
}

RangeProvenance range_provenance(const BufferState& b, int64_t begin, int64_t len) {
  RangeProvenance out;
  bool first = true;
  for (const Run& r : b.runs) {
    if (r.begin + r.len <= begin || r.begin >= begin + len) continue;
    if (!first && r.mask != out.mask) out.uniform = false;
    out.common = first ? r.mask : out.common & r.mask;
    out.mask |= r.mask;
    out.defined = out.defined && r.defined;
    first = false;
  }
  if (first) out.defined = false;
  return out;
}

Provenance compute_provenance(const Schedule& s) {
  const int n = s.world_size();
  if (n > kMaxViewRanks)
    throw std::invalid_argument("provenance colours support up to " + std::to_string(kMaxViewRanks) + " ranks, not " +
                                std::to_string(n));
  // Every endpoint: the ranks, then the switches (which reduce and forward
  // what the ranks send them, and own no input).
  const int ne = s.num_endpoints();
  Provenance pv;
  pv.world_size = n;
  pv.endpoints = ne;
  std::vector<RankLayout> layout;
  std::vector<std::vector<Storage>> mem(ne);
  for (int r = 0; r < ne; ++r) {
    layout.push_back(rank_layout(s, r));
    for (int64_t sz : layout[r].storage_size) {
      Storage st;
      st.size = sz;
      if (sz > 0) st.runs.push_back(Run{0, sz, 0, false});
      mem[r].push_back(std::move(st));
    }
    const auto& v = layout[r].view[static_cast<int>(Buf::input)];
    if (r < n && v.size > 0) write(mem[r][v.storage], v.offset, {Run{0, v.size, uint64_t{1} << r, true}});
  }

  auto snapshot = [&]() {
    std::vector<std::vector<BufferState>> ranks(ne);
    for (int r = 0; r < ne; ++r)
      for (int b = 0; b < kNumBufs; ++b) {
        const auto& v = layout[r].view[b];
        if (v.size <= 0) continue;
        BufferState bs{static_cast<Buf>(b), v.storage, v.size, read(mem[r][v.storage], v.offset, v.size)};
        merge_adjacent(bs.runs);
        ranks[r].push_back(std::move(bs));
      }
    pv.at.push_back(std::move(ranks));
  };
  snapshot();

  for (int step = 0; step < s.num_steps(); ++step) {
    const Step& st = s.steps[step];
    std::vector<size_t> pc(ne, 0);
    // sent[a][b] = captured data of the sends from a to b, in post order
    std::vector<std::vector<std::vector<Runs>>> sent(ne, std::vector<std::vector<Runs>>(ne));
    std::vector<std::vector<int>> recv_count(ne, std::vector<int>(ne, 0));
    std::vector<std::vector<PendingRecv>> recvs(ne);
    std::vector<Transfer> transfers;
    std::vector<bool> swapped(ne, false);

    auto try_complete = [&](int r, PendingRecv& p) {
      if (p.done) return true;
      auto& q = sent[p.peer][r];
      if (p.ordinal >= static_cast<int>(q.size())) return false;
      if (p.reduce) reduce_into(mem[r][p.storage], p.off, q[p.ordinal]);
      else write(mem[r][p.storage], p.off, q[p.ordinal]);
      p.done = true;
      return true;
    };
    auto resolve = [&](int r, BufRange br) {
      const auto& v = layout[r].view[static_cast<int>(br.buf)];
      return std::pair<int, int64_t>{v.storage, v.offset + br.offset};
    };

    bool stuck = false;
    while (true) {
      bool progress = false, all_done = true;
      for (int r = 0; r < ne; ++r) {
        const auto& ops = st.ranks[r];
        while (pc[r] < ops.size()) {
          const Op& o = ops[pc[r]];
          if (o.kind == OpKind::send) {
            auto [sto, off] = resolve(r, o.src);
            Runs data = read(mem[r][sto], off, o.len);
            uint64_t mask = 0, common = data.empty() ? 0 : ~uint64_t{0};
            for (const Run& x : data) mask |= x.mask, common &= x.mask;
            transfers.push_back(
                Transfer{r, o.peer, static_cast<int>(pc[r]), o.chunk, o.segment, o.len, mask, o.channel, common});
            sent[r][o.peer].push_back(std::move(data));
          } else if (o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
            auto [sto, off] = resolve(r, o.dst);
            recvs[r].push_back(PendingRecv{o.peer, sto, off, o.len, o.kind == OpKind::recv_reduce,
                                           recv_count[o.peer][r]++});
          } else if (o.kind == OpKind::swap) {
            std::swap(layout[r].view[static_cast<int>(o.src.buf)], layout[r].view[static_cast<int>(o.dst.buf)]);
            swapped[r] = true;
          } else {
            auto [ss, so] = resolve(r, o.src);
            auto [ds, dof] = resolve(r, o.dst);
            bool ready = true;
            for (PendingRecv& p : recvs[r])
              if (!p.done && (overlaps(p, ss, so, o.len) || overlaps(p, ds, dof, o.len)) && !try_complete(r, p)) {
                ready = false;
                break;
              }
            if (!ready) break;
            Runs data = read(mem[r][ss], so, o.len);
            if (o.kind == OpKind::copy) write(mem[r][ds], dof, data);
            else reduce_into(mem[r][ds], dof, data);
          }
          ++pc[r];
          progress = true;
        }
        if (pc[r] < ops.size()) all_done = false;
        else
          for (PendingRecv& p : recvs[r])
            if (!p.done && try_complete(r, p)) progress = true;
      }
      if (!progress) {
        stuck = !all_done;
        break;
      }
    }
    pv.transfers.push_back(std::move(transfers));
    pv.swapped.push_back(std::move(swapped));
    snapshot();
    if (stuck) {  // an unchecked schedule: repeat the last state
      for (int k = step + 1; k < s.num_steps(); ++k) {
        pv.transfers.emplace_back();
        pv.swapped.emplace_back(ne, false);
        pv.at.push_back(pv.at.back());
      }
      break;
    }
  }
  return pv;
}

}  // namespace microddp::viz
