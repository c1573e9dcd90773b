// bench's protocol crossovers (bench.h, bench_protocol_crossovers): with
// rows of several protocols, which protocol is fastest at each size,
// measured and predicted, told as the sizes where the winner changes.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/model/bench.h"

namespace microddp {

namespace {
// "ll up to 4096 B, ll128 from 8192 B, simple from 262144 B"
std::string winners_text(const std::vector<std::pair<int64_t, Protocol>>& best) {
  std::string out;
  for (size_t i = 0; i < best.size(); ++i) {
    if (i > 0 && best[i].second == best[i - 1].second) continue;
    size_t last = i;
    while (last + 1 < best.size() && best[last + 1].second == best[i].second) ++last;
    const std::string where = i == 0 ? (last + 1 == best.size() ? "at every size" : fmt::format("up to {} B", best[last].first))
                                     : fmt::format("from {} B", best[i].first);
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name(best[i].second), where);
  }
  return out;
}
}  // namespace

std::string bench_protocol_crossovers(const std::vector<BenchRow>& rows) {
  std::set<Protocol> seen;
  for (const auto& r : rows)
    if (r.backend != "mpi" && r.backend != "nccl" && !r.protocol_auto) seen.insert(r.protocol);
  if (seen.size() < 2) return "";
  // (algorithm, world size) in the rows' order -> size -> protocol -> (measured, predicted)
  std::vector<std::pair<std::string, int>> keys;
  std::map<std::pair<std::string, int>, std::map<int64_t, std::map<Protocol, std::pair<double, double>>>> by;
  for (const auto& r : rows) {
    if (r.backend == "mpi" || r.backend == "nccl" || r.protocol_auto || r.time_us <= 0) continue;
    const auto key = std::make_pair(r.algorithm, r.world_size);
    if (!by.count(key)) keys.push_back(key);
    by[key][r.bytes][r.protocol] = {r.time_us, r.predicted_us};
  }
  std::string out;
  for (const auto& key : keys) {
    std::vector<std::pair<int64_t, Protocol>> measured, predicted;
    bool have_pred = true;
    for (const auto& [bytes, per] : by[key]) {
      if (per.size() < 2) continue;
      auto best_m = per.begin(), best_p = per.begin();
      for (auto it = per.begin(); it != per.end(); ++it) {
        if (it->second.first < best_m->second.first) best_m = it;
        if (it->second.second < 0) have_pred = false;
        else if (it->second.second < best_p->second.second) best_p = it;
      }
      measured.emplace_back(bytes, best_m->first);
      predicted.emplace_back(bytes, best_p->first);
    }
    if (measured.empty()) continue;
    out += fmt::format("# Protocol crossovers  : {} on {} ranks, measured: {}; predicted: {}\n", key.first, key.second,
                       winners_text(measured), have_pred ? winners_text(predicted) : "no model (give --profile)");
  }
  return out;
}

}  // namespace microddp
