// The byte format of a rank's share of an MPI run (core/exec/mpi/wire.h),
// without mpirun: a real share (from a threads run of the same schedule)
// round-trips, and truncated or corrupted copies of it throw WireError
// naming the sender, the field and the sizes instead of reading past the
// end or allocating what a corrupted count says.
#include <doctest/doctest.h>

#include <cstring>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/exec/mpi/wire.h"
#include "core/record/data.h"

using namespace microddp;
using namespace microddp::wire;

namespace {
struct Fixture {
  Schedule s;
  RunResult run;
  Fixture() {
    CollectiveSpec sp;
    sp.collective = Collective::all_reduce;
    sp.algorithm = "ring";
    sp.world_size = 3;
    sp.count = 6;
    sp.dtype = DType::float32;
    s = make_schedule(sp);
    run = run_threads(s, parse_data(sp, "1,2,3,4,5,6;7,8,9,10,11,12;13,14,15,16,17,18"), RunOptions{});
  }
  std::vector<std::byte> share(int rank, bool record) const {
    ClockEntry c;
    c.offset = 5;
    c.error = 2;
    return encode_share(s, rank, 1234, c, run.outputs[rank], record ? &run.trace : nullptr);
  }
};

// Offsets in a share (wire.h): end_ns, ClockEntry, then the output count.
constexpr size_t kOutputCount = 8 + sizeof(ClockEntry);
constexpr size_t kOutputBytes = 6 * 4;  // 6 float32
constexpr size_t kEventCount = kOutputCount + 8 + kOutputBytes;

void poke(std::vector<std::byte>& b, size_t at, int64_t v) { std::memcpy(b.data() + at, &v, sizeof v); }
}  // namespace

TEST_SUITE("wire") {
  TEST_CASE("a share round-trips: outputs, clock, events and step records as sent") {
    const Fixture f;
    REQUIRE(f.run.trace.snapshots);
    const auto blob = f.share(1, true);
    CHECK(static_cast<int64_t>(blob.size()) <= max_share_bytes(f.s, 1, true));
    const RankShare got = decode_share(blob, f.s, 1, true);
    CHECK(got.end_ns == 1234);
    CHECK(got.clock.offset == 5);
    CHECK(got.clock.error == 2);
    CHECK(got.outputs == f.run.outputs[1]);
    REQUIRE(got.events.size() == f.run.trace.events[1].size());
    size_t ops = 0;  // one event per op of rank 1's program
    for (const auto& st : f.s.steps) ops += st.ranks[1].size();
    CHECK(ops == 10u);
    CHECK(got.events.size() == ops);
    for (size_t i = 0; i < got.events.size(); ++i) {
      CHECK(got.events[i].step == f.run.trace.events[1][i].step);
      CHECK(got.events[i].begin_ns == f.run.trace.events[1][i].begin_ns);
    }
    REQUIRE(got.steps.size() == static_cast<size_t>(f.s.num_steps()));
    for (int st = 0; st < f.s.num_steps(); ++st) {
      REQUIRE(got.steps[st].buffers.size() == f.run.trace.steps[st][1].buffers.size());
      for (size_t b = 0; b < got.steps[st].buffers.size(); ++b)
        CHECK(got.steps[st].buffers[b].values == f.run.trace.steps[st][1].buffers[b].values);
    }
    // Without record: only end time, clock and outputs.
    const auto small = f.share(1, false);
    CHECK(small.size() == kEventCount);
    CHECK(decode_share(small, f.s, 1, false).outputs == f.run.outputs[1]);
  }

  TEST_CASE("a truncated share names the field, the offset and both sizes") {
    const Fixture f;
    const auto blob = f.share(2, true);
    CHECK_THROWS_WITH_AS(decode_share(std::vector<std::byte>(blob.begin(), blob.begin() + 4), f.s, 2, true),
                         "rank 2's results: the end time needs 8 bytes at offset 0 but the buffer has 4", WireError);
    CHECK_THROWS_WITH_AS(decode_share(std::vector<std::byte>(blob.begin(), blob.begin() + kOutputCount + 8 + 10), f.s,
                                      2, true),
                         "rank 2's results: the output size in bytes needs 24 bytes at offset 56 but the buffer has 66",
                         WireError);
    // Every shorter prefix fails cleanly, none reads past its end.
    for (size_t n = 0; n < blob.size(); ++n) {
      CAPTURE(n);
      CHECK_THROWS_AS(decode_share(std::vector<std::byte>(blob.begin(), blob.begin() + n), f.s, 2, true), WireError);
    }
  }

  TEST_CASE("corrupted counts are refused before anything is allocated or indexed") {
    const Fixture f;
    auto blob = f.share(1, true);
    SUBCASE("output size") {
      poke(blob, kOutputCount, int64_t{1} << 40);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true),
                           "rank 1's results: the output size in bytes is 1099511627776, expected 24", WireError);
    }
    SUBCASE("negative output size") {
      poke(blob, kOutputCount, -8);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true), "rank 1's results: the output size in bytes is -8, expected 24",
                           WireError);
    }
    SUBCASE("event count") {
      poke(blob, kEventCount, 1000000000);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true), "rank 1's results: the event count is 1000000000, expected 10",
                           WireError);
    }
    SUBCASE("an event's step, which would index the schedule") {
      int32_t step = 7;
      std::memcpy(blob.data() + kEventCount + 8 + offsetof(Event, step), &step, sizeof step);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true),
                           doctest::Contains("rank 1's results: event 0 is step 7 op 0"), WireError);
    }
    SUBCASE("an event's offset, which would index a buffer") {
      int64_t offset = 1 << 20;
      std::memcpy(blob.data() + kEventCount + 8 + sizeof(Event) + offsetof(Event, offset), &offset, sizeof offset);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true),
                           "rank 1's results: event 1 (step 0 op 1) does not describe the schedule's op (buffer, "
                           "offset, length, bytes, chunk or channel differ)",
                           WireError);
    }
    SUBCASE("an event's storage") {
      int32_t storage = 40;
      std::memcpy(blob.data() + kEventCount + 8 + offsetof(Event, storage), &storage, sizeof storage);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true), doctest::Contains("rank 1's results: an event's storage is 40, expected -1.."),
                           WireError);
    }
    SUBCASE("a step record's buffer count") {
      const size_t first_record = kEventCount + 8 + 10 * sizeof(Event);
      poke(blob, first_record + 16, 99);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true),
                           doctest::Contains("rank 1's results: a step record's buffer count is 99, expected 0 or "),
                           WireError);
    }
    SUBCASE("bytes left over") {
      blob.resize(blob.size() + 3);
      CHECK_THROWS_WITH_AS(decode_share(blob, f.s, 1, true),
                           doctest::Contains("rank 1's results: 3 bytes left over after offset"), WireError);
    }
  }

  TEST_CASE("Reader checks every read against the buffer") {
    const std::vector<double> values{1.5, 2.5};
    Writer w;
    w.buf.reserve(64);
    w.put<int32_t>(7);
    w.vec(values);
    Reader rd(w.buf, "test buffer");
    CHECK(rd.get<int32_t>("a number") == 7);
    CHECK_THROWS_WITH_AS(rd.vec<double>("two values", 3), "test buffer: two values is 2, expected 3", WireError);
    Reader again(w.buf, "test buffer");
    again.get<int32_t>("a number");
    CHECK(again.vec<double>("two values", 2) == std::vector<double>{1.5, 2.5});
    again.finish();
    CHECK_THROWS_WITH_AS(again.get<int64_t>("one more"), "test buffer: one more needs 8 bytes at offset 28 but the buffer has 28",
                         WireError);
  }
}
