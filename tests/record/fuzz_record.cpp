// libFuzzer target for the record loader (`microddp-viz --replay FILE`): any
// byte string must either load or throw UsageError naming the field; a
// record that loads must be safe to index the way the viewer does (every
// event's step, op, peer, storage and range, every snapshot's storage and
// size, against the schedule rebuilt from its spec). Anything else (another
// exception, a crash, a sanitizer report, a hang) is a bug. Built with clang
// -fsanitize=fuzzer when clang++ is present (tests/CMakeLists.txt); the seed
// corpus in tests/record/corpus was written by `microddp run --save-record`.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/algorithms/registry.h"
#include "core/record/record_io.h"

using namespace microddp;

namespace {
volatile int64_t sink;  // keeps the reads below from being optimised away
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  RunRecord r;
  try {
    r = record_from_json(text, "fuzz.json");
  } catch (const UsageError&) {
    return 0;
  }
  const Schedule s = make_schedule(r.spec);
  const int n = r.spec.world_size;
  int64_t acc = 0;
  for (int q = 0; q < n; ++q) {
    const RankLayout lay = rank_layout(s, q);
    for (const Event& e : r.trace.events.at(q)) {
      const Op& op = s.steps.at(e.step).ranks.at(q).at(e.op_index);
      acc += op.len + e.len + (e.peer >= 0 ? r.trace.bytes_sent.at(e.peer) : 0);
      if (e.storage >= 0) acc += lay.storage_size.at(e.storage);
    }
    for (const auto& rec : {r.trace.initial.at(q)})
      for (const auto& b : rec.buffers) acc += lay.storage_size.at(b.storage) + static_cast<int64_t>(b.values.size());
    for (const auto& row : r.trace.steps) acc += static_cast<int64_t>(row.at(q).buffers.size());
  }
  sink = acc;
  return 0;
}
