// Chunk provenance (app/viz/provenance.h): the symbolic pass against hand
// derivations on the 3-rank ring and against the values of a real run.
#include <doctest/doctest.h>

#include "app/viz/provenance.h"
#include "app/viz/session.h"
#include "core/algorithms/registry.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
Schedule ring3(const std::string& alg) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = alg;
  s.world_size = 3;
  s.count = 3;
  return make_schedule(s);
}
uint64_t mask_of(const Provenance& p, int k, int r, Buf b, int64_t i) {
  const BufferState* st = p.find(k, r, b);
  REQUIRE(st != nullptr);
  const RangeProvenance rp = range_provenance(*st, i, 1);
  REQUIRE(rp.defined);
  return rp.mask;
}
}  // namespace

TEST_SUITE("provenance") {
  TEST_CASE("ring_unchunked, 3 ranks: accum holds T0+T2 after step 0 and everything after step 1") {
    const Schedule s = ring3("ring_unchunked");
    REQUIRE(s.num_steps() == 2);
    const Provenance p = compute_provenance(s);
    REQUIRE(p.at.size() == 3);
    CHECK(mask_of(p, 0, 0, Buf::input, 0) == 0b001);
    CHECK(p.find(0, 0, Buf::output)->runs.front().defined == false);
    // After step 0: rank r added what its left neighbour r-1 sent.
    CHECK(mask_of(p, 1, 0, Buf::accum, 0) == 0b101);
    CHECK(mask_of(p, 1, 1, Buf::accum, 2) == 0b011);
    CHECK(mask_of(p, 1, 2, Buf::accum, 1) == 0b110);
    // The swap: send_buff now names what arrived (rank r-1's input).
    CHECK(mask_of(p, 1, 0, Buf::send_buff, 0) == 0b100);
    CHECK(mask_of(p, 1, 0, Buf::recv_buff, 0) == 0b001);
    CHECK(p.swapped[0][0]);
    CHECK_FALSE(p.swapped[1][0]);
    for (int r = 0; r < 3; ++r) {
      CHECK(mask_of(p, 2, r, Buf::accum, 0) == 0b111);
      CHECK(mask_of(p, 2, r, Buf::output, 2) == 0b111);
      CHECK(mask_of(p, 2, r, Buf::input, 1) == (uint64_t{1} << r));
    }
    // Transfers: step 0 carries each rank's own input, step 1 the left neighbour's.
    REQUIRE(p.transfers[0].size() == 3);
    for (const Transfer& t : p.transfers[0]) {
      CHECK(t.to == (t.from + 1) % 3);
      CHECK(t.mask == uint64_t{1} << t.from);
      CHECK(t.len == 3);
    }
    for (const Transfer& t : p.transfers[1]) CHECK(t.mask == uint64_t{1} << ((t.from + 2) % 3));
  }

  TEST_CASE("chunked ring, 3 ranks: rank r holds chunk r+1 complete after the scatter-reduce") {
    const Schedule s = ring3("ring");
    REQUIRE(s.num_steps() == 4);
    const Provenance p = compute_provenance(s);
    for (int r = 0; r < 3; ++r) {
      CHECK(mask_of(p, 2, r, Buf::output, (r + 1) % 3) == 0b111);
      CHECK(mask_of(p, 2, r, Buf::output, (r + 2) % 3) != 0b111);
      for (int i = 0; i < 3; ++i) CHECK(mask_of(p, 4, r, Buf::output, i) == 0b111);
    }
  }

  TEST_CASE("provenance equals the real run's values when rank r contributes 2^r") {
    // With inputs 2^r and a sum, every recorded value IS the contributor mask.
    for (const char* alg : {"ring_unchunked", "ring", "tree", "naive", "recursive_doubling", "halving_doubling"}) {
      for (int n : {3, 4, 5}) {
        CAPTURE(alg);
        CAPTURE(n);
        RunParams rp;
        rp.spec.algorithm = alg;
        rp.spec.world_size = n;
        rp.spec.count = 7;
        rp.spec.dtype = DType::int64;
        std::string rows;
        for (int r = 0; r < n; ++r) {
          rows += r ? ";" : "";
          for (int i = 0; i < 7; ++i) rows += (i ? "," : "") + std::to_string(1 << r);
        }
        rp.data = rows;
        Session ses;
        ses.configure(rp);
        ses.seek(ses.num_steps());
        const Trace& tr = ses.trace();
        REQUIRE(tr.snapshots);
        const Provenance& p = ses.provenance();
        int checked = 0;
        for (int k = 0; k <= ses.num_steps(); ++k)
          for (int r = 0; r < n; ++r) {
            const auto& rec = k == 0 ? tr.initial[r] : tr.steps[k - 1][r];
            for (const auto& snap : rec.buffers) {
              const BufferState* st = p.find(k, r, snap.buf);
              REQUIRE(st != nullptr);
              CHECK(st->storage == snap.storage);
              for (size_t i = 0; i < snap.values.size(); ++i) {
                const RangeProvenance q = range_provenance(*st, static_cast<int64_t>(i), 1);
                if (!q.defined) continue;
                CHECK(static_cast<uint64_t>(snap.values[i]) == q.mask);
                ++checked;
              }
            }
          }
        CHECK(checked > 0);
      }
    }
  }
}
