// Slides say nothing a projected or printed page cannot use (issue 37):
// no "hover" in --present, no presenter's key hint ("R reveals the
// answer") on a PDF handout's page; the lecture clock counts from the
// planned start of the first beat shown. Through the window's frames and
// the glyphs they drew (text_sizes.h), no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <string>

#include "app/text_sizes.h"
#include "app/viz/compare.h"
#include "app/viz/ddp_view.h"
#include "app/viz/options.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "core/labs/lesson/plan.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

const std::string kLessons = std::string(MICRODDP_SOURCE_DIR) + "/lessons";

using Window = test::FontWindow;

// Every glyph the last frame drew, in drawing order, spaces left out
// (ImGui draws no quad for a space): "R reveals" reads "Rreveals".
std::string drawn_letters() {
  std::string out;
  for (const auto& g : test::drawn_glyphs())
    if (g.codepoint < 128) out += char(g.codepoint);
  return out;
}

void open(App& app, const std::string& lesson, int beat) {
  app.vs.present = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLessons + "/" + lesson));
  app.lesson->go(beat - 1);
}

}  // namespace

TEST_SUITE("present_hints") {
  TEST_CASE("--present draws no 'hover': lesson 09 beat 4's topology legend, lesson 03 beat 3's buffers") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const auto& [lesson, beat, shown] :
         {std::tuple{"09-topology.yaml", 4, "bottleneck:"}, std::tuple{"03-naive-tree-ring.yaml", 3, "R0input"}}) {
      Window w;
      App app;
      open(app, lesson, beat);
      w.frames(app);
      const std::string s = drawn_letters();
      INFO(lesson, " beat ", beat, ": ", s);
      CHECK(s.find(shown) != std::string::npos);  // the line is drawn, without its hint
      CHECK(s.find("hover") == std::string::npos);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("no presenter's key hint on a slide: neither the projected slide nor the PDF page says 'R reveals' or 'P: class poll'") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w;
    App app;
    open(app, "02-ring-double-buffering.yaml", 2);
    w.frames(app);
    const std::string slide = drawn_letters();
    INFO(slide);
    CHECK(slide.find("WhatdoesR0'saccumholdafterstep0?") != std::string::npos);  // the question is drawn
    CHECK(slide.find("Rreveals") == std::string::npos);
    CHECK(slide.find("classpoll") == std::string::npos);
    app.vs.handout = true;  // as export_handout sets it
    w.frames(app);
    CHECK(drawn_letters().find("Rreveals") == std::string::npos);
    CHECK(drawn_letters().find("WhatdoesR0'saccumholdafterstep0?") != std::string::npos);
    // The speaker view keeps the key.
    CHECK(speaker_text(app, 0).find("screen: question open (R reveals the answer)") != std::string::npos);
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("lesson 08's slides name no control that --present hides ('the step controls')") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (int beat = 1; beat <= 7; ++beat) {
      Window w;
      App app;
      open(app, "08-hunt-the-hang.yaml", beat);
      w.frames(app);
      const std::string s = drawn_letters();
      INFO("beat ", beat, ": ", s);
      CHECK(s.find("Beat" + std::to_string(beat) + "of7") != std::string::npos);
      CHECK(s.find("stepcontrols") == std::string::npos);
      CHECK(s.find("controls") == std::string::npos);
      CHECK(s.find("Rreveals") == std::string::npos);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("the clock counts from the planned start of the first beat shown (--beat 5), and T from the current beat's") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w;
    App app;
    open(app, "02-ring-double-buffering.yaml", 5);
    app.presenter.speaker_file = (std::filesystem::temp_directory_path() /
                                  ("microddp_clock_" + std::to_string(::getpid()) + ".txt")).string();
    w.frames(app, 1);
    const double planned = 60 * lesson::minutes_before(app.lesson->lesson(), 4);
    CHECK(planned == 16 * 60);  // beats 1-4: 3 + 5 + 4 + 4 minutes
    CHECK(app.presenter.clock_offset_s == planned);
    // "clock 16:00 elapsed · this beat planned at 16:00-22:00 · ... · on time" (it said "16:00 ahead")
    INFO(app.presenter.written);
    CHECK(app.presenter.written.find("\nclock 16:0") != std::string::npos);
    CHECK(app.presenter.written.find("ahead") == std::string::npos);
    std::filesystem::remove(app.presenter.speaker_file);
    app.lesson->go(0);
    action_restart_clock(app);
    CHECK(app.presenter.clock_offset_s == 0);
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("a DDP view's screenshot line says which run is shown, not 'before step 0 · 0 of 2 steps run'") {
    Window w;
    App app;
    app.vs.view = View::ddp;
    ddp::Options& o = app.ddp.edit.run;
    o.ranks = 2, o.depth = 2, o.width = 8, o.layer_delay_us = 0, o.iterations = 1;
    w.frames(app, 1);
    app.ddp.runner.wait();
    w.frames(app, 2);
    REQUIRE(app.ddp.runner.result() != nullptr);
    CHECK(slide_state(app) == "DDP view, a training run: 2 ranks, 1 iteration");
  }
}

namespace {
// WCAG 2 relative luminance and contrast ratio (sRGB, 0xRRGGBB).
double luminance(uint32_t rgb) {
  const auto lin = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(((rgb >> 16) & 255) / 255.0) + 0.7152 * lin(((rgb >> 8) & 255) / 255.0) +
         0.0722 * lin((rgb & 255) / 255.0);
}
double contrast(uint32_t a, uint32_t b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
}  // namespace

TEST_SUITE("present_hints") {
  TEST_CASE("secondary text (lesson 09's link-class legend, the beat heading) reads at >= 4.5:1 on every light background") {
    Window w;
    const ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
    const uint32_t rgb = uint32_t(std::lround(c.x * 255)) << 16 | uint32_t(std::lround(c.y * 255)) << 8 |
                         uint32_t(std::lround(c.z * 255));
    CHECK(rgb == kSecondaryText);
    CHECK(contrast(rgb, 0xFFFFFF) == doctest::Approx(5.33).epsilon(0.01));
    CHECK(contrast(rgb, 0xF7F7F4) >= 4.5);
    CHECK(contrast(rgb, 0xF2F2F2) >= 4.5);
    CHECK(contrast(0x999999, 0xFFFFFF) < 3);  // ImGui's light style: what the lecturer could not read
  }
}

TEST_SUITE("present_hints") {
  TEST_CASE("--present --compare-runs: no empty plot saying to press the hidden 'Measure sweep'; the columns take the area") {
    const fs::path dir = fs::temp_directory_path() / ("microddp_hints_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const char* alg : {"ring", "tree"})
      REQUIRE(std::system(fmt::format("{} run --collective all_reduce --algorithm {} --ranks 4 --count 8 --save-record "
                                      "{}/{}.json > /dev/null 2>&1",
                                      MICRODDP_CLI_BIN, alg, dir.string(), alg)
                              .c_str()) == 0);
    std::vector<std::string> args = {"microddp-viz", "--compare-runs", (dir / "ring.json").string(),
                                     (dir / "tree.json").string(), "--present"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    Options o;
    REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
    Window w;
    App app;
    apply_options(app, o);
    app.vs.view = View::compare;  // as the window opens --compare-runs (test_present.cpp)
    app.vs.static_frame = true;   // as --screenshot draws it (its sweep of the replays measures no point)
    w.frames(app);
    const std::string s = drawn_letters();
    INFO(s);
    CHECK(s.find("Measuresweep") == std::string::npos);
    const auto has = [&](const std::string& what) {
      return std::any_of(app.vs.compare_drawn.begin(), app.vs.compare_drawn.end(),
                         [&](const auto& d) { return d.what == what; });
    };
    CHECK_FALSE(has("sweep plot"));
    const auto area = std::find_if(app.vs.compare_drawn.begin(), app.vs.compare_drawn.end(),
                                   [](const auto& d) { return d.what == "area"; });
    const auto col = std::find_if(app.vs.compare_drawn.begin(), app.vs.compare_drawn.end(),
                                  [](const auto& d) { return d.what.rfind("column ", 0) == 0; });
    REQUIRE(area != app.vs.compare_drawn.end());
    REQUIRE(col != app.vs.compare_drawn.end());
    CHECK(col->r.bottom() == doctest::Approx(area->r.bottom()).epsilon(0.001));
    // Outside --present: no algorithm checkboxes (they read unchecked while
    // ring and tree are drawn), a line saying the columns are the runs.
    app.vs.present = false;
    w.frames(app);
    CHECK(has("compare algorithms label"));
    CHECK(drawn_letters().find("Recordedruns(--compare-runs),oneacolumn") != std::string::npos);
    for (const auto& c : app.vs.controls_drawn) CHECK(c.what.rfind("compare algorithm ", 0) != 0);
    fs::remove_all(dir);
  }
}

TEST_SUITE("present_hints") {
  TEST_CASE("lesson 02 beat 2's answer slide outlines the storage that received (B, now send_buff), not the name") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w;
    App app;
    open(app, "02-ring-double-buffering.yaml", 2);
    app.vs.static_frame = true;  // as --screenshot / --export-frames draw it
    w.frames(app);
    // Before step 0: recv_buff is storage B, empty; accum.
    CHECK(app.vs.rows_lit == std::vector<std::string>{"R0 recv_buff B", "R0 accum "});
    for (const auto& d : app.vs.labels_drawn) CHECK(d.what.rfind("buffers ", 0) != 0);  // no note before the step
    app.lesson->choose(2);  // [8, 10, 12]: the answer slide shows after step 0
    w.frames(app);
    REQUIRE(app.session.position() == 1);
    // After the swap the name recv_buff points at A (R0's own [1, 2, 3]);
    // the tensor that arrived, [7, 8, 9], is in B, named send_buff now.
    CHECK(app.vs.rows_lit == std::vector<std::string>{"R0 send_buff B", "R0 accum "});
    // The lit row's name is followed by what storage B received in the step
    // (issue 37): "send_buff (got T2)" beside the beat's "receives the
    // left neighbour's tensor into recv_buff ... it becomes send_buff".
    std::vector<std::string> notes;
    for (const auto& d : app.vs.labels_drawn)
      if (d.what.rfind("buffers ", 0) == 0) notes.push_back(d.what);
    CHECK(notes == std::vector<std::string>{"buffers R0 send_buff (got T2)", "buffers R1 send_buff (got T0)",
                                            "buffers R2 send_buff (got T1)"});
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}

TEST_SUITE("present_hints") {
  TEST_CASE("revealing the answer keeps the slide's layout at --font-px 28: lesson 02 beat 2 and lesson 09 beat 4, the picture does not jump") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    for (const auto& [lesson, beat] : {std::pair{"02-ring-double-buffering.yaml", 2}, std::pair{"09-topology.yaml", 4}}) {
      Window w(28);
      App app;
      app.vs.font_px = 28;
      open(app, lesson, beat);
      app.vs.static_frame = true;
      w.frames(app, 40);
      REQUIRE_FALSE(app.vs.lesson_fitting);
      const auto lesson_rect = [&] {
        for (const auto& p : app.vs.panels_drawn)
          if (p.what == "lesson") return p.r;
        return Rect{};
      };
      const Rect before = lesson_rect();
      REQUIRE(before.h > 0);
      action_reveal(app);
      w.frames(app, 40);
      INFO(lesson, " beat ", beat, ": lesson panel at y ", before.y, " h ", before.h, ", after reveal y ",
           lesson_rect().y, " h ", lesson_rect().h, ", text scale ", app.vs.lesson_scale);
      CHECK_FALSE(app.vs.lesson_fitting);
      CHECK_FALSE(app.vs.lesson_clipped);
      CHECK(lesson_rect().y == before.y);
      CHECK(lesson_rect().h == before.h);
      CHECK(app.vs.lesson_scale * 28 >= kLessonMinPx - 1e-3);
    }
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }

  TEST_CASE("lesson 02 beat 4: the bytes per rank (the answer, 24) wait on the slide until the question is answered") {
    ::setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1);
    Window w;
    App app;
    open(app, "02-ring-double-buffering.yaml", 4);
    app.vs.static_frame = true;
    w.frames(app);
    w.frames(app);  // a later frame must not restore the held note
    INFO(app.vs.lesson_note);
    CHECK(app.vs.lesson_note.find("24 + 24") == std::string::npos);
    CHECK(app.vs.lesson_note.find(kBytesWait) != std::string::npos);
    action_reveal(app);
    w.frames(app);
    INFO(app.vs.lesson_note);
    CHECK(app.vs.lesson_note ==
          "Bytes per rank after 2 of 2 steps, sent + received: R0 24 + 24, R1 24 + 24, R2 24 + 24");
    ::unsetenv("MICRODDP_VIZ_SKIP_CHECKS");
  }
}
