// Lesson 05 beat 6 (issue 37): with no calibration profile the compare
// view's α-β line is a preset's (InfiniBand), 2-3 decades below this
// machine's dots, and the plot says so: model_not_here_label.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "app/viz/compare.h"
#include "core/model/calibrate/profile_io.h"
#include "core/model/cost_model.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {
// XDG_CONFIG_HOME pointed at an empty folder of its own while it lives
// (no profile: default_profile_path is under it), restored after.
struct ConfigHome {
  fs::path dir = fs::temp_directory_path() / ("microddp_nothere_" + std::to_string(::getpid()));
  std::optional<std::string> old;
  ConfigHome() {
    if (const char* v = std::getenv("XDG_CONFIG_HOME")) old = v;
    fs::create_directories(dir);
    setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  }
  ~ConfigHome() {
    if (old) setenv("XDG_CONFIG_HOME", old->c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(dir);
  }
  ConfigHome(const ConfigHome&) = delete;
  ConfigHome& operator=(const ConfigHome&) = delete;
};
}  // namespace

TEST_SUITE("model_not_here") {
  TEST_CASE("no profile: the line is preset infiniband's, said on the plot; a profile, a named preset or another source: nothing") {
    const ConfigHome home;
    Compare cmp;
    cmp.base.spec.collective = Collective::all_reduce;
    cmp.base.spec.algorithm = "ring";
    cmp.base.spec.world_size = 8;
    cmp.base.spec.count = 1024;
    cmp.source.kind = PredictionSource::Kind::profile;
    cmp.source.preset = "infiniband";
    CHECK(model_not_here_label(cmp) == "model: preset infiniband, not this machine — run microddp calibrate");
    cmp.source.preset = "";  // the fallback
    CHECK(model_not_here_label(cmp) == "model: preset nvlink, not this machine — run microddp calibrate");
    // A preset named on purpose is no stand-in.
    cmp.source.kind = PredictionSource::Kind::preset;
    cmp.source.preset = "infiniband";
    CHECK(model_not_here_label(cmp) == "");
    // Another source's lines are its own.
    cmp.source.kind = PredictionSource::Kind::profile;
    cmp.sweep_source.kind = SweepSource::recorded;
    CHECK(model_not_here_label(cmp) == "");
    cmp.sweep_source.kind = SweepSource::shm;
    // With this machine's profile the line is this machine's.
    fs::create_directories(home.dir / "microddp");
    write_profile((home.dir / "microddp" / "profile.json").string(), preset("nvlink"), {});
    CHECK(model_not_here_label(cmp) == "");
  }
}
