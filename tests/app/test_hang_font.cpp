// The hang view on a slide (issue 37, slides8): lesson 08's hang beats in
// --present at 1280x720 draw the hang panel's text at the slide's font
// size at 18 px (at 28 px at least 20 px, the lesson's text first), as the
// lesson's text (at 18 and 28 px it was drawn at 13-14 px): its
// header, each rank's row, the verdict, and the log's lines that fit (at
// 18 px the verdict's WARN line and rank 2's late line among them); nothing
// of it cut at the panel's right edge or bottom. Through the window's own
// frames and the glyphs they drew (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/clipped_glyphs.h"
#include "app/text_sizes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("hang_font") {
  TEST_CASE("lesson 08 beats 2 (answered) and 7 at 18 and 28 px: the hang panel's text at the font's size, all of it inside the panel") {
    for (const float px : {18.f, 28.f}) {
      for (const int beat : {2, 7}) {
        test::FontWindow w(px);
        App app;
        app.vs.font_px = px;
        app.vs.present = true;
        app.presenter.reveal_all = true;  // beat 2: the stuck rank named, its row outlined
        app.lesson = std::make_unique<LessonView>(
            lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/08-hunt-the-hang.yaml"));
        app.lesson->go(beat - 1);
        w.frame(app);
        app.lesson->wait_checks();
        w.settle(app);
        REQUIRE(app.lesson->hang_run());
        const auto panel = std::find_if(app.vs.panels_drawn.begin(), app.vs.panels_drawn.end(),
                                        [](const auto& d) { return d.what == "hang"; });
        REQUIRE(panel != app.vs.panels_drawn.end());
        const Rect box = panel->r;
        std::string letters;
        float smallest = 1e9f, right = 0, bottom = 0;
        int glyphs = 0;
        for (const auto& g : test::drawn_glyphs()) {
          if (g.list.find("/hang_") == std::string::npos) continue;
          ++glyphs;
          smallest = std::min(smallest, g.px);
          right = std::max(right, g.x1);
          bottom = std::max(bottom, g.line_top + g.px);
          if (g.codepoint < 128) letters += char(g.codepoint);
        }
        INFO("beat ", beat, " at ", px, " px: hang panel ", box.x, ",", box.y, " ", box.w, "x", box.h, "; ", glyphs,
             " glyphs, smallest ", smallest, " px; drew ", letters);
        CHECK(glyphs > 300);
        // The slide's font size at 18 px; at 28 px the lesson's text comes
        // first and the panel's text is smaller, not below 5/7 of it (20 px;
        // test_hang_slide.cpp).
        CHECK(smallest >= (px == 18 ? px : 20.f) - 0.01f);
        CHECK(right <= box.x + box.w);
        CHECK(bottom <= box.y + box.h);
        CHECK(test::cut_glyphs("/hang_", true) == std::vector<std::string>{});  // nothing cut at a row's or the panel's edge
        for (int r = 0; r < 4; ++r) CHECK(letters.find(fmt::format("R{}done", r)) != std::string::npos);
        CHECK(letters.find("verdict:monitoredbarrier'beforecall#1':rank2didnotarrive") != std::string::npos);
        // The log: at 18 px its WARN line and rank 2's line after the verdict,
        // tagged. At 28 px in 720 rows the header, the rows and the verdict
        // take the picture's room (the lesson keeps seven lines): the log is
        // left out whole, never cut (checked above).
        if (beat == 7 && px == 18) {
          CHECK(letters.find("WARNmonitoredbarrier") != std::string::npos);
          CHECK(letters.find("aftertheverdict") != std::string::npos);
          CHECK(letters.find("[2]INFOall_reduce:seq1") != std::string::npos);
        }
      }
    }
  }
}
