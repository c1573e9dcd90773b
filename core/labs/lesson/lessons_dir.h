// Where the shipped lessons are, for `microddp lesson` and microddp-viz
// --lesson alike, so that a bare name such as "02-ring-double-buffering.yaml"
// opens the same file in both.
#pragma once
#include <string>

namespace microddp::lesson {

// The shipped lessons: $MICRODDP_LESSONS, ./lessons, or lessons/ above the
// executable (build/<preset>/app/microddp -> <repo>/lessons). Never throws;
// "lessons" when none of them exists.
std::string lessons_dir();
// `file` as given when it exists, else lessons_dir()/file when that exists,
// else `file` unchanged (so that loading it reports the name the user typed).
std::string resolve_lesson_file(const std::string& file);

}  // namespace microddp::lesson
