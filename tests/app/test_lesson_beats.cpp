// The lesson panel's beats through a real ImGui context with no GL: questions
// (choices, typed values, feedback), highlights, *emphasis* text, beat
// targets, ddp beats, stand-ins for beats too large to run, and the views
// the beats pick.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <map>
#include <set>

#include "app/viz/keys.h"
#include "app/viz/panels.h"
#include "app/viz/lesson_view.h"
#include "app/viz/platform.h"
#include "app/viz/scene.h"
#include "app/viz/view_state.h"
#include "app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

using test::Headless;

}  // namespace

TEST_SUITE("lesson_panel") {
  TEST_CASE("questions: choices and typed values, with feedback") {
    LessonView l(lesson::load_lesson(kLesson02));
    CHECK(l.feedback() == "");  // beat 1 has no question
    l.choose(0);
    CHECK_FALSE(l.answer().answered);
    l.next();
    REQUIRE(l.current().question);
    l.choose(0);
    CHECK(l.answer().answered);
    CHECK_FALSE(l.answer().right);
    CHECK(l.feedback() == "Not quite: the answer is 3) [8, 10, 12].");
    l.choose(2);
    CHECK(l.answer().right);
    CHECK(l.feedback() == "Right.");
    l.go(3);  // value question: 24 bytes
    l.submit("20");
    CHECK_FALSE(l.answer().right);
    CHECK(l.feedback() == "Not quite: the answer is 24.");
    l.submit("24");
    CHECK(l.answer().right);
    l.go(1);
    CHECK(l.answer().chosen == 2);  // answers are kept per beat
  }

  TEST_CASE("highlights: ranks, buffers, links and chunks") {
    LessonView l(lesson::load_lesson(kLesson02));
    CHECK(l.row_lit(2, "send_buff"));  // beat 1: buffers only -> every rank's
    CHECK_FALSE(l.row_lit(2, "recv_buff"));
    CHECK_FALSE(l.rank_lit(0));
    l.next();  // ranks [0], buffers [recv_buff, accum], links 2->0
    CHECK(l.rank_lit(0));
    CHECK_FALSE(l.rank_lit(1));
    CHECK(l.row_lit(0, "recv_buff"));
    CHECK_FALSE(l.row_lit(1, "recv_buff"));
    CHECK_FALSE(l.row_lit(0, "send_buff"));
    CHECK(l.link_lit(2, 0));
    CHECK_FALSE(l.link_lit(0, 2));
    l.go(5);  // chunks [0, 1, 2]
    CHECK(l.chunk_lit(1));
    CHECK_FALSE(l.chunk_lit(3));
    CHECK(l.cell_lit(1, "accum", 2));
    CHECK_FALSE(l.row_lit(1, "accum"));
  }

  TEST_CASE("beat text: *emphasis* runs and paragraphs") {
    const auto runs = text_runs("Each rank *sends* its\nbuffer.\n\nThen the *swap*.");
    REQUIRE(runs.size() == 6);
    CHECK(runs[0].text == "Each rank ");
    CHECK(runs[1].text == "sends");
    CHECK(runs[1].emphasis);
    CHECK(runs[2].text == " its buffer.");
    CHECK_FALSE(runs[2].paragraph);
    CHECK(runs[3].text == "Then the ");
    CHECK(runs[3].paragraph);
    CHECK(runs[4].emphasis);
    CHECK(runs[5].text == ".");
    const auto f = text_runs("With these figures:\n  a = 1\n  b = 2\nSo the total is 3.");
    REQUIRE(f.size() == 4);
    CHECK(f[1].pre);
    CHECK(f[1].newline);
    CHECK(f[2].text == "  b = 2");
    CHECK(f[3].text == "So the total is 3.");
    CHECK(f[3].newline);
    CHECK_FALSE(f[3].paragraph);
  }

  TEST_CASE("beat targets: explicit rows, positions and prediction-only setups") {
    const lesson::Lesson l = lesson::load_lesson(kLesson02);
    const BeatTarget t0 = beat_target(l.beats[0]);
    CHECK(t0.drive);
    CHECK(t0.position == 0);
    CHECK(t0.num_steps == 2);
    CHECK(t0.params.data == "1,2,3;4,5,6;7,8,9");
    CHECK(t0.params.spec.count == 3);
    CHECK(beat_target(l.beats[1]).position == 1);
    CHECK(beat_target(l.beats[5]).position == 2);  // at: 1, the end of the scatter-reduce
    lesson::Beat big = l.beats[0];
    big.setup.data.clear();
    big.setup.count = int64_t{1} << 22;
    const BeatTarget tb = beat_target(big);
    // Too large to run: a stand-in of the same shape runs, the note says so.
    CHECK(tb.drive);
    CHECK(tb.stand_in);
    CHECK(tb.params.spec.count == kStandInCount);
    CHECK(tb.params.spec.world_size == 3);
    CHECK(tb.params.spec.algorithm == "ring_unchunked");
    CHECK(tb.params.data == "iota");
    INFO(tb.note);
    CHECK(tb.note.find("stand-in run: 1024 elements per rank on the beat's 3 ranks; the beat's 4194304 elements per "
                       "rank, 16 MiB (16777216 B), are too large to run here (prediction only)") == 0);
  }

  TEST_CASE("a ddp beat's options reach the DDP view's run unchanged; only the batch is the view's") {
    // The lesson's ddp: and the beat's own ddp: together, with fields no
    // panel control edits (lr, seed, link delay, prefetch) off their defaults.
    const lesson::Lesson l = lesson::parse_lesson(R"(title: knobs
ddp: {ranks: 2, depth: 3, width: 16, batch: 8, iterations: 2, lr: 0.125, seed: 7, link_us_per_mb: 250}
beats:
  - kind: ddp
    ddp: {sharded: true, prefetch: false, layer_delay_us: 1500}
    text: sharded, no prefetch
)");
    const BeatTarget t = beat_target(l.beats[0]);
    CHECK(t.view.kind == lesson::BeatView::Kind::ddp);
    CHECK(t.ddp.run == l.beats[0].ddp);
    CHECK(t.ddp.run.ranks == 2);
    CHECK(t.ddp.run.lr == 0.125);
    CHECK(t.ddp.run.seed == 7);
    CHECK(t.ddp.run.link_us_per_mb == 250);
    CHECK(t.ddp.run.sharded);
    CHECK_FALSE(t.ddp.run.prefetch);
    CHECK(t.ddp.run.layer_delay_us == 1500);
    // What the runner trains with: the beat's options whole, batch included
    // (the lesson's text and checks are about its batch of 8).
    CHECK(t.ddp.lesson_batch);
    CHECK(to_options(t.ddp) == l.beats[0].ddp);
    // The panel set 3 ranks on top: 8 samples do not split, so 16 per rank.
    DdpParams edited = t.ddp;
    edited.run.ranks = 3;
    CHECK(to_options(edited).batch == 48);
  }

  TEST_CASE("a beat too large to run shows a stand-in with the real size's prediction (lesson 05)") {
    const lesson::Lesson l = lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/05-alpha-beta.yaml");
    const BeatTarget t0 = beat_target(l.beats[0]), t1 = beat_target(l.beats[1]);
    for (const BeatTarget* t : {&t0, &t1}) {
      CHECK(t->drive);
      CHECK(t->params.spec.world_size == 8);  // the beat's 8 GPUs, not a leftover run
      CHECK(t->params.spec.algorithm == "ring");
      CHECK(t->params.spec.count == kStandInCount);
      CHECK(t->position == t->num_steps);     // at: end
      CHECK(t->num_steps == 14);              // 2 (n - 1)
    }
    // The α-β figures of the beats' texts, under the presets their checks name.
    CHECK(t0.note.find("predicted at that size: 2.93 ms (preset nvlink)") != std::string::npos);
    CHECK(t1.note.find("predicted at that size: 70 ms (preset infiniband)") != std::string::npos);
  }

  TEST_CASE("beats pick the window's view: compare with its algorithms and sizes, DDP, topology, back to steps") {
    const std::string text = R"(title: views
setup: {collective: all_reduce, algorithm: ring, ranks: 4, count: 8}
ddp: {ranks: 2, depth: 2, width: 8, batch: 4, iterations: 1}
beats:
  - {at: end, text: steps}
  - at: end
    view: compare
    compare: {algorithms: [naive, ring], sizes: {min: 4K, max: 16K}}
    text: compare
  - at: end
    setup: {count: 16}
    view: compare
    compare: {algorithms: [naive, ring], sizes: {min: 4K, max: 16K}}
    text: the same sweep at another count
  - kind: ddp
    ddp: {sharded: true, prefetch: false}
    text: fsdp
  - at: start
    setup: {nodes: 2}
    view: topology
    text: two nodes
)";
    Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::parse_lesson(text, "views.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    h.frame(app);
    LessonView& l = *app.lesson;
    CHECK(app.vs.view == View::main);
    CHECK(app.session.params().spec.count == 8);

    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 1);
    CHECK(app.vs.view == View::compare);
    CHECK(app.vs.compare_algorithms == std::vector<std::string>{"naive", "ring"});
    CHECK(app.compare.algorithms == std::vector<std::string>{"naive", "ring"});
    CHECK(app.compare.base == app.session.params());
    CHECK(app.compare.base.spec.world_size == 4);
    CHECK(app.compare.max_steps() == 6);  // naive on 4 ranks: 3 up, 3 down; the ring: 2 (n - 1)
    CHECK(app.compare.position == 6);     // at: end, every column at its end
    CHECK(app.compare.sessions[0]->position() == app.compare.sessions[0]->num_steps());
    CHECK(app.vs.compare_sweep_max_log2 == 14);  // the slider shows the beat's 16 KiB
    while (app.compare.sweep_step()) {
    }
    REQUIRE(app.compare.sweep.size() == 2);
    CHECK(app.compare.sweep[0].algorithm == "naive");
    CHECK(app.compare.sweep[0].bytes == std::vector<double>{4096, 16384});  // min, 4·min (= max)
    CHECK(app.compare.sweep[1].bytes == std::vector<double>{4096, 16384});
    CHECK(app.vs.lesson_next_button[2] > app.vs.lesson_next_button[0]);  // the lesson panel is drawn below

    h.press(app, Key::next_beat);  // only the count changes: the columns re-run, the sweep is kept
    REQUIRE(l.beat() == 2);
    CHECK(app.vs.view == View::compare);
    CHECK(app.compare.base.spec.count == 16);
    CHECK_FALSE(app.compare.sweeping());
    REQUIRE(app.compare.sweep.size() == 2);
    CHECK(app.compare.sweep[1].bytes == std::vector<double>{4096, 16384});

    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 3);
    CHECK(app.vs.view == View::ddp);
    CHECK(app.ddp.edit.run.ranks == 2);
    CHECK(app.ddp.edit.run.depth == 2);
    CHECK(app.ddp.edit.run.width == 8);
    CHECK(app.ddp.edit.run.sharded);
    CHECK_FALSE(app.ddp.edit.run.prefetch);
    CHECK(app.ddp.runner.requested());
    CHECK(app.ddp.runner.last_requested() == app.ddp.edit);
    app.ddp.runner.wait();
    app.ddp.runner.poll();
    CHECK(app.ddp.runner.error() == "");
    REQUIRE(app.ddp.runner.result() != nullptr);
    CHECK(app.ddp.runner.result_params().run.sharded);

    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 4);
    CHECK(app.vs.view == View::main);
    CHECK(app.vs.lesson_topology);
    CHECK(app.session.params().spec.nodes == 2);
    CHECK(app.session.position() == 0);

    for (int i = 0; i < 4; ++i) h.press(app, Key::prev_beat);
    REQUIRE(l.beat() == 0);  // back to a steps beat: the step-through of its run
    CHECK(app.vs.view == View::main);
    CHECK_FALSE(app.vs.lesson_topology);
    CHECK(app.session.params().spec.count == 8);
    CHECK(app.session.params().spec.nodes == 1);
    CHECK(app.session.position() == app.session.num_steps());
  }

}
