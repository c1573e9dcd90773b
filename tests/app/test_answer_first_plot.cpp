// No answer on the compare plot before its question (issue 37): lesson 03
// beats 4 and 5 drew the predicted tree and ring lines crossing between
// 256 KiB and 1 MiB, and beat 5's cards priced tree 11.5 µs against ring
// 12.7 µs, while beat 5 asks where the crossover is. The lines now stop at
// the last size before the crossover's bracket, the cards say their
// prediction waits, and both come back once the question is answered.
// Lesson 05 beat 7 asks for α, not the crossover: no crossover caption.
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/viz/compare_panel.h"
#include "app/viz/describe.h"
#include "app/viz/prediction.h"
#include "core/algorithms/registry.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

namespace {

// The lesson checks are not run while one lives (the pictures are what is
// tested, as test_answer_first_window.cpp does); unset again after.
struct SkipChecks {
  SkipChecks() { setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipChecks() { unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
  SkipChecks(const SkipChecks&) = delete;
  SkipChecks& operator=(const SkipChecks&) = delete;
};

const std::string kLesson05 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/05-alpha-beta.yaml";

// The sweep of lesson 03's compare beats at 4 KiB .. 4 MiB per rank with the
// model's lines under the beat's source (nvlink) and stand-in dots (the
// dots are not what is tested; measuring them would take seconds).
std::vector<SweepCurve> priced_sweep(const Compare& cmp) {
  std::vector<SweepCurve> out;
  for (const std::string a : {"naive", "tree", "ring"}) {
    SweepCurve c;
    c.algorithm = a;
    for (int64_t b = 4096; b <= (int64_t{4} << 20); b *= 4) {
      CollectiveSpec spec = cmp.base.spec;
      spec.algorithm = a;
      spec.count = b / 4;
      c.bytes.push_back(double(b));
      c.counts.push_back(spec.count);
      c.measured_us.push_back(1000);
      c.predicted_us.push_back(predict(make_schedule(spec), cmp.source).total_us);
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> lines_drawn(const App& app) {
  std::vector<std::string> out;
  for (const auto& d : app.vs.compare_drawn)
    if (d.what.rfind("sweep line ", 0) == 0) out.push_back(d.what.substr(11));
  return out;
}

// The line of describe_picture that starts with `key: `.
std::string line_of_describe(App& app, const std::string& key) {
  const std::string d = describe_picture(app), k = "\n" + key + ": ";
  const size_t at = ("\n" + d).find(k);
  if (at == std::string::npos) return "";
  const size_t from = at + k.size() - 1;
  return d.substr(from, d.find('\n', from) - from);
}

const SweepCurve& curve(const Compare& cmp, const std::string& a) {
  return *std::find_if(cmp.sweep.begin(), cmp.sweep.end(), [&](const SweepCurve& c) { return c.algorithm == a; });
}

}  // namespace

TEST_SUITE("answer_first_plot") {
  TEST_CASE("lesson 03 beats 4-5: the lines stop at 256 KiB, not crossing, and the cards wait, until beat 5 is answered") {
    const SkipChecks skip;
    Sized h(18.f);
    App app;
    app.vs.font_px = 18.f;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson03));
    REQUIRE(app.lesson->go(3));  // beat 4: before the question
    app.vs.edit = beat_target(app.lesson->current()).params;
    frames(h, app, 2);
    REQUIRE(app.vs.view == View::compare);
    app.compare.run_sweep(4096, 4096, 1, 0);  // ends the beat's own sweep at once
    app.compare.sweep = priced_sweep(app.compare);
    app.compare.finish_sweep();
    REQUIRE(app.compare.crossover_predicted == 4);  // the ring fastest from 1 MiB: the crossover in (256 KiB, 1 MiB]
    CHECK(app.compare.crossover_predicted_bytes == doctest::Approx(381818).epsilon(0.01));
    const SweepCurve tree = curve(app.compare, "tree");  // (copies: a beat change moves the sweep)
    const SweepCurve ring = curve(app.compare, "ring");
    // (Beat 4, then beat 5: each beat change re-runs the three columns.)
    for (const int beat : {3, 4}) {
      INFO("beat ", beat + 1);
      if (beat != app.lesson->beat()) app.lesson->go(beat);
      REQUIRE(app.lesson->beat() == beat);
      frames(h, app, 2);
      CHECK(compare_panel::crossover_hidden(app));
      CHECK(compare_panel::crossover_caption(app) == compare_panel::kCrossoverWaits);
      // Four points of each line drawn (4 KiB .. 256 KiB): over them the
      // tree stays below the ring, so the picture shows no crossing.
      CHECK(predicted_points_drawn(app.compare, true) == 4);
      CHECK(lines_drawn(app) == std::vector<std::string>{"naive to 256 KiB", "tree to 256 KiB", "ring to 256 KiB"});
      for (size_t i = 0; i < 4; ++i) CHECK(tree.predicted_us[i] < ring.predicted_us[i]);
      CHECK(ring.predicted_us[4] < tree.predicted_us[4]);  // (the crossing the picture leaves out)
      CHECK(line_of_describe(app, "crossover") == "hidden");
      // Beat 5's question is open: its cards' predictions wait; beat 4's do not.
      CHECK(compare_panel::column_predictions_hidden(app) == (beat == 4));
    }
    ImGui::NewFrame();
    for (const auto& s : app.compare.sessions) {
      REQUIRE(s);
      const auto lines = compare_panel::column_lines(*s, 1e4f, true);
      REQUIRE(lines.size() == 3);
      CHECK(lines[2].first == "predicted: shown once you answer the question");
      CHECK(lines[2].first.find("µs") == std::string::npos);
      CHECK(compare_panel::column_lines(*s, 1e4f, false)[2].first.rfind("predicted 1", 0) == 0);  // 11.5 / 12.7 / 17.2 µs
    }
    ImGui::EndFrame();
    app.lesson->submit("373");
    frames(h, app, 2);
    CHECK_FALSE(compare_panel::crossover_hidden(app));
    CHECK_FALSE(compare_panel::column_predictions_hidden(app));
    CHECK(predicted_points_drawn(app.compare, false) == 6);
    CHECK(lines_drawn(app) == std::vector<std::string>{"naive to 4 MiB", "tree to 4 MiB", "ring to 4 MiB"});
    CHECK(line_of_describe(app, "crossover") != "hidden");
  }

  TEST_CASE("predicted_points_drawn: all points, or those before the crossover's bracket while withheld") {
    Compare c;
    SweepCurve a;
    a.bytes = {1, 4, 16, 64};
    a.predicted_us = {1, 2, 3, 4};
    c.sweep = {a, a};
    CHECK(predicted_points_drawn(c, false) == 4);
    CHECK(predicted_points_drawn(c, true) == 4);  // no crossover: nothing to hide
    c.crossover_predicted = 2;
    CHECK(predicted_points_drawn(c, true) == 2);
    CHECK(predicted_points_drawn(c, false) == 4);
    c.crossover_predicted = 0;  // the ring ahead from the first size: no line
    CHECK(predicted_points_drawn(c, true) == 0);
  }

  TEST_CASE("lesson 05 beat 7 asks for α: the crossover is not hidden and no crossover caption shows") {
    const SkipChecks skip;
    Sized h(18.f);
    App app;
    app.vs.font_px = 18.f;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson05));
    REQUIRE(app.lesson->go(6));
    REQUIRE(app.lesson->current().question.has_value());
    app.vs.edit = beat_target(app.lesson->current()).params;
    frames(h, app, 3);
    REQUIRE(app.lesson->checks_hidden());
    CHECK_FALSE(compare_panel::crossover_hidden(app));
    CHECK(line_of_describe(app, "crossover") != "hidden");
    // Its cards still wait: the beat's question is open.
    CHECK(compare_panel::column_predictions_hidden(app));
  }
}
