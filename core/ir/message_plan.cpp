#include "core/ir/message_plan.h"

#include <fmt/format.h>

namespace microddp {

MessagePlan plan_messages(const Schedule& s) {
  MessagePlan p;
  const int n = s.num_endpoints();  // ranks and switches
  p.msg.resize(s.num_steps());
  for (int st = 0; st < s.num_steps(); ++st) {
    p.msg[st].resize(n);
    // per link: ids of the sends in order; recvs take them in order
    std::vector<std::vector<std::vector<int64_t>>> link(n, std::vector<std::vector<int64_t>>(n));
    for (int r = 0; r < n; ++r) {
      const auto& ops = s.steps[st].ranks[r];
      p.msg[st][r].assign(ops.size(), -1);
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::send) {
          const int64_t id = p.num_messages++;
          p.msg[st][r][i] = id;
          link[r][ops[i].peer].push_back(id);
          p.src.push_back(r);
          p.dst.push_back(ops[i].peer);
          p.step.push_back(st);
        }
    }
    for (int r = 0; r < n; ++r) {
      std::vector<size_t> next(n, 0);
      const auto& ops = s.steps[st].ranks[r];
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::recv || ops[i].kind == OpKind::recv_reduce) {
          auto& q = link[ops[i].peer][r];
          if (next[ops[i].peer] >= q.size())
            throw ScheduleError(fmt::format("step {}: {} receives from {} which sends nothing matching", st,
                                            endpoint_words(s, r), endpoint_words(s, ops[i].peer)));
          p.msg[st][r][i] = q[next[ops[i].peer]++];
        }
      for (int a = 0; a < n; ++a)
        if (next[a] != link[a][r].size())
          throw ScheduleError(fmt::format("step {}: {} sends to {} which never receives it", st,
                                                endpoint_words(s, a), endpoint_words(s, r)));
    }
  }
  return p;
}

}  // namespace microddp
