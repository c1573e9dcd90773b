// The "error: ..." line for a command-line parse error (CLI11), shared by
// microddp and microddp-viz. CLI11 says "--ranks: At Most 1 required but
// received 2" for a repeated option; this says it in plain words.
#pragma once
#include <regex>
#include <string>

namespace microddp::cli {

inline std::string parse_error_line(const std::string& what) {
  static const std::regex repeated(R"(^(\S+): At Most 1 required but received (\d+)$)");
  std::smatch m;
  if (std::regex_match(what, m, repeated)) return "error: " + m[1].str() + " was given " + m[2].str() + " times; give it once";
  return "error: " + what;
}

}  // namespace microddp::cli
