#include "core/ir/types.h"

#include <fmt/format.h>

namespace microddp {
namespace {
constexpr std::string_view kCollectives[] = {"broadcast", "reduce", "gather",
                                             "scatter", "barrier", "all_reduce",
                                             "all_gather", "reduce_scatter", "all_to_all"};
constexpr std::string_view kDtypes[] = {"int32", "int64", "float16", "bfloat16", "float32", "float64"};
constexpr std::string_view kOps[] = {"sum", "prod", "min", "max", "avg"};

template <typename E, size_t N>
E parse_name(std::string_view s, const std::string_view (&names)[N], const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  std::string list;
  for (size_t i = 0; i < N; ++i) list += (i ? ", " : "") + std::string(names[i]);
  throw UsageError(fmt::format("unknown {} '{}' (expected one of: {})", what, s, list));
}
template <typename E, size_t N>
std::vector<E> all_of(const std::string_view (&)[N]) {
  std::vector<E> v;
  for (size_t i = 0; i < N; ++i) v.push_back(static_cast<E>(i));
  return v;
}
}  // namespace

std::string_view name(Collective c) { return kCollectives[static_cast<int>(c)]; }
std::string_view name(DType t) { return kDtypes[static_cast<int>(t)]; }
std::string_view name(ReduceOp op) { return kOps[static_cast<int>(op)]; }
Collective parse_collective(std::string_view s) { return parse_name<Collective>(s, kCollectives, "collective"); }
DType parse_dtype(std::string_view s) { return parse_name<DType>(s, kDtypes, "dtype"); }
ReduceOp parse_op(std::string_view s) { return parse_name<ReduceOp>(s, kOps, "reduce op"); }
const std::vector<Collective>& all_collectives() { static auto v = all_of<Collective>(kCollectives); return v; }
const std::vector<DType>& all_dtypes() { static auto v = all_of<DType>(kDtypes); return v; }
const std::vector<ReduceOp>& all_ops() { static auto v = all_of<ReduceOp>(kOps); return v; }

bool is_reducing(Collective c) {
  return c == Collective::reduce || c == Collective::all_reduce || c == Collective::reduce_scatter;
}

}  // namespace microddp
