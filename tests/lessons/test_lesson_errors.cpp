// Lessons that cannot load: malformed fixtures (tests/lessons/bad/*.yaml,
// expected message in the first line "# expect: ...") and inputs give
// file:line:column errors; views; files that are not lessons; duplicate
// keys; a ddp block at its maximums.
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
#include "core/labs/lesson/lessons_dir.h"
#include "lessons/lesson_paths.h"

namespace fs = std::filesystem;
// fuzz_lesson.cpp: 0 = loaded, 1 = a LessonError located in `file`; any
// other exception (or an unlocated message, as std::logic_error) propagates.
int lesson_load_outcome(const std::string& text, const std::string& file, std::string* error);
using namespace microddp::lesson;
using namespace microddp::lesson_test;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

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
    CHECK(n == 71);  // 71st: minutes-empty.yaml (loader8)
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
    // A binary file's control byte after a backslash is named \xNN (it was printed raw: "unknown escape character: ").
    try {
      parse_lesson(std::string("a: \"\\\0\"\n", 8), "bin.yaml");
      FAIL("no LessonError");
    } catch (const LessonError& e) {
      CHECK(std::string(e.what()) == "bin.yaml:1:7: not valid YAML: unknown escape character: \\x00");
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
    CHECK(compare_beats == 8);  // and the live lab beat's Compare (lab_recorded.h in the window)
    CHECK(l3.beats[8].view.source == "shm");
    CHECK(l3.beats[9].view.source == "recorded");
    CHECK(l3.beats[9].view.file == (kLessons / "data" / "lab-allreduce-8x1-1gbit.json").lexically_normal().string());
    CHECK(l3.beats[10].kind == Beat::Kind::lab);
    CHECK(l3.beats[10].view.source == "lab");
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

  TEST_CASE("a symlink loop is a UsageError naming the file (exit 2), not a filesystem error") {
    const fs::path dir = fs::temp_directory_path() / fmt::format("microddp-lesson-loop-{}", ::getpid());
    fs::create_directories(dir);
    const std::string a = (dir / "a.yaml").string(), b = (dir / "b.yaml").string();
    fs::create_symlink(b, a);
    fs::create_symlink(a, b);
    const std::string want = "lesson file '" + a + "' cannot be read: Too many levels of symbolic links";
    CHECK_THROWS_WITH_AS(resolve_lesson_file(a), want.c_str(), microddp::UsageError);
    CHECK_THROWS_WITH_AS(load_lesson(a), ("cannot open " + a + ": Too many levels of symbolic links").c_str(),
                         LessonError);
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
