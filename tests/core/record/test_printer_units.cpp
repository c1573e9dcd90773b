// One time vocabulary in the terminal views (issue 37): the step times and
// the run's totals print by core/ir/units.h's format_us, µs below 1 ms, ms
// from 1 ms to 1 s, s above, one decimal ("41290.4 µs" was printed).
#include <doctest/doctest.h>

#include <string>

#include "core/ir/units.h"
#include "core/record/printer.h"

using namespace microddp;

TEST_SUITE("printer") {
  TEST_CASE("format_us with decimals: the unit chosen on the value as printed") {
    CHECK(format_us(721.34, 1) == "721.3 µs");
    CHECK(format_us(999.94, 1) == "999.9 µs");
    CHECK(format_us(999.96, 1) == "1.0 ms");  // never "1000.0 µs"
    CHECK(format_us(41290.4, 1) == "41.3 ms");
    CHECK(format_us(122589.1, 1) == "122.6 ms");
    CHECK(format_us(999960, 1) == "1.0 s");
    CHECK(format_us(2.5e6, 1) == "2.5 s");
    CHECK(format_us(0.04, 1) == "0.0 µs");
    CHECK(format_us(-1, 1) == "n/a");
    CHECK(format_us(20000) == "20 ms");  // the window's three significant digits, the lesson's layer delay
    CHECK(mib_text(0.0015) == "0.0015 MiB (1573 B)");
    CHECK(mib_text(25) == "25 MiB (26214400 B)");
  }

  TEST_CASE("format_predicted and a step's time move to ms past 1 ms") {
    CHECK(format_predicted(17541.64, -1) == " · predicted 17.5 ms");
    CHECK(format_predicted(6.0, 5.0) == " · predicted 6.0 µs (error +20.0%)");
    StepTiming t;
    t.repetitions = 50;
    t.median_ns = 17541600;
    t.p10_ns = 950000;
    t.p90_ns = 1200000000;
    t.first_run_ns = 122589100;
    t.includes_barrier = true;
    CHECK(format_step_time(t) ==
          "17.5 ms median (p10 950.0 µs, p90 1.2 s, 50 reps, barrier included; first run 122.6 ms)");
    t.repetitions = 0;
    CHECK(format_step_time(t) == "measured 122.6 ms (one run, barrier included)");
  }
}
