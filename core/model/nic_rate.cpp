#include "core/model/nic_rate.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string>

#include "core/ir/types.h"

namespace microddp {

uint64_t parse_nic_rate(const std::string& text) {
  struct Unit {
    const char* name;
    double bits;
  };
  static const Unit units[] = {
      {"bit", 1.},     {"kbit", 1e3},        {"mbit", 1e6},          {"gbit", 1e9},          {"tbit", 1e12},
      {"kibit", 1024.}, {"mibit", 1048576.}, {"gibit", 1073741824.}, {"tibit", 1099511627776.},
      {"bps", 8.},     {"kbps", 8e3},        {"mbps", 8e6},          {"gbps", 8e9},          {"tbps", 8e12},
      {"kibps", 8. * 1024}, {"mibps", 8. * 1048576}, {"gibps", 8. * 1073741824.}, {"tibps", 8. * 1099511627776.},
  };
  auto bad = [&](const std::string& why) { return UsageError(fmt::format("--nic '{}': {}", text, why)); };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string num = text.substr(0, i), unit = text.substr(i);
  if (num.empty() || num == "." || num.find('.') != num.rfind('.'))
    throw bad("not a rate; give a number and a tc unit such as 100mbit, 1gbit, 12.5mbps");
  std::string lower;
  for (char c : unit) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const Unit* u = nullptr;
  for (const Unit& x : units)
    if (lower == x.name) u = &x;
  if (!u) throw bad(unit.empty() ? "no unit; give one of tc's: bit kbit mbit gbit tbit kibit mibit gibit tibit bps kbps mbps gbps tbps"
                                 : fmt::format("unknown unit '{}'; tc's units: bit kbit mbit gbit tbit kibit mibit gibit tibit bps kbps mbps gbps tbps", unit));
  const double bits = std::stod(num) * u->bits;
  // Below 1 Mbit/s Open MPI's own start-up traffic takes minutes; above
  // 100 Gbit/s the veths, not tbf, set the rate.
  if (!(bits >= 1e6 && bits <= 1e11)) throw bad("must be between 1mbit and 100gbit");
  return static_cast<uint64_t>(std::llround(bits));
}

}  // namespace microddp
