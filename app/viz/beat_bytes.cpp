#include "app/viz/beat_bytes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace microddp::viz {

RankBytes rank_bytes(const Schedule& s, int position, size_t elem_bytes) {
  const int n = s.world_size();
  RankBytes b;
  b.sent.assign(static_cast<size_t>(n), 0);
  b.received.assign(static_cast<size_t>(n), 0);
  const int upto = std::clamp(position, 0, s.num_steps());
  for (int st = 0; st < upto; ++st) {
    const Step& step = s.steps[static_cast<size_t>(st)];
    for (int r = 0; r < n && r < static_cast<int>(step.ranks.size()); ++r)
      for (const Op& op : step.ranks[static_cast<size_t>(r)]) {
        const int64_t bytes = op.len * static_cast<int64_t>(elem_bytes);
        if (op.kind == OpKind::send) b.sent[static_cast<size_t>(r)] += bytes;
        if (op.kind == OpKind::recv || op.kind == OpKind::recv_reduce) b.received[static_cast<size_t>(r)] += bytes;
      }
  }
  return b;
}

std::string bytes_line(const Schedule& s, int position, size_t elem_bytes) {
  const RankBytes b = rank_bytes(s, position, elem_bytes);
  std::string out = fmt::format("Bytes per rank after {} of {} steps, sent + received:",
                                std::clamp(position, 0, s.num_steps()), s.num_steps());
  for (size_t r = 0; r < b.sent.size(); ++r)
    out += fmt::format("{} R{} {} + {}", r ? "," : "", r, b.sent[r], b.received[r]);
  if (position >= s.num_steps() || b.sent.empty()) return out;
  const RankBytes all = rank_bytes(s, s.num_steps(), elem_bytes);
  size_t busiest = 0;
  for (size_t r = 1; r < all.sent.size(); ++r)
    if (all.sent[r] + all.received[r] > all.sent[busiest] + all.received[busiest]) busiest = r;
  return out + "; " + whole_run_line(s, static_cast<int>(busiest), elem_bytes);
}

std::string whole_run_line(const Schedule& s, int rank, size_t elem_bytes) {
  const RankBytes all = rank_bytes(s, s.num_steps(), elem_bytes);
  const size_t r = static_cast<size_t>(std::clamp(rank, 0, std::max(s.world_size() - 1, 0)));
  if (r >= all.sent.size()) return "whole run: no ranks";
  return fmt::format("whole run: R{} {} + {} = {}", r, all.sent[r], all.received[r], all.sent[r] + all.received[r]);
}

std::string without_later_answer(const std::string& note, const std::vector<const lesson::Beat*>& later) {
  const size_t at = note.find("; whole run: R");
  if (at == std::string::npos) return note;
  // The three figures after "whole run: Rk ": "a + b = c".
  long long a = 0, b = 0, c = 0;
  const size_t fig = note.find(' ', at + std::string_view("; whole run: R").size());
  if (fig == std::string::npos || std::sscanf(note.c_str() + fig, " %lld + %lld = %lld", &a, &b, &c) != 3) return note;
  for (const lesson::Beat* lb : later) {
    if (!lb || !lb->question || !lb->question->choices.empty()) continue;
    const double v = lb->question->value, tol = std::max(lb->question->tolerance, 1e-9);
    for (long long x : {a, b, c})
      if (std::fabs(v - double(x)) <= tol) {
        const size_t end = note.find(';', at + 1);
        return note.substr(0, at) + (end == std::string::npos ? "" : note.substr(end));
      }
  }
  return note;
}

Stats hold_stats_bytes(Stats st) {
  st.sent.clear();
  st.received.clear();
  st.links.clear();
  st.ports_run.clear();
  st.ports_step.clear();
  st.intra_run = st.inter_run = st.intra_step = st.inter_step = 0;
  st.busiest_rank = -1;
  st.busiest_rank_bytes = 0;
  st.busiest_unique = false;
  st.size_bytes = 0;
  st.algbw_gbps = st.busbw_gbps = 0;
  st.bytes_held = true;
  return st;
}

}  // namespace microddp::viz
