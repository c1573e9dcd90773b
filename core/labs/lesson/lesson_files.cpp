// Lesson files on disk: load_lesson (stat first, so a directory, FIFO or
// device gets a clear LessonError instead of an empty or endless read), the
// same look at the data files a lesson names (data_file) and
// list_lessons (every .yaml in a folder with its title, or the error that
// stopped it). The text itself is parsed by parse_lesson.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/ir/input_file.h"
#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"

namespace microddp::lesson {

std::string yaml::data_file(const yaml::Ctx& c, const YAML::Node& n, const std::string& f) {
  const std::filesystem::path fp(f);
  const std::string path =
      fp.is_absolute() ? f : (std::filesystem::path(c.file).parent_path() / fp).lexically_normal().string();
  const std::string kind = irregular_file_kind(path);
  if (kind == "a directory") c.fail(n, fmt::format("'{}' is a directory", f));
  if (!kind.empty()) c.fail(n, fmt::format("'{}' is not a regular file ({})", f, kind));
  return path;
}

Lesson load_lesson(const std::string& path) {
  // Look before opening: a directory opens as an empty stream (read as an
  // "empty lesson"), opening a FIFO for reading blocks until a writer comes
  // (forever, for the user), and a device such as /dev/zero never ends.
  // stat follows symlinks, so a link to a lesson file still loads.
  // No position in these messages: there is no text to point into. Not
  // there (or not stat-able): the open below says why, with strerror.
  constexpr std::string_view kWhatIs =
      "lessons are YAML files such as lessons/01-primitives.yaml; `microddp lesson --list` lists them";
  if (const std::string kind = irregular_file_kind(path); !kind.empty())
    throw LessonError(fmt::format("{} is {}, not a lesson file ({})", path, kind, kWhatIs));
  errno = 0;
  std::ifstream in(path);
  if (!in) throw LessonError(fmt::format("cannot open {}: {}", path, std::strerror(errno != 0 ? errno : ENOENT)));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_lesson(ss.str(), path);
}

std::vector<LessonInfo> list_lessons(const std::string& dir) {
  std::vector<LessonInfo> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".yaml") continue;
    LessonInfo info{e.path().string(), ""};
    try {
      info.title = load_lesson(info.file).title;
    } catch (const std::exception& x) {
      info.title = fmt::format("(error: {})", x.what());
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const LessonInfo& a, const LessonInfo& b) { return a.file < b.file; });
  return out;
}

}  // namespace microddp::lesson
