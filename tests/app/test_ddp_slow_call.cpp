// The DDP view's sentence on a collective far slower than its peers
// (slow_call_note, app/viz/ddp_view.h), on hand-made timelines: no run, no
// timing, exact text.
#include <doctest/doctest.h>

#include "app/viz/ddp_view.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

ddp::CommSpan call(int k, int64_t bytes, double b, double e) {
  ddp::CommSpan c;
  c.call = k;
  c.collective = "all_reduce";
  c.what = "bucket " + std::to_string(k);
  c.bucket = k;
  c.bytes = bytes;
  c.begin_ms = b;
  c.end_ms = e;
  return c;
}

// Lesson 07 beat 3's shape: six per-parameter all-reduces, the first one
// slow; rank 0's backward of layer 1 from 0.1 to `bwd_end` ms.
ddp::Result per_param(double first_ms, double bwd_end) {
  ddp::Result r;
  r.options.ranks = 4;
  ddp::IterationTimeline t;
  t.layers.push_back({0, 1, true, 0.1, bwd_end});
  t.comm.push_back(call(0, 64, 0.2, 0.2 + first_ms));
  const int64_t bytes[] = {1024, 64, 1024, 64, 1024};
  double at = 0.2 + first_ms;
  for (int k = 1; k <= 5; ++k, at += 1.0) t.comm.push_back(call(k, bytes[k - 1], at, at + 1.0));
  r.timelines = {t, t};
  return r;
}

}  // namespace

TEST_SUITE("ddp_slow_call") {
  TEST_CASE("a first bucket of 43 ms beside others of 1 ms is named, with what it ran beside") {
    CHECK(slow_call_note(per_param(43, 20), 1, 2, 31.4) ==
          "The all-reduce of bucket 0 took 43.0 ms against a median of 1.0 ms for the other all-reduces, no more "
          "bytes (64 B per rank against a median of 1024 B): it ran beside the ranks' backward (4 worker threads and the "
          "ring's threads on 2 CPUs, load average 31.4 now): thread scheduling, not the link.");
    // After backward: only the machine's other load to blame; no load average known.
    CHECK(slow_call_note(per_param(15, 0.15), 0, 2, -1) ==
          "The all-reduce of bucket 0 took 15.0 ms against a median of 1.0 ms for the other all-reduces, no more "
          "bytes (64 B per rank against a median of 1024 B): its ring's threads waited for the CPUs (2 CPUs): thread "
          "scheduling, not the link.");
  }

  TEST_CASE("nothing to say: within 3x of the others, less than 1 ms over them, or too few peers") {
    CHECK(slow_call_note(per_param(2.9, 20), 0, 2, 1).empty());   // under 3x the median
    ddp::Result tiny = per_param(0.35, 20);                        // 3.5x, but only 0.25 ms over
    for (auto& t : tiny.timelines)
      for (auto& c : t.comm)
        if (c.call > 0) c.end_ms = c.begin_ms + 0.1;
    CHECK(slow_call_note(tiny, 0, 2, 1).empty());
    ddp::Result two = per_param(43, 20);  // one peer only
    for (auto& t : two.timelines) t.comm.resize(2);
    CHECK(slow_call_note(two, 0, 2, 1).empty());
    CHECK(slow_call_note(ddp::Result{}, 0, 2, 1).empty());
  }

  TEST_CASE("a slow call with more bytes than its peers is not called 'no more bytes'") {
    ddp::Result r = per_param(43, 20);
    for (auto& t : r.timelines) t.comm[0].bytes = 4096;
    const std::string s = slow_call_note(r, 0, 2, 1);
    CHECK(s.find("no more bytes") == std::string::npos);
    CHECK(s.find("took 43.0 ms against a median of 1.0 ms for the other all-reduces: it ran beside") != std::string::npos);
  }

  TEST_CASE("an all-gather's bytes are named per shard (lesson 10 b4: 4160 B is a quarter of a 16,640 B layer)") {
    ddp::Result r = per_param(43, 20);
    for (auto& t : r.timelines)
      for (auto& c : t.comm) {
        c.collective = "all_gather";
        c.bytes = 4160;
      }
    CHECK(slow_call_note(r, 0, 2, 1).find(", no more bytes (4160 B per shard against a median of 4160 B): ") !=
          std::string::npos);
  }
}
