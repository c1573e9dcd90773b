#include "core/ir/reference.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace microddp {

namespace {
using Bytes = std::vector<std::byte>;

int significand_bits(DType t) {
  switch (t) {
    case DType::float16: return 11;
    case DType::bfloat16: return 8;
    case DType::float32: return 24;
    default: return 53;
  }
}
int min_exponent(DType t) {  // exponent of the smallest subnormal
  switch (t) {
    case DType::float16: return -24;
    case DType::bfloat16: return -133;
    case DType::float32: return -149;
    default: return -1074;
  }
}
double max_finite(DType t) {
  switch (t) {
    case DType::float16: return 65504.0;
    case DType::bfloat16: return 3.3895313892515355e38;
    case DType::float32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// x rounded to float with round-to-odd: rounding that float again to a format
// at least two bits narrower (float16, bfloat16) gives x correctly rounded
// once, with no double-rounding error (Boldo & Melquiond 2008).
float to_float_odd(double x) {
  // Beyond FLT_MAX plus half an ulp every narrower format overflows too.
  if (std::isfinite(x) && std::fabs(x) >= 0x1.ffffffp127) return x > 0 ? INFINITY : -INFINITY;
  float f = static_cast<float>(x);
  if (!std::isfinite(x) || static_cast<double>(f) == x) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

// x rounded once (to nearest even) to a floating dtype, stored at element i.
void store_rounded(DType t, std::byte* base, int64_t i, double x) {
  switch (t) {
    case DType::float16: {
      const uint16_t h = kernels::float_to_half(to_float_odd(x));
      std::memcpy(base + i * 2, &h, 2);
      return;
    }
    case DType::bfloat16: {
      const uint16_t h = kernels::float_to_bf16(to_float_odd(x));
      std::memcpy(base + i * 2, &h, 2);
      return;
    }
    case DType::float32: {
      const float f = std::isfinite(x) && std::fabs(x) >= 0x1.ffffffp127 ? (x > 0 ? INFINITY : -INFINITY)
                                                                          : static_cast<float>(x);
      std::memcpy(base + i * 4, &f, 4);
      return;
    }
    default: std::memcpy(base + i * 8, &x, 8); return;
  }
}

double rounded(DType t, double x) {
  std::byte b[8];
  store_rounded(t, b, 0, x);
  return kernels::load_double(t, b, 0);
}

int64_t load_int(DType t, const std::byte* base, int64_t i) {
  if (t == DType::int32) {
    int32_t v;
    std::memcpy(&v, base + i * 4, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, base + i * 8, 8);
  return v;
}

void store_int(DType t, std::byte* base, int64_t i, uint64_t wrapped) {
  if (t == DType::int32) {
    const auto v = static_cast<int32_t>(static_cast<uint32_t>(wrapped));
    std::memcpy(base + i * 4, &v, 4);
  } else {
    const auto v = static_cast<int64_t>(wrapped);
    std::memcpy(base + i * 8, &v, 8);
  }
}

// One reduced integer element: sum and prod wrap in the dtype (computed
// unsigned), avg divides the wrapped sum truncating toward zero.
void reduce_int(const CollectiveSpec& s, const RankData& in, int64_t at, std::byte* out, int64_t i) {
  const DType t = s.dtype;
  uint64_t acc = static_cast<uint64_t>(load_int(t, in[0].data(), at));
  int64_t mn = load_int(t, in[0].data(), at), mx = mn;
  for (int q = 1; q < s.world_size; ++q) {
    const int64_t x = load_int(t, in[q].data(), at);
    if (s.op == ReduceOp::prod) acc *= static_cast<uint64_t>(x);
    else acc += static_cast<uint64_t>(x);
    mn = std::min(mn, x);
    mx = std::max(mx, x);
  }
  switch (s.op) {
    case ReduceOp::min: store_int(t, out, i, static_cast<uint64_t>(mn)); return;
    case ReduceOp::max: store_int(t, out, i, static_cast<uint64_t>(mx)); return;
    case ReduceOp::avg: {
      const int64_t sum = t == DType::int32 ? static_cast<int32_t>(static_cast<uint32_t>(acc)) : static_cast<int64_t>(acc);
      store_int(t, out, i, static_cast<uint64_t>(sum / s.world_size));
      return;
    }
    default: store_int(t, out, i, acc); return;
  }
}

// One reduced floating element, in double, rounded once per documented step.
void reduce_float(const CollectiveSpec& s, const RankData& in, int64_t at, std::byte* out, int64_t i) {
  const DType t = s.dtype;
  const int n = s.world_size;
  double acc = s.op == ReduceOp::prod ? 1.0 : 0.0;
  double mn = kernels::load_double(t, in[0].data(), at), mx = mn;
  bool any_nan = false, all_finite = true;
  for (int q = 0; q < n; ++q) {
    const double x = kernels::load_double(t, in[q].data(), at);
    any_nan |= std::isnan(x);
    all_finite &= std::isfinite(x);
    switch (s.op) {
      case ReduceOp::sum: acc += x; break;
      case ReduceOp::prod: acc *= x; break;
      case ReduceOp::avg: acc += rounded(t, x / n); break;
      case ReduceOp::min: mn = std::min(mn, x); break;
      case ReduceOp::max: mx = std::max(mx, x); break;
    }
  }
  double v = s.op == ReduceOp::min ? mn : s.op == ReduceOp::max ? mx : acc;
  if (any_nan) v = std::numeric_limits<double>::quiet_NaN();
  // The mean of finite values fits the dtype: avg saturates (kernels.h).
  if (s.op == ReduceOp::avg && all_finite && std::isinf(rounded(t, v))) v = std::copysign(max_finite(t), v);
  store_rounded(t, out, i, v);
}

// Elementwise reduction of all ranks' `len` elements starting at element
// `off` of their inputs.
Bytes reduce_all(const CollectiveSpec& s, const RankData& in, int64_t off, int64_t len) {
  Bytes acc(static_cast<size_t>(len) * dtype_size(s.dtype));
  for (int64_t i = 0; i < len; ++i) {
    if (is_floating(s.dtype)) reduce_float(s, in, off + i, acc.data(), i);
    else reduce_int(s, in, off + i, acc.data(), i);
  }
  return acc;
}

Bytes slice(const Bytes& b, int64_t off, int64_t len, size_t es) {
  return Bytes(b.begin() + off * es, b.begin() + (off + len) * es);
}

// Bitwise equal, except that any NaN equals any NaN of a floating dtype.
bool same_element(DType t, const std::byte* a, const std::byte* b, int64_t i) {
  const size_t es = dtype_size(t);
  if (std::memcmp(a + i * es, b + i * es, es) == 0) return true;
  return is_floating(t) && std::isnan(kernels::load_double(t, a, i)) && std::isnan(kernels::load_double(t, b, i));
}
bool same_bits(DType t, const Bytes& a, const Bytes& b) {
  if (a.size() != b.size()) return false;
  if (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0) return true;
  const auto m = static_cast<int64_t>(a.size() / dtype_size(t));
  for (int64_t i = 0; i < m; ++i)
    if (!same_element(t, a.data(), b.data(), i)) return false;
  return true;
}
}  // namespace

RankData reference_outputs(const CollectiveSpec& s, const RankData& in) {
  const int n = s.world_size;
  const size_t es = dtype_size(s.dtype);
  RankData out(n);
  switch (s.collective) {
    case Collective::barrier: break;
    case Collective::broadcast:
      for (int r = 0; r < n; ++r) out[r] = in[s.root];
      break;
    case Collective::reduce: out[s.root] = reduce_all(s, in, 0, s.count); break;
    case Collective::all_reduce: {
      const Bytes all = reduce_all(s, in, 0, s.count);
      for (int r = 0; r < n; ++r) out[r] = all;
      break;
    }
    case Collective::reduce_scatter: {
      const Bytes all = reduce_all(s, in, 0, s.total());
      for (int r = 0; r < n; ++r) out[r] = slice(all, s.displ(r), s.block(r), es);
      break;
    }
    case Collective::gather:
    case Collective::all_gather: {
      Bytes cat;
      for (int q = 0; q < n; ++q) cat.insert(cat.end(), in[q].begin(), in[q].end());
      if (s.collective == Collective::gather) out[s.root] = cat;
      else
        for (int r = 0; r < n; ++r) out[r] = cat;
      break;
    }
    case Collective::scatter:
      for (int r = 0; r < n; ++r) out[r] = slice(in[s.root], s.displ(r), s.block(r), es);
      break;
    case Collective::all_to_all:
      for (int r = 0; r < n; ++r)
        for (int q = 0; q < n; ++q) {
          const Bytes b = slice(in[q], s.count * r, s.count, es);
          out[r].insert(out[r].end(), b.begin(), b.end());
        }
      break;
  }
  return out;
}

bool promises_identical_outputs(Collective c) {
  return c == Collective::broadcast || c == Collective::all_reduce || c == Collective::all_gather;
}

double error_bound(DType t, ReduceOp op, const std::vector<double>& x) {
  if (!is_floating(t) || op == ReduceOp::min || op == ReduceOp::max) return 0;
  const double n = static_cast<double>(x.size());
  const double u = std::ldexp(1.0, -significand_bits(t));
  const double eta = std::ldexp(1.0, min_exponent(t) - 1);
  double mag = 0, prod = 1, grow = 1;
  for (double v : x) {
    mag += std::fabs(v);
    prod *= std::fabs(v);
    grow *= std::max(1.0, std::fabs(v));
  }
  // Roundings on the way: n-1 hops and the reference's own (k = n); for
  // float64 the reference's double arithmetic rounds as often again.
  const double k = t == DType::float64 ? 2 * n : n;
  // (1+u)^j - 1 without cancellation: 1 + 2^-53 is 1 in double.
  auto gamma = [u](double j) { return std::expm1(j * std::log1p(u)); };
  switch (op) {
    case ReduceOp::sum: return gamma(k) * mag + n * eta;
    case ReduceOp::avg: return gamma(k + 2) * mag / n + 2 * n * eta;  // + x·fl(1/n), rounded
    case ReduceOp::prod: return gamma(k) * prod + n * eta * grow;
    default: return 0;
  }
}

OutputVerdict verify_outputs(const CollectiveSpec& s, const RankData& in, const RankData& got, const RankData& want) {
  OutputVerdict v;
  const int n = s.world_size;
  const DType t = s.dtype;
  const size_t es = dtype_size(t);
  auto fail = [&](std::string m) {
    if (v.why.empty()) v.why = std::move(m);
  };
  v.within_bound = true;
  if (static_cast<int>(got.size()) != n) {
    v.within_bound = false;
    fail(fmt::format("{} output rows for {} ranks", got.size(), n));
    return v;
  }
  const bool bounded = is_floating(t) && is_reducing(s.collective);
  std::vector<double> contrib(n);
  for (int r = 0; r < n; ++r) {
    if (got[r].size() != want[r].size()) {
      v.within_bound = false;
      v.wrong_elements += static_cast<int64_t>(want[r].size() / es);
      fail(fmt::format("rank {} has {} output elements, expected {}", r, got[r].size() / es, want[r].size() / es));
      continue;
    }
    const auto m = static_cast<int64_t>(got[r].size() / es);
    if (!bounded && same_bits(t, got[r], want[r])) continue;
    // Element i of rank r's output reduces input element (base + i) of
    // every rank.
    const int64_t base = s.collective == Collective::reduce_scatter ? s.displ(r) : 0;
    for (int64_t i = 0; i < m; ++i) {
      const double g = kernels::load_double(t, got[r].data(), i);
      const double w = kernels::load_double(t, want[r].data(), i);
      bool bad;
      double tol = 0;
      if (!bounded) {
        bad = !same_element(t, got[r].data(), want[r].data(), i);
      } else if (std::isnan(g) || std::isnan(w)) {
        bad = std::isnan(g) != std::isnan(w);
      } else if (std::isinf(g) || std::isinf(w)) {
        bad = g != w;
      } else {
        for (int q = 0; q < n; ++q) contrib[q] = kernels::load_double(t, in[q].data(), base + i);
        tol = error_bound(t, s.op, contrib);
        bad = !(std::fabs(g - w) <= tol);
      }
      if (!bad) continue;
      v.within_bound = false;
      ++v.wrong_elements;
      if (v.first_rank < 0) {
        v.first_rank = r;
        v.first_index = i;
      }
      if (!v.why.empty()) continue;
      if (s.dtype == DType::int64) {  // exact beyond 2^53
        fail(fmt::format("rank {} output[{}] = {} but the reference gives {}", r, i, load_int(t, got[r].data(), i),
                         load_int(t, want[r].data(), i)));
      } else {
        fail(tol > 0 ? fmt::format("rank {} output[{}] = {} but the reference gives {} (bound {:.3g})", r, i, g, w, tol)
                     : fmt::format("rank {} output[{}] = {} but the reference gives {}", r, i, g, w));
      }
    }
  }
  if (promises_identical_outputs(s.collective)) {
    for (int r = 1; r < n; ++r) {
      if (same_bits(t, got[r], got[0])) continue;
      v.differing_ranks.push_back(r);
      if (!v.within_bound) continue;  // already counted against the reference
      if (got[r].size() != got[0].size()) {
        v.wrong_elements += static_cast<int64_t>(got[r].size() / es);
        continue;
      }
      for (int64_t i = 0; i < static_cast<int64_t>(got[r].size() / es); ++i)
        v.wrong_elements += !same_element(t, got[r].data(), got[0].data(), i);
    }
    v.identical_ranks = v.differing_ranks.empty();
    if (!v.identical_ranks) {
      std::string list;
      for (int r : v.differing_ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
      fail(fmt::format("{} {} {} different bits from rank 0 ({} promises every rank the same result)",
                       v.differing_ranks.size() == 1 ? "rank" : "ranks", list,
                       v.differing_ranks.size() == 1 ? "holds" : "hold", name(s.collective)));
    }
  }
  v.ok = v.within_bound && v.identical_ranks;
  return v;
}

bool outputs_match(const CollectiveSpec& s, const RankData& in, const RankData& got, const RankData& want,
                   std::string* why) {
  OutputVerdict v = verify_outputs(s, in, got, want);
  if (why) *why = std::move(v.why);
  return v.ok;
}

}  // namespace microddp
