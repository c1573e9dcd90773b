// The lesson text says what its slide shows (issue 37): lesson 09's ring
// time beside its question, the recorded lab runs' own figures (1.24 ms for
// 4 MiB on one host, 289x between hosts) and who runs the lab; lesson 08's
// flight-recorder entry as the hang view prints it.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "app/headless.h"
#include "app/viz/compare_sources.h"
#include "app/viz/ddp_view.h"
#include "app/viz/lab_recorded.h"
#include "app/viz/panels.h"
#include "app/viz/scene_topology.h"
#include "app/viz/view_state.h"
#include "app/viz/lesson_view.h"
#include "core/labs/lesson/lesson.h"
#include "core/model/lab_record.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
const std::string kDir = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";
bool has(const std::string& s, const std::string& p) { return s.find(p) != std::string::npos; }
}  // namespace

TEST_SUITE("lesson_text_figures") {
  TEST_CASE("lesson 09: the figures in the text are the slide's") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "09-topology.yaml");
    const auto text = [&](int beat) { return l.beats.at(size_t(beat - 1)).text; };
    CHECK(has(text(4), "The flat ring's predicted time here: 75.1 ms."));
    CHECK(has(text(11), "The window shows the same runs recorded on 2026-12-07."));
    CHECK_FALSE(has(text(11), "start the lab themselves"));
    CHECK(has(text(12), "1.24 ms for 4 MiB, about 3.4 GB/s on an idle 2-core machine"));
    CHECK_FALSE(has(text(12), "busy"));
    CHECK(has(text(13), "the shared-memory run took 1.24 ms. The recorded ratio\nis about 290×: two link classes more than two orders of magnitude"));
    // The recorded runs say the same: 1.24 ms one host, 288.99x between two.
    CHECK(has(recorded_note(l, 12), "ring / ring in run 'one_node' (1.24 ms) = 288.99, the check: > 10"));
  }

  TEST_CASE("lesson 08 beat 2 reads the recorder as the window prints it") {
    // The question quotes the entry (the text no longer answers it).
    const lesson::Lesson l = lesson::load_lesson(kDir + "08-hunt-the-hang.yaml");
    REQUIRE(l.beats.at(1).question);
    CHECK(has(l.beats.at(1).question->ask, "Every flight recorder ends \"#1 all_reduce 512 failed\"."));
    CHECK_FALSE(has(l.beats.at(1).text, "completed #0"));
  }

  TEST_CASE("lesson 05 beat 2's stand-in note gives the beat's size in MiB with its bytes") {
    LessonView L(lesson::load_lesson(kDir + "05-alpha-beta.yaml"));
    L.go(1);
    const BeatTarget t = beat_target(L.current());
    INFO(t.note);
    CHECK(has(t.note, "the beat's 250000000 elements per rank, 953.7 MiB (1000000000 B), are too large to run here"));
  }

  TEST_CASE("lecturer pass 5: each sentence says what its slide shows") {
    const auto beat = [](const std::string& file, int b) { return lesson::load_lesson(kDir + file).beats.at(size_t(b - 1)); };
    const lesson::Beat b07_7 = beat("07-bucketing-overlap.yaml", 7);
    REQUIRE(b07_7.question);
    CHECK(has(b07_7.question->explain, "exposed 5 ms against the 'none' run's 20 ms."));
    CHECK_FALSE(has(b07_7.question->explain, "''"));
    CHECK(has(beat("07-bucketing-overlap.yaml", 8).text, "nothing is left to overlap: the header's\noverlap reads 0%"));
    CHECK(has(beat("05-alpha-beta.yaml", 1).text, "the real 1 GB above\nthis text."));
    CHECK(has(beat("03-naive-tree-ring.yaml", 11).text, "reading \"measured now in the cluster lab\""));
    CHECK(has(beat("02-ring-double-buffering.yaml", 5).text, "really travelled; the checks run the seeds again, live."));
    CHECK(has(beat("08-hunt-the-hang.yaml", 1).text, "the sleeping\nrank of the next beat stalls the all_reduce."));
    const std::string b09_11 = beat("09-topology.yaml", 11).text;
    CHECK(has(b09_11, "(the picture is the\nshared-memory stand-in, \"measured: shared memory here\")"));
    CHECK_FALSE(has(b09_11, "*Measured on emulated hosts.*"));
  }

  TEST_CASE("lesson 09 beat 10's one-decimal answer reads 8.0 in the window, as in the terminal") {
    LessonView L(lesson::load_lesson(kDir + "09-topology.yaml"));
    L.go(9);
    REQUIRE(L.current().question);
    CHECK(has(L.current().question->ask, "(one decimal)"));
    CHECK(L.right_answer() == "8.0");
    CHECK(L.right_answer() == L.current().question->answer_text());
  }

  TEST_CASE("lesson 09 beat 2's bottleneck bytes are labelled as the stand-in run's") {
    test::Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kDir + "09-topology.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    h.frame(app);
    app.lesson->go(1);
    h.frame(app);
    h.frame(app);
    // The condition panel_topology.cpp labels on: the beat runs a stand-in.
    REQUIRE(app.vs.lesson_note.rfind(kStandInNote, 0) == 0);
    TopologyScene sc = build_topology(app.session, app.session.position(), Vec2{800, 400}, 0.5f, nullptr);
    CHECK(sc.bottleneck == "all 8 NIC out and in ports, equally (512 B each)");
    label_stand_in_bytes(sc);
    CHECK(sc.bottleneck == "all 8 NIC out and in ports, equally (stand-in run: 512 B each)");
    withhold_bytes(sc);  // an open question keeps the bytes back: no label left dangling
    CHECK(sc.bottleneck == "all 8 NIC out and in ports, equally");
  }

  TEST_CASE("lecturer pass 6: each sentence says what its slide shows") {
    const auto beat = [](const std::string& file, int b) { return lesson::load_lesson(kDir + file).beats.at(size_t(b - 1)); };
    // 08 b2: the explanation backs its "No" (every recorder ends the same here).
    const lesson::Beat b08_2 = beat("08-hunt-the-hang.yaml", 2);
    REQUIRE(b08_2.question);
    CHECK(b08_2.question->answer == 2);
    CHECK(has(b08_2.question->explain, "Here the verdict wakes the sleeper and it fails #1 too, so every recorder ends "
                                       "the same; only in a real hang, where nothing wakes it, would the stuck rank's "
                                       "recorder stop earlier."));
    CHECK_FALSE(has(b08_2.question->explain, "would end at #0"));
    // 08 b7: two whole sentences round the command.
    const std::string b08_7 = beat("08-hunt-the-hang.yaml", 7).text;
    CHECK(has(b08_7, "logged at\nINFO, as this command logs it:\n  MICRODDP_DEBUG=INFO microddp hang-lab"));
    CHECK(has(b08_7, "\nUnder the verdict are each rank's line for seq 1 and the verdict's\nfirst WARN line."));
    CHECK_FALSE(has(b08_7, "logs it; under"));
    // 07 b7: the explanation's figure as the answer shows it.
    const lesson::Beat b07_7 = beat("07-bucketing-overlap.yaml", 7);
    REQUIRE(b07_7.question);
    CHECK(b07_7.question->answer_text() == "0.88");
    CHECK(has(b07_7.question->explain, "= 0.875, i.e. 0.88 to two decimals."));
    // 10 b6: parameters are parameters, bytes are bytes (4 layers of 64 x 64 + 64).
    CHECK(4 * (64 * 64 + 64) == 16640);
    CHECK(has(beat("10-fsdp-prefetch.yaml", 6).text, "all 4 × 4,160 = 16,640 parameters (66,560 bytes)"));
    // 09 b11: the title says what the figures are, not the picture.
    const std::string b09_11 = beat("09-topology.yaml", 11).text;
    CHECK(b09_11.rfind("*Emulated hosts, in this text's figures* (the picture is the\nshared-memory stand-in", 0) == 0);
    CHECK_FALSE(has(b09_11, "Measured on emulated hosts"));
  }

  TEST_CASE("lecturer pass 6: the app's labels") {
    // 09 b16: the model's Source line has no raw backticks.
    const SourceSweep m = model_sweep("dgx-h100", Collective::all_reduce, 16, 64, 256 << 20, false);
    CHECK(has(m.label, "NCCL 2.30.7's tuning constants, as microddp predict --nccl-system dgx-h100 prints them"));
    CHECK(m.label.find('`') == std::string::npos);
    // 03 b10, 05 b7: a recording's "alpha 50 us" reads "α 50 µs" on the slide.
    const SourceSweep r = recorded_sweep(load_lab_record(kDir + "data/lab-allreduce-8x1-1gbit.json"), {});
    CHECK(r.lines == "the lab's model (the lab's shaped links: inter-node 125.000 MB/s per NIC (the tbf rate), α 50 µs assumed; "
                    "intra-node 1.000 µs, 10000.000 MB/s from the \"lab\" topology's shared memory, assumed)");
    // 09 b12: no "ms))" once the window puts the note in parentheses.
    const std::string note = recorded_note(lesson::load_lesson(kDir + "09-topology.yaml"), 11);
    CHECK(has(note, "median of 5: ring 1.24 ms, p10-p90 1.18 ms to 1.47 ms"));
    CHECK(note.back() != ')');
    // 02 b2: the buffers' line while a question holds them.
    CHECK(buffers_wait_text(0, 1) == "buffers before step 0; step 0's result once you answer");
    CHECK(buffers_wait_text(1, 4) == "buffers before step 1; the results of steps 1-3 once you answer");
    // 07 b2: the DDP header labels its reference difference.
    ddp::Result d;
    d.iterations.resize(2);
    d.iterations[0].loss = 2.5;
    d.iterations[1].loss = 1.25;
    d.max_reference_rel_error = 1.4e-8;
    CHECK(ddp_loss_text(d) == "loss 2.5 -> 1.25, loss diff vs 1 process: 1.4e-08");
    d.max_reference_rel_error = std::numeric_limits<double>::quiet_NaN();
    CHECK(ddp_loss_text(d) == "loss 2.5 -> 1.25");
  }
}

TEST_SUITE("lesson_text_figures") {
  TEST_CASE("lecturer pass 7: a beat that runs at its own size shows the model's time its text quotes") {
    const lesson::Lesson l = lesson::load_lesson(kDir + "05-alpha-beta.yaml");
    // 05 b3 and b4 quote 28 µs and 29.75 µs; the slide showed no time.
    // No brackets inside the note's own (lecturer pass 8).
    CHECK(beat_target(l.beats.at(2)).note == "the α-β model for 256 B per rank: 28 µs on preset infiniband");
    CHECK(beat_target(l.beats.at(3)).note == "the α-β model for 24.4 KiB per rank: 29.8 µs on preset infiniband");
    // A beat without a `predicted` check gets no such note (05 b6, the shm sweep).
    CHECK_FALSE(has(beat_target(l.beats.at(5)).note, "α-β model"));
  }
}
