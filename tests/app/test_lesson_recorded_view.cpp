// Lesson 02 beat 5 in the window shows its RECORDED corrupting run
// (lessons/data/single-buffered-ring-3x3.json, the beat's `recorded:`), not a
// new race: two windows show the same values, labelled with the record's
// machine and date, and the chunk badges whose data was overwritten in
// flight say what really travelled.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/scene.h"
#include "app/viz/view_state.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kLesson02 = std::string(MICRODDP_SOURCE_DIR) + "/lessons/02-ring-double-buffering.yaml";

// What one window shows on beat 5 after its first frames: every cell's
// text at the beat's position, the banner, the note and the badges' texts.
struct Shown {
  std::vector<std::string> cells;
  std::string banner, note;
  std::vector<std::string> badges;
  std::vector<std::vector<Rgba>> wrong_fills;  // the red badges' fills, in badges' order
  int64_t real_steps = -1;
};

Shown open_beat5() {
  test::Headless h;
  App app;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kLesson02));
  app.vs.edit = beat_target(app.lesson->current()).params;
  h.frame(app);
  app.lesson->go(4);
  h.frame(app);
  h.frame(app);
  Shown s;
  REQUIRE(app.session.position() == 2);
  const BuffersScene sc = build_buffers(app.session, 2, BuffersLayout{});
  for (const auto& row : sc.rows)
    for (const auto& c : row.cells) s.cells.push_back(fmt::format("R{} {} {}{}", row.rank, row.label, c.text, c.wrong ? " wrong" : ""));
  s.banner = sc.banner;
  s.note = app.vs.lesson_note;
  for (int pos = 1; pos <= 2; ++pos)
    for (const ArrowDraw& a : build_topology(app.session, pos, Vec2{400, 300}, 0.5f, nullptr).arrows) {
      s.badges.push_back(fmt::format("step {} R{}->R{}: {}", pos - 1, a.from, a.to, a.carried_text));
      if (!a.carried_text.empty()) s.wrong_fills.push_back(a.stripes);
    }
  s.real_steps = app.session.real_steps_executed();
  return s;
}

}  // namespace

TEST_SUITE("lesson_recorded_view") {
  TEST_CASE("beat 5 shows the recorded run, identically in two windows, labelled with its machine and date") {
    const lesson::Lesson l = lesson::load_lesson(kLesson02);
    const RunRecord& rec = *l.beats[4].recorded_run;
    const std::string label = fmt::format("recorded run ({}, {})", rec.origin.machine, rec.origin.date);
    const Shown a = open_beat5();
    const Shown b = open_beat5();
    CHECK(a.real_steps == 0);  // nothing ran: the record is shown
    CHECK(b.real_steps == 0);
    REQUIRE(a.cells.size() == 3 * 4 * 3);  // 3 ranks x (input, send_buff, accum, output) x 3 elements
    CHECK(a.cells == b.cells);
    CHECK(a.badges == b.badges);
    CHECK(a.banner == b.banner);
    CHECK(a.banner == fmt::format("{}: single-buffered ring, send delays seed {}: corrupted. The checks run it live now.",
                                  label, rec.delay->seed));
    CHECK(a.note.find("the panels show a " + label) != std::string::npos);
    CHECK(a.note.find("the beat's checks run it live, now") != std::string::npos);
    // The values are the record's own: the output row of each rank at the end.
    for (int r = 0; r < 3; ++r) {
      const std::vector<double> out = [&] {
        for (const auto& bs : rec.trace.steps[1][r].buffers)
          if (bs.buf == Buf::output) return bs.values;
        return std::vector<double>{};
      }();
      REQUIRE(out.size() == 3);
      for (int e = 0; e < 3; ++e) {
        const std::string want = fmt::format("R{} output {}", r, format_value(out[e]));
        CHECK(a.cells[static_cast<size_t>(r * 12 + 9 + e)].rfind(want, 0) == 0);
      }
    }
  }

  TEST_CASE("the badges say what really travelled: one red text per message whose data differs from the correct ring's") {
    const lesson::Lesson l = lesson::load_lesson(kLesson02);
    const RunRecord& rec = *l.beats[4].recorded_run;
    // What the correct ring's messages carry: the schedule's tensors.
    const RunResult good = run_threads(make_schedule(rec.spec), rec.inputs);
    int differ = 0;
    std::vector<std::string> want;
    for (int step = 0; step < 2; ++step)
      for (int r = 0; r < 3; ++r) {
        const auto find = [&](const Trace& t) {
          for (size_t i = 0; i < t.events[r].size(); ++i)
            if (t.events[r][i].step == step && (t.events[r][i].kind == OpKind::recv || t.events[r][i].kind == OpKind::recv_reduce))
              return t.carried[r][i];
          return std::vector<double>{};
        };
        const std::vector<double> got = find(rec.trace), right = find(good.trace);
        REQUIRE(got.size() == 3);
        if (got == right) continue;
        ++differ;
        // ring: rank r hears from r - 1, which sends T(r - 1 - step) mod 3
        const int t = ((r - 1 - step) % 3 + 3) % 3;
        want.push_back(fmt::format("step {} R{}->R{}: sent {},{},{}, expected T{} = {},{},{}", step, (r + 2) % 3, r,
                                   format_value(got[0]), format_value(got[1]), format_value(got[2]), t,
                                   format_value(right[0]), format_value(right[1]), format_value(right[2])));
      }
    CHECK(differ >= 1);  // the record corrupts: some message carried overwritten data
    const Shown a = open_beat5();
    std::vector<std::string> red;
    for (const std::string& s : a.badges)
      if (s.back() != ' ') red.push_back(s);
    std::sort(red.begin(), red.end());
    std::sort(want.begin(), want.end());
    CHECK(red == want);
  }

  TEST_CASE("a red badge is filled with the colour of the data it really carried, not the expected chunk's") {
    // The lecturer's slide: R2 -> R0 "sent 1,2,3, expected T1 = 4,5,6" was
    // filled blue (T1) while it carried T0's 1,2,3 (orange).
    const lesson::Lesson l = lesson::load_lesson(kLesson02);
    const RunRecord& rec = *l.beats[4].recorded_run;
    std::vector<std::vector<double>> inputs(3);
    for (int r = 0; r < 3; ++r)
      for (const auto& bs : rec.trace.initial[r].buffers)
        if (bs.buf == Buf::input) inputs[r] = bs.values;
    const Shown a = open_beat5();
    REQUIRE(!a.wrong_fills.empty());
    size_t k = 0;
    for (const std::string& b : a.badges) {
      if (b.back() == ' ') continue;
      // "step 1 R2->R0: sent 1,2,3, expected T1 = 4,5,6": whose input is "1,2,3"?
      const size_t at = b.find("sent ") + 5;
      const std::string sent = b.substr(at, b.find(", expected") - at);
      int whose = -1;
      for (int r = 0; r < 3; ++r)
        if (fmt::format("{},{},{}", format_value(inputs[r][0]), format_value(inputs[r][1]), format_value(inputs[r][2])) == sent)
          whose = r;
      CAPTURE(b);
      REQUIRE(whose >= 0);
      CHECK(b.find(fmt::format("expected T{} ", whose)) == std::string::npos);  // it was not the expected data
      CHECK(a.wrong_fills.at(k++) == std::vector<Rgba>{rank_color(whose)});
    }
    CHECK(k == a.wrong_fills.size());
  }
}
