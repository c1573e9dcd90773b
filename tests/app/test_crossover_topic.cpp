// The compare plot draws the crossover only on a beat about it (issue 37,
// lecturer pass 4): lesson 05 beat 7 asks for α on the recorded lab run
// and drew "crossover (recorded)", "crossover (lab model)", the ringed dot,
// the ratio strip and "ring is the fastest from 256 KiB on" in its header.
// Lesson 03 beat 10, on the same recording, is about who leads: it keeps
// them.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "app/viz/compare_panel.h"
#include "app/viz/describe.h"
#include "tests/app/layout_checks.h"

using namespace microddp;
using namespace microddp::viz;
using namespace microddp::viz::test;

namespace {

struct SkipChecks {
  SkipChecks() { setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipChecks() { unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
  SkipChecks(const SkipChecks&) = delete;
  SkipChecks& operator=(const SkipChecks&) = delete;
};

const std::string kLesson05 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/05-alpha-beta.yaml";

// The compare records whose name starts with `prefix`.
int drawn_count(const App& app, const std::string& prefix) {
  int n = 0;
  for (const auto& d : app.vs.compare_drawn) n += d.what.rfind(prefix, 0) == 0;
  return n;
}

const ViewState::Drawn* drawn(const App& app, const std::string& what) {
  for (const auto& d : app.vs.compare_drawn)
    if (d.what == what) return &d;
  return nullptr;
}

std::string describe_line(App& app, const std::string& key) {
  const std::string d = "\n" + describe_picture(app), k = "\n" + key + ": ";
  const size_t at = d.find(k);
  if (at == std::string::npos) return "";
  const size_t from = at + k.size();
  return d.substr(from, d.find('\n', from) - from);
}

// Lesson `file`'s beat `beat` (1-based) on a 1280x720 slide at 18 px.
void open_beat(Sized& h, App& app, const std::string& file, int beat) {
  app.vs.font_px = 18.f;
  app.vs.present = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(file));
  REQUIRE(app.lesson->go(beat - 1));
  app.vs.edit = beat_target(app.lesson->current()).params;
  frames(h, app, 3);
  REQUIRE(app.vs.view == View::compare);
  REQUIRE_FALSE(app.compare.sweeping());
}

}  // namespace

TEST_SUITE("crossover_topic") {
  TEST_CASE("crossover_words: whole words about who leads, not 'across' or 'crossing'") {
    CHECK(compare_panel::crossover_words("Where is the Crossover?"));
    CHECK(compare_panel::crossover_words("from 256 KiB on the ring is the fastest"));
    CHECK(compare_panel::crossover_words("the tree is ahead up to 64 KiB"));
    CHECK(compare_panel::crossover_words("the ring has overtaken it"));
    CHECK(compare_panel::crossover_words("does the ring lead there"));
    CHECK_FALSE(compare_panel::crossover_words("crossing nodes is slower, across the NIC"));
    CHECK_FALSE(compare_panel::crossover_words("the ring's time barely moves: latency-bound"));
    CHECK_FALSE(compare_panel::crossover_words(""));
  }

  TEST_CASE("lesson 05 beat 7 (a question about α): no crossover marker, sentence or ratio strip, before or after the answer") {
    const SkipChecks skip;
    Sized h(18.f);
    App app;
    open_beat(h, app, kLesson05, 7);
    REQUIRE(app.lesson->current().question.has_value());
    // The recording has a crossover to draw: the ring fastest from 256 KiB.
    REQUIRE_FALSE(app.compare.crossover.empty());
    REQUIRE(app.compare.crossover_measured >= 0);
    for (const char* typed : {"", "340"}) {
      INFO("answer '", typed, "'");
      if (*typed) {
        app.lesson->submit(typed);
        frames(h, app, 2);
        REQUIRE(app.lesson->answer().answered);
      }
      CHECK_FALSE(compare_panel::crossover_hidden(app));
      CHECK_FALSE(compare_panel::beat_about_crossover(app));
      CHECK_FALSE(compare_panel::crossover_shown(app));
      CHECK(drawn_count(app, "sweep crossover") == 0);
      CHECK(drawn_count(app, "sweep ratio") == 0);
      REQUIRE(drawn(app, "sweep axes"));
      CHECK(drawn_count(app, "sweep line ") == 2);  // the tree's and the ring's model lines, whole
      CHECK(describe_line(app, "crossover") == "not drawn (the beat is about something else)");
      CHECK(describe_line(app, "crossover").find("fastest") == std::string::npos);
    }
  }

  TEST_CASE("lesson 03 beat 10 (who leads on the recorded lab run): the crossover's markers and ratio strip are drawn") {
    const SkipChecks skip;
    Sized h(18.f);
    App app;
    open_beat(h, app, kLesson03, 10);
    CHECK(compare_panel::beat_about_crossover(app));
    CHECK(compare_panel::crossover_shown(app));
    CHECK(drawn(app, "sweep crossover (recorded)"));
    CHECK(drawn(app, "sweep crossover (lab model)"));
    CHECK(drawn(app, "sweep ratio axes"));
    CHECK(describe_line(app, "crossover").find("ring is the fastest from 256 KiB") != std::string::npos);
  }
}
