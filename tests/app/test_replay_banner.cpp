// `microddp-viz --replay lessons/data/single-buffered-ring-3x3.json` at
// 1280x720 (issue 37, slides8): the recorded run's banner above the
// buffers names the machine, the date, the seed and the verdict, and it
// is wrapped at the buffers panel's edge (it was cut after "seed 1: c").
// At 18 px (the default) and 28 px, through the window's own frames and the
// glyphs they drew (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/clipped_glyphs.h"
#include "app/text_sizes.h"
#include "app/viz/view_state.h"
#include "core/record/record_io.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("replay_banner") {
  TEST_CASE("--replay single-buffered-ring-3x3.json at 18 and 28 px: the banner whole, inside the buffers panel") {
    const RunRecord rec =
        load_record(std::string(MICRODDP_SOURCE_DIR) + "/lessons/data/single-buffered-ring-3x3.json");
    for (const float px : {18.f, 28.f}) {
      test::FontWindow w(px);
      App app;
      app.vs.font_px = px;
      app.session.load_replay(rec);
      app.vs.edit = app.session.params();
      w.frames(app, 6);
      const auto panel = std::find_if(app.vs.panels_drawn.begin(), app.vs.panels_drawn.end(),
                                      [](const auto& d) { return d.what == "buffers"; });
      REQUIRE(panel != app.vs.panels_drawn.end());
      const Rect box = panel->r;
      std::string letters;
      float right = 0;
      for (const auto& g : test::drawn_glyphs())
        if (g.list.find("/buffers_") != std::string::npos && g.list.find("/rows_") == std::string::npos) {
          if (g.codepoint < 128) letters += char(g.codepoint);
          right = std::max(right, g.x1);
        }
      INFO(px, " px: buffers panel x ", box.x, " w ", box.w, "; its text above the rows reaches x ", right, ": ", letters);
      CHECK(right <= box.x + box.w);
      CHECK(test::cut_glyphs("/buffers_") == std::vector<std::string>{});
      CHECK(letters.find("recordedrun(AMDEPYC,2vCPUs(lscpu),2026-12-07):single-bufferedring,senddelaysseed1:"
                         "corrupted.Thechecksrunitlivenow.") != std::string::npos);
    }
  }
}
