// The lesson panel through a real ImGui context with no GL: N / P and the
// Next button move between the beats of lessons/02, and each beat drives the
// real session to its setup and step; the beat's checks run for real; a
// beat's open question about buffer values holds the buffers panel one step
// back until it is answered. Questions, highlights, text and the beats'
// views: test_lesson_beats.cpp.
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

    h.press(app, Key::next_beat);  // single_buffered_ring: its recorded corrupting run, the checks live
    CHECK(l.beat() == 4);
    REQUIRE(app.session.broken().has_value());
    CHECK(app.session.broken()->recorded);
    CHECK(app.session.params().broken.has_value());
    CHECK(app.session.position() == 2);
    CHECK(app.vs.lesson_note.find("the panels show a recorded run (") != std::string::npos);
    CHECK(app.vs.lesson_note.find("the beat's checks run it live, now") != std::string::npos);
    CHECK(app.vs.lesson_note.find("ring_unchunked") == std::string::npos);
    CHECK(app.vs.edit == app.session.params());  // the controls hold what runs
    require_checks_pass(l, 1);  // the one-buffer ring corrupts under delayed sends (real runs)

    h.press(app, Key::next_beat);
    CHECK(l.beat() == 5);
    CHECK(app.session.schedule().spec.algorithm == "ring");
    CHECK(app.session.num_steps() == 4);
    CHECK(app.session.position() == 2);  // at: 1, the end of the scatter-reduce
    CHECK(app.vs.lesson_note == "Bytes per rank after 2 of 4 steps, sent + received: R0 8 + 8, R1 8 + 8, R2 8 + 8; "
                                   "whole run: R0 16 + 16 = 32");
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
