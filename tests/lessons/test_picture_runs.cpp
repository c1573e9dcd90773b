// The run a ddp beat's picture shows (picture_runs.h): the median one of
// the runs the check made, chosen exactly on fixed figures; the caption's
// text for each verdict; which beats of lessons 07 and 10 get one; and on
// real runs, that the kept run is the one whose figure is the median.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/labs/lesson/picture_runs.h"
#include "tests/lessons/lesson_paths.h"

using namespace microddp;
using namespace microddp::lesson;

namespace {

// A run whose iterations measured these comm ms (the other figures 0).
std::shared_ptr<const ddp::Result> run_with_comm(std::vector<double> comm) {
  auto r = std::make_shared<ddp::Result>();
  for (double c : comm) {
    ddp::IterationStats s;
    s.comm_ms = c;
    r->iterations.push_back(s);
  }
  return r;
}

}  // namespace

TEST_SUITE("lesson_picture") {
  TEST_CASE("median_run: the lower middle run, equal figures in run order, NaN last") {
    CHECK(timing::median_run({5, 1, 9, 3}) == 3);     // sorted 1, 3, 5, 9: 3 is run 3
    CHECK(timing::median_run({4, 2, 8}) == 0);        // 2, 4, 8
    CHECK(timing::median_run({1, 2, 3, 4}) == 1);
    CHECK(timing::median_run({2, 2, 2}) == 1);        // equal: run order kept, the middle one
    CHECK(timing::median_run({7, 3, 3, 9, 1}) == 2);  // runs 4, 1, 2, 0, 3: the second 3
    CHECK(timing::median_run({std::nan(""), 1, 2}) == 2);  // 1, 2, NaN
    CHECK(timing::median_run({}) == 0);
    CHECK(timing::median_run({11.6}) == 0);
  }

  TEST_CASE("choose_picture keeps the median run and its iteration nearest the run's figure") {
    PictureRuns p;
    p.rule.figure = PictureFigure::comm_ms;
    p.rule.check = 0;
    // Five runs of lesson 07 beat 1 as the lecturer's busy VM measured them.
    std::vector<std::shared_ptr<const ddp::Result>> runs{run_with_comm({11.6, 11.6}), run_with_comm({0.9, 1.1}),
                                                         run_with_comm({4.0, 2.0}), run_with_comm({1.4, 1.6}),
                                                         run_with_comm({6.0, 7.0})};
    for (const auto& r : runs) p.figures.push_back(run_figure(p.rule.figure, *r));
    CHECK(p.figures == std::vector<double>{11.6, 1.0, 3.0, 1.5, 6.5});
    choose_picture(p, runs);
    CHECK(p.shown == 2);  // 1, 1.5, 3, 6.5, 11.6
    CHECK(p.run == runs[2]);
    CHECK(p.iteration == 1);  // 2.0 before 4.0: the lower of its two iterations
    p.figures.pop_back();
    CHECK_THROWS_AS(choose_picture(p, runs), std::logic_error);
  }

  TEST_CASE("the caption: median of N runs, where this run stands, and not shown when the runs overlap") {
    PictureRuns p;
    p.rule.figure = PictureFigure::comm_ms;
    p.rule.check = 2;
    p.figures = {4.2, 2.1, 12.3, 3.0, 5.5};
    p.shown = 0;
    p.other_run = "one_bucket";
    p.other_figures = {1.1, 0.9, 10.2, 1.0, 1.3};
    p.less = false;
    p.verdict = timing::Verdict::pass;
    CHECK(picture_caption(p) ==
          "the picture: the median of the 5 runs the check made (comm per iteration): this run 4.2 ms, the other 4 "
          "runs 2.1 to 12.3 ms; run 'one_bucket', 5 runs interleaved with them: median 1.1 ms (0.9 to 10.2 ms)");
    // The run's own iterations, of which the picture is one.
    p.run = run_with_comm({5.92, 2.48});
    p.iteration = 1;
    CHECK(picture_caption(p).find(": this run 4.2 ms (its iterations 5.92 and 2.48 ms; shown: iteration 2), the "
                                  "other 4 runs 2.1 to 12.3 ms;") != std::string::npos);
    p.run = nullptr;
    p.verdict = timing::Verdict::not_shown;
    CHECK(picture_caption(p) ==
          "not shown on this run: the 5 runs of each overlap (this beat 2.1 to 12.3 ms, run 'one_bucket' 0.9 to "
          "10.2 ms), so no one picture shows the claim; the picture is the median run: 4.2 ms");
    p.verdict = timing::Verdict::fail;
    CHECK(picture_caption(p).rfind("the runs show the opposite of the claim; the picture: the median of the 5 runs", 0) ==
          0);
    // A second and more in ms, never in exponent form (was "1.36e+03 ms" on lesson 07's slides).
    p.verdict = timing::Verdict::pass;
    p.figures = {1364.2, 812.5, 2250.0, 99.94, 1500.0};
    CHECK(picture_caption(p).find("this run 1364 ms, the other 4 runs 99.9 to 2250 ms;") != std::string::npos);

    PictureRuns f;  // against a number: lesson 07 beat 6, overlap below 0.3
    f.rule.figure = PictureFigure::overlap_fraction;
    f.rule.check = 0;
    f.figures = {0.02, 0.0, 0.05, 0.01, 0.03, 0.0, 0.04, 0.02};
    f.shown = 0;
    f.number = 0.3;
    f.less = true;
    f.verdict = timing::Verdict::pass;
    CHECK(picture_caption(f) == "the picture: the median of the 8 runs the check made (overlap fraction): this run "
                                "0.02, the other 7 runs 0.00 to 0.05; the claim: below 0.30");
    f.figures = {0, 0, 0};
    CHECK(picture_caption(f) == "the picture: the median of the 3 runs the check made (overlap fraction): this run "
                                "0.00, as are the other 2 runs; the claim: below 0.30");
    f.verdict = timing::Verdict::not_shown;
    f.figures = {0.28, 0.12, 0.45};
    CHECK(picture_caption(f) == "not shown on this run: the 3 runs straddle 0.30 (0.12 to 0.45), so no one picture "
                                "shows the claim; the picture is the median run: 0.28");

    PictureRuns c;  // lesson 07 beat 1: compared in beat 3
    c.rule.figure = PictureFigure::comm_ms;
    c.rule.compared_in = 2;
    c.rule.runs = 5;
    c.figures = {11.6, 1.2, 0.9, 3.4, 1.0};
    c.shown = 1;
    CHECK(picture_caption(c) == "the picture: the median of 5 runs of this beat (comm per iteration): this run 1.2 "
                                "ms, the other 4 runs 0.9 to 11.6 ms; beat 3 compares this figure on runs of its own");
    c.figures = {};
    CHECK(picture_caption(c).empty());
  }

  TEST_CASE("lesson 07 and 10: which beats draw the median of repeated runs") {
    const Lesson l = load_lesson((lesson_test::kLessons / "07-bucketing-overlap.yaml").string());
    REQUIRE(l.beats.size() == 8);
    const auto b1 = picture_rule(l, 0);  // one_bucket: beat 3 compares its comm ms
    REQUIRE(b1);
    CHECK(b1->figure == PictureFigure::comm_ms);
    CHECK(b1->check == -1);
    CHECK(b1->compared_in == 2);
    CHECK(b1->runs == kPictureRuns);
    CHECK_FALSE(picture_rule(l, 1));  // 'small' is compared by its calls only
    const auto b3 = picture_rule(l, 2);  // per_param: its own comm_ms claim, the third check
    REQUIRE(b3);
    CHECK(b3->check == 2);
    CHECK(b3->figure == PictureFigure::comm_ms);
    const auto b6 = picture_rule(l, 5);  // 'none': overlap below 0.3, measured
    REQUIRE(b6);
    CHECK(b6->check == 0);
    CHECK(b6->figure == PictureFigure::overlap_fraction);
    CHECK_FALSE(picture_rule(l, 6));  // model clock only
    CHECK_FALSE(picture_rule(l, 7));
    CHECK_THROWS_AS(picture_rule(l, 8), std::out_of_range);

    const Lesson t = load_lesson((lesson_test::kLessons / "10-fsdp-prefetch.yaml").string());
    int prefetch = -1, no_prefetch = -1;
    for (size_t i = 0; i < t.beats.size(); ++i) {
      if (t.beats[i].name == "prefetch") prefetch = int(i);
      if (t.beats[i].name == "no_prefetch") no_prefetch = int(i);
    }
    REQUIRE(prefetch >= 0);
    const auto p = picture_rule(t, prefetch);
    REQUIRE(p);
    CHECK(p->compared_in == no_prefetch);
    CHECK(p->figure == PictureFigure::overlap_fraction);
    CHECK(picture_rule(t, no_prefetch)->check == 2);
    CHECK_FALSE(picture_rule(t, 0));  // a collective beat
  }

  TEST_CASE("real runs: the kept run is the median one of the check's runs") {
    // Tiny runs (2 ranks, 16 x 16): the claim's verdict depends on the
    // machine, which run is kept does not.
    const Lesson l = parse_lesson(R"(title: picture
ddp: {ranks: 2, depth: 2, width: 16, batch: 4, iterations: 2, algorithm: ring}
beats:
  - kind: ddp
    name: few
    ddp: {overlap: none}
    text: one call
  - kind: ddp
    ddp: {overlap: per_param}
    text: four calls
    checks:
      - {check: allreduce_calls, equals: 4}
      - {check: comm_ms, greater_than: {run: few}}
)", "picture.yaml");
    const auto r0 = picture_rule(l, 0);
    REQUIRE(r0);
    PictureRuns p0;
    const auto res0 = evaluate(l.beats[0], *r0, p0);
    CHECK(res0.empty());
    REQUIRE(p0.figures.size() == kPictureRuns);
    CHECK(p0.shown == timing::median_run(p0.figures));
    REQUIRE(p0.run);
    CHECK(run_figure(PictureFigure::comm_ms, *p0.run) == p0.figures[p0.shown]);

    const auto r1 = picture_rule(l, 1);
    REQUIRE(r1);
    CHECK(r1->check == 1);
    PictureRuns p1;
    const auto res1 = evaluate(l.beats[1], *r1, p1);
    REQUIRE(res1.size() == 2);
    CHECK_MESSAGE(res1[0].pass, res1[0].actual);
    const size_t n = p1.figures.size();
    CHECK((n == 5 || n == 10));
    CHECK(p1.other_figures.size() == n);
    CHECK(p1.other_run == "few");
    CHECK(p1.shown == timing::median_run(p1.figures));
    REQUIRE(p1.run);
    CHECK(run_figure(PictureFigure::comm_ms, *p1.run) == p1.figures[p1.shown]);
    CHECK(res1[1].pass == (p1.verdict == timing::Verdict::pass));
    CHECK(res1[1].not_shown == (p1.verdict == timing::Verdict::not_shown));
    CHECK(res1[1].what.find(fmt::format("median of {} runs each", n)) != std::string::npos);
  }
}
