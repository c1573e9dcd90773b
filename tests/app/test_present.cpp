// The presenter's kit through the window's own frames (no GL): R in
// present mode reveals the current beat's answer on the projected screen,
// --speaker keeps a text file at the current beat's speaker notes, --reveal
// and --speaker as options (app/viz/present.h).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/headless.h"
#include "app/viz/keys.h"
#include "app/viz/lesson_view.h"
#include "app/viz/options.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

namespace fs = std::filesystem;
const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

using test::Headless;

void open_lesson(App& app) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
  app.vs.edit = beat_target(app.lesson->current()).params;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// A fresh folder of this test's own.
fs::path scratch(const char* name) {
  const fs::path d = fs::temp_directory_path() / fmt::format("microddp-present-{}-{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

using test::open_with;

}  // namespace

TEST_SUITE("present") {
  TEST_CASE("R in present mode reveals the beat's answer: the checks and the state after the step show") {
    Headless h;
    App app;
    open_lesson(app);
    app.vs.present = true;
    h.frame(app);
    LessonView& l = *app.lesson;
    h.press(app, Key::reveal);  // beat 1 has no question: nothing to reveal
    CHECK_FALSE(l.answer().answered);
    h.press(app, Key::page_down);
    REQUIRE(l.beat() == 1);
    REQUIRE(l.current().question);
    CHECK_FALSE(l.answer().answered);
    CHECK(l.checks_hidden());
    CHECK(app.session.position() == 1);
    CHECK(l.buffers_position(1) == 0);  // the question is about R0's accum: the inputs until it is answered
    h.press(app, Key::reveal);
    CHECK(l.answer().answered);
    CHECK(l.answer().revealed);
    CHECK_FALSE(l.answer().right);       // nobody answered: the lecturer revealed it
    CHECK(l.answer().chosen == -1);
    CHECK(l.right_answer() == "3) [8, 10, 12]");
    CHECK_FALSE(l.checks_hidden());
    CHECK(l.buffers_position(1) == 1);  // the state after step 0 is on the screen now
    CHECK(app.session.position() == 1);  // R stepped nothing
    CHECK(l.beat() == 1);
    // Outside present mode R starts the run over, as before, and reveals nothing.
    app.vs.present = false;
    h.press(app, Key::next_beat);
    h.press(app, Key::next_beat);
    REQUIRE(l.beat() == 3);
    REQUIRE(l.current().question);
    h.press(app, Key::reset);
    CHECK_FALSE(l.answer().answered);
    CHECK(app.session.position() == 0);
  }

  TEST_CASE("--speaker: the file follows the beat, the question's state on the screen, and the clock") {
    const fs::path dir = scratch("speaker");
    const fs::path notes = dir / "notes.txt";
    Headless h;
    App app;
    open_lesson(app);
    app.vs.present = true;
    app.presenter.speaker_file = notes.string();
    h.frame(app);
    std::string s = read(notes);
    CHECK(s.rfind("The 3-rank ring, step by step: two buffers and a swap\nbeat 1 of 6 · 3 min planned\n", 0) == 0);
    CHECK(has_line(s, "beat 2: Step 0. Each rank sends its send_buff to the right neighbour, receives…"));
    CHECK(s.find("QUESTION") == std::string::npos);
    CHECK(s.find("screen:") == std::string::npos);
    h.press(app, Key::step);
    s = read(notes);
    CHECK(has_line(s, "beat 2 of 6 · 5 min planned"));
    CHECK(has_line(s, "What does R0's accum hold after step 0?"));
    CHECK(has_line(s, "answer: 3) [8, 10, 12]"));
    CHECK(has_line(s, "explain: R0 hears from its left neighbour R2, so accum = T0 + T2 = [1+7, 2+8, 3+9]; the tensor "
                      "that arrived, T2, is what R0 forwards in step 1."));
    CHECK(has_line(s, "screen: question open (R reveals the answer)"));
    h.press(app, Key::reveal);
    CHECK(has_line(read(notes), "screen: answer revealed"));
    h.press(app, Key::back);  // back to beat 1 and on to 2: still revealed
    h.press(app, Key::step);
    CHECK(has_line(read(notes), "screen: answer revealed"));
    // The clock, at a given time: 4:05 into the lecture, on beat 2 (3:00-8:00).
    CHECK(has_line(speaker_text(app, 245),
                   "clock 4:05 elapsed · this beat planned at 3:00-8:00 · 25:00 planned in all · on time"));
    CHECK(has_line(speaker_text(app, 600),
                   "clock 10:00 elapsed · this beat planned at 3:00-8:00 · 25:00 planned in all · 2:00 behind"));
    CHECK_FALSE(fs::exists(dir / "notes.txt.tmp"));
    // The clock in the file runs from the window's start; T starts it again
    // at the current beat's planned start (beat 2: 3:00).
    app.presenter.start = std::chrono::steady_clock::now() - std::chrono::hours(2);
    h.frame(app);
    CHECK(read(notes).find("\nclock 2:00:") != std::string::npos);
    h.press(app, Key::clock);
    CHECK(read(notes).find("\nclock 3:0") != std::string::npos);  // under 10 s since T
    // A student's answer at their own machine reads as such.
    h.press(app, Key::step);
    h.press(app, Key::step);
    REQUIRE(app.lesson->beat() == 3);
    app.lesson->submit("1");
    h.frame(app);
    CHECK(has_line(read(notes), "screen: answered, not right"));
    fs::remove_all(dir);
  }

  TEST_CASE("--speaker and --reveal as options: need --lesson; an unwritable path is refused; --reveal reveals") {
    const fs::path dir = scratch("options");
    {
      App app;
      CHECK(open_with(app, {"--speaker", (dir / "n.txt").string()}) == "--speaker needs --lesson FILE (it is about a "
                                                                       "lesson's beats)");
    }
    {
      App app;
      CHECK(open_with(app, {"--reveal"}) == "--reveal needs --lesson FILE (it is about a lesson's beats)");
    }
    {
      App app;
      CHECK(open_with(app, {"--lesson", kLesson02, "--speaker", ""}) == "--speaker '' is empty: give a path");
    }
    {
      App app;
      const std::string bad = (dir / "no-such-dir" / "n.txt").string();
      CHECK(open_with(app, {"--lesson", kLesson02, "--speaker", bad}) == "--speaker '" + bad + "' is not writable");
    }
    {
      App app;
      const fs::path notes = dir / "n.txt";
      REQUIRE(open_with(app, {"--lesson", kLesson02, "--beat", "2", "--present", "--reveal", "--speaker",
                              notes.string()}) == "");
      CHECK(app.lesson->beat() == 1);
      CHECK(app.lesson->answer().revealed);
      const std::string s = read(notes);  // written when the options opened the lesson, before any frame
      CHECK(has_line(s, "beat 2 of 6 · 5 min planned"));
      CHECK(has_line(s, "screen: answer revealed"));
    }
    fs::remove_all(dir);
  }

  TEST_CASE("poll counts: one whole number per choice, else a message saying what to type") {
    std::string why;
    CHECK(parse_poll("12,30,5,1", 4, &why) == std::vector<int>{12, 30, 5, 1});
    CHECK(parse_poll(" 0 , 7 ", 2, &why) == std::vector<int>{0, 7});
    CHECK_FALSE(parse_poll("12,30,5", 4, &why));
    CHECK(why == "3 counts for 4 choices; type one per choice, e.g. 12,21,30,39");
    CHECK_FALSE(parse_poll("12,-3", 2, &why));
    CHECK(why == "'-3' is not a count (a whole number 0..100000)");
    CHECK_FALSE(parse_poll("12,,3", 3, &why));
    CHECK(why == "'' is not a count (a whole number 0..100000)");
    CHECK_FALSE(parse_poll("1.5,2", 2, &why));
    CHECK(why == "'1.5' is not a count (a whole number 0..100000)");
    CHECK_FALSE(parse_poll("100001,2", 2, &why));
    CHECK(why == "'100001' is not a count (a whole number 0..100000)");
    CHECK_FALSE(parse_poll("99999999999999999999,2", 2, &why));
  }

  TEST_CASE("P in present mode: type the class's votes, Enter; bars and the speaker file's poll line") {
    const fs::path dir = scratch("poll");
    Headless h;
    ImGui::GetIO().KeyMap[ImGuiKey_Enter] = 257;  // GLFW_KEY_ENTER, as the GLFW backend maps it
    App app;
    open_lesson(app);
    app.vs.present = true;
    app.presenter.speaker_file = (dir / "n.txt").string();
    h.frame(app);
    h.press(app, Key::poll);  // beat 1 asks nothing
    CHECK_FALSE(app.presenter.poll_open);
    CHECK(app.presenter.poll_error == "a poll needs a multiple-choice question on this beat");
    h.press(app, Key::page_down);
    CHECK(app.presenter.poll_error == "");  // a new beat: the old message goes
    h.press(app, Key::poll);
    REQUIRE(app.presenter.poll_open);
    h.frame(app);  // the field takes the keyboard
    ImGui::GetIO().AddInputCharactersUTF8("12,30,5,1");
    h.frame(app);
    CHECK(app.presenter.poll_typed == "12,30,5,1");
    h.press(app, Key::page_down);  // typed into the field: not the next beat
    CHECK(app.lesson->beat() == 1);
    ImGui::GetIO().KeysDown[257] = true;
    h.frame(app);
    ImGui::GetIO().KeysDown[257] = false;
    h.frame(app);
    CHECK_FALSE(app.presenter.poll_open);
    CHECK(app.presenter.polls.at(1) == std::vector<int>{12, 30, 5, 1});
    CHECK(poll_line(app) == "1) 12 (25%) · 2) 30 (63%) · 3) 5 (10%) · 4) 1 (2%) · 48 votes");
    CHECK(has_line(read(dir / "n.txt"), "poll: 1) 12 (25%) · 2) 30 (63%) · 3) 5 (10%) · 4) 1 (2%) · 48 votes"));
    CHECK_FALSE(app.lesson->answer().answered);  // a poll answers nothing
    // A bad entry keeps the field open and says why; the keys are the field's meanwhile.
    h.press(app, Key::poll);
    REQUIRE(app.presenter.poll_open);
    CHECK_FALSE(submit_poll(app, "1,2"));
    CHECK(app.presenter.poll_error == "2 counts for 4 choices; type one per choice, e.g. 12,21,30,39");
    CHECK(app.presenter.poll_open);
    CHECK(app.presenter.polls.at(1) == std::vector<int>{12, 30, 5, 1});  // the earlier poll stays
    // --poll as an option, checked against the beat's question.
    App opt;
    CHECK(open_with(opt, {"--lesson", kLesson02, "--beat", "2", "--poll", "1,2,3,4"}) == "");
    CHECK(opt.presenter.polls.at(1) == std::vector<int>{1, 2, 3, 4});
    App bad;
    CHECK(open_with(bad, {"--lesson", kLesson02, "--poll", "1,2"}) ==
          "--poll '1,2' on beat 1: a poll needs a multiple-choice question on this beat");
    fs::remove_all(dir);
  }

  TEST_CASE("--compare-runs A.json B.json: the compare view's two columns replay the two records") {
    const fs::path dir = scratch("runs");
    const std::string cli = MICRODDP_CLI_BIN;
    for (const char* alg : {"ring", "tree"})
      REQUIRE(std::system(fmt::format("{} run --collective all_reduce --algorithm {} --ranks 4 --count 8 --save-record "
                                      "{}/{}.json > /dev/null 2>&1",
                                      cli, alg, dir.string(), alg)
                              .c_str()) == 0);
    const std::string a = (dir / "ring.json").string(), b = (dir / "tree.json").string();
    App app;
    REQUIRE(open_with(app, {"--compare-runs", a, b, "--present"}) == "");
    const Compare& c = app.compare;
    REQUIRE(c.sessions.size() == 2);
    CHECK(c.algorithms == std::vector<std::string>{"A: ring (ring.json)", "B: tree (tree.json)"});
    CHECK(c.sessions[0]->replaying());
    CHECK(c.sessions[1]->replaying());
    CHECK(c.sessions[0]->num_steps() == 6);  // ring on 4 ranks: 2(n-1)
    CHECK(c.sessions[1]->num_steps() == 4);
    CHECK(c.max_steps() == 6);
    // It opens at the last step, each run whole (Compare::go_to_end).
    CHECK(c.position == 6);
    CHECK(c.sessions[0]->position() == 6);
    CHECK(c.sessions[1]->position() == 4);
    app.compare.reset();
    app.compare.step();
    CHECK(c.sessions[0]->position() == 1);
    CHECK(c.sessions[1]->position() == 1);
    // A frame in present mode keeps the replays (nothing re-plans them).
    Headless h;
    app.vs.view = View::compare;
    h.frame(app);
    CHECK(app.compare.sessions.size() == 2);
    CHECK(app.compare.sessions[0]->replaying());
    App bad;
    CHECK(open_with(bad, {"--compare-runs", a, b, "--lesson", kLesson02}) ==
          "--compare-runs and --lesson exclude each other (the two records are the run and the view)");
    App missing;
    CHECK(open_with(missing, {"--compare-runs", a, (dir / "none.json").string()}).find("none.json") !=
          std::string::npos);
    App one;
    CHECK(open_with(one, {"--compare-runs", a}) == "(parse_options: exit)");  // CLI11: two files expected, exit 2
    fs::remove_all(dir);
  }
}
