// The cache-aware model's coherence terms: ε (bytes written over what a peer
// read) and φ (bytes received fresh from a peer's writes), their byte counts
// and reuse distances, and their prices.
#include <doctest/doctest.h>

#include "approx.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "cache_machines.h"

using namespace microddp;
using namespace microddp::cache_test;

TEST_SUITE("cache_curve") {
  TEST_CASE("ε's bytes: writes over what a peer read since the writer's last write, the schedule repeating") {
    using Table = std::vector<std::vector<int64_t>>;
    // naive all_reduce, 2 ranks, 8 floats: in step 1 rank 1 reads rank 0's
    // output; in the next run's step 0 rank 0 copies its input over it
    // (32 B); its recv_reduce then writes the same bytes again (0 more).
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "naive", 2, 8)) == Table{{32, 0}, {0, 0}});
    // ring all_reduce, 2 ranks, 8 floats (chunks of 16 B): each rank's
    // reduced chunk is read by the peer in the all-gather and written over
    // by the next run's scatter-reduce; the all-gather's receives land in
    // the chunk the peer did not read.
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "ring", 2, 8)) == Table{{16, 16}, {0, 0}});
    // the same recv-reduce in a reduce-scatter: nobody reads the result
    CHECK(bytes_over_peer_reads(schedule_of(Collective::reduce_scatter, "ring", 2, 8)) == Table{{0, 0}});
    // ring all_gather, 3 ranks, 1 float each: in step 0 every rank copies
    // its input over its own chunk (read by the next rank in the run
    // before, 4 B) and receives over the chunk it forwarded in step 1 (4 B)
    const Schedule ag = schedule_of(Collective::all_gather, "ring", 3, 1);
    CHECK(bytes_over_peer_reads(ag) == Table{{8, 8, 8}, {0, 0, 0}});
    // on 2 cores rank 2 shares core 0 with its reader, rank 0: nothing to take away
    CHECK(bytes_over_peer_reads(ag, 2) == Table{{8, 8, 0}, {0, 0, 0}});
    // in place (input and output one buffer), ring all_reduce, 2 ranks, 8
    // floats: each rank sends chunk c in step 0 and receives over it in
    // step 1 (16 B), sends chunk c+1 in step 1 and recv-reduces over it in
    // the next run's step 0 (16 B)
    CHECK(bytes_over_peer_reads(schedule_of(Collective::all_reduce, "ring", 2, 8, true)) == Table{{16, 16}, {16, 16}});
    // a broadcast writes nothing a peer read: the root only sends
    for (const auto& step : bytes_over_peer_reads(schedule_of(Collective::broadcast, "naive", 3, 9)))
      for (int64_t b : step) CHECK(b == 0);
  }

  TEST_CASE("ε's reuse distance: the traffic between the peer's read and the write, the rotation's runs included") {
    using Pieces = std::vector<PeerReadOverwrite>;
    const auto same = [](const Pieces& a, const Pieces& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i].bytes != b[i].bytes || a[i].distance_bytes != b[i].distance_bytes) return false;
      return true;
    };
    // ring all_reduce, 2 ranks, 8 floats (chunks of 16 B). Traffic: step 0
    // each rank copies 16 B (32) and recv-reduces 16 B (48): 160 in all;
    // step 1 each receives 16 B (32): 64; one run 224. Rank 0's copy in
    // step 0 writes over its output chunk 1, which rank 1 read in the
    // previous run's step 1: the traffic between is step 1's, 64 B.
    const Schedule ring = schedule_of(Collective::all_reduce, "ring", 2, 8);
    auto w = peer_read_overwrites(ring);
    CHECK(same(w[0][0], Pieces{{16, 64}}));
    CHECK(same(w[0][1], Pieces{{16, 64}}));
    CHECK(w[1][0].empty());
    CHECK(w[1][1].empty());
    // rotating 4 buffer sets: the other 3 sets' runs come in between
    w = peer_read_overwrites(ring, 0, 4);
    CHECK(same(w[0][0], Pieces{{16, 64 + 3 * 224}}));
    // in place: step 0 recv-reduces 16 B per rank (96 in all), step 1
    // receives 16 B per rank (64). A rank sends chunk c in step 0 and
    // receives over it in step 1 of the same run (96 B between: step 0's);
    // it sends chunk c+1 in step 1 and recv-reduces over it in the next
    // run's step 0 (64 B between, plus 2 × 160 with 3 sets).
    const Schedule ip = schedule_of(Collective::all_reduce, "ring", 2, 8, true);
    w = peer_read_overwrites(ip, 0, 3);
    CHECK(same(w[0][0], Pieces{{16, 64 + 2 * 160}}));
    CHECK(same(w[1][0], Pieces{{16, 96}}));  // a read in the same run: the rotation does not count
    // a read and a write in one step: that step's traffic
    CollectiveSpec spec;
    spec.collective = Collective::all_gather;  // only the shapes matter
    spec.algorithm = "naive";
    spec.world_size = 2;
    spec.count = 4;
    spec.dtype = DType::int32;
    ScheduleBuilder b(spec);
    b.step("read, then write over it");
    b.send(0, 1, {Buf::output, 0}, 4);
    b.recv(1, 0, {Buf::output, 0}, 4);             // 32 B of traffic
    b.copy(0, {Buf::input, 0}, {Buf::output, 0}, 4);  // 32 B
    w = peer_read_overwrites(b.finish(), 0, 5);
    CHECK(same(w[0][0], Pieces{{16, 64}}));
    // one write over two reads in different steps, partly overlapping: rank
    // 1 reads rank 0's output [0, 8) in step 0 and [4, 12) in step 1 (the
    // later read takes [4, 8) over); in step 2 rank 0 writes [2, 10): [2, 4)
    // was read in step 0 (distance: steps 0 and 1, 64 + 64 B), [4, 10) in
    // step 1 (64 B); [0, 2) and [10, 12) stay read and are not charged
    CollectiveSpec wide = spec;
    wide.count = 8;  // input 8, output 16 int32
    ScheduleBuilder two(wide);
    two.step("read [0, 8)");
    two.send(0, 1, {Buf::output, 0}, 8);
    two.recv(1, 0, {Buf::output, 0}, 8);  // 32 B moved: 64 B of traffic
    two.step("read [4, 12)");
    two.send(0, 1, {Buf::output, 4}, 8);
    two.recv(1, 0, {Buf::output, 0}, 8);  // 64 B of traffic
    two.step("write [2, 10)");
    two.copy(0, {Buf::input, 0}, {Buf::output, 2}, 8);  // 64 B of traffic
    const Schedule twice = two.finish();
    w = peer_read_overwrites(twice);
    CHECK(same(w[2][0], Pieces{{8, 128}, {24, 64}}));
    CHECK(w[0][0].empty());
    CHECK(w[1][0].empty());
    // the byte counts agree with bytes_over_peer_reads
    CHECK(bytes_over_peer_reads(ring) == std::vector<std::vector<int64_t>>{{16, 16}, {0, 0}});
    // φ's reads, the other way round: in step 1 each rank receives the
    // chunk its peer wrote in step 0 (160 B of traffic between: step 0's);
    // step 0 reads inputs nobody writes; the rotation does not count (the
    // write and the read fall in one run)
    auto f = fresh_peer_reads(ring, 0, 4);
    CHECK(f[0][0].empty());
    CHECK(f[0][1].empty());
    CHECK(same(f[1][0], Pieces{{16, 160}}));
    CHECK(same(f[1][1], Pieces{{16, 160}}));
    // in place: step 0 recv-reduces the chunk the peer received in the
    // previous run's step 1 (64 B, plus 2 runs of 160 with 3 sets); step 1
    // receives the chunk the peer recv-reduced in step 0 (96 B)
    f = fresh_peer_reads(ip, 0, 3);
    CHECK(same(f[0][0], Pieces{{16, 64 + 2 * 160}}));
    CHECK(same(f[1][0], Pieces{{16, 96}}));
    CHECK(same(f[1][1], Pieces{{16, 96}}));
    // a second read of the same bytes, with no write between, is not fresh:
    // rank 1 reads rank 0's output [0, 8) in step 0 and [4, 12) in step 1,
    // and only rank 0's write in step 2 makes [2, 10) fresh for the next
    // run's reads: [2, 8) in step 0 (64 B of traffic between: step 2's),
    // [8, 10) in step 1 (step 2's and step 0's, 128 B)
    f = fresh_peer_reads(twice);
    CHECK(same(f[0][1], Pieces{{24, 64}}));
    CHECK(same(f[1][1], Pieces{{8, 128}}));
    CHECK(f[2][1].empty());
  }

  TEST_CASE("ε is priced at the reuse distance, not at the step's footprint") {
    // ring all_reduce, 2 ranks, 8 MiB: ε high (100 ps/B) up to 16 MiB of
    // distance, 10 ps/B beyond; every step's footprint is 32 MiB or more
    // (bench's one buffer set), but the peer read the overwritten chunk in
    // the step just before (16 MiB of traffic between): ε = 100 ps/B.
    const Schedule s = schedule_of(Collective::all_reduce, "ring", 2, 2 * 1024 * 1024);
    CostParams p = small_l3();
    p.cache.coherence.clear();
    for (double f : p.cache.footprint_bytes) p.cache.coherence.push_back(f <= 16 * MiB ? 100e-12 : 10e-12);
    p.back_to_back = true;
    p.min_footprint_bytes = 32 * MiB;
    const Prediction one = predict(s, p);
    CHECK(one.footprint_bytes[0] >= 32 * MiB);
    CHECK(one.ranks[0][0].bytes_over_peer_reads == 4 * MiB);
    CHECK(one.ranks[0][0].terms.coherence_s == rel(4 * MiB * 100e-12));
    // 16 sets: 15 runs (840 MiB) between: ε = 10 ps/B
    p.rotation_sets = 16;
    CHECK(predict(s, p).ranks[0][0].terms.coherence_s == rel(4 * MiB * 10e-12));
  }

  TEST_CASE("ε: bytes written over a peer's reads cost ε(reuse distance) each, on top of β, γ, δ") {
    const Schedule s = schedule_of(Collective::all_reduce, "naive", 2, 8);
    CostParams without = small_l3();
    CostParams with = without;
    with.cache.coherence.assign(with.cache.footprint_bytes.size(), 1e-9);  // 1 ns per byte
    CHECK(predict(s, with).lockstep.coherence_s == 0);  // one run (run, the window): no ε
    without.back_to_back = with.back_to_back = true;    // bench's back-to-back iterations
    const Prediction a = predict(s, without), b = predict(s, with);
    CHECK(a.lockstep.coherence_s == 0);
    CHECK(b.ranks[0][0].bytes_over_peer_reads == 32);
    CHECK(b.ranks[0][0].terms.coherence_s == rel(32e-9));
    CHECK(b.ranks[1][0].terms.coherence_s == 0);
    CHECK(b.lockstep.coherence_s == rel(32e-9));  // rank 0 is step 0's slowest rank
    CHECK(b.lockstep_s - a.lockstep_s == rel(32e-9));
    // 3 ranks on 2 cores (ring all_gather, 1 float each): rank 2 shares core 0
    // with its reader, rank 0, and pays nothing
    const Prediction c = predict(schedule_of(Collective::all_gather, "ring", 3, 1), with);  // with.cores = 2 (small_l3)
    CHECK(c.ranks[0][0].bytes_over_peer_reads == 8);
    CHECK(c.ranks[0][1].bytes_over_peer_reads == 8);
    CHECK(c.ranks[0][2].bytes_over_peer_reads == 0);
    CHECK(c.ranks[0][2].terms.coherence_s == 0);
    // an ε array that does not match the footprints counts as not measured
    CostParams odd = with;
    odd.cache.coherence.pop_back();
    CHECK(predict(s, odd).lockstep.coherence_s == 0);
    // ε follows the curve: 0 where the curve says the peer's copy is gone.
    // naive, 2 ranks, 256 KiB: rank 1 reads rank 0's output in step 1 (512
    // KiB of traffic), one run moves 1.75 MiB; ε 1 ns/B up to 1 MiB, 0 beyond
    const Schedule big = schedule_of(Collective::all_reduce, "naive", 2, 64 * 1024);
    with.cache.coherence.clear();
    for (double f : with.cache.footprint_bytes) with.cache.coherence.push_back(f <= 1 * MiB ? 1e-9 : 0);
    CHECK(predict(big, with).lockstep.coherence_s == rel(256 * KiB * 1e-9));
    with.rotation_sets = 16;  // 15 runs of 1.75 MiB between the read and the write
    CHECK(predict(big, with).lockstep.coherence_s == 0);
  }

  TEST_CASE("φ: bytes received fresh from a peer's writes cost φ(reuse distance) each, apart from ε") {
    const Schedule s = schedule_of(Collective::all_reduce, "naive", 2, 8);
    CostParams p = small_l3();
    p.cache.fresh_read.assign(p.cache.footprint_bytes.size(), 1e-9);  // 1 ns per byte; no ε
    CHECK(predict(s, p).lockstep.coherence_s == 0);  // one run (run, the window): no φ
    p.back_to_back = true;
    const Prediction b = predict(s, p);
    // step 0: rank 0 copies and recv-reduces into its output (nothing read fresh);
    // step 1: rank 1 receives the 32 B rank 0 wrote in step 0
    CHECK(b.ranks[0][0].bytes_fresh_from_peers == 0);
    CHECK(b.ranks[0][0].bytes_over_peer_reads == 32);  // counted, but no ε measured: free
    CHECK(b.ranks[0][0].terms.coherence_s == 0);
    CHECK(b.ranks[1][1].bytes_fresh_from_peers == 32);
    CHECK(b.ranks[1][1].terms.coherence_s == rel(32e-9));
    CHECK(b.lockstep.coherence_s == rel(32e-9));
    // with ε too, each side pays its own curve: ε 2 ns on the write, φ 1 ns on the read
    p.cache.coherence.assign(p.cache.footprint_bytes.size(), 2e-9);
    const Prediction both = predict(s, p);
    CHECK(both.ranks[0][0].terms.coherence_s == rel(64e-9));
    CHECK(both.ranks[1][1].terms.coherence_s == rel(32e-9));
    p.cache.coherence.clear();
    // 3 ranks on 2 cores (ring all_gather, 1 float each; small_l3 has 2
    // cores): rank 0 receives from rank 2, on its own core, for free; ranks
    // 1 and 2 receive what ranks 0 and 1 (the other core) just wrote
    const Prediction c = predict(schedule_of(Collective::all_gather, "ring", 3, 1), p);
    CHECK(c.ranks[0][0].bytes_fresh_from_peers == 0);
    CHECK(c.ranks[0][1].bytes_fresh_from_peers == 4);
    CHECK(c.ranks[0][2].bytes_fresh_from_peers == 4);
    // a φ array that does not match the footprints counts as not measured
    CostParams odd = p;
    odd.cache.fresh_read.pop_back();
    CHECK(predict(s, odd).lockstep.coherence_s == 0);
    // φ follows its curve by distance: naive, 2 ranks, 256 KiB; rank 0's
    // step 0 moves 1.25 MiB (copy 2 x 256 KiB, recv-reduce 3 x 256 KiB)
    // between its write and rank 1's read; φ 1 ns/B up to 1 MiB, 0 from
    // 2 MiB: interpolated in log2 between
    const Schedule big = schedule_of(Collective::all_reduce, "naive", 2, 64 * 1024);
    p.cache.fresh_read.clear();
    for (double f : p.cache.footprint_bytes) p.cache.fresh_read.push_back(f <= 1 * MiB ? 1e-9 : 0);
    REQUIRE(p.fresh_read_at(2 * MiB) == 0);
    const double want = 256 * KiB * 1e-9 * (1 - std::log2(1.25));
    CHECK(predict(big, p).lockstep.coherence_s == rel(want));
    p.rotation_sets = 16;  // the write and the read fall in one run: the rotation does not count
    CHECK(predict(big, p).lockstep.coherence_s == rel(want));
  }

}
