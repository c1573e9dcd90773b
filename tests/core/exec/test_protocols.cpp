// Protocols on the threads backend (core/ir/protocol.h,
// core/exec/threads/protocol_lines.h): every protocol gives the bits the
// simple protocol gives (the same schedule, the same order of reductions)
// and the reference's verdict; flags never let a receiver read a stale word;
// the trace records each message's wire bytes and flags; the MPI backend
// refuses ll / ll128. Suite names start with "executor" so they also run
// under ThreadSanitizer.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/exec/rank_program.h"
#include "core/exec/threads/protocol_lines.h"
#include "core/ir/protocol.h"
#include "core/ir/reference.h"
#include "core/record/data.h"

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, DType t,
                    ReduceOp op = ReduceOp::sum) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  return s;
}
RunResult run(const Schedule& sch, const RankData& in, Protocol p, Mode m = Mode::lockstep, int iterations = 1,
              int sets = 1, const DelayHook* delay = nullptr, int repeat = 0) {
  RunOptions o;
  o.protocol = p;
  o.mode = m;
  o.iterations = iterations;
  o.buffer_sets = sets;
  o.delay = delay;
  o.repeat_steps = repeat;
  o.snapshot_limit = 0;
  return run_threads(sch, in, o);
}
}  // namespace

TEST_SUITE("executor_protocols") {
  TEST_CASE("names: parse and print; a bad name is refused naming it") {
    for (Protocol p : all_protocols()) CHECK(parse_protocol(name(p)) == p);
    CHECK(name(Protocol::ll128) == "ll128");
    try {
      parse_protocol("LL");
      FAIL("no throw");
    } catch (const UsageError& e) {
      CHECK(std::string(e.what()) == "unknown protocol 'LL' (expected one of: simple, ll, ll128)");
    }
  }

  TEST_CASE("wire bytes and flags: ll 2x in 4-byte words, ll128 128/120 in lines, at least one flag") {
    CHECK(wire_bytes(Protocol::simple, 37) == 37);
    CHECK(flag_count(Protocol::simple, 37) == 1);
    CHECK(wire_bytes(Protocol::ll, 4) == 8);
    CHECK(wire_bytes(Protocol::ll, 5) == 16);  // the last word carries 1 byte
    CHECK(flag_count(Protocol::ll, 4000) == 1000);
    CHECK(wire_bytes(Protocol::ll, 4000) == 8000);
    CHECK(wire_bytes(Protocol::ll, 0) == 8);
    CHECK(flag_count(Protocol::ll128, 120) == 1);
    CHECK(flag_count(Protocol::ll128, 121) == 2);
    CHECK(wire_bytes(Protocol::ll128, 4000) == 34 * 128);  // ceil(4000 / 120) = 34 lines
    CHECK(wire_bytes(Protocol::ll128, 0) == 128);
  }

  TEST_CASE("every protocol x algorithms x n = 1..5 x counts {0,1,37,1000} x every dtype: simple's bits, reference's verdict") {
    const std::vector<std::pair<Collective, std::string>> algs = {
        {Collective::all_reduce, "ring"}, {Collective::all_reduce, "recursive_doubling"},
        {Collective::all_reduce, "tree"}, {Collective::all_gather, "ring"}};
    int runs = 0;
    for (const auto& [c, alg] : algs)
      for (int n = 1; n <= 5; ++n)
        for (int64_t count : {0, 1, 37, 1000})
          for (DType t : all_dtypes()) {
            const CollectiveSpec s = spec(c, alg, n, count, t);
            const Schedule sch = make_schedule(s);
            const RankData in = fill_data(s, "random:" + std::to_string(n * 1000 + count));
            const RunResult base = run(sch, in, Protocol::simple);
            const RankData want = reference_outputs(s, in);
            REQUIRE(verify_outputs(s, in, base.outputs, want).ok);
            for (Protocol p : {Protocol::ll, Protocol::ll128}) {
              CAPTURE(name(p));
              CAPTURE(alg);
              CAPTURE(n);
              CAPTURE(count);
              CAPTURE(name(t));
              // free mode on every other case: the steps overlap
              const RunResult got = run(sch, in, p, (n + count) % 2 ? Mode::free : Mode::lockstep);
              REQUIRE(got.trace.protocol == p);
              for (int r = 0; r < n; ++r) REQUIRE(got.outputs[r] == base.outputs[r]);
              REQUIRE(verify_outputs(s, in, got.outputs, want).ok);
              ++runs;
            }
          }
    CHECK(runs == 4 * 5 * 4 * 6 * 2);
  }

  TEST_CASE("iterations, buffer rotation and step repetitions reuse the buffers: flags turn over by generation") {
    const CollectiveSpec s = spec(Collective::all_reduce, "ring", 3, 1000, DType::float32);
    const Schedule sch = make_schedule(s);
    const RankData in = fill_data(s, "random:7");
    const RunResult base = run(sch, in, Protocol::simple);
    for (Protocol p : {Protocol::ll, Protocol::ll128})
      for (Mode m : {Mode::lockstep, Mode::free}) {
        CAPTURE(name(p));
        const RunResult it = run(sch, in, p, m, 4, 3);
        for (int r = 0; r < 3; ++r) CHECK(it.outputs[r] == base.outputs[r]);
        CHECK(it.trace.iteration_ns.size() == 4);
        if (m == Mode::lockstep) {
          const RunResult rep = run(sch, in, p, m, 2, 2, nullptr, 3);
          for (int r = 0; r < 3; ++r) CHECK(rep.outputs[r] == base.outputs[r]);
          CHECK(rep.trace.step_timing.at(0).repetitions == 3);
        }
      }
  }

  TEST_CASE("a delayed sender stops halfway through its message: receivers never take a stale word") {
    for (uint64_t seed = 1; seed <= 24; ++seed) {
      const int n = 2 + static_cast<int>(seed % 3);
      const std::string alg = seed % 2 ? "ring" : "recursive_doubling";
      const CollectiveSpec s = spec(Collective::all_reduce, alg, n, 37 + static_cast<int64_t>(seed), DType::int32);
      const Schedule sch = make_schedule(s);
      const RankData in = fill_data(s, "random:" + std::to_string(seed));
      const RankData want = reference_outputs(s, in);
      DelayHook hook{static_cast<int>(seed % n), seed, 50};
      const Protocol p = seed % 3 == 0 ? Protocol::ll128 : Protocol::ll;
      // iteration 0 polls fresh (zero) buffers, the others last generation's words
      const RunResult res = run(sch, in, p, seed % 2 ? Mode::free : Mode::lockstep, 2, 1, &hook);
      for (int r = 0; r < n; ++r) REQUIRE(res.outputs[r] == want[r]);
    }
  }

  TEST_CASE("the line functions: a half-written message of a new generation is waited for, word by word") {
    // Generation 1 holds A; the writer stores B with flag 2 in two halves,
    // pausing between them, while the reader polls. A stale read would
    // mix A's bytes into the result.
    const int64_t bytes = 1000;
    std::vector<std::byte> a(bytes, std::byte{0xAA}), b(bytes);
    for (int64_t i = 0; i < bytes; ++i) b[i] = static_cast<std::byte>(i * 7 + 1);
    for (Protocol p : {Protocol::ll, Protocol::ll128}) {
      CAPTURE(name(p));
      const int64_t n = flag_count(p, bytes);
      std::vector<std::atomic<uint64_t>> words(static_cast<size_t>(n));
      std::vector<proto::LL128Line> lines(static_cast<size_t>(n));
      const auto store = [&](const std::vector<std::byte>& src, uint32_t flag, int64_t first, int64_t last) {
        if (p == Protocol::ll) proto::ll_store(words.data(), src.data(), bytes, flag, first, last);
        else proto::ll128_store(lines.data(), src.data(), bytes, flag, first, last);
      };
      store(a, 1, 0, n);
      std::atomic<int> waits{0};
      std::vector<std::byte> got(bytes);
      std::atomic<bool> half{false};
      std::thread reader([&] {
        const auto wait = [&](auto&& ready) {
          waits.fetch_add(1);
          while (!ready()) std::this_thread::yield();
        };
        while (!half.load()) std::this_thread::yield();
        if (p == Protocol::ll) proto::ll_load(words.data(), got.data(), bytes, 2, wait);
        else proto::ll128_load(lines.data(), got.data(), bytes, 2, wait);
      });
      store(b, 2, 0, n / 2);
      half.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      store(b, 2, n / 2, n);
      reader.join();
      CHECK(got == b);
      CHECK(waits.load() >= 1);  // it did find the second half not there yet
    }
  }

  TEST_CASE("the trace records each message's wire bytes and flags") {
    // ring all_reduce, n = 2, 1000 float32: two steps, one 2000-byte message each way per step
    const CollectiveSpec s = spec(Collective::all_reduce, "ring", 2, 1000, DType::float32);
    const Schedule sch = make_schedule(s);
    const RankData in = fill_data(s, "iota");
    const std::vector<std::tuple<Protocol, int64_t, int64_t>> want = {
        {Protocol::simple, 2000, 1}, {Protocol::ll, 4000, 500}, {Protocol::ll128, 17 * 128, 17}};
    for (const auto& [p, wire, flags] : want) {
      CAPTURE(name(p));
      RunOptions o;
      o.protocol = p;
      const RunResult res = run_threads(sch, in, o);
      CHECK(res.trace.protocol == p);
      int messages = 0;
      for (const auto& evs : res.trace.events)
        for (const Event& e : evs) {
          if (e.kind == OpKind::send || e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) {
            CHECK(e.bytes == 2000);
            CHECK(e.wire_bytes == wire);
            CHECK(e.flags == flags);
            ++messages;
          } else {
            CHECK(e.wire_bytes == 0);
          }
        }
      CHECK(messages == 8);  // 2 ranks x 2 steps x (send + recv)
    }
  }

  TEST_CASE("mpi and nccl refuse ll and ll128 and say why; simple, threads and cuda pass") {
    CHECK_NOTHROW(check_protocol_supported("mpi", Protocol::simple));
    CHECK_NOTHROW(check_protocol_supported("threads", Protocol::ll128));
    try {
      check_protocol_supported("mpi", Protocol::ll);
      FAIL("no throw");
    } catch (const UsageError& e) {
      const std::string w = e.what();
      CHECK(w.find("--protocol ll: the mpi backend runs simple only: Open MPI moves the bytes with its own protocols") == 0);
      CHECK(w.find("--backend threads") != std::string::npos);
    }
    CHECK_NOTHROW(check_protocol_supported("cuda", Protocol::ll));
    CHECK_NOTHROW(check_protocol_supported("cuda", Protocol::ll128));
    CHECK_THROWS_WITH_AS(check_protocol_supported("gloo", Protocol::ll), "--protocol ll: the gloo backend runs simple only; run --protocol ll on --backend threads or cuda", UsageError);
    try {
      check_protocol_supported("nccl", Protocol::ll128);
    } catch (const UsageError& e) {
      CHECK(std::string(e.what()).find("NCCL_PROTO=LL128") != std::string::npos);
    }
  }
}
