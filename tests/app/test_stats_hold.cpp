// The Stats tab beside a lesson holds the bytes per rank, S, algbw and busbw
// while the beat's question is open (LessonView::checks_hidden), as the
// beat's bytes note does: lesson 02 beat 4 asks "How many bytes does each
// rank send in this run?" (24) and the Ranks table said "R0 24 B / 24 B" one
// click away. Read back from the glyphs the panel drew (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "app/viz/beat_bytes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "tests/app/text_sizes.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

// The Stats panel alone in a window of its own, one frame; its text read
// back glyph by glyph, rows top to bottom, without spaces (a space draws no
// glyph).
std::string stats_text(App& app) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(900, 700));
  ImGui::Begin("stats_under_test");
  draw_stats(app);
  ImGui::End();
  ImGui::Render();
  auto g = test::drawn_glyphs();
  // Rows: glyph tops differ within a line (ascenders), by less than half a
  // line; a new row starts a line's half below the row's first glyph.
  std::sort(g.begin(), g.end(), [](const test::DrawnGlyph& a, const test::DrawnGlyph& b) { return a.y < b.y; });
  std::vector<std::pair<int, const test::DrawnGlyph*>> rows;
  int row = 0;
  float top = g.empty() ? 0 : g.front().y;
  for (const auto& d : g) {
    if (d.y > top + 0.5f * ImGui::GetTextLineHeight()) ++row, top = d.y;
    rows.push_back({row, &d});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second->x < b.second->x);
  });
  std::string out;
  for (const auto& [r, d] : rows)
    if (d->codepoint < 128) out += static_cast<char>(d->codepoint);
  return out;
}

std::string no_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

}  // namespace

TEST_SUITE("stats_hold") {
  TEST_CASE("lesson 02 beat 4: the Ranks table's bytes and the S / busbw line wait for the answer (24 B), then show") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    test::FontWindow w;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/02-ring-double-buffering.yaml"));
    app.lesson->go(3);
    app.vs.static_frame = true;
    w.frames(app, 6);
    REQUIRE(app.session.position() == 2);
    REQUIRE(app.lesson->checks_hidden());
    // What the panel would show: every rank sends 24 B (the answer).
    const Stats full = build_stats(app.session);
    CHECK(full.sent == std::vector<int64_t>{24, 24, 24});
    const Stats held = hold_stats_bytes(full);
    CHECK(held.bytes_held);
    CHECK(held.sent.empty());
    CHECK(held.received.empty());
    CHECK(held.links.empty());
    CHECK_FALSE(full.ports_run.empty());  // "R0 intra out 24 B" would say it too
    CHECK(held.ports_run.empty());
    CHECK(held.ports_step.empty());
    CHECK(held.intra_run == 0);
    CHECK(held.size_bytes == 0);
    CHECK(held.busbw_gbps == 0);
    CHECK(held.steps == full.steps);  // the steps and times stay
    CHECK(held.measured_us == full.measured_us);
    // Drawn: the wait line, no byte figure of a rank.
    std::string text = stats_text(app);
    INFO("drawn: ", text);
    CHECK(text.find(no_spaces(kStatsBytesWait)) != std::string::npos);
    CHECK(text.find("24B") == std::string::npos);
    CHECK(text.find("busbw") == std::string::npos);
    // Answered: the table is back, with the answer.
    action_reveal(app);
    w.frames(app, 2);
    REQUIRE_FALSE(app.lesson->checks_hidden());
    text = stats_text(app);
    INFO("drawn after the answer: ", text);
    CHECK(text.find(no_spaces(kStatsBytesWait)) == std::string::npos);
    CHECK(text.find("R024B24B") != std::string::npos);
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("the beats whose questions the Stats tab answered hold it while open: 01 b2, 03 b1, 06 b3, 10 b1, 11 b6/8/9") {
    for (const auto& [file, beat] : {std::pair{"01-primitives.yaml", 2}, std::pair{"03-naive-tree-ring.yaml", 1},
                                     std::pair{"06-reduce-scatter-all-gather.yaml", 3}, std::pair{"10-fsdp-prefetch.yaml", 1},
                                     std::pair{"11-what-nccl-does.yaml", 6}, std::pair{"11-what-nccl-does.yaml", 8},
                                     std::pair{"11-what-nccl-does.yaml", 9}}) {
      LessonView L(lesson::load_lesson(kLessons + "/" + file));
      L.go(beat - 1);
      INFO(file, " beat ", beat);
      CHECK(L.checks_hidden());
      L.submit("1");  // any answer opens the checks, and the bytes with them
      CHECK_FALSE(L.checks_hidden());
    }
  }
}
