// The trace across processes: every rank's events arrive on rank 0, in the
// threads backend's shape, on one timeline aligned to rank 0's clock, so a
// receive never ends before its send started.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/record/chrome_trace.h"
#include "core/exec/rank_program.h"
#include "tests/mpi/mpi_test_util.h"

using namespace microddp;
using namespace microddp::mpitest;

namespace {

const Event* find_event(const std::vector<Event>& ev, int step, int op_index) {
  for (const Event& e : ev)
    if (e.step == step && e.op_index == op_index) return &e;
  return nullptr;
}

// Runs recorded on MPI; on rank 0 compares the merged trace with a threads
// run of the same schedule and checks the clock alignment message by message.
void check_trace(const CollectiveSpec& s, Mode mode) {
  Schedule sch;
  if (!try_schedule(s, sch)) return;
  const RankData in = mixed_inputs(s, 3);
  RunOptions opt;
  opt.mode = mode;
  const RunResult m = run_mpi(sch, in, opt);
  const int me = mpi_rank(), n = s.world_size;
  CAPTURE(name(s.collective));
  CAPTURE(s.algorithm);
  CAPTURE(name(mode));
  CHECK(m.trace.backend == "mpi");
  CHECK(m.trace.world_size == n);
  CHECK(m.trace.mode == mode);
  const auto& sync = mpi_last_clock_sync();
  if (me != 0) {
    // Other ranks keep their own share.
    CHECK(sync.offset_ns.size() == 1);
    int ops = 0;
    for (const auto& st : sch.steps) ops += static_cast<int>(st.ranks[me].size());
    CHECK(static_cast<int>(m.trace.events[me].size()) == ops);
    return;
  }
  REQUIRE(sync.offset_ns.size() == static_cast<size_t>(n));
  REQUIRE(sync.error_ns.size() == static_cast<size_t>(n));
  CHECK(sync.error_ns[0] == 0);
  for (int r = 0; r < n; ++r) {
    CAPTURE(r);
    CHECK(sync.error_ns[r] >= 0);
    // One machine: the estimate must contain the true offset, 0 (Cristian's bound).
    if (sync.same_clock[r]) {
      CHECK(sync.offset_ns[r] == 0);
      CHECK(std::abs(sync.measured_offset_ns[r]) <= sync.measured_error_ns[r]);
    }
  }

  const RunResult t = run_threads(sch, in, opt);
  CHECK(m.outputs == t.outputs);
  CHECK(m.trace.snapshots == t.trace.snapshots);
  CHECK(m.trace.bytes_sent == t.trace.bytes_sent);
  CHECK(m.trace.bytes_received == t.trace.bytes_received);
  CHECK(m.trace.total_ns > 0);
  for (int r = 0; r < n; ++r) {
    CAPTURE(r);
    REQUIRE(m.trace.events[r].size() == t.trace.events[r].size());
    for (size_t i = 0; i < m.trace.events[r].size(); ++i) {
      const Event &a = m.trace.events[r][i], &b = t.trace.events[r][i];
      CHECK(a.step == b.step);
      CHECK(a.op_index == b.op_index);
      CHECK(a.kind == b.kind);
      CHECK(a.peer == b.peer);
      CHECK(a.bytes == b.bytes);
      CHECK(a.storage == b.storage);
      CHECK(a.begin_ns <= a.end_ns);
    }
    for (int st = 0; st < sch.num_steps(); ++st) {
      const auto &a = m.trace.steps[st][r], &b = t.trace.steps[st][r];
      CHECK(a.begin_ns <= a.end_ns);
      REQUIRE(a.buffers.size() == b.buffers.size());
      for (size_t k = 0; k < a.buffers.size(); ++k) {
        CHECK(a.buffers[k].buf == b.buffers[k].buf);
        CHECK(a.buffers[k].storage == b.buffers[k].storage);
        CHECK(a.buffers[k].values == b.buffers[k].values);  // the same numbers after every step
      }
    }
    REQUIRE(m.trace.initial[r].buffers.size() == t.trace.initial[r].buffers.size());
    for (size_t k = 0; k < m.trace.initial[r].buffers.size(); ++k)
      CHECK(m.trace.initial[r].buffers[k].values == t.trace.initial[r].buffers[k].values);
  }
  // Alignment: each receive ends after its send started, on rank 0's clock.
  const MessagePlan plan = plan_messages(sch);
  int checked = 0;
  for (int st = 0; st < sch.num_steps(); ++st)
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < plan.msg[st][r].size(); ++i) {
        const int64_t id = plan.msg[st][r][i];
        const OpKind k = sch.steps[st].ranks[r][i].kind;
        if (id < 0 || k == OpKind::send) continue;
        const int src = plan.src[id];
        int send_op = -1;
        for (size_t j = 0; j < plan.msg[st][src].size(); ++j)
          if (plan.msg[st][src][j] == id) send_op = static_cast<int>(j);
        const Event* recv = find_event(m.trace.events[r], st, static_cast<int>(i));
        const Event* send = find_event(m.trace.events[src], st, send_op);
        REQUIRE(recv);
        REQUIRE(send);
        CAPTURE(st);
        CAPTURE(src);
        CAPTURE(r);
        // Exact on one machine (shared clock); within the bounds otherwise.
        CHECK(recv->end_ns + sync.error_ns[r] + sync.error_ns[src] >= send->begin_ns);
        ++checked;
      }
  CHECK(checked == plan.num_messages);
  if (mode == Mode::lockstep)
    // Lockstep: step k+1 starts on every rank after step k ended on every rank.
    for (int st = 0; st + 1 < sch.num_steps(); ++st) {
      int64_t end = 0, next = INT64_MAX;
      for (int r = 0; r < n; ++r) {
        end = std::max(end, m.trace.steps[st][r].end_ns);
        next = std::min(next, m.trace.steps[st + 1][r].begin_ns);
      }
      CHECK(next + 2 * sync.max_error_ns >= end);
    }
  const std::string json = chrome_trace_json(sch, m.trace);
  CHECK(json.find("traceEvents") != std::string::npos);
}

}  // namespace

TEST_SUITE("mpi_trace") {
  TEST_CASE("repeat_steps: each step re-run warm K times on every rank, outputs and first run untouched") {
    const int n = mpi_world_size();
    for (const char* alg : {"ring", "tree", "recursive_doubling"}) {
      CollectiveSpec s;
      s.collective = Collective::all_reduce;
      s.algorithm = alg;
      s.world_size = n;
      s.count = 2 * n + 3;
      Schedule sch;
      if (!try_schedule(s, sch)) continue;
      CAPTURE(alg);
      const RankData in = mixed_inputs(s, 7);
      RunOptions opt;
      opt.repeat_steps = 3;
      opt.on_step = [seen = std::make_shared<int>(0)](int st) { CHECK(st == (*seen)++); };
      const RunResult m = run_mpi(sch, in, opt);
      // Every rank holds the timings (rank 0's clock, sent to all).
      REQUIRE(m.trace.step_timing.size() == static_cast<size_t>(sch.num_steps()));
      for (const StepTiming& t : m.trace.step_timing) {
        CHECK(t.repetitions == 3);
        CHECK(t.includes_barrier);
        CHECK(t.first_run_ns > 0);
        CHECK(t.p10_ns > 0);
        CHECK(t.p10_ns <= t.median_ns);
        CHECK(t.median_ns <= t.p90_ns);
      }
      if (mpi_rank() == 0) {
        // The repetitions ran on copies: the outputs are the threads backend's, bit for bit.
        RunOptions plain;
        const RunResult t = run_threads(sch, in, plain);
        for (int r = 0; r < n; ++r) CHECK(m.outputs[r] == t.outputs[r]);
      }
      // Off, and free mode: one cold sample per step, or none.
      opt.repeat_steps = 0;
      opt.on_step = nullptr;
      for (const StepTiming& t : run_mpi(sch, in, opt).trace.step_timing) CHECK(t.repetitions == 0);
      opt.repeat_steps = 3;
      opt.mode = Mode::free;
      CHECK(run_mpi(sch, in, opt).trace.step_timing.empty());
    }
    // auto: at least kRepeatAutoMin, at most kRepeatAutoMax.
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = n;
    s.count = 16;
    RunOptions opt;
    opt.repeat_steps = kRepeatStepsAuto;
    const Schedule sch = make_schedule(s);
    for (const StepTiming& t : run_mpi(sch, mixed_inputs(s, 8), opt).trace.step_timing) {
      CHECK(t.repetitions >= kRepeatAutoMin);
      CHECK(t.repetitions <= kRepeatAutoMax);
    }
  }
  TEST_CASE("ring all_reduce, lockstep, with snapshots: merged, aligned, same as threads") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = mpi_world_size();
    s.count = 2 * s.world_size + 1;
    check_trace(s, Mode::lockstep);
  }
  TEST_CASE("tree all_reduce and halving_doubling, free-running") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.world_size = mpi_world_size();
    s.count = 40;
    s.algorithm = "tree";
    check_trace(s, Mode::free);
    s.algorithm = "halving_doubling";
    check_trace(s, Mode::free);
  }
  TEST_CASE("scatter from the last rank and all_to_all, lockstep") {
    CollectiveSpec s;
    s.collective = Collective::scatter;
    s.algorithm = "binomial";
    s.world_size = mpi_world_size();
    s.root = s.world_size - 1;
    s.count = 3;
    check_trace(s, Mode::lockstep);
    s.collective = Collective::all_to_all;
    s.algorithm = "naive";
    s.root = 0;
    check_trace(s, Mode::lockstep);
  }
  TEST_CASE("on_step: rank 0 sees every step once, in order, between the steps") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring";
    s.world_size = mpi_world_size();
    s.count = 10;
    const Schedule sch = make_schedule(s);
    std::vector<int> seen;
    RunOptions opt;
    opt.on_step = [&](int st) { seen.push_back(st); };
    run_mpi(sch, mixed_inputs(s, 1), opt);
    std::vector<int> want(sch.num_steps());
    for (int i = 0; i < sch.num_steps(); ++i) want[i] = i;
    CHECK(seen == want);
  }
}
