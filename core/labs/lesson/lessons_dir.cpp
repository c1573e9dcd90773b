#include "core/labs/lesson/lessons_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/ir/input_file.h"
#include "core/ir/types.h"

namespace microddp::lesson {

namespace fs = std::filesystem;

std::string lessons_dir() {
  if (const char* env = std::getenv("MICRODDP_LESSONS"); env && *env) return env;
  std::error_code ec;
  if (fs::is_directory("lessons", ec)) return "lessons";
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::is_directory(p / "lessons", ec) && fs::exists(p / "lessons" / "README.md", ec)) return (p / "lessons").string();
  return "lessons";
}

// Whether `p` is there; a path that cannot be looked at (a symlink loop, a
// name too long, no permission on a folder) is a UsageError naming it, not
// a filesystem_error (which the CLI reports as an internal error, exit 1).
static bool there(const std::string& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw UsageError(fmt::format("lesson file '{}' cannot be read: {}", p, ec.message()));
  return fs::exists(st);
}

std::string resolve_lesson_file(const std::string& file) {
  if (there(file)) return file;
  const fs::path dir = lessons_dir();
  // A shipped lesson is a regular file there (a folder such as lessons/data is not one).
  for (const std::string& name : {file, file + ".yaml"})
    if (const std::string p = (dir / name).string(); there(p) && irregular_file_kind(p).empty()) return p;
  if (file.find('/') != std::string::npos) return file;
  // A bare name that matches nothing: say which names would.
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("lesson '{}' not found in {}; the lessons: {}", file, dir.string(),
                               list.empty() ? "(none; set MICRODDP_LESSONS)" : list));
}

}  // namespace microddp::lesson
