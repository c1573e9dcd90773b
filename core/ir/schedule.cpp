#include "core/ir/schedule.h"

#include <fmt/format.h>

namespace microddp {

std::string_view name(Buf b) {
  static constexpr std::string_view n[] = {"input", "output", "send_buff", "recv_buff", "accum", "scratch"};
  return n[static_cast<int>(b)];
}
std::string_view name(OpKind k) {
  static constexpr std::string_view n[] = {"send", "recv", "recv-reduce", "copy", "reduce", "swap"};
  return n[static_cast<int>(k)];
}

std::vector<int64_t> even_chunks(int64_t count, int parts) {
  std::vector<int64_t> off(parts + 1, 0);
  const int64_t base = count / parts, extra = count % parts;
  for (int i = 0; i < parts; ++i) off[i + 1] = off[i] + base + (i < extra ? 1 : 0);
  return off;
}

std::string endpoint_name(const Schedule& s, int e) {
  if (!s.is_switch(e)) return fmt::format("R{}", e);
  return s.switches == 1 ? std::string("SW") : fmt::format("SW{}", e - s.world_size());
}

std::string endpoint_words(const Schedule& s, int e) {
  if (!s.is_switch(e)) return fmt::format("rank {}", e);
  return s.switches == 1 ? std::string("the switch") : fmt::format("switch {}", e - s.world_size());
}

RankLayout rank_layout(const Schedule& s, int r) {
  RankLayout L;
  const auto& spec = s.spec;
  const bool sw = s.is_switch(r);
  const int64_t in = sw ? 0 : spec.input_count(r), out = sw ? 0 : spec.output_count(r);
  if (spec.in_place && !sw) {
    const InPlaceLayout ip = in_place_layout(spec, r);
    const int64_t in_off = ip.input_inside_output ? ip.offset : 0;
    const int64_t out_off = ip.input_inside_output ? 0 : ip.offset;
    L.storage_size.push_back(std::max(in_off + in, out_off + out));
    L.view[static_cast<int>(Buf::input)] = {0, in_off, in};
    L.view[static_cast<int>(Buf::output)] = {0, out_off, out};
    L.storage_size.push_back(0);  // storage 1 unused, keeps numbering fixed
  } else {
    L.storage_size = {in, out};
    L.view[static_cast<int>(Buf::input)] = {0, 0, in};
    L.view[static_cast<int>(Buf::output)] = {1, 0, out};
  }
  for (int b = static_cast<int>(Buf::send_buff); b < kNumBufs; ++b) {
    const int64_t n = s.buffers.empty() ? 0 : s.buffers[r].size[b];
    L.view[b] = {static_cast<int>(L.storage_size.size()), 0, n};
    L.storage_size.push_back(n);
  }
  return L;
}

ScheduleBuilder::ScheduleBuilder(const CollectiveSpec& spec, int switches) {
  if (switches < 0) throw std::logic_error("ScheduleBuilder: negative switch count");
  s_.spec = spec;
  s_.switches = switches;
  s_.buffers.resize(s_.num_endpoints());
  first_.resize(s_.num_endpoints());
}

void ScheduleBuilder::copy_first(int r, BufRange src, BufRange dst, int64_t len, int chunk) {
  if (!same_elements(s_.spec, r, src, dst)) first_.at(r).push_back(Op{OpKind::copy, -1, src, dst, len, chunk, -1});
}

bool same_elements(const CollectiveSpec& s, int r, BufRange a, BufRange b) {
  auto is_io = [](Buf x) { return x == Buf::input || x == Buf::output; };
  if (!s.in_place || !is_io(a.buf) || !is_io(b.buf)) return a.buf == b.buf && a.offset == b.offset;
  const InPlaceLayout ip = in_place_layout(s, r);
  auto abs = [&](BufRange x) {
    const bool shifted = (x.buf == Buf::input) == ip.input_inside_output;
    return (shifted ? ip.offset : 0) + x.offset;
  };
  return abs(a) == abs(b);
}

int ScheduleBuilder::step(const std::string& phase) {
  if (s_.phases.empty() || s_.phases.back().name != phase) s_.phases.push_back({phase});
  Step st;
  st.phase = static_cast<int>(s_.phases.size()) - 1;
  st.ranks.resize(s_.num_endpoints());
  s_.steps.push_back(std::move(st));
  cursor_ = num_steps() - 1;
  return cursor_;
}

void ScheduleBuilder::add(int r, Op op) {
  if (cursor_ < 0 || cursor_ >= num_steps()) throw std::logic_error("ScheduleBuilder: op outside any step");
  s_.steps[cursor_].ranks.at(r).push_back(op);
}

void ScheduleBuilder::send(int r, int to, BufRange src, int64_t len, int chunk, int segment) {
  add(r, Op{OpKind::send, to, src, {}, len, chunk, segment});
}
void ScheduleBuilder::recv(int r, int from, BufRange dst, int64_t len, int chunk, int segment) {
  add(r, Op{OpKind::recv, from, {}, dst, len, chunk, segment});
}
void ScheduleBuilder::transfer(int from, int to, BufRange src, BufRange dst, int64_t len, int chunk, Arrival how) {
  send(from, to, src, len, chunk);
  if (how == Arrival::reduce) recv_reduce(to, from, dst, len, chunk);
  else recv(to, from, dst, len, chunk);
}
void ScheduleBuilder::recv_reduce(int r, int from, BufRange dst, int64_t len, int chunk, int segment) {
  add(r, Op{OpKind::recv_reduce, from, {}, dst, len, chunk, segment});
}
void ScheduleBuilder::copy(int r, BufRange src, BufRange dst, int64_t len, int chunk) {
  add(r, Op{OpKind::copy, -1, src, dst, len, chunk, -1});
}
void ScheduleBuilder::reduce(int r, BufRange src, BufRange dst, int64_t len, int chunk, int segment) {
  add(r, Op{OpKind::reduce, -1, src, dst, len, chunk, segment});
}
void ScheduleBuilder::swap(int r, Buf a, Buf b) { add(r, Op{OpKind::swap, -1, {a, 0}, {b, 0}, 0, -1, -1}); }

void ScheduleBuilder::need(int r, Buf b, int64_t n) {
  if (r < 0) {
    for (auto& p : s_.buffers) p.size[static_cast<int>(b)] = std::max(p.size[static_cast<int>(b)], n);
  } else {
    auto& v = s_.buffers.at(r).size[static_cast<int>(b)];
    v = std::max(v, n);
  }
}

Schedule ScheduleBuilder::finish() {
  bool any = false;
  for (auto& v : first_) any = any || !v.empty();
  if (any) {
    if (s_.steps.empty()) step("copy");
    for (int r = 0; r < s_.num_endpoints(); ++r) {
      auto& ops = s_.steps[0].ranks[r];
      ops.insert(ops.begin(), first_[r].begin(), first_[r].end());
      first_[r].clear();
    }
  }
  return std::move(s_);
}

}  // namespace microddp
