// Every generator, proved correct symbolically for n = 1..16 and many counts.
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include "core/ir/checker.h"

#include <algorithm>

using namespace microddp;

namespace {
CollectiveSpec spec(Collective c, const std::string& alg, int n, int64_t count, int root = 0, bool in_place = false,
                    int segments = 1) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = alg;
  s.world_size = n;
  s.count = count;
  s.root = root;
  s.in_place = in_place;
  s.segments = segments;
  return s;
}
}  // namespace

TEST_SUITE("checker") {
  TEST_CASE("every generator passes the symbolic check, n = 1..16") {
    for (Collective c : all_collectives())
      for (const auto& alg : algorithms_for(c))
        for (int n = 1; n <= 16; ++n)
          for (int64_t count : {0, 1, 2, 3, 5, 7, 16, 37}) {
            for (int root : {0, n / 2, n - 1})
              for (bool ip : {false, true}) {
                CAPTURE(name(c));
                CAPTURE(alg);
                CAPTURE(n);
                CAPTURE(count);
                CAPTURE(root);
                CAPTURE(ip);
                Schedule s = make_schedule(spec(c, alg, n, count, root, ip));
                CHECK_NOTHROW(check_schedule(s));
              }
          }
  }
}

TEST_SUITE("checker") {
  TEST_CASE("segmented rings and uneven per-rank counts pass") {
    for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter})
      for (int n = 1; n <= 9; ++n)
        for (int k = 1; k <= 4; ++k)
          for (int64_t count : {0, 1, 5, 37})
            for (bool ip : {false, true}) {
              CAPTURE(name(c)); CAPTURE(n); CAPTURE(k); CAPTURE(count); CAPTURE(ip);
              CHECK_NOTHROW(check_schedule(make_schedule(spec(c, "ring", n, count, 0, ip, k))));
            }
    for (Collective c : {Collective::gather, Collective::scatter, Collective::all_gather, Collective::reduce_scatter})
      for (const auto& alg : algorithms_for(c))
        for (int n = 1; n <= 12; ++n)
          for (int root : {0, n - 1})
            for (bool ip : {false, true}) {
              CollectiveSpec s = spec(c, alg, n, 0, root, ip);
              for (int r = 0; r < n; ++r) s.counts.push_back((r * 7 + 3) % 5);  // 3,0,2,4,1,...
              CAPTURE(name(c)); CAPTURE(alg); CAPTURE(n); CAPTURE(root); CAPTURE(ip);
              CHECK_NOTHROW(check_schedule(make_schedule(s)));
            }
  }

  TEST_CASE("the checker rejects broken schedules") {
    // Single-buffered ring: receives into the buffer it is still sending.
    const Schedule sb = make_single_buffered_ring(spec(Collective::all_reduce, "ring_unchunked", 3, 3));
    CHECK_THROWS_WITH_AS(check_schedule(sb),
                         doctest::Contains("while a send from those elements is still in flight"), ScheduleError);

    // Turn rank 1's recv-reduce in step 1 into a plain recv: the chunk it
    // overwrites loses rank 1's own contribution.
    Schedule s = make_schedule(spec(Collective::all_reduce, "ring", 3, 3));
    auto& ops = s.steps[1].ranks[1];
    auto rr = std::find_if(ops.begin(), ops.end(), [](const Op& o) { return o.kind == OpKind::recv_reduce; });
    REQUIRE(rr != ops.end());
    rr->kind = OpKind::recv;
    CHECK_THROWS_WITH_AS(check_schedule(s), doctest::Contains("holds {r0[2], r2[2]} but should hold {r0[2], r1[2], r2[2]}"),
                         ScheduleError);

    // Remove a recv: the matching send is never received.
    Schedule t = make_schedule(spec(Collective::broadcast, "naive", 3, 4));
    auto& r2 = t.steps[1].ranks[2];
    r2.clear();
    CHECK_THROWS_WITH_AS(check_schedule(t), doctest::Contains("never receives it"), ScheduleError);

    // Two ranks that both wait for data before sending: deadlock.
    Schedule d = make_schedule(spec(Collective::all_reduce, "ring_unchunked", 2, 2));
    for (int r = 0; r < 2; ++r) {
      auto& v = d.steps[0].ranks[r];
      auto snd = std::find_if(v.begin(), v.end(), [](const Op& o) { return o.kind == OpKind::send; });
      Op send = *snd;
      v.erase(snd);
      v.push_back(send);  // after the reduce, which waits for the recv
    }
    CHECK_THROWS_WITH_AS(check_schedule(d), doctest::Contains("deadlock"), ScheduleError);

    // Reading past the end of a buffer.
    Schedule e = make_schedule(spec(Collective::all_reduce, "ring", 2, 4));
    e.steps[0].ranks[0][1].len = 99;
    CHECK_THROWS_WITH_AS(check_schedule(e), doctest::Contains("outside the buffer"), ScheduleError);
  }

  TEST_CASE("a recv-reduce may follow a recv into the same elements (one_shot's fold); a recv may not") {
    // one_shot n = 3, rank 2: out = x0 (recv from 0), out ⊕= x1 (recv_reduce
    // from 1) while the recv is still in flight, then its own x2.
    Schedule s = make_schedule(spec(Collective::all_reduce, "one_shot", 3, 4));
    auto& ops = s.steps[0].ranks[2];
    REQUIRE(ops.size() == 5);
    REQUIRE(ops[2].kind == OpKind::recv);
    REQUIRE(ops[3].kind == OpKind::recv_reduce);
    CHECK_NOTHROW(check_schedule(s));
    // The other way round, the plain recv would overwrite x1: refused.
    std::swap(ops[2], ops[3]);
    CHECK_THROWS_WITH_AS(check_schedule(s), doctest::Contains("two receives in flight into output[0, 4)"),
                         ScheduleError);
  }
}
