// The hang view on a slide gives the lesson's text room first (issue 37,
// lead's decision): at --present --font-px 28 in 1280x720 the hang panel
// drawn at the font's size left lesson 08 beat 7's text 3 lines a page (6
// pages) with ~60 px empty under the verdict. Now the picture leaves the
// text its lines (beat 7 in at most 3 pages), its own text at least 20 px
// (5/7 of 28; never below 14 px), and the panel ends under what it draws.
// Through the window's own frames and the glyphs they drew (text_sizes.h).
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/viz/lesson_view.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "tests/app/text_sizes.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("hang_font") {
  TEST_CASE("lesson 08 at --font-px 28: beat 7 in at most 3 pages, the hang panel's text >= 20 px, no empty room under the verdict") {
    for (const int beat : {3, 7}) {
      test::FontWindow w(28);
      App app;
      app.vs.font_px = 28;
      app.vs.present = true;
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
      float smallest = 1e9f, bottom = 0;
      std::string letters;
      for (const auto& g : test::drawn_glyphs()) {
        if (g.list.find("/hang_") == std::string::npos) continue;
        smallest = std::min(smallest, g.px);
        bottom = std::max(bottom, g.line_top + g.px);
        if (g.codepoint < 128) letters += char(g.codepoint);
      }
      INFO("beat ", beat, ": hang panel ", box.y, " + ", box.h, ", last text at ", bottom, ", smallest ", smallest,
           " px, pages ", app.presenter.pages, "; drew ", letters);
      CHECK(smallest >= 20.f - 0.01f);
      CHECK(bottom <= box.y + box.h);
      CHECK(box.y + box.h - bottom <= 21.f);  // padding and spacing: no line's room left empty (it was ~70 px)
      CHECK(letters.find("verdict:monitoredbarrier'beforecall#1':rank") != std::string::npos);
      if (beat == 7) {
        CHECK(app.presenter.pages >= 2);  // 17 lines of text: more than a slide
        CHECK(app.presenter.pages <= 3);  // was 6 (3 lines a page)
      }
    }
  }
}
