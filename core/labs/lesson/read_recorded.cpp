// A collective beat's `recorded: FILE` (lessons/README.md): a saved run of
// the beat's own setup (core/record/record_io.h), loaded with the lesson and
// matched against the beat, so the window can show that run instead of a new
// one (app/viz/lesson_view.cpp). Errors are LessonErrors at the key.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/labs/lesson/read_options.h"

namespace microddp::lesson {

namespace {

// "3 ranks x 3 float32 elements (all_reduce sum)".
std::string shape(const CollectiveSpec& s) {
  return fmt::format("{} ranks x {} {} elements ({} {})", s.world_size, s.count, name(s.dtype), name(s.collective),
                     name(s.op));
}

// The fields `shape` does not show that differ: "in_place: the record
// true, the beat false; segments: the record 2, the beat 1".
std::string differences(const CollectiveSpec& rec, const CollectiveSpec& beat) {
  std::vector<std::string> d;
  const auto add = [&](const char* field, const auto& r, const auto& b) {
    if (!(r == b)) d.push_back(fmt::format("{}: the record {}, the beat {}", field, r, b));
  };
  add("algorithm", rec.algorithm, beat.algorithm);
  add("counts", fmt::format("[{}]", fmt::join(rec.counts, ", ")), fmt::format("[{}]", fmt::join(beat.counts, ", ")));
  add("root", rec.root, beat.root);
  add("in_place", rec.in_place, beat.in_place);
  add("segments", rec.segments, beat.segments);
  add("channels", rec.channels, beat.channels);
  add("nodes", rec.nodes, beat.nodes);
  std::string out;
  for (const auto& x : d) out += (out.empty() ? "" : "; ") + x;
  return out.empty() ? std::string("another spec") : out;
}

}  // namespace

void read_recorded(const yaml::Ctx& c, const YAML::Node& n, Beat& b, const Prepared& p) {
  const std::string f = yaml::str(c, n, "recorded");
  if (f.empty()) c.fail(n, "'recorded' is empty: give a record file (e.g. data/NAME.json, next to the lesson)");
  const std::string path = yaml::data_file(c, n, f);
  auto rec = std::make_shared<RunRecord>();
  try {
    *rec = load_record(path);
  } catch (const UsageError& e) {
    c.fail(n, fmt::format("recorded: {}", e.what()));
  }
  // The run must be this beat's: the same spec, form and inputs.
  const bool broken = broken_variant_of(b.setup.algorithm) != nullptr;
  const std::string form = rec->broken.empty() ? rec->spec.algorithm : rec->broken;
  if (form != b.setup.algorithm || (broken && rec->broken.empty()))
    c.fail(n, fmt::format("recorded: {} ran algorithm {}, but this beat's setup runs {}", path, form, b.setup.algorithm));
  if (!(rec->spec == p.spec)) {
    const std::string ran = shape(rec->spec), beat = shape(p.spec);
    if (ran != beat)
      c.fail(n, fmt::format("recorded: {} ran {}, but this beat's setup is {}", path, ran, beat));
    c.fail(n, fmt::format("recorded: {} ran {} as this beat's setup does, but {}", path, ran,
                          differences(rec->spec, p.spec)));
  }
  // How it ran must be the beat's too: a record of other send delays or of
  // another protocol would be drawn as if it were this beat's run.
  const auto delay_text = [](int rank, int max_us) {
    return fmt::format("{{rank: {}, max_delay_us: {}}}", rank, max_us);
  };
  const std::string rec_delay = rec->delay ? delay_text(rec->delay->rank, rec->delay->max_delay_us) : "none";
  const std::string beat_delay = b.setup.delay ? delay_text(b.setup.delay->rank, b.setup.delay->max_delay_us) : "none";
  if (rec_delay != beat_delay)
    c.fail(n, fmt::format("recorded: {} ran with delay {}, but this beat's setup has delay {}", path, rec_delay, beat_delay));
  // A lesson's setup has no protocol key: its runs are simple (RunOptions' default).
  if (rec->trace.protocol != Protocol::simple)
    c.fail(n, fmt::format("recorded: {} ran protocol {}, but this beat's setup runs protocol {} (a lesson's runs are "
                          "simple)",
                          path, name(rec->trace.protocol), name(Protocol::simple)));
  if (!p.inputs.empty() && rec->inputs != p.inputs)
    c.fail(n, fmt::format("recorded: {} holds other inputs than this beat's data", path));
  if (!rec->trace.snapshots)
    c.fail(n, fmt::format("recorded: {} kept no buffer snapshots (record a run of at most 4096 elements per rank)",
                          path));
  if (rec->trace.mode != Mode::lockstep)
    c.fail(n, fmt::format("recorded: {} ran in {} mode; the window steps lockstep runs", path, name(rec->trace.mode)));
  // A record edited by hand, or from a broken recorder, may contradict
  // itself; the window would show it as a real run.
  if (const std::string why = record_contradiction(*rec); !why.empty())
    c.fail(n, fmt::format("recorded: {} contradicts its own snapshots: {}", path, why));
  b.recorded_path = path;
  b.recorded_run = std::move(rec);
}

}  // namespace microddp::lesson
