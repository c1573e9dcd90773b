// Lessons 11 (what NCCL does) and 12 (NCCL on real clusters) as slides
// (issue 37, a lecturer's export at --present): through the window's own
// frames (headless, the real font at 18 px, 1280x720) and the text they drew
// (text_sizes.h), or the scenes the panels draw.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <regex>
#include <string>
#include <vector>

#include "app/text_sizes.h"
#include "app/viz/describe.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/scene.h"
#include "app/viz/stand_in_bottleneck.h"
#include "app/viz/step_total.h"
#include "app/viz/view_state.h"
#include "core/ir/protocol.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

const fs::path kLessons = fs::path(MICRODDP_SOURCE_DIR) / "lessons";

// `file` at `beat` (0-based), as `microddp-viz --lesson F --present` shows it.
void show(test::FontWindow& w, App& app, const fs::path& file, int beat) {
  app.vs.static_frame = true;
  test::present_at(app, file.string(), beat, 18);
  w.settle(app);
}

// `algorithm` on 8 ranks, 256 elements of iota data (lesson 11's one-shot and nvls beats).
void configure_8_ranks(Session& ses, const char* algorithm) {
  RunParams p;
  p.spec.algorithm = algorithm;
  p.spec.world_size = 8;
  p.spec.count = 256;
  p.data = "iota";
  ses.configure(p);
}

// The drawn text, one string per line of glyphs (spaces are not drawn: "step13(14thof14)").
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

// Does `line` (spaces dropped) name `n` as a total: "of14" not followed by a digit?
bool names_total(const std::string& line, int n) {
  const std::string k = "of" + std::to_string(n);
  for (size_t at = line.find(k); at != std::string::npos; at = line.find(k, at + 1))
    if (at + k.size() == line.size() || !std::isdigit(static_cast<unsigned char>(line[at + k.size()]))) return true;
  return false;
}

}  // namespace

TEST_SUITE("nccl_slides") {
  TEST_CASE("without_step_total: the step stays, its total goes") {
    // The last step's index is the total less one: it goes too (lecturer pass 8).
    CHECK(without_step_total("ring - step 13 (14th of 14) · phase all-gather", 14) == "ring - the last step · phase all-gather");
    CHECK(without_step_total("ring - step 3 (4th of 14) · phase scatter-reduce", 14) == "ring - step 3 · phase scatter-reduce");
    CHECK(without_step_total("6 of 6 steps run   |   measured 10 µs", 6) == "all steps run   |   measured 10 µs");
    CHECK(without_step_total("after step 5 · 6 of 6 steps run", 6) == "after the last step · all steps run");
    CHECK(without_step_total("after step 2 · 3 of 6 steps run", 6) == "after step 2 · 3 steps run");
    CHECK(without_step_total("step 15 (16th of 16)", 6) == "step 15 (16th of 16)");  // another run's step: kept
    CHECK(without_step_total("step 2 (3rd of 14)", 6) == "step 2 (3rd of 14)");  // another total: kept
    CHECK(without_step_total("1 of 16 ranks", 6) == "1 of 16 ranks");
  }

  TEST_CASE("every shipped lesson: an open question whose answer is the step count never sees 'of N' on its slide") {
    const test::SkipLessonChecks skip;
    int asked = 0;
    for (const auto& e : fs::directory_iterator(kLessons)) {
      if (e.path().extension() != ".yaml") continue;
      const lesson::Lesson l = lesson::load_lesson(e.path().string());
      for (size_t b = 0; b < l.beats.size(); ++b) {
        const auto& q = l.beats[b].question;
        if (!q || !q->choices.empty() || (l.beats[b].view.kind != lesson::BeatView::Kind::steps &&
                                                     l.beats[b].view.kind != lesson::BeatView::Kind::topology))
          continue;
        const BeatTarget t = beat_target(l.beats[b]);
        if (!t.drive || t.num_steps <= 0 || std::abs(q->value - t.num_steps) > std::max(q->tolerance, 1e-9)) continue;
        ++asked;
        test::FontWindow w(18);
        App app;
        show(w, app, e.path(), static_cast<int>(b));
        INFO(e.path().filename().string(), " beat ", b + 1, " (", t.num_steps, " steps)");
        REQUIRE(app.session.num_steps() == t.num_steps);
        CHECK(step_total_hidden(app));
        int step_lines = 0;
        for (const std::string& line : drawn_lines()) {
          INFO(line);
          CHECK_FALSE(names_total(line, t.num_steps));
          // Nor the last step's index, the total less one ("step 13" told 14).
          CHECK_FALSE(std::regex_search(line, std::regex(fmt::format(R"(\bstep {}\b)", t.num_steps - 1))));
          step_lines += line.find("step") != std::string::npos;
        }
        CHECK(step_lines >= 1);  // the step is still named
        CHECK(describe_picture(app).find(fmt::format("of {} steps", t.num_steps)) == std::string::npos);
        // Answered: the total is back.
        app.lesson->submit(fmt::format("{}", t.num_steps));
        w.settle(app);
        CHECK_FALSE(step_total_hidden(app));
        bool total = false;
        for (const std::string& line : drawn_lines()) total = total || names_total(line, t.num_steps);
        CHECK(total);
      }
    }
    CHECK(asked >= 2);  // lesson 11 beats 1 and 5
  }

  TEST_CASE("lesson 12 beat 3: the ring at each protocol in three dark colours apart (LL was pale yellow on white)") {
    const Rgba white{255, 255, 255, 255};
    const Rgba ll = algorithm_color("ring LL"), ll128 = algorithm_color("ring LL128"), simple = algorithm_color("ring SIMPLE");
    for (const Rgba c : {ll, ll128, simple}) CHECK(contrast_ratio(c, white) >= 3.0);
    CHECK(ll == from_hex(0x0072B2));
    CHECK(rgb_distance(ll, ll128) > 60);  // blue and green: 77 apart
    CHECK(rgb_distance(ll, simple) > 60);
    CHECK(rgb_distance(ll128, simple) > 60);
    for (const char* other : {"tree LL", "nvls SIMPLE", "collnet_direct", "a name no one registered"})
      CHECK(contrast_ratio(algorithm_color(other), white) >= 3.0);
  }

  TEST_CASE("lesson 11 beats 6-7 (one-shot on 8 ranks): one rank's 7 reads drawn, not 56 arrows over the ranks") {
    Session ses;
    configure_8_ranks(ses, "one_shot");
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 300});
    REQUIRE(sc.kind == TopologyKind::full_mesh);
    REQUIRE(sc.arrows.size() == 7);
    std::set<int> from;
    for (const ArrowDraw& a : sc.arrows) {
      CHECK(a.to == 0);
      from.insert(a.from);
      CHECK(a.badge_w > 0);
    }
    CHECK(from == std::set<int>{1, 2, 3, 4, 5, 6, 7});
    CHECK(std::find(sc.notes.begin(), sc.notes.end(),
                    "R0's 7 reads drawn; every rank does the same (56 transfers this step)") != sc.notes.end());
    // No badge covers a rank's label.
    for (const ArrowDraw& a : sc.arrows)
      for (const NodeDraw& nd : sc.nodes) {
        const float x0 = a.badge.x - a.badge_w / 2, x1 = a.badge.x + a.badge_w / 2;
        const float y0 = a.badge.y - a.badge_h / 2, y1 = a.badge.y + a.badge_h / 2;
        const bool over = x0 < nd.label_min.x + nd.label_size.x && x1 > nd.label_min.x &&
                          y0 < nd.label_min.y + nd.label_size.y && y1 > nd.label_min.y;
        INFO("badge of R", a.from, " over ", nd.label);
        CHECK_FALSE(over);
      }
  }

  TEST_CASE("lesson 11 beats 2-4 (double binary tree) at --present: titles stacked, every rank labelled, no glyph below 14 px") {
    const test::SkipLessonChecks skip;
    for (const int beat : {1, 2, 3}) {
      test::FontWindow w(18);
      App app;
      show(w, app, kLessons / "11-what-nccl-does.yaml", beat);
      const int n = app.session.params().spec.world_size;
      INFO("beat ", beat + 1, ", ", n, " ranks");
      float least = 1e9f;
      std::string where;
      for (const auto& g : test::drawn_glyphs())
        if (g.px < least) least = g.px, where = fmt::format("'{}' in {}", char(g.codepoint), g.list);
      INFO("smallest glyph ", least, " px, ", where);
      CHECK(least >= 14 - 0.01f);
      // Every rank labelled in each tree (2n labels), none over another.
      int labels = 0;
      std::vector<Rect> rs;
      for (const ViewState::Drawn& d : app.vs.labels_drawn)
        if (d.what.rfind("topology R", 0) == 0) ++labels, rs.push_back(d.r);
      CHECK(labels == 2 * n);
      // The two titles whole, one above the other.
      int titles = 0;
      for (const std::string& line : drawn_lines())
        for (int t = 0; t < 2; ++t)
          if (line.rfind(fmt::format("tree{}(", t), 0) == 0 && line.find("root") != std::string::npos) {
            ++titles;
            CHECK(line.find("chunk") != std::string::npos);  // not cut: "1 chunk" at its end
            CHECK(line.find("tree", 1) == std::string::npos);  // not run into the other title
          }
      CHECK(titles == 2);
    }
  }

  TEST_CASE("lesson 11 beat 8 (nvls, 8 ranks): the switch's row shows its complete sum once it has it") {
    Session ses;
    configure_8_ranks(ses, "nvls");
    REQUIRE(ses.schedule().num_steps() == 2);  // up, down
    BuffersLayout lay;
    lay.width = 800, lay.row_h = 20, lay.row_gap = 2, lay.tag_w = 40, lay.col_gap = 16;
    const auto sw_row = [&](int position) {
      CrowdScene cs = build_buffers_crowd(ses, position, lay, 400);
      REQUIRE(cs.buffers.rows.size() == 9);
      const BufferRowDraw row = cs.buffers.rows.back();
      REQUIRE(row.is_switch);
      return row;
    };
    // Before "up" the switch holds nothing complete.
    for (const CellDraw& c : sw_row(0).cells) CHECK_FALSE(c.complete);
    // After "up" and after "down": its accum, the sum of all 8 ranks in every cell (it drew 8 one-rank blocks).
    for (const int position : {1, 2}) {
      const BufferRowDraw row = sw_row(position);
      CHECK(row.buf == Buf::accum);
      REQUIRE_FALSE(row.cells.empty());
      for (const CellDraw& c : row.cells) {
        CHECK(c.complete);
        CHECK(c.common == all_ranks(8));
      }
    }
  }

  TEST_CASE("lesson 12 beat 4 (8 channels on 2 x 8 ranks): one channel's ring, no badges, inside the canvas") {
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
    const Vec2 size{780, 200};
    const TopologyScene sc = build_topology(ses, last, size);
    REQUIRE(sc.arrows.size() == 16);  // channel 0's ring: every rank sends once (it drew 128, with badges)
    for (const ArrowDraw& a : sc.arrows) {
      CHECK(a.channel == 0);
      CHECK(a.badge_w == 0);
      std::vector<Vec2> pts = a.via;
      pts.insert(pts.end(), {a.a, a.b, a.ctrl});
      for (const Vec2& q : pts) {
        INFO("R", a.from, " -> R", a.to, " at (", q.x, ", ", q.y, ")");
        CHECK(q.x >= 0);
        CHECK(q.x <= size.x);
        CHECK(q.y >= 0);
        CHECK(q.y <= size.y);
      }
    }
    CHECK(std::find(sc.notes.begin(), sc.notes.end(),
                    "channel 0's ring drawn, without badges (16 of the 128 transfers this step); the 8 channels send across nodes "
                    "from 16 different ranks (with a NIC per rank: a rail each)") != sc.notes.end());
  }

  TEST_CASE("lesson 12 beat 4: the note names the bottleneck at the beat's size, not the stand-in's") {
    const test::SkipLessonChecks skip;
    const lesson::Lesson l = lesson::load_lesson((kLessons / "12-nccl-on-real-clusters.yaml").string());
    const BeatTarget t = beat_target(l.beats[3]);
    REQUIRE(t.stand_in);
    INFO(t.note);
    CHECK(t.note.find("; bottleneck at that size: all 16 NIC out and in ports (the picture's orange is the stand-in "
                      "run's: all 16 intra out and in ports)") != std::string::npos);
    // Where the two agree (one node), nothing is added.
    RunParams p;
    CollectiveSpec sp;
    sp.algorithm = "ring";
    sp.world_size = 8;
    sp.count = 1 << 20;
    const Schedule big = make_schedule(sp);
    sp.count = 1024;
    CHECK(stand_in_bottleneck(big, make_schedule(sp), 0, PredictionSource{}).empty());
  }

  TEST_CASE("lessons 11 and 12 ask no question twice; 11's protocols beat draws the protocols") {
    std::vector<std::pair<std::string, const lesson::Question*>> asked;
    const lesson::Lesson a = lesson::load_lesson((kLessons / "11-what-nccl-does.yaml").string());
    const lesson::Lesson b = lesson::load_lesson((kLessons / "12-nccl-on-real-clusters.yaml").string());
    for (const lesson::Lesson* l : {&a, &b})
      for (const auto& beat : l->beats)
        if (beat.question) asked.emplace_back(beat.question->ask, &*beat.question);
    for (size_t i = 0; i < asked.size(); ++i)
      for (size_t j = i + 1; j < asked.size(); ++j) {
        INFO(asked[i].first, " / ", asked[j].first);
        // 11 b9 and 12 b3 both asked what fraction of LL's bytes is data (0.5).
        CHECK_FALSE((asked[i].second->choices.empty() && asked[j].second->choices.empty() &&
                     asked[i].second->value == asked[j].second->value && asked[i].second->value != std::floor(asked[i].second->value)));
        CHECK(asked[i].first != asked[j].first);
      }
    // Lesson 11 beat 9 (protocols) drew a plain 2-rank ring: now the ring at each protocol.
    const lesson::Beat& p = a.beats[8];
    CHECK(p.view.kind == lesson::BeatView::Kind::compare);
    CHECK(p.view.protocols);
    REQUIRE(p.question);
    CHECK(p.question->value == 1152);  // LL128: 9 lines of 128 B for 1 KiB
    CHECK(wire_bytes(Protocol::ll128, 1024) == 1152);
  }
}

TEST_SUITE("nccl_slides") {
  TEST_CASE("the transfers line names badges only where they are drawn, and the next step's arrows as next (lecturer pass 7)") {
    const test::SkipLessonChecks skip;
    const auto joined = [] {
      std::string all;
      for (const std::string& l : drawn_lines()) all += l + "\n";
      return all;
    };
    {
      // 12 b4 draws channel 0's ring without badges.
      test::FontWindow w(18);
      App app;
      show(w, app, kLessons / "12-nccl-on-real-clusters.yaml", 3);
      const std::string all = joined();
      CHECK(all.find("16transfers") != std::string::npos);
      CHECK(all.find("badge=") == std::string::npos);
    }
    {
      // 02 b1 is before step 0: the arrows are step 0's, still to come.
      test::FontWindow w(18);
      App app;
      show(w, app, kLessons / "02-ring-double-buffering.yaml", 0);
      const std::string all = joined();
      INFO(all);
      CHECK(all.find("next:3transfers;badge=thechunkitwillcarry") != std::string::npos);
      CHECK(all.find("chunkinflight") == std::string::npos);
    }
  }
}
