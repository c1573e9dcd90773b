// Where the shipped lessons are, for `microddp lesson` and microddp-viz
// --lesson alike, so that a bare name such as "02-ring-double-buffering"
// (or "02-ring-double-buffering.yaml") opens the same file in both.
#pragma once
#include <string>

namespace microddp::lesson {

// The shipped lessons: $MICRODDP_LESSONS, ./lessons, or lessons/ above the
// executable (build/<preset>/app/microddp -> <repo>/lessons). Never throws;
// "lessons" when none of them exists.
std::string lessons_dir();
// The lesson file `file` names: `file` as given when it exists; else, in
// lessons_dir(), `file` then `file` + ".yaml". A path (it contains '/') that
// matches nothing is returned unchanged, so that loading it reports the path
// the user typed. Throws UsageError for a bare name that matches nothing:
// "lesson 'NAME' not found in DIR; the lessons: A, B, ..." (the *.yaml stems).
std::string resolve_lesson_file(const std::string& file);

}  // namespace microddp::lesson
