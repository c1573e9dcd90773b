// The buffers view in the lecture hall (issue 37): an avg's line says what
// the buffers hold against the outputs (buffer_notes.h avg_note), a
// lesson's chunk highlight lights only the cells the shown step moves
// (lit_where_moved: lesson 02 beat 6), and lesson 03 beat 1's 7 ranks x 14
// values show in the crowd view at --present --font-px 18 and 28.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

#include "app/viz/buffer_notes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "app/viz/view_state.h"
#include "core/labs/lesson/lesson.h"
#include "core/record/data.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

// The run: 2 ranks, ring, rows 1,2 and 4,7, stepped to `position`.
void avg_run(Session& ses, DType t, int position) {
  RunParams p;
  p.spec.algorithm = "ring";
  p.spec.world_size = 2;
  p.spec.count = 2;
  p.spec.dtype = t;
  p.spec.op = ReduceOp::avg;
  p.data = "1,2;4,7";
  ses.configure(p);
  ses.seek(position);
}

// R0's output snapshot after the last step.
std::vector<double> last_output(const Session& ses) {
  for (const BufferSnapshot& b : ses.trace().steps.back()[0].buffers)
    if (b.buf == Buf::output) return b.values;
  return {};
}

}  // namespace

TEST_SUITE("buffers_lecture") {
  TEST_CASE("an int32 avg's last step shows the sums with '÷ 2 next' and the outputs; before it, that the buffers hold sums") {
    Session ses;
    avg_run(ses, DType::int32, 2);
    REQUIRE(ses.num_steps() == 2);
    // The buffers after the last step hold the sums (what the picture draws) ...
    CHECK(last_output(ses) == std::vector<double>{5, 9});
    // ... the run's outputs the quotients, rounded toward zero.
    REQUIRE(ses.outputs().size() == 2);
    CHECK(ses.outputs()[0] == parse_data(ses.schedule().spec, "2,4;2,4")[0]);
    CHECK(avg_note(ses, 2) == "int32 avg: the outputs hold the sums; ÷ 2 next, after the last step (toward zero): R0 [5, 9] → [2, 4]");
    CHECK(avg_note(ses, 1) == "int32 avg: the buffers hold sums; each output is divided by 2 after the last step");
    CHECK(avg_note(ses, 0) == "int32 avg: the buffers hold sums; each output is divided by 2 after the last step");
    // The cells at the last step: the sums, as the line says.
    BuffersLayout lay;
    const BuffersScene sc = build_buffers(ses, 2, lay);
    std::vector<std::string> out;
    for (const BufferRowDraw& row : sc.rows)
      if (row.rank == 0 && row.buf == Buf::output)
        for (const CellDraw& c : row.cells) out.push_back(c.value);
    CHECK(out == std::vector<std::string>{"5", "9"});
  }

  TEST_CASE("a float avg's buffers hold the averages: its line says the inputs were scaled by 1/n before step 0") {
    Session ses;
    avg_run(ses, DType::float32, 2);
    CHECK(last_output(ses) == std::vector<double>{2.5, 4.5});
    CHECK(ses.outputs()[1] == parse_data(ses.schedule().spec, "2.5,4.5;0,0")[0]);
    for (const int pos : {0, 2})
      CHECK(avg_note(ses, pos) == "float32 avg: each input × 1/2 before step 0 (R0 [1, 2] → [0.5, 1]), so the sums are the averages");
    // Another op: no line.
    RunParams p;
    p.spec.algorithm = "ring";
    Session sum;
    sum.configure(p);
    CHECK(avg_note(sum, 0).empty());
  }

  TEST_CASE("lesson 02 beat 6 lights only the cells step 1 moves: each rank's chunk sent and chunk received") {
    const lesson::Lesson l = lesson::load_lesson(kLessons + "/02-ring-double-buffering.yaml");
    REQUIRE(l.beats.size() == 6);
    const lesson::Beat& b6 = l.beats[5];
    REQUIRE(b6.highlight.chunks == std::vector<int>{0, 1, 2});
    REQUIRE(b6.setup.algorithm == "ring");
    RunParams p;
    p.spec.algorithm = "ring";
    p.data = "1,2,3;4,5,6;7,8,9";
    Session ses;
    ses.configure(p);
    ses.seek(2);  // the beat: after step 1
    BuffersLayout lay;
    const BuffersScene sc = build_buffers(ses, 2, lay);
    std::set<std::tuple<int, std::string, int>> lit;  // (rank, buffer, chunk)
    int cells = 0;
    for (const BufferRowDraw& row : sc.rows)
      for (const CellDraw& c : row.cells) {
        if (c.chunk < 0) continue;
        ++cells;
        if (lit_where_moved(ses, 2, b6.highlight.chunks, row.rank, row.buf, c.begin, c.len)) lit.insert({row.rank, row.label, c.chunk});
      }
    CHECK(cells == 18);  // input and output, 3 chunks, 3 ranks: all of them lit before
    // Step 1: R0 sends its chunk 2 (12 = 3 + 9) and completes chunk 1 (15); R1 sends 0, completes 2; R2 sends 1, completes 0.
    const std::set<std::tuple<int, std::string, int>> want = {{0, "output", 1}, {0, "output", 2}, {1, "output", 0},
                                                               {1, "output", 2}, {2, "output", 0}, {2, "output", 1}};
    CHECK(lit == want);
    // Before step 0 no step moved anything: every cell of the chunks stays lit.
    CHECK(lit_where_moved(ses, 0, b6.highlight.chunks, 0, Buf::input, 0, 1));
    // Some chunks picked out (lesson 04 beat 5's larger two): every cell of them.
    CHECK(lit_where_moved(ses, 2, {0, 1}, 0, Buf::input, 0, 1));
    CHECK(lit_where_moved(ses, 2, {2}, 1, Buf::input, 2, 1));
    CHECK(moved_in_step(ses, 2, 0, Buf::output, 2, 1));
    CHECK_FALSE(moved_in_step(ses, 2, 0, Buf::output, 0, 1));
    CHECK_FALSE(moved_in_step(ses, 2, 0, Buf::input, 0, 3));
  }

  TEST_CASE("lesson 03 beat 1 on a slide: the 7 ranks' 14 values each show in the crowd view, at 14 px or more") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {18.f, 28.f}) {
      INFO(px, " px");
      test::FontWindow w(px);
      App app;
      app.vs.font_px = px;
      app.vs.present = true;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/03-naive-tree-ring.yaml"));
      app.lesson->go(0);
      w.settle(app);
      REQUIRE(app.vs.buffers_crowd);
      CHECK(app.vs.cell_texts.size() == 98);  // 7 ranks x 14 elements, one cell each
      for (const auto& t : app.vs.cell_texts) {
        INFO(t.what, ": ", t.value);
        CHECK(t.shown == t.value);
        CHECK(t.px >= 14);
      }
      const auto r0 = std::find_if(app.vs.cell_texts.begin(), app.vs.cell_texts.end(),
                                   [](const auto& t) { return t.what == "R0 [13, 14)"; });
      REQUIRE(r0 != app.vs.cell_texts.end());
      CHECK(r0->shown == "392");  // 14 + 28 + ... + 98: rank 0 holds the sum after the reduce phase
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
