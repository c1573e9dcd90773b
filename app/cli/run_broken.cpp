#include "app/cli/run_broken.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/labs/lesson/lesson.h"
#include "core/record/data.h"
#include "core/record/record_io.h"

namespace microddp::cli {

namespace {

// "RANK,MAX_US": whole numbers, rank -1..ranks-1, 0..1 s.
DelayHook parse_delay(const std::string& text, int ranks) {
  DelayHook d;
  d.max_delay_us = 0;
  if (text.empty()) return d;
  const size_t comma = text.find(',');
  const auto whole = [&](const std::string& t, long& v) {
    char* end = nullptr;
    v = std::strtol(t.c_str(), &end, 10);
    return !t.empty() && end && *end == '\0';
  };
  long rank = 0, us = 0;
  if (comma == std::string::npos || !whole(text.substr(0, comma), rank) || !whole(text.substr(comma + 1), us))
    throw UsageError(fmt::format("--delay '{}' is not RANK,MAX_US (e.g. -1,300: every rank, up to 300 µs)", text));
  if (rank < -1 || rank >= ranks)
    throw UsageError(fmt::format("--delay '{}': rank {} is outside -1..{} (-1: every rank)", text, rank, ranks - 1));
  if (us < 0 || us > 1000000)
    throw UsageError(fmt::format("--delay '{}': {} µs is outside 0..1000000", text, us));
  d.rank = static_cast<int>(rank);
  d.max_delay_us = static_cast<int>(us);
  return d;
}

}  // namespace

int run_broken(const RunArgs& a, const BrokenArgs& b, const std::optional<std::string>& record_file, bool json) {
  if (a.backend != "threads")
    throw UsageError(fmt::format("--algorithm {} runs on the threads backend only (its delays are the threads "
                                 "transport's), not {}",
                                 a.algorithm, a.backend));
  if (a.mode != "lockstep")
    throw UsageError(fmt::format("--algorithm {} runs in lockstep mode only, not --mode {}", a.algorithm, a.mode));
  if (!a.input_file.empty() || a.protocol != "simple" || a.nodes != 1 || a.counts)
    throw UsageError(fmt::format("--algorithm {} takes --data or --fill, --count, --dtype and --op; not --input, "
                                 "--counts, --protocol or --nodes",
                                 a.algorithm));
  if (b.seeds < 1 || b.seeds > 10000) throw UsageError(fmt::format("--seeds {} is outside 1..10000", b.seeds));
  lesson::Setup s;
  s.collective = a.collective;
  s.algorithm = a.algorithm;
  s.dtype = a.dtype;
  s.op = a.op;
  s.ranks = a.ranks;
  s.in_place = a.in_place;
  s.segments = a.segments;
  s.channels = a.channels;
  s.data = a.data;
  s.fill = a.fill;
  if (a.count) s.count = parse_count_text("--count", *a.count);
  const lesson::Prepared p = lesson::prepare(s);
  if (!p.runnable) throw UsageError(fmt::format("--count {} is too large to run here", p.spec.count));
  const DelayHook d = parse_delay(b.delay, a.ranks);
  const lesson::SeedSearch found = lesson::first_corrupting_seed(p.schedule, p.inputs, d, b.seeds, true);
  const lesson::DelayedRun& run = found.found;
  if (record_file) {
    RunRecord rec;
    rec.spec = p.spec;
    rec.inputs = p.inputs;
    rec.outputs = run.run.outputs;
    rec.trace = run.run.trace;
    rec.broken = a.algorithm;
    if (!b.delay.empty()) rec.delay = RecordDelay{d.rank, d.max_delay_us, run.seed, found.tries};
    save_record(*record_file, rec);
  }
  const std::string verdict = run.corrupted ? fmt::format("MISMATCH: {}", run.why) : "ok: matches the reference";
  if (json) {
    fmt::print("{{\"collective\": \"{}\", \"algorithm\": \"{}\", \"world_size\": {}, \"count\": {}, \"delay_rank\": {}, "
               "\"max_delay_us\": {}, \"seed\": {}, \"tries\": {}, \"seeds\": {}, \"corrupted\": {}}}\n",
               name(p.spec.collective), a.algorithm, p.spec.world_size, p.spec.count, d.rank, d.max_delay_us, run.seed,
               found.tries, b.seeds, run.corrupted ? "true" : "false");
  } else {
    fmt::print("{} · {} (unchecked: the checker rejects it) · {} ranks · count {} · delay up to {} µs on {}\n",
               name(p.spec.collective), a.algorithm, p.spec.world_size, p.spec.count, d.max_delay_us,
               d.rank < 0 ? std::string("every rank") : fmt::format("rank {}", d.rank));
    fmt::print("{}\n{}\n",
               run.corrupted ? fmt::format("seed {} corrupted the outputs ({} of at most {} seeds run)", run.seed,
                                           found.tries, b.seeds)
                             : fmt::format("none of {} seeds corrupted the outputs", found.tries),
               verdict);
  }
  return run.corrupted ? 1 : 0;
}

}  // namespace microddp::cli
