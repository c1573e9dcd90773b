// Lessons 07, 08 and 10: ddp and hang beats. Both shipped lessons load
// with the expected structure and every check passes against real runs;
// false claims fail with expected vs actual; the fixtures of the ddp and
// hang keys (tests/lessons/bad/ddp-*.yaml, hang-*.yaml, beat-*.yaml) give
// file:line:column errors. Timing is compared only between runs, never
// against a fixed number of milliseconds, and each timing claim is decided
// on repeated, interleaved runs (checks_ddp.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <variant>

#include "core/labs/lesson/lesson.h"

namespace fs = std::filesystem;
using namespace microddp;
using namespace microddp::lesson;

namespace {

const fs::path kLessonsDir = fs::path(MICRODDP_SOURCE_DIR) / "lessons";
const fs::path kBadDir = fs::path(MICRODDP_SOURCE_DIR) / "tests" / "lessons" / "bad";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A timing claim decided on repeated measured runs (checks_ddp.cpp's
// eval_timing): the only kind of check that may end "not shown on this run".
bool timing_claim(const Check& k) {
  return std::visit(
      [](const auto& c) {
        using K = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<K, check::OverlapFraction> || std::is_same_v<K, check::ExposedCommMs> ||
                      std::is_same_v<K, check::CommMs>)
          return !c.model_clock && c.cmp.op != "equals";
        else
          return false;
      },
      k.claim);
}

// Every check of the lesson: every claim that is not a timing claim passes;
// a timing claim passes or is "not shown" (its runs could not decide it on a
// loaded machine; never a random pass or fail), and not all of them are not
// shown: a lesson whose timing claims are never decided fails.
int run_all_checks(const Lesson& l) {
  int n = 0, timing = 0, timing_not_shown = 0;
  for (size_t b = 0; b < l.beats.size(); ++b) {
    const auto results = evaluate(l.beats[b]);
    REQUIRE(results.size() == l.beats[b].checks.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const CheckResult& r = results[i];
      ++n;
      INFO(l.file, " beat ", b + 1, " ", r.mark.str(), ": ", r.what, ": expected ", r.expected, ", got ", r.actual);
      if (timing_claim(l.beats[b].checks[i])) {
        ++timing;
        timing_not_shown += r.not_shown ? 1 : 0;
        CHECK((r.pass || r.not_shown));
        CHECK(r.not_shown == (r.skipped && !r.pass));
      } else {
        CHECK(r.pass);
        CHECK_FALSE(r.skipped);
      }
    }
  }
  INFO(l.file, ": ", timing, " timing claims, ", timing_not_shown, " not shown on this run");
  if (timing > 0) CHECK(timing_not_shown < timing);
  return n;
}

}  // namespace

TEST_SUITE("lesson_ddp") {
  TEST_CASE("lesson 07: structure, carried options and named runs") {
    const Lesson l = load_lesson((kLessonsDir / "07-bucketing-overlap.yaml").string());
    REQUIRE(l.beats.size() == 8);
    for (const Beat& b : l.beats) CHECK(b.kind == Beat::Kind::ddp);
    CHECK(l.beats[0].name == "one_bucket");
    CHECK(l.beats[0].ddp.bucket_cap_mb == 25);
    CHECK(l.beats[1].ddp.bucket_cap_mb == 0.0015);
    CHECK(l.beats[2].ddp.overlap == ddp::Overlap::per_param);
    CHECK(l.beats[2].ddp.bucket_cap_mb == 0.0015);  // carried forward
    CHECK(l.beats[3].ddp.algorithm == "naive");
    CHECK(l.beats[4].ddp.algorithm == "naive");
    CHECK(l.beats[6].ddp.ranks == 2);
    CHECK(l.beats[6].ddp.layer_delay_us == 20000);
    CHECK(l.beats[6].ddp.overlap == ddp::Overlap::bucketed);
    // "exposed_comm_ms less_than {run: none}" carries the options of the run named none.
    const check::Compare* cmp = nullptr;
    for (const Check& k : l.beats[6].checks)
      if (const auto* e = std::get_if<check::ExposedCommMs>(&k.claim)) cmp = &e->cmp;
    REQUIRE(cmp);
    CHECK(cmp->op == "less_than");
    CHECK(cmp->other_run == "none");
    REQUIRE(cmp->other_ddp);
    CHECK(cmp->other_ddp->overlap == ddp::Overlap::none);
    CHECK(cmp->other_ddp->layer_delay_us == 20000);
    CHECK(cmp->other_ddp->link_us_per_mb == 20000);
    // A ddp beat keeps a runnable collective setup for viewers that only know collective beats.
    CHECK(prepare(l.beats[0].setup).runnable);
  }

  TEST_CASE("lesson 08: structure and carried options") {
    const Lesson l = load_lesson((kLessonsDir / "08-hunt-the-hang.yaml").string());
    REQUIRE(l.beats.size() == 7);
    for (const Beat& b : l.beats) {
      CHECK(b.kind == Beat::Kind::hang);
      CHECK(b.hang.ranks == 4);
    }
    CHECK(l.beats[0].hang.fault == hang::Fault::none);
    CHECK(l.beats[1].hang.fault == hang::Fault::sleep);
    CHECK(l.beats[1].hang.fault_ranks == std::vector<int>{2});
    CHECK(l.beats[1].hang.timeout_s == 0.3);
    CHECK(l.beats[2].hang.fault_ranks == std::vector<int>{3, 1});  // as written; the report sorts
    CHECK(l.beats[5].hang.timeout_s == 0.2);
    CHECK_FALSE(l.beats[5].hang.log);
    CHECK(l.beats[6].hang.timeout_s == 0.3);
    CHECK(l.beats[6].hang.log == hang::LogLevel::info);
    REQUIRE(l.beats[1].question);
    CHECK(l.beats[1].question->is_right("2"));
  }

  TEST_CASE("a hang beat on 2 ranks without fault_ranks faults the last rank; a named rank stays as written") {
    const Lesson l = parse_lesson(R"(title: two
beats:
  - kind: hang
    hang: {ranks: 2, fault: sleep}
    text: the last rank sleeps
)", "two.yaml");
    CHECK(l.beats[0].hang.fault_ranks == std::vector<int>{1});
    const Lesson three = parse_lesson(R"(title: three
beats:
  - kind: hang
    hang: {ranks: 3, fault: sleep}
    text: rank 2 exists on 3 ranks
)", "three.yaml");
    CHECK(three.beats[0].hang.fault_ranks == std::vector<int>{2});
    CHECK_THROWS_WITH_AS(parse_lesson(R"(title: bad
beats:
  - kind: hang
    hang: {ranks: 2, fault: sleep, fault_ranks: 2}
    text: rank 2 does not exist
)", "bad.yaml"),
                         doctest::Contains("bad.yaml"), LessonError);
  }

  TEST_CASE("lesson 07: every check passes against real DDP runs") {
    CHECK(run_all_checks(load_lesson((kLessonsDir / "07-bucketing-overlap.yaml").string())) == 29);
  }

  TEST_CASE("lesson 08: every check passes against real hang-lab runs") {
    CHECK(run_all_checks(load_lesson((kLessonsDir / "08-hunt-the-hang.yaml").string())) == 31);
  }

  TEST_CASE("lesson 10: collective beats for the bytes, then sharded runs with and without prefetch, then DDP") {
    const Lesson l = load_lesson((kLessonsDir / "10-fsdp-prefetch.yaml").string());
    REQUIRE(l.beats.size() == 6);
    CHECK(l.beats[0].kind == Beat::Kind::collective);
    CHECK(l.beats[1].setup.collective == "reduce_scatter");
    CHECK(l.beats[2].setup.count == 4160);  // one layer of the 64-wide MLP: 64 x 64 + 64
    CHECK(l.beats[3].kind == Beat::Kind::ddp);
    CHECK(l.beats[3].ddp.sharded);
    CHECK(l.beats[3].ddp.prefetch);
    CHECK(l.beats[3].ddp.width * l.beats[3].ddp.width + l.beats[3].ddp.width == 4160);
    CHECK_FALSE(l.beats[4].ddp.prefetch);
    CHECK(l.beats[4].ddp.sharded);  // carried forward
    CHECK_FALSE(l.beats[5].ddp.sharded);
    CHECK(run_all_checks(l) == 20);
  }

  TEST_CASE("false ddp claims fail with expected vs actual") {
    const Lesson l = parse_lesson(R"(title: wrong
ddp: {ranks: 2, depth: 3, width: 16, batch: 4, iterations: 1, bucket_cap_mb: 0.0015, algorithm: naive}
beats:
  - kind: ddp
    name: two
    text: two buckets
    checks:
      - {check: buckets, equals: 3}
      - {check: bucket_params, bucket: 1, equals: [0, 1]}
      - {check: bucket_params, bucket: 2, equals: [0]}
      - {check: allreduce_calls, less_than: 2}
  - kind: ddp
    ddp: {overlap: per_param}
    text: six calls
    checks:
      - {check: allreduce_calls, less_than: {run: two, times: 2}}
      - {check: same_params, as: {run: two}}
      - {check: loss, rel_tol: 0.0001}
)", "wrong.yaml");
    const auto r0 = evaluate(l.beats[0]);
    REQUIRE(r0.size() == 4);
    for (const auto& c : r0) CHECK_FALSE(c.pass);
    CHECK(r0[0].actual == "2");
    CHECK(r0[0].mark.str() == "wrong.yaml:8:9");
    CHECK(r0[1].expected == "[0, 1]");
    CHECK(r0[1].actual == "[1, 0]");
    CHECK(r0[2].actual == "(only 2 buckets)");
    CHECK(r0[3].expected == "< 2");
    const auto r1 = evaluate(l.beats[1]);
    REQUIRE(r1.size() == 3);
    CHECK_FALSE(r1[0].pass);  // 6 calls is not < 2 x 2
    CHECK(r1[0].actual == "6");
    CHECK(r1[0].what == "all-reduce calls per iteration vs run 'two'");
    CHECK(r1[1].pass);  // naive: the same bits whatever the buckets
    CHECK(r1[2].pass);
  }

  TEST_CASE("a measured timing claim is decided on repeated interleaved runs; the model clock on the one run") {
    // overlap none measures exactly 0 on every run (each rank waits for the
    // whole collective, posted after its backward), so these verdicts do
    // not depend on the machine.
    const Lesson l = parse_lesson(R"(title: timing
ddp: {ranks: 2, depth: 2, width: 16, batch: 4, iterations: 2, overlap: none, algorithm: naive}
beats:
  - kind: ddp
    name: none
    text: nothing overlaps
    checks:
      - {check: overlap_fraction, less_than: 0.5}
      - {check: overlap_fraction, greater_than: 0.5}
      - {check: overlap_fraction, clock: model, greater_than: 0.5}
  - kind: ddp
    text: again
    checks:
      - {check: overlap_fraction, greater_than: {run: none}}
)", "timing.yaml");
    const auto r0 = evaluate(l.beats[0]);
    REQUIRE(r0.size() == 3);
    CHECK(r0[0].pass);  // decided on the first eight runs: 8 of 8 below, p = 1/256
    CHECK(r0[0].what == "overlap fraction (median over iterations), median of 8 runs");
    CHECK(r0[0].expected == "< 0.5: median < 0.455 (0.5 / 1.1), sign test p <= 0.005");
    CHECK(r0[0].actual == "0 (8 of 8 runs < 0.5, p = 0.00391; runs: 0, 0, 0, 0, 0, 0, 0, 0)");
    CHECK_FALSE(r0[1].pass);  // the opposite passes the same tests: fails, after both rounds
    CHECK_FALSE(r0[1].skipped);
    CHECK(r0[1].what == "overlap fraction (median over iterations), median of 16 runs");
    CHECK(r0[1].expected == "> 0.5: median > 0.55 (0.5 × 1.1), sign test p <= 0.005");
    CHECK(r0[1].actual == "0 (0 of 16 runs > 0.5, p = 1; runs: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)");
    CHECK_FALSE(r0[2].pass);  // no link time: the model clock has no communication to hide
    CHECK(r0[2].what == "overlap fraction on the model clock");
    CHECK(r0[2].actual == "0");
    const auto r1 = evaluate(l.beats[1]);
    REQUIRE(r1.size() == 1);
    // Neither the claim nor its opposite stands out of the spread: not
    // shown on this run (skipped), with the runs and the machine's load.
    CHECK_FALSE(r1[0].pass);
    CHECK(r1[0].skipped);
    CHECK(r1[0].not_shown);
    CHECK(r1[0].what == "overlap fraction (median over iterations) vs run 'none', median of 10 runs each, interleaved");
    CHECK(r1[0].actual.rfind("not shown on this run: after 10 runs each the medians 0 and 0 do not differ by a "
                             "factor 1.5 with a rank test p <= 0.005 (p = 1; runs: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0; run "
                             "'none': 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); load average ",
                             0) == 0);
    CHECK(r1[0].actual.find(" CPUs") != std::string::npos);
    CHECK(r1[0].expected == "> 0 of run 'none' (overlap none, cap 25 MiB, naive) by a factor 1.5 and a rank test p <= 0.005");
  }

  TEST_CASE("false hang claims fail; a wrong count is never a silent success") {
    const Lesson l = parse_lesson(R"(title: wrong
hang: {ranks: 4, timeout_s: 0.2}
beats:
  - kind: hang
    hang: {fault: skip-collective, fault_ranks: [3, 1]}
    text: order
    checks:
      - {check: named_ranks, equals: [3, 1]}
      - {check: failure, equals: mismatch}
      - {check: sequence, rank: 1, started: 1}
  - kind: hang
    hang: {fault: wrong-count, fault_ranks: 2}
    text: count
    checks:
      - {check: failure, equals: none}
      - {check: report, contains: "count 514"}
      - {check: failure, equals: mismatch}
      - {check: all_failed}
  - kind: hang
    hang: {fault: none}
    text: healthy
    checks:
      - {check: all_failed}
      - {check: named_ranks, equals: []}
)", "wrong.yaml");
    const auto r0 = evaluate(l.beats[0]);
    REQUIRE(r0.size() == 3);
    for (const auto& c : r0) CHECK_FALSE(c.pass);
    CHECK(r0[0].actual == "[1, 3]");  // ascending, whatever the order of the fault list
    CHECK(r0[1].actual.rfind("timeout: ", 0) == 0);
    CHECK(r0[2].actual == "#0 / #0");
    const auto r1 = evaluate(l.beats[1]);
    REQUIRE(r1.size() == 4);
    CHECK_FALSE(r1[0].pass);
    CHECK(r1[0].actual.rfind("mismatch: ", 0) == 0);
    CHECK_FALSE(r1[1].pass);
    CHECK(r1[2].pass);
    CHECK(r1[3].pass);
    const auto r2 = evaluate(l.beats[2]);
    REQUIRE(r2.size() == 2);
    CHECK_FALSE(r2[0].pass);
    CHECK(r2[0].actual == "0 of 4 failed");
    CHECK(r2[1].pass);
  }

  TEST_CASE("a ddp beat whose sleeps alone exceed 30 s is refused at its options, with the estimate") {
    // Each value within its own bounds, their product 80 s; and the link
    // delay, from the top-level defaults: 100 × 0.1 s × 16 MB.
    const struct {
      const char *file, *yaml, *error;
    } too_long[] = {
        {"long.yaml", R"(title: long
beats:
  - kind: ddp
    ddp: {iterations: 100, layer_delay_us: 100000}
    text: slow
)",
         "long.yaml:4:10: this ddp run sleeps at least 80 s (iterations 100 × 2 passes × depth 4 × layer_delay_us "
         "100000 = 80 s), more than the 30 s one run of a lesson beat may take; lower iterations, depth or "
         "layer_delay_us"},
        {"link.yaml", R"(title: long
ddp: {width: 1024, iterations: 100, link_us_per_mb: 100000}
beats:
  - kind: ddp
    text: slow
)",
         "link.yaml:4:5: this ddp run sleeps at least 160 s (iterations 100 × link_us_per_mb 100000 × 16 MB of "
         "collectives per iteration = 160 s), more than the 30 s one run of a lesson beat may take; lower "
         "iterations, link_us_per_mb or the model (depth, width)"},
    };
    for (const auto& t : too_long) {
      CAPTURE(t.file);
      CHECK_THROWS_WITH_AS(parse_lesson(t.yaml, t.file), t.error, LessonError);
    }
    // 3 × 2 × 4 × 1 s = 24 s: under the bound, it loads.
    CHECK_NOTHROW(parse_lesson(R"(title: ok
beats:
  - kind: ddp
    ddp: {iterations: 3, layer_delay_us: 100000, depth: 4}
    text: fine
)", "ok.yaml"));
  }

  TEST_CASE("setup is optional only when no beat is a collective beat") {
    const Lesson l = parse_lesson("title: t\nbeats:\n  - {kind: hang, text: hi}\n", "ok.yaml");
    CHECK(l.beats[0].kind == Beat::Kind::hang);
    CHECK(l.beats[0].hang.ranks == 4);
    CHECK(evaluate(l.beats[0]).empty());  // no checks: nothing runs
    CHECK_THROWS_WITH_AS(parse_lesson("title: t\nbeats:\n  - {text: hi}\n", "c.yaml"),
                         "c.yaml:1:1: the lesson needs 'setup'", LessonError);
    // An explicit collective kind is the default kind.
    const Lesson c = parse_lesson("title: t\nsetup: {ranks: 2}\nbeats:\n  - {kind: collective, text: hi}\n", "k.yaml");
    CHECK(c.beats[0].kind == Beat::Kind::collective);
  }

  TEST_CASE("every truncation of lessons 07 and 08 loads or throws a LessonError") {
    int loaded = 0, errors = 0;
    for (const char* f : {"07-bucketing-overlap.yaml", "08-hunt-the-hang.yaml"}) {
      const std::string text = slurp(kLessonsDir / f);
      for (size_t n = 0; n < text.size(); n += 37) {
        try {
          (void)parse_lesson(text.substr(0, n), f);
          ++loaded;
        } catch (const LessonError&) {
          ++errors;
        }
      }
    }
    CHECK(loaded + errors > 100);
    CHECK(errors > 0);
  }

  TEST_CASE("fixtures of the ddp and hang keys give file:line:column and what was expected") {
    int n = 0;
    for (const auto& e : fs::directory_iterator(kBadDir)) {
      const std::string f = e.path().filename().string();
      if (e.path().extension() != ".yaml" ||
          !(f.rfind("ddp-", 0) == 0 || f.rfind("hang-", 0) == 0 || f.rfind("beat-", 0) == 0))
        continue;
      ++n;
      const std::string text = slurp(e.path());
      const std::string tag = "# expect: ";
      REQUIRE(text.rfind(tag, 0) == 0);
      const std::string want = text.substr(tag.size(), text.find('\n') - tag.size());
      std::string got = "(no error)";
      try {
        parse_lesson(text, f);
      } catch (const LessonError& x) {
        got = x.what();
      }
      INFO(f, "\n  want: ", want, "\n  got:  ", got);
      CHECK(got.rfind(want, 0) == 0);
    }
    CHECK(n == 17);  // 17th: ddp-equals-measured.yaml (cli8)
  }
}
