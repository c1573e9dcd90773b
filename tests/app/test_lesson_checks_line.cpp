// The lesson panel's checks before and after a beat's question is answered,
// read back from the glyphs a real frame draws (the slide's font, 1280 x 720): before, the one line "Checks: shown after you answer" and no count
// of checks that pass; after, the checks and no such line. On a slide
// (--present, answer revealed with R) and in the window (answered by a choice).
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/headless.h"
#include "app/text_sizes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

// The text the last frame drew, read back glyph by glyph from its draw
// data (text_sizes.h), in drawing order, without spaces (a space draws no
// glyph): what is on the screen, whichever path drew it.
std::string screen_text() {
  std::string out;
  for (const test::DrawnGlyph& g : test::drawn_glyphs()) {
    const unsigned c = g.codepoint;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string squeeze(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// How often `what` (its spaces dropped, as on the screen) is in `text`.
int count(const std::string& text, std::string what) {
  what = squeeze(what);
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Lesson 02 open at beat 2 ("What does R0's accum hold after step 0?",
// four checks), its checks run.
void open_beat2(test::FontWindow& h, App& app, bool present) {
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
  app.vs.edit = beat_target(app.lesson->current()).params;
  app.vs.present = present;
  h.frame(app);
  action_next_beat(app);
  REQUIRE(app.lesson->beat() == 1);
  REQUIRE(app.lesson->current().question);
  app.lesson->wait_checks();
  REQUIRE(app.lesson->checks_ready());
  REQUIRE(app.lesson->check_error() == "");
  REQUIRE(app.lesson->results()->size() == 4);
}

}  // namespace

TEST_SUITE("lesson_checks_line") {
  TEST_CASE("a slide: one line before R reveals the answer, the checks after it") {
    test::FontWindow h;
    App app;
    open_beat2(h, app, true);
    h.settle(app);
    const std::string before = screen_text();
    INFO(before);
    CHECK(count(before, "Checks: shown after you answer") == 1);
    CHECK(count(before, "checks pass") == 0);  // no "4 of 4 checks pass" beside it
    CHECK(count(before, "Checks (") == 0);
    action_reveal(app);
    REQUIRE(app.lesson->answer().revealed);
    h.settle(app);
    const std::string after = screen_text();
    INFO(after);
    CHECK(count(after, "Checks: shown after you answer") == 0);
    CHECK(count(after, "Checks (real run)") == 1);
    CHECK(count(after, "\u2713 4 checks pass") == 1);
  }

  TEST_CASE("the window: one line before a choice, each check after it") {
    test::FontWindow h(14, ImVec2(1600, 1600));  // tall enough that the panel does not scroll its checks away
    App app;
    open_beat2(h, app, false);
    h.settle(app);
    const std::string before = screen_text();
    INFO(before);
    CHECK(count(before, "Checks: shown after you answer") == 1);
    CHECK(count(before, "checks pass") == 0);
    CHECK(count(before, "\u2713") == 0);
    app.lesson->choose(2);  // "[8, 10, 12]": right
    REQUIRE(app.lesson->answer().right);
    h.settle(app);
    const std::string after = screen_text();
    INFO(after);
    CHECK(count(after, "Checks: shown after you answer") == 0);
    CHECK(count(after, "Checks (real run)") == 1);
    CHECK(count(after, "\u2713") == 4);  // one per check
  }
}
