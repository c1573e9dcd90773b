// Scene building (app/viz/scene.h): no ImGui, no GL. Compare colours and
// sweeps, stats, the timeline. Also test_scene_nodes.cpp, test_scene_network.cpp,
// test_scene_network_model.cpp, test_scene_lesson.cpp.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "app/viz/units.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/model/calibrate/calibrate.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("compare: 'fastest' needs a rival, and a tie is not a win") {
    const auto curve = [](const char* a, std::vector<double> us) {
      SweepCurve c;
      c.algorithm = a;
      c.bytes = {4096, 16384, 65536};
      c.measured_us = us;
      return c;
    };
    Compare cmp;
    cmp.base.spec.world_size = 4;
    cmp.sweep = {curve("ring", {3, 2, 1})};  // ring alone: nothing to be faster than
    cmp.finish_sweep();
    CHECK(cmp.crossover.empty());
    CHECK(cmp.crossover_measured == -1);
    cmp.sweep = {curve("ring", {5, 5, 5}), curve("tree", {5, 5, 5})};  // a tie is not a win
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == -1);
    CHECK(cmp.crossover == "Measured here: ring not the fastest at 64 KiB");
    cmp.sweep = {curve("ring", {9, 4, 2}), curve("tree", {3, 5, 8})};  // ring wins from 16 KiB on
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == 1);
    CHECK(cmp.crossover == "Measured here: ring fastest from 16 KiB");
    // On one rank the same numbers are noise: no crossover is claimed.
    cmp.base.spec.world_size = 1;
    cmp.finish_sweep();
    CHECK(cmp.crossover_measured == -1);
    CHECK(cmp.crossover_predicted_bytes == -1);
    CHECK(cmp.crossover == "one rank: every algorithm is the same local copy, so there is no crossover");
  }

  TEST_CASE("an algorithm's compare colour depends on its name only") {
    CHECK(algorithm_color("naive") == rank_color(4));
    CHECK(algorithm_color("tree") == rank_color(5));
    CHECK(algorithm_color("ring") == rank_color(2));
    // The first 11 registered names (naive, tree, ring moved ahead of them
    // still fit in the 14 slots) get 11 different colours, none orange.
    std::vector<std::string> names;
    for (Collective c : all_collectives())
      for (const auto& a : algorithms_for(c))
        if (std::find(names.begin(), names.end(), a) == names.end()) names.push_back(a);
    REQUIRE(names.size() >= 5);
    std::set<uint32_t> seen;
    for (size_t i = 0; i < names.size() && i < 11; ++i) {
      const Rgba c = algorithm_color(names[i]);
      CHECK_MESSAGE(!(c == predicted_color()), names[i]);
      seen.insert(packed(c));
    }
    CHECK(seen.size() == std::min<size_t>(names.size(), 11));
  }

  TEST_CASE("stats: mid-run, the prediction covers the same steps as the measurement") {
    Session s;
    RunParams p = seed_ring();
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 8;
    p.data = "rank";
    s.configure(p);
    const viz::Prediction& pred = s.prediction();
    REQUIRE(pred.available);
    REQUIRE(pred.step_us.size() == 6);
    s.step();
    s.step();
    Stats st = build_stats(s);
    CHECK(st.steps_run == 2);
    CHECK(st.predicted_run_us == doctest::Approx(pred.step_us[0] + pred.step_us[1]));
    CHECK(st.predicted_run_us < st.predicted_us);
    CHECK(st.predicted_us == doctest::Approx(pred.total_us));
    while (s.step()) {}
    st = build_stats(s);
    CHECK(st.finished);
    CHECK(st.predicted_run_us == st.predicted_us);
  }

  TEST_CASE("the predicted colour is no op kind's colour and is Okabe-Ito orange") {
    CHECK(predicted_color() == Rgba{0xE6, 0x9F, 0x00, 255});
    for (OpKind k : {OpKind::send, OpKind::recv, OpKind::recv_reduce, OpKind::copy, OpKind::reduce, OpKind::swap})
      CHECK_MESSAGE(!(op_kind_color(k) == predicted_color()), name(k));
    CHECK(op_kind_color(OpKind::reduce) == Rgba{0xD5, 0x5E, 0x00, 255});
  }

  TEST_CASE("stats: bytes per rank and link, busbw factor") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const Stats st = build_stats(ses);
    CHECK(st.steps == 2);
    CHECK(st.finished);
    CHECK(st.sent == std::vector<int64_t>{24, 24, 24});
    CHECK(st.received == std::vector<int64_t>{24, 24, 24});
    CHECK(st.links.size() == 3);
    CHECK_FALSE(st.busiest_unique);
    CHECK(st.size_bytes == 12);
    CHECK(st.bus_factor == doctest::Approx(4.0 / 3));
    CHECK(st.measured_us > 0);
    // The measured time is the steps' warm medians, the cold first runs are
    // summed apart: the same numbers as the trace's step timings.
    const Trace& tr = ses.trace();
    REQUIRE(tr.step_timing.size() == 2);
    CHECK(st.measured_us == (tr.step_timing[0].median_ns + tr.step_timing[1].median_ns) / 1e3);
    CHECK(st.first_run_us == (tr.step_timing[0].first_run_ns + tr.step_timing[1].first_run_ns) / 1e3);
    CHECK(st.repetitions == std::min(tr.step_timing[0].repetitions, tr.step_timing[1].repetitions));
    CHECK(st.repetitions > 0);
    const TimelineScene tl = build_timeline(ses);
    CHECK(tl.steps.size() == 2);
    CHECK(tl.compressed);
    CHECK_FALSE(tl.bars.empty());
  }

  TEST_CASE("timeline: each step's warm median, spread and first run; a replay shows the recorded ones") {
    Session ses;
    ses.configure(seed_ring());
    ses.seek(2);
    const TimelineScene tl = build_timeline(ses);
    REQUIRE(tl.steps.size() == 2);
    for (const StepSpan& st : tl.steps) {
      // The window repeats steps (auto: 1 to kRepeatAutoMax warm reps).
      CHECK(st.repetitions >= 1);
      CHECK(st.repetitions <= kRepeatAutoMax);
      CHECK(st.includes_barrier);
      CHECK(st.p10_us <= st.median_us);
      CHECK(st.median_us <= st.p90_us);
      CHECK(st.first_run_us > 0);
      // the whisker fits in its step (to rounding: the span is a difference of sums)
      CHECK(st.end_us - st.begin_us >= st.p90_us * (1 - 1e-9));
    }
    // The values shown are those of the one real run.
    REQUIRE(ses.outputs().size() == 3);
    CHECK(ses.outputs()[0] == reference_outputs(ses.schedule().spec, parse_data(ses.schedule().spec, "1,2,3;4,5,6;7,8,9"))[0]);

    // A replay shows the record's timings, not new ones.
    RunRecord rec;
    rec.spec = ses.schedule().spec;
    rec.inputs = parse_data(rec.spec, "1,2,3;4,5,6;7,8,9");
    RunResult res = run_threads(ses.schedule(), rec.inputs);
    rec.outputs = res.outputs;
    rec.trace = res.trace;
    rec.trace.step_timing[0] = StepTiming{48000, 5900, 5100, 7300, 20, true};
    rec.trace.step_timing[1] = StepTiming{6000, 6000, 6000, 6000, 0, true};
    for (auto& rank_events : rec.trace.events)  // a cold real run: every op of step 0 takes 200 us
      for (Event& ev : rank_events)
        if (ev.step == 0) ev.end_ns = ev.begin_ns + 200000;
    Session rep;
    rep.load_replay(record_from_json(record_to_json(rec)));
    rep.seek(2);
    const TimelineScene rt = build_timeline(rep);
    REQUIRE(rt.steps.size() == 2);
    CHECK(rt.steps[0].median_us == doctest::Approx(5.9));
    CHECK(rt.steps[0].p10_us == doctest::Approx(5.1));
    CHECK(rt.steps[0].p90_us == doctest::Approx(7.3));
    CHECK(rt.steps[0].first_run_us == doctest::Approx(48.0));
    // Step 0's slot is sized by its warm time, not by the real run's bars
    // (made 200 us long above): 2 x max(p90, prediction); the bars are drawn
    // in proportion inside it, squeezed by the real span over the slot.
    const StepSpan& s0 = rt.steps[0];
    const double warm0 = std::max(s0.p90_us, s0.predicted_us);
    const double slot = s0.end_us - s0.begin_us;
    CHECK(slot == doctest::Approx(StepSpan::kSlotStretch * warm0));
    REQUIRE(s0.squeeze > 1);
    int bars0 = 0;
    for (const TimelineBar& b : rt.bars)
      if (b.step == 0) {
        ++bars0;
        CHECK(b.begin_us >= s0.begin_us - 1e-9);
        CHECK(b.end_us <= s0.end_us + 1e-9);
        CHECK(b.dur_us == doctest::Approx(200.0));  // the tooltip keeps the real duration
        CHECK(b.squeeze == s0.squeeze);
        CHECK(b.end_us - b.begin_us == doctest::Approx(200.0 / s0.squeeze));  // every op keeps its share
      }
    CHECK(bars0 > 0);
    // (Step 1 keeps the real run's own times, which may or may not fit its
    // slot: nothing to assert about its squeeze.)
    CHECK(rt.steps[0].repetitions == 20);
    CHECK(rt.steps[1].repetitions == 0);
    CHECK(rt.steps[1].median_us == doctest::Approx(6.0));
  }

  TEST_CASE("compare: the sweep runs one point per step, up to the chosen size, with both crossovers") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.count = 8;
    p.data = "rank";
    Compare cmp;
    PredictionSource nvlink;
    nvlink.kind = PredictionSource::Kind::preset;
    nvlink.preset = "nvlink";
    cmp.set_source(nvlink);
    cmp.configure(p, {"naive", "tree", "ring"});
    cmp.start_sweep(64, 1 << 20, 1, 0);  // 64 B, 256 B, ..., 1 MiB: 8 sizes x 3 algorithms
    CHECK(cmp.sweeping());
    CHECK(cmp.sweep_step());
    CHECK(cmp.sweep[0].bytes == std::vector<double>{64});
    CHECK(cmp.sweep[1].bytes.empty());
    int steps = 1;
    while (cmp.sweep_step()) ++steps;
    CHECK(steps == 23);  // the 24th point ends the sweep
    CHECK_FALSE(cmp.sweeping());
    for (const SweepCurve& c : cmp.sweep) {
      REQUIRE(c.bytes.size() == 8);
      CHECK(c.bytes.back() == 1 << 20);
      CHECK(c.counts.back() == (1 << 20) / 4);
      CHECK(c.predicted_us.size() == 8);
      for (double t : c.measured_us) CHECK(t > 0);
    }
    // Predicted on the nvlink preset: ring is the fastest from 1 MiB, the
    // last point; the lines themselves cross between 256 KiB and 1 MiB, where
    // bisecting the model puts the sentence and the marker.
    CHECK(cmp.crossover_predicted == 7);
    const double x = cmp.crossover_predicted_bytes;
    CHECK(x > 256 * 1024);
    CHECK(x < 1024 * 1024);
    CHECK(std::fmod(x, 32.0) == 0);  // whole float32 elements on 8 ranks
    const auto at = [&](const char* alg, double bytes) {
      CollectiveSpec sp = p.spec;
      sp.algorithm = alg;
      sp.count = int64_t(bytes) / 4;
      return predict(make_schedule(sp), nvlink).total_us;
    };
    CHECK(at("ring", x) < at("tree", x));            // ring ahead at the crossover...
    CHECK(at("ring", x - 32) >= at("tree", x - 32));  // ...and not one step below it
    CHECK(at("ring", x) < at("naive", x));
    CHECK(cmp.crossover_predicted_us == doctest::Approx(at("ring", x)));
    CHECK(cmp.crossover.find(fmt::format("Predicted: ring fastest from {}", human_bytes(x))) == 0);
  }

  TEST_CASE("compare: a new prediction source re-prices the sweep's lines, the measured points stay") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 4;
    p.spec.count = 4;
    Compare cmp;
    cmp.configure(p, {"tree", "ring"});
    cmp.run_sweep(64, 256, 1, 0);  // 16 and 64 float32 elements
    REQUIRE(cmp.sweep.size() == 2);
    const std::vector<double> measured = cmp.sweep[1].measured_us;
    PredictionSource src;
    src.kind = PredictionSource::Kind::preset;
    src.preset = "ethernet-10g";
    cmp.set_source(src);
    CHECK(cmp.sweep[1].measured_us == measured);
    REQUIRE(cmp.sweep[1].predicted_us.size() == 2);
    // ring all-reduce, 4 ranks, 64 float32 = 256 B: 6 steps of one 64 B
    // message: 6 x (25 us + 64 B / 1.25e9 B/s).
    CHECK(cmp.sweep[1].predicted_us[1] == doctest::Approx(6 * (25.0 + 64 / 1.25e9 * 1e6)));
    CHECK(cmp.sessions[1]->prediction().source == "predicted (preset ethernet-10g)");
  }

  TEST_CASE("stats line: a live run counts the steps run, a recorded run says all its steps ran") {
    Session ses;
    RunParams p;
    p.spec.collective = Collective::all_reduce;
    p.spec.algorithm = "ring";
    p.spec.world_size = 3;
    p.spec.count = 3;
    p.data = "1,2,3;4,5,6;7,8,9";
    ses.configure(p);
    ses.step();
    const std::string live = stats_summary_line(build_stats(ses));
    CHECK(live.rfind("1 of 4 steps run   |   measured ", 0) == 0);
    CHECK(live.find(" so far") != std::string::npos);
    // The same run replayed from its record, shown at step 1 of 4: the
    // stats do not say "4 of 4 steps run" beside the slider's "1 of 4".
    RunRecord rec;
    rec.spec = ses.schedule().spec;
    rec.inputs = parse_data(rec.spec, p.data);
    RunResult res = run_threads(ses.schedule(), rec.inputs);
    rec.outputs = res.outputs;
    rec.trace = res.trace;
    Session rep;
    rep.load_replay(record_from_json(record_to_json(rec)));
    rep.seek(1);
    const Stats st = build_stats(rep);
    CHECK(st.recorded_run);
    const std::string replayed = stats_summary_line(st);
    CHECK(replayed.rfind("recorded run, all 4 steps   |   measured ", 0) == 0);
    CHECK(replayed.find("steps run") == std::string::npos);
    CHECK(replayed.find(" so far") == std::string::npos);
    Stats one;  // a one-step record (a 2-rank naive run): no "all 1 steps"
    one.recorded_run = one.finished = true;
    one.steps = one.steps_run = 1;
    one.measured_us = 12.5;
    CHECK(stats_summary_line(one) == "recorded run, its one step   |   measured " + format_us(12.5));
  }
}
