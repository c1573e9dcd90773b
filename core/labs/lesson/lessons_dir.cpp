#include "core/labs/lesson/lessons_dir.h"

#include <cstdlib>
#include <filesystem>

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
  if (!fs::exists(file) && fs::exists(fs::path(lessons_dir()) / file)) return (fs::path(lessons_dir()) / file).string();
  return file;
}

}  // namespace microddp::lesson
