// run --repeat-steps N's cap (core/exec/repeat_budget.h): a count whose
// estimate passes 60 s is refused before the run, with the estimate (8
// ranks, 1M elements, 100000 repetitions ran silently for hours).
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/exec/repeat_budget.h"

using namespace microddp;

namespace {
Schedule ring(int n, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = count;
  return make_schedule(s);
}
}  // namespace

TEST_SUITE("repeat_budget") {
  TEST_CASE("the estimate: bytes restored per repetition, steps x N, barriers slower when ranks outnumber CPUs") {
    const Schedule s = ring(8, 1000000);  // 14 steps; input and output of 4 MB per rank
    const RepeatEstimate e = estimate_repeat_steps(s, 10, 8);
    CHECK(e.repetitions == 140);
    CHECK(e.bytes_per_repetition == doctest::Approx(64e6));
    CHECK(e.bytes_copied == doctest::Approx(140 * 64e6));
    CHECK(e.seconds == doctest::Approx(140 * (0.064 + 20e-6)));
    // 8 ranks on 2 CPUs: each barrier pair costs (8/2)^2 times as much
    CHECK(estimate_repeat_steps(ring(8, 8), 1, 2).seconds == doctest::Approx(14 * (512 / 1e9 + 16 * 20e-6)));
  }

  TEST_CASE("refused past 60 s, naming N and the largest count that fits; fine below") {
    const Schedule s = ring(8, 1000000);
    CHECK_THROWS_WITH_AS(check_repeat_steps(s, 100000, 8),
                         doctest::Contains("--repeat-steps 100000: 14 steps x 100000 = 1400000 step repetitions, each "
                                           "restoring every rank's memory (61.0 MiB on 8 ranks) between two barriers: "
                                           "81.5 TiB copied, about 24.9 hours on 8 CPUs (copies at 1 GB/s, 20 µs of barriers per "
                                           "repetition); a run may ask for at most 60 s of repetitions"),
                         UsageError);
    CHECK_THROWS_WITH_AS(check_repeat_steps(s, 100000, 8), doctest::Contains("give --repeat-steps 66 or fewer"),
                         UsageError);
    CHECK_NOTHROW(check_repeat_steps(s, 66, 8));
    CHECK_THROWS_AS(check_repeat_steps(s, 67, 8), UsageError);
    CHECK_NOTHROW(check_repeat_steps(s, 0, 1));                 // off
    CHECK_NOTHROW(check_repeat_steps(s, kRepeatStepsAuto, 1));  // auto: its own limits
    CHECK_NOTHROW(check_repeat_steps(ring(2, 8), kRepeatStepsMax, 2));  // 2 steps x 100000 of 64 B: seconds
  }
}
