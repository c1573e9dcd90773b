// --present --compare-runs A.json B.json (issue 37): it opened "before step
// 0", links grey, no buffers or timeline. It now opens at the last step,
// each column with its run's buffers (a bar per rank) and timeline (a lane
// per rank) under its topology, inside the column.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/viz/compare.h"
#include "app/viz/options.h"
#include "app/viz/panels.h"
#include "app/viz/view_state.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;
namespace fs = std::filesystem;

TEST_SUITE("compare_runs_strips") {
  TEST_CASE("--present --compare-runs ring and tree on 4 ranks: the last step, buffers and timeline per column") {
    const fs::path dir = fs::temp_directory_path() / ("microddp_strips_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const char* alg : {"ring", "tree"})
      REQUIRE(std::system(fmt::format("{} run --collective all_reduce --algorithm {} --ranks 4 --count 1024 "
                                      "--save-record {}/{}.json > /dev/null 2>&1",
                                      MICRODDP_CLI_BIN, alg, dir.string(), alg)
                              .c_str()) == 0);
    std::vector<std::string> args = {"microddp-viz", "--compare-runs", (dir / "ring.json").string(),
                                     (dir / "tree.json").string(), "--present"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    Options o;
    REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
    test::FontWindow w;
    App app;
    apply_options(app, o);
    app.vs.view = View::compare;
    app.vs.static_frame = true;
    // At the last step: ring's 6 steps and tree's 4 all run.
    CHECK(app.compare.position == 6);
    REQUIRE(app.compare.sessions.size() == 2);
    CHECK(app.compare.sessions[0]->position() == 6);
    CHECK(app.compare.sessions[1]->position() == 4);
    w.frames(app);
    const auto find = [&](const std::string& what) -> const ViewState::Drawn* {
      for (const auto& d : app.vs.compare_drawn)
        if (d.what == what) return &d;
      return nullptr;
    };
    for (const std::string alg : {"A: ring (ring.json)", "B: tree (tree.json)"}) {
      INFO(alg);
      const auto* col = find("column " + alg);
      const auto* buffers = find(alg + " buffers");
      const auto* timeline = find(alg + " timeline");
      REQUIRE(col);
      REQUIRE(buffers);
      REQUIRE(timeline);
      CHECK(buffers->r.inside(col->r));
      CHECK(timeline->r.inside(col->r));
      CHECK(buffers->r.h >= 4 * 10);  // 4 ranks' bars
      CHECK(timeline->r.y > buffers->r.bottom());
      CHECK(timeline->r.h >= 4 * 4);  // 4 lanes
    }
    fs::remove_all(dir);
  }
}
