// In-network reduction (core/algorithms/nvls.cpp): the switch endpoint in the
// schedule, the checker, the threads backend (suite executor_nvls, so it also
// runs under ThreadSanitizer), the printer and the refusals; the model in
// tests/core/model/test_nvls_model.cpp (the tsan build links core up to record).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/exec/rank_program.h"
#include "core/ir/checker.h"
#include "core/ir/reference.h"
#include "core/record/printer.h"
#include "core/record/record_io.h"
#ifdef MICRODDP_HAVE_MPI
#include "core/exec/mpi/backend_mpi.h"
#endif

using namespace microddp;

namespace {
CollectiveSpec nvls(int n, int64_t count, DType t = DType::float32, ReduceOp op = ReduceOp::sum, int segments = 1) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "nvls";
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  s.segments = segments;
  return s;
}
// Small integers (times n for avg): every result is exact in every dtype, so
// "equal" means bit-identical whatever the order of the reduction.
RankData exact_inputs(const CollectiveSpec& s) {
  RankData in(s.world_size);
  const int n = s.world_size;
  for (int r = 0; r < n; ++r) {
    in[r].resize(s.count * dtype_size(s.dtype));
    for (int64_t i = 0; i < s.count; ++i) {
      const int64_t h = (r * 7 + i * 3) % 5 - 2;
      double v = static_cast<double>(h);
      if (s.op == ReduceOp::prod) v = (h >= 0 ? 1 : -1) * ((r == 0 && i % 3 == 0) ? 2 : 1);
      if (s.op == ReduceOp::avg) v = static_cast<double>(h * n);
      kernels::store_double(s.dtype, in[r].data(), i, v);
    }
  }
  return in;
}
}  // namespace

TEST_SUITE("nvls") {
  TEST_CASE("the schedule: two steps, one switch endpoint after the ranks, up then down") {
    const Schedule s = make_schedule(nvls(4, 10));
    CHECK(s.switches == 1);
    CHECK(s.num_endpoints() == 5);
    CHECK(s.is_switch(4));
    CHECK_FALSE(s.is_switch(3));
    CHECK(endpoint_name(s, 4) == "SW");
    CHECK(endpoint_name(s, 2) == "R2");
    REQUIRE(s.num_steps() == 2);
    CHECK(s.phases[s.steps[0].phase].name == "up");
    CHECK(s.phases[s.steps[1].phase].name == "down");
    // up: every rank 1 send; the switch n recvs, 1 copy, n-1 reduces in rank order
    for (int r = 0; r < 4; ++r) {
      REQUIRE(s.steps[0].ranks[r].size() == 1);
      CHECK(s.steps[0].ranks[r][0].kind == OpKind::send);
      CHECK(s.steps[0].ranks[r][0].peer == 4);
      REQUIRE(s.steps[1].ranks[r].size() == 1);
      CHECK(s.steps[1].ranks[r][0].kind == OpKind::recv);
    }
    const auto& sw = s.steps[0].ranks[4];
    REQUIRE(sw.size() == 4 + 1 + 3);
    CHECK(sw[4].kind == OpKind::copy);
    for (int q = 1; q < 4; ++q) {
      CHECK(sw[4 + q].kind == OpKind::reduce);
      CHECK(sw[4 + q].src.offset == q * 10);
    }
    CHECK(s.steps[1].ranks[4].size() == 4);  // one send per rank (a real switch multicasts once)
    // the switch owns work buffers only
    const RankLayout L = rank_layout(s, 4);
    CHECK(L.view[static_cast<int>(Buf::input)].size == 0);
    CHECK(L.view[static_cast<int>(Buf::output)].size == 0);
    CHECK(L.view[static_cast<int>(Buf::scratch)].size == 40);
    CHECK(L.view[static_cast<int>(Buf::accum)].size == 10);
    check_schedule(s);
    // one rank: no switch, one local step
    const Schedule one = make_schedule(nvls(1, 5));
    CHECK(one.switches == 0);
    CHECK(one.num_steps() == 1);
    check_schedule(one);
    // segments = 3: the directions overlap, k + 1 steps
    const Schedule seg = make_schedule(nvls(3, 7, DType::float32, ReduceOp::sum, 3));
    REQUIRE(seg.num_steps() == 4);
    CHECK(seg.phases[seg.steps[1].phase].name == "up+down");
    check_schedule(seg);
  }

  TEST_CASE("the checker rejects a switch that sends before it has reduced") {
    CollectiveSpec sp = nvls(2, 4);
    ScheduleBuilder b(sp, 1);
    b.need(2, Buf::accum, 4);
    b.need(2, Buf::scratch, 8);
    b.step("up");
    for (int r = 0; r < 2; ++r) b.transfer(2, r, {Buf::accum, 0}, {Buf::output, 0}, 4);  // sends first: nothing there
    for (int r = 0; r < 2; ++r) b.transfer(r, 2, {Buf::input, 0}, {Buf::scratch, 4 * r}, 4);
    b.copy(2, {Buf::scratch, 0}, {Buf::accum, 0}, 4);
    b.reduce(2, {Buf::scratch, 4}, {Buf::accum, 0}, 4);
    CHECK_THROWS_WITH_AS(check_schedule(b.finish()),
                         "all_reduce nvls out-of-place [2 ranks, count 4]: step 0 (up), the switch, op 0 (send): "
                         "sends accum[0, 4) before it received anything there (a switch forwards only what it has "
                         "received and reduced)",
                         ScheduleError);
    // a switch that forgets rank 1's contribution: the output misses it
    ScheduleBuilder c(sp, 1);
    c.need(2, Buf::accum, 4);
    c.need(2, Buf::scratch, 8);
    c.step("up");
    for (int r = 0; r < 2; ++r) c.transfer(r, 2, {Buf::input, 0}, {Buf::scratch, 4 * r}, 4);
    c.copy(2, {Buf::scratch, 0}, {Buf::accum, 0}, 4);
    c.step("down");
    for (int r = 0; r < 2; ++r) c.transfer(2, r, {Buf::accum, 0}, {Buf::output, 0}, 4);
    CHECK_THROWS_WITH_AS(check_schedule(c.finish()),
                         "all_reduce nvls out-of-place [2 ranks, count 4]: rank 0: output[0, 4) holds {r0[0]} but "
                         "should hold {r0[0], r1[0]}",
                         ScheduleError);
  }

  TEST_CASE("mpi and cuda refuse a schedule with a switch, saying why") {
    const Schedule s = make_schedule(nvls(2, 4));
    CHECK_THROWS_WITH_AS(refuse_switches(s, "mpi"),
                         "algorithm 'nvls' needs a switch endpoint, which only the threads backend runs (as one more "
                         "thread); the mpi backend runs ranks only: use --backend threads",
                         UsageError);
#ifdef MICRODDP_HAVE_MPI
    // before MPI_Init: the refusal comes first on every rank
    CHECK_THROWS_WITH_AS(run_mpi(s, exact_inputs(s.spec)),
                         "algorithm 'nvls' needs a switch endpoint, which only the threads backend runs (as one more "
                         "thread); the mpi backend runs ranks only: use --backend threads",
                         UsageError);
#endif
    CHECK_NOTHROW(refuse_switches(make_schedule(nvls(1, 4)), "mpi"));  // one rank: no switch
    CollectiveSpec two_nodes = nvls(4, 8);
    two_nodes.nodes = 2;
    CHECK_THROWS_WITH_AS(make_schedule(two_nodes),
                         "nodes = 2: nvls reduces inside one node's switch; use hierarchical or ring across nodes",
                         UsageError);
  }

}

TEST_SUITE("executor_nvls") {
  TEST_CASE("threads: bit-exact against the reference, n = 1..9, every dtype x op pair, uneven, in place") {
    // Each (dtype, op) pair once, the world size turning over 1..9 with it:
    // every pair and every n appear without the full product (the matrix of
    // test_matrix.cpp runs nvls over its sizes and counts too).
    int runs = 0;
    for (DType t : all_dtypes())
      for (ReduceOp op : all_ops()) {
        const int n = 1 + runs % 9;
        CollectiveSpec sp = nvls(n, n + 2 + runs % 3, t, op, runs % 4 == 3 ? 2 : 1);
        sp.in_place = runs % 2 == 1;
        CAPTURE(n); CAPTURE(name(t)); CAPTURE(name(op)); CAPTURE(sp.in_place); CAPTURE(sp.count);
        const Schedule s = make_schedule(sp);
        check_schedule(s);
        const RankData in = exact_inputs(sp);
        RunOptions opt;
        opt.mode = runs % 2 ? Mode::free : Mode::lockstep;
        opt.repeat_steps = 0;
        const RunResult res = run_threads(s, in, opt);
        const RankData want = reference_outputs(sp, in);
        REQUIRE(res.outputs.size() == static_cast<size_t>(n));
        for (int r = 0; r < n; ++r) CHECK(res.outputs[r] == want[r]);
        CHECK(verify_outputs(sp, in, res.outputs, want).ok);
        ++runs;
      }
    CHECK(runs == static_cast<int>(all_dtypes().size() * all_ops().size()));
    CHECK(runs >= 9);  // every world size 1..9 had a turn
    // count 0
    const CollectiveSpec zero = nvls(3, 0);
    CHECK(run_threads(make_schedule(zero), exact_inputs(zero)).outputs[2].empty());
  }

  TEST_CASE("threads: bytes up and down per rank, the switch's own, and the printer's SW") {
    const CollectiveSpec sp = nvls(3, 4, DType::int32);
    const Schedule s = make_schedule(sp);
    const RankData in = exact_inputs(sp);
    RunOptions opt;
    opt.repeat_steps = 0;
    const RunResult res = run_threads(s, in, opt);
    const Trace& t = res.trace;
    CHECK(t.world_size == 3);
    CHECK(t.switches == 1);
    REQUIRE(t.bytes_sent.size() == 4);
    for (int r = 0; r < 3; ++r) {
      CHECK(t.bytes_sent[r] == 16);      // S up
      CHECK(t.bytes_received[r] == 16);  // S down
    }
    CHECK(t.bytes_received[3] == 3 * 16);  // the switch took n contributions
    CHECK(t.bytes_sent[3] == 3 * 16);      // and sent one result per rank
    REQUIRE(t.events.size() == 4);
    CHECK(t.events[3].size() == 3 + 1 + 2 + 3);  // recvs, copy, reduces; then the sends
    // the switch's accum after "up" holds the sum of every rank's input
    REQUIRE(t.snapshots);
    const RankData want = reference_outputs(sp, in);
    int32_t sum0 = 0;
    std::memcpy(&sum0, want[0].data(), 4);
    bool found = false;
    for (const auto& b : t.steps[0][3].buffers)
      if (b.buf == Buf::accum) {
        CHECK(b.values[0] == sum0);
        found = true;
      }
    CHECK(found);
    const std::string step0 = format_step(s, t, 0, -1, PrintOptions{});
    CHECK(step0.find("  R0 → SW  send input holding T0 [0, 4)") != std::string::npos);
    CHECK(step0.find("  SW ← R2  recv into scratch holding T2 [8, 12)") != std::string::npos);
    CHECK(step0.find("  SW       reduce scratch into accum [0, 4) holding T1") != std::string::npos);
    CHECK(step0.find("    SW  ") != std::string::npos);  // its buffers after the step
    const std::string step1 = format_step(s, t, 1, -1, PrintOptions{});
    CHECK(step1.find("  SW → R1  send accum [0, 4)") != std::string::npos);
    // a record file keeps the switch's rows after the ranks' and says so
    const std::string path = "/tmp/microddp-test-nvls-record.json";
    save_record(path, RunRecord{sp, in, res.outputs, t, ""});
    const RunRecord back = load_record(path);
    std::remove(path.c_str());
    CHECK(back.trace.switches == 1);
    CHECK(back.trace.events.size() == 4);
    CHECK(back.trace.bytes_sent == t.bytes_sent);
  }
}
