// libFuzzer target for the lesson loader: any byte string must either load
// or throw a LessonError located at the input ("fuzz.yaml:LINE:COLUMN: "
// and what was expected). Anything else (another exception, an unlocated
// message, a crash, a sanitizer report, a hang) is a bug: the harness traps
// so that libFuzzer reports the input. Built with clang -fsanitize=fuzzer
// when clang++ is present (tests/CMakeLists.txt); the doctest binary calls
// lesson_load_outcome on every fixture, shipped lesson and truncation.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/labs/lesson/lesson.h"

namespace {

// "FILE:LINE:COLUMN: TEXT" with LINE and COLUMN decimal and TEXT non-empty.
bool located(const std::string& msg, const std::string& file) {
  if (msg.rfind(file + ":", 0) != 0) return false;
  size_t i = file.size() + 1;
  for (int field = 0; field < 2; ++field) {
    const size_t start = i;
    while (i < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i]))) ++i;
    if (i == start || i >= msg.size() || msg[i] != ':') return false;
    ++i;
  }
  return msg.size() > i + 1 && msg[i] == ' ';
}

}  // namespace

// 0: `text` loaded as a lesson; 1: it threw a LessonError located in
// `file` (its message in *error). Any other exception propagates.
int lesson_load_outcome(const std::string& text, const std::string& file, std::string* error) {
  try {
    (void)microddp::lesson::parse_lesson(text, file);
    return 0;
  } catch (const microddp::lesson::LessonError& e) {
    if (error) *error = e.what();
    if (!located(e.what(), file)) throw std::logic_error(std::string("unlocated lesson error: ") + e.what());
    return 1;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)lesson_load_outcome(text, "fuzz.yaml", nullptr);
  } catch (...) {
    __builtin_trap();  // another exception or an unlocated message: a bug
  }
  return 0;  // libFuzzer's convention; the verdict is the trap above
}
