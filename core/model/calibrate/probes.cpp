// The probes that calibrate measures on threads: ping-pong, barrier b(n),
// peer wait w(n), reduction γ and copy δ, memory bus B(k); calibrate(),
// which runs them in order, is in calibrate.cpp (core/model/calibrate/calibrate.h).
#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "core/exec/executor.h"
#include "core/ir/limits.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/stats.h"

namespace microddp {

namespace {
using Clock = std::chrono::steady_clock;

// Median seconds of one pass of f over rotating buffers.
template <typename F>
double time_kernel(int64_t bytes, int reps, F&& f) {
  const int pool = 4;
  std::vector<std::vector<float>> src(pool), dst(pool);
  const size_t n = static_cast<size_t>(bytes / 4);
  for (int i = 0; i < pool; ++i) {
    src[i].assign(n, 1.0f + i);
    dst[i].assign(n, 0.5f);
  }
  std::vector<double> t;
  for (int k = 0; k < reps + 2; ++k) {
    const int i = k % pool;
    const auto a = Clock::now();
    f(dst[i].data(), src[i].data(), static_cast<int64_t>(n));
    const double s = std::chrono::duration<double>(Clock::now() - a).count();
    if (k >= 2) t.push_back(s);
  }
  return median(t);
}

// The buffers of the 2-rank probes: K rotating slots of e elements (int32)
// in each rank's input and output (only the shapes matter).
ScheduleBuilder two_rank_slots(int64_t e, int K) {
  CollectiveSpec s;
  s.collective = Collective::broadcast;
  s.algorithm = "naive";
  s.world_size = 2;
  s.count = e * K;
  s.dtype = DType::int32;
  return ScheduleBuilder(s);
}

// The ping-pong over the slots: in step 2j rank 0 sends slot j to rank 1,
// in step 2j + 1 rank 1 sends it back.
Schedule ping_pong(int64_t e, int K) {
  ScheduleBuilder b = two_rank_slots(e, K);
  for (int j = 0; j < K; ++j) {
    b.step("ping");
    b.send(0, 1, {Buf::input, j * e}, e);
    b.recv(1, 0, {Buf::output, j * e}, e);
    b.step("pong");
    b.send(1, 0, {Buf::input, j * e}, e);
    b.recv(0, 1, {Buf::output, j * e}, e);
  }
  return b.finish();
}

// Both at once: in step j both ranks send slot j of their input to the
// other and receive it into slot j of their output.
Schedule exchange(int64_t e, int K) {
  ScheduleBuilder b = two_rank_slots(e, K);
  for (int j = 0; j < K; ++j) {
    b.step("exchange");
    for (int r = 0; r < 2; ++r) {
      b.send(r, 1 - r, {Buf::input, j * e}, e);
      b.recv(r, 1 - r, {Buf::output, j * e}, e);
    }
  }
  return b.finish();
}

// K steps on n ranks, each a ring shift of one int32: rank r sends element
// k of its input to r+1 and receives element k of rank r-1's into its output.
Schedule ring_shift(int n, int K) {
  CollectiveSpec s;
  s.collective = Collective::all_gather;  // only the buffer shapes matter: input K, output n·K
  s.algorithm = "naive";
  s.world_size = n;
  s.count = K;
  s.dtype = DType::int32;
  ScheduleBuilder b(s);
  for (int k = 0; k < K; ++k) {
    b.step("shift");
    for (int r = 0; r < n; ++r) {
      b.send(r, (r + 1) % n, {Buf::input, k}, 1);
      b.recv((r + 1) % n, r, {Buf::output, k}, 1);
    }
  }
  return b.finish();
}

}  // namespace

Schedule empty_steps(int n, int K) {
  CollectiveSpec s;
  s.collective = Collective::barrier;
  s.algorithm = "naive";
  s.world_size = n;
  s.count = 0;
  s.dtype = DType::int32;
  ScheduleBuilder b(s);
  for (int k = 0; k < K; ++k) b.step("barrier");
  return b.finish();
}

namespace {
// Seconds of each of `iters` lockstep iterations of s (after `warm` untimed ones).
std::vector<double> lockstep_iterations_s(const Schedule& s, const RankData& in, int warm, int iters) {
  RunOptions ro;
  ro.mode = Mode::lockstep;
  ro.record = false;
  ro.snapshot_limit = 0;
  ro.iterations = warm + iters;
  const RunResult res = run_threads(s, in, ro);
  std::vector<double> t;
  for (int i = warm; i < ro.iterations; ++i) t.push_back(res.trace.iteration_ns[i] * 1e-9);
  return t;
}
constexpr int kSteps = 32, kIters = 20, kWarm = 3;  // b(n) and w(n) runs: K steps per iteration
}  // namespace

std::vector<double> measure_barrier_s(int max_ranks, int rounds) {
  // per world size, the mode of each round (one short run: one machine state)
  std::vector<std::vector<double>> modes(static_cast<size_t>(std::max(0, max_ranks - 1)));
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (int n = 2; n <= max_ranks; ++n) {
      std::vector<double> v;
      for (double t : lockstep_iterations_s(empty_steps(n, kSteps), RankData(static_cast<size_t>(n)), kWarm, kIters))
        v.push_back(t / (kSteps + 1));
      modes[n - 2].push_back(mode_estimate(v));
    }
  std::vector<double> b;
  for (auto& m : modes) b.push_back(median(m));
  return b;
}

namespace {
// One round of the ring-shift probe: the mode of its per-step times, each
// (iteration - the closing barrier b) / K; one iteration is K steps
// (message + barrier) and the closing barrier.
double ring_shift_round_s(int n, double barrier_s) {
  const RankData in(static_cast<size_t>(n), std::vector<std::byte>(static_cast<size_t>(kSteps) * 4, std::byte{1}));
  std::vector<double> v;
  for (double t : lockstep_iterations_s(ring_shift(n, kSteps), in, kWarm, kIters)) v.push_back((t - barrier_s) / kSteps);
  return mode_estimate(v);
}
}  // namespace

double measure_ring_shift_step_s(int n, double barrier_s, int rounds, double max_seconds) {
  if (n < 2) throw UsageError(fmt::format("ring-shift step: {} ranks (need >= 2)", n));
  std::vector<double> modes;
  const auto start = Clock::now();
  const auto in_budget = [&] {
    return !(max_seconds > 0) || std::chrono::duration<double>(Clock::now() - start).count() < max_seconds;
  };
  while (static_cast<int>(modes.size()) < std::max(1, rounds) && (modes.empty() || in_budget()))
    modes.push_back(ring_shift_round_s(n, barrier_s));
  return median(modes);
}

std::vector<double> measure_peer_wait_s(const std::vector<double>& barrier_s, double message_s, int rounds) {
  const int max_ranks = static_cast<int>(barrier_s.size()) + 1;
  std::vector<std::vector<double>> modes(barrier_s.size());  // per world size, each round's mode
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (int n = 2; n <= max_ranks; ++n) modes[n - 2].push_back(ring_shift_round_s(n, barrier_s[n - 2]));
  std::vector<double> w;
  for (size_t i = 0; i < modes.size(); ++i) w.push_back(std::max(0.0, median(modes[i]) - barrier_s[i] - message_s));
  return w;
}

std::vector<double> measure_mem_bw_Bps(int max_threads, int64_t bytes, int rounds) {
  const int reps = 6;
  const size_t n = static_cast<size_t>(bytes / 4);
  std::vector<std::vector<double>> got(static_cast<size_t>(std::max(0, max_threads)));
  // Two src/dst pairs per thread, used in turn, so no copy finds its data in cache.
  std::vector<std::array<std::vector<float>, 4>> buf(static_cast<size_t>(std::max(0, max_threads)));
  for (auto& b : buf)
    for (int i = 0; i < 4; ++i) b[i].assign(n, 1.0f + i);
  for (int round = 0; round < std::max(1, rounds); ++round)
    for (int k = 1; k <= max_threads; ++k) {
      // Every rep: all k threads start together, one pass each; the rep's
      // wall time is one sample (a rep in which a thread was descheduled is
      // an outlier the median drops, as for δ).
      std::barrier start(k), end(k);
      std::vector<Clock::time_point> t0(static_cast<size_t>(k) * reps), t1(t0.size());
      std::vector<std::thread> th;
      const std::vector<int> cpus = cpus_for_threads(k);  // one core each, as the rank threads
      for (int t = 0; t < k; ++t)
        th.emplace_back([&, t] {
          if (!cpus.empty()) bind_this_thread(cpus[t]);
          auto& b = buf[t];
          for (int r = 0; r < reps; ++r) {
            const int p = 2 * (r % 2);
            start.arrive_and_wait();
            t0[t * reps + r] = Clock::now();
            kernels::copy(DType::float32, b[p + 1].data(), b[p].data(), static_cast<int64_t>(n));
            t1[t * reps + r] = Clock::now();
            end.arrive_and_wait();
          }
        });
      for (auto& t : th) t.join();
      for (int r = 1; r < reps; ++r) {  // rep 0 warms up
        Clock::time_point a = t0[r], z = t1[r];
        for (int t = 1; t < k; ++t) {
          a = std::min(a, t0[t * reps + r]);
          z = std::max(z, t1[t * reps + r]);
        }
        const double sec = std::chrono::duration<double>(z - a).count();
        if (sec > 0) got[k - 1].push_back(2.0 * static_cast<double>(bytes) * k / sec);
      }
    }
  // The best pass, as STREAM reports its best of N trials: the roofline is a
  // ceiling, and a slow pass is a thread that was switched out, not the bus.
  std::vector<double> B;
  for (auto& v : got) B.push_back(v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()));
  return B;
}

double measure_memcpy_Bps(int64_t bytes, int reps) {
  const double s = time_kernel(bytes, reps, [](float* d, const float* src, int64_t n) {
    kernels::copy(DType::float32, d, src, n);
  });
  return s > 0 ? bytes / s : 0;
}

double measure_reduce_Bps(int64_t bytes, int reps) {
  const double s = time_kernel(bytes, reps, [](float* d, const float* src, int64_t n) {
    kernels::reduce(DType::float32, ReduceOp::sum, d, src, n);
  });
  return s > 0 ? bytes / s : 0;
}

int ping_pong_slots(int64_t bytes) {
  const int64_t e = std::max<int64_t>(1, bytes / 4);
  return static_cast<int>(std::clamp<int64_t>((int64_t{32} << 20) / (e * 4), 1, 64));
}

namespace {
// Seconds of every timed step of lockstep runs of s (2 ranks, every input
// of `bytes_per_rank` bytes set to 1), `iters` iterations after `warmup`:
// the gap between consecutive on_step marks (the first step of each
// iteration is left out: its gap holds the iteration's closing barrier).
std::vector<double> step_samples(const Schedule& s, int64_t bytes_per_rank, int warmup, int iters,
                                 Protocol protocol = Protocol::simple) {
  RankData in(2, std::vector<std::byte>(static_cast<size_t>(bytes_per_rank), std::byte{1}));
  std::vector<int64_t> marks(static_cast<size_t>(s.num_steps()) * (warmup + iters), 0);
  int64_t idx = 0;
  RunOptions ro;
  ro.mode = Mode::lockstep;
  ro.record = false;
  ro.protocol = protocol;
  ro.iterations = warmup + iters;
  ro.on_step = [&](int) {
    if (idx < static_cast<int64_t>(marks.size())) marks[idx++] = Clock::now().time_since_epoch().count();
  };
  run_threads(s, in, ro);
  std::vector<double> out;
  const int steps = s.num_steps();
  for (int it = warmup; it < warmup + iters; ++it)
    for (int st = 1; st < steps; ++st) {
      const int64_t a = marks[it * steps + st - 1], b = marks[it * steps + st];
      out.push_back(std::chrono::duration<double>(Clock::duration(b - a)).count());
    }
  return out;
}
}  // namespace

std::vector<double> ping_pong_step_samples(int64_t bytes, int slots, int warmup, int iters, Protocol protocol) {
  const int64_t e = std::max<int64_t>(1, bytes / 4);
  const int K = std::max(1, slots);
  return step_samples(ping_pong(e, K), e * K * 4, warmup, iters, protocol);
}

std::vector<double> slot_step_differences(const std::vector<double>& samples, int steps, int iters, int slots,
                                          int first_slot, int a, int b) {
  std::vector<double> d;
  const auto at = [&](int it, int step) {  // samples[i] is step i + 1 of its iteration
    if (step < 1 || step >= steps)
      throw std::out_of_range(fmt::format("slot_step_differences: step {} is not sampled (1 .. {})", step, steps - 1));
    return samples.at(static_cast<size_t>(it) * static_cast<size_t>(steps - 1) + static_cast<size_t>(step - 1));
  };
  for (int it = 0; it < iters; ++it)
    for (int j = first_slot; j < slots; ++j) d.push_back(at(it, 3 * j + a) - at(it, 3 * j + b));
  return d;
}

namespace {
// The ε and φ probes' shapes: 2 ranks, int32, input 2·K·e and output 4·K·e
// elements per rank (an all_gather's; only the shapes matter).
CollectiveSpec coherence_probe_spec(int64_t e, int K) {
  CollectiveSpec spec;
  spec.collective = Collective::all_gather;
  spec.algorithm = "naive";
  spec.world_size = 2;
  spec.count = 2 * e * K;
  spec.dtype = DType::int32;
  return spec;
}
}  // namespace

double measure_coherence_s_per_byte(int64_t bytes, int slots, int warmup, int iters) {
  const int64_t e = std::max<int64_t>(1, bytes / 4);
  const int K = std::max(2, slots);  // slot 0's first step is not timed (below)
  ScheduleBuilder b(coherence_probe_spec(e, K));
  for (int j = 0; j < K; ++j) {
    b.step("write over what the peer read");
    b.copy(0, {Buf::input, j * e}, {Buf::output, j * e}, e);
    b.step("peer reads");
    b.send(0, 1, {Buf::output, j * e}, e);
    b.recv(1, 0, {Buf::output, j * e}, e);
    b.step("write over what nobody read");  // from a slot of its own, as cold as X's source
    b.copy(0, {Buf::input, (K + j) * e}, {Buf::output, (K + j) * e}, e);
  }
  const Schedule s = b.finish();
  // step_samples leaves out each iteration's step 0 (its gap holds the
  // closing barrier), so slot 0's X step is not timed: slots 1 .. K-1, X step
  // 3j against Z step 3j + 2.
  const std::vector<double> t = step_samples(s, 2 * e * K * 4, warmup, iters);
  const std::vector<double> d = slot_step_differences(t, s.num_steps(), iters, K, 1, 0, 2);
  return d.empty() ? 0.0 : std::max(0.0, median(d)) / static_cast<double>(e * 4);
}

double measure_fresh_read_s_per_byte(int64_t bytes, int slots, int warmup, int iters) {
  const int64_t e = std::max<int64_t>(1, bytes / 4);
  const int K = std::max(2, slots);
  ScheduleBuilder b(coherence_probe_spec(e, K));
  for (int j = 0; j < K; ++j) {
    b.step("sender writes X_j");
    b.copy(0, {Buf::input, j * e}, {Buf::output, j * e}, e);
    b.step("read X_j+1, written one rotation ago");
    b.send(0, 1, {Buf::output, ((j + 1) % K) * e}, e);
    b.recv(1, 0, {Buf::output, j * e}, e);
    b.step("read Z_j, written by nobody");
    b.send(0, 1, {Buf::output, (K + j) * e}, e);
    b.recv(1, 0, {Buf::output, (K + j) * e}, e);
  }
  const Schedule s = b.finish();
  // slot j's fresh read is step 3j + 1, its clean read step 3j + 2 (every
  // slot's: step 0, which step_samples leaves out, is a write)
  const std::vector<double> t = step_samples(s, 2 * e * K * 4, warmup, iters);
  const std::vector<double> d = slot_step_differences(t, s.num_steps(), iters, K, 0, 1, 2);
  return d.empty() ? 0.0 : std::max(0.0, median(d)) / static_cast<double>(e * 4);
}

double measure_exchange_step_s(int64_t bytes, int rounds) {
  const int64_t e = std::max<int64_t>(1, bytes / 4);
  const int K = ping_pong_slots(bytes);
  std::vector<double> all;
  for (int r = 0; r < std::max(1, rounds); ++r) {
    const std::vector<double> got = step_samples(exchange(e, K), e * K * 4, 3, 20);
    all.insert(all.end(), got.begin(), got.end());
  }
  return mode_estimate(all);
}

double measure_message_step_s(int64_t bytes, int rounds) {
  std::vector<double> all;
  for (int r = 0; r < std::max(1, rounds); ++r) {
    const std::vector<double> got = ping_pong_step_samples(bytes, ping_pong_slots(bytes), 3, 20);
    all.insert(all.end(), got.begin(), got.end());
  }
  return mode_estimate(all);
}

}  // namespace microddp
