#include "core/algorithms/registry.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/algorithms/common.h"

namespace microddp {
namespace detail {
Schedule tree_family(const CollectiveSpec& s);
Schedule ring_family(const CollectiveSpec& s);
Schedule recursive_family(const CollectiveSpec& s);
Schedule pairwise_family(const CollectiveSpec& s);
}  // namespace detail

const std::vector<std::string>& algorithms_for(Collective c) {
  static const std::vector<std::string> rooted = {"naive", "tree", "binomial"};
  static const std::vector<std::string> barrier = {"naive", "tree", "dissemination"};
  static const std::vector<std::string> all_reduce = {"naive", "tree", "ring", "ring_unchunked",
                                                      "recursive_doubling", "halving_doubling"};
  static const std::vector<std::string> all_gather = {"naive", "ring", "recursive_doubling"};
  static const std::vector<std::string> reduce_scatter = {"naive", "ring", "halving_doubling"};
  static const std::vector<std::string> all_to_all = {"naive"};
  switch (c) {
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::gather:
    case Collective::scatter: return rooted;
    case Collective::barrier: return barrier;
    case Collective::all_reduce: return all_reduce;
    case Collective::all_gather: return all_gather;
    case Collective::reduce_scatter: return reduce_scatter;
    case Collective::all_to_all: return all_to_all;
  }
  return all_to_all;
}

static bool is_ring(const std::string& a) { return a == "ring" || a == "ring_unchunked"; }

Schedule make_schedule(const CollectiveSpec& s) {
  s.validate();
  const auto& algs = algorithms_for(s.collective);
  if (std::find(algs.begin(), algs.end(), s.algorithm) == algs.end()) {
    std::string list;
    for (const auto& a : algs) list += (list.empty() ? "" : ", ") + a;
    throw UsageError(fmt::format("unknown algorithm '{}' for {} (expected one of: {})", s.algorithm,
                                 name(s.collective), list));
  }
  if (s.segments > 1 && s.algorithm != "ring")
    throw UsageError(fmt::format("segments = {} needs the chunked ring; algorithm '{}' does not pipeline",
                                 s.segments, s.algorithm));
  if (is_ring(s.algorithm)) return detail::ring_family(s);
  if (s.algorithm == "recursive_doubling" || s.algorithm == "halving_doubling" || s.algorithm == "dissemination")
    return detail::recursive_family(s);
  if (s.collective == Collective::all_to_all) return detail::pairwise_family(s);
  return detail::tree_family(s);
}

}  // namespace microddp
