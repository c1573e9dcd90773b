// The hang view (app/viz/hang_view.h): scenes built from a constructed
// hang-lab result and from small REAL runs (timeouts of 0.1-0.3 s), and
// lesson 08's hang beats in a headless window: the stuck rank is neither
// outlined nor named before the beat's question is answered, and is after.
#include <doctest/doctest.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/describe.h"
#include "app/viz/hang_view.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

hang::CallRecord rec(int64_t seq, const char* op, int64_t count, hang::CallRecord::State st, double b, double e) {
  hang::CallRecord c;
  c.seq = seq;
  c.collective = op;
  c.count = count;
  c.state = st;
  c.begin_s = b;
  c.end_s = e;
  return c;
}

// What the lab returns for 4 ranks, rank 2 asleep before call #1 (timeout
// 0.3 s): every rank started #1 and completed #0; ranks 0, 1, 3 waited at
// the barrier before #1 for 0.30 s, rank 2 got there after the verdict.
hang::LabResult sleeping_rank_2() {
  using S = hang::CallRecord::State;
  hang::LabResult r;
  for (int k = 0; k < 4; ++k) {
    hang::RankOutcome o;
    o.rank = k;
    o.recorder.calls = {rec(0, "all_reduce", 1024, S::completed, 0.000, 0.002),
                        k == 2 ? rec(1, "all_reduce", 512, S::failed, 0.302, 0.302)
                               : rec(1, "all_reduce", 512, S::failed, 0.002, 0.302)};
    o.recorder.last_started = 1;
    o.recorder.last_completed = 0;
    o.state = k == 2 ? "in call #1 - it had slept past the barrier's timeout" : "in call #1 - failed at its monitored barrier";
    r.ranks.push_back(o);
  }
  r.missing = {2};
  r.verdict = "monitored barrier 'before call #1': rank 2 did not arrive within 0.3 s";
  r.all_failed = true;
  return r;
}

hang::LabOptions sleep_options(int ranks, int rank, double timeout_s) {
  hang::LabOptions o;
  o.ranks = ranks;
  o.fault = hang::Fault::sleep;
  o.fault_ranks = {rank};
  o.timeout_s = timeout_s;
  return o;
}

bool names(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_SUITE("hang_view") {

TEST_CASE("hang scene of a constructed run: rows, calls, barrier states, the verdict withheld then shown") {
  const hang::LabOptions o = sleep_options(4, 2, 0.3);
  const hang::LabResult r = sleeping_rank_2();
  const HangScene shown = build_hang_scene(o, r, false);
  CHECK(shown.calls == std::vector<std::string>{"#0 all_reduce 1024", "#1 all_reduce 512", "#2 all_gather 256", "end of step"});
  CHECK(shown.barrier_call == 1);
  CHECK(shown.barrier == "barrier before #1");
  CHECK(shown.arrived == 3);
  CHECK(shown.header == "hang lab: 4 ranks, fault sleep on rank 2, monitored barrier timeout 0.3 s");
  REQUIRE(shown.rows.size() == 4);
  for (const HangRow& row : shown.rows) {
    CHECK(row.label == "R" + std::to_string(row.rank));
    CHECK(row.last_started == 1);
    CHECK(row.last_completed == 0);
    CHECK(row.reached == "#1 all_reduce 512 failed");
    CHECK(row.calls == std::vector<HangCall>{HangCall::completed, HangCall::failed, HangCall::not_reached, HangCall::not_reached});
    CHECK(row.recorder == std::vector<std::string>{"#0 all_reduce 1024 completed", "#1 all_reduce 512 failed"});
    CHECK(row.outlined == (row.rank == 2));
    CHECK(row.barrier == (row.rank == 2 ? HangBarrier::missing : HangBarrier::waited));
  }
  CHECK(shown.rows[0].barrier_text == "waited 0.30 s of 0.3 s at the barrier before #1");
  CHECK(shown.rows[0].wait_fraction == doctest::Approx(1.0));
  CHECK(shown.rows[2].barrier_text == "did not arrive at the barrier before #1");
  CHECK(shown.verdict == r.verdict);
  // The time view: rank 2's call #1 begins when the others' ends (it slept).
  REQUIRE(shown.rows[2].spans.size() == 2);
  CHECK(shown.rows[2].spans[1].seq == 1);
  CHECK(shown.rows[2].spans[1].begin_s == 0.302);
  CHECK(shown.rows[0].spans[1].begin_s == 0.002);
  CHECK(shown.rows[0].spans[1].state == HangCall::failed);

  const HangScene held = build_hang_scene(o, r, true);
  CHECK(held.withheld);
  CHECK(held.header == "hang lab: 4 ranks, fault sleep on a rank, monitored barrier timeout 0.3 s");
  CHECK(held.verdict ==
        "3 of 4 ranks arrived at the barrier before #1 within 0.3 s; which rank did not is shown once you answer the question");
  for (const HangRow& row : held.rows) {
    CHECK_FALSE(row.outlined);
    CHECK(row.barrier == HangBarrier::hidden);
    CHECK(row.barrier_text == "?");
    CHECK(row.state.empty());
    CHECK(row.spans.empty());
    CHECK(row.wait_fraction == 0.f);
    // Where every rank stopped stays: the sequence numbers say WHERE.
    CHECK(row.reached == "#1 all_reduce 512 failed");
  }
  CHECK_FALSE(names(held.verdict, "rank 2"));
  CHECK_FALSE(names(held.header, "2"));

  // A mismatch asked for: how many ranks called something else, not which.
  hang::LabResult mism = r;
  mism.missing.clear();
  mism.mismatched = {2};
  mism.verdict = "monitored barrier 'before call #1': collective mismatch: rank 0 called #1 all_reduce count 512 "
                 "float32; rank 2 called #1 all_reduce count 513 float32";
  const HangScene mh = build_hang_scene(o, mism, true);
  CHECK(mh.barrier_call == 1);
  CHECK(mh.arrived == 4);
  CHECK(mh.verdict ==
        "1 rank arrived at the barrier before #1 with another call than rank 0's; which is shown once you answer the question");
  const HangScene ms = build_hang_scene(o, mism, false);
  CHECK(ms.rows[2].barrier == HangBarrier::mismatched);
  CHECK(ms.rows[2].outlined);
  CHECK(ms.rows[0].barrier == HangBarrier::waited);

  hang::LabResult wrong = r;
  wrong.ranks.pop_back();
  CHECK_THROWS_AS(build_hang_scene(o, wrong, false), std::invalid_argument);
}

TEST_CASE("hang scene of real runs: a healthy step, a sleeping rank, two ranks that skip") {
  SUBCASE("healthy: every call done, the end-of-step barrier passed") {
    hang::LabOptions o;
    o.ranks = 3;
    o.fault = hang::Fault::none;
    o.timeout_s = 0.3;
    o.count = 64;
    const HangScene sc = build_hang_scene(o, hang::run_hang_lab(o), false);
    CHECK(sc.barrier_call == -1);
    CHECK(sc.barrier.empty());
    CHECK(sc.verdict == "every rank arrived with the same call at every barrier; all calls verified");
    REQUIRE(sc.rows.size() == 3);
    for (const HangRow& row : sc.rows) {
      CHECK(row.calls == std::vector<HangCall>(4, HangCall::completed));
      CHECK(row.barrier == HangBarrier::passed);
      CHECK(row.reached == "#2 all_gather 16 completed");
      CHECK(row.recorder.size() == 3);
      CHECK_FALSE(row.outlined);
    }
  }
  SUBCASE("rank 1 of 3 asleep before call #1") {
    const hang::LabOptions o = sleep_options(3, 1, 0.2);
    const hang::LabResult r = hang::run_hang_lab(o);
    REQUIRE(r.missing == std::vector<int>{1});
    const HangScene sc = build_hang_scene(o, r, false);
    CHECK(sc.barrier_call == 1);
    CHECK(sc.arrived == 2);
    CHECK(sc.rows[1].barrier == HangBarrier::missing);
    CHECK(sc.rows[1].outlined);
    for (int k : {0, 2}) {
      CHECK(sc.rows[k].barrier == HangBarrier::waited);
      CHECK(sc.rows[k].calls[1] == HangCall::failed);
      CHECK(sc.rows[k].last_started == 1);
      CHECK(sc.rows[k].last_completed == 0);
    }
    CHECK(names(sc.verdict, "rank 1 did not arrive"));
    const HangScene held = build_hang_scene(o, r, true);
    CHECK(std::none_of(held.rows.begin(), held.rows.end(), [](const HangRow& x) { return x.outlined; }));
    CHECK(held.verdict.find("rank 1") == std::string::npos);
  }
  SUBCASE("ranks 3 and 1 of 4 skip call #1 and the rest") {
    hang::LabOptions o;
    o.ranks = 4;
    o.fault = hang::Fault::skip_collective;
    o.fault_ranks = {3, 1};
    o.timeout_s = 0.1;
    const HangScene sc = build_hang_scene(o, hang::run_hang_lab(o), false);
    CHECK(sc.barrier_call == 1);
    CHECK(sc.arrived == 2);
    CHECK(sc.rows[1].reached == "#0 all_reduce 1024 completed");
    // Left the step before #1: its fail mark there, without a recorder entry (test_hang_marks.cpp).
    CHECK(sc.rows[1].calls == std::vector<HangCall>{HangCall::completed, HangCall::skipped, HangCall::not_reached, HangCall::not_reached});
    CHECK(sc.rows[3].calls[1] == HangCall::skipped);
    CHECK(sc.rows[2].calls[1] == HangCall::failed);
    CHECK(sc.rows[3].barrier == HangBarrier::missing);
    CHECK(sc.rows[2].reached == "#1 all_reduce 512 failed");
    CHECK(names(sc.verdict, "ranks 1, 3 did not arrive"));
  }
}

TEST_CASE("lesson 08 in a headless window: the hang view, its stuck rank named only after the answer") {
  test::Headless h;
  App app;
  app.lesson = std::make_unique<LessonView>(lesson::load_lesson(std::string(MICRODDP_SOURCE_DIR) + "/lessons/08-hunt-the-hang.yaml"));
  LessonView& L = *app.lesson;
  L.go(1);  // beat 2: rank 2 asleep; "Which rank is stuck?"
  h.frame(app);
  L.wait_checks();  // the beat's one hang-lab run (the view's and the checks')
  h.frame(app);
  const auto run = L.hang_run();
  REQUIRE(run);
  CHECK(run->missing == std::vector<int>{2});
  const auto drawn = [&](const std::string& what) {
    return std::any_of(app.vs.panels_drawn.begin(), app.vs.panels_drawn.end(), [&](const auto& d) { return d.what == what; }) ||
           std::any_of(app.vs.rows_drawn.begin(), app.vs.rows_drawn.end(), [&](const auto& d) { return d.what == what; });
  };
  CHECK(drawn("hang"));
  CHECK(drawn("hang time"));
  CHECK_FALSE(drawn("timeline"));
  CHECK_FALSE(drawn("buffers"));
  for (int r = 0; r < 4; ++r) CHECK(drawn("hang R" + std::to_string(r)));
  CHECK(hang_names_withheld(L, *run));
  std::string before = describe_hang(app);
  CHECK(names(before, "hang R2: reached #1 all_reduce 512 failed; barrier hidden\n"));
  CHECK_FALSE(names(before, "rank 2"));
  CHECK_FALSE(names(before, "outlined"));
  CHECK_FALSE(names(before, "missing"));

  L.submit("2");
  h.frame(app);
  CHECK_FALSE(hang_names_withheld(L, *run));
  const std::string after = describe_hang(app);
  CHECK(names(after, "hang R2: reached #1 all_reduce 512 failed; barrier missing (outlined)\n"));
  CHECK(names(after, "hang R0: reached #1 all_reduce 512 failed; barrier waited\n"));
  CHECK(names(after, "hang verdict: monitored barrier 'before call #1': rank 2 did not arrive within 0.3 s\n"));

  // Beat 4 (wrong count, no question): named at once. A collective beat of
  // another lesson would draw no hang panel (draw_hang_panel false).
  L.go(3);
  h.frame(app);
  L.wait_checks();
  h.frame(app);
  REQUIRE(L.hang_run());
  CHECK(names(describe_hang(app), "hang R2: reached #1 all_reduce 513 failed; barrier mismatched (outlined)\n"));
}

}  // TEST_SUITE
