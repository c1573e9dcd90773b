// The compare view on a lesson's slide (issue 37, lecturer's review of the
// Compare view): the sweep plot keeps its height at 1280x720, its y range
// fits the data, and the crossover caption reads as two sentences.
// Headless, through the window's own frames (as test_present28.cpp).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/viz/compare.h"
#include "app/viz/compare_panel.h"
#include "app/viz/size_bars.h"
#include "app/viz/lesson_view.h"
#include "app/viz/options.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

using Window = test::FontWindow;

const ViewState::Drawn* find(const std::vector<ViewState::Drawn>& v, const std::string& what) {
  for (const ViewState::Drawn& d : v)
    if (d.what == what) return &d;
  return nullptr;
}

// Lesson 03 beat `beat` (1-based) on a 1280x720 slide at `px`, with a
// quick sweep (one iteration a size, 4 KiB .. 1 MiB).
void lesson03(Window& w, App& app, int beat, float px) {
  app.vs.font_px = px;
  app.vs.present = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/03-naive-tree-ring.yaml"));
  app.lesson->go(beat - 1);
  w.settle(app);
  REQUIRE(app.vs.view == View::compare);
  app.compare.run_sweep(4096, 1 << 20, 1, 0);
  w.settle(app);
  REQUIRE_FALSE(app.compare.sweeping());
}

}  // namespace

TEST_SUITE("compare_slide") {
  TEST_CASE("lesson 03 beat 6 at 1280x720, 18 and 28 px: the plot box is at least a quarter of the slide (180 px), its y range fits the data") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const float px : {18.f, 28.f}) {
      Window w(px);
      App app;
      lesson03(w, app, 6, px);
      const ViewState::Drawn* axes = find(app.vs.compare_drawn, "sweep axes");
      const ViewState::Drawn* area = find(app.vs.compare_drawn, "area");
      REQUIRE(axes);
      REQUIRE(area);
      INFO(px, " px: plot box ", axes->r.h, " px in an area of ", area->r.h, " px");
      CHECK(axes->r.h >= 180);  // it was 50-90 px
      CHECK(axes->r.inside(area->r));
      // The columns gave way (text only), their text still drawn.
      // (one flag per column drawn: an empty list would pass the loop unseen.)
      REQUIRE_FALSE(app.vs.compare_text_only.empty());
      for (const bool t : app.vs.compare_text_only) CHECK(t);
      // The y range fits the data shown: every y label centred on a grid
      // line inside the box, no decade beyond the data; two at least.
      // Each label's time lies within the data's range and its margin
      // (a twentieth of the span, 0.05 decade at least), not at the next
      // whole decade.
      double lo = 1e300, hi = 0;
      for (const SweepCurve& c : app.compare.sweep) {
        for (double v : c.measured_us) lo = std::min(lo, v), hi = std::max(hi, v);
        for (double v : c.p10_us) if (v > 0) lo = std::min(lo, v);
        for (double v : c.p90_us) hi = std::max(hi, v);
        for (double v : c.predicted_us) lo = std::min(lo, v), hi = std::max(hi, v);
      }
      REQUIRE(hi > lo);
      const double margin = std::pow(10, std::max(0.05, 0.05 * std::log10(hi / lo))) * 1.01;  // (3 digits printed)
      int labels = 0;
      for (const ViewState::Drawn& d : app.vs.compare_drawn)
        if (d.what.rfind("sweep y label ", 0) == 0) {
          ++labels;
          const float mid = d.r.y + d.r.h / 2;
          CHECK(mid >= axes->r.y - 0.5f);
          CHECK(mid <= axes->r.bottom() + 0.5f);
          const std::string t = d.what.substr(14);  // "300 µs"
          const double v = std::stod(t);
          const double us = t.find(" ns") != std::string::npos ? v / 1e3 : t.find(" µs") != std::string::npos ? v
                            : t.find(" ms") != std::string::npos ? v * 1e3 : v * 1e6;
          INFO(t, " against the data ", lo, " .. ", hi, " µs");
          CHECK(us <= hi * margin);
          CHECK(us >= lo / margin);
        }
      CHECK(labels >= 2);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("the sweep's crossover: 'Predicted: ring fastest from X.' and 'Measured here: ring not the fastest at Y.'") {
    const auto curve = [](const char* a, std::vector<double> measured, std::vector<double> predicted) {
      SweepCurve c;
      c.algorithm = a;
      c.bytes = {4096, 16384, 65536};
      c.measured_us = measured;
      c.predicted_us = predicted;
      return c;
    };
    Compare cmp;
    cmp.base.spec.world_size = 8;
    // The model: ring fastest from the first size; measured: tree everywhere.
    cmp.sweep = {curve("ring", {9, 9, 9}, {1, 2, 3}), curve("tree", {1, 1, 1}, {5, 6, 7})};
    cmp.finish_sweep();
    CHECK(cmp.crossover == "Predicted: ring fastest from 4 KiB. Measured here: ring not the fastest at 64 KiB");
    // Measured: ring fastest from 16 KiB on.
    cmp.sweep = {curve("ring", {9, 1, 1}, {1, 2, 3}), curve("tree", {1, 5, 5}, {5, 6, 7})};
    cmp.finish_sweep();
    CHECK(cmp.crossover == "Predicted: ring fastest from 4 KiB. Measured here: ring fastest from 16 KiB");
    // No lines: the measured sentence alone.
    cmp.sweep = {curve("ring", {9, 1, 1}, {}), curve("tree", {1, 5, 5}, {})};
    cmp.finish_sweep();
    CHECK(cmp.crossover == "Measured here: ring fastest from 16 KiB");
  }

  TEST_CASE("lesson 03 beat 4: a column's measured time says it is one stepped run, with barriers") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w(18);
    App app;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/03-naive-tree-ring.yaml"));
    app.lesson->go(3);
    w.settle(app);
    REQUIRE(app.vs.view == View::compare);
    REQUIRE(app.compare.sessions.size() == 3);
    for (const auto& s : app.compare.sessions) {
      REQUIRE(s);
      const auto lines = compare_panel::column_lines(*s, 1e4f);
      REQUIRE(lines.size() == 3);
      INFO(lines[1].first);
      const std::string label = "one stepped run, with barriers: ";
      CHECK(lines[1].first.rfind(label, 0) == 0);
      const bool unit = lines[1].first.find(" µs") != std::string::npos || lines[1].first.find(" ms") != std::string::npos ||
                        lines[1].first.find(" s") != std::string::npos;
      CHECK(unit);
      CHECK_FALSE(lines[1].second);
      // A narrow column (100 px): the short form.
      CHECK(compare_panel::column_lines(*s, 100)[1].first.rfind("stepped run: ", 0) == 0);
      CHECK(lines[2].first.rfind("predicted ", 0) == 0);
      CHECK(lines[2].second);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("lesson 05 beat 6 at --font-px 40: a plot box is drawn and its source caption fits the slide's width") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w(40);
    App app;
    app.vs.font_px = 40;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/05-alpha-beta.yaml"));
    app.lesson->go(5);
    w.settle(app);
    REQUIRE(app.vs.view == View::compare);
    app.compare.run_sweep(4096, 1 << 20, 1, 0);
    w.settle(app);
    const ViewState::Drawn* axes = find(app.vs.compare_drawn, "sweep axes");
    const ViewState::Drawn* label = find(app.vs.compare_drawn, "sweep source label");
    const ViewState::Drawn* area = find(app.vs.compare_drawn, "area");
    REQUIRE(axes);
    REQUIRE(label);
    REQUIRE(area);
    INFO("box ", axes->r.h, " px; caption ", label->r.x, "..", label->r.right(), " in ", area->r.x, "..", area->r.right());
    CHECK(axes->r.h >= 180);  // there was no plot at all
    CHECK(label->r.right() <= area->r.right() + 0.5f);
    CHECK(label->r.h == doctest::Approx(40).epsilon(0.15));  // one line
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("--compare-runs A.json B.json --present --size 800x600 --font-px 40: both diagrams drawn, text at 14 px or more") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-compare-slide-{}", ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string cli = MICRODDP_CLI_BIN;
    for (const char* alg : {"ring", "tree"})
      REQUIRE(std::system(fmt::format("{} run --algorithm {} --ranks 4 --save-record {}/{}.json > /dev/null 2>&1", cli, alg,
                                      dir.string(), alg).c_str()) == 0);
    Window w(40, ImVec2(800, 600));
    Options o;
    o.compare_runs = {(dir / "ring.json").string(), (dir / "tree.json").string()};
    o.present = true;
    o.font_px = 40;
    App app;
    apply_options(app, o);
    app.vs.view = View::compare;
    w.settle(app);
    REQUIRE(app.vs.compare_text_only.size() == 2);
    CHECK_FALSE(app.vs.compare_text_only[0]);  // both were text only
    CHECK_FALSE(app.vs.compare_text_only[1]);
    int ranks = 0;
    for (const ViewState::Drawn& d : app.vs.compare_drawn)
      if (d.what.find(") R") != std::string::npos) ++ranks;  // "A: ring (ring.json) R0"
    CHECK(ranks >= 8);
    fs::remove_all(dir);
  }

  TEST_CASE("one size's bars (lesson 03 beat 11): a time axis 0, 2, 4, .. 10 ms, and each model tick outlined") {
    Window w(18);
    App app;
    const auto curve = [](const char* a, double med, double model) {
      SweepCurve c;
      c.algorithm = a;
      c.bytes = {16 << 20};
      c.measured_us = {med};
      c.predicted_us = {model};
      return c;
    };
    app.compare.sweep = {curve("naive", 10000, 9000), curve("tree", 6000, 5000), curve("ring", 4000, 3000)};
    REQUIRE(compare_panel::one_size(app.compare));
    ImGui::NewFrame();
    ImGui::Begin("bars");
    compare_panel::draw_size_bars(app, ImGui::GetWindowDrawList(), ImVec2(0, 0), ImVec2(1000, 300));
    ImGui::End();
    ImGui::Render();
    std::vector<std::string> axis;
    for (const ViewState::Drawn& d : app.vs.compare_drawn)
      if (d.what.rfind("size bar axis label ", 0) == 0) {
        axis.push_back(d.what.substr(20));
        CHECK(d.r.bottom() <= 300.5f);
      }
    CHECK(axis == std::vector<std::string>{"0", "2 ms", "4 ms", "6 ms", "8 ms", "10 ms"});
    for (const char* a : {"naive", "tree", "ring"}) {
      const ViewState::Drawn* tick = find(app.vs.compare_drawn, std::string("size bar model tick ") + a);
      REQUIRE(tick);
      CHECK(tick->r.w == doctest::Approx(5));  // 3 px of the model's colour in 1 px of ink each side
    }
  }

  TEST_CASE("lesson 09 beat 17: the published dots' model line has its own legend entry, 'model', beside 'published'") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w(18);
    App app;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/09-topology.yaml"));
    app.lesson->go(16);
    w.settle(app);
    for (int i = 0; i < 400 && app.compare.sweeping(); ++i) w.frame(app);
    w.settle(app);
    REQUIRE(app.vs.view == View::compare);
    REQUIRE(app.compare.sweep.size() == 1);
    CHECK(app.compare.sweep[0].algorithm == "published");
    const ViewState::Drawn* legend = find(app.vs.compare_drawn, "sweep legend");
    const ViewState::Drawn* model = find(app.vs.compare_drawn, "sweep legend model");
    REQUIRE(legend);
    REQUIRE(model);
    CHECK(model->r.inside(legend->r));
    CHECK(model->r.h == doctest::Approx(ImGui::GetTextLineHeight()));
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
