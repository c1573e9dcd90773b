// A paged column's "continued on the next page" band holds only that line:
// a question's choice is drawn whole (one recorded line over two rows), and
// its second row was drawn over the band at --font-px 40 (hostile review 10:
// lesson 08 beat 2, "recorder stops at #0" over "continued"). The page
// break now reads where a line's last item ends (present_draw.cpp).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

// Text quads of the lesson panel, as far as their clip rectangle lets
// them show, that cross a "continued" line: "page 3: text rows 650-690
// over the band's line at 662-698".
std::vector<std::string> over_the_band(int page) {
  std::vector<std::string> out;
  const auto gs = test::drawn_glyphs();
  // The band's line: where its first word, "continued", is drawn.
  struct Band {
    float top, bottom, x0, x1;  // its first word's glyphs (screen px)
  };
  std::vector<Band> bands;
  for (size_t i = 0; i + 8 < gs.size(); ++i) {
    std::string w;
    for (size_t k = 0; k < 9; ++k) w += static_cast<char>(gs[i + k].codepoint);
    if (w == "continued" && gs[i].list.find("/lesson_") != std::string::npos) {
      float top = gs[i].y;  // its glyphs' top ('d' reaches highest)
      for (size_t k = 0; k < 9; ++k) top = std::min(top, gs[i + k].y);
      bands.push_back(Band{top, gs[i].line_top + gs[i].px, gs[i].x, gs[i + 8].x1});
    }
  }
  const ImDrawData* dd = ImGui::GetDrawData();
  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
  for (int l = 0; dd && l < dd->CmdListsCount; ++l) {
    const ImDrawList* dl = dd->CmdLists[l];
    if (std::string(dl->_OwnerName ? dl->_OwnerName : "").find("/lesson_") == std::string::npos) continue;
    for (const ImDrawCmd& c : dl->CmdBuffer)
      for (unsigned k = 0; k + 5 < c.ElemCount; k += 6) {  // a glyph: two triangles
        const ImDrawVert* v = dl->VtxBuffer.Data + c.VtxOffset;
        const ImDrawIdx* ix = dl->IdxBuffer.Data + c.IdxOffset + k;
        float y0 = 1e9f, y1 = -1e9f, x0 = 1e9f, x1 = -1e9f;
        bool text = true;
        for (int q = 0; q < 6; ++q) {
          const ImDrawVert& p = v[ix[q]];
          y0 = std::min(y0, p.pos.y), y1 = std::max(y1, p.pos.y);
          x0 = std::min(x0, p.pos.x), x1 = std::max(x1, p.pos.x);
          text = text && !(p.uv.x == white.x && p.uv.y == white.y);
        }
        y0 = std::max(y0, c.ClipRect.y), y1 = std::min(y1, c.ClipRect.w);  // the part that shows
        if (!text || y1 - y0 < 1) continue;
        for (const Band& b : bands) {
          const float top = b.top, bottom = b.bottom;
          const bool is_band = y0 >= top - 0.5f;  // the band's own glyphs start at or below its top
          const bool beside = x1 <= b.x0 || x0 >= b.x1;  // the other column's text at that height
          if (!is_band && !beside && y1 > top + 0.5f)
            out.push_back(fmt::format("page {}: a text row {:.0f}-{:.0f} over the band's line at {:.0f}-{:.0f}", page + 1,
                                      y0, y1, top, bottom));
        }
      }
  }
  return out;
}

}  // namespace

TEST_SUITE("present_pages") {
  TEST_CASE("lesson 08 beat 2 at 40 px: nothing drawn over 'continued on the next page', at many panel heights") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    test::FontWindow w(40);
    int paged = 0;
    for (float panel_h = 200; panel_h <= 420; panel_h += 10) {
      App app;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) +
                                                                    "/lessons/08-hunt-the-hang.yaml"));
      app.vs.present = true;
      app.vs.font_px = 40;
      test::PanelOnly panel{w, panel_h};
      for (int b : {1}) {  // beat 2: its choices
        app.lesson->go(b);
        panel.settle(app);
        for (int k = 0; k < app.presenter.pages; ++k) {
          app.presenter.page = k;
          panel.draw(app);
          INFO("beat ", b + 1, ", panel ", panel_h, " px high");
          const std::vector<std::string> over = over_the_band(k);
          CHECK_MESSAGE(over.empty(), over.size(), " glyph(s), first: ", over.empty() ? "" : over.front());
        }
        paged += app.presenter.pages > 1;
      }
    }
    CHECK(paged >= 10);  // the heights page these beats (the case is not vacuous)
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
