#include "core/algorithms/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>

#include "core/algorithms/common.h"

namespace microddp {

namespace {

constexpr int kNumCollectives = static_cast<int>(Collective::all_to_all) + 1;

struct Registry {
  std::vector<std::unique_ptr<AlgorithmInfo>> records;  // registration order; stable addresses
  std::array<std::vector<std::string>, kNumCollectives> names;

  const AlgorithmInfo* find(const std::string& n, Collective c) const {
    for (const auto& r : records)
      if (r->name == n && r->variant(c)) return r.get();
    return nullptr;
  }

  void add(AlgorithmInfo info) {
    if (info.name.empty()) throw std::logic_error("register_algorithm: a record needs a name");
    if (info.serves.empty())
      throw std::logic_error(fmt::format("register_algorithm: '{}' serves no collective", info.name));
    for (const auto& v : info.serves) {
      if (!v.generate)
        throw std::logic_error(fmt::format("register_algorithm: '{}' for {} has no generator", info.name,
                                           name(v.collective)));
      if (find(info.name, v.collective))
        throw std::logic_error(fmt::format("register_algorithm: algorithm '{}' for {} is already registered",
                                           info.name, name(v.collective)));
    }
    for (const auto& v : info.serves) names[static_cast<int>(v.collective)].push_back(info.name);
    records.push_back(std::make_unique<AlgorithmInfo>(std::move(info)));
  }

  // The names lists are rebuilt in place so references to them stay valid.
  void relist() {
    for (auto& l : names) l.clear();
    for (const auto& r : records)
      for (const auto& v : r->serves) names[static_cast<int>(v.collective)].push_back(r->name);
  }
};

// The built-in families, in teaching order: algorithms_for lists names in
// the order their records arrive here.
Registry& registry() {
  static Registry reg = [] {
    Registry r;
    for (auto family : {detail::tree_algorithms, detail::ring_algorithms, detail::ring_unchunked_algorithms,
                        detail::recursive_algorithms, detail::pairwise_algorithms,
                        detail::hierarchical_algorithms, detail::double_tree_algorithms,
                        detail::direct_algorithms, detail::nvls_algorithms})
      for (auto& info : family()) r.add(std::move(info));
    return r;
  }();
  return reg;
}

}  // namespace

std::string_view name(Layout l) {
  switch (l) {
    case Layout::none: return "none";
    case Layout::ring: return "ring";
    case Layout::star: return "star";
    case Layout::tree: return "tree";
    case Layout::binomial_tree: return "binomial tree";
    case Layout::hypercube: return "hypercube";
    case Layout::double_tree: return "double tree";
    case Layout::full_mesh: return "full mesh";
    case Layout::switch_star: return "switch star";
  }
  return "?";
}

const AlgorithmInfo::Variant* AlgorithmInfo::variant(Collective c) const {
  for (const auto& v : serves)
    if (v.collective == c) return &v;
  return nullptr;
}

void register_algorithm(AlgorithmInfo info) { registry().add(std::move(info)); }

bool unregister_algorithm(const std::string& n, Collective c) {
  Registry& reg = registry();
  const auto it = std::find_if(reg.records.begin(), reg.records.end(),
                               [&](const auto& r) { return r->name == n && r->variant(c); });
  if (it == reg.records.end()) return false;
  reg.records.erase(it);
  reg.relist();
  return true;
}

const AlgorithmInfo* find_algorithm(const std::string& n, Collective c) { return registry().find(n, c); }

const AlgorithmInfo& algorithm_info(const CollectiveSpec& s) {
  if (const AlgorithmInfo* a = find_algorithm(s.algorithm, s.collective)) return *a;
  std::string list;
  for (const auto& a : algorithms_for(s.collective)) list += (list.empty() ? "" : ", ") + a;
  throw UsageError(fmt::format("unknown algorithm '{}' for {} (expected one of: {})", s.algorithm,
                               name(s.collective), list));
}

Layout layout_of(const CollectiveSpec& s) {
  const AlgorithmInfo* a = find_algorithm(s.algorithm, s.collective);
  return a ? a->layout : Layout::none;
}

const std::vector<std::string>& algorithms_for(Collective c) { return registry().names[static_cast<int>(c)]; }

const std::string& preferred_algorithm(Collective c) {
  const auto& names = algorithms_for(c);
  for (const auto& n : names)
    if (find_algorithm(n, c)->preferred) return n;
  static const std::string none;
  return names.empty() ? none : names.front();
}

const std::string& viewer_algorithm() {
  for (const auto& n : algorithms_for(Collective::all_reduce))
    if (find_algorithm(n, Collective::all_reduce)->opens_viewer) return n;
  return preferred_algorithm(Collective::all_reduce);
}

Schedule make_schedule(const CollectiveSpec& s) {
  s.validate();
  const AlgorithmInfo& a = algorithm_info(s);
  if (s.segments > 1 && !a.pipelines)
    throw UsageError(fmt::format("segments = {} needs the chunked ring; algorithm '{}' does not pipeline",
                                 s.segments, s.algorithm));
  if (s.channels > 1 && !a.channels) {
    std::string takers;
    for (const auto& r : registry().records)
      if (r->channels && r->variant(s.collective)) takers += (takers.empty() ? "" : ", ") + r->name;
    throw UsageError(fmt::format("channels = {}: algorithm '{}' does not run in channels (for {}: {})", s.channels,
                                 s.algorithm, name(s.collective), takers.empty() ? "none does" : takers));
  }
  if (a.refuse) a.refuse(s);
  const Generator& g = a.variant(s.collective)->generate;
  return s.channels > 1 ? with_channels(s, g) : g(s);
}

std::vector<std::string> compare_set(Collective c, size_t fill_to) {
  std::vector<std::pair<int, std::string>> marked;
  for (const auto& n : algorithms_for(c))
    if (const int o = find_algorithm(n, c)->compare_order; o > 0) marked.emplace_back(o, n);
  std::stable_sort(marked.begin(), marked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& m : marked) out.push_back(m.second);
  for (const auto& n : algorithms_for(c))
    if (out.size() < fill_to && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

std::vector<std::string> palette_order() {
  std::vector<std::pair<int, std::string>> marked;
  for (const auto& r : registry().records)
    if (r->compare_order > 0 &&
        std::none_of(marked.begin(), marked.end(), [&](const auto& m) { return m.second == r->name; }))
      marked.emplace_back(r->compare_order, r->name);
  std::stable_sort(marked.begin(), marked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& m : marked) out.push_back(m.second);
  for (int c = 0; c < kNumCollectives; ++c)
    for (const auto& n : registry().names[c])
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

const std::string& compare_reference() {
  for (const auto& r : registry().records)
    if (r->compare_reference) return r->name;
  static const std::string none;
  return none;
}

const AlgorithmInfo* broken_variant_of(const std::string& broken_name) {
  for (const auto& r : registry().records)
    if (r->broken && r->broken_name == broken_name) return r.get();
  return nullptr;
}

}  // namespace microddp
