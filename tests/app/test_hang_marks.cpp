// Fail marks on the hang view's tracks (app/viz/hang_view.h HangCall,
// fail_mark): every rank that failed carries one in the cell of the call it
// failed at, as lesson 08 beat 3's R0 and R2 do; R1 and R3 left the step
// before #1 (their recorders end at #0 completed) and showed an empty #1
// cell. Their #1 cell is now "skip" (a fail mark without a recorder entry);
// a rank that failed only at the end-of-step barrier carries "fail" there.
// Built from constructed lab results (exact cells); test_hang_view.cpp's
// real run of two skipping ranks checks the same cells.
#include <doctest/doctest.h>

#include <vector>

#include "app/viz/hang_view.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

using S = hang::CallRecord::State;

hang::CallRecord rec(int64_t seq, const char* op, int64_t count, S st) {
  hang::CallRecord c;
  c.seq = seq;
  c.collective = op;
  c.count = count;
  c.state = st;
  c.end_s = 0.1 * double(seq + 1);
  return c;
}

hang::LabOptions options(hang::Fault f, std::vector<int> ranks) {
  hang::LabOptions o;
  o.ranks = 4;
  o.fault = f;
  o.fault_ranks = ranks;
  o.timeout_s = 0.1;
  return o;
}

std::vector<bool> marks(const HangRow& row) {
  std::vector<bool> m;
  for (HangCall c : row.calls) m.push_back(fail_mark(c));
  return m;
}

}  // namespace

TEST_SUITE("hang_view") {
  TEST_CASE("fail marks: ranks 1 and 3 left the step before #1 (skip), ranks 0 and 2 failed #1 (fail); a rank failed at the end-of-step barrier") {
    using C = HangCall;
    hang::LabResult r;
    for (int k = 0; k < 4; ++k) {
      hang::RankOutcome o;
      o.rank = k;
      o.recorder.calls = {rec(0, "all_reduce", 1024, S::completed)};
      if (k % 2 == 0) o.recorder.calls.push_back(rec(1, "all_reduce", 512, S::failed));
      o.recorder.last_started = k % 2 == 0 ? 1 : 0;
      o.recorder.last_completed = 0;
      r.ranks.push_back(o);
    }
    r.missing = {1, 3};
    r.verdict = "monitored barrier 'before call #1': ranks 1, 3 did not arrive within 0.1 s";
    r.all_failed = true;
    for (const bool withhold : {false, true}) {
      const HangScene sc = build_hang_scene(options(hang::Fault::skip_collective, {3, 1}), r, withhold);
      CHECK(sc.barrier_call == 1);
      REQUIRE(sc.rows.size() == 4);
      for (int k : {0, 2}) CHECK(sc.rows[k].calls == std::vector<C>{C::completed, C::failed, C::not_reached, C::not_reached});
      for (int k : {1, 3}) CHECK(sc.rows[k].calls == std::vector<C>{C::completed, C::skipped, C::not_reached, C::not_reached});
      for (const HangRow& row : sc.rows) CHECK(marks(row) == std::vector<bool>{false, true, false, false});
    }
    // Every call completed on every rank; rank 1 failed at the end-of-step barrier, the others passed it.
    hang::LabResult e;
    for (int k = 0; k < 4; ++k) {
      hang::RankOutcome o;
      o.rank = k;
      o.passed = k != 1;
      o.recorder.calls = {rec(0, "all_reduce", 1024, S::completed), rec(1, "all_reduce", 512, S::completed),
                          rec(2, "all_gather", 256, S::completed)};
      o.recorder.last_started = o.recorder.last_completed = 2;
      e.ranks.push_back(o);
    }
    e.mismatched = {1};
    e.verdict = "monitored barrier 'end of step': rank 1 arrived with another call";
    const HangScene end = build_hang_scene(options(hang::Fault::wrong_order, {1}), e, false);
    CHECK(end.rows[1].calls == std::vector<C>{C::completed, C::completed, C::completed, C::failed});
    CHECK(end.rows[0].calls == std::vector<C>(4, C::completed));
    CHECK_FALSE(fail_mark(C::completed));
    CHECK_FALSE(fail_mark(C::started));
    CHECK_FALSE(fail_mark(C::not_reached));
  }
}
