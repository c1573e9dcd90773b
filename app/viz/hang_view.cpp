#include "app/viz/hang_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace microddp::viz {

using namespace microddp::lesson;

BeatTarget hang_beat_target(const Beat& b, const PredictionSource& source) {
  // The hang lab's own ranks and call: the faulted call (#fault_call, an
  // all_reduce of count >> fault_call elements) on the lesson's ranks,
  // before its first step when a fault stops it (every rank that got
  // there waits at its monitored barrier), after its last when healthy.
  const hang::LabOptions& h = b.hang;
  Beat c = b;
  c.kind = Beat::Kind::collective;
  c.checks.clear();
  c.setup = Setup{};
  c.setup.collective = "all_reduce";
  c.setup.algorithm = h.algorithm;
  c.setup.ranks = h.ranks;
  c.setup.count = std::max<int64_t>(1, h.count >> h.fault_call);
  c.setup.fill = "iota";
  const bool healthy = h.fault == hang::Fault::none;
  c.at.kind = healthy ? Target::Kind::end : Target::Kind::start;
  BeatTarget t = beat_target(c, source);
  t.view = b.view;
  t.note = fmt::format("the panels show call #{} (all_reduce of {} elements) on the hang lab's {} ranks {}; the "
                       "checks run the hang lab for real (`microddp hang-lab` prints the report)",
                       h.fault_call, c.setup.count, h.ranks,
                       healthy ? "after its last step: every rank got through"
                               : "before its first step: the ranks that arrive wait at its monitored barrier");
  return t;
}

}  // namespace microddp::viz
