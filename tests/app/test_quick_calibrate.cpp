// The window's quick calibration (app/viz/quick_calibrate.h) driven with a
// fake clock and a fake measurement: the progress reaches 100% only once the
// profile is written, the profile is marked quick and dated by the clock,
// and the run's prediction label switches from the preset to it.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <vector>

#include "app/viz/quick_calibrate.h"
#include "app/viz/panels.h"
#include "app/viz/prediction.h"
#include "headless.h"
#include "app/viz/view_state.h"
#include "core/model/calibrate/calibrate.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

// Restores XDG_CONFIG_HOME (where the default profile lives) on scope exit.
struct ConfigHome {
  std::filesystem::path dir;
  std::string saved;
  bool had = false;
  ConfigHome() {
    dir = std::filesystem::temp_directory_path() / fmt::format("microddp-quick-cal-{}", ::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    if (const char* old = std::getenv("XDG_CONFIG_HOME")) had = true, saved = old;
    setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  }
  ~ConfigHome() {
    if (had) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(dir);
  }
};

// 2030-01-02 12:00:00 UTC: noon, so the local date is the same in any time zone within ±11 h.
std::chrono::system_clock::time_point fake_epoch() {
  return std::chrono::system_clock::from_time_t(1893585600);
}

}  // namespace

TEST_SUITE("quick_calibrate") {
  TEST_CASE("fake clock and measurement: 100% after the profile is written, the label names it quick and dated") {
    ConfigHome home;
    App app;
    RunParams p;
    p.spec.collective = Collective::all_reduce;
    p.spec.algorithm = "ring_unchunked";
    p.spec.world_size = 3;
    p.spec.count = 3;
    app.vs.edit = p;
    app.session.configure(p);
    CHECK(app.session.prediction().source == "predicted (preset nvlink)");

    // The clock advances 1.5 s per reading: start, then after writing.
    int readings = 0;
    QuickCalibrationHooks hooks;
    hooks.clock = [&] { return fake_epoch() + std::chrono::milliseconds(1500 * readings++); };
    CalibrateOptions seen;
    hooks.measure = [&](const CalibrateOptions& o) {
      seen = o;
      o.progress("barrier of 2 ranks: 1.00 us");
      for (double f : {0.25, 0.5, 1.0}) o.fraction(f);
      CalibrationResult r;
      r.params.name = "threads";
      r.params.alpha = 2e-6;    // 2 us
      r.params.beta = 1e-9;     // 1 GB/s
      r.points = {{4, 2e-6}, {1 << 20, 2e-6 + (1 << 20) * 1e-9}};
      return r;
    };
    std::vector<double> fractions;
    hooks.progress = [&](double f, const std::string&) { fractions.push_back(f); };
    QuickCalibrateJob& job = quick_calibrate_job();
    const std::string path = default_profile_path();
    REQUIRE(job.start(path, hooks));
    job.wait();
    REQUIRE(job.take_finished());
    CHECK_FALSE(job.take_finished());  // once per run
    CHECK_FALSE(job.running());
    REQUIRE(job.outcome());
    CHECK(job.error().empty());

    // The quick sweep was asked for.
    CHECK(seen.size_factor == 4);
    CHECK(seen.min_bytes == 4);
    CHECK(seen.max_bytes == int64_t{1} << 20);
    CHECK(seen.rounds == 1);
    CHECK(seen.state_rounds == 1);
    CHECK_FALSE(seen.cache_curve);
    // The line, then 0.25 and 0.5; the measurement's 1.0 is held at 0.99
    // until the profile is on disk; then 1.0.
    CHECK(fractions == std::vector<double>{0.0, 0.25, 0.5, 0.99, 1.0});
    CHECK(job.fraction() == 1.0);
    CHECK(job.line() == "wrote " + path);
    CHECK(job.outcome()->seconds == 1.5);  // two readings of the fake clock
    CHECK(job.outcome()->date == "2030-01-02");
    CHECK(job.outcome()->path == path);

    // The profile: the same format, loadable, marked quick with the clock's date.
    const CostParams loaded = load_profile(path);
    CHECK(loaded.alpha == 2e-6);
    CHECK(loaded.beta == 1e-9);
    const ProfileStamp st = profile_stamp(path);
    CHECK(st.quick);
    CHECK(st.date == "2030-01-02");

    // The label switches once the window re-prices.
    reprice_on_new_profile(app);
    CHECK(app.vs.error.empty());
    const viz::Prediction& pr = app.session.prediction();
    CHECK(pr.source == "predicted (calibrated profile, quick, 2030-01-02)");
    CHECK(pr.this_machine);
    CHECK(pr.hint.empty());
    // 2 steps of one 12-byte message at α = 2 us, β = 1 ns/B (no barrier table).
    CHECK(pr.total_us == doctest::Approx(2 * (2.0 + 12e-9 * 1e6)).epsilon(1e-9));
  }

  TEST_CASE("a failed measurement: no profile, the error kept, the bar not at 100%") {
    ConfigHome home;
    QuickCalibrationHooks hooks;
    hooks.measure = [](const CalibrateOptions& o) -> CalibrationResult {
      o.fraction(0.4);
      throw std::runtime_error("ping-pong failed");
    };
    QuickCalibrateJob job;
    REQUIRE(job.start(default_profile_path(), hooks));
    job.wait();
    REQUIRE(job.take_finished());
    CHECK_FALSE(job.outcome());
    CHECK(job.error() == "ping-pong failed");
    CHECK(job.fraction() == 0.4);
    CHECK_FALSE(std::filesystem::exists(default_profile_path()));
  }

  TEST_CASE("the window: frames drawn while it runs, then the controls re-price on the new profile") {
    ConfigHome home;
    test::Headless ui;
    App app;
    RunParams p;
    p.spec.collective = Collective::all_reduce;
    p.spec.algorithm = "ring_unchunked";
    p.spec.world_size = 3;
    p.spec.count = 3;
    app.vs.edit = p;
    app.session.configure(p);
    ui.frame(app);  // the button is drawn (no profile)
    CHECK(existing_profile().empty());
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    QuickCalibrationHooks hooks;
    hooks.clock = [] { return fake_epoch(); };
    hooks.measure = [released](const CalibrateOptions& o) {
      o.fraction(0.5);
      released.wait();  // the UI draws frames meanwhile
      CalibrationResult r;
      r.params.name = "threads";
      r.params.alpha = 1e-6;
      r.params.beta = 1e-9;
      return r;
    };
    QuickCalibrateJob& job = quick_calibrate_job();
    REQUIRE(job.start(default_profile_path(), hooks));
    CHECK_FALSE(job.start(default_profile_path(), hooks));  // one at a time
    for (int i = 0; i < 3; ++i) ui.frame(app);  // the progress bar
    CHECK(job.running());
    CHECK(app.session.prediction().source == "predicted (preset nvlink)");
    release.set_value();
    job.wait();
    ui.frame(app);  // the panel takes the finished run and re-prices
    CHECK_FALSE(job.take_finished());  // taken by the panel
    CHECK(app.session.prediction().source == "predicted (calibrated profile, quick, 2030-01-02)");
    CHECK(app.compare.source == app.vs.source);
    CHECK(app.vs.error.empty());
  }
}
