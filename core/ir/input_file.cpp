#include "core/ir/input_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "core/ir/types.h"

namespace microddp {

void require_regular_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(path, ec).type();
  const auto refuse = [&](const char* why) { throw UsageError(fmt::format("{} '{}': {}", what, path, why)); };
  switch (type) {
    case fs::file_type::regular:
    case fs::file_type::not_found: return;
    case fs::file_type::directory: refuse("is a directory");
    case fs::file_type::fifo: refuse("is a FIFO (named pipe), not a regular file");
    case fs::file_type::character: refuse("is a character device, not a regular file");
    case fs::file_type::block: refuse("is a block device, not a regular file");
    case fs::file_type::socket: refuse("is a socket, not a regular file");
    default: refuse(ec ? "cannot be read" : "is not a regular file");
  }
}

}  // namespace microddp
