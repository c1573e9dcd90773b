// --compare-runs A.json B.json with two DDP / FSDP records (`microddp ddp
// --record`, compare_runs_ddp.h; issue 37: the issue's own examples,
// prefetch on/off and bucket sizes, could not be shown side by side): the
// record of a real run, the titles and the difference line, the two
// timelines one above the other on one time axis, and the refusal of a DDP
// record beside a collective one.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/compare_runs_ddp.h"
#include "app/viz/options.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {

// A run by hand: `end_ms` for its iteration, `overlap` of `comm_ms` hidden.
ddp::DdpRecord hand_run(bool sharded, bool prefetch, double end_ms, double overlap) {
  ddp::DdpRecord r;
  r.run.options.sharded = sharded;
  r.run.options.prefetch = prefetch;
  r.run.options.iterations = 2;
  for (int i = 0; i < 2; ++i) {
    ddp::IterationStats s;
    s.comm_ms = 10;
    s.overlap_fraction = i == 0 ? 0.5 : overlap;
    r.run.iterations.push_back(s);
    ddp::IterationTimeline t;
    t.end_ms = end_ms;
    r.run.timelines.push_back(t);
  }
  return r;
}

struct Dir {
  fs::path p = fs::temp_directory_path() / fmt::format("microddp-cmp-ddp-{}", ::getpid());
  Dir() {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~Dir() { fs::remove_all(p); }
  std::string operator/(const char* f) const { return (p / f).string(); }
};

// A short FSDP run (1 timed iteration, 1 ms sleeps) recorded to `file`.
void record_fsdp(const std::string& file, bool prefetch) {
  REQUIRE(std::system(fmt::format("{} ddp --sharded {} --iterations 1 --layer-delay-us 1000 --link-us-per-mb 1000 "
                                  "--record {} > /dev/null 2>&1",
                                  MICRODDP_CLI_BIN, prefetch ? "" : "--no-prefetch", file)
                          .c_str()) == 0);
}

}  // namespace

TEST_SUITE("viz3_compare_runs") {
  TEST_CASE("two DDP records: titles by their settings, and the difference in settings, time and overlap") {
    const ddp::DdpRecord on = hand_run(true, true, 40, 0.75), off = hand_run(true, false, 62.5, 0.05);
    CHECK(ddp_run_title('A', on, "/x/on.json") == "A: FSDP, prefetch on · 4 ranks · MLP 4 × 256×256 · iteration 2 of 2 (on.json)");
    CHECK(ddp_run_setting(off) == "FSDP, prefetch off");
    CHECK(ddp_runs_difference(on, off) ==
          std::vector<std::string>{"A and B differ in: prefetch on vs off",
                                   "Iteration time: A 40.0 ms, B 62.5 ms: B takes 22.5 ms more (1.56×)",
                                   "Overlap (communication hidden behind compute): A 75%, B 5%; over all 2 and 2 timed "
                                   "iterations A 63%, B 28%"});
    ddp::DdpRecord small = hand_run(false, true, 30, 0.6), big = hand_run(false, true, 30, 0);
    small.run.options.bucket_cap_mb = 1;
    small.run.buckets.resize(4);
    big.run.options.bucket_cap_mb = 25;
    big.run.buckets.resize(1);
    CHECK(ddp_run_setting(small) == "DDP, bucket cap 1 MiB, 4 buckets");
    CHECK(ddp_run_setting(big) == "DDP, bucket cap 25 MiB, 1 bucket");
    CHECK(ddp_runs_difference(small, big).at(0) == "A and B differ in: bucket cap 1 MiB vs 25 MiB, buckets 4 vs 1");
    CHECK(ddp_runs_difference(small, big).at(1) == "Iteration time: A 30.0 ms, B 30.0 ms: the same");
  }

  TEST_CASE("--compare-runs of FSDP prefetch on and off, --present at 28 px: both timelines, one axis, titles, difference") {
    const Dir dir;
    record_fsdp(dir / "on.json", true);
    record_fsdp(dir / "off.json", false);
    // The record of the real run: 1 iteration, 4 layers: 8 all-gathers and 4 reduce-scatters.
    const ddp::DdpRecord off = ddp::load_ddp_record(dir / "off.json");
    CHECK(off.run.options.sharded);
    CHECK_FALSE(off.run.options.prefetch);
    REQUIRE(off.run.timelines.size() == 1);
    CHECK(off.run.timelines[0].comm.size() == 12);
    CHECK(off.run.timelines[0].layers.size() == 4 * 4 * 2);  // ranks x layers x passes
    CHECK(off.run.timelines[0].comm[0].bytes == 65792);     // rank 0's block of 256x256+256 floats, 4 ranks

    std::vector<std::string> args = {"microddp-viz", "--compare-runs", dir / "on.json", dir / "off.json", "--present",
                                     "--font-px", "28"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    Options o;
    REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
    test::FontWindow w(28);
    App app;
    apply_options(app, o);
    REQUIRE(app.ddp_runs.active());
    app.vs.view = View::compare;
    app.vs.static_frame = true;
    w.frames(app);
    const DdpRunsDrawn& d = app.ddp_runs.drawn;
    REQUIRE(d.titles.size() == 2);
    CHECK(d.titles[0] == "A: FSDP, prefetch on · 4 ranks · MLP 4 × 256×256 · iteration 1 of 1 (on.json)");
    CHECK(d.titles[1] == "B: FSDP, prefetch off · 4 ranks · MLP 4 × 256×256 · iteration 1 of 1 (off.json)");
    REQUIRE(d.difference.size() == 3);
    CHECK(d.difference[0] == "A and B differ in: prefetch on vs off");
    CHECK(d.difference[1].rfind("Iteration time: A ", 0) == 0);
    CHECK(d.difference[2].rfind("Overlap (communication hidden behind compute): A ", 0) == 0);
    CHECK_FALSE(d.clipped);
    CHECK(d.text_px == 28);
    // One above the other, the same left edge (time 0) and width; each run's
    // plot as long as its iteration on the shared axis.
    CHECK(d.timeline_box[1][1] > d.timeline_box[0][3]);
    CHECK(d.timeline_box[0][0] == d.timeline_box[1][0]);
    CHECK(d.timeline_box[0][2] == d.timeline_box[1][2]);
    CHECK(d.timeline_box[1][3] <= 720);
    CHECK(d.lane_h >= 8);
    const float px_per_ms = (d.timeline_box[0][2] - d.timeline_box[0][0]) / d.axis_ms;
    for (int i = 0; i < 2; ++i) {
      const auto& tl = app.ddp_runs.runs[size_t(i)].run.timelines.back();
      double span = tl.end_ms;
      for (const auto& c : tl.comm) span = std::max(span, c.end_ms);
      for (const auto& l : tl.layers) span = std::max(span, l.end_ms);
      for (const auto& x : tl.waits) span = std::max(span, x.end_ms);
      INFO("run " << i);
      CHECK(d.plot_x[i][0] == doctest::Approx(d.timeline_box[i][0]));
      CHECK(d.plot_x[i][1] - d.plot_x[i][0] == doctest::Approx(span * px_per_ms).epsilon(0.01));
    }
  }

  TEST_CASE("--compare-runs of a DDP record and a collective record: refused, naming both files and kinds") {
    const Dir dir;
    record_fsdp(dir / "on.json", true);
    REQUIRE(std::system(fmt::format("{} run --algorithm ring --ranks 4 --count 16 --save-record {} > /dev/null 2>&1",
                                    MICRODDP_CLI_BIN, dir / "ring.json")
                            .c_str()) == 0);
    Options o;
    o.compare_runs = {dir / "on.json", dir / "ring.json"};
    App app;
    CHECK_THROWS_WITH_AS(apply_options(app, o),
                         fmt::format("--compare-runs {0} {1}: {0} is a DDP training record (`microddp ddp --record`) "
                                     "and {1} is a collective run record (`microddp run --save-record`); two runs of "
                                     "one kind are compared (record the other with `microddp ddp --record FILE`)",
                                     dir / "on.json", dir / "ring.json")
                             .c_str(),
                         UsageError);
    CHECK_FALSE(app.ddp_runs.active());
  }
}
