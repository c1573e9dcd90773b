// Chrome / Perfetto trace export. Format: the Trace Event Format
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
// "X" complete events with ts/dur in microseconds, "s"/"f" flow events
// binding a send to its recv, "C" counters, "M" metadata for names.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/record/chrome_trace.h"

#include "core/ir/message_plan.h"

namespace microddp {

namespace {
// Track (tid) per kind of activity inside each rank's process.
enum Track { kStep = 0, kSend = 1, kRecv = 2, kLocal = 3 };
const char* track_name(int t) {
  static const char* n[] = {"step", "send", "recv", "reduce/copy"};
  return n[t];
}
int track_of(OpKind k) {
  switch (k) {
    case OpKind::send: return kSend;
    case OpKind::recv:
    case OpKind::recv_reduce: return kRecv;
    default: return kLocal;
  }
}
double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
}  // namespace

std::string chrome_trace_json(const Schedule& s, const Trace& t, const std::vector<double>& predicted_step_us) {
  using nlohmann::json;
  json ev = json::array();
  // Every endpoint is a process: the ranks, then a schedule's switch
  // endpoints (nvls), named "switch" and sorted after the ranks.
  const int n = static_cast<int>(t.events.size());
  for (int r = 0; r < n; ++r) {
    ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", r},
                  {"args", {{"name", r < t.world_size ? "rank " + std::to_string(r) : endpoint_words(s, r)}}}});
    ev.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", r}, {"args", {{"sort_index", r}}}});
    for (int k = 0; k < 4; ++k)
      ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", r}, {"tid", k * 100}, {"args", {{"name", track_name(k)}}}});
  }
  for (int st = 0; st < static_cast<int>(t.steps.size()); ++st)
    for (int r = 0; r < n; ++r) {
      const auto& rec = t.steps[st][r];
      json args = {{"step", st}, {"phase", s.phases[s.steps[st].phase].name}, {"mode", std::string(name(t.mode))}};
      if (st < static_cast<int>(predicted_step_us.size())) args["predicted_us"] = predicted_step_us[st];
      if (st < static_cast<int>(t.step_timing.size())) {
        const StepTiming& tm = t.step_timing[st];
        args["median_us"] = tm.median_ns / 1e3;
        args["p10_us"] = tm.p10_ns / 1e3;
        args["p90_us"] = tm.p90_ns / 1e3;
        args["repetitions"] = tm.repetitions;
        args["first_run_us"] = tm.first_run_ns / 1e3;
        args["includes_barrier"] = tm.includes_barrier;
      }
      ev.push_back({{"ph", "X"}, {"name", "step " + std::to_string(st) + " (" + s.phases[s.steps[st].phase].name + ")"}, {"cat", "step"},
                    {"pid", r}, {"tid", kStep * 100}, {"ts", us(rec.begin_ns)},
                    {"dur", us(std::max<int64_t>(rec.end_ns - rec.begin_ns, 0))}, {"args", args}});
    }
  // Ops in flight at the same time (segments, a root talking to several
  // children) would overlap on one track, and Perfetto needs the slices of a
  // track to nest: give each overlapping one its own lane (greedy interval
  // colouring), track id = kind * 100 + lane.
  std::vector<std::vector<int>> tid(n);
  for (int r = 0; r < n; ++r) {
    const auto& evs = t.events[r];
    tid[r].assign(evs.size(), 0);
    std::vector<size_t> order(evs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return evs[a].begin_ns < evs[b].begin_ns; });
    std::map<int, std::vector<int64_t>> lane_end;  // per kind track: end of each lane's last slice
    std::set<int> named;
    for (size_t i : order) {
      const int tr = track_of(evs[i].kind);
      auto& lanes = lane_end[tr];
      size_t lane = 0;
      while (lane < lanes.size() && lanes[lane] > evs[i].begin_ns) ++lane;
      if (lane == lanes.size()) lanes.push_back(0);
      lanes[lane] = std::max(evs[i].end_ns, evs[i].begin_ns);
      tid[r][i] = tr * 100 + static_cast<int>(lane);
      if (lane > 0 && named.insert(tid[r][i]).second)
        ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", r}, {"tid", tid[r][i]},
                      {"args", {{"name", std::string(track_name(tr)) + " " + std::to_string(lane + 1)}}}});
    }
  }
  // Flows need the message ids: recompute the plan (cheap, schedule-sized).
  const MessagePlan plan = plan_messages(s);
  int64_t sent = 0;
  std::vector<int64_t> sent_r(n, 0), recv_r(n, 0);
  for (int r = 0; r < n; ++r)
    for (size_t ei = 0; ei < t.events[r].size(); ++ei) {
      const Event& e = t.events[r][ei];
      const int tr = tid[r][ei];
      std::string nm = std::string(name(e.kind));
      if (e.kind == OpKind::send) nm += " → r" + std::to_string(e.peer);
      if (e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) nm += " ← r" + std::to_string(e.peer);
      json args = {{"step", e.step}, {"buffer", std::string(name(e.buf))}, {"offset", e.offset}, {"elements", e.len},
                   {"bytes", e.bytes}};
      if (e.chunk >= 0) args["chunk"] = e.chunk;
      if (e.flags > 0 && t.protocol != Protocol::simple) {  // what ll / ll128 stored for the message
        args["protocol"] = std::string(name(t.protocol));
        args["wire_bytes"] = e.wire_bytes;
        args["flags"] = e.flags;
      }
      if (e.channel >= 0) args["channel"] = e.channel;
      const double ts = us(e.begin_ns), dur = us(std::max<int64_t>(e.end_ns - e.begin_ns, 0));
      ev.push_back({{"ph", "X"}, {"name", nm}, {"cat", std::string(name(e.kind))}, {"pid", r}, {"tid", tr},
                    {"ts", ts}, {"dur", dur}, {"args", args}});
      const int64_t id = plan.msg[e.step][r][e.op_index];
      if (e.kind == OpKind::send) {
        ev.push_back({{"ph", "s"}, {"name", "message"}, {"cat", "flow"}, {"id", id}, {"pid", r}, {"tid", tr},
                      {"ts", ts}});
        sent_r[r] += e.bytes;
        ev.push_back({{"ph", "C"}, {"name", "bytes sent"}, {"pid", r}, {"ts", us(e.end_ns)},
                      {"args", {{"bytes", sent_r[r]}}}});
        sent += e.bytes;
      } else if (e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) {
        // "bp":"e" binds the flow's end to the enclosing slice (this recv).
        ev.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "message"}, {"cat", "flow"}, {"id", id}, {"pid", r},
                      {"tid", tr}, {"ts", ts + dur}});
        recv_r[r] += e.bytes;
        ev.push_back({{"ph", "C"}, {"name", "bytes received"}, {"pid", r}, {"ts", us(e.end_ns)},
                      {"args", {{"bytes", recv_r[r]}}}});
      }
    }
  json doc = {{"traceEvents", ev},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"collective", std::string(name(s.spec.collective))},
                {"algorithm", s.spec.algorithm},
                {"world_size", t.world_size},
                {"switches", t.switches},
                {"count", s.spec.count},
                {"dtype", std::string(name(s.spec.dtype))},
                {"backend", t.backend},
                {"mode", std::string(name(t.mode))},
                {"bytes_sent_total", sent}}}};
  return doc.dump(1);
}

}  // namespace microddp
