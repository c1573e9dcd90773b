// UI logic through a real ImGui context with no GL: keys and buttons drive
// the real stepping; changing a parameter re-plans.
#include <doctest/doctest.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "app/viz/options.h"
#include "app/viz/keys.h"
#include "app/viz/panels.h"
#include "app/viz/platform.h"
#include "app/viz/scene.h"
#include "app/viz/units.h"
#include "app/viz/view_state.h"
#include "app/headless.h"
#include "assets/palette.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

using test::Headless;

// The app as microddp-viz sets it up from a command line (no frame drawn).
std::unique_ptr<App> apply(std::vector<std::string> args) {
  args.insert(args.begin(), "microddp-viz");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Options o;
  REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
  auto app = std::make_unique<App>();
  apply_options(*app, o);
  return app;
}

using test::seed_ring;

std::string accum0_text(const App& app, int cell) {
  const BuffersScene sc = build_buffers(app.session, app.session.position(), BuffersLayout{});
  for (const auto& row : sc.rows)
    if (row.rank == 0 && row.buf == Buf::accum) return row.cells.at(cell).text;
  return "?";
}

}  // namespace

TEST_SUITE("ui") {
  TEST_CASE("format_us writes durations as the CLI does: µs (U+00B5, UTF-8), ms, s, ns below 0.1 µs") {
    CHECK(format_us(12.34) == "12.3 \u00b5s");
    CHECK(format_us(12.34) == "12.3 µs");  // the source's literal is the same UTF-8
    CHECK(format_us(0) == "0 µs");
    CHECK(format_us(999) == "999 µs");
    CHECK(format_us(999.7) == "1 ms");       // not "1e+03 µs"
    CHECK(format_us(999.4e3) == "999 ms");
    CHECK(format_us(999.7e3) == "1 s");
    CHECK(format_us(4560) == "4.56 ms");
    CHECK(format_us(1.5e6) == "1.5 s");
    CHECK(format_us(0.05) == "50 ns");
    CHECK(format_us(-1) == "n/a");
  }

  TEST_CASE("the Right key runs the next step for real; Left replays the previous snapshot") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    h.frame(app);
    REQUIRE(app.session.configured());
    CHECK(app.session.position() == 0);
    CHECK(app.session.steps_run() == 0);
    CHECK(accum0_text(app, 0) == "");  // accum not written before step 0
    h.press(app, Key::step);
    CHECK(app.session.position() == 1);
    CHECK(app.session.steps_run() == 1);
    CHECK(app.session.real_steps_executed() == 1);
    CHECK(accum0_text(app, 0) == "8");
    h.press(app, Key::step);
    CHECK(app.session.position() == 2);
    CHECK(accum0_text(app, 2) == "18");
    h.press(app, Key::back);
    CHECK(app.session.position() == 1);
    CHECK(app.session.real_steps_executed() == 2);  // Back replays, runs nothing
    CHECK(accum0_text(app, 0) == "8");
    CHECK(accum0_text(app, 1) == "10");
    h.press(app, Key::step);  // forward again: a replay, not a new run
    CHECK(app.session.position() == 2);
    CHECK(app.session.real_steps_executed() == 2);
    h.press(app, Key::reset);
    CHECK(app.session.position() == 0);
    CHECK(app.session.steps_run() == 0);
  }

  TEST_CASE("the timeline's time axis has no scale until a step has run, then reads 0 .. the run's span") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    const auto drawn = [&](const std::string& prefix) {
      std::vector<std::string> v;
      for (const auto& d : app.vs.labels_drawn)
        if (d.what.rfind(prefix, 0) == 0) v.push_back(d.what);
      return v;
    };
    h.frame(app);
    h.frame(app);
    REQUIRE(app.session.steps_run() == 0);
    // The panel is drawn (its rank labels are), its axis is not: no "0 .. 1 ns".
    CHECK(drawn("timeline R") == std::vector<std::string>{"timeline R0", "timeline R1", "timeline R2"});
    CHECK(drawn("timeline axis").empty());
    h.press(app, Key::step);
    REQUIRE(app.session.steps_run() == 1);
    const TimelineScene sc = build_timeline(app.session);
    REQUIRE(sc.steps.size() == 1);
    CHECK(sc.span_us > 0.001);  // the measured step, not the empty axis' placeholder
    CHECK(drawn("timeline axis") == std::vector<std::string>{"timeline axis 0", "timeline axis " + format_us(sc.span_us)});
    // Back replays: the step stays recorded, and so does the scale.
    h.press(app, Key::back);
    CHECK(app.session.position() == 0);
    CHECK(drawn("timeline axis").size() == 2);
    // Reset forgets the run: no scale again.
    h.press(app, Key::reset);
    REQUIRE(app.session.steps_run() == 0);
    CHECK(drawn("timeline axis").empty());
  }

  TEST_CASE("clicking the Step button advances and runs the step") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    h.frame(app);
    h.frame(app);
    const float* b = app.vs.step_button;
    REQUIRE(b[2] > b[0]);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2((b[0] + b[2]) / 2, (b[1] + b[3]) / 2);
    h.frame(app);
    io.MouseDown[0] = true;
    h.frame(app);
    io.MouseDown[0] = false;
    h.frame(app);
    CHECK(app.session.position() == 1);
    CHECK(app.session.real_steps_executed() == 1);
  }

  TEST_CASE("changing the algorithm re-plans and re-runs; a bad value is reported, not applied") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    h.frame(app);
    h.press(app, Key::step);
    REQUIRE(app.session.num_steps() == 2);
    app.vs.edit.spec.algorithm = "ring";
    h.frame(app);
    CHECK(app.session.schedule().spec.algorithm == "ring");
    CHECK(app.session.num_steps() == 4);
    CHECK(app.session.position() == 0);
    CHECK(app.vs.error.empty());
    app.vs.edit.data = "1,2;3";  // wrong shape
    h.frame(app);
    CHECK(app.vs.error.find("data") != std::string::npos);
    CHECK(app.session.schedule().spec.algorithm == "ring");  // the last good plan stays
    CHECK(ImGui::GetIO().IniFilename == nullptr);
  }

  TEST_CASE("--step in the compare view ranges over the slider's steps (the longest compared schedule)") {
    // The step-through ring has 2 steps at 3 ranks; naive, tree, ring: 4 at most.
    const auto app = apply({"--view", "compare", "--ranks", "3", "--step", "3"});
    CHECK(app->session.num_steps() == 2);
    CHECK(app->compare.max_steps() == 4);
    CHECK_THROWS_WITH_AS(apply({"--view", "compare", "--ranks", "3", "--step", "5"}),
                         "--step 5 is outside 0..4 (the longest compared schedule has 4 steps)", UsageError);
    CHECK_THROWS_WITH_AS(apply({"--step", "3"}), "--step 3 is outside 0..2 (the schedule has 2 steps)", UsageError);
  }

  TEST_CASE("the compare view without --ranks runs 8 ranks, where naive, tree and ring load the busiest rank differently") {
    const auto app = apply({"--view", "compare"});
    CHECK(app->session.params().spec.world_size == 8);
    REQUIRE(app->compare.sessions.size() == 3);  // naive, tree, ring
    std::vector<int64_t> busiest;
    for (const auto& s : app->compare.sessions) {
      REQUIRE(s);
      busiest.push_back(build_stats(*s, s->num_steps()).busiest_rank_bytes);
    }
    // 8 float32 per rank: naive's root sends and receives 7 x 32 B, the
    // tree's busiest inner node 3 x 32 B each way, ring 14 x 4 B each way.
    CHECK(busiest == std::vector<int64_t>{448, 192, 112});
    // Asked for, 3 ranks stay (naive and tree then tie at 48 B).
    CHECK(apply({"--view", "compare", "--ranks", "3"})->session.params().spec.world_size == 3);
    CHECK(apply({"--ranks", "3"})->session.params().spec.world_size == 3);
  }

  TEST_CASE("the compare view draws each measured point's p10-p90 as an error bar around the median") {
    Headless h;
    App app;
    RunParams p = seed_ring();
    p.spec.world_size = 4;
    p.spec.count = 4;
    p.data = "iota";
    app.vs.edit = p;
    app.vs.view = View::compare;
    h.frame(app);
    REQUIRE(app.compare.sessions.size() == 3);
    app.compare.run_sweep(64, 256, 5, 1);  // 64 B and 256 B, 5 timed iterations each
    REQUIRE(app.compare.sweep.size() == 3);
    app.vs.collect_probes = true;
    app.vs.static_frame = true;
    h.frame(app);
    for (const SweepCurve& c : app.compare.sweep) {
      REQUIRE(c.bytes.size() == 2);
      for (size_t i = 0; i < 2; ++i) {
        CHECK(c.samples[i] == 5);
        CHECK(c.min_us[i] > 0);
        CHECK(c.min_us[i] <= c.p10_us[i]);
        CHECK(c.p10_us[i] <= c.measured_us[i]);
        CHECK(c.measured_us[i] <= c.p90_us[i]);
        CHECK(c.p90_us[i] <= c.max_us[i]);
      }
    }
    // Two caps per point (3 algorithms x 2 sizes), the p90 cap above the p10
    // cap (screen y grows down) in the same column, in the curve's colour.
    int bars = 0;
    for (const Probe& top : app.vs.probes) {
      if (top.what.rfind("error bar p90 ", 0) != 0) continue;
      const std::string at = top.what.substr(14);
      for (const Probe& bottom : app.vs.probes)
        if (bottom.what == "error bar p10 " + at) {
          ++bars;
          CHECK(bottom.x == top.x);
          CHECK(top.y <= bottom.y);
          CHECK(top.color == algorithm_color(at.substr(0, at.find(' '))));
        }
    }
    CHECK(bars == 6);
  }

  TEST_CASE("--lesson finds a bare lesson name where `microddp lesson` does ($MICRODDP_LESSONS)") {
    const std::string name = "02-ring-double-buffering.yaml";
    REQUIRE_FALSE(std::filesystem::exists(name));  // not in the working directory
    const char* old = std::getenv("MICRODDP_LESSONS");
    const std::string saved = old ? old : "";
    setenv("MICRODDP_LESSONS", MICRODDP_SOURCE_DIR "/lessons", 1);
    const auto app = apply({"--lesson", name});
    REQUIRE(app->lesson);
    CHECK(app->lesson->num_beats() == 6);
    // Elsewhere the error names the file as typed.
    const std::string empty = std::filesystem::temp_directory_path() / "microddp-no-lessons";
    std::filesystem::create_directories(empty);
    setenv("MICRODDP_LESSONS", empty.c_str(), 1);
    CHECK_THROWS_AS(apply({"--lesson", name}), UsageError);
    if (old) setenv("MICRODDP_LESSONS", saved.c_str(), 1);
    else unsetenv("MICRODDP_LESSONS");
  }

  TEST_CASE("the compare view steps every column together") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    h.frame(app);
    app.vs.view = View::compare;
    h.frame(app);
    REQUIRE(app.compare.sessions.size() == 3);  // naive, tree, ring
    h.press(app, Key::step);
    CHECK(app.compare.position == 1);
    for (const auto& s : app.compare.sessions) {
      REQUIRE(s);
      CHECK(s->position() == 1);
    }
    CHECK(app.session.position() == 0);  // the step-through session is untouched
  }

  TEST_CASE("the prediction follows the run onto nodes until a source is picked; re-pricing does not re-run") {
    Headless h;
    App app;
    RunParams p = seed_ring();
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.count = 8;
    p.data = "iota";
    app.vs.edit = p;
    h.frame(app);
    CHECK(app.session.source().kind == PredictionSource::Kind::profile);
    app.vs.edit.spec.nodes = 2;  // the nodes control
    h.frame(app);
    CHECK(app.session.source().kind == PredictionSource::Kind::topology);
    CHECK(app.session.prediction().source == "predicted (topology 2x4, intra nvlink, inter infiniband, 1 NIC/node)");
    CHECK(app.compare.source.kind == PredictionSource::Kind::topology);
    // A source picked in the controls stays when the nodes change.
    h.press(app, Key::step);
    const int64_t ran = app.session.real_steps_executed();
    app.vs.source.kind = PredictionSource::Kind::preset;
    app.vs.source.preset = "ethernet-10g";
    app.vs.source_follows_nodes = false;
    h.frame(app);
    CHECK(app.session.prediction().source == "predicted (preset ethernet-10g)");
    CHECK(app.session.position() == 1);  // re-priced, not re-run
    CHECK(app.session.real_steps_executed() == ran);
    app.vs.edit.spec.nodes = 1;
    h.frame(app);
    CHECK(app.session.source().kind == PredictionSource::Kind::preset);
    CHECK(app.vs.error.empty());
  }

  TEST_CASE("a still frame shows the storage letters A / B and, on the step that swapped, the swap marker") {
    Headless h;
    App app;
    app.vs.edit = seed_ring();
    app.vs.static_frame = true;  // as --screenshot draws: no animation
    app.vs.collect_probes = true;
    h.frame(app);
    REQUIRE(app.session.configured());
    // The probes of one still frame at `pos`, by what they mark.
    auto probes_at = [&](int pos) {
      app.session.seek(pos);
      h.frame(app);
      std::map<std::string, Rgba> out;
      for (const Probe& p : app.vs.probes) out[p.what] = p.color;
      return out;
    };
    const Rgba accent = from_hex(assets::kActive);
    for (int pos = 0; pos <= 2; ++pos) {
      INFO("position " << pos);
      const auto pr = probes_at(pos);
      // Step 0 swaps: from position 1 on, send_buff points at storage B.
      const std::string send = pos == 0 ? "A" : "B", recv = pos == 0 ? "B" : "A";
      for (int r = 0; r < 3; ++r) {
        CHECK(pr.count(fmt::format("R{} send_buff storage {}", r, send)) == 1);
        CHECK(pr.count(fmt::format("R{} recv_buff storage {}", r, recv)) == 1);
        CHECK(pr.count(fmt::format("R{} accum storage A", r)) == 0);  // only the double buffer is lettered
        // The marker (its accent-coloured bracket) only on the step that swapped.
        const auto swap = pr.find(fmt::format("R{} swap", r));
        if (pos == 1) {
          REQUIRE(swap != pr.end());
          CHECK(swap->second == accent);
        } else {
          CHECK(swap == pr.end());
        }
      }
    }
  }
}
