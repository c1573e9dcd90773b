#include "core/ir/protocol.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/ir/types.h"

namespace microddp {
namespace {
constexpr std::string_view kNames[] = {"simple", "ll", "ll128"};
int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

std::string_view name(Protocol p) { return kNames[static_cast<int>(p)]; }

Protocol parse_protocol(std::string_view s) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (kNames[i] == s) return static_cast<Protocol>(i);
  throw UsageError(fmt::format("unknown protocol '{}' (expected one of: simple, ll, ll128)", s));
}

const std::vector<Protocol>& all_protocols() {
  static const std::vector<Protocol> v = {Protocol::simple, Protocol::ll, Protocol::ll128};
  return v;
}

int64_t flag_count(Protocol p, int64_t bytes) {
  bytes = std::max<int64_t>(0, bytes);
  switch (p) {
    case Protocol::ll: return std::max<int64_t>(1, div_up(bytes, kLLDataBytes));
    case Protocol::ll128: return std::max<int64_t>(1, div_up(bytes, kLL128DataBytes));
    case Protocol::simple: break;
  }
  return 1;
}

int64_t wire_bytes(Protocol p, int64_t bytes) {
  switch (p) {
    case Protocol::ll: return kLLWordBytes * flag_count(p, bytes);
    case Protocol::ll128: return kLL128LineBytes * flag_count(p, bytes);
    case Protocol::simple: break;
  }
  return std::max<int64_t>(0, bytes);
}

double wire_ratio(Protocol p) {
  switch (p) {
    case Protocol::ll: return double(kLLWordBytes) / kLLDataBytes;
    case Protocol::ll128: return double(kLL128LineBytes) / kLL128DataBytes;
    case Protocol::simple: break;
  }
  return 1.0;
}

}  // namespace microddp
