// Which send each recv matches: the pairing rule of core/ir/schedule.h
// (same step, same link, in program order), computed once per schedule and
// used by every executor and by the trace export's flow arrows.
#pragma once
#include <cstdint>
#include <vector>

#include "core/ir/schedule.h"

namespace microddp {

// Message ids: every send op in a schedule gets a dense id; its matching
// recv gets the same id. Built once per schedule.
struct MessagePlan {
  // msg[step][endpoint][op_index] = message id, or -1 for local ops (endpoints:
  // ranks, then switches; core/ir/schedule.h)
  std::vector<std::vector<std::vector<int64_t>>> msg;
  int64_t num_messages = 0;
  std::vector<int> src, dst;  // per message id: endpoints
  std::vector<int> step;      // per message id
};
MessagePlan plan_messages(const Schedule& s);  // throws ScheduleError on an unmatched send/recv

}  // namespace microddp
