// Every comm-lane call of the FSDP plot labelled whole, on one side (issue
// 37, lecturer pass 4: lesson 10 beat 4 put labels before or after their
// bars by turns and cut "RS L2" to "L2"). A call too short for its label
// is labelled in one row under the comm lane, in time order, none over
// another, none past the plot; and the row's layout itself.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/ddp_view.h"
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

}  // namespace

TEST_SUITE("ddp_comm_labels") {
  TEST_CASE("ddp_strip_layout: at their wish when free, pushed apart in order, kept inside") {
    using V = std::vector<float>;
    CHECK(ddp_strip_layout({0, 100, 200}, {50, 50, 50}, 0, 400, 5) == V{0, 100, 200});
    CHECK(ddp_strip_layout({0, 10, 20}, {50, 50, 50}, 0, 400, 5) == V{0, 55, 110});
    // Past the right end: pulled back, those before pushed left.
    CHECK(ddp_strip_layout({300, 340, 390}, {50, 50, 50}, 0, 400, 5) == V{240, 295, 350});
    // Too many to fit: in order and apart, running past x1.
    CHECK(ddp_strip_layout({0, 0, 0}, {50, 50, 50}, 0, 100, 5) == V{0, 55, 110});
    CHECK(ddp_strip_layout({}, {}, 0, 100, 5).empty());
  }

  TEST_CASE("ddp_strip_rows: the fewest rows that fit, neighbours on different rows; what does not fit is left out") {
    // One row fits: as ddp_strip_layout, every label shown.
    DdpStrip s = ddp_strip_rows({0, 100, 200}, {50, 50, 50}, 0, 400, 5, 2);
    CHECK(s.rows == 1);
    REQUIRE(s.at.size() == 3u);
    CHECK(s.at[1].x == 100);
    CHECK(s.at[2].shown);
    // Four of 50 in 150: two rows (0 and 2 on row 0, 1 and 3 on row 1).
    s = ddp_strip_rows({0, 10, 20, 30}, {50, 50, 50, 50}, 0, 150, 5, 2);
    CHECK(s.rows == 2);
    CHECK(s.at[0].row == 0);
    CHECK(s.at[1].row == 1);
    CHECK(s.at[2].row == 0);
    CHECK(s.at[2].x == 55);
    CHECK(s.at[1].x == 10);
    CHECK(s.at[3].x == 65);
    CHECK((s.at[0].shown && s.at[1].shown && s.at[2].shown && s.at[3].shown));
    // One row allowed: of three of 50 in 100 only the first fits; the others would pass x1: left out.
    s = ddp_strip_rows({0, 0, 0}, {50, 50, 50}, 0, 100, 5, 1);
    CHECK(s.rows == 1);
    CHECK(s.at[0].shown);
    CHECK_FALSE(s.at[1].shown);
    CHECK_FALSE(s.at[2].shown);
    CHECK(ddp_strip_rows({}, {}, 0, 100, 5, 2).rows == 0);
  }

  TEST_CASE("lesson 10 beats 4 and 5, --present at 18 and 28 px: every call's label whole, none clipped, none over another, the strip in one row") {
    setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);  // the picture is tested, not the checks
    struct Case {
      float px;
      int beat;
    };
    for (const Case c : {Case{18, 4}, Case{28, 4}, Case{28, 5}}) {
      const float px = c.px;
      INFO(px, " px, beat ", c.beat);
      Sized h(px);
      App app;
      app.vs.font_px = px;
      app.vs.present = true;
      app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson10));
      app.lesson->go(c.beat - 1);
      h.frame(app);       // requests the run
      REQUIRE(app.vs.view == View::ddp);
      app.ddp.runner.wait();
      for (int i = 0; i < 4; ++i) h.frame(app);
      const auto r = app.ddp.runner.result();
      REQUIRE(r != nullptr);
      const DdpDrawn& d = app.ddp.drawn;
      // Each call named in full: "AG L2", "RS L2", never "L2" alone.
      std::vector<std::string> want, got;
      for (const auto& c : r->timelines.back().comm)
        want.push_back(fmt::format("{} L{}", c.collective == "all_gather" ? "AG" : "RS", c.layer));
      REQUIRE(want.size() == 12);
      for (const auto& l : d.comm_labels) got.push_back(l.text);
      CHECK(got.size() == want.size());
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      CHECK(got == want);
      const Rect win{0, 0, 1280, 720};
      const Rect plot{d.timeline_box[0], d.timeline_box[1], d.timeline_box[2] - d.timeline_box[0],
                      d.timeline_box[3] - d.timeline_box[1]};
      float strip_y = -1;
      int in_strip = 0;
      for (size_t i = 0; i < d.comm_labels.size(); ++i) {
        const auto& l = d.comm_labels[i];
        const Rect a{l.box[0], l.box[1], l.box[2] - l.box[0], l.box[3] - l.box[1]};
        INFO(l.text, " at (", a.x, ", ", a.y, ") ", a.w, " x ", a.h);
        CHECK(a.w > 0);
        CHECK(a.h >= 14);  // readable: at the window's text size (up to 28 px: ddp_label_px)
        CHECK(a.h == doctest::Approx(ddp_label_px(px)).epsilon(0.05));
        CHECK(a.inside(win));
        CHECK(a.inside(plot));
        if (l.strip) {
          ++in_strip;
          if (strip_y < 0) strip_y = a.y;
          CHECK(a.y == doctest::Approx(strip_y));  // one row: one side of the lane
          const Rect s{d.strip_box[0], d.strip_box[1], d.strip_box[2] - d.strip_box[0], d.strip_box[3] - d.strip_box[1]};
          CHECK(a.inside(s));
        }
        for (size_t j = i + 1; j < d.comm_labels.size(); ++j) {
          const auto& m = d.comm_labels[j];
          const Rect b{m.box[0], m.box[1], m.box[2] - m.box[0], m.box[3] - m.box[1]};
          INFO("against ", m.text, " at (", b.x, ", ", b.y, ") ", b.w, " x ", b.h);
          CHECK_FALSE(a.overlaps(b));
        }
      }
      CHECK(d.labels_left_out == 0);
      MESSAGE(in_strip, " of 12 labels in the strip at ", px, " px, beat ", c.beat);
      app.ddp.runner.wait();
    }
    unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
