// The run's own log in the hang view (app/viz/hang_view.h build_hang_log):
// exact lines for a fixed fake log (each rank's INFO line for the deciding
// call and the verdict's first WARN line, in the order logged, a later
// line tagged "after the verdict"); nothing while withheld or without a
// log; and lesson 08's log beat in --present at 1280x720, 18 px: every
// shown line drawn in the hang panel at >= 14 px, the sleeping rank's
// line tagged (it is logged only once the verdict has woken that rank).
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/viz/hang_view.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"
#include "tests/app/text_sizes.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kSeq1 = "all_reduce: seq 1 'grad bucket 1' algorithm ring count 512 dtype float32 op sum nranks 4 peers ";
const std::string kVerdict = "monitored barrier 'before call #1': rank 2 did not arrive within 0.3 s";

// 4 ranks, rank 2 asleep before call #1, logged at INFO: a few lines of
// call #0, ranks 0, 1, 3 at seq 1, the verdict by rank 3, rank 2's late line.
hang::LabResult fake_run() {
  using S = hang::CallRecord::State;
  using L = hang::LogLevel;
  hang::LabResult r;
  for (int k = 0; k < 4; ++k) {
    hang::RankOutcome o;
    o.rank = k;
    hang::CallRecord c0, c1;
    c0.seq = 0, c0.collective = "all_reduce", c0.count = 1024, c0.state = S::completed, c0.end_s = 0.002;
    c1.seq = 1, c1.collective = "all_reduce", c1.count = 512, c1.state = S::failed, c1.begin_s = 0.002, c1.end_s = 0.302;
    o.recorder.calls = {c0, c1};
    o.recorder.last_started = 1;
    o.recorder.last_completed = 0;
    r.ranks.push_back(o);
  }
  r.missing = {2};
  r.verdict = kVerdict;
  r.verdict_s = 0.3019;  // rank 3's barrier decided; its WARN line follows
  r.all_failed = true;
  r.seconds = 0.303;
  r.log = {{0, L::info, "all_reduce: seq 0 'grad bucket 0' algorithm ring count 1024 dtype float32 op sum nranks 4 peers 1,3", 0.0004},
           {0, L::info, kSeq1 + "1,3", 0.0021},
           {3, L::info, kSeq1 + "0,2", 0.0022},
           {2, L::warn, "fault injected: sleeping before call #1", 0.0023},
           {1, L::info, kSeq1 + "0,2", 0.0024},
           {3, L::warn, kVerdict, 0.3021},
           {2, L::info, kSeq1 + "1,3", 0.3026},
           {0, L::warn, kVerdict, 0.3031},
           {2, L::warn, kVerdict, 0.3032},
           {1, L::warn, kVerdict, 0.3033}};
  return r;
}

hang::LabOptions options(std::optional<hang::LogLevel> log) {
  hang::LabOptions o;
  o.ranks = 4;
  o.fault = hang::Fault::sleep;
  o.fault_ranks = {2};
  o.timeout_s = 0.3;
  o.log = log;
  return o;
}

std::vector<std::string> texts(const HangLog& l) {
  std::vector<std::string> out;
  for (const HangLogLine& x : l.lines) out.push_back(x.text + (x.mark.empty() ? "" : " | " + x.mark));
  return out;
}

}  // namespace

TEST_SUITE("hang_log_view") {
  TEST_CASE("the log of the deciding call: each rank's seq 1 line and the verdict's first, the late line tagged") {
    const hang::LabResult r = fake_run();
    const HangLog log = build_hang_log(options(hang::LogLevel::info), r, 1, false);
    CHECK(log.title ==
          "MICRODDP_DEBUG=INFO log of this run: each rank's line for seq 1 and the verdict (5 of 10 lines; `microddp "
          "lesson` prints them all)");
    CHECK(texts(log) == std::vector<std::string>{
                            "0.002 s [0] INFO " + kSeq1 + "1,3",
                            "0.002 s [3] INFO " + kSeq1 + "0,2",
                            "0.002 s [1] INFO " + kSeq1 + "0,2",
                            "0.302 s [3] WARN " + kVerdict,
                            "0.303 s [2] INFO " + kSeq1 + "1,3 | after the verdict",
                        });
    CHECK(log.left_out == 5u);
    REQUIRE(log.lines.size() == 5u);
    CHECK(log.lines[3].level == hang::LogLevel::warn);
    CHECK(log.lines[4].rank == 2);
    // The scene carries it; while the question withholds who, no log.
    CHECK(texts(build_hang_scene(options(hang::LogLevel::info), r, false).log) == texts(log));
    const HangScene held = build_hang_scene(options(hang::LogLevel::info), r, true);
    CHECK(held.log.title.empty());
    CHECK(held.log.lines.empty());
  }

  TEST_CASE("no log without LabOptions::log; without a deciding call, the last lines") {
    const hang::LabResult r = fake_run();
    const HangLog none = build_hang_log(options(std::nullopt), r, 1, false);
    CHECK(none.title.empty());
    CHECK(none.lines.empty());
    const HangLog tail = build_hang_log(options(hang::LogLevel::info), r, -1, false);
    CHECK(tail.title == "MICRODDP_DEBUG=INFO log of this run: its last 6 lines (of 10)");
    CHECK(texts(tail) == std::vector<std::string>{
                             "0.002 s [1] INFO " + kSeq1 + "0,2",
                             "0.302 s [3] WARN " + kVerdict,
                             "0.303 s [2] INFO " + kSeq1 + "1,3 | after the verdict",
                             "0.303 s [0] WARN " + kVerdict,
                             "0.303 s [2] WARN " + kVerdict,
                             "0.303 s [1] WARN " + kVerdict,
                         });
  }

  TEST_CASE("lesson 08's log beat in --present: every shown line in the hang panel at >= 14 px, rank 2's tagged") {
    test::FontWindow w(18);
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/08-hunt-the-hang.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    app.vs.present = true;
    LessonView& L = *app.lesson;
    L.go(6);  // beat 7: rank 2 asleep, logged at INFO
    w.frame(app);
    L.wait_checks();
    w.settle(app);
    const auto run = L.hang_run();
    REQUIRE(run);
    REQUIRE(run->missing == std::vector<int>{2});
    const auto panel = std::find_if(app.vs.panels_drawn.begin(), app.vs.panels_drawn.end(),
                                    [](const auto& d) { return d.what == "hang"; });
    REQUIRE(panel != app.vs.panels_drawn.end());
    const Rect box = panel->r;
    const std::vector<test::DrawnGlyph> glyphs = test::drawn_glyphs();
    int lines = 0, marks = 0;
    for (const auto& d : app.vs.labels_drawn) {
      const bool mark = d.what == "hang log mark";
      if (d.what.rfind("hang log ", 0) != 0) continue;
      mark ? ++marks : ++lines;
      INFO(d.what);
      CHECK(d.r.y >= box.y);
      CHECK(d.r.y + d.r.h <= box.y + box.h);
      // Its glyphs: drawn (not scrolled or clipped out) and >= 14 px.
      int seen = 0;
      float smallest = 1e9f;
      for (const auto& g : glyphs)
        if (g.y >= d.r.y - 1 && g.y < d.r.y + d.r.h && g.x >= d.r.x && g.x < d.r.x + d.r.w) {
          ++seen;
          smallest = std::min(smallest, g.px);
        }
      CHECK(seen > 10);
      CHECK(smallest >= 14.f - 1e-3f);  // the panel's floor, as the layout tests allow
    }
    INFO("panel ", box.y, " + ", box.h, ", hang_need_h ", app.vs.hang_need_h);
    CHECK(lines == 5);  // ranks 0, 1, 3 at seq 1, the verdict's first WARN line, rank 2 at seq 1
    CHECK(marks == 1);
  }
}
