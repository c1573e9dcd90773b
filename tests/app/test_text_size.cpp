// Readable from the back of a lecture hall: in --present at --font-px 28
// (1280x720), no text of the window is drawn below 14 px, for 2..64 ranks
// and in every view. The sizes are read back from the frame's draw data
// (text_sizes.h), so every way of drawing text is covered.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/text_sizes.h"
#include "app/viz/ddp_view.h"
#include "app/viz/options.h"
#include "app/viz/platform.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

struct Sized : test::Headless {
  explicit Sized(float px) {
    add_fonts(px);
    unsigned char* data = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&data, &w, &h);
  }
};

// The window as `microddp-viz ARGS --present --font-px 28` opens it.
void open(App& app, std::vector<std::string> args, bool present = true) {
  args.insert(args.begin(), "microddp-viz");
  if (present)
    for (const char* a : {"--present", "--font-px", "28"}) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Options o;
  REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
  app.vs.font_px = present ? 28 : 18;
  apply_options(app, o);
}

// The smallest glyph of the last frame, described for the failure message.
struct Smallest {
  float px = 1e9f;
  std::string where;
};
Smallest smallest() {
  Smallest s;
  for (const auto& g : test::drawn_glyphs())
    if (g.px < s.px) {
      s.px = g.px;
      s.where = fmt::format("'{}' at ({:.0f}, {:.0f}) in {}", g.codepoint < 128 ? char(g.codepoint) : '?', g.x, g.y,
                            g.list);
    }
  return s;
}

// The topology and timeline panels (which do not scroll) drew nothing past
// their own edges: 64 ranks' lanes leave the step lanes in view.
void check_fixed_panels_hold_their_content() {
  ImGuiWindow* w = ImGui::FindWindowByName("microddp-viz");
  REQUIRE(w != nullptr);
  for (ImGuiWindow* c : w->DC.ChildWindows) {
    const std::string name = c->Name;
    if (name.find("/topology_") == std::string::npos && name.find("/timeline_") == std::string::npos) continue;
    INFO(name, " content to (", c->DC.CursorMaxPos.x, ", ", c->DC.CursorMaxPos.y, "), window to (",
         c->Pos.x + c->Size.x, ", ", c->Pos.y + c->Size.y, ")");
    CHECK(c->DC.CursorMaxPos.y <= c->Pos.y + c->Size.y - c->WindowPadding.y + 0.5f);
  }
}

// 14 px, less ImGui's rounding of a scaled font (a hundredth of a pixel).
constexpr float kMin = 14 - 0.01f;

}  // namespace

TEST_SUITE("layout_text") {
  TEST_CASE("the glyph read-back measures what was drawn: 28 px text, and a 14 px AddText") {
    Sized h(28);
    for (int frame = 0; frame < 2; ++frame) {  // a new window shows from its second frame
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(400, 300));
      ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration);
      ImGui::TextUnformatted("R12");
      ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), 14, ImVec2(50, 50), IM_COL32_BLACK, "x");
      ImGui::End();
      ImGui::Render();
    }
    const auto g = test::drawn_glyphs();
    REQUIRE(g.size() == 4);
    CHECK(g[0].codepoint == 'R');
    CHECK(g[0].px == doctest::Approx(28).epsilon(0.01));
    CHECK(g[3].codepoint == 'x');
    CHECK(g[3].px == doctest::Approx(14).epsilon(0.01));
  }

  TEST_CASE("--present --font-px 28, main view: no text below 14 px from 2 to 64 ranks, before and after a step") {
    // Every regime's edges between 2 and 64 (the window runs each world
    // size for real in the background: 64 ranks cost seconds of threads on a
    // busy 2-core machine, so not all 63): full
    // rows, the crowd view's 1 to 4 columns, the topology's labels inside
    // their circles, on plates, every few ranks; the timeline's lanes in
    // one column, two, every k-th.
    for (int n : {2, 3, 4, 7, 8, 16, 33, 64}) {
      Sized h(28);
      App app;
      open(app, {"--ranks", std::to_string(n)});
      for (int i = 0; i < 3; ++i) h.frame(app);
      Smallest s = smallest();
      INFO(n, " ranks, before step 0: ", s.px, " px, ", s.where);
      CHECK(s.px >= kMin);
      if (n == 64) {  // the timeline's bars and the step's changes drawn
        app.session.seek(1);
        for (int i = 0; i < 3; ++i) h.frame(app);
        s = smallest();
        INFO(n, " ranks, after step 0: ", s.px, " px, ", s.where);
        CHECK(s.px >= kMin);
        check_fixed_panels_hold_their_content();
      }
      // Rows per buffer while they fit at 14 px; one row per rank beyond.
      if (n <= 4) CHECK_FALSE(app.vs.buffers_crowd);
      if (n >= 8) CHECK(app.vs.buffers_crowd);
    }
  }

  TEST_CASE("--present --font-px 28, compare and DDP views: no text below 14 px") {
    for (int n : {24}) {
      Sized h(28);
      App app;
      open(app, {"--ranks", std::to_string(n)});
      app.vs.view = View::compare;
      for (int i = 0; i < 3; ++i) h.frame(app);
      const Smallest s = smallest();
      INFO("compare, ", n, " ranks: ", s.px, " px, ", s.where);
      CHECK(s.px >= kMin);
    }
    Sized h(28);
    App app;
    app.vs.font_px = 28;
    app.vs.present = true;
    app.vs.view = View::ddp;
    ddp::Options& o = app.ddp.edit.run;
    o.ranks = 4, o.depth = 2, o.width = 16, o.layer_delay_us = 0;
    h.frame(app);
    app.ddp.runner.wait();
    for (int i = 0; i < 3; ++i) h.frame(app);
    REQUIRE(app.ddp.runner.result() != nullptr);
    const Smallest s = smallest();
    INFO("DDP: ", s.px, " px, ", s.where);
    CHECK(s.px >= kMin);
  }

  TEST_CASE("on a desk, 64 ranks at 18 px: the timeline's rank labels never overlap (every k-th rank labelled)") {
    Sized h(18);
    App app;
    open(app, {"--ranks", "64"}, false);
    app.session.seek(1);
    for (int i = 0; i < 3; ++i) h.frame(app);
    std::vector<Rect> labels;
    for (const auto& d : app.vs.labels_drawn)
      if (d.what.rfind("timeline R", 0) == 0) labels.push_back(d.r);
    REQUIRE(labels.size() >= 2);
    CHECK(labels.size() < 64);  // lanes lower than 8 px: not every rank
    for (size_t i = 0; i < labels.size(); ++i)
      for (size_t j = i + 1; j < labels.size(); ++j) {
        const Rect &a = labels[i], &b = labels[j];
        const bool apart = a.right() <= b.x + 0.5f || b.right() <= a.x + 0.5f || a.bottom() <= b.y + 0.5f ||
                           b.bottom() <= a.y + 0.5f;
        INFO("labels ", i, " and ", j, " at y ", a.y, " and ", b.y);
        CHECK(apart);
      }
  }
}
