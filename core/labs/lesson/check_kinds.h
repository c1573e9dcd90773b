// Internal to core/labs/lesson: how checks are read and evaluated, one
// family per beat kind (checks_collective.cpp with checks_predicted.cpp, checks_ddp.cpp,
// checks_hang.cpp; the check structs are in checks.h), and the helpers
// their results share.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/labs/lesson/lesson.h"
#include "core/labs/lesson/read_yaml.h"

namespace microddp::lesson::checks {

// The `check:` words of each beat kind, in the order messages list them.
extern const std::vector<std::string> kCollectiveNames, kDdpNames, kHangNames, kLabNames;

// What a check is validated against while the lesson loads.
struct BeatContext {
  Beat::Kind kind = Beat::Kind::collective;
  const Setup* setup = nullptr;        // collective beats: the beat's effective setup
  const Prepared* prepared = nullptr;  //   and its schedule
  const std::map<std::string, ddp::Options>* runs = nullptr;  // ddp beats: the named runs so far
  int world = 0;                       // hang beats: ranks
  std::optional<hang::LogLevel> log;   //   and the level of the run's own log (none: no log)
  const LabRequest* lab = nullptr;     // lab beats: the beat's request
  const std::map<std::string, LabRequest>* lab_runs = nullptr;  //   and the named lab runs so far
};

// Reads one entry of a beat's `checks:` list. Throws LessonError at the
// entry (or the offending value): not a mapping, no `check:`, a kind of
// another beat kind ("belongs in a ddp beat"), an unknown kind, unknown or
// missing keys, bad values, and values the beat cannot satisfy (a rank or
// step that does not exist, a run name not defined earlier).
Check read_check(const yaml::Ctx& c, const YAML::Node& n, const BeatContext& beat);

// The family parsers read_check calls once `kind` is known to be theirs.
Check read_collective_check(const yaml::Ctx& c, const YAML::Node& n, const std::string& kind, const Setup& setup,
                            const Prepared& p);
Check read_ddp_check(const yaml::Ctx& c, const YAML::Node& n, const std::string& kind,
                     const std::map<std::string, ddp::Options>& runs);
Check read_hang_check(const yaml::Ctx& c, const YAML::Node& n, const std::string& kind, int world,
                      std::optional<hang::LogLevel> log);
Check read_lab_check(const yaml::Ctx& c, const YAML::Node& n, const std::string& kind, const LabRequest& lab,
                     const std::map<std::string, LabRequest>& runs);

// n[key], or a LessonError at n: "a 'KIND' check needs 'KEY'".
YAML::Node need(const yaml::Ctx& c, const YAML::Node& n, const std::string& kind, const char* key);

// A number above 0 (a time, a tolerance, a percentage), or a LessonError at
// n: 0 or less could never pass, so it is refused while the lesson loads.
double positive(const yaml::Ctx& c, const YAML::Node& n, const std::string& key);

// The NCCL checks of a collective beat (checks_nccl.cpp): their parsers and
// evaluators (no run needed).
check::NcclChoice read_nccl_choice(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
check::PublishedTime read_published_time(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
check::PublishedError read_published_error(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
CheckResult eval_nccl(const check::NcclChoice& k);
CheckResult eval_nccl(const check::PublishedTime& k);
CheckResult eval_nccl(const check::PublishedError& k);

// recorded_faster, recorded_ratio (checks_recorded.cpp): a recorded
// cluster-lab run's claims.
check::RecordedFaster read_recorded_faster(const yaml::Ctx& c, const YAML::Node& n);
check::RecordedRatio read_recorded_ratio(const yaml::Ctx& c, const YAML::Node& n);
CheckResult eval_recorded(const check::RecordedFaster& k);
CheckResult eval_recorded(const check::RecordedRatio& k);

// The prediction checks of a collective beat (checks_predicted.cpp): their
// parsers (presets and links checked while the lesson loads) and
// evaluators, which price the beat's schedule (br: the beat and its
// prepared setup) with the α-β model; no run needed.
struct BeatSetup {
  const Beat& beat;
  const Prepared& p;
};
check::Predicted read_predicted(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
check::Ratio read_ratio(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
check::Faster read_faster(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
check::NicBytes read_nic_bytes(const yaml::Ctx& c, const YAML::Node& n, const Setup& s);
CheckResult eval_predicted(const check::Predicted& k, const BeatSetup& br);
CheckResult eval_predicted(const check::Ratio& k, const BeatSetup& br);
CheckResult eval_predicted(const check::Faster& k, const BeatSetup& br);
CheckResult eval_predicted(const check::NicBytes& k, const BeatSetup& br);

// Evaluates a collective beat's checks (runs its setup when one needs it).
std::vector<CheckResult> evaluate_collective(const Beat& b);

// Shared by the results: "%.6g"; "[1, 2]"; the result of a check built by
// hand into a beat of another kind.
std::string fmt_num(double v);
// A time in seconds as a reader says it: 4 significant digits in s, ms,
// µs or ns ("8.055 µs", "75.06 ms").
std::string fmt_seconds(double s);
std::string int_list(const std::vector<int>& v);
CheckResult wrong_kind(const Mark& m, const char* beat);

}  // namespace microddp::lesson::checks
