// No answer on the picture before its question: what the window shows of a
// lesson's beat (describe_picture: the note, the outlined ranks, the
// crossover, the run) holds no figure that an open question of that beat or
// a later one asks for, and shows it once the question is answered.
// Lesson 08 in the window: the hang lab's 4 ranks, the stuck rank outlined
// only after "Which rank is stuck?" is answered.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "app/viz/describe.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "lessons/answer_figures.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;
namespace figures = microddp::test;  // answer_figures.h (test:: alone would also name viz::test, headless.h)

namespace {

const fs::path kLessons = fs::path(MICRODDP_SOURCE_DIR) / "lessons";

// An app with `file` open at beat 1, as `microddp-viz --lesson` starts it
// (under a viz::test::SkipLessonChecks).
void open_lesson(App& app, const fs::path& file) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(file.string()));
  app.vs.edit = beat_target(app.lesson->current()).params;
  apply_params(app);
  lesson_sync(app);
}

std::string at_beat(App& app, int b) {
  app.lesson->go(b);
  lesson_sync(app);
  return describe_picture(app);
}

// The line of a description that starts with `key: `.
std::string line_of(const std::string& d, const std::string& key) {
  std::istringstream in(d);
  const std::string k = key + ": ";
  for (std::string l; std::getline(in, l);)
    if (l.rfind(k, 0) == 0) return l.substr(k.size());
  return "";
}

}  // namespace

TEST_SUITE("answer_first_window") {
  TEST_CASE("every lesson: no beat's picture shows the figure an open question asks for") {
    // What the window draws of a beat that a figure can hide in, through
    // the functions lesson_sync and the panels use (no run: the sessions
    // are not needed for these, and would take seconds): the note under
    // the text (shown_note: a stand-in's prediction at the real size), the
    // outlined ranks (rank_lit) and the crossover (withholds, as
    // panel_compare's crossover_hidden), the predicted crossover being the
    // one of the beat's run under its preset where it names one.
    int described = 0;
    for (const auto& e : fs::directory_iterator(kLessons)) {
      if (e.path().extension() != ".yaml") continue;
      const lesson::Lesson l = lesson::load_lesson(e.path().string());
      // The numeric questions (small whole answers left out, as in
      // tests/lessons/test_answer_first.cpp); none is answered here.
      std::vector<size_t> asks;
      for (size_t b = 0; b < l.beats.size(); ++b)
        if (const auto& q = l.beats[b].question;
            q && q->choices.empty() && !(std::abs(q->value) < 10 && q->value == std::floor(q->value)))
          asks.push_back(b);
      if (asks.empty()) continue;
      LessonView L(l);
      for (size_t k = 0; k <= asks.back(); ++k) {
        L.go(static_cast<int>(k));
        const BeatTarget t = beat_target(L.current());
        std::string lit;
        for (int r = 0; r < 64; ++r)
          if (L.rank_lit(r)) lit += std::to_string(r) + " ";
        ++described;
        for (size_t b : asks) {
          if (b < k) continue;  // answered before this beat (in a lecture)
          const auto& q = *l.beats[b].question;
          for (const auto& [what, text] : {std::pair<std::string, std::string>{"note", shown_note(L, t)}, {"lit ranks", lit}})
            for (const figures::Number& x : figures::numbers_in(text)) {
              if (x.dim != figures::Dim::none && x.dim != figures::asked_in(q.ask)) continue;
              INFO(fmt::format("{} beat {} (answer {:g} to beat {}): {}: {}", e.path().filename().string(), k + 1,
                               q.value, b + 1, what, text));
              CHECK_FALSE(figures::gives_away(x.value, q.value, q.tolerance));
            }
          // A crossover the size the question asks for would stay hidden.
          if (figures::asked_in(q.ask) == figures::Dim::bytes) CHECK(L.withholds(q.value * 1e3, byte_scales()));
        }
      }
    }
    CHECK(described >= 20);
  }

  TEST_CASE("lesson 05: the real size's prediction shows once beat 1's question is answered") {
    const viz::test::SkipLessonChecks skip;
    App app;
    open_lesson(app, kLessons / "05-alpha-beta.yaml");
    std::string d = describe_picture(app);
    CHECK(line_of(d, "note").find("predicted at that size: shown once you answer the question") != std::string::npos);
    CHECK(line_of(d, "note").find("2.93 ms") == std::string::npos);
    app.lesson->submit("0.002931");
    lesson_sync(app);
    d = describe_picture(app);
    CHECK(line_of(d, "note").find("predicted at that size: 2.93 ms (preset nvlink)") != std::string::npos);
  }

  TEST_CASE("lesson 09: a stand-in's note prices the real size on the checks' two link classes") {
    const viz::test::SkipLessonChecks skip;
    // It printed 2.93 ms and 3.14 ms (preset nvlink) where the text says
    // 70.03 ms and 42.96 ms.
    LessonView L(lesson::load_lesson((kLessons / "09-topology.yaml").string()));
    L.go(1);
    CHECK(beat_target(L.current()).note.find(
              "predicted at that size: 70 ms (topology 8x1, intra nvlink, inter infiniband, 1 NIC/node)") !=
          std::string::npos);
    L.go(4);
    CHECK(beat_target(L.current()).note.find(
              "predicted at that size: 43 ms (topology 2x8, intra nvlink, inter infiniband, 1 NIC/node)") !=
          std::string::npos);
  }

  TEST_CASE("lesson 03: the crossover stays off the picture until beat 5 asks for it and is answered") {
    const viz::test::SkipLessonChecks skip;
    App app;
    open_lesson(app, kLessons / "03-naive-tree-ring.yaml");
    LessonView& L = *app.lesson;
    const double crossover = 381818;  // bytes: 4α / ((8 - 12/7)β) under nvlink
    for (int b = 0; b < 5; ++b) {
      L.go(b);
      INFO("beat " << b + 1);
      CHECK(L.withholds(crossover, byte_scales()));
    }
    L.submit("380");
    CHECK_FALSE(L.withholds(crossover, byte_scales()));
    for (int b = 5; b < L.num_beats(); ++b) {
      L.go(b);
      CHECK_FALSE(L.withholds(crossover, byte_scales()));
    }
    // A figure no question asks for is never held back.
    L.go(0);
    CHECK_FALSE(L.withholds(2e6, byte_scales()));
  }

  TEST_CASE("lesson 08: the hang lab's 4 ranks; the stuck rank outlined only after the answer") {
    const viz::test::SkipLessonChecks skip;
    App app;
    open_lesson(app, kLessons / "08-hunt-the-hang.yaml");
    std::string d = describe_picture(app);
    CHECK(line_of(d, "run") == "all_reduce ring, 4 ranks, 512 elements per rank, 1 node");
    CHECK(line_of(d, "buffers") == "after step 5 · 6 of 6 steps run");  // healthy: every rank got through call #1
    CHECK(line_of(d, "lit ranks") == "none");
    d = at_beat(app, 1);
    CHECK(line_of(d, "run") == "all_reduce ring, 4 ranks, 512 elements per rank, 1 node");
    CHECK(line_of(d, "buffers") == "before step 0 · 0 of 6 steps run");  // stuck before call #1's first step
    CHECK(line_of(d, "question") == "open");
    CHECK(line_of(d, "lit ranks") == "none");
    CHECK(line_of(d, "note").find("call #1 is an all_reduce of 512 elements on 4 ranks") != std::string::npos);
    CHECK(line_of(d, "note").find("step") == std::string::npos);
    app.lesson->submit("2");
    d = describe_picture(app);
    CHECK(line_of(d, "question") == "answered");
    CHECK(line_of(d, "lit ranks") == "2");
    // A beat with no question outlines its ranks at once.
    d = at_beat(app, 2);
    CHECK(line_of(d, "lit ranks") == "1 3");
  }
}
