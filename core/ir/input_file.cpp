#include "core/ir/input_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "core/ir/types.h"

namespace microddp {

std::string irregular_file_kind(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(path, ec).type();
  if (ec) return "";  // not there, or not to be looked at: the caller's open says why
  switch (type) {
    case fs::file_type::regular:
    case fs::file_type::not_found: return "";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

void require_regular_file(const std::string& path, const std::string& what, const std::string& expected) {
  const std::string kind = irregular_file_kind(path);
  if (kind.empty()) return;
  const std::string why = kind == "a directory"          ? "is a directory"
                          : kind == "not a regular file" ? "is not a regular file"
                                                         : "is " + kind + ", not a regular file";
  throw UsageError(fmt::format("{} '{}': {}{}", what, path, why, expected.empty() ? "" : " (" + expected + ")"));
}

}  // namespace microddp
