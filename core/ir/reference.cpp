#include "core/ir/reference.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace microddp {

namespace {
using Bytes = std::vector<std::byte>;

// Elementwise reduction of all ranks' `len` elements starting at element
// `off` of their inputs, in rank order 0, 1, ..., n-1.
Bytes reduce_all(const CollectiveSpec& s, const RankData& in, int64_t off, int64_t len) {
  const size_t es = dtype_size(s.dtype);
  const int n = s.world_size;
  const bool premul = s.op == ReduceOp::avg && is_floating(s.dtype);
  Bytes acc(len * es), tmp(len * es);
  for (int q = 0; q < n; ++q) {
    const std::byte* src = in[q].data() + off * es;
    Bytes& dst = q == 0 ? acc : tmp;
    if (len == 0) continue;
    if (premul) kernels::premul_avg(s.dtype, dst.data(), src, len, n);
    else std::memcpy(dst.data(), src, len * es);
    if (q > 0) kernels::reduce(s.dtype, s.op, acc.data(), tmp.data(), len);
  }
  if (s.op == ReduceOp::avg && !is_floating(s.dtype) && len > 0) kernels::finish_avg(s.dtype, acc.data(), len, n);
  return acc;
}

Bytes slice(const Bytes& b, int64_t off, int64_t len, size_t es) {
  return Bytes(b.begin() + off * es, b.begin() + (off + len) * es);
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

bool outputs_match(const CollectiveSpec& s, const RankData& in, const RankData& got, const RankData& want,
                   std::string* why) {
  const int n = s.world_size;
  const size_t es = dtype_size(s.dtype);
  auto fail = [&](std::string m) {
    if (why) *why = std::move(m);
    return false;
  };
  if (static_cast<int>(got.size()) != n) return fail(fmt::format("{} output rows for {} ranks", got.size(), n));
  const bool loose = is_floating(s.dtype) && is_reducing(s.collective) &&
                     (s.op == ReduceOp::sum || s.op == ReduceOp::avg || s.op == ReduceOp::prod);
  const int p = s.dtype == DType::float16 ? 11 : s.dtype == DType::bfloat16 ? 8 : s.dtype == DType::float32 ? 24 : 53;
  const double u = std::ldexp(1.0, -p);
  for (int r = 0; r < n; ++r) {
    if (got[r].size() != want[r].size())
      return fail(fmt::format("rank {} has {} output elements, expected {}", r, got[r].size() / es,
                              want[r].size() / es));
    if (!loose) {
      if (!got[r].empty() && std::memcmp(got[r].data(), want[r].data(), got[r].size()) != 0) {
        for (size_t i = 0; i < got[r].size() / es; ++i) {
          const double g = kernels::load_double(s.dtype, got[r].data(), i);
          const double w = kernels::load_double(s.dtype, want[r].data(), i);
          if (std::memcmp(got[r].data() + i * es, want[r].data() + i * es, es) != 0 && !(std::isnan(g) && std::isnan(w)))
            return fail(fmt::format("rank {} output[{}] = {} but the reference gives {}", r, i, g, w));
        }
      }
      continue;
    }
    // Reductions of floats: element i of rank r's output reduces input
    // element (base + i) of every rank.
    const int64_t base = s.collective == Collective::reduce_scatter ? s.displ(r) : 0;
    for (int64_t i = 0; i < static_cast<int64_t>(got[r].size() / es); ++i) {
      const double g = kernels::load_double(s.dtype, got[r].data(), i);
      const double w = kernels::load_double(s.dtype, want[r].data(), i);
      if (std::isnan(g) || std::isnan(w)) {
        if (std::isnan(g) != std::isnan(w)) return fail(fmt::format("rank {} output[{}] = {} but the reference gives {}", r, i, g, w));
        continue;
      }
      if (std::isinf(g) || std::isinf(w)) {
        if (g != w) return fail(fmt::format("rank {} output[{}] = {} but the reference gives {}", r, i, g, w));
        continue;
      }
      double mag = 0;
      for (int q = 0; q < n; ++q) mag += std::fabs(kernels::load_double(s.dtype, in[q].data(), base + i));
      if (s.op == ReduceOp::avg) mag /= n;
      if (s.op == ReduceOp::prod) mag = std::fabs(w);
      const double tol = 2.0 * n * u * mag;
      if (std::fabs(g - w) > tol)
        return fail(fmt::format("rank {} output[{}] = {} but the reference gives {} (tolerance {})", r, i, g, w, tol));
    }
  }
  return true;
}

}  // namespace microddp
