// libFuzzer target for the lesson loader: any byte string must either load
// or throw LessonError (file:line:column); anything else (another
// exception, a crash, a sanitizer report, a hang) is a bug. Built with
// clang -fsanitize=fuzzer when clang++ is present (tests/CMakeLists.txt);
// the doctest binary also calls it on every fixture and shipped lesson.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/labs/lesson/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)microddp::lesson::parse_lesson(text, "fuzz.yaml");
  } catch (const microddp::lesson::LessonError&) {
  }
  return 0;
}
