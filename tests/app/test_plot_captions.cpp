// The compare plot's caption names what is drawn (issue 37, lecturer pass
// 4: lesson 09 beat 13 at --font-px 28 captioned its bar chart "dots
// measured, lines predicted"): bars and ticks for one size, dots and lines
// for a sweep.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "app/viz/compare_panel.h"
#include "app/viz/size_bars.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

namespace {

SweepCurve curve(const std::string& alg, std::vector<double> bytes, bool dots, bool lines) {
  SweepCurve c;
  c.algorithm = alg;
  c.bytes = bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (dots) c.measured_us.push_back(100.0 * double(i + 1));
    if (lines) c.predicted_us.push_back(90.0 * double(i + 1));
  }
  return c;
}

}  // namespace

TEST_SUITE("plot_captions") {
  TEST_CASE("what_is_drawn: the marks' own words") {
    Compare c;
    CHECK(compare_panel::what_is_drawn(c) == "");
    c.sweep = {curve("ring", {4096, 16384}, true, true), curve("tree", {4096, 16384}, true, true)};
    CHECK(compare_panel::what_is_drawn(c) == "dots measured, lines predicted");
    c.sweep = {curve("ring", {4096, 16384}, false, true)};
    CHECK(compare_panel::what_is_drawn(c) == "lines predicted");
    c.sweep = {curve("ring", {4096, 16384}, true, false)};
    CHECK(compare_panel::what_is_drawn(c) == "dots measured");
    c.sweep = {curve("ring", {4194304}, true, true), curve("hierarchical", {4194304}, true, true)};
    REQUIRE(compare_panel::one_size(c));
    CHECK(compare_panel::what_is_drawn(c) == "bars measured, ticks predicted");
    c.sweep = {curve("ring", {4194304}, true, false)};
    CHECK(compare_panel::what_is_drawn(c) == "bars measured");
  }

  TEST_CASE("lesson 09 beat 13 at 28 px on a slide: a bar chart, captioned bars and ticks, not dots and lines") {
    setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Sized h(28.f);
    App app;
    app.vs.font_px = 28.f;
    app.vs.present = true;
    app.lesson = std::make_unique<LessonView>(
        lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/09-topology.yaml"));
    REQUIRE(app.lesson->go(12));
    frames(h, app, 3);
    unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
    REQUIRE(app.vs.view == View::compare);
    REQUIRE(compare_panel::one_size(app.compare));
    bool bars = false;
    for (const auto& d : app.vs.compare_drawn) bars = bars || d.what == "size bar ring";
    CHECK(bars);
    const std::string cap = compare_panel::brief_caption(app.compare);
    INFO(cap);
    CHECK(cap.find("bars measured, ticks predicted") != std::string::npos);
    CHECK(cap.find("dots") == std::string::npos);
    CHECK(cap.find("lines") == std::string::npos);
  }
}
