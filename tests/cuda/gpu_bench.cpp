// gpu_bench: the short GPU bench of scripts/gpu-check.sh (its step 4).
// Prints tables; asserts nothing about speed (speed goals are reported, not
// tested). On a machine without a CUDA device it prints
// "SKIPPED: no CUDA device was found: <reason>" and exits 77.
//
// Rows, all in one process on GPU 0 (with one GPU, all ranks share it: every
// "transfer" is a copy inside one GPU's HBM, not NVLink; busbw is not
// comparable to multi-GPU figures):
//  1. d2d copy: cudaMemcpyAsync device-to-device of the largest size, mean of
//     5 timed copies after 2 warm-ups (CUDA events); rate = bytes copied / s
//     (HBM traffic is twice that: read + write).
//  2. Calibration on this GPU, the ping-pong of core/calibrate.h done on the
//     CUDA backend: broadcast between 2 ranks (one message, one step), sizes
//     4 B .. 64 MiB (powers of 4), step time from CUDA events, median of 3
//     runs; fit_message_times() gives α, β. γ: cuda_kernels::reduce (float32
//     sum) over 256 MiB, s per byte of dst; δ: cuda_kernels::copy likewise.
//  3. ring all_reduce, n ranks (default 8), float32 sum, sizes 1 MiB .. max
//     (default 1 GiB per rank), free-running, time = the last of 3 iterations
//     (CUDA events, first step begin to last step end). algbw = S / t, busbw
//     = algbw · 2(n-1)/n (nccl-tests), moved = Σ bytes sent by all ranks / t,
//     and moved / d2d copy rate (the goal: >= 70% at 1 GiB). Outputs
//     are checked on sampled elements (integer-valued inputs: exact sums).
//  4. Per step at the largest size, lockstep: measured (slowest rank) against
//     predict() with the calibrated α, β, γ, δ (fused recv_reduce, as one GPU
//     reduces straight from the sender's buffer), once as the papers' model
//     (one link per rank) and once with the ranks sharing one GPU (cores = 1:
//     a step costs at least the sum of all ranks' byte terms).
//  5. NCCL sanity: ncclAllReduce, world size 1, 256 MiB (capped at max),
//     mean of 5 after 2 warm-ups; output must equal input.
//  6. Protocols: ring all_reduce, n ranks, float32 sum, free-running,
//     --protocol simple / ll / ll128 (core/exec/cuda/cuda_lines.h) at 4 KiB,
//     64 KiB, 1 MiB and 16 MiB (sizes above max left out); time = the last
//     of 5 iterations (CUDA events, as in 3), outputs checked as in 3.
//     Then one line per protocol, "protocol <name> <ok|WRONG> ..."
//     (scripts/gpu-check.sh puts these in its table): its time at the
//     smallest and the largest size, and the ratio to simple's.
// Options: --ranks N (2..64), --max-mib M (1..4096, default 1024).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/cuda/backend_cuda.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "core/exec/executor.h"
#include "kernels/cuda/kernels.h"

using namespace microddp;

namespace {

constexpr int kSkipCode = 77;

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gpu_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

std::string human(int64_t b) {
  char buf[32];
  if (b >= (int64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%g GiB", static_cast<double>(b) / (1 << 30));
  else if (b >= (1 << 20)) std::snprintf(buf, sizeof buf, "%g MiB", static_cast<double>(b) / (1 << 20));
  else if (b >= (1 << 10)) std::snprintf(buf, sizeof buf, "%g KiB", static_cast<double>(b) / (1 << 10));
  else std::snprintf(buf, sizeof buf, "%" PRId64 " B", b);
  return buf;
}

// Mean seconds of `reps` calls of f() on `stream` after `warm` untimed ones.
template <class F>
double time_stream(cudaStream_t stream, int warm, int reps, F f) {
  for (int i = 0; i < warm; ++i) f();
  cudaEvent_t a, b;
  ck(cudaEventCreate(&a), "cudaEventCreate");
  ck(cudaEventCreate(&b), "cudaEventCreate");
  ck(cudaEventRecord(a, stream), "cudaEventRecord");
  for (int i = 0; i < reps; ++i) f();
  ck(cudaEventRecord(b, stream), "cudaEventRecord");
  ck(cudaEventSynchronize(b), "cudaEventSynchronize");
  float ms = 0;
  ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return static_cast<double>(ms) * 1e-3 / reps;
}

int64_t bytes_sent(const Schedule& s) {
  const int64_t es = static_cast<int64_t>(dtype_size(s.spec.dtype));
  int64_t total = 0;
  for (const auto& st : s.steps)
    for (const auto& ops : st.ranks)
      for (const auto& o : ops)
        if (o.kind == OpKind::send) total += o.len * es;
  return total;
}

// Integer-valued float32 inputs: rank r, element i holds (i % 13) + r, so
// the sum over n ranks is exactly n·(i % 13) + n(n-1)/2.
RankData ring_inputs(int n, int64_t count) {
  RankData in(n, std::vector<std::byte>(static_cast<size_t>(count) * 4));
  for (int r = 0; r < n; ++r) {
    auto* p = reinterpret_cast<float*>(in[r].data());
    for (int64_t i = 0; i < count; ++i) p[i] = static_cast<float>(i % 13 + r);
  }
  return in;
}

bool ring_outputs_ok(const RankData& out, int n, int64_t count) {
  const int64_t stride = std::max<int64_t>(1, count / 4099);
  for (int r = 0; r < n; ++r) {
    if (out[r].size() != static_cast<size_t>(count) * 4) return false;
    const auto* p = reinterpret_cast<const float*>(out[r].data());
    for (int64_t i = 0; i < count; i += stride)
      if (p[i] != static_cast<float>(n * (i % 13) + n * (n - 1) / 2)) return false;
    if (p[count - 1] != static_cast<float>(n * ((count - 1) % 13) + n * (n - 1) / 2)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 8;
  int64_t max_mib = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ranks" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--max-mib" && i + 1 < argc) max_mib = std::atoll(argv[++i]);
    else {
      std::fprintf(stderr, "error: unknown option '%s' (gpu_bench [--ranks N] [--max-mib M])\n", a.c_str());
      return 2;
    }
  }
  if (n < 2 || n > 64) { std::fprintf(stderr, "error: --ranks %d is outside 2..64\n", n); return 2; }
  if (max_mib < 1 || max_mib > 4096) {
    std::fprintf(stderr, "error: --max-mib %" PRId64 " is outside 1..4096\n", max_mib);
    return 2;
  }
  std::string why;
  if (!cuda_device_available(&why)) {
    std::printf("SKIPPED: no CUDA device was found: %s\n", why.c_str());
    return kSkipCode;
  }
  const int64_t max_bytes = max_mib << 20;
  cudaDeviceProp prop{};
  ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("gpu_bench: %d GPU(s), GPU 0 = %s (sm_%d%d, %.0f GiB)\n", cuda_device_count(), prop.name, prop.major,
              prop.minor, static_cast<double>(prop.totalGlobalMem) / (1 << 30));
  const std::string note = cuda_placement_note(n);
  if (!note.empty()) std::printf("placement: %s\n", note.c_str());
  ck(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream;
  ck(cudaStreamCreate(&stream), "cudaStreamCreate");

  // 1. d2d copy bandwidth.
  double d2d_Bps = 0;
  {
    void *a = nullptr, *b = nullptr;
    ck(cudaMalloc(&a, max_bytes), "cudaMalloc");
    ck(cudaMalloc(&b, max_bytes), "cudaMalloc");
    ck(cudaMemset(a, 1, max_bytes), "cudaMemset");
    const double t = time_stream(stream, 2, 5, [&] {
      ck(cudaMemcpyAsync(b, a, max_bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    });
    d2d_Bps = static_cast<double>(max_bytes) / t;
    cudaFree(a);
    cudaFree(b);
  }

  // 2. α, β (ping-pong on the CUDA backend), γ, δ (kernels/cuda).
  std::vector<FitPoint> pts;
  for (int64_t bytes = 4; bytes <= (int64_t{64} << 20); bytes *= 4) {
    CollectiveSpec sp;
    sp.collective = Collective::broadcast;
    sp.algorithm = algorithms_for(Collective::broadcast).front();
    sp.world_size = 2;
    sp.count = bytes / 4;
    const Schedule s = make_schedule(sp);
    RankData in(2, std::vector<std::byte>(static_cast<size_t>(bytes)));
    RunOptions opt;
    opt.iterations = 5;
    opt.snapshot_limit = 0;
    std::vector<double> t;
    for (int rep = 0; rep < 3; ++rep) {
      const RunResult res = run_cuda(s, in, opt, false);
      int64_t ns = 0;
      for (int k = 0; k < s.num_steps(); ++k) ns += res.trace.step_ns(k);
      t.push_back(static_cast<double>(ns) * 1e-9 / std::max(1, s.num_steps()));
    }
    std::sort(t.begin(), t.end());
    pts.push_back({bytes, std::max(t[1], 1e-9)});
  }
  const CalibrationFit fit = fit_message_times(pts);
  CostParams p;
  p.name = "cuda-1gpu";
  p.alpha = fit.break_bytes > 0 ? fit.large.alpha : fit.one.alpha;
  p.beta = fit.break_bytes > 0 ? fit.large.beta : fit.one.beta;
  if (fit.break_bytes > 0) {
    p.break_bytes = fit.break_bytes;
    p.alpha_small = fit.small.alpha;
    p.beta_small = fit.small.beta;
  }
  p.fused_recv_reduce = true;
  {
    const int64_t kb = std::min<int64_t>(max_bytes, int64_t{256} << 20);
    void *a = nullptr, *b = nullptr;
    ck(cudaMalloc(&a, kb), "cudaMalloc");
    ck(cudaMalloc(&b, kb), "cudaMalloc");
    ck(cudaMemset(a, 0, kb), "cudaMemset");
    ck(cudaMemset(b, 0, kb), "cudaMemset");
    p.gamma = time_stream(stream, 2, 5, [&] {
      cuda_kernels::reduce(DType::float32, ReduceOp::sum, a, b, kb / 4, stream);
    }) / static_cast<double>(kb);
    p.delta = time_stream(stream, 2, 5, [&] { cuda_kernels::copy(DType::float32, a, b, kb / 4, stream); }) /
              static_cast<double>(kb);
    cudaFree(a);
    cudaFree(b);
  }

  std::printf("\n%-34s %10s %12s %12s\n", "measurement", "size", "time", "rate");
  std::printf("%-34s %10s %10.1f us %8.1f GB/s  (HBM read+write: %.1f GB/s)\n", "d2d copy (cudaMemcpyAsync)",
              human(max_bytes).c_str(), static_cast<double>(max_bytes) / d2d_Bps * 1e6, d2d_Bps / 1e9,
              2 * d2d_Bps / 1e9);
  for (const auto& q : pts)
    std::printf("%-34s %10s %10.2f us %8.2f GB/s\n", "ping-pong (2 ranks, 1 message)", human(q.bytes).c_str(),
                q.seconds * 1e6, static_cast<double>(q.bytes) / q.seconds / 1e9);
  std::printf("fit: alpha = %.2f us, beta = 1/(%.1f GB/s)", p.alpha * 1e6, p.bandwidth() / 1e9);
  if (p.break_bytes > 0)
    std::printf(" (>= %s; below: alpha = %.2f us, 1/(%.1f GB/s))", human(p.break_bytes).c_str(), p.alpha_small * 1e6,
                p.beta_small > 0 ? 1e-9 / p.beta_small : 0.0);
  std::printf(", rms rel. residual %.1f%%\n", 100 * (p.break_bytes > 0 ? fit.large.rms_rel : fit.one.rms_rel));
  std::printf("     gamma = 1/(%.1f GB/s) (float32 sum kernel), delta = 1/(%.1f GB/s) (copy kernel)\n",
              1e-9 / p.gamma, 1e-9 / p.delta);

  // 3. ring all_reduce, n ranks.
  std::printf("\nring all_reduce, %d ranks on %d GPU(s), float32 sum, free-running (last of 3 iterations)\n", n,
              std::min(n, cuda_device_count()));
  std::printf("%10s %5s %12s %12s %12s %12s %9s %7s\n", "size", "steps", "time", "algbw", "busbw", "moved", "moved/d2d",
              "check");
  bool all_ok = true;
  std::vector<int64_t> sizes;
  for (int64_t b = int64_t{1} << 20; b < max_bytes; b *= 16) sizes.push_back(b);
  sizes.push_back(max_bytes);
  for (int64_t bytes : sizes) {
    CollectiveSpec sp;
    sp.collective = Collective::all_reduce;
    sp.algorithm = "ring";
    sp.world_size = n;
    sp.count = bytes / 4;
    const Schedule s = make_schedule(sp);
    const RankData in = ring_inputs(n, sp.count);
    RunOptions opt;
    opt.mode = Mode::free;
    opt.iterations = 3;
    opt.snapshot_limit = 0;
    const RunResult res = run_cuda(s, in, opt, false);
    const bool ok = ring_outputs_ok(res.outputs, n, sp.count);
    all_ok = all_ok && ok;
    const double t = static_cast<double>(res.trace.total_ns) * 1e-9;
    const double algbw = static_cast<double>(bytes) / t;
    const double moved = static_cast<double>(bytes_sent(s)) / t;
    std::printf("%10s %5d %9.1f us %7.1f GB/s %7.1f GB/s %7.1f GB/s %8.0f%% %7s\n", human(bytes).c_str(),
                s.num_steps(), t * 1e6, algbw / 1e9, algbw * busbw_factor(Collective::all_reduce, n) / 1e9,
                moved / 1e9, 100 * moved / d2d_Bps, ok ? "ok" : "WRONG");
  }

  // 4. Per step at the largest size, lockstep.
  {
    CollectiveSpec sp;
    sp.collective = Collective::all_reduce;
    sp.algorithm = "ring";
    sp.world_size = n;
    sp.count = max_bytes / 4;
    const Schedule s = make_schedule(sp);
    const RankData in = ring_inputs(n, sp.count);
    RunOptions opt;
    opt.iterations = 2;
    opt.snapshot_limit = 0;
    const RunResult res = run_cuda(s, in, opt, false);
    all_ok = all_ok && ring_outputs_ok(res.outputs, n, sp.count);
    CostParams shared = p;
    shared.cores = 1;
    const Prediction links = predict(s, p), hbm = predict(s, shared);
    std::printf("\nper step, ring all_reduce %d ranks, %s, lockstep; predicted with the fit above\n", n,
                human(max_bytes).c_str());
    std::printf("%5s %-16s %12s %16s %10s %16s %10s\n", "step", "phase", "measured", "pred (1 link/rk)", "meas/pred",
                "pred (shared GPU)", "meas/pred");
    double sum_m = 0;
    for (int k = 0; k < s.num_steps(); ++k) {
      const double m = static_cast<double>(res.trace.step_ns(k)) * 1e-9;
      sum_m += m;
      const int ph = s.steps[k].phase;
      const std::string phase = ph >= 0 && ph < static_cast<int>(s.phases.size()) ? s.phases[ph].name : "";
      std::printf("%5d %-16s %9.1f us %13.1f us %9.2fx %13.1f us %9.2fx\n", k, phase.c_str(), m * 1e6,
                  links.step_s[k] * 1e6, m / links.step_s[k], hbm.step_s[k] * 1e6, m / hbm.step_s[k]);
    }
    std::printf("%5s %-16s %9.1f us %13.1f us %9.2fx %13.1f us %9.2fx\n", "all", "", sum_m * 1e6,
                links.lockstep_s * 1e6, sum_m / links.lockstep_s, hbm.lockstep_s * 1e6, sum_m / hbm.lockstep_s);
  }

  // 5. NCCL sanity row: ncclAllReduce on one GPU (world size 1).
  {
    CollectiveSpec sp;
    sp.collective = Collective::all_reduce;
    sp.algorithm = "ring";
    sp.world_size = 1;
    const int64_t bytes = std::min<int64_t>(max_bytes, int64_t{256} << 20);
    sp.count = bytes / 4;
    const RankData in = ring_inputs(1, sp.count);
    const NcclLibraryResult r = run_nccl_library(sp, in, 5, 2);
    const bool ok = r.outputs.size() == 1 && r.outputs[0] == in[0];
    all_ok = all_ok && ok;
    std::printf("\n%-34s %10s %10.1f us %8.1f GB/s  algbw (1 rank: a copy)  %s\n", "nccl ncclAllReduce, 1 rank",
                human(bytes).c_str(), r.seconds * 1e6, static_cast<double>(bytes) / r.seconds / 1e9,
                ok ? "ok" : "WRONG");
  }
  // 6. Protocols.
  {
    std::vector<int64_t> psizes;
    for (int64_t b : {int64_t{4} << 10, int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20})
      if (b <= max_bytes) psizes.push_back(b);
    const Protocol protos[] = {Protocol::simple, Protocol::ll, Protocol::ll128};
    std::vector<std::vector<double>> tp(3);
    std::vector<bool> pok(3, true);
    std::printf("\nprotocols: ring all_reduce, %d ranks, float32 sum, free-running (the last of 5 iterations)\n",
                n);
    std::printf("%10s %-8s %12s %12s %12s %10s %7s\n", "size", "protocol", "time", "algbw", "busbw", "vs simple",
                "check");
    for (int64_t bytes : psizes) {
      CollectiveSpec sp;
      sp.collective = Collective::all_reduce;
      sp.algorithm = "ring";
      sp.world_size = n;
      sp.count = bytes / 4;
      const Schedule s = make_schedule(sp);
      const RankData in = ring_inputs(n, sp.count);
      for (int q = 0; q < 3; ++q) {
        RunOptions opt;
        opt.mode = Mode::free;
        opt.protocol = protos[q];
        opt.snapshot_limit = 0;
        opt.iterations = 5;
        const RunResult res = run_cuda(s, in, opt, false);
        const double t = std::max(1e-9, static_cast<double>(res.trace.total_ns) * 1e-9);
        const bool ok = ring_outputs_ok(res.outputs, n, sp.count);
        pok[q] = pok[q] && ok;
        all_ok = all_ok && ok;
        tp[q].push_back(t);
        const double algbw = static_cast<double>(bytes) / t;
        std::printf("%10s %-8s %9.1f us %7.2f GB/s %7.2f GB/s %9.2fx %7s\n", human(bytes).c_str(),
                    std::string(name(protos[q])).c_str(), t * 1e6, algbw / 1e9,
                    algbw * busbw_factor(Collective::all_reduce, n) / 1e9, t / tp[0].back(), ok ? "ok" : "WRONG");
      }
    }
    for (int q = 0; q < 3 && !psizes.empty(); ++q)
      std::printf("protocol %s %s %s %.1f us (%.2fx simple), %s %.1f us (%.2fx simple)\n",
                  std::string(name(protos[q])).c_str(), pok[q] ? "ok" : "WRONG", human(psizes.front()).c_str(),
                  tp[q].front() * 1e6, tp[q].front() / tp[0].front(), human(psizes.back()).c_str(),
                  tp[q].back() * 1e6, tp[q].back() / tp[0].back());
  }
  cudaStreamDestroy(stream);
  std::printf("\ngpu_bench: %s\n", all_ok ? "all outputs correct" : "SOME OUTPUTS WRONG");
  return all_ok ? 0 : 1;
}
