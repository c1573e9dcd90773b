// The stats panel's scene (panel_stats.cpp draws it).
#include <algorithm>
#include <map>

#include "app/viz/scene.h"
#include "core/model/cost_model.h"

namespace microddp::viz {

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
  st.size_bytes = bench_bytes(s.spec);
  st.bus_factor = busbw_factor(s.spec.collective, n);
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
