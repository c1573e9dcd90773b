// The compare view's sources (app/viz/compare_sources.h): the recorded lab
// run, the model of a named system and the published nccl-tests tables as
// curves with their labels, the errors, and lessons 03 and 12 choosing them
// in the window (headless ImGui, no GL).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "app/viz/compare.h"
#include "app/viz/compare_panel.h"
#include "app/viz/lesson_view.h"
#include "core/labs/lesson/lesson.h"
#include "tests/app/headless.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::string kSrc = MICRODDP_SOURCE_DIR;
const std::string kRecorded = kSrc + "/lessons/data/lab-allreduce-8x1-1gbit.json";
const std::string kA100 = kSrc + "/tests/data/nccl-tests/a100-1x8-allreduce.txt";

RunParams eight_ranks() {
  RunParams p;
  p.spec.algorithm = "ring";
  p.spec.world_size = 8;
  p.spec.count = 8;
  return p;
}

std::vector<std::string> names(const Compare& c) {
  std::vector<std::string> out;
  for (const auto& s : c.sweep) out.push_back(s.algorithm);
  return out;
}

// The A100 table with the out-of-place #wrong of the rows of `sizes` set to 7
// (all rows when `sizes` is empty), as `awk '$1~/^[0-9]+$/{$9="7"}1'`.
NcclTestsTable a100_flagged(const std::vector<int64_t>& sizes) {
  std::ifstream in(kA100);
  std::string text, line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    const bool row = f.size() >= 9 && !f[0].empty() && f[0].find_first_not_of("0123456789") == std::string::npos;
    if (row && (sizes.empty() || std::find(sizes.begin(), sizes.end(), std::stoll(f[0])) != sizes.end())) {
      f[8] = "7";
      line.clear();
      for (const auto& w : f) line += (line.empty() ? "" : " ") + w;
    }
    text += line + "\n";
  }
  return parse_nccl_tests(text, "flagged.txt");
}

bool has_drawn(const App& app, const std::string& what) {
  for (const auto& d : app.vs.compare_drawn)
    if (d.what == what) return true;
  return false;
}

}  // namespace

TEST_SUITE("compare_sources") {
  TEST_CASE("recorded: the bundled lab run as three measured curves with the lab model's lines; ring wins from 256 KiB") {
    Compare cmp;
    cmp.configure(eight_ranks(), {"naive", "tree", "ring"});
    SourceSpec s;
    s.kind = SweepSource::recorded;
    s.file = kRecorded;
    cmp.set_sweep_source(s);
    cmp.start_sweep(kSweepMinBytes, kSweepMaxBytes);
    CHECK_FALSE(cmp.sweeping());
    CHECK(cmp.source_error == "");
    REQUIRE(names(cmp) == std::vector<std::string>{"naive", "tree", "ring"});
    const SweepCurve& ring = cmp.sweep[2];
    REQUIRE(ring.bytes.size() == 7);  // 4 KiB, 16 KiB, ... 16 MiB
    CHECK(ring.bytes.front() == 4096);
    CHECK(ring.bytes.back() == 16777216);
    CHECK(ring.measured_us[4] == doctest::Approx(23897.141));  // 1 MiB, as recorded
    CHECK(ring.samples[4] == 5);
    REQUIRE(ring.predicted_us.size() == 7);
    CHECK(ring.predicted_us[4] == doctest::Approx(15380.064));
    CHECK(cmp.crossover_measured == 3);  // 256 KiB
    CHECK(cmp.crossover == "ring is the fastest from 256 KiB on (recorded), from 4 KiB on (the lab's model)");
    CHECK(cmp.source_label ==
          "Source: RECORDED cluster lab run (8 nodes x 1 rank, NIC 1gbit; all_reduce), measured on AMD EPYC, 2 vCPUs "
          "(lscpu) on 2026-12-07");
    CHECK(cmp.dots_text == "recorded in the cluster lab (lab-allreduce-8x1-1gbit.json)");
    // A new prediction source leaves the recorded curves and their lab model alone.
    PredictionSource ps;
    ps.kind = PredictionSource::Kind::preset;
    ps.preset = "ethernet-10g";
    cmp.set_source(ps);
    CHECK(cmp.sweep[2].predicted_us[4] == doctest::Approx(15380.064));
  }

  TEST_CASE("model: NCCL's lines on a named system, per algorithm or the ring per protocol") {
    const SourceSweep h = model_sweep("dgx-h100", Collective::all_reduce, 8, 64, 256 << 20);
    std::vector<std::string> algs;
    for (const auto& c : h.curves) algs.push_back(c.algorithm);
    CHECK(algs == std::vector<std::string>{"nvls", "ring", "tree"});
    REQUIRE(h.curves[1].bytes.size() == 12);  // 64 B, 256 B, ... 256 MiB
    CHECK(h.curves[1].measured_us.empty());   // a model: lines, no dots
    CHECK(h.curves[1].predicted_us.size() == 12);
    CHECK(h.label == "Source: MODEL of dgx-h100 (8 ranks on 1 node): NCCL 2.30.7's tuning constants, "
                     "as microddp predict --nccl-system dgx-h100 prints them");
    const SourceSweep a = model_sweep("dgx-a100", Collective::all_reduce, 8, 64, 256 << 20, true);
    algs.clear();
    for (const auto& c : a.curves) algs.push_back(c.algorithm);
    CHECK(algs == std::vector<std::string>{"ring LL", "ring LL128", "ring SIMPLE"});
    // Lesson 12's nccl_choice check: RING LL at 64 B on dgx-a100, 15.001 µs.
    CHECK(a.curves[0].predicted_us[0] == doctest::Approx(15.001).epsilon(1e-3));
    // 7 ranks do not fill an 8-GPU node: priced at the system's own 8, and said so.
    const SourceSweep seven = model_sweep("dgx-a100", Collective::all_reduce, 7, 64, 64);
    CHECK(seven.label.find("(7 ranks do not fill its 8-GPU nodes: priced at 8)") != std::string::npos);
    CHECK_THROWS_WITH(model_sweep("dgx-z", Collective::all_reduce, 8, 64, 64),
                      doctest::Contains("unknown NCCL system 'dgx-z'"));
  }

  TEST_CASE("published: the table's out-of-place rows as dots, the tuner's choice on the matching system as the line") {
    const NcclTestsTable t = load_nccl_tests(kA100);
    CHECK(system_for_table(t) == "dgx-a100");
    const SourceSweep s = published_sweep(t, "");
    REQUIRE(s.curves.size() == 1);
    const SweepCurve& c = s.curves[0];
    CHECK(c.algorithm == "published");
    size_t rows = 0;
    for (const auto& r : t.rows) rows += r.out_of_place.present ? 1 : 0;
    CHECK(c.bytes.size() == rows);
    CHECK(c.measured_us.size() == rows);
    CHECK(c.predicted_us.size() == rows);
    for (size_t i = 0; i < c.bytes.size(); ++i)
      if (c.bytes[i] == 64) CHECK(c.measured_us[i] == doctest::Approx(32.01));
    CHECK(s.label == "Source: PUBLISHED nccl-tests table a100-1x8-allreduce.txt (all_reduce_perf, 8 ranks on 1 node of "
                     "NVIDIA A100-SXM4-40GB)");
    CHECK(s.lines == "NCCL's model of dgx-a100 (its choice at each size)");
  }

  TEST_CASE("published: rows nccl-tests flags wrong are left out, as `microddp predict --against`, and said so") {
    const NcclTestsTable t = a100_flagged({64, 1024});
    const SourceSweep s = published_sweep(t, "");
    REQUIRE(s.curves.size() == 1);
    size_t rows = 0;
    for (const auto& r : t.rows) rows += r.out_of_place.present ? 1 : 0;
    CHECK(s.curves[0].bytes.size() == rows - 2);
    CHECK(s.curves[0].bytes.front() == 128);
    CHECK(std::find(s.curves[0].bytes.begin(), s.curves[0].bytes.end(), 1024.0) == s.curves[0].bytes.end());
    CHECK(s.note == "left out 2 rows nccl-tests flags wrong (out-of-place #wrong above 0): 64 B, 1 KiB");
    CHECK(published_sweep(load_nccl_tests(kA100), "").note.empty());
    // Every row flagged: nothing to plot, the error names the file and the rows.
    CHECK_THROWS_WITH(published_sweep(a100_flagged({}), ""),
                      doctest::Contains("flagged.txt: no out-of-place rows to plot (left out 28 rows nccl-tests flags "
                                        "wrong (out-of-place #wrong above 0): 64 B, 128 B,"));
  }

  TEST_CASE("bad sources: a clear error naming the value, no curves, the label says so") {
    CHECK_THROWS_WITH(parse_sweep_source("lan"),
                      "--compare-source 'lan' (expected shm, lab, recorded, model or published)");
    Compare cmp;
    cmp.configure(eight_ranks(), {"naive", "tree", "ring"});
    SourceSpec s;
    s.kind = SweepSource::recorded;
    s.file = "/nonexistent/run.json";
    cmp.set_sweep_source(s);
    cmp.start_sweep(kSweepMinBytes, kSweepMaxBytes);
    CHECK(cmp.sweep.empty());
    CHECK(cmp.source_error == "recorded lab run '/nonexistent/run.json': cannot open it");
    CHECK(cmp.source_label == "Source: recorded: cluster lab run (file) - not available here: recorded lab run "
                              "'/nonexistent/run.json': cannot open it");
    CHECK_THROWS_WITH(parse_lab_record(R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit",
        "collective": "all_reduce", "nodes": 2, "ranks_per_node": 1, "rows": [{"algorithm": "ring", "bytes": 4096}]})",
                                       "x.json"),
                      "x.json: rows[0]: 'time_us' is missing");
    CHECK_THROWS_WITH(parse_lab_record(R"({"date": "d", "machine": "m", "command": "c", "nic": "1gbit",
        "collective": "all_reduce", "nodes": 2, "ranks_per_node": 1, "rows": [{"algorithm": "ring", "bytes": 4096,
        "time_us": 1}, {"algorithm": "bogus", "bytes": 4096, "time_us": 1}]})",
                                       "x.json"),
                      doctest::Contains("x.json: rows[1].algorithm: unknown algorithm 'bogus' for all_reduce "
                                          "(expected one of: "));
    const auto rows = parse_bench_json_lines(
        "cluster: 2 nodes\n# a comment\n{\"algorithm\": \"ring\", \"bytes\": 65536, \"time_us\": 5515.4, "
        "\"predicted_us\": null}\n",
        "lab");
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].bytes == 65536);
    CHECK(rows[0].predicted_us == -1);
  }
}

TEST_SUITE("compare_sources") {
  TEST_CASE("lab: the command it runs, a job's output read back as curves, and a world the lab cannot make") {
    const auto argv = lab_command(Collective::all_reduce, 8, "1gbit", {"naive", "ring"}, 4096, 16 << 20);
    REQUIRE(argv.size() == 25);
    CHECK(std::vector<std::string>(argv.begin() + 1, argv.end()) ==
          std::vector<std::string>{"cluster", "--nodes", "8", "--nic", "1gbit", "--", "bench", "--backend", "mpi",
                                   "--collective", "all_reduce", "--algorithm", "naive,ring", "-b", "4096", "-e",
                                   "16777216", "-f", "4", "-n", "5", "-w", "1", "--json"});
    // A stand-in for `microddp cluster`: what the job prints comes back with its exit status.
    auto job = LabJob::start({"/bin/sh", "-c",
                              "echo 'cluster: 2 nodes'; echo '{\"algorithm\": \"ring\", \"bytes\": 4096, "
                              "\"time_us\": 2000, \"predicted_us\": 1500}'; exit 3"});
    const auto [rc, out] = job->result.get();
    CHECK(rc == 3);
    const auto rows = parse_bench_json_lines(out, "job");
    REQUIRE(rows.size() == 1);
    const SourceSweep s = lab_sweep(rows, 2, "1gbit");
    REQUIRE(s.curves.size() == 1);
    CHECK(s.curves[0].measured_us == std::vector<double>{2000});
    CHECK(s.curves[0].predicted_us == std::vector<double>{1500});
    CHECK(s.label == "Source: measured now in the cluster lab (2 nodes x 1 rank, NIC 1gbit: emulated hosts, TCP over "
                     "tbf-shaped links)");
    Compare cmp;
    RunParams one = eight_ranks();
    one.spec.world_size = 1;
    one.spec.count = 1;
    cmp.configure(one, {"ring"});
    SourceSpec lab;
    lab.kind = SweepSource::lab;
    cmp.set_sweep_source(lab);
    cmp.start_sweep(kLabMinBytes, kLabMaxBytes);
    CHECK_FALSE(cmp.sweeping());
    CHECK(cmp.source_error == "the cluster lab runs 2 to 16 nodes (one rank each); this view has 1 ranks");
  }
}

TEST_SUITE("compare_sources_window") {
  TEST_CASE("the window: a published source fills the area with its labelled plot, no step-through columns") {
    test::Headless h;
    App app;
    app.vs.view = View::compare;
    app.session.configure(eight_ranks());
    app.vs.edit = eight_ranks();
    app.vs.compare_algorithms = {"naive", "tree", "ring"};
    app.compare.configure(eight_ranks(), app.vs.compare_algorithms);
    SourceSpec s;
    s.kind = SweepSource::published;
    s.file = kA100;
    app.compare.set_sweep_source(s);
    app.vs.compare_sweep_requested = true;  // as --compare-source does
    h.frame(app);
    h.frame(app);
    REQUIRE(names(app.compare) == std::vector<std::string>{"published"});
    CHECK(has_drawn(app, "sweep source label"));
    CHECK(has_drawn(app, "sweep axes"));
    CHECK_FALSE(has_drawn(app, "column naive"));
    CHECK(app.compare.source_label.rfind("Source: PUBLISHED nccl-tests table a100-1x8-allreduce.txt", 0) == 0);
  }

  TEST_CASE("lesson 12: beats 1-3, 5, 6 show the published table or NCCL's model, each beat its own") {
    test::Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kSrc + "/lessons/12-nccl-on-real-clusters.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    struct Want {
      int beat;
      SweepSource kind;
      std::vector<std::string> curves;
      size_t points;
      std::string label_start;
    };
    const std::vector<Want> want = {
        {0, SweepSource::published, {"published"}, 0, "Source: PUBLISHED nccl-tests table a100-1x8-allreduce.txt"},
        {1, SweepSource::model, {"ring", "tree"}, 12, "Source: MODEL of dgx-a100 (8 ranks on 1 node)"},
        {2, SweepSource::model, {"ring LL", "ring LL128", "ring SIMPLE"}, 8, "Source: MODEL of dgx-a100 (8 ranks"},  // 256 KiB .. 4 GiB
        {4, SweepSource::model, {"nvls_tree", "ring", "tree"}, 12, "Source: MODEL of dgx-h100 (128 ranks on 16 nodes)"},
        {5, SweepSource::published, {"published"}, 0, "Source: PUBLISHED nccl-tests table h100-2x8-ib-allreduce.txt"},
    };
    for (const Want& w : want) {
      INFO("beat " << w.beat + 1);
      app.lesson->go(w.beat);
      h.frame(app);
      h.frame(app);
      CHECK(app.vs.view == View::compare);
      CHECK(app.compare.sweep_source.kind == w.kind);
      CHECK(names(app.compare) == w.curves);
      if (w.points > 0 && !app.compare.sweep.empty()) CHECK(app.compare.sweep[0].bytes.size() == w.points);
      CHECK(app.compare.source_label.rfind(w.label_start, 0) == 0);
      CHECK(has_drawn(app, "sweep source label"));
    }
    // The short header of a source without dots says its line's crossover
    // (the ring's line is below the tree's everywhere), not "not fastest".
    app.lesson->go(1);
    h.frame(app);
    h.frame(app);
    CHECK(app.compare.crossover == "ring is the fastest from 64 B on (model)");
    CHECK(compare_panel::short_crossover(app.compare) == "ring fastest from 64 B (model)");
    // The published table's line is the model of the system its check names.
    app.lesson->go(5);
    h.frame(app);
    REQUIRE_FALSE(app.compare.sweep.empty());
    CHECK(app.compare.lines_text == "NCCL's model of dgx-h100 (its choice at each size)");
  }

  TEST_CASE("lesson 03: the conclusion's beat shows the recorded lab run, labelled recorded with machine and date") {
    test::Headless h;
    App app;
    app.lesson = std::make_unique<LessonView>(lesson::load_lesson(kSrc + "/lessons/03-naive-tree-ring.yaml"));
    app.vs.edit = beat_target(app.lesson->current()).params;
    const int beat = 9;  // "Measured where the claim holds: on a network."
    REQUIRE(app.lesson->lesson().beats.at(beat).view.source == "recorded");
    app.lesson->go(beat);
    h.frame(app);
    h.frame(app);
    CHECK(app.compare.sweep_source.kind == SweepSource::recorded);
    CHECK(names(app.compare) == std::vector<std::string>{"naive", "tree", "ring"});
    CHECK(app.compare.sweep[2].bytes.size() == 7);
    CHECK(app.compare.crossover_measured == 3);  // 256 KiB
    CHECK(compare_panel::short_crossover(app.compare) == "ring fastest from 256 KiB (4 KiB predicted)");
    const std::string& label = app.compare.source_label;
    CHECK(label.find("RECORDED cluster lab run (8 nodes x 1 rank, NIC 1gbit") != std::string::npos);
    CHECK(label.find("AMD EPYC") != std::string::npos);
    CHECK(label.find("2026-12-07") != std::string::npos);
    CHECK(has_drawn(app, "sweep source label"));
  }
}
