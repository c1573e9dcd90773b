// The integer average in the Stats tab and on the last step's chunk badges
// (issue 37): an int32 avg's buffers hold sums and its outputs are divided
// after the last step (buffer_notes.h avg_note: "÷ 3 next"); the Stats tab
// and the topology's transfers line / badge hover said nothing of it, so
// the sums read as the result. Now both say "sum, ÷ 3 next" on the last
// step (avg_words.h). Strings from real runs; the drawn text read back
// glyph by glyph (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/viz/avg_words.h"
#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "tests/app/text_sizes.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

// 3 ranks, ring, rows 1,2,3 / 4,5,6 / 7,8,9 (sums 12, 15, 18), stepped to `position`.
void avg_run(Session& ses, DType t, int position) {
  RunParams p;
  p.spec.algorithm = "ring";
  p.spec.world_size = 3;
  p.spec.count = 3;
  p.spec.dtype = t;
  p.spec.op = ReduceOp::avg;
  p.data = "1,2,3;4,5,6;7,8,9";
  ses.configure(p);
  ses.seek(position);
}

// What one panel draws, alone in a 900x700 window, one frame: its ASCII
// glyphs in drawing order, without spaces.
template <typename Draw>
std::string drawn_text(Draw draw) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(900, 700));
  ImGui::Begin("avg_under_test");
  draw();
  ImGui::End();
  ImGui::Render();
  std::string out;
  for (const auto& g : test::drawn_glyphs())
    if (g.codepoint < 128) out += static_cast<char>(g.codepoint);
  return out;
}

}  // namespace

TEST_SUITE("stats_hold") {
  TEST_CASE("an int32 avg of 3 ranks: 'sum, ÷ 3 next' on the last step in the Stats tab's line and the badges' words; none before it, none for a float avg") {
    Session ses;
    avg_run(ses, DType::int32, 0);
    const int last = ses.num_steps();
    REQUIRE(last == 4);  // ring all_reduce on 3 ranks: 2 reduce-scatter steps, 2 all-gather steps
    for (int pos = 0; pos < last; ++pos) {
      INFO("position ", pos);
      CHECK(avg_pending_words(ses, pos) == "");
      CHECK(avg_stats_line(ses, pos) == "int32 avg: the buffers hold sums; each output ÷ 3 after the last step (toward zero)");
    }
    CHECK(avg_pending_words(ses, last) == "sum, ÷ 3 next");
    CHECK(avg_stats_line(ses, last) == "int32 avg: the outputs hold the sum, ÷ 3 next (after the last step, toward zero)");
    ses.seek(last);
    CHECK(avg_stats_line(ses) == avg_stats_line(ses, last));  // -1: the session's position
    // The buffers' line says the same division.
    Session f;
    avg_run(f, DType::float32, 0);
    for (int pos = 0; pos <= f.num_steps(); ++pos) {
      CHECK(avg_pending_words(f, pos) == "");
      CHECK(avg_stats_line(f, pos) == "");
    }
    Session none;  // nothing configured
    CHECK(avg_pending_words(none, 0) == "");
    CHECK(avg_stats_line(none, 0) == "");
  }

  TEST_CASE("drawn: the Stats tab and the topology's transfers line of an int32 avg's last step say 'sum, ÷ 3 next'") {
    test::FontWindow w;
    App app;
    avg_run(app.session, DType::int32, 4);
    REQUIRE(app.session.position() == 4);
    const std::string stats = drawn_text([&] { draw_stats(app); });
    INFO("stats: ", stats);
    CHECK(stats.find("int32avg:theoutputsholdthesum,3next(afterthelaststep,towardzero)") != std::string::npos);
    std::string topo = drawn_text([&] { draw_topology(app, app.session, 4, ImVec2(880, 600), false); });
    INFO("topology: ", topo);
    CHECK(topo.find("badge=thechunkinflight(sum,3next)") != std::string::npos);
    // One step before: sums still on their way, no words on the badges.
    topo = drawn_text([&] { draw_topology(app, app.session, 3, ImVec2(880, 600), false); });
    CHECK(topo.find("badge=thechunkinflight") != std::string::npos);
    CHECK(topo.find("next)") == std::string::npos);
  }

  TEST_CASE("a slide at 28 px: the topology panel too narrow for the whole line still says what the last badges hold") {
    test::FontWindow w(28);
    App app;
    avg_run(app.session, DType::int32, 4);
    const std::string topo = drawn_text([&] { draw_topology(app, app.session, 4, ImVec2(390, 400), false); });
    INFO("topology: ", topo);
    CHECK(topo.find("badges:sum,3next") != std::string::npos);
  }
}
