// Lessons: every shipped lesson loads and all its checks pass against real
// runs; malformed fixtures (tests/lessons/bad/*.yaml, expected message in
// the first line "# expect: ...") give file:line:column errors; a lesson
// that claims something false fails with expected vs actual.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <variant>

#include <sys/stat.h>
#include <unistd.h>

#include "core/ir/limits.h"
#include "core/ir/reference.h"
#include "core/labs/ddp/ddp.h"
#include "core/labs/lesson/lesson.h"

namespace fs = std::filesystem;
// fuzz_lesson.cpp: 0 = loaded, 1 = a LessonError located in `file`; any
// other exception (or an unlocated message, as std::logic_error) propagates.
int lesson_load_outcome(const std::string& text, const std::string& file, std::string* error);
using namespace microddp::lesson;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path kLessons = fs::path(MICRODDP_SOURCE_DIR) / "lessons";
const fs::path kBad = fs::path(MICRODDP_SOURCE_DIR) / "tests" / "lessons" / "bad";

}  // namespace

TEST_SUITE("lessons") {
  TEST_CASE("the twelve shipped lessons are listed with titles, in order") {
    const auto l = list_lessons(kLessons.string());
    REQUIRE(l.size() == 12);
    const char* files[] = {"01-primitives.yaml",   "02-ring-double-buffering.yaml", "03-naive-tree-ring.yaml",
                           "04-chunked-ring.yaml", "05-alpha-beta.yaml",            "06-reduce-scatter-all-gather.yaml",
                           "07-bucketing-overlap.yaml", "08-hunt-the-hang.yaml",    "09-topology.yaml",
                           "10-fsdp-prefetch.yaml",   "11-what-nccl-does.yaml",        "12-nccl-on-real-clusters.yaml"};
    for (size_t i = 0; i < 12; ++i) {
      CHECK(fs::path(l[i].file).filename() == files[i]);
      CHECK(l[i].title.rfind("(error", 0) == std::string::npos);
    }
  }

  // ddp and hang beats (lessons 07, 08) run in the lesson_ddp suite.
  TEST_CASE("every check of every shipped lesson passes against the real run") {
    int checks = 0;
    for (const auto& info : list_lessons(kLessons.string())) {
      const Lesson l = load_lesson(info.file);
      for (size_t b = 0; b < l.beats.size(); ++b)
        for (const CheckResult& r : l.beats[b].kind == Beat::Kind::collective ? evaluate(l.beats[b])
                                                                              : std::vector<CheckResult>{}) {
          ++checks;
          INFO(info.file, " beat ", b + 1, " ", r.mark.str(), ": ", r.what, ": expected ", r.expected, ", got ",
               r.actual);
          CHECK(r.pass);
        }
    }
    CHECK(checks >= 60);
  }

  TEST_CASE("lesson 02: the seed's 3-rank ring, beat by beat") {
    const Lesson l = load_lesson((kLessons / "02-ring-double-buffering.yaml").string());
    REQUIRE(l.beats.size() == 6);
    const Prepared p = prepare(l.beats[1].setup);
    CHECK(p.schedule.num_steps() == 2);
    CHECK(target_step(l.beats[0].at, p.schedule) == -1);
    CHECK(target_step(l.beats[1].at, p.schedule) == 0);
    CHECK(target_step(l.beats[2].at, p.schedule) == 1);
    REQUIRE(l.beats[1].question);
    CHECK(l.beats[1].question->is_right("3"));
    CHECK(l.beats[1].question->is_right("[8, 10, 12]"));
    CHECK_FALSE(l.beats[1].question->is_right("2"));
    // A typo is not an answer: the terminal asks again.
    CHECK(l.beats[1].question->not_an_answer("2").empty());
    CHECK(l.beats[1].question->not_an_answer(" [5, 7, 9] ").empty());
    CHECK(l.beats[1].question->not_an_answer("7") == "7 is not one of the choices 1-4");
    CHECK(l.beats[1].question->not_an_answer("eight") == "eight is not one of the choices 1-4");
    Question numeric;
    numeric.value = 24;
    CHECK(numeric.not_an_answer("20").empty());
    CHECK(numeric.not_an_answer("2o") == "2o is not a number");
    // The answer as printed: a choice with its text; a number with the
    // decimals its tolerance asks for.
    CHECK(l.beats[1].question->answer_text() == "3) [8, 10, 12]");
    CHECK(numeric.answer_text() == "24");
    numeric.value = 8, numeric.tolerance = 0.1;
    CHECK(numeric.answer_text() == "8.0");
    numeric.value = 43.64, numeric.tolerance = 0.1;
    CHECK(numeric.answer_text() == "43.6");
    numeric.value = 0.002931, numeric.tolerance = 0.0001;
    CHECK(numeric.answer_text() == "0.0029");
    numeric.value = 128, numeric.tolerance = 2;
    CHECK(numeric.answer_text() == "128");
    CHECK(l.beats[1].highlight.links == std::vector<std::pair<int, int>>{{2, 0}});
    CHECK(l.beats[4].setup.algorithm == "single_buffered_ring");
    CHECK(l.beats[4].setup.delay.has_value());
    CHECK(l.beats[5].setup.algorithm == "ring");
    CHECK_FALSE(l.beats[5].setup.delay.has_value());  // "delay: none" clears it
    CHECK(l.beats[5].setup.ranks == 3);               // the rest carries forward
  }
}

TEST_SUITE("lesson_errors") {
  TEST_CASE("malformed fixtures give file:line:column and what was expected") {
    int n = 0;
    for (const auto& e : fs::directory_iterator(kBad)) {
      if (e.path().extension() != ".yaml") continue;
      ++n;
      const std::string text = read(e.path());
      const std::string tag = "# expect: ";
      REQUIRE(text.rfind(tag, 0) == 0);
      const std::string want = text.substr(tag.size(), text.find('\n') - tag.size());
      std::string got = "(no error)";
      try {
        parse_lesson(text, e.path().filename().string());
      } catch (const LessonError& x) {
        got = x.what();
      }
      INFO(e.path().filename().string(), "\n  want: ", want, "\n  got:  ", got);
      CHECK(got.rfind(want, 0) == 0);
    }
    CHECK(n >= 12);
  }

  TEST_CASE("the fuzz harness's rule: any text loads or gives a located LessonError, nothing else") {
    std::vector<std::string> texts;
    for (const fs::path& dir : {kBad, kBad.parent_path() / "corpus", kLessons})
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".yaml") texts.push_back(read(e.path()));
    const std::string l2 = read(kLessons / "02-ring-double-buffering.yaml");
    for (size_t n = 0; n < l2.size(); n += 97) texts.push_back(l2.substr(0, n));
    int loaded = 0, errors = 0;
    for (const auto& t : texts) {
      std::string why;
      int outcome = -1;
      CHECK_NOTHROW(outcome = lesson_load_outcome(t, "fuzz.yaml", &why));
      loaded += outcome == 0;
      errors += outcome == 1;
    }
    CHECK(loaded + errors == static_cast<int>(texts.size()));
    CHECK(loaded >= 8);   // the shipped lessons at least
    CHECK(errors >= 12);  // the bad fixtures at least
  }

  TEST_CASE("malformed inputs give a LessonError with the file name, line and column, and what was expected") {
    struct Case {
      const char* text;
      const char* message;
    };
    const Case cases[] = {
        {"title: t\nsetup: {ranks: 3\nbeats: []\n", "m.yaml:3:6: not valid YAML: end of map flow not found"},
        {"- a\n- b\n", "m.yaml:1:1: a lesson must be a mapping with title, summary, setup and beats"},
        {"title: t\nsetup: {ranks: 3}\nbeats: 3\n", "m.yaml:3:8: 'beats' must be a list ([a, b] or '- ' lines)"},
        {"title: t\nsetup: {ranks: 3}\nbeats:\n  - text: hi\n    at: 9\n",
         "m.yaml:5:9: step 9 does not exist: this run has 4 steps (0..3)"},
        {"title: t\nsetup: {ranks: 3}\nbeats:\n  - text: hi\n    checks:\n      - {check: steps, equals: x}\n",
         "m.yaml:6:32: 'equals' must be an integer, got 'x'"},
        {"\x01\xff\x7f: [\n", "m.yaml:"},
    };
    for (const Case& c : cases) {
      std::string why;
      int outcome = -1;
      CHECK_NOTHROW(outcome = lesson_load_outcome(c.text, "m.yaml", &why));
      INFO("input: ", std::string(c.text), "\n  got: ", why);
      CHECK(outcome == 1);
      CHECK(why.rfind(c.message, 0) == 0);
      // The direct call throws the located type itself.
      CHECK_THROWS_AS(parse_lesson(c.text, "m.yaml"), LessonError);
    }
  }

  TEST_CASE("view: defaults, explicit values, compare settings; a bad value names file:line:column and the values") {
    const Lesson l = parse_lesson(R"(title: t
setup: {ranks: 4, algorithm: ring, count: 8}
ddp: {ranks: 2}
beats:
  - text: a
  - text: b
    view: compare
    compare: {algorithms: [tree, ring], sizes: {min: 1K, max: 32M}}
  - text: c
    view: compare
  - {text: d, view: topology}
  - {kind: ddp, text: e}
  - {kind: ddp, text: f, view: steps}
  - {kind: hang, text: g}
)",
                                  "v.yaml");
    REQUIRE(l.beats.size() == 7);
    CHECK(l.beats[0].view.kind == BeatView::Kind::steps);
    CHECK(l.beats[1].view.kind == BeatView::Kind::compare);
    CHECK(l.beats[1].view.algorithms == std::vector<std::string>{"tree", "ring"});
    CHECK(l.beats[1].view.min_bytes == 1024);
    CHECK(l.beats[1].view.max_bytes == int64_t{32} << 20);
    CHECK(l.beats[2].view.algorithms.empty());  // the window's default columns
    CHECK(l.beats[2].view.min_bytes == 4096);
    CHECK(l.beats[2].view.max_bytes == int64_t{64} << 20);
    CHECK(l.beats[3].view.kind == BeatView::Kind::topology);
    CHECK(l.beats[4].view.kind == BeatView::Kind::ddp);
    CHECK(l.beats[5].view.kind == BeatView::Kind::steps);
    CHECK(l.beats[6].view.kind == BeatView::Kind::steps);
    CHECK(name(BeatView::Kind::topology) == "topology");

    const char* bad = "title: t\nsetup: {ranks: 4, algorithm: ring, count: 8}\nbeats:\n  - text: a\n    view: table\n";
    CHECK_THROWS_WITH_AS(parse_lesson(bad, "v.yaml"),
                         "v.yaml:5:11: 'view' must be one of: steps, compare, topology; got 'table'", LessonError);
    const char* hang_view = "title: t\nbeats:\n  - kind: hang\n    text: a\n    view: steps\n";
    CHECK_THROWS_WITH_AS(parse_lesson(hang_view, "v.yaml"), doctest::Contains("v.yaml:5:5: unknown key 'view' in a hang beat"),
                         LessonError);
    const char* min_max = "title: t\nsetup: {ranks: 4, count: 8}\nbeats:\n  - text: a\n    view: compare\n"
                          "    compare: {sizes: {min: 1M, max: 4K}}\n";
    CHECK_THROWS_WITH_AS(parse_lesson(min_max, "v.yaml"),
                         "v.yaml:6:22: 'min' (1048576 bytes) is above 'max' (4096 bytes)", LessonError);
  }

  TEST_CASE("shipped lessons set the window's views their texts talk about (03, 05, 07, 09, 10)") {
    const Lesson l3 = load_lesson((kLessons / "03-naive-tree-ring.yaml").string());
    int compare_beats = 0;
    for (const Beat& b : l3.beats) {
      if (b.view.kind != BeatView::Kind::compare) continue;
      ++compare_beats;
      CHECK(b.setup.ranks >= 4);
      CHECK(b.view.algorithms == std::vector<std::string>{"naive", "tree", "ring"});
      CHECK(b.view.max_bytes >= int64_t{16} << 20);
    }
    // The model beats, from "which one wins" to the crossover, then the
    // shared-memory result explained and the recorded lab run that checks
    // the conclusion (compare_sources.h).
    CHECK(compare_beats == 7);
    CHECK(l3.beats[8].view.source == "shm");
    CHECK(l3.beats[9].view.source == "recorded");
    CHECK(l3.beats[9].view.file == (kLessons / "data" / "lab-allreduce-8x1-1gbit.json").lexically_normal().string());
    CHECK(l3.beats[10].kind == Beat::Kind::lab);
    CHECK(l3.beats[0].view.kind == BeatView::Kind::steps);
    for (const char* f : {"07-bucketing-overlap.yaml", "10-fsdp-prefetch.yaml"}) {
      const Lesson l = load_lesson((kLessons / f).string());
      int ddp = 0, sharded = 0;
      for (const Beat& b : l.beats)
        if (b.kind == Beat::Kind::ddp) {
          ++ddp;
          sharded += b.ddp.sharded;
          CHECK(b.view.kind == BeatView::Kind::ddp);
        }
      CHECK(ddp >= 3);
      // Lesson 10: prefetch on, prefetch off (sharded), then plain DDP to compare.
      CHECK(sharded == (std::string(f) == "10-fsdp-prefetch.yaml" ? 2 : 0));
    }
    const Lesson l9 = load_lesson((kLessons / "09-topology.yaml").string());
    for (const Beat& b : l9.beats)
      if (b.kind == Beat::Kind::collective) CHECK((b.view.kind == BeatView::Kind::topology) == (b.setup.nodes > 1));
  }

  TEST_CASE("a missing file is a LessonError naming it") {
    CHECK_THROWS_WITH_AS(load_lesson("/nonexistent/x.yaml"), "cannot open /nonexistent/x.yaml: No such file or directory",
                         LessonError);
  }

  TEST_CASE("a directory is a LessonError saying so, not an empty lesson") {
    const std::string dir = fs::temp_directory_path().string();
    const std::string want = dir + " is a directory, not a lesson file (lessons are YAML files such as";
    CHECK_THROWS_WITH_AS(load_lesson(dir), doctest::Contains(want.c_str()), LessonError);
  }

  TEST_CASE("a FIFO or a device is refused by what it is, before it is opened (opening a FIFO would block)") {
    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-lesson-fifo-{}", ::getpid());
    fs::create_directories(dir);
    const std::string fifo = (dir / "x.yaml").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string tail =
        ", not a lesson file (lessons are YAML files such as lessons/01-primitives.yaml; `microddp lesson --list` lists "
        "them)";
    CHECK_THROWS_WITH_AS(load_lesson(fifo), (fifo + " is a FIFO (named pipe)" + tail).c_str(), LessonError);
    CHECK_THROWS_WITH_AS(load_lesson("/dev/zero"), ("/dev/zero is a character device" + tail).c_str(), LessonError);
    // --list loads every *.yaml of the folder: the FIFO is listed as an error.
    const auto listed = list_lessons(dir.string());
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].title == "(error: " + fifo + " is a FIFO (named pipe)" + tail + ")");
    // A symlink to a lesson file is followed and loads.
    const fs::path link = dir / "link.yaml";
    fs::create_symlink(kLessons / "01-primitives.yaml", link);
    CHECK(load_lesson(link.string()).title == load_lesson((kLessons / "01-primitives.yaml").string()).title);
    fs::remove_all(dir);
  }

  TEST_CASE("duplicate keys are refused at the repeat, in any mapping; aliases are not expanded to find them") {
    CHECK_THROWS_WITH_AS(
        parse_lesson("title: t\nsetup: {collective: all_reduce}\nbeats:\n  - text: a\n    text: b\n", "d.yaml"),
        "d.yaml:5:5: duplicate key 'text' in this mapping (first at line 4)", LessonError);
    // The same key in two different mappings is no repeat.
    CHECK_NOTHROW(parse_lesson("title: t\nsetup: {collective: all_reduce}\nbeats:\n  - text: a\n  - text: b\n", "d.yaml"));
    // Nested aliases (a "billion laughs" document): the duplicate check
    // reads events, one per alias; loading then fails on the lesson's own
    // keys, quickly, and without running out of memory.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char k = 'b'; k <= 'k'; ++k)
      bomb += fmt::format("{}: &{} [*{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}, *{}]\n", k, k, char(k - 1), char(k - 1),
                          char(k - 1), char(k - 1), char(k - 1), char(k - 1), char(k - 1), char(k - 1), char(k - 1),
                          char(k - 1));
    CHECK_THROWS_AS(parse_lesson(bomb, "bomb.yaml"), LessonError);
  }

  TEST_CASE("a ddp block at its documented maximums is refused by the memory budget, or runs") {
    // ranks 16, depth 64, width 1024, batch 4096 (lessons/README.md): about
    // 20 GB. Where that is more than the budget, loading refuses it, naming
    // the values; a larger machine loads it.
    const std::string text =
        "title: t\nddp: {ranks: 16, depth: 64, width: 1024, batch: 4096, iterations: 100}\nbeats:\n  - kind: ddp\n"
        "    text: hi\n";
    microddp::ddp::Options o;
    o.ranks = 16;
    o.depth = 64;
    o.width = 1024;
    o.batch = 4096;
    if (o.buffer_bytes() > microddp::memory_budget_bytes()) {
      CHECK_THROWS_WITH_AS(parse_lesson(text, "max.yaml"),
                           doctest::Contains("this ddp run cannot run: ddp with 16 ranks, depth 64, width 1024, batch "
                                             "4096 needs"),
                           LessonError);
    } else {
      CHECK_NOTHROW(parse_lesson(text, "max.yaml"));
    }
  }
}

TEST_SUITE("lesson_checks") {
  TEST_CASE("a false claim fails with expected vs actual and its mark") {
    const Lesson l = parse_lesson(R"(title: wrong
setup: {ranks: 3, algorithm: ring_unchunked, data: "1,2,3;4,5,6;7,8,9"}
beats:
  - at: 0
    text: a lie
    checks:
      - {check: buffer, rank: 0, buffer: accum, step: 0, equals: [5, 7, 9]}
      - {check: bytes, rank: 0, step: 1, equals: 13}
      - {check: steps, equals: 3}
      - {check: predicted, preset: nvlink, seconds: 1}
)", "wrong.yaml");
    const auto r = evaluate(l.beats[0]);
    REQUIRE(r.size() == 4);
    for (const auto& c : r) CHECK_FALSE(c.pass);
    CHECK(r[0].what == "R0 accum after step 0");
    CHECK(r[0].expected == "[5, 7, 9]");
    CHECK(r[0].actual == "[8, 10, 12]");
    CHECK(r[0].mark.str() == "wrong.yaml:7:9");
    CHECK(r[1].actual == "12");
    CHECK(r[2].actual == "2");
  }

  TEST_CASE("the closed-form NVLink and InfiniBand figures (8 ranks, 1 GB ring all-reduce)") {
    const Lesson l = parse_lesson(R"(title: ab
setup: {ranks: 8, algorithm: ring, count: 250000000}
beats:
  - text: numbers
    checks:
      - {check: predicted, preset: nvlink, seconds: 0.0029306667, rel_tol: 0.000001}
      - {check: predicted, preset: infiniband, seconds: 0.070028, rel_tol: 0.000001}
      - {check: ratio, preset: infiniband, over_preset: nvlink, equals: 23.8949, rel_tol: 0.00001}
      - {check: steps, equals: 14}
)", "ab.yaml");
    CHECK_FALSE(prepare(l.beats[0].setup).runnable);
    for (const auto& c : evaluate(l.beats[0])) {
      INFO(c.what, ": expected ", c.expected, ", got ", c.actual);
      CHECK(c.pass);
    }
  }

  TEST_CASE("topology keys: setup nodes, inter/intra/nics_per_node on predictions, nic_bytes") {
    const Lesson l = parse_lesson(R"(title: topo
setup: {ranks: 16, nodes: 2, algorithm: ring, count: 250000000}
beats:
  - text: two nodes of eight
    checks:
      - {check: nic_bytes, preset: nvlink, inter: infiniband, equals: 1.875e9, rel_tol: 0.000001}
      - {check: nic_bytes, preset: nvlink, inter: infiniband, algorithm: hierarchical, equals: 1.0e9,
         rel_tol: 0.000001}
      - {check: predicted, preset: nvlink, inter: infiniband, seconds: 0.07506, rel_tol: 0.00001}
      - {check: ratio, preset: nvlink, intra: nvlink, inter: infiniband, algorithm: ring,
         over_algorithm: hierarchical, equals: 1.7471, rel_tol: 0.0001}
      - {check: faster, preset: nvlink, inter: infiniband, nics_per_node: 8, algorithm: ring, than: naive}
      - {check: predicted, preset: infiniband, seconds: 0.075}
)", "topo.yaml");
    REQUIRE(l.beats.size() == 1);
    CHECK(l.beats[0].setup.nodes == 2);
    CHECK(prepare(l.beats[0].setup).spec.nodes == 2);
    const auto& c = l.beats[0].checks;
    REQUIRE(c.size() == 6);
    const auto& nb = std::get<check::NicBytes>(c[0].claim);
    CHECK(nb.links.inter == "infiniband");
    CHECK(nb.links.intra.empty());  // the preset stands for it
    CHECK(nb.links.nics_per_node == 1);
    CHECK(nb.bytes == 1.875e9);
    CHECK(std::get<check::NicBytes>(c[1].claim).algorithm == "hierarchical");
    CHECK(std::get<check::Ratio>(c[3].claim).links.intra == "nvlink");
    CHECK(std::get<check::Faster>(c[4].claim).links.nics_per_node == 8);
    CHECK(std::get<check::Predicted>(c[5].claim).links.inter.empty());  // the flat model
    const auto r = evaluate(l.beats[0]);
    REQUIRE(r.size() == 6);
    for (size_t i = 0; i < 5; ++i) {
      INFO(r[i].what, ": expected ", r[i].expected, ", got ", r[i].actual);
      CHECK(r[i].pass);
    }
    CHECK(r[0].actual == "1875000000 (node 0 NIC 0 out)");
    CHECK(r[1].actual == "1000000000 (node 0 NIC 0 out)");
    CHECK(r[2].what == "predicted time (nvlink inside, infiniband between 2 nodes, ring, 16 ranks)");
    // The flat model prices every ring link as InfiniBand: 2 × 15 × 2 µs + 1.875 GB / 25 GB/s.
    CHECK(r[5].pass);
    CHECK(r[5].actual == "75.06 ms");
  }

  TEST_CASE("typed answers") {
    Question q;
    q.value = 23.9;
    q.tolerance = 0.1;
    CHECK(q.is_right(" 23.85\n"));
    CHECK_FALSE(q.is_right("30"));
    CHECK_FALSE(q.is_right("23.9x"));
    CHECK_FALSE(q.is_right(""));
  }

  TEST_CASE("the corrupts check's seed search: the one-buffer ring corrupts at the first seed it reports") {
    Setup s;
    s.algorithm = "single_buffered_ring";
    s.data = "1,2,3;4,5,6;7,8,9";
    const Prepared p = prepare(s);
    microddp::DelayHook d;
    d.max_delay_us = 300;
    const SeedSearch found = first_corrupting_seed(p.schedule, p.inputs, d, 30, true);
    REQUIRE(found.found.corrupted);  // lesson 02's claim: with delayed sends, some seed corrupts
    CHECK(found.found.seed == static_cast<uint64_t>(found.tries));  // seeds 1, 2, ... in order
    CHECK(found.tries <= 30);
    CHECK(found.found.why.find("output") != std::string::npos);
    // Recorded: every step's snapshots, and the outputs differ from [12, 15, 18].
    CHECK(found.found.run.trace.steps.size() == 2);
    REQUIRE(found.found.run.outputs.size() == 3);
    const microddp::RankData want = microddp::reference_outputs(p.spec, p.inputs);
    CHECK(found.found.run.outputs != want);
    // The double-buffered ring never corrupts: every seed runs, the last is kept.
    Setup ok = s;
    ok.algorithm = "ring_unchunked";
    const Prepared q = prepare(ok);
    const SeedSearch none = first_corrupting_seed(q.schedule, q.inputs, d, 5, false);
    CHECK(none.tries == 5);
    CHECK_FALSE(none.found.corrupted);
    CHECK(none.found.seed == 5);
    CHECK(none.found.why == "");
    CHECK(none.found.run.outputs == microddp::reference_outputs(q.spec, q.inputs));
  }
}

TEST_SUITE("lesson_lab") {
  const char* kHead = "title: t\nsetup: {ranks: 3}\nlab: {nic: 100mbit, bytes: 4M, iters: 5}\nbeats:\n";

  TEST_CASE("lesson 09's lab beats: requests merged from the lesson's lab:, named runs, measured_ratio claims") {
    const Lesson l = load_lesson((kLessons / "09-topology.yaml").string());
    std::vector<const Beat*> lab;
    for (const Beat& b : l.beats)
      if (b.kind == Beat::Kind::lab) lab.push_back(&b);
    REQUIRE(lab.size() == 4);
    CHECK(lab[0]->name == "one_node");
    CHECK(lab[0]->lab.nodes == 1);
    CHECK(lab[0]->lab.ranks_per_node == 2);
    CHECK(lab[1]->lab.nodes == 2);
    CHECK(lab[1]->lab.ranks_per_node == 1);
    CHECK(lab[2]->lab.nodes == 4);
    CHECK(lab[3]->lab.ranks_per_node == 4);
    CHECK(lab[3]->lab.algorithms == std::vector<std::string>{"ring", "hierarchical"});
    for (const Beat* b : lab) {
      CHECK(b->lab.nic == "100mbit");
      CHECK(b->lab.bytes == 4194304);
      CHECK(b->lab.iters == 5);
    }
    const auto& across = std::get<check::MeasuredRatio>(lab[2]->checks.at(0).claim);
    CHECK(across.over_run == "two_nodes");
    CHECK(across.algorithm == "ring");
    CHECK(across.over_algorithm == "ring");
    CHECK(across.greater_than == 1.2);
    CHECK(across.less_than == 2.0);
    const auto& hier = std::get<check::MeasuredRatio>(lab[3]->checks.at(0).claim);
    CHECK(hier.over_algorithm == "hierarchical");
    CHECK(hier.over_run.empty());
    CHECK(std::isnan(hier.less_than));
  }

  TEST_CASE("the model's price of a lab run: 2 × 1 ring, 4 MiB at 100 Mbit/s") {
    LabRequest q;
    q.nodes = 2;
    q.ranks_per_node = 1;
    // Two steps of S/2 = 2 MiB through the NIC, α = 50 µs each, and one
    // reduction of 2 MiB at 8 GB/s: 2 × (50e-6 + 2097152 × 8 / 1e8) + 2097152 / 8e9.
    CHECK(predict_lab(q, "ring") == doctest::Approx(2 * (50e-6 + 2097152 * 8 / 1e8) + 2097152 / 8e9).epsilon(1e-9));
    q.nodes = 4;
    const double four = predict_lab(q, "ring");
    q.nodes = 2;
    CHECK(four / predict_lab(q, "ring") == doctest::Approx(1.5).epsilon(0.01));  // 2(N−1)/N: 1 -> 1.5
    q.ranks_per_node = 4;
    CHECK(predict_lab(q, "ring") / predict_lab(q, "hierarchical") == doctest::Approx(1.74).epsilon(0.01));
    q.nic = "fast";
    CHECK_THROWS_WITH_AS(q.nic_bps(), "nic 'fast' is not a rate such as 100mbit (units: kbit, mbit, gbit)", microddp::UsageError);
  }

  TEST_CASE("bad lab keys give file:line:column and what was expected") {
    struct Case {
      std::string body, message;
    };
    const Case cases[] = {
        {"  - {kind: lab, text: x, lab: {nodez: 2}}\n",
         "m.yaml:5:32: unknown key 'nodez' in lab (expected one of: nodes, ranks_per_node, nic, collective, "
         "algorithms, bytes, iters)"},
        {"  - {kind: lab, text: x, lab: {nic: fast}}\n",
         "m.yaml:5:37: 'nic' must be a rate such as 100mbit (units: kbit, mbit, gbit); got 'fast'"},
        {"  - {kind: lab, text: x, lab: {nic: 200gbit}}\n", "m.yaml:5:37: 'nic' must be between 1mbit and 100gbit, got '200gbit'"},
        {"  - {kind: lab, text: x, lab: {bytes: 6}}\n",
         "m.yaml:5:39: 'bytes' must be a multiple of 4 from 4 to 64M (K, M = powers of 1024); got '6'"},
        {"  - {kind: lab, text: x, lab: {nodes: 9}}\n", "m.yaml:5:39: 'nodes' must be"},
        {"  - {kind: lab, text: x, lab: {algorithms: [nope]}}\n", "m.yaml:5:31: this lab run cannot run nope: "},
        {"  - {kind: lab, text: x, at: end}\n", "m.yaml:5:26: unknown key 'at' in a lab beat (expected one of: kind, "
                                                  "name, lab, text, question, checks, minutes)"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_algorithm: ring, greater_than: 2}]}\n",
         "m.yaml:5:75: 'over_algorithm' is the same as 'algorithm': the ratio would be 1"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_run: a, greater_than: 2}]}\n",
         "m.yaml:5:69: 'over_run' must name an earlier lab beat (named so far: none); got 'a'"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, over_algorithm: tree}]}\n",
         "m.yaml:5:68: a 'measured_ratio' check needs 'greater_than: X' and/or 'less_than: Y'"},
        {"  - {kind: lab, text: x, checks: [{check: measured_ratio, over_algorithm: tree, greater_than: 2}]}\n",
         "m.yaml:5:75: 'over_algorithm' must be one of the lab run's algorithms (ring); got 'tree'"},
        {"  - {kind: lab, text: x, lab: {algorithms: [ring, tree]}, checks: [{check: measured_ratio, "
         "over_algorithm: tree, greater_than: 2, less_than: 1}]}\n",
         "m.yaml:5:142: 'less_than' (1) must be above 'greater_than' (2)"},
        {"  - {kind: lab, text: x, checks: [{check: steps, equals: 2}]}\n",
         "m.yaml:5:43: a 'steps' check belongs in a collective beat (kind: collective); this is a lab beat (its "
         "checks: measured_ratio)"},
        {"  - {text: x, checks: [{check: measured_ratio, over_algorithm: ring, greater_than: 2}]}\n",
         "m.yaml:5:32: a 'measured_ratio' check belongs in a lab beat (kind: lab)"},
    };
    for (const Case& c : cases) {
      std::string got = "(no error)";
      try {
        parse_lesson(std::string(kHead) + c.body, "m.yaml");
      } catch (const LessonError& x) {
        got = x.what();
      }
      INFO("input: ", c.body, "\n  want: ", c.message, "\n  got:  ", got);
      CHECK(got.rfind(c.message, 0) == 0);
    }
  }

  TEST_CASE("skip path: without the lab every lab check is skipped, not failed; a failed lab run fails them") {
    const Lesson l = parse_lesson(std::string(kHead) +
                                      "  - {kind: lab, name: two, lab: {nodes: 2}, text: x}\n"
                                      "  - kind: lab\n"
                                      "    lab: {nodes: 4}\n"
                                      "    text: y\n"
                                      "    checks: [{check: measured_ratio, over_run: two, greater_than: 1.2, less_than: 2}]\n"
                                      "  - kind: lab\n"
                                      "    lab: {nodes: 2, ranks_per_node: 4, algorithms: [ring, hierarchical]}\n"
                                      "    text: z\n"
                                      "    checks: [{check: measured_ratio, over_algorithm: hierarchical, greater_than: 1.3}]\n",
                                  "m.yaml");
    REQUIRE(l.beats.size() == 3);
    const Beat& four = l.beats[1];
    const Beat& hier = l.beats[2];
    // No runner (the window, the test suite): skipped, saying why.
    for (const Beat* b : {&four, &hier}) {
      const auto r = evaluate(*b);
      REQUIRE(r.size() == 1);
      CHECK(r[0].skipped);
      CHECK_FALSE(r[0].pass);
      CHECK(r[0].actual == "skipped: this viewer does not start the cluster lab");
    }
    // A runner that says the lab cannot run here (microddp cluster's exit 2).
    const LabRunner unavailable = [](const LabRequest&) {
      LabRun r;
      r.reason = "cluster lab: needs root or unprivileged user namespaces";
      return r;
    };
    std::map<std::string, LabRun> runs{{"two", run_lab(unavailable, l.beats[0].lab)}};
    auto r = evaluate(hier, run_lab(unavailable, hier.lab), runs);
    CHECK(r.at(0).skipped);
    CHECK(r[0].actual == "skipped: cluster lab: needs root or unprivileged user namespaces");
    // This run made, the one it compares with not: still skipped.
    const LabRunner fake = [](const LabRequest& q) {
      LabRun r;
      r.status = LabRun::Status::ok;
      for (const auto& a : q.algorithms)
        // ring: 0.45 s on 2 × 1, 0.65 s on 4 × 1, 0.7 s on 2 × 4; hierarchical 0.4 s.
        r.rows.push_back({a, a == "hierarchical" ? 0.4 : 0.25 + 0.1 * q.nodes + (q.ranks_per_node > 1 ? 0.25 : 0), 0, 0});
      return r;
    };
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK(r.at(0).skipped);
    CHECK(r[0].actual == "skipped: run 'two': cluster lab: needs root or unprivileged user namespaces");
    // Both made: decided on the medians, the model's ratio beside them.
    runs["two"] = run_lab(fake, l.beats[0].lab);
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK_FALSE(r.at(0).skipped);
    CHECK(r[0].pass);
    CHECK(r[0].what == "measured ring on 4×1 over ring in run 'two'");
    CHECK(r[0].expected == "between 1.2 and 2");
    CHECK(r[0].actual.rfind("1.44 (0.650 s / 0.450 s, medians; model 1.5", 0) == 0);
    r = evaluate(hier, run_lab(fake, hier.lab), runs);
    CHECK(r.at(0).pass);
    CHECK(r[0].actual.rfind("1.75 (0.700 s / 0.400 s, medians; model 1.7", 0) == 0);
    // The same medians against a bound they miss.
    runs["two"].rows[0].seconds = 0.3;
    r = evaluate(four, run_lab(fake, four.lab), runs);
    CHECK_FALSE(r.at(0).pass);
    CHECK_FALSE(r[0].skipped);
    CHECK(r[0].actual.rfind("2.17 (0.650 s / 0.300 s", 0) == 0);
    // A run that broke is a failure, not a skip.
    const LabRunner throws = [](const LabRequest&) -> LabRun { throw std::runtime_error("mpirun: rank 3 died"); };
    r = evaluate(hier, run_lab(throws, hier.lab), runs);
    CHECK_FALSE(r.at(0).skipped);
    CHECK_FALSE(r[0].pass);
    CHECK(r[0].actual == "the lab run failed: mpirun: rank 3 died");
  }
}
