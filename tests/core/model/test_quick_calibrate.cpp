// Quick calibration in core (core/model/calibrate/calibrate.h): the reduced
// sweep's options, the fraction calibrate reports, the profile's quick mark.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/model/calibrate/calibrate.h"

using namespace microddp;

TEST_SUITE("calibrate_quick") {
  TEST_CASE("the quick sweep: 10 sizes 4 B .. 1 MiB, one round, no cache curve") {
    const CalibrateOptions o = quick_calibrate_options();
    CHECK(o.backend == "threads");
    CHECK(o.min_bytes == 4);
    CHECK(o.max_bytes == 1048576);
    CHECK(o.size_factor == 4);
    CHECK(o.rounds == 1);
    CHECK(o.state_rounds == 1);
    CHECK(o.warmup == 1);
    CHECK(o.max_iters == 20);
    CHECK(o.max_barrier_ranks == 4);
    CHECK_FALSE(o.cache_curve);
    // the full calibrate: nine rounds of the barriers and the ping-pong, three of the rest
    CHECK(CalibrateOptions{}.state_rounds == 9);
    CHECK(CalibrateOptions{}.rounds == 3);
  }

  TEST_CASE("calibrate reports a non-decreasing fraction per piece, ending at 1") {
    CalibrateOptions co;
    co.min_bytes = 4;
    co.max_bytes = 4096;
    co.size_factor = 4;  // 4, 16, 64, 256, 1024, 4096
    co.warmup = 1;
    co.max_iters = 5;
    co.kernel_bytes = 1 << 20;
    co.rounds = 1;
    co.state_rounds = 1;
    co.max_barrier_ranks = 3;
    co.cache_curve = false;
    std::vector<double> f;
    co.fraction = [&](double x) { f.push_back(x); };
    const CalibrationResult r = calibrate(co);
    REQUIRE(r.points.size() == 6);
    CHECK(r.points[1].bytes == 16);
    CHECK(r.points.back().bytes == 4096);
    // Pieces: barriers 1, sizes 6, kernels 2 (one call), bus 1, peer waits 1
    // = 11 pieces in 10 calls.
    REQUIRE(f.size() == 10);
    CHECK(f.front() == doctest::Approx(1.0 / 11));
    for (size_t i = 1; i < f.size(); ++i) CHECK(f[i] > f[i - 1]);
    CHECK(f.back() == 1.0);
    // Three state rounds: the ping-pong is 3 x 6 pieces of 23 (barriers 1,
    // sizes 18, kernels 2, bus 1, peer waits 1), one call each.
    CalibrateOptions three = co;
    three.state_rounds = 3;
    std::vector<double> g;
    three.fraction = [&](double x) { g.push_back(x); };
    const CalibrationResult r3 = calibrate(three);
    CHECK(r3.points.size() == 6);
    REQUIRE(g.size() == 1 + 18 + 1 + 1 + 1);
    CHECK(g[0] == doctest::Approx(1.0 / 23));
    CHECK(g[18] == doctest::Approx(19.0 / 23));
    CHECK(g.back() == 1.0);
    CalibrateOptions bad = co;
    bad.size_factor = 1;
    CHECK_THROWS_WITH_AS(calibrate(bad), "calibrate: size factor 1 (need >= 2)", UsageError);
  }

  TEST_CASE("the quick mark: added beside the fields, read back, ignored by load_profile") {
    namespace fs = std::filesystem;
    const fs::path path = fs::temp_directory_path() / fmt::format("microddp-quick-mark-{}.json", ::getpid());
    CostParams p;
    p.name = "threads";
    p.alpha = 1e-6;
    p.beta = 1e-10;
    write_profile(path.string(), p, {});
    CHECK_FALSE(profile_stamp(path.string()).quick);  // a full calibration's profile
    CHECK(profile_stamp(path.string()).date.empty());
    mark_profile_quick(path.string(), "2031-02-03");
    const ProfileStamp st = profile_stamp(path.string());
    CHECK(st.quick);
    CHECK(st.date == "2031-02-03");
    const CostParams back = load_profile(path.string());
    CHECK(back.alpha == 1e-6);
    CHECK(back.beta == 1e-10);
    fs::remove(path);
    CHECK_FALSE(profile_stamp(path.string()).quick);  // missing file: no mark
    CHECK_THROWS_AS(mark_profile_quick(path.string(), "2031-02-03"), std::runtime_error);
  }
}
