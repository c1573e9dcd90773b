// The CUDA and NCCL backends (core/backend_cuda.h). One host thread enqueues
// every rank's ops onto per-rank streams; cross-rank order comes from CUDA
// events (simple) or from flags polled by kernels (ll, ll128: CudaLines), so
// the GPUs run free unless lockstep asks the host to wait. Here: the
// executor's set-up, run and timing; one step's enqueueing is in
// cuda_runner_steps.cpp (the executor itself: cuda_runner.h).
#include "core/exec/cuda/backend_cuda.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/exec/cuda/cuda_internal.h"
#include "core/exec/cuda/cuda_lines.h"
#include "core/exec/cuda/cuda_runner.h"
#include "core/exec/rank_program.h"
#include "core/ir/checker.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/proto_lines.h"

namespace microddp {
using namespace cuda_detail;

namespace cuda_detail {

void Runner::setup(const RankData& inputs) {
  const auto& sp = s.spec;
  check_inputs(s, inputs);
  dev.resize(n);
  for (int r = 0; r < n; ++r) dev[r] = r % ndev;
  // Peer access between every pair of GPUs in use (ignore "already enabled").
  const int used = std::min(n, ndev);
  for (int a = 0; a < used; ++a)
    for (int b = 0; b < used; ++b) {
      int ok = 0;
      if (a != b && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess && ok) {
        cudaSetDevice(a);
        cudaDeviceEnablePeerAccess(b, 0);
        cudaGetLastError();
      }
    }
  layout.resize(n);
  storage.resize(n);
  staging.assign(n, nullptr);
  stream.resize(n);
  comm_stream.assign(n, nullptr);
  tev.resize(n);
  tev_used.assign(n, 0);
  for (int r = 0; r < n; ++r) {
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    ck(cudaStreamCreateWithFlags(&stream[r], cudaStreamNonBlocking), "cudaStreamCreate");
    if (nccl) ck(cudaStreamCreateWithFlags(&comm_stream[r], cudaStreamNonBlocking), "cudaStreamCreate");
    layout[r] = rank_layout(s, r);
    for (int64_t sz : layout[r].storage_size) {
      void* p = nullptr;
      if (sz > 0) ck(cudaMalloc(&p, static_cast<size_t>(sz) * es), "cudaMalloc");
      storage[r].push_back(static_cast<std::byte*>(p));
    }
    int64_t stage = 0;
    for (const auto& step : s.steps)
      for (const Op& op : step.ranks[r])
        if ((op.kind == OpKind::recv_reduce) &&
            (nccl || opt.protocol != Protocol::simple || dev[op.peer] != dev[r]))
          stage = std::max(stage, op.len);
    if (stage > 0) {
      void* p = nullptr;
      ck(cudaMalloc(&p, static_cast<size_t>(stage) * es), "cudaMalloc");
      staging[r] = static_cast<std::byte*>(p);
    }
    const auto& iv = layout[r].view[static_cast<int>(Buf::input)];
    if (iv.size > 0) {
      std::byte* ip = storage[r][iv.storage] + iv.offset * es;
      ck(cudaMemcpy(ip, inputs[r].data(), inputs[r].size(), cudaMemcpyHostToDevice), "cudaMemcpy to device");
      if (needs_premul(sp)) cuda_kernels::premul_avg(sp.dtype, ip, ip, iv.size, n, stream[r]);
    }
  }
  ev_sent.resize(plan.num_messages);
  ev_done.resize(plan.num_messages);
  for (int64_t m = 0; m < plan.num_messages; ++m) {
    ck(cudaSetDevice(dev[plan.src[m]]), "cudaSetDevice");
    ck(cudaEventCreateWithFlags(&ev_sent[m], cudaEventDisableTiming), "cudaEventCreate");
    ck(cudaSetDevice(dev[plan.dst[m]]), "cudaSetDevice");
    ck(cudaEventCreateWithFlags(&ev_done[m], cudaEventDisableTiming), "cudaEventCreate");
  }
  if (nccl) comms = std::make_unique<Comms>(n);
  if (opt.protocol != Protocol::simple) lines = std::make_unique<CudaLines>(s, plan, opt.protocol, dev, es);
  // Same shape as run_threads'; snapshots need the host to see the GPUs
  // between steps, so free-running runs keep none.
  trace = new_trace(s, opt, nccl ? "nccl" : "cuda");
  if (opt.mode != Mode::lockstep) trace.snapshots = false;
  const bool small = trace.snapshots;
  st.resize(n);
  for (int r = 0; r < n; ++r) st[r].views = layout[r].view;
  if (small) {
    for (int r = 0; r < n; ++r) snapshot(r, trace.initial[r], true);
  }
  sync_all();
  start.resize(ndev);
  for (int d = 0; d < std::min(n, ndev); ++d) {
    ck(cudaSetDevice(d), "cudaSetDevice");
    ck(cudaEventCreate(&start[d]), "cudaEventCreate");
    ck(cudaEventRecord(start[d], stream[d]), "cudaEventRecord");
  }
}

void Runner::sync_all() {
  for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
  if (nccl)
    for (int r = 0; r < n; ++r) ck(cudaStreamSynchronize(comm_stream[r]), "cudaStreamSynchronize");
  if (lines) lines->check_errors();
}

void Runner::snapshot(int r, RankStepRecord& out, bool make) {
  std::vector<std::byte> host;
  for (int b = 0; b < kNumBufs; ++b) {
    const auto& v = make ? layout[r].view[b] : st[r].views[b];
    if (layout[r].view[b].size == 0) continue;
    if (make) out.buffers.push_back({static_cast<Buf>(b), v.storage, std::vector<double>(v.size)});
    auto it = std::find_if(out.buffers.begin(), out.buffers.end(), [&](const BufferSnapshot& x) { return x.buf == static_cast<Buf>(b); });
    if (it == out.buffers.end()) continue;
    it->storage = v.storage;
    host.resize(it->values.size() * es);
    ck(cudaMemcpy(host.data(), storage[r][v.storage] + v.offset * es, host.size(), cudaMemcpyDeviceToHost), "cudaMemcpy snapshot");
    for (size_t i = 0; i < it->values.size(); ++i) it->values[i] = kernels::load_double(s.spec.dtype, host.data(), static_cast<int64_t>(i));
  }
}

int64_t Runner::time_of(int r, int idx) {
  if (idx < 0) return 0;
  float ms = 0;
  ck(cudaSetDevice(dev[r]), "cudaSetDevice");
  ck(cudaEventElapsedTime(&ms, start[dev[r]], tev[r][idx]), "cudaEventElapsedTime");
  return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
}

RunResult Runner::run() {
  const int iters = std::max(1, opt.iterations);
  for (int it = 0; it < iters; ++it) {
    flag = proto_lines::flag_for(static_cast<uint32_t>(it));
    for (int r = 0; r < n; ++r) st[r].views = layout[r].view;
    step_marks_.clear();
    for (int r = 0; r < n; ++r) tev_used[r] = 0;
    for (int k = 0; k < s.num_steps(); ++k) {
      run_step(k);
      if (opt.mode == Mode::lockstep) {
        sync_all();
        if (it == iters - 1 && trace.snapshots)
          for (int r = 0; r < n; ++r) snapshot(r, trace.steps[k][r], false);
        if (opt.on_step && it == iters - 1) opt.on_step(k);
      }
    }
    sync_all();
  }
  RunResult res;
  if (rec) {
    for (int r = 0; r < n; ++r) {
      auto& ev = trace.events[r];
      ev.clear();
    }
    int64_t first = INT64_MAX, last = 0;
    for (const auto& m : step_marks_) {
      auto& srec = trace.steps[m.k][m.r];
      srec.begin_ns = time_of(m.r, m.b);
      srec.end_ns = time_of(m.r, m.e);
      first = std::min(first, srec.begin_ns);
      last = std::max(last, srec.end_ns);
      const auto& ops = s.steps[m.k].ranks[m.r];
      for (size_t i = 0; i < ops.size(); ++i) {
        const Op& o = ops[i];
        Event e;
        e.step = m.k;
        e.op_index = static_cast<int>(i);
        e.kind = o.kind;
        e.peer = o.peer;
        const bool writes = o.kind != OpKind::send;
        e.buf = writes ? o.dst.buf : o.src.buf;
        e.offset = writes ? o.dst.offset : o.src.offset;
        e.len = o.len;
        e.bytes = o.kind == OpKind::swap ? 0 : o.len * static_cast<int64_t>(es);
        e.chunk = o.chunk;
        e.channel = o.channel;
        if (o.kind == OpKind::send || o.kind == OpKind::recv || o.kind == OpKind::recv_reduce) {
          e.wire_bytes = wire_bytes(opt.protocol, e.bytes);
          e.flags = flag_count(opt.protocol, e.bytes);
        }
        e.begin_ns = time_of(m.r, m.ops[i].first);
        e.end_ns = std::max(e.begin_ns, time_of(m.r, m.ops[i].second));
        trace.events[m.r].push_back(e);
      }
    }
    if (!step_marks_.empty()) trace.total_ns = last - first;
  }
  const auto& sp = s.spec;
  res.outputs.resize(n);
  res.inputs_after.resize(n);
  for (int r = 0; r < n; ++r) {
    ck(cudaSetDevice(dev[r]), "cudaSetDevice");
    const auto& ov = layout[r].view[static_cast<int>(Buf::output)];
    if (ov.size > 0) {
      std::byte* p = storage[r][ov.storage] + ov.offset * es;
      if (needs_finish_avg(sp)) cuda_kernels::finish_avg(sp.dtype, p, ov.size, n, stream[r]);
      ck(cudaStreamSynchronize(stream[r]), "cudaStreamSynchronize");
      res.outputs[r].resize(ov.size * es);
      ck(cudaMemcpy(res.outputs[r].data(), p, res.outputs[r].size(), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    }
    const auto& iv = layout[r].view[static_cast<int>(Buf::input)];
    if (iv.size > 0 && !needs_premul(sp)) {
      res.inputs_after[r].resize(iv.size * es);
      ck(cudaMemcpy(res.inputs_after[r].data(), storage[r][iv.storage] + iv.offset * es, res.inputs_after[r].size(),
                    cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    }
  }
  res.trace = std::move(trace);
  return res;
}

Runner::~Runner() {
  comms.reset();
  for (size_t r = 0; r < stream.size(); ++r) {  // kernels still polling (an error) end before lines are freed
    cudaSetDevice(dev[r]);
    cudaStreamSynchronize(stream[r]);
  }
  lines.reset();
  for (int r = 0; r < static_cast<int>(stream.size()); ++r) {
    cudaSetDevice(dev[r]);
    cudaStreamSynchronize(stream[r]);
    for (auto* p : storage[r]) if (p) cudaFree(p);
    if (staging[r]) cudaFree(staging[r]);
    for (auto e : tev[r]) cudaEventDestroy(e);
    cudaStreamDestroy(stream[r]);
    if (comm_stream[r]) cudaStreamDestroy(comm_stream[r]);
  }
  for (auto e : ev_sent) cudaEventDestroy(e);
  for (auto e : ev_done) cudaEventDestroy(e);
  for (auto e : start) if (e) cudaEventDestroy(e);
}

}  // namespace cuda_detail

RunResult run_cuda(const Schedule& s, const RankData& inputs, const RunOptions& opt, bool use_nccl) {
  refuse_switches(s, use_nccl ? "nccl" : "cuda");
  check_protocol_supported(use_nccl ? "nccl" : "cuda", opt.protocol);  // cuda runs all three; nccl simple only
  Runner run(s, opt, use_nccl);
  run.setup(inputs);
  return run.run();
}

}  // namespace microddp
