// one_shot and two_shot all_reduce, for ranks that share memory: every rank
// reads its peers' buffers directly. In the IR a send on the threads backend
// publishes a pointer and the receiver copies straight out of the sender's
// buffer, so a recv here IS that direct read. On MPI, when the whole job is
// on one node, the ranks' buffers live in an MPI-3 shared-memory window and
// the recv reads the peer's buffer in place the same way
// (core/exec/mpi/shm_window.cpp; MICRODDP_MPI_SHM=0: plain messages).
//
// one_shot: one step. Rank r reads every peer's whole input and reduces all
//   n contributions itself, in rank order 0..n-1: out = ((x0 ⊕ x1) ⊕ x2) ...
//   so every rank computes the same bits. (n-1) reads of S bytes each.
// two_shot: two steps. Step 0, reduce-scatter by direct reads: rank r reads
//   block r (even_chunks(count, n)) of every peer and reduces the n blocks in
//   rank order into its output's block r. Step 1, all-gather by direct
//   reads: rank r reads block q from rank q's output. 2(n-1) reads of S/n.
//
// Sources: TensorRT-LLM's custom all-reduce (cpp/tensorrt_llm/kernels/
// customAllReduceKernels.cu, release/0.14: oneShotAllReduceKernel,
// twoShotAllReduceKernel); vLLM's csrc/custom_all_reduce.cuh
// (cross_device_reduce_1stage, cross_device_reduce_2stage); DeepSpeed's CPU
// shared-memory all-reduce, csrc/cpu/comm/shm.cpp (symmetric_naive_all_reduce:
// every rank reduces every slot; distributed_naive_reduce: each rank reduces
// its slice, then all ranks gather the slices).
//
// Where the accumulation lives: the output, so that rank r's whole fold is
// one run of ops into one range: out = x0 (a recv from rank 0, or rank 0's
// own copy), then out ⊕= x1, x2, ... (a recv_reduce from each peer, a local
// reduce of its own input at position r). On the threads backend that run
// executes as ONE pass, out = x0 ⊕ x1 ⊕ ... read straight out of the
// peers' inputs (kernels::reduce_many; RankProgram fuses a fold of direct
// reads), with no staging copy; elsewhere op by op, the same bits. Every
// rank posts its sends before its fold, so a peer's read never waits behind
// the reader's own fold. In place, a rank's output IS its input, which its
// peers are still reading: the fold goes into accum and is copied out once
// the peers' reads are done.
#include <functional>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

// Rank r's n contributions to [off, off+len): rank q's part read directly
// from q's input at the same offset (one_shot: the whole vector; two_shot:
// block r), r's own from its input. label(q): the chunk label of q's part.
struct Fold {
  ScheduleBuilder& b;
  int64_t off, len;
  std::function<int(int q)> label;

  BufRange acc() const { return b.spec().in_place ? BufRange{Buf::accum, 0} : BufRange{Buf::output, off}; }
  // out = ((x0 ⊕ x1) ⊕ x2) ... in rank order.
  void fold(int r) {
    const int n = b.spec().world_size;
    const BufRange a = acc();
    if (a.buf == Buf::accum) b.need(r, Buf::accum, len);
    if (r == 0) b.copy(r, {Buf::input, off}, a, len, label(0));
    else b.recv(r, 0, a, len, label(0));
    for (int q = 1; q < n; ++q) {
      if (q == r) b.reduce(r, {Buf::input, off}, a, len, label(q));
      else b.recv_reduce(r, q, a, len, label(q));
    }
    if (a.buf == Buf::accum) b.copy(r, a, {Buf::output, off}, len, label(r));
  }
};

Schedule one_shot(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  b.set_chunks({0, s.count});
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  b.step("one-shot");
  for (int r = 0; r < n; ++r) {
    for (int q = 0; q < n; ++q)
      if (q != r) b.send(r, q, {Buf::input, 0}, s.count, r);
    Fold{b, 0, s.count, [](int q) { return q; }}.fold(r);
  }
  return b.finish();
}

Schedule two_shot(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  const Chunks ch{even_chunks(s.count, n)};
  b.set_chunks(ch.off);
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.count);
    return b.finish();
  }
  b.step("reduce-scatter");
  for (int r = 0; r < n; ++r) {
    for (int q = 0; q < n; ++q)
      if (q != r) b.send(r, q, {Buf::input, ch.off[q]}, ch.len(q), q);
    Fold{b, ch.off[r], ch.len(r), [r](int) { return r; }}.fold(r);
  }
  b.step("all-gather");
  for (int r = 0; r < n; ++r)
    for (int q = 0; q < n; ++q)
      if (q != r) b.transfer(q, r, {Buf::output, ch.off[q]}, {Buf::output, ch.off[q]}, ch.len(q), q);
  return b.finish();
}

}  // namespace

namespace detail {
std::vector<AlgorithmInfo> direct_algorithms() {
  AlgorithmInfo one;
  one.name = "one_shot";
  one.description = "one-shot: every rank reads every peer's whole input and reduces all n, in rank order; one step";
  one.layout = Layout::full_mesh;
  one.whole_input_chunks = true;
  one.serves.push_back(
      {Collective::all_reduce, one_shot,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double n1 = sp.world_size - 1, S = spec_bytes(sp);
                    return m.msgs(n1, S) + m.reduce(n1 * S);
                  },
                  fixed_text("(n-1)·(α + S·β) + (n-1)·S·γ  (one step; TensorRT-LLM / vLLM one-shot custom all-reduce)")}});
  AlgorithmInfo two;
  two.name = "two_shot";
  two.description = "two-shot: reduce-scatter by direct reads, then all-gather by direct reads; two steps";
  two.layout = Layout::full_mesh;
  two.serves.push_back(
      {Collective::all_reduce, two_shot,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    const double n1 = n - 1, block = spec_bytes(sp) / n;
                    return m.msgs(n1, block) + m.reduce(n1 * block) + m.msgs(n1, block);
                  },
                  fixed_text("2(n-1)·α + 2(n-1)/n·S·β + (n-1)/n·S·γ  (two steps; TensorRT-LLM / vLLM two-shot "
                             "custom all-reduce)")}});
  return {one, two};
}
}  // namespace detail

}  // namespace microddp
