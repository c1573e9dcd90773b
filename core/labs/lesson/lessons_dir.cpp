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
  if (fs::is_directory("lessons")) return "lessons";
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::is_directory(p / "lessons") && fs::exists(p / "lessons" / "README.md")) return (p / "lessons").string();
  return "lessons";
}

std::string resolve_lesson_file(const std::string& file) {
  if (fs::exists(file)) return file;
  const fs::path dir = lessons_dir();
  // A shipped lesson is a regular file there (a folder such as lessons/data is not one).
  for (const std::string& name : {file, file + ".yaml"})
    if (const std::string p = (dir / name).string(); fs::exists(p) && irregular_file_kind(p).empty()) return p;
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
