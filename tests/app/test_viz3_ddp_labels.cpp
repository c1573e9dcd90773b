// Lesson 10 beat 4 in --present (1280x720, 18 px, DejaVu Sans as the window
// loads it): every collective call of the FSDP plot is named on screen. A
// call too short for its label is labelled after or before its bar, or
// carried into the next call's label of its collective ("AG L0, L1": the
// first all-gather sits just before the second, and was unlabelled).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/layout.h"
#include "app/viz/lesson_view.h"
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

const std::string kLesson10 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/10-fsdp-prefetch.yaml";

// "AG L0, L1" -> {"L0", "L1"}; "RS L3" -> {"L3"}; "L2" -> {"L2"}.
std::vector<std::string> layers_named(const std::string& label) {
  std::vector<std::string> out;
  static const std::regex layer("L[0-9]+");
  for (std::sregex_iterator i(label.begin(), label.end(), layer), end; i != end; ++i) out.push_back(i->str());
  return out;
}

}  // namespace

TEST_SUITE("viz3_ddp_labels") {
  TEST_CASE("lesson 10 beat 4, --present: every call's layer is named once, every bar kind in the legend, >= 14 px") {
    Sized h(18);
    App app;
    app.vs.font_px = 18;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
    app.lesson->go(3);  // beat 4
    h.frame(app);       // requests the run
    REQUIRE(app.vs.view == View::ddp);
    app.ddp.runner.wait();
    for (int i = 0; i < 4; ++i) h.frame(app);
    const auto r = app.ddp.runner.result();
    REQUIRE(r != nullptr);
    const DdpDrawn& d = app.ddp.drawn;
    const auto& tl = r->timelines.back();
    // 4 layers: forward all-gathers L0..L3, backward L3..L0, reduce-scatters L3..L0.
    REQUIRE(tl.comm.size() == 12);
    std::map<std::string, int> want, got;
    for (const auto& c : tl.comm) ++want[fmt::format("L{}", c.layer)];
    CHECK(want == std::map<std::string, int>{{"L0", 3}, {"L1", 3}, {"L2", 3}, {"L3", 3}});
    for (const std::string& label : d.bar_labels)
      for (const std::string& l : layers_named(label)) ++got[l];
    INFO("labels drawn: ", fmt::format("{}", fmt::join(d.bar_labels, " | ")));
    CHECK(got == want);
    // Each label names the collective in full ("AG ..", "RS ..") or its
    // colour does: both collectives are in the legend, with the other kinds.
    CHECK(d.legend == std::vector<std::string>{"forward", "backward", "all-gather of layer k (AG Lk)",
                                               "reduce-scatter of layer k (RS Lk)", "waiting", "backward ends"});
    CHECK(d.text_scale * 18 >= kDdpMinTextPx);
    CHECK_FALSE(d.text_clipped);
    app.ddp.runner.wait();
    app.lesson->wait_checks();
  }
}
