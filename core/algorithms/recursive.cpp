// Recursive doubling / halving (Thakur, Rabenseifner & Gropp 2005) and the
// dissemination barrier (Hensgen, Finkel & Manber 1988).
//
// Non-power-of-two world sizes use the standard fix-up: with p' the largest
// power of two <= n and rem = n - p', the first 2*rem ranks pair up; in a
// "fold" step each even one hands its data to the odd one above it and sits
// out; the p' remaining ranks (virtual ranks) run the power-of-two algorithm;
// an "unfold" step hands the result back. That costs two extra steps.
#include "core/algorithms/common.h"

namespace microddp {
using namespace detail;

namespace {

struct Fold {
  int n, p, rem, levels;  // p = p', levels = log2(p')
  explicit Fold(int n_) : n(n_) {
    p = 1;
    levels = 0;
    while (p * 2 <= n) { p *= 2; ++levels; }
    rem = n - p;
  }
  int vrank(int r) const { return r < 2 * rem ? (r % 2 ? r / 2 : -1) : r - rem; }
  int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // First real rank whose data virtual rank v stands for (2v for folded pairs).
  int first_real(int v) const { return v < rem ? 2 * v : v + rem; }
};

// Virtual rank v covers the (contiguous) blocks of the real ranks it stands for.
std::vector<int64_t> virtual_block_offsets(const CollectiveSpec& s, const Fold& f) {
  std::vector<int64_t> off(f.p + 1);
  for (int v = 0; v < f.p; ++v) off[v] = s.displ(f.first_real(v));
  off[f.p] = s.total();
  return off;
}

std::vector<int64_t> rank_blocks(const CollectiveSpec& s) {
  std::vector<int64_t> b;
  for (int r = 0; r <= s.world_size; ++r) b.push_back(s.displ(r));
  return b;
}

// Fold step for a reduction: even ranks < 2*rem hand `len` elements of `src`
// to the odd rank above, which reduces them into its `dst`.
void fold_reduce(ScheduleBuilder& b, const Fold& f, BufRange src, BufRange dst, int64_t len) {
  if (f.rem == 0) return;
  b.step("fold");
  for (int r = 0; r < 2 * f.rem; r += 2) {
    b.transfer(r, r + 1, src, dst, len, -1, ScheduleBuilder::Arrival::reduce);
  }
}

void unfold(ScheduleBuilder& b, const Fold& f, BufRange range, int64_t len) {
  if (f.rem == 0) return;
  b.step("unfold");
  for (int r = 0; r < 2 * f.rem; r += 2) {
    b.transfer(r + 1, r, range, range, len);
  }
}

// all_reduce by recursive doubling: log2(p') exchanges of the whole vector.
// Partners combine in the same order (lower virtual rank first), so both
// hold the same bits whatever the op's rounding.
Schedule recursive_doubling_all_reduce(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Fold f(s.world_size);
  const int64_t c = s.count;
  b.set_chunks({0, c});
  for (int r = 0; r < s.world_size; ++r)
    if (f.vrank(r) >= 0) b.copy_first(r, {Buf::input, 0}, {Buf::output, 0}, c);
  fold_reduce(b, f, {Buf::input, 0}, {Buf::output, 0}, c);
  for (int k = 0; k < f.levels; ++k) {
    b.step("recursive doubling");
    b.need(-1, Buf::recv_buff, c);
    for (int v = 0; v < f.p; ++v) {
      const int r = f.real(v), partner = f.real(v ^ (1 << k));
      b.send(r, partner, {Buf::output, 0}, c);
      b.recv(r, partner, {Buf::recv_buff, 0}, c);
      if (v < (v ^ (1 << k))) {
        b.reduce(r, {Buf::recv_buff, 0}, {Buf::output, 0}, c);  // mine OP theirs
      } else {
        b.reduce(r, {Buf::output, 0}, {Buf::recv_buff, 0}, c);  // theirs OP mine
        b.copy(r, {Buf::recv_buff, 0}, {Buf::output, 0}, c);
      }
    }
  }
  unfold(b, f, {Buf::output, 0}, c);
  return b.finish();
}

// Reduce-scatter by recursive halving over `work`, whose virtual blocks are
// `vb`: virtual rank v ends with virtual block v reduced.
void halving_phase(ScheduleBuilder& b, const Fold& f, const std::vector<int64_t>& vb, Buf work) {
  std::vector<int> lo(f.p, 0), hi(f.p, f.p);
  for (int k = 0; k < f.levels; ++k) {
    b.step("reduce-scatter (halving)");
    const int d = f.p >> (k + 1);
    for (int v = 0; v < f.p; ++v) {
      const int r = f.real(v), partner = f.real(v ^ d);
      const int mid = (lo[v] + hi[v]) / 2;
      const bool lower = (v & d) == 0;
      const int klo = lower ? lo[v] : mid, khi = lower ? mid : hi[v];
      const int slo = lower ? mid : lo[v], shi = lower ? hi[v] : mid;
      b.need(r, Buf::recv_buff, vb[khi] - vb[klo]);
      b.send(r, partner, {work, vb[slo]}, vb[shi] - vb[slo]);
      b.recv(r, partner, {Buf::recv_buff, 0}, vb[khi] - vb[klo]);
      b.reduce(r, {Buf::recv_buff, 0}, {work, vb[klo]}, vb[khi] - vb[klo]);
      lo[v] = klo;
      hi[v] = khi;
    }
  }
}

// All-gather by recursive doubling: virtual rank v starts with virtual
// block v of `work` and ends with all of them.
void doubling_gather_phase(ScheduleBuilder& b, const Fold& f, const std::vector<int64_t>& vb, Buf work) {
  for (int i = 0; i < f.levels; ++i) {
    const int d = 1 << i;  // v holds the aligned group of d blocks around it
    b.step("all-gather (doubling)");
    for (int v = 0; v < f.p; ++v) {
      const int u = v ^ d;
      const int mlo = v & ~(d - 1), plo = u & ~(d - 1);
      b.send(f.real(v), f.real(u), {work, vb[mlo]}, vb[mlo + d] - vb[mlo]);
      b.recv(f.real(v), f.real(u), {work, vb[plo]}, vb[plo + d] - vb[plo]);
    }
  }
}

// Rabenseifner: recursive-halving reduce-scatter, then recursive-doubling
// all-gather in the mirror order; each rank sends about 2(p'-1)/p' of the
// vector in 2*log2(p') steps.
Schedule halving_doubling_all_reduce(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Fold f(s.world_size);
  const int64_t c = s.count;
  const std::vector<int64_t> vb = even_chunks(c, f.p);
  b.set_chunks(vb);
  for (int r = 0; r < s.world_size; ++r)
    if (f.vrank(r) >= 0) b.copy_first(r, {Buf::input, 0}, {Buf::output, 0}, c);
  fold_reduce(b, f, {Buf::input, 0}, {Buf::output, 0}, c);
  halving_phase(b, f, vb, Buf::output);
  doubling_gather_phase(b, f, vb, Buf::output);
  unfold(b, f, {Buf::output, 0}, c);
  return b.finish();
}

Schedule recursive_doubling_all_gather(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Fold f(s.world_size);
  b.set_chunks(rank_blocks(s));
  for (int r = 0; r < s.world_size; ++r)
    if (f.vrank(r) >= 0) b.copy_first(r, {Buf::input, 0}, {Buf::output, s.displ(r)}, s.block(r), r);
  if (f.rem > 0) {
    b.step("fold");
    for (int r = 0; r < 2 * f.rem; r += 2) {
      b.transfer(r, r + 1, {Buf::input, 0}, {Buf::output, s.displ(r)}, s.block(r), r);
    }
  }
  doubling_gather_phase(b, f, virtual_block_offsets(s, f), Buf::output);
  unfold(b, f, {Buf::output, 0}, s.total());
  return b.finish();
}

Schedule halving_doubling_reduce_scatter(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const Fold f(s.world_size);
  const int n = s.world_size;
  b.set_chunks(rank_blocks(s));
  if (n == 1) {
    b.copy_first(0, {Buf::input, 0}, {Buf::output, 0}, s.block(0), 0);
    return b.finish();
  }
  b.need(-1, Buf::accum, s.total());
  for (int r = 0; r < n; ++r) b.copy_first(r, {Buf::input, 0}, {Buf::accum, 0}, s.total());
  fold_reduce(b, f, {Buf::accum, 0}, {Buf::accum, 0}, s.total());
  halving_phase(b, f, virtual_block_offsets(s, f), Buf::accum);
  // Survivors hold their virtual block: copy out the real block, and hand
  // the folded partner its block.
  if (f.rem > 0) b.step("unfold");
  for (int r = 0; r < n; ++r) {
    if (f.vrank(r) < 0) continue;
    b.copy(r, {Buf::accum, s.displ(r)}, {Buf::output, 0}, s.block(r), r);
    if (r < 2 * f.rem) {
      b.transfer(r, r - 1, {Buf::accum, s.displ(r - 1)}, {Buf::output, 0}, s.block(r - 1), r - 1);
    }
  }
  return b.finish();
}

Schedule dissemination_barrier(const CollectiveSpec& s) {
  ScheduleBuilder b(s);
  const int n = s.world_size;
  for (int k = 0; (1 << k) < n; ++k) {
    b.step("dissemination");
    for (int r = 0; r < n; ++r) {
      b.send(r, mod(r + (1 << k), n), {Buf::input, 0}, 0);
      b.recv(r, mod(r - (1 << k), n), {Buf::input, 0}, 0);
    }
  }
  return b.finish();
}

}  // namespace

namespace {
// Non-power-of-two n: fold and unfold cost one more exchange of the whole
// vector each way, with one reduction.
HockneyTime fold_unfold(const HockneyPrices& m, double S) { return m.msgs(1, S) + m.reduce(S) + m.msgs(1, S); }
}  // namespace

namespace detail {
// Closed forms (Thakur et al. 2005), p = the largest power of two <= n.
// S = the whole vector (all_reduce) or one rank's block (all_gather,
// reduce_scatter).
std::vector<AlgorithmInfo> recursive_algorithms() {
  AlgorithmInfo rd;
  rd.name = "recursive_doubling";
  rd.description = "recursive doubling: lg p exchanges with partners at distance 1, 2, 4, ...";
  rd.layout = Layout::hypercube;
  rd.serves.push_back(
      {Collective::all_reduce, recursive_doubling_all_reduce,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double S = spec_bytes(sp);
                    const int pw = floor_pow2(sp.world_size), lg = ceil_lg(pw);
                    HockneyTime t = static_cast<double>(lg) * (m.msgs(1, S) + m.reduce(S));
                    if (pw != sp.world_size) t += fold_unfold(m, S);
                    return t;
                  },
                  fixed_text("lg p·(α + S·β + S·γ) [+ fold/unfold]  (Thakur et al. 2005)")}});
  rd.serves.push_back(
      {Collective::all_gather, recursive_doubling_all_gather,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double S = spec_bytes(sp);
                    const int pw = floor_pow2(sp.world_size), lg = ceil_lg(pw);
                    if (pw != sp.world_size) return std::nullopt;  // the fold makes messages uneven
                    HockneyTime t;
                    for (int j = 0; j < lg; ++j) t += m.msgs(1, S * static_cast<double>(1 << j));
                    return t;
                  },
                  fixed_text("lg n·α + (n-1)·S·β  (Thakur et al. 2005)")}});

  AlgorithmInfo hd;
  hd.name = "halving_doubling";
  hd.description = "Rabenseifner: recursive-halving reduce-scatter, then recursive-doubling all-gather";
  hd.layout = Layout::hypercube;
  hd.serves.push_back(
      {Collective::all_reduce, halving_doubling_all_reduce,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const double S = spec_bytes(sp);
                    const int pw = floor_pow2(sp.world_size), lg = ceil_lg(pw);
                    HockneyTime t;
                    for (int k = 1; k <= lg; ++k) {  // halving sends S/2^k and reduces it; doubling mirrors it
                      const double part = S / static_cast<double>(1 << k);
                      t += m.msgs(1, part) + m.reduce(part) + m.msgs(1, part);
                    }
                    if (pw != sp.world_size) t += fold_unfold(m, S);
                    return t;
                  },
                  fixed_text("2 lg p·α + 2(p-1)/p·S·β + (p-1)/p·S·γ [+ fold/unfold]  (Rabenseifner; Thakur et al. "
                             "2005)")}});
  hd.serves.push_back(
      {Collective::reduce_scatter, halving_doubling_reduce_scatter,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    const int n = sp.world_size;
                    const double S = spec_bytes(sp);
                    const int pw = floor_pow2(n), lg = ceil_lg(pw);
                    if (pw != n) return std::nullopt;  // the fold makes messages uneven
                    HockneyTime t;
                    for (int k = 1; k <= lg; ++k) {
                      const double part = S * static_cast<double>(n >> k);
                      t += m.msgs(1, part) + m.reduce(part);
                    }
                    return t;
                  },
                  fixed_text("lg n·α + (n-1)·S·(β + γ)  (Thakur et al. 2005)")}});

  AlgorithmInfo dis;
  dis.name = "dissemination";
  dis.description = "dissemination barrier: in round k every rank signals rank r+2^k";
  dis.layout = Layout::none;
  dis.serves.push_back(
      {Collective::barrier, dissemination_barrier,
       ClosedForm{[](const CollectiveSpec& sp, const HockneyPrices& m) -> std::optional<HockneyTime> {
                    return static_cast<double>(ceil_lg(sp.world_size)) * m.msgs(1, 0);
                  },
                  fixed_text("⌈lg n⌉·α")}});
  return {rd, hd, dis};
}
}  // namespace detail

}  // namespace microddp
