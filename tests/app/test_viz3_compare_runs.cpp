// --compare-runs A.json B.json (present_compare.cpp): each column is titled
// by its run: letter, collective and algorithm, ranks, bytes per rank and
// the file's name, drawn at the column's top in the window. The columns
// were unlabelled (only the live caption "all_reduce ring - step 0").
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/headless.h"
#include "app/viz/options.h"
#include "app/viz/present.h"
#include "app/viz/view_state.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
namespace fs = std::filesystem;

const ViewState::Drawn* find_drawn(const std::vector<ViewState::Drawn>& v, const std::string& what) {
  for (const auto& d : v)
    if (d.what == what) return &d;
  return nullptr;
}
}  // namespace

TEST_SUITE("viz3_compare_runs") {
  TEST_CASE("compare_run_title: letter, collective and algorithm, ranks (nodes), bytes per rank, file name") {
    RunRecord r;
    r.spec.collective = Collective::all_reduce;
    r.spec.algorithm = "ring";
    r.spec.world_size = 4;
    r.spec.count = 16;
    r.spec.dtype = DType::float32;
    CHECK(compare_run_title('A', r, "/tmp/x/a.json") == "A: all_reduce ring · 4 ranks · 64 B per rank (16 float32) · a.json");
    r.spec.algorithm = "hierarchical";
    r.spec.world_size = 8;
    r.spec.nodes = 2;
    r.spec.count = 65536;
    CHECK(compare_run_title('B', r, "runs/b.json") ==
          "B: all_reduce hierarchical · 8 ranks on 2 nodes · 256 KiB per rank (65536 float32) · b.json");
  }

  TEST_CASE("two records: both columns drawn with their titles, inside their columns") {
    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-viz3-runs-{}", ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string cli = MICRODDP_CLI_BIN;
    REQUIRE(std::system(fmt::format("{} run --algorithm ring --ranks 4 --count 16 --save-record {}/a.json > /dev/null 2>&1",
                                    cli, dir.string()).c_str()) == 0);
    REQUIRE(std::system(fmt::format("{} run --algorithm tree --ranks 4 --count 1024 --save-record {}/b.json > /dev/null 2>&1",
                                    cli, dir.string()).c_str()) == 0);
    Options o;
    o.compare_runs = {(dir / "a.json").string(), (dir / "b.json").string()};
    o.present = true;
    test::Headless h;
    App app;
    apply_options(app, o);
    const Compare& c = app.compare;
    REQUIRE(c.sessions.size() == 2);
    CHECK(c.titles == std::vector<std::string>{"A: all_reduce ring · 4 ranks · 64 B per rank (16 float32) · a.json",
                                               "B: all_reduce tree · 4 ranks · 4 KiB per rank (1024 float32) · b.json"});
    app.vs.view = View::compare;
    for (int i = 0; i < 3; ++i) h.frame(app);
    for (const std::string col : {"A: ring (a.json)", "B: tree (b.json)"}) {
      INFO(col);
      const auto* column = find_drawn(app.vs.compare_drawn, "column " + col);
      const auto* title = find_drawn(app.vs.compare_drawn, col + " title");
      REQUIRE(column != nullptr);
      REQUIRE(title != nullptr);
      CHECK(title->r.inside(column->r));
      CHECK(title->r.h >= 13.f);  // a line of text at least
    }
    // Configured anew from the controls: the titles go with the records.
    app.compare.configure(app.vs.edit, {"ring", "tree"});
    CHECK(app.compare.titles.empty());
    fs::remove_all(dir);
  }
}
