// The words beside Compare's predictions and measured dots (issue 37,
// lecturer pass 6): one form for a preset's prediction whether it was
// chosen or stands in for a missing calibration (lesson 03 beat 4 said
// "(preset nvlink)", beat 9 "(preset nvlink: no calibration yet)"), and a
// shared-memory sweep begun on busy CPUs says so on its source line, as
// `microddp bench` does. The busy fraction is given, not measured.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "app/viz/compare.h"
#include "app/viz/prediction.h"
#include "core/algorithms/registry.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

namespace {
// XDG_CONFIG_HOME at an empty folder of its own (no calibration profile).
struct NoProfile {
  fs::path dir = fs::temp_directory_path() / ("microddp_predwords_" + std::to_string(::getpid()));
  std::optional<std::string> old;
  NoProfile() {
    if (const char* v = std::getenv("XDG_CONFIG_HOME")) old = v;
    fs::create_directories(dir);
    setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  }
  ~NoProfile() {
    if (old) setenv("XDG_CONFIG_HOME", old->c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    fs::remove_all(dir);
  }
  NoProfile(const NoProfile&) = delete;
  NoProfile& operator=(const NoProfile&) = delete;
};

CollectiveSpec ring8() {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = 8;
  s.count = 1024;
  return s;
}
}  // namespace

TEST_SUITE("prediction_words") {
  TEST_CASE("no profile: the stand-in preset reads as a chosen one, '(preset nvlink)'; the hint says to calibrate") {
    const NoProfile np;
    PredictionSource profile;  // Kind::profile, no profile on disk: nvlink stands in
    PredictionSource chosen;
    chosen.kind = PredictionSource::Kind::preset;
    chosen.preset = "nvlink";
    const ModelInForce a = resolve_model(ring8(), profile), b = resolve_model(ring8(), chosen);
    CHECK(a.label == "predicted (preset nvlink)");
    CHECK(b.label == "predicted (preset nvlink)");
    CHECK(a.hint == kCalibrateHint);
    CHECK_FALSE(a.this_machine);
    profile.preset = "infiniband";
    CHECK(resolve_model(ring8(), profile).label == "predicted (preset infiniband)");
  }

  TEST_CASE("sweep_busy_warning: over 25% busy, bench's words; at 25% or unknown, nothing") {
    CHECK(sweep_busy_warning(0.63) == "warning: the CPUs were 63% busy before this sweep");
    CHECK(sweep_busy_warning(1.0) == "warning: the CPUs were 100% busy before this sweep");
    CHECK(sweep_busy_warning(0.26) == "warning: the CPUs were 26% busy before this sweep");
    CHECK(sweep_busy_warning(0.25) == "");
    CHECK(sweep_busy_warning(0.05) == "");
    CHECK(sweep_busy_warning(-1) == "");
  }

  TEST_CASE("a shared-memory sweep's source line and tag carry the warning when busy, not when idle") {
    Compare cmp;
    RunParams p;
    p.spec = ring8();
    cmp.configure(p, {"tree", "ring"});
    cmp.start_sweep(4096, 4096, 1, 0);  // (its own measure of the CPUs, replaced below)
    const std::string label = "Source: measured on this machine's shared memory (8 threads, one per rank; no network)";
    cmp.source_label = label, cmp.source_tag = "measured here (shared memory)";
    cmp.note_busy(0.1);
    CHECK(cmp.source_label == label);
    CHECK(cmp.source_tag == "measured here (shared memory)");
    cmp.note_busy(0.63);
    CHECK(cmp.source_label == label + "; warning: the CPUs were 63% busy before this sweep");
    CHECK(cmp.source_tag == "measured here (shared memory; CPUs 63% busy)");
    // Another source (a recorded lab run carries bench's own line): untouched.
    SourceSpec rec;
    rec.kind = SweepSource::recorded;
    cmp.set_sweep_source(rec);
    const std::string before = cmp.source_label;
    cmp.note_busy(0.9);
    CHECK(cmp.source_label == before);
  }

  TEST_CASE("lesson 03's source line with the warning at 100% stays one line on a 1280 px slide at 18 px") {
    test::FontWindow w(18);  // (DejaVu Sans at 18 px, as a slide draws it)
    ImGui::NewFrame();
    const std::string line = "Source: measured on this machine's shared memory (7 threads, one per rank; no network); " +
                             sweep_busy_warning(1.0);
    const float width = ImGui::CalcTextSize(line.c_str()).x;
    ImGui::EndFrame();
    INFO(line, ": ", width, " px");
    CHECK(width <= 1280 - 2 * 8);  // the window's padding each side
  }
}
