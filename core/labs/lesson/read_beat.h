// The parts of a beat that every beat kind reads alike (internal to
// core/labs/lesson; format in lessons/README.md): `view:` with `compare:`,
// `at:`, `highlight:`, `minutes:` with `optional:`, and `question:`. Each
// throws LessonError at the offending node's file:line:column saying what
// was expected. Used by parse_lesson.cpp.
#pragma once
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"

namespace microddp::lesson {

// The beat's `view:` (one of `allowed`) and, with `view: compare`, its
// `compare:` map (algorithms of `collective`, sizes in bytes up to 256M,
// source, file, system, ranks, protocols), read from the beat's node bn.
void read_view(const yaml::Ctx& c, const YAML::Node& bn, BeatView& v, const std::vector<std::string>& allowed,
               Collective collective);
// `at:` a step number, start, end or {phase: NAME}.
Target read_target(const yaml::Ctx& c, const YAML::Node& n);
// `highlight:` ranks, chunks, buffers and links ('FROM->TO'); checked
// against the run by check_highlights (read_options.h).
Highlights read_highlights(const yaml::Ctx& c, const YAML::Node& n);
// The beat's `minutes:` (kMinBeatMinutes..kMaxBeatMinutes) and `optional:`,
// read from the beat's node bn into b.
void read_minutes(const yaml::Ctx& c, const YAML::Node& bn, Beat& b);
// `question:` ask, answer, and choices or a tolerance, explain.
Question read_question(const yaml::Ctx& c, const YAML::Node& n);

}  // namespace microddp::lesson
