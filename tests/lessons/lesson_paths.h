// The folders the lesson tests read: the shipped lessons (lessons/) and the
// malformed fixtures (tests/lessons/bad/), under MICRODDP_SOURCE_DIR.
#pragma once

#include <filesystem>

namespace microddp::lesson_test {

inline const std::filesystem::path kLessons = std::filesystem::path(MICRODDP_SOURCE_DIR) / "lessons";
inline const std::filesystem::path kBad = std::filesystem::path(MICRODDP_SOURCE_DIR) / "tests" / "lessons" / "bad";

}  // namespace microddp::lesson_test
