// A beat's question that a step count or the buffers' shape would answer
// (hostile review 10): lesson 04 beat 3 asks how many steps the
// scatter-reduce phase takes while the run stands at that phase's end
// (step 2 of 6), so the captions say "the phase's last step" until it is
// answered; lesson 01 beat 3 asks how many elements the root's output holds
// while the buffers are held before step 0, so the empty output is one bar.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "app/viz/describe.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/held_cells.h"
#include "app/viz/scene.h"
#include "app/viz/step_total.h"
#include "app/viz/view_state.h"
#include "core/record/printer.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

const fs::path kLessons = fs::path(MICRODDP_SOURCE_DIR) / "lessons";

struct SkipChecks {
  SkipChecks() { setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipChecks() { unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
  SkipChecks(const SkipChecks&) = delete;
  SkipChecks& operator=(const SkipChecks&) = delete;
};

void open_at(App& app, const char* file, int beat) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson((kLessons / file).string()));
  app.vs.edit = beat_target(app.lesson->current()).params;
  apply_params(app);
  lesson_sync(app);
  app.lesson->go(beat);
  lesson_sync(app);
}

std::string line_of(const std::string& d, const std::string& key) {
  std::istringstream in(d);
  const std::string k = key + ": ";
  for (std::string l; std::getline(in, l);)
    if (l.rfind(k, 0) == 0) return l.substr(k.size());
  return "";
}

}  // namespace

TEST_SUITE("answer_first_window") {
  TEST_CASE("a phase's step count: the captions at its end name no step total until answered") {
    CHECK(without_phase_steps("all_reduce ring - step 2 (3rd of 6) · phase scatter-reduce", 6, {0, 2}) ==
          "all_reduce ring - the phase's last step · phase scatter-reduce");
    CHECK(without_phase_steps(position_label(3, 6), 6, {0, 2}) ==
          "after the phase's last step · steps run to the phase's end");
    // Another step's number stays.
    CHECK(without_phase_steps("step 1 (2nd of 6)", 6, {0, 2}) == "step 1");

    SkipChecks skip;
    App app;
    open_at(app, "04-chunked-ring.yaml", 2);  // beat 3 (go takes the index)
    REQUIRE(app.session.position() == 3);
    const auto ph = withheld_phase(app);
    REQUIRE(ph);
    CHECK(ph->first == 0);
    CHECK(ph->last == 2);
    CHECK(timeline_withheld(app));
    CHECK(line_of(describe_picture(app), "buffers") == "after the phase's last step · steps run to the phase's end");
    app.lesson->submit("3");
    CHECK_FALSE(withheld_phase(app));
    CHECK_FALSE(timeline_withheld(app));
    CHECK(line_of(describe_picture(app), "buffers") == "after step 2 · 3 of 6 steps run");
    // Beat 4 (the end, no question) is told whole.
    app.lesson->go(3);  // beat 4
    lesson_sync(app);
    CHECK_FALSE(withheld_phase(app));
  }

  TEST_CASE("lesson 01 beat 3: the root's empty output is one bar while the question is open") {
    SkipChecks skip;
    App app;
    open_at(app, "01-primitives.yaml", 2);  // beat 3
    REQUIRE(app.lesson->current().question);
    const int held = app.lesson->buffers_position(app.session.position());
    REQUIRE(held == 0);
    REQUIRE(app.session.position() == 3);
    BuffersScene sc = build_buffers(app.session, held, BuffersLayout{});
    const auto output_cells = [](const BuffersScene& s) {
      for (const auto& r : s.rows)
        if (r.rank == 0 && r.buf == Buf::output) return r.cells;
      return std::vector<CellDraw>{};
    };
    REQUIRE(output_cells(sc).size() == 8);  // one slot per element, countable
    merge_unwritten_cells(sc);
    const auto merged = output_cells(sc);
    REQUIRE(merged.size() == 1);
    CHECK(merged[0].len == 8);
    CHECK(merged[0].begin == 0);
    CHECK(merged[0].chunk == -1);
    // The inputs (written from the start) keep their cells.
    for (const auto& r : sc.rows)
      if (r.buf == Buf::input) CHECK(r.cells.size() == 2);
  }

  TEST_CASE("lesson 11 beat 7: the model's time at 64 MiB waits for 'Is one-shot still faster than the ring?'") {
    SkipChecks skip;
    App app;
    open_at(app, "11-what-nccl-does.yaml", 6);  // beat 7
    REQUIRE(app.lesson->current().question);
    const std::string open = line_of(describe_picture(app), "note");
    CHECK(open.find("predicted at that size: shown once you answer the question") != std::string::npos);
    CHECK(open.find(" µs (preset nvlink)") == std::string::npos);
    app.lesson->choose(1);  // "no"
    lesson_sync(app);
    const std::string answered = line_of(describe_picture(app), "note");
    CHECK(answered.find("predicted at that size: 790 µs (preset nvlink)") != std::string::npos);
  }

  TEST_CASE("lesson 11 beat 1: the timeline's step blocks wait for 'How many steps does the ring take on 8 ranks?'") {
    SkipChecks skip;
    App app;
    open_at(app, "11-what-nccl-does.yaml", 0);
    REQUIRE(app.session.num_steps() == 14);
    CHECK(step_total_hidden(app));
    CHECK(timeline_withheld(app));
    app.lesson->submit("14");
    CHECK_FALSE(timeline_withheld(app));
    app.lesson->go(1);  // beat 2: no step question
    lesson_sync(app);
    CHECK_FALSE(timeline_withheld(app));
  }
}
