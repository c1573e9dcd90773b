// The presenter's kit, hostile review of issue 37 (kit8): a beat sets its
// whole prediction state however it is reached (lesson 05 b5 -> b6, lesson
// 12 b4 -> b5), the speaker notes name the keys of the mode in use and the
// slide's continuation pages, Esc closes the class poll's field, and a big
// poll count is drawn whole. Through parse_options / apply_options and the
// window's frames (no GL).
#include <doctest/doctest.h>
#include <imgui.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/describe.h"
#include "app/viz/keys.h"
#include "app/viz/options.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons/";

using test::open_with;

// Beat `to` reached from beat `from` (as Next and the export do) and opened
// directly (as --beat does): the same source, note and described prediction.
// Returns the source beat `from` priced with, and `to`'s.
std::pair<PredictionSource, PredictionSource> same_as_opened(const std::string& lesson, int from, int to) {
  App walked, direct;
  REQUIRE(open_with(walked, {"--lesson", kLessons + lesson, "--beat", std::to_string(from)}) == "");
  REQUIRE(open_with(direct, {"--lesson", kLessons + lesson, "--beat", std::to_string(to)}) == "");
  const PredictionSource before = walked.vs.source;
  walked.lesson->go(to - 1);
  lesson_sync(walked);
  INFO(lesson, " beat ", from, " -> ", to);
  CHECK(prediction_source_text(walked.vs.source) == prediction_source_text(direct.vs.source));
  CHECK(walked.vs.source == direct.vs.source);
  CHECK(walked.session.source() == direct.session.source());
  CHECK(walked.vs.lesson_note == direct.vs.lesson_note);
  return {before, direct.vs.source};
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_SUITE("presenter_kit8") {
  TEST_CASE("a beat's prediction source is its own however it is reached: lesson 05 b5 -> b6, lesson 12 b4 -> b5") {
    test::SkipLessonChecks skip;
    // Lesson 05 b6 prices with the profile (nvlink while there is none), not b5's infiniband.
    const auto [b5, b6] = same_as_opened("05-alpha-beta.yaml", 5, 6);
    CHECK(prediction_source_text(b5) == "preset infiniband");
    CHECK(b6.kind == PredictionSource::Kind::profile);
    CHECK(b6.preset == "nvlink");
    // Lesson 12 b5 does not keep b4's 8 NICs per node.
    const auto [b4, l12b5] = same_as_opened("12-nccl-on-real-clusters.yaml", 4, 5);
    CHECK(b4.nics_per_node == 8);
    CHECK(l12b5.nics_per_node == 1);
  }

  TEST_CASE("the speaker notes name the keys of the mode in use, and a slide's continuation pages") {
    test::SkipLessonChecks skip;
    App app;
    REQUIRE(open_with(app, {"--lesson", kLessons + "02-ring-double-buffering.yaml", "--beat", "2"}) == "");
    // Outside present mode R is Reset and P the previous beat: no "R reveals".
    std::string s = speaker_text(app, 0);
    CHECK(has_line(s, "screen: question open (answer it in the lesson panel; F5 enters present mode, where R reveals "
                      "the answer)"));
    CHECK(s.find("page:") == std::string::npos);
    app.vs.present = true;
    s = speaker_text(app, 0);
    CHECK(has_line(s, "screen: question open (R reveals the answer)"));
    CHECK(s.find("page:") == std::string::npos);  // one page
    app.presenter.pages = 3;
    app.presenter.page = 1;
    CHECK(has_line(speaker_text(app, 0), "page: 2 of 3 (Right / Page Down turns the page before the next beat)"));
  }

  TEST_CASE("Esc with the class poll's field open closes the field (its typed text dropped); present mode stays") {
    test::SkipLessonChecks skip;
    test::Headless h;
    App app;
    REQUIRE(open_with(app, {"--lesson", kLessons + "02-ring-double-buffering.yaml", "--beat", "2", "--present"}) == "");
    h.frame(app);
    h.press(app, Key::poll);
    REQUIRE(app.presenter.poll_open);
    app.presenter.poll_typed = "12,3";
    h.press(app, Key::escape);
    CHECK_FALSE(app.presenter.poll_open);
    CHECK(app.presenter.poll_typed.empty());
    CHECK(app.vs.present);
    h.press(app, Key::escape);  // the field closed: Esc leaves present mode, as before
    CHECK_FALSE(app.vs.present);
  }

  TEST_CASE("a poll count of 100000 is drawn whole beside its bar: '100000 (100%)'") {
    test::SkipLessonChecks skip;
    test::FontWindow w(18, ImVec2(1280, 720));
    App app;
    REQUIRE(open_with(app, {"--lesson", kLessons + "02-ring-double-buffering.yaml", "--beat", "5", "--poll",
                            "3,100000,0", "--present"}) == "");
    w.settle(app);
    std::string letters;
    for (const auto& g : test::drawn_glyphs())
      if (g.codepoint < 128 && g.x1 <= ImGui::GetIO().DisplaySize.x) letters += char(g.codepoint);
    INFO(letters);
    CHECK(letters.find("100000(100%)") != std::string::npos);
    CHECK(letters.find("3(0%)") != std::string::npos);
  }
}
