// one_shot and two_shot all_reduce, for ranks that share memory: every rank
// reads its peers' buffers directly. In the IR a send on the threads backend
// publishes a pointer and the receiver copies straight out of the sender's
// buffer, so a recv here IS that direct read (on MPI they run as messages;
// no MPI shared-memory window is built).
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
// Where the accumulation lives: the output, except on an in-place rank
// other than 0, whose output IS its own contribution, still to be folded in
// after rank 0's: that rank folds into accum and copies the result out.
// Peers' copies arrive in scratch, one slot per peer (slot q-1 for peer q;
// rank 0's copy goes straight into the accumulator).
#include <functional>

#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

// Rank r's n contributions to the range [off, off+len) of the vector:
// rank q's part is read directly from q's buffer `peer_buf` at peer_off(q)
// (q != r), r's own from its input. Two passes, because a rank's fold may
// overwrite its input (in place) only after every peer's read of it is
// posted (a reduce waits for the posted sends that read what it writes):
// read() posts the direct reads, fold() reduces in rank order.
struct Direct {
  ScheduleBuilder& b;
  int64_t off, len;
  Buf peer_buf;
  std::function<int64_t(int)> peer_off;
  std::function<int(int q, int r)> label;  // chunk label of q's part on rank r

  BufRange acc(int r) const {
    return b.spec().in_place && r != 0 ? BufRange{Buf::accum, 0} : BufRange{Buf::output, off};
  }
  void read(int r) {
    const int n = b.spec().world_size;
    if (acc(r).buf == Buf::accum) b.need(r, Buf::accum, len);
    b.need(r, Buf::scratch, (n - 1) * len);
    for (int q = 0; q < n; ++q) {
      if (q == r) continue;
      const BufRange dst = q == 0 ? acc(r) : BufRange{Buf::scratch, (q - 1) * len};
      b.transfer(q, r, {peer_buf, peer_off(q)}, dst, len, label(q, r));
    }
  }
  // out = ((x0 ⊕ x1) ⊕ x2) ... in rank order; rank 0's part arrived in acc.
  void fold(int r) {
    const int n = b.spec().world_size;
    if (r == 0) copy_unless_same(b, r, {Buf::input, off}, acc(r), len, label(0, r));
    for (int q = 1; q < n; ++q)
      b.reduce(r, q == r ? BufRange{Buf::input, off} : BufRange{Buf::scratch, (q - 1) * len}, acc(r), len,
               label(q, r));
    if (acc(r).buf == Buf::accum) b.copy(r, acc(r), {Buf::output, off}, len, label(r, r));
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
  Direct d{b, 0, s.count, Buf::input, [](int) { return int64_t{0}; }, [](int q, int) { return q; }};
  for (int r = 0; r < n; ++r) d.read(r);
  for (int r = 0; r < n; ++r) d.fold(r);
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
  std::vector<Direct> blocks;
  for (int r = 0; r < n; ++r)
    blocks.push_back(Direct{b, ch.off[r], ch.len(r), Buf::input, [off = ch.off[r]](int) { return off; },
                            [](int, int r_) { return r_; }});
  for (int r = 0; r < n; ++r) blocks[r].read(r);
  for (int r = 0; r < n; ++r) blocks[r].fold(r);
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
