// Internal to core/labs/lesson: the readers of a lesson's run options, the
// `setup:`, `ddp:`, `hang:` and `lab:` mappings (format in lessons/README.md).
// Each fills its struct from the mapping and throws LessonError at the
// offending node's file:line:column saying what was expected.
#pragma once
#include "core/labs/ddp/ddp.h"
#include "core/labs/hang/hang.h"
#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"

namespace microddp::lesson {

void read_setup(const yaml::Ctx& c, const YAML::Node& n, Setup& s);
void read_ddp(const yaml::Ctx& c, const YAML::Node& n, ddp::Options& o);
void read_hang(const yaml::Ctx& c, const YAML::Node& n, hang::LabOptions& o);
void read_lab(const yaml::Ctx& c, const YAML::Node& n, LabRequest& q);
// A beat's `highlight:` (n, read into h) against its run: a rank not below
// `world`, a link end not below `endpoints` or a chunk not below `chunks`
// (-1: unchecked) throws LessonError at that entry.
void check_highlights(const yaml::Ctx& c, const YAML::Node& n, const Highlights& h, int world, int endpoints,
                      int chunks);
// A collective beat's `recorded: FILE` (read_recorded.cpp), after its setup
// is prepared (p): fills b.recorded_path and b.recorded_run.
void read_recorded(const yaml::Ctx& c, const YAML::Node& n, Beat& b, const Prepared& p);
// The first place where a record contradicts itself, replayed from its own
// snapshots (recorded_check.cpp), as "FIELD: what": a negative time; an
// event or a step that ends before it begins or begins before the one before
// it on its endpoint ("trace.events[0][3] (step 0, recv): ends at 1 ns,
// before it begins at 5 ns"); a total_ns that is not the steps' span; a
// bytes_sent / bytes_received that the schedule's messages do not add up
// to; an output that is not the last snapshot's output row ("outputs[0][1]
// = 10, but the last snapshot (after step 1) holds 6 in R0's output"; an
// integer avg's, not its sum / n); carried values on an event that is not
// the schedule's recv from that peer (peer -1); a message whose carried
// values the sender's buffer never held during its step (before it, after
// it, or as an op of the step wrote it); an input snapshot that is not the
// inputs; a snapshot element its step's ops do not give from the snapshot
// before it (recorded_replay.h: "trace.steps[0][0].buffers[3].values[2]
// (R0's accum after step 0) = 13, but step 0's ops on the snapshot before it
// give 12"); a correct algorithm's outputs off the reduction of the inputs.
// "" when none.
std::string record_contradiction(const RunRecord& r);

}  // namespace microddp::lesson
