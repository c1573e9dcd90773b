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

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"

namespace microddp::lesson {

namespace {

// What a file that is neither a regular file nor a directory is, in words.
std::string_view kind_of(std::filesystem::file_type t) {
  switch (t) {
    case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace

std::string yaml::data_file(const yaml::Ctx& c, const YAML::Node& n, const std::string& f) {
  const std::filesystem::path fp(f);
  const std::string path =
      fp.is_absolute() ? f : (std::filesystem::path(c.file).parent_path() / fp).lexically_normal().string();
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::directory) c.fail(n, fmt::format("'{}' is a directory", f));
  if (!ec && type != std::filesystem::file_type::regular && type != std::filesystem::file_type::not_found)
    c.fail(n, fmt::format("'{}' is not a regular file ({})", f, kind_of(type)));
  return path;
}

Lesson load_lesson(const std::string& path) {
  // Look before opening: a directory opens as an empty stream (read as an
  // "empty lesson"), opening a FIFO for reading blocks until a writer comes
  // (forever, for the user), and a device such as /dev/zero never ends.
  // stat follows symlinks, so a link to a lesson file still loads.
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  // No position in these messages: there is no text to point into.
  constexpr std::string_view kWhatIs =
      "lessons are YAML files such as lessons/01-primitives.yaml; `microddp lesson --list` lists them";
  if (type == std::filesystem::file_type::directory)
    throw LessonError(fmt::format("{} is a directory, not a lesson file ({})", path, kWhatIs));
  // Not there (or not stat-able): the open below says why, with strerror.
  if (!ec && type != std::filesystem::file_type::regular && type != std::filesystem::file_type::not_found)
    throw LessonError(fmt::format("{} is {}, not a lesson file ({})", path, kind_of(type), kWhatIs));
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
