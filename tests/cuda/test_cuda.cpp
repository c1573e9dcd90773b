// CUDA and NCCL backends. Suites other than cuda_nodevice run only on a GPU
// (cuda_main.cpp skips them elsewhere). References: kernels/cpu for the
// kernels (bit for bit), run_threads for the backends (bit for bit).
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/algorithms/registry.h"
#include "core/exec/cuda/backend_cuda.h"
#include "core/exec/executor.h"
#include "kernels/cuda/kernels.h"

using namespace microddp;

namespace {

std::vector<std::byte> random_bytes(DType t, int64_t n, uint64_t seed, bool integer_valued = false) {
  std::mt19937_64 g(seed);
  std::vector<std::byte> v(static_cast<size_t>(n) * dtype_size(t));
  for (int64_t i = 0; i < n; ++i) {
    double x = static_cast<double>(static_cast<int>(g() % 17) - 8);
    if (!integer_valued && is_floating(t)) x += static_cast<double>(g() % 1000) / 997.0;
    kernels::store_double(t, v.data(), i, x);
  }
  return v;
}

// Special values stored as raw bits, so NaN payloads, -0, infinities,
// subnormals and wrapping extremes are covered for every dtype.
std::vector<std::byte> specials(DType t, int64_t n, uint64_t seed) {
  auto v = random_bytes(t, n, seed);
  std::mt19937_64 g(seed * 31 + 7);
  const size_t es = dtype_size(t);
  for (int64_t i = 0; i < n; i += 3) {
    uint64_t bits = g();
    if (t == DType::float16) {
      const uint16_t pool[] = {0x7C01, 0x7E00, 0xFC00, 0x7C00, 0x8000, 0x0000, 0x0001, 0x03FF, 0x7BFF, 0x3C00};
      bits = pool[g() % 10];
    } else if (t == DType::bfloat16) {
      const uint16_t pool[] = {0x7F81, 0x7FC0, 0xFF80, 0x7F80, 0x8000, 0x0000, 0x0001, 0x7F7F, 0x3F80, 0x0080};
      bits = pool[g() % 10];
    } else if (t == DType::float32) {
      const uint32_t pool[] = {0x7F800001u, 0x7FC00000u, 0xFF800000u, 0x7F800000u, 0x80000000u, 0x00000001u, 0x7F7FFFFFu};
      bits = pool[g() % 7];
    } else if (t == DType::float64) {
      const uint64_t pool[] = {0x7FF0000000000001ull, 0xFFF0000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull};
      bits = pool[g() % 4];
    }
    std::memcpy(v.data() + i * es, &bits, es);
  }
  return v;
}

struct Dev {
  void* p = nullptr;
  explicit Dev(size_t bytes) { REQUIRE(cudaMalloc(&p, bytes ? bytes : 16) == cudaSuccess); }
  ~Dev() { cudaFree(p); }
};

}  // namespace

TEST_SUITE("cuda_nodevice") {
  TEST_CASE("without a device, run_cuda says so; with one, it is listed") {
    std::string why;
    const bool have = cuda_device_available(&why);
    CollectiveSpec spec;
    spec.world_size = 2;
    spec.count = 4;
    const Schedule s = make_schedule(spec);
    RankData in(2, std::vector<std::byte>(16));
    if (!have) {
      CHECK(!why.empty());
      CHECK(cuda_device_count() == 0);
      for (bool nccl : {false, true}) {
        try {
          run_cuda(s, in, {}, nccl);
          FAIL("run_cuda did not throw without a device");
        } catch (const UsageError& e) {
          const std::string msg = e.what();
          CHECK(msg.find("no CUDA device was found") != std::string::npos);
        }
      }
      // every protocol is accepted on the cuda backend: the refusal is the device's
      for (Protocol p : {Protocol::ll, Protocol::ll128}) {
        RunOptions opt;
        opt.protocol = p;
        CHECK_THROWS_WITH_AS(run_cuda(s, in, opt, false), doctest::Contains("no CUDA device was found"), UsageError);
      }
      // nccl leaves the protocol to NCCL (NCCL_PROTO): refused before the device is looked for
      RunOptions ll;
      ll.protocol = Protocol::ll;
      CHECK_THROWS_WITH_AS(run_cuda(s, in, ll, true), doctest::Contains("NCCL_PROTO=LL"), UsageError);
    } else {
      CHECK(cuda_device_count() >= 1);
    }
  }
}

TEST_SUITE("cuda_kernels") {
  TEST_CASE("kernels equal kernels/cpu bit for bit, every dtype and op, aligned and not") {
    cudaStream_t st = nullptr;
    for (DType t : {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
      const size_t es = dtype_size(t);
      for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{64}, int64_t{1000}, int64_t{100003}}) {
        for (int shift : {0, 1, 3}) {  // element offsets: 16-byte vectors, then the scalar path
          const auto a = specials(t, n + shift, 11 + n), b = specials(t, n + shift, 23 + n);
          Dev da(a.size()), db(b.size());
          for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
            CAPTURE(static_cast<int>(t)); CAPTURE(n); CAPTURE(shift); CAPTURE(static_cast<int>(op));
            REQUIRE(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice) == cudaSuccess);
            REQUIRE(cudaMemcpy(db.p, b.data(), b.size(), cudaMemcpyHostToDevice) == cudaSuccess);
            auto* dd = static_cast<std::byte*>(da.p) + shift * es;
            auto* ds = static_cast<std::byte*>(db.p) + shift * es;
            cuda_kernels::reduce(t, op, dd, ds, n, st);
            auto cpu = a;
            kernels::reduce(t, op, cpu.data() + shift * es, b.data() + shift * es, n);
            std::vector<std::byte> got(a.size());
            REQUIRE(cudaMemcpy(got.data(), da.p, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK(std::memcmp(got.data(), cpu.data(), got.size()) == 0);
            // in place: dst == src
            cuda_kernels::reduce(t, op, dd, dd, n, st);
            kernels::reduce(t, op, cpu.data() + shift * es, cpu.data() + shift * es, n);
            REQUIRE(cudaMemcpy(got.data(), da.p, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK(std::memcmp(got.data(), cpu.data(), got.size()) == 0);
          }
          // copy
          REQUIRE(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice) == cudaSuccess);
          REQUIRE(cudaMemcpy(db.p, b.data(), b.size(), cudaMemcpyHostToDevice) == cudaSuccess);
          cuda_kernels::copy(t, static_cast<std::byte*>(da.p) + shift * es, static_cast<std::byte*>(db.p) + shift * es, n, st);
          auto cpu = a;
          std::memcpy(cpu.data() + shift * es, b.data() + shift * es, n * es);
          std::vector<std::byte> got(a.size());
          REQUIRE(cudaMemcpy(got.data(), da.p, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
          CHECK(std::memcmp(got.data(), cpu.data(), got.size()) == 0);
          // avg helpers
          for (int w : {1, 3, 8}) {
            REQUIRE(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice) == cudaSuccess);
            auto ref = a;
            auto* dd = static_cast<std::byte*>(da.p) + shift * es;
            if (is_floating(t)) {
              cuda_kernels::premul_avg(t, dd, dd, n, w, st);
              kernels::premul_avg(t, ref.data() + shift * es, ref.data() + shift * es, n, w);
            } else {
              cuda_kernels::finish_avg(t, dd, n, w, st);
              kernels::finish_avg(t, ref.data() + shift * es, n, w);
            }
            REQUIRE(cudaMemcpy(got.data(), da.p, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK(std::memcmp(got.data(), ref.data(), got.size()) == 0);
          }
        }
      }
    }
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
  }

  TEST_CASE("misuse throws std::invalid_argument") {
    Dev d(64);
    CHECK_THROWS_AS(cuda_kernels::reduce(DType::float32, ReduceOp::sum, d.p, d.p, -1, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(cuda_kernels::premul_avg(DType::int32, d.p, d.p, 4, 2, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(cuda_kernels::finish_avg(DType::float32, d.p, 4, 2, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(cuda_kernels::copy(DType::float32, static_cast<char*>(d.p) + 4, d.p, 4, nullptr), std::invalid_argument);
    CHECK_NOTHROW(cuda_kernels::reduce(DType::float32, ReduceOp::sum, nullptr, nullptr, 0, nullptr));
  }
}

namespace {

void compare_with_threads(bool nccl, int max_n) {
  const int devices = cuda_device_count();
  for (Collective c : all_collectives()) {
    for (const std::string& algo : algorithms_for(c)) {
      for (int n = 1; n <= max_n; ++n) {
        if (nccl && n > devices) continue;
        for (int64_t count : {int64_t{0}, int64_t{5}, int64_t{37}}) {
          for (DType t : {DType::int32, DType::float16, DType::float32}) {
            for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::avg}) {
              if (!is_reducing(c) && op != ReduceOp::sum) continue;
              CollectiveSpec spec;
              spec.collective = c;
              spec.algorithm = algo;
              spec.world_size = n;
              spec.count = count;
              spec.dtype = t;
              spec.op = op;
              spec.root = n - 1;
              Schedule s;
              try {
                spec.validate();
                s = make_schedule(spec);
              } catch (const UsageError&) {
                continue;  // combination the algorithm does not offer
              }
              RankData in(n);
              for (int r = 0; r < n; ++r) in[r] = random_bytes(t, spec.input_count(r), 100 * n + r);
              for (Mode mode : {Mode::lockstep, Mode::free}) {
                CAPTURE(std::string(name(c))); CAPTURE(algo); CAPTURE(n); CAPTURE(count);
                CAPTURE(std::string(name(t))); CAPTURE(std::string(name(op))); CAPTURE(static_cast<int>(mode));
                RunOptions opt;
                opt.mode = mode;
                const RunResult want = run_threads(s, in, opt);
                const RunResult got = run_cuda(s, in, opt, nccl);
                REQUIRE(got.outputs.size() == want.outputs.size());
                for (int r = 0; r < n; ++r) CHECK(got.outputs[r] == want.outputs[r]);
                for (int r = 0; r < n; ++r) CHECK(got.inputs_after[r] == want.inputs_after[r]);
                CHECK(got.trace.backend == (nccl ? "nccl" : "cuda"));
                CHECK(got.trace.bytes_sent == want.trace.bytes_sent);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

TEST_SUITE("cuda_backend") {
  TEST_CASE("every collective x algorithm equals the threads backend, n = 1..8") { compare_with_threads(false, 8); }

  TEST_CASE("lockstep snapshots and on_step follow the steps") {
    CollectiveSpec spec;
    spec.world_size = 3;
    spec.count = 6;
    const Schedule s = make_schedule(spec);
    RankData in(3);
    for (int r = 0; r < 3; ++r) in[r] = random_bytes(DType::float32, 6, r, true);
    RunOptions opt;
    int calls = 0;
    opt.on_step = [&](int) { ++calls; };
    const RunResult want = run_threads(s, in, opt);
    const RunResult got = run_cuda(s, in, opt, false);
    CHECK(calls == 2 * s.num_steps());
    REQUIRE(got.trace.snapshots);
    for (int k = 0; k < s.num_steps(); ++k)
      for (int r = 0; r < 3; ++r)
        for (size_t b = 0; b < got.trace.steps[k][r].buffers.size(); ++b)
          CHECK(got.trace.steps[k][r].buffers[b].values == want.trace.steps[k][r].buffers[b].values);
  }
}

// --protocol ll / ll128 on the CUDA backend: kernels store flagged lines into
// the receiver's memory and the receiver's kernel polls them
// (core/exec/cuda/cuda_lines.h). Reference: the threads backend with
// simple (the same bits: same schedule, same reduction order).
namespace {

RunResult check_protocol_run(const CollectiveSpec& spec, Protocol p, Mode mode, int iterations) {
  const int n = spec.world_size;
  const Schedule s = make_schedule(spec);
  RankData in(n);
  for (int r = 0; r < n; ++r) in[r] = specials(spec.dtype, spec.input_count(r), 1000 * n + 17 * r + spec.count);
  RunOptions ref_opt;
  const RunResult want = run_threads(s, in, ref_opt);
  RunOptions opt;
  opt.mode = mode;
  opt.protocol = p;
  opt.iterations = iterations;
  RunResult got = run_cuda(s, in, opt, false);
  REQUIRE(got.outputs.size() == want.outputs.size());
  for (int r = 0; r < n; ++r) CHECK(got.outputs[r] == want.outputs[r]);
  for (int r = 0; r < n; ++r) CHECK(got.inputs_after[r] == want.inputs_after[r]);
  CHECK(got.trace.protocol == p);
  return got;
}

}  // namespace

TEST_SUITE("cuda_protocols") {
  TEST_CASE("ll and ll128: ring all_reduce, every dtype and op, sizes 0..30001, n = 2, 3, 8: the threads bits") {
    for (Protocol p : {Protocol::ll, Protocol::ll128}) {
      for (int n : {2, 3, 8}) {
        for (DType t : {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
          for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
            for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{30001}}) {
              CollectiveSpec spec;
              spec.algorithm = "ring";
              spec.world_size = n;
              spec.count = count;
              spec.dtype = t;
              spec.op = op;
              CAPTURE(std::string(name(p))); CAPTURE(n); CAPTURE(std::string(name(t))); CAPTURE(std::string(name(op)));
              CAPTURE(count);
              // three iterations: flags 1, 2, 3 in the same line buffers
              check_protocol_run(spec, p, count == 1000 ? Mode::lockstep : Mode::free, 3);
            }
          }
        }
      }
    }
  }

  TEST_CASE("ll and ll128: every collective x algorithm, n = 1..5, both modes: the threads bits") {
    for (Protocol p : {Protocol::ll, Protocol::ll128}) {
      for (Collective c : all_collectives()) {
        for (const std::string& algo : algorithms_for(c)) {
          for (int n = 1; n <= 5; ++n) {
            CollectiveSpec spec;
            spec.collective = c;
            spec.algorithm = algo;
            spec.world_size = n;
            spec.count = 61;
            spec.dtype = DType::float32;
            spec.op = ReduceOp::sum;
            spec.root = n - 1;
            try {
              spec.validate();
              const Schedule s = make_schedule(spec);
              if (s.switches > 0) continue;  // the cuda backend refuses switch endpoints
            } catch (const UsageError&) {
              continue;
            }
            for (Mode mode : {Mode::lockstep, Mode::free}) {
              CAPTURE(std::string(name(p))); CAPTURE(std::string(name(c))); CAPTURE(algo); CAPTURE(n);
              CAPTURE(static_cast<int>(mode));
              check_protocol_run(spec, p, mode, 2);
            }
          }
        }
      }
    }
  }

  TEST_CASE("the trace counts each message's wire bytes and flags") {
    CollectiveSpec spec;
    spec.algorithm = "ring";
    spec.world_size = 2;
    spec.count = 250;  // 1000 B: each rank sends two chunks of 500 B
    for (Protocol p : {Protocol::simple, Protocol::ll, Protocol::ll128}) {
      const RunResult got = check_protocol_run(spec, p, Mode::lockstep, 1);
      int messages = 0;
      for (const auto& evs : got.trace.events)
        for (const auto& e : evs)
          if (e.kind == OpKind::send || e.kind == OpKind::recv || e.kind == OpKind::recv_reduce) {
            ++messages;
            CHECK(e.bytes == 500);
            // 500 B: ll 125 words = 1000 B; ll128 5 lines = 640 B; simple 500 B, 1 flag
            CHECK(e.wire_bytes == (p == Protocol::ll ? 1000 : p == Protocol::ll128 ? 640 : 500));
            CHECK(e.flags == (p == Protocol::ll ? 125 : p == Protocol::ll128 ? 5 : 1));
          }
      CHECK(messages == 8);  // 2 ranks x 2 steps x (send + recv)
    }
  }
}

TEST_SUITE("nccl") {
  TEST_CASE("the NCCL backend equals the threads backend (one rank per GPU)") {
    compare_with_threads(true, std::min(8, cuda_device_count()));
  }
  TEST_CASE("more ranks than GPUs is refused with a reason") {
    CollectiveSpec spec;
    spec.world_size = cuda_device_count() + 1;
    spec.count = 4;
    const Schedule s = make_schedule(spec);
    RankData in(spec.world_size, std::vector<std::byte>(16));
    CHECK_THROWS_WITH_AS(run_cuda(s, in, {}, true), doctest::Contains("refuses two ranks on one GPU"), UsageError);
  }
  TEST_CASE("NCCL reference collectives agree with ours on integer-valued inputs") {
    const int n = cuda_device_count();
    for (Collective c : {Collective::all_reduce, Collective::broadcast, Collective::reduce, Collective::all_gather,
                         Collective::reduce_scatter}) {
      for (const std::string& algo : {std::string(""), std::string("ring")}) {
        CollectiveSpec spec;
        spec.collective = c;
        spec.world_size = n;
        spec.count = 1000;
        spec.dtype = DType::float32;
        RankData in(n);
        for (int r = 0; r < n; ++r) in[r] = random_bytes(spec.dtype, spec.input_count(r), 7 + r, true);
        const auto ref = run_nccl_library(spec, in, 2, 1, algo);
        const auto ours = run_threads(make_schedule(spec), in);
        CAPTURE(std::string(name(c)));
        for (int r = 0; r < n; ++r) CHECK(ref.outputs[r] == ours.outputs[r]);
        CHECK(ref.seconds > 0);
      }
    }
  }
}
