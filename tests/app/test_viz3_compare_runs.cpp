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
#include "app/viz/describe.h"
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

  TEST_CASE("two records of different problems: a warning above the columns and in --describe, which names the collectives") {
    RunRecord a, b;
    a.spec.collective = Collective::all_reduce;
    a.spec.algorithm = "ring";
    a.spec.world_size = 4;
    b.spec = a.spec;
    b.spec.algorithm = "tree";
    b.spec.count = 4096;
    CHECK(compare_runs_differ(a, b).empty());  // other algorithm, other size: what a comparison is for
    b.spec.collective = Collective::all_gather;
    b.spec.world_size = 3;
    CHECK(compare_runs_differ(a, b) == "A and B differ: collective all_reduce vs all_gather, world size 4 vs 3");

    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-viz3-differ-{}", ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string cli = MICRODDP_CLI_BIN;
    REQUIRE(std::system(fmt::format("{} run --algorithm ring --ranks 4 --count 8 --save-record {}/a.json > /dev/null 2>&1",
                                    cli, dir.string()).c_str()) == 0);
    REQUIRE(std::system(fmt::format("{} run --collective all_gather --algorithm ring --ranks 3 --count 8 --save-record "
                                    "{}/b.json > /dev/null 2>&1",
                                    cli, dir.string()).c_str()) == 0);
    Options o;
    o.compare_runs = {(dir / "a.json").string(), (dir / "b.json").string()};
    test::Headless h;
    App app;
    apply_options(app, o);
    CHECK(app.compare.runs_warning == "A and B differ: collective all_reduce vs all_gather, world size 4 vs 3");
    app.vs.view = View::compare;
    for (int i = 0; i < 3; ++i) h.frame(app);
    const auto* warning = find_drawn(app.vs.compare_drawn, "runs warning");
    REQUIRE(warning != nullptr);
    CHECK(warning->r.h >= 13.f);
    const auto* area = find_drawn(app.vs.compare_drawn, "area");
    REQUIRE(area != nullptr);
    CHECK(warning->r.y + warning->r.h <= area->r.y + 1);  // above the columns
    const std::string d = describe_picture(app);
    INFO(d);
    CHECK(d.find("compare run: A: all_reduce ring · 4 ranks · 32 B per rank (8 float32) · a.json\n") != std::string::npos);
    CHECK(d.find("compare run: B: all_gather ring · 3 ranks · 32 B per rank (8 float32) · b.json\n") != std::string::npos);
    CHECK(d.find("warning: A and B differ: collective all_reduce vs all_gather, world size 4 vs 3\n") != std::string::npos);
    // Configured anew from the controls: the warning goes with the records.
    app.compare.configure(app.vs.edit, {"ring", "tree"});
    CHECK(app.compare.runs_warning.empty());
    fs::remove_all(dir);
  }
}
