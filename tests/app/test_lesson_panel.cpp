// The lesson panel through a real ImGui context with no GL: N / P and the
// Next button move between the beats of lessons/02, and each beat drives the
// real session to its setup and step; the beat's checks run for real; a
// beat's open question about buffer values holds the buffers panel one step
// back until it is answered.
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

// An app with lesson 02 open at beat 1, as `microddp-viz --lesson` starts.
void open_lesson(App& app) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
  app.vs.edit = beat_target(app.lesson->current()).params;
}

std::string cell_text(const App& app, int rank, Buf buf, int cell) {
  const BuffersScene sc = build_buffers(app.session, app.session.position(), BuffersLayout{});
  for (const auto& row : sc.rows)
    if (row.rank == rank && row.buf == buf) return row.cells.at(static_cast<size_t>(cell)).text;
  return "?";
}

void require_checks_pass(LessonView& l, size_t expected_count) {
  l.wait_checks();
  REQUIRE(l.check_error() == "");
  REQUIRE(l.results() != nullptr);
  CHECK(l.results()->size() == expected_count);
  for (const auto& r : *l.results()) {
    INFO(r.what << ": expected " << r.expected << ", got " << r.actual);
    CHECK(r.pass);
  }
}

}  // namespace

TEST_SUITE("lesson_panel") {
  TEST_CASE("N and P move between beats; each beat drives the real run to its step") {
    Headless h;
    App app;
    open_lesson(app);
    h.frame(app);
    LessonView& l = *app.lesson;
    REQUIRE(app.session.configured());
    CHECK(l.num_beats() == 6);
    CHECK(l.beat() == 0);
    CHECK(app.session.schedule().spec.algorithm == "ring_unchunked");
    CHECK(app.session.num_steps() == 2);
    CHECK(app.session.position() == 0);  // at: start
    CHECK(app.vs.lesson_error == "");
    require_checks_pass(l, 2);

    h.press(app, Key::next_beat);
    CHECK(l.beat() == 1);
    CHECK(app.session.position() == 1);  // at: 0 -> after step 0
    CHECK(app.session.steps_run() == 1);
    CHECK(cell_text(app, 0, Buf::accum, 0) == "8");
    CHECK(cell_text(app, 0, Buf::send_buff, 0) == "7");  // after the swap
    require_checks_pass(l, 4);

    h.press(app, Key::next_beat);
    CHECK(l.beat() == 2);
    CHECK(app.session.position() == 2);
    CHECK(cell_text(app, 0, Buf::accum, 2) == "18");
    CHECK(app.session.real_steps_executed() == 2);
    require_checks_pass(l, 5);

    h.press(app, Key::prev_beat);
    CHECK(l.beat() == 1);
    CHECK(app.session.position() == 1);
    CHECK(app.session.real_steps_executed() == 2);  // going back replays, runs nothing
    CHECK(cell_text(app, 0, Buf::accum, 0) == "8");

    h.press(app, Key::prev_beat);
    h.press(app, Key::prev_beat);  // clamped at the first beat
    CHECK(l.beat() == 0);
    CHECK(app.session.position() == 0);
  }

  TEST_CASE("a question's beat: the buffers show the state before its step until it is answered, as the checks wait") {
    Headless h;
    App app;
    open_lesson(app);
    h.frame(app);
    LessonView& l = *app.lesson;
    const auto drawn = [&] {  // cell -> value, as the buffers panel drew them
      std::map<std::string, std::string> m;
      for (const auto& t : app.vs.cell_texts) m[t.what] = t.value;
      return m;
    };
    CHECK(l.beat_position() == 0);
    CHECK(buffers_position(app) == 0);
    // Beat 2 shows step 0 and asks what R0's accum holds after it.
    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 1);
    REQUIRE(app.session.position() == 1);
    CHECK(l.beat_position() == 1);
    CHECK(l.checks_hidden());
    CHECK(buffers_position(app) == 0);
    // Before step 0 only the inputs hold values: no accum, no [8, 10, 12].
    const std::map<std::string, std::string> before = {
        {"R0 input [0, 1)", "1"}, {"R0 input [1, 2)", "2"}, {"R0 input [2, 3)", "3"},
        {"R1 input [0, 1)", "4"}, {"R1 input [1, 2)", "5"}, {"R1 input [2, 3)", "6"},
        {"R2 input [0, 1)", "7"}, {"R2 input [1, 2)", "8"}, {"R2 input [2, 3)", "9"}};
    CHECK(drawn() == before);
    // A position the viewer steps to shows its own values; back at the
    // beat's position they wait again.
    app.session.seek(2);
    h.frame(app);
    CHECK(buffers_position(app) == 2);
    CHECK(drawn()["R0 accum [0, 1)"] == "12");
    app.session.seek(1);
    h.frame(app);
    CHECK(drawn() == before);
    // Any answer, right or wrong, shows the values after step 0.
    l.choose(0);
    CHECK_FALSE(l.right_answer().empty());
    h.frame(app);
    CHECK(buffers_position(app) == 1);
    std::map<std::string, std::string> after = drawn();
    CHECK(after.size() == 36);
    CHECK(after["R0 accum [0, 1)"] == "8");
    CHECK(after["R0 accum [2, 3)"] == "12");
    CHECK(after["R0 send_buff [0, 1)"] == "7");
    // Beats 3 and 4 show their step's values at once: beat 3 asks nothing,
    // beat 4 asks for the bytes sent (its checks count bytes, no buffer
    // values), its answer not in the buffers.
    h.press(app, Key::next_beat);
    CHECK(app.session.position() == 2);
    CHECK(buffers_position(app) == 2);
    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 3);
    CHECK(l.checks_hidden());
    CHECK(app.session.position() == 2);
    CHECK(buffers_position(app) == 2);
    CHECK(drawn()["R0 output [0, 1)"] == "12");
    // Back on beat 2 its answer stands.
    h.press(app, Key::prev_beat);
    h.press(app, Key::prev_beat);
    REQUIRE(l.beat() == 1);
    CHECK(buffers_position(app) == 1);
    CHECK(drawn() == after);
    l.wait_checks();
  }

  TEST_CASE("lesson 01's reduce beat asks for the root's result: its buffers show the inputs (4 ranks, naive: 3 steps)") {
    LessonView l(lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/01-primitives.yaml"));
    REQUIRE(l.go(1));
    REQUIRE(l.current().question.has_value());
    CHECK(l.buffers_position(3) == 3);  // not yet driven: no beat position
    l.mark_driven();
    l.set_beat_position(3);
    CHECK(l.beat_position() == 3);
    CHECK(l.question_about_buffers());  // 16 is in the root's output [16, 20]
    CHECK(l.buffers_position(3) == 0);
    CHECK(l.buffers_position(2) == 2);
    CHECK(l.buffers_position(1) == 1);
    l.submit("16");
    CHECK(l.answer().right);
    CHECK(l.buffers_position(3) == 3);
    // The next beat, driven, starts with no position until the caller sets it.
    REQUIRE(l.go(2));
    l.mark_driven();
    CHECK(l.beat_position() == -1);
    // Beat 8 asks which block R3 keeps ([18, 19]): a step earlier R0's accum
    // already held the whole sum, so the panel goes back to the inputs.
    REQUIRE(l.go(7));
    REQUIRE(l.current().question.has_value());
    CHECK(l.question_about_buffers());
    l.mark_driven();
    l.set_beat_position(6);
    CHECK(l.buffers_position(6) == 0);
    CHECK(l.buffers_position(5) == 5);
  }

  TEST_CASE("a question about something else keeps the buffers where they are: lesson 06's busbw factor") {
    LessonView l(lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/06-reduce-scatter-all-gather.yaml"));
    REQUIRE(l.go(2));
    REQUIRE(l.current().question.has_value());
    CHECK(l.checks_hidden());
    CHECK_FALSE(l.question_about_buffers());  // 1.5 is in no buffer check
    l.mark_driven();
    l.set_beat_position(6);
    CHECK(l.buffers_position(6) == 6);
  }

  TEST_CASE("a beat that switches the setup re-plans: the chunked ring of the last beat") {
    Headless h;
    App app;
    open_lesson(app);
    h.frame(app);
    LessonView& l = *app.lesson;
    for (int i = 0; i < 3; ++i) h.press(app, Key::next_beat);
    CHECK(l.beat() == 3);  // at: end, same setup
    CHECK(app.session.position() == 2);
    require_checks_pass(l, 2);

    h.press(app, Key::next_beat);  // single_buffered_ring: the broken run itself, with delayed sends
    CHECK(l.beat() == 4);
    REQUIRE(app.session.broken().has_value());
    CHECK(app.session.params().broken.has_value());
    CHECK(app.session.position() == 2);
    CHECK(app.vs.lesson_note.find("the one-buffer ring run for real with delayed sends") != std::string::npos);
    CHECK(app.vs.lesson_note.find("ring_unchunked") == std::string::npos);
    CHECK(app.vs.edit == app.session.params());  // the controls hold what runs
    require_checks_pass(l, 1);  // the one-buffer ring corrupts under delayed sends (real runs)

    h.press(app, Key::next_beat);
    CHECK(l.beat() == 5);
    CHECK(app.session.schedule().spec.algorithm == "ring");
    CHECK(app.session.num_steps() == 4);
    CHECK(app.session.position() == 4);  // at: end
    CHECK(app.vs.lesson_note == "");
    CHECK(app.vs.edit == app.session.params());  // the controls show what runs
    require_checks_pass(l, 7);
    CHECK(cell_text(app, 2, Buf::output, 0) == "12");

    h.press(app, Key::next_beat);  // clamped at the last beat
    CHECK(l.beat() == 5);
    CHECK_FALSE(app.session.broken().has_value());
    h.press(app, Key::prev_beat);  // back to the one-buffer ring: re-planned, run again
    CHECK(l.beat() == 4);
    CHECK(app.session.broken().has_value());
    CHECK(app.session.position() == 2);
  }

  TEST_CASE("clicking Next advances the beat") {
    Headless h;
    App app;
    open_lesson(app);
    h.frame(app);
    h.frame(app);
    const float* b = app.vs.lesson_next_button;
    REQUIRE(b[2] > b[0]);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2((b[0] + b[2]) / 2, (b[1] + b[3]) / 2);
    h.frame(app);
    io.MouseDown[0] = true;
    h.frame(app);
    io.MouseDown[0] = false;
    h.frame(app);  // the click (on release)
    CHECK(app.lesson->beat() == 1);
    h.frame(app);  // the session follows in the next frame (lesson_sync before the panels)
    CHECK(app.session.position() == 1);
  }

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
    CHECK(beat_target(l.beats[5]).position == 4);
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
    CHECK(tb.note.find("stand-in run: 1024 elements per rank on the beat's 3 ranks; the beat's 4194304 elements per "
                       "rank are too large to run here (prediction only)") == 0);
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

  TEST_CASE("beat 5 in a still frame: the wrong cells of the broken run are drawn in the error colour") {
    Headless h;
    App app;
    open_lesson(app);
    h.frame(app);
    app.lesson->go(4);
    app.vs.static_frame = true;
    app.vs.collect_probes = true;
    h.frame(app);
    REQUIRE(app.session.broken().has_value());
    REQUIRE(app.session.position() == 2);
    h.frame(app);
    // The cells the scene judges wrong, named as the panel names its probes.
    const BuffersScene sc = build_buffers(app.session, 2, BuffersLayout{});
    std::set<std::string> wrong;
    for (const auto& row : sc.rows)
      for (const auto& c : row.cells)
        if (c.wrong) wrong.insert(fmt::format("R{} {} [{}, {}) wrong", row.rank, row.label, c.begin, c.begin + c.len));
    CHECK(static_cast<int>(wrong.size()) == sc.wrong_cells);
    if (app.session.broken()->corrupted) CHECK_FALSE(wrong.empty());  // its outputs differ from the reference
    std::set<std::string> drawn_red;
    int probed_cells = 0;
    for (const Probe& p : app.vs.probes) {
      if (p.what.find(" [") == std::string::npos) continue;  // cells only
      ++probed_cells;
      if (p.color == error_color()) drawn_red.insert(p.what);
    }
    CHECK(probed_cells == 3 * 4 * 3);  // 3 ranks x (input, send_buff, accum, output) x 3 elements
    CHECK(drawn_red == wrong);
  }
}
