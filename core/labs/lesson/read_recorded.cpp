// A collective beat's `recorded: FILE` (lessons/README.md): a saved run of
// the beat's own setup (core/record/record_io.h), loaded with the lesson and
// matched against the beat, so the window can show that run instead of a new
// one (app/viz/lesson_view.cpp). Errors are LessonErrors at the key.
#include <fmt/format.h>

#include <filesystem>

#include "core/algorithms/registry.h"
#include "core/labs/lesson/read_options.h"

namespace microddp::lesson {

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
  if (!(rec->spec == p.spec))
    c.fail(n, fmt::format("recorded: {} ran {} ranks x {} {} elements ({} {}), but this beat's setup is {} ranks x {} "
                          "{} elements ({} {})",
                          path, rec->spec.world_size, rec->spec.count, name(rec->spec.dtype),
                          name(rec->spec.collective), name(rec->spec.op), p.spec.world_size, p.spec.count,
                          name(p.spec.dtype), name(p.spec.collective), name(p.spec.op)));
  if (!p.inputs.empty() && rec->inputs != p.inputs)
    c.fail(n, fmt::format("recorded: {} holds other inputs than this beat's data", path));
  if (!rec->trace.snapshots)
    c.fail(n, fmt::format("recorded: {} kept no buffer snapshots (record a run of at most 4096 elements per rank)",
                          path));
  if (rec->trace.mode != Mode::lockstep)
    c.fail(n, fmt::format("recorded: {} ran in {} mode; the window steps lockstep runs", path, name(rec->trace.mode)));
  b.recorded_path = path;
  b.recorded_run = std::move(rec);
}

}  // namespace microddp::lesson
