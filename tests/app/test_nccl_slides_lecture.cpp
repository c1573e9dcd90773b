// Lessons 11 and 12 as slides, a lecturer's pass (issue 37, lessons 11-12):
// lesson 12 beat 4's ranks apart at 1280x720 (18 and 28 px), its legend
// naming the beat's own bottleneck, 12 beat 3's picture of the sizes its
// text speaks of, and the sweep's y labels spanning the lines (12 beat 2).
// Through the window's own frames (headless, the real font) or the scenes
// the panels draw.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "app/viz/stand_in_bottleneck.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

const fs::path kLessons = fs::path(MICRODDP_SOURCE_DIR) / "lessons";
const fs::path kLesson11 = kLessons / "11-what-nccl-does.yaml";
const fs::path kLesson12 = kLessons / "12-nccl-on-real-clusters.yaml";

struct SkipChecks {
  SkipChecks() { setenv("MICRODDP_VIZ_SKIP_CHECKS", "1", 1); }
  ~SkipChecks() { unsetenv("MICRODDP_VIZ_SKIP_CHECKS"); }
  SkipChecks(const SkipChecks&) = delete;
  SkipChecks& operator=(const SkipChecks&) = delete;
};

// `file` at `beat` (0-based), as `microddp-viz --lesson F --present --font-px px` shows it.
void show(test::FontWindow& w, App& app, const fs::path& file, int beat, float px) {
  app.vs.font_px = px;
  app.vs.present = true;
  app.vs.static_frame = true;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(file.string()));
  app.lesson->go(beat);
  w.settle(app);
}

// The drawn text, one string per line of glyphs (spaces are not drawn).
std::vector<std::string> drawn_lines() {
  std::map<std::pair<std::string, int>, std::vector<test::DrawnGlyph>> lines;
  for (const auto& g : test::drawn_glyphs()) lines[{g.list, int(std::lround(g.line_top))}].push_back(g);
  std::vector<std::string> out;
  for (auto& [key, gs] : lines) {
    std::sort(gs.begin(), gs.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    std::string s;
    for (const auto& g : gs) s += g.codepoint < 128 ? char(g.codepoint) : '?';
    out.push_back(s);
  }
  return out;
}

std::string no_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

TEST_SUITE("nccl_slides") {
  TEST_CASE("lesson 12 beat 4 (16 ranks on 2 nodes): 4 px at least between any two ranks' outlines, 18 and 28 px") {
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 16;
    p.spec.nodes = 2;
    p.spec.channels = 8;
    p.spec.count = 1024;
    p.data = "iota";
    Session ses;
    ses.configure(p);
    const int last = ses.schedule().num_steps();
    int scenes = 0;
    // The topology canvas of a 1280x720 slide is about 760 x 110 px at 18 px
    // (R0/R1, R6/R7, R14/R15 touched there); every canvas around it.
    for (const float px : {18.f, 28.f})
      for (float w = 640; w <= 1280; w += 80)
        for (float h = 100; h <= 340; h += 30) {
          TopologyText tx;
          tx.font_px = px;
          tx.min_px = 14;
          const TopologyScene sc = build_topology(ses, last, Vec2{w, h}, 0.5f, nullptr, &tx);
          if (sc.compact_nodes || sc.boxes.size() != 2) continue;
          ++scenes;
          for (size_t i = 0; i < sc.nodes.size(); ++i)
            for (size_t j = i + 1; j < sc.nodes.size(); ++j) {
              const NodeDraw &a = sc.nodes[i], &b = sc.nodes[j];
              // A busy rank's outline is 3 px wide, centred on its circle: 1.5 px outside.
              const float gap = std::hypot(a.pos.x - b.pos.x, a.pos.y - b.pos.y) - a.radius - b.radius - 3;
              INFO(px, " px, canvas ", w, " x ", h, ": R", a.rank, " and R", b.rank, " radius ", a.radius);
              CHECK(gap >= 4 - 1e-3);
            }
        }
    CHECK(scenes > 60);  // most canvases draw the node boxes (an empty loop would pass unseen)
  }

  TEST_CASE("lesson 12 beat 4's legend: the beat's bottleneck (NICs) and the orange labelled as the stand-in's") {
    const SkipChecks skip;
    const lesson::Lesson l = lesson::load_lesson(kLesson12.string());
    const BeatTarget t = beat_target(l.beats[3]);
    REQUIRE(t.stand_in);
    CHECK(note_bottleneck(t.note) == "all 16 NIC out and in ports");
    CHECK(note_bottleneck("stand-in run: no bottleneck named").empty());
    CHECK(stand_in_legend("all 16 intra out and in ports, equally", "all 16 NIC out and in ports", false) ==
          "colour = load; orange = stand-in run's bottleneck: all 16 intra out and in ports, equally");
    CHECK(stand_in_legend("R0 intra out", "all 16 NIC out and in ports", true) ==
          "bottleneck at the beat's size: all 16 NIC out and in ports; orange = the stand-in run's: R0 intra out");
    CHECK(stand_in_legend("R0 intra out", "", true) == "orange = stand-in run's bottleneck: R0 intra out");
    // On the slide, 1280x720 at 18 px: the orange labelled as the
    // stand-in's on one line (the full legend); the note names the beat's.
    for (const float px : {18.f}) {
      test::FontWindow w(px);
      App app;
      show(w, app, kLesson12, 3, px);
      std::string all;
      bool one_line = false;
      for (const std::string& line : drawn_lines()) {
        all += line;
        one_line = one_line || line == "colour=load;orange=stand-inrun'sbottleneck:all16intraoutandinports,equally";
      }
      INFO(px, " px: ", all);
      CHECK(one_line);
      CHECK(all.find("bottleneckatthatsize:all16NICoutandinports") != std::string::npos);  // (the note)
      CHECK(all.find("orange=bottleneck:") == std::string::npos);  // (the stand-in's, unlabelled)
    }
  }

  TEST_CASE("lesson 12 beat 3 pictures its own sizes (up to 4 GiB, 1 GiB marked) and protocol ratios, not 11 beat 9's plot") {
    const SkipChecks skip;
    const lesson::Lesson a = lesson::load_lesson(kLesson11.string());
    const lesson::Lesson b = lesson::load_lesson(kLesson12.string());
    const lesson::BeatView &v11 = a.beats[8].view, &v12 = b.beats[2].view;
    CHECK(v11.min_bytes == 64);
    CHECK(v11.max_bytes == int64_t{256} << 20);
    CHECK(v12.min_bytes == int64_t{256} << 10);
    CHECK(v12.max_bytes == int64_t{4} << 30);
    CHECK(v12.protocols);
    test::FontWindow w(18);
    App app;
    show(w, app, kLesson12, 2, 18);
    REQUIRE(app.compare.sweep.size() == 3);
    for (const SweepCurve& c : app.compare.sweep) {
      INFO(c.algorithm);
      REQUIRE(c.bytes.size() == 8);  // 256 KiB, 1 MiB, ... 4 GiB
      CHECK(c.bytes.front() == 262144);
      CHECK(c.bytes[6] == 1073741824);
    }
    // At 1 GiB the tuner's Simple ring: 7885.367 µs, LL 21440.863 µs (microddp predict --nccl-system dgx-a100 --bytes 1G).
    std::map<std::string, double> at_1g;
    for (const SweepCurve& c : app.compare.sweep) at_1g[c.algorithm] = c.predicted_us[6];
    CHECK(at_1g["ring SIMPLE"] == doctest::Approx(7885.367).epsilon(1e-6));
    CHECK(at_1g["ring LL"] == doctest::Approx(21440.863).epsilon(1e-6));
    bool x_1g = false, ratio = false;
    for (const ViewState::Drawn& d : app.vs.compare_drawn) {
      x_1g = x_1g || d.what == "sweep x label 1 GiB";
      ratio = ratio || d.what.rfind("sweep ratio", 0) == 0;
    }
    CHECK(x_1g);
    CHECK(ratio);  // each protocol over the fastest at that size
  }

  TEST_CASE("lesson 12 beats 2 and 3's sweeps at 18 and 28 px: no line runs more than half a line below the lowest y label") {
    const SkipChecks skip;
    int plots = 0;
    for (const int k : {1, 2})
      for (const float px : {18.f, 28.f}) {
        test::FontWindow w(px);
        App app;
        show(w, app, kLesson12, k, px);
        const float lh = ImGui::GetTextLineHeight();
        float lowest_label = -1e9f, lowest_point = -1e9f;
        int labels = 0;
        for (const ViewState::Drawn& d : app.vs.compare_drawn) {
          if (d.what.rfind("sweep y label ", 0) == 0) ++labels, lowest_label = std::max(lowest_label, d.r.y + d.r.h / 2);
          if (d.what.rfind("sweep segment line ", 0) == 0) lowest_point = std::max({lowest_point, d.r.y, d.r.y + d.r.h});
        }
        ++plots;
        INFO("beat ", k + 1, " at ", px, " px: lowest label centred at y ", lowest_label, ", lowest point at y ",
             lowest_point);
        REQUIRE(lowest_point > -1e8f);  // lines drawn
        CHECK(labels >= 2);
        CHECK(lowest_point <= lowest_label + lh * 0.5f);  // 12 b2: 15 µs lines ran 30 px under "30 µs"
      }
    CHECK(plots == 4);
  }
}
