// The terminal views (core/record/printer.h): long vectors are elided in the
// middle unless asked for in full, and elements no op has written yet print
// as "·" instead of the zeros the storage happens to hold.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/record/data.h"
#include "core/record/printer.h"

using namespace microddp;

namespace {
std::vector<double> iota(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i + 1;
  return v;
}
int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
// The seed's shape: an all-reduce of 3 float32 on 3 ranks.
CollectiveSpec seed_spec(const char* algorithm) {
  CollectiveSpec sp;
  sp.collective = Collective::all_reduce;
  sp.algorithm = algorithm;
  sp.world_size = 3;
  sp.count = 3;
  sp.dtype = DType::float32;
  return sp;
}
}  // namespace

TEST_SUITE("printer") {
  TEST_CASE("a vector wider than a line keeps its first and last three values") {
    CHECK(format_values(iota(1024)) == "[1, 2, 3, …, 1022, 1023, 1024]");
    // --full: every value.
    const std::string full = format_values(iota(1024), PrintOptions{true});
    CHECK(full.substr(0, 16) == "[1, 2, 3, 4, 5, ");
    CHECK(full.substr(full.size() - 11) == "1023, 1024]");
    CHECK(count_of(full, ", ") == 1023);
    // Short vectors print whole: 20 values are 70 characters, within a line.
    CHECK(format_values(iota(20)) ==
          "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]");
    CHECK(format_values(iota(21)) == "[1, 2, 3, …, 19, 20, 21]");
    // Six wide values: eliding would hide nothing, so they print whole.
    const std::vector<double> wide(6, 0.1234567890123);
    CHECK(format_values(wide).find("…") == std::string::npos);
    CHECK(join_values({"a", "b"}) == "[a, b]");
  }

  TEST_CASE("unwritten elements print as a dot") {
    CHECK(format_values({0, 5, 0}, {}, {false, true, false}) == "[·, 5, ·]");
    CHECK(format_values({0, 5, 0}) == "[0, 5, 0]");
  }

  TEST_CASE("a step's buffers mark what no op has written yet (the schedule's writes, swaps replayed)") {
    const CollectiveSpec sp = seed_spec("ring");
    const Schedule s = make_schedule(sp);
    const RunResult r = run_threads(s, parse_data(sp, "1,2,3;4,5,6;7,8,9"), RunOptions{});
    REQUIRE(r.trace.snapshots);
    // Step 0 writes one chunk of each output (R0's chunk 2 = 3 + 9), step 1
    // a second, the all-gather the rest.
    CHECK(format_buffers(s, r.trace, 0) == "    R0  output [·, ·, 12]\n    R1  output [5, ·, ·]\n"
                                           "    R2  output [·, 13, ·]\n");
    CHECK(format_buffers(s, r.trace, 1) == "    R0  output [·, 15, 12]\n    R1  output [5, ·, 18]\n"
                                           "    R2  output [12, 13, ·]\n");
    CHECK(format_buffers(s, r.trace, 3) == "    R0  output [12, 15, 18]\n    R1  output [12, 15, 18]\n"
                                           "    R2  output [12, 15, 18]\n");
    CHECK(format_step(s, r.trace, 0).find("  after this step:\n    R0  output [·, ·, 12]") != std::string::npos);
    CHECK(format_step_line(s, r.trace, 0).rfind("step 0 (1st of 4) · phase scatter-reduce · 3 messages, 12 B", 0) == 0);
    const std::string with = format_step_line(s, r.trace, 0, 6.75);
    CHECK(with.ends_with(" · predicted 6.8 µs\n"));  // as format_step
    CHECK(format_step_line(s, r.trace, 0).find("predicted") == std::string::npos);
    // one cold run: no error beside the prediction, and no prediction beside the wall time
    CHECK(with.find("error") == std::string::npos);
    CHECK(format_measured_total(r.trace, 721.3, 30.0).find("predicted") == std::string::npos);
    CHECK(format_outputs(s, r.outputs) == "  R0 [12, 15, 18]\n  R1 [12, 15, 18]\n  R2 [12, 15, 18]\n");
  }

  TEST_CASE("beside a warm median the prediction carries its error, (predicted - measured) / measured, as bench's") {
    CHECK(format_predicted(-1, 5.0).empty());
    CHECK(format_predicted(6.0, -1) == " · predicted 6.0 µs");
    CHECK(format_predicted(6.0, 5.0) == " · predicted 6.0 µs (error +20.0%)");
    CHECK(format_predicted(4.0, 5.0) == " · predicted 4.0 µs (error -20.0%)");
    const CollectiveSpec sp = seed_spec("ring_unchunked");
    const Schedule s = make_schedule(sp);
    RunOptions ro;
    ro.mode = Mode::lockstep;
    ro.repeat_steps = 3;
    const RunResult r = run_threads(s, parse_data(sp, "1,2,3;4,5,6;7,8,9"), ro);
    const double m0 = static_cast<double>(r.trace.timing(0).median_ns) / 1000.0;
    REQUIRE(r.trace.timing(0).repetitions == 3);
    REQUIRE(m0 > 0);
    CHECK(format_step_line(s, r.trace, 0, 6.5).ends_with(fmt::format(" · predicted 6.5 µs (error {:+.1f}%)\n",
                                                                      (6.5 - m0) / m0 * 100)));
    CHECK(format_step(s, r.trace, 0, 6.5).find(fmt::format(" · predicted 6.5 µs (error {:+.1f}%)\n", (6.5 - m0) / m0 * 100)) !=
          std::string::npos);
    const double sum =  // as run_totals adds them
        (static_cast<double>(r.trace.timing(0).median_ns) + static_cast<double>(r.trace.timing(1).median_ns)) / 1000.0;
    CHECK(format_measured_total(r.trace, 0, 13.0).ends_with(fmt::format(" · predicted 13.0 µs (error {:+.1f}%)",
                                                                         (13.0 - sum) / sum * 100)));
  }

  TEST_CASE("after a swap the written marks follow the storages, whatever the backend's events say") {
    const CollectiveSpec sp = seed_spec("ring_unchunked");
    const Schedule s = make_schedule(sp);
    RunResult r = run_threads(s, parse_data(sp, "1,2,3;4,5,6;7,8,9"), RunOptions{});
    const std::string want = "    R0  output [·, ·, ·]  send_buff (B) [7, 8, 9]  recv_buff (A) [1, 2, 3]  accum [8, 10, 12]\n";
    CHECK(format_buffers(s, r.trace, 0).rfind(want, 0) == 0);
    // The CUDA backend's events name no storage: the marks come from the schedule.
    for (auto& evs : r.trace.events)
      for (auto& e : evs) e.storage = -1;
    CHECK(format_buffers(s, r.trace, 0).rfind(want, 0) == 0);
  }

  TEST_CASE("outputs and inputs of a large run are elided per rank, int64 too") {
    CollectiveSpec sp;
    sp.collective = Collective::all_reduce;
    sp.algorithm = "ring";
    sp.world_size = 2;
    sp.count = 4096;
    sp.dtype = DType::int64;
    const Schedule s = make_schedule(sp);
    const RankData in = fill_data(sp, "rank");
    const RunResult r = run_threads(s, in, RunOptions{});
    CHECK_FALSE(r.trace.snapshots);
    CHECK(format_buffers(s, r.trace, 0).empty());
    const std::string out = format_outputs(s, r.outputs);
    CHECK(count_of(out, "\n") == 2);
    CHECK(count_of(out, "…") == 2);
    CHECK(format_outputs(s, r.outputs, PrintOptions{true}).size() > 2 * 4096 * 3);
    CHECK(count_of(format_inputs(sp, in), "…") == 2);
  }

  TEST_CASE("run totals: the sum of the warm step medians, the cold first runs named apart") {
    // The numbers of a seed run: step medians 14.8 and 14.6 µs over 50 warm
    // runs, first runs 585.3 and 94.0 µs, wall time 721.3 µs.
    Trace t;
    t.world_size = 3;
    t.total_ns = 721300;
    t.steps.resize(2, std::vector<RankStepRecord>(3));
    t.step_timing = {summarize_step_samples(585300, std::vector<int64_t>(50, 14800), true),
                     summarize_step_samples(94000, std::vector<int64_t>(50, 14600), true)};
    const RunTotals r = run_totals(t);
    CHECK(r.median_us == doctest::Approx(29.4));
    CHECK(r.first_run_us == doctest::Approx(679.3));
    CHECK(r.repetitions == 50);
    CHECK(format_measured_total(t, 721.3) ==
          "29.4 µs measured (sum of step medians over 50 warm runs; first run 679.3 µs)");
    // Unrepeated steps (--repeat-steps 0, free mode): the wall time and the mode.
    t.step_timing = {summarize_step_samples(585300, {}, true), summarize_step_samples(94000, {}, true)};
    CHECK(run_totals(t).median_us < 0);
    CHECK(run_totals(t).first_run_us == doctest::Approx(679.3));
    CHECK(format_measured_total(t, 721.3) == "721.3 µs measured (lockstep)");
    t.mode = Mode::free;
    CHECK(format_measured_total(t, 721.3) == "721.3 µs measured (free)");
  }

  TEST_CASE("one step vocabulary: steps named from 0, positions count the steps run") {
    CHECK(ordinal(1) == "1st");
    CHECK(ordinal(2) == "2nd");
    CHECK(ordinal(3) == "3rd");
    CHECK(ordinal(4) == "4th");
    CHECK(ordinal(11) == "11th");
    CHECK(ordinal(12) == "12th");
    CHECK(ordinal(13) == "13th");
    CHECK(ordinal(21) == "21st");
    CHECK(ordinal(102) == "102nd");
    CHECK(ordinal(113) == "113th");
    CHECK(step_label(0, 2) == "step 0 (1st of 2)");
    CHECK(step_label(13, 14) == "step 13 (14th of 14)");
    CHECK(position_label(0, 14) == "before step 0 · 0 of 14 steps run");
    CHECK(position_label(3, 14) == "after step 2 · 3 of 14 steps run");
    CHECK(position_label(14, 14) == "after step 13 · 14 of 14 steps run");
    CHECK(position_label(20, 14) == "after step 13 · 14 of 14 steps run");
    CHECK(position_label(-1, 14) == "before step 0 · 0 of 14 steps run");
    CHECK(position_label(3, 0) == "no steps");
  }
}
