// The NCCL-shaped tuner (core/model/nccl_tuner.h) against values derived by
// hand from the constants of core/model/nccl_tuning_table.h (NCCL 2.30.7
// src/graph/tuning.cc), on DGX A100 and DGX H100, one and two nodes; NCCL's
// INFO line shape; every constant sourced; bad input.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "core/model/nccl_tuner.h"
#include "tests/core/model/approx.h"

using namespace microddp;
using namespace microddp::nccl;

namespace {
const Candidate& find(const Choice& c, Algo a, Proto p) {
  for (const Candidate& x : c.candidates)
    if (x.algo == a && x.proto == p) return x;
  FAIL("no candidate");
  return c.candidates.front();
}
}  // namespace

TEST_SUITE("nccl_tuner") {
  TEST_CASE("the topology search's graphs on DGX A100 and DGX H100") {
    // A100: NVLink 12 links × 20 GB/s (SM80_NVLINK_BW) = 240 GB/s per GPU.
    // speedArrayIntra's first speed ≤ 240 is 40: 6 channels × 40 = 240, the
    // whole bandwidth (search stops); 40 ≥ 25 → duplicated: 12 × 20 GB/s;
    // connect.cc doubles the ring channels: 24.
    const Graphs a = derive_graphs(system_preset("dgx-a100"));
    CHECK(a.ring.channels == 12);
    CHECK(a.ring.bw_intra == 20.0);
    CHECK(a.comm_channels == 24);
    CHECK(a.nvls.channels == 0);
    // H100: 18 × 20.6 = 370.8 GB/s. sm90SpeedArrayIntra: 60 → 6 ch = 360;
    // 50 → 7 = 350, 40 → 9 = 360, 30 → 12 = 360 (not larger), 24/60 < 0.49
    // stops. 6 × 60, 60 ≥ 50 → duplicated: 12 × 30; comm 24. NVLS: 8
    // channels; the first speed with 8 × speed ≤ 370.8·8/7 = 423.8 is 50, but
    // each GPU heads one channel, so its NVLink carries 9 × speed ≤ 370.8:
    // 40. bwInter is raised toward 2 × 40: 50, then 60 (the array's top).
    // 16 NVLS channels.
    const Graphs h = derive_graphs(system_preset("dgx-h100"));
    CHECK(h.ring.channels == 12);
    CHECK(h.ring.bw_intra == 30.0);
    CHECK(h.comm_channels == 24);
    CHECK(h.nvls.channels == 8);
    CHECK(h.nvls.bw_intra == 40.0);
    CHECK(h.nvls.bw_inter == 60.0);
    CHECK(h.nvls_channels == 16);
    // Two DGX A100: sm80 speedArrayInter's first speed within a 25 GB/s NIC
    // is 24: one channel per NIC, 8 × 24 (24 < 25: not duplicated); comm 16.
    // The tree's bwIntra is raised toward 2 × 24 while 8 channels fit in
    // 240 GB/s of NVLink: 28, 30 (48 would need 384).
    const Graphs a2 = derive_graphs(system_preset("dgx-a100-2node"));
    CHECK(a2.ring.channels == 8);
    CHECK(a2.ring.bw_intra == 24.0);
    CHECK(a2.comm_channels == 16);
    CHECK(a2.tree.bw_intra == 30.0);
    CHECK(a2.tree.bw_inter == 24.0);
  }

  TEST_CASE("DGX A100, all_reduce on 8 ranks: choice, time and channels") {
    const SystemDesc s = system_preset("dgx-a100");
    // Ring LL: busBw = min(llMaxBws[Ampere][N1] = 87.7, 12·20·0.5 = 120) = 87.7,
    // algBw = 87.7·8/14 = 50.1143; latency = baseLat 6.6 + 14 steps × hwLat
    // NVLink Ring LL 0.6 = 15.0 µs. 8 B: 15 + 8/(1000·50.1143) = 15.00016 µs.
    // Channels: LL threshold 8 B/thread × 8 ranks × 512 threads: 8 B is below
    // every channel count, down to 1.
    const Choice c8 = tune(s, Collective::all_reduce, 8);
    CHECK(c8.best().algo == Algo::ring);
    CHECK(c8.best().proto == Proto::ll);
    CHECK(c8.best().time_us == rel(15.000159635));
    CHECK(c8.best().channels == 1);
    CHECK(nccl_line(c8) == "AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}");

    // 64 KiB, Ring LL: the tuner keeps 2 channels (65536 < nc × 512 × 64
    // down to nc = 2). The planner: traffic 2 × 64 KiB over 2 channels =
    // 64 KiB per channel; LL cells of 32 KiB / (2 × 4) = 4096 B, 16 cells of
    // 32 KiB traffic each, 2 cells per channel: 8 channels.
    const Choice c64k = tune(s, Collective::all_reduce, 64 << 10);
    CHECK(c64k.best().channels == 2);
    CHECK(c64k.launched_channels == 8);
    CHECK(nccl_line(c64k) == "AllReduce: 65536 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..7}");

    // 1 MiB. Ring LL: 15 + 1048576/50114.3 = 35.9237 µs.
    // Ring LL128: busBw = min(240·0.92 = 220.8, 12·perChMaxRingLL128 20 = 240),
    // algBw 126.171; latency 14 + 14 × 1.9 = 40.6; 40.6 + 8.3107 = 48.9107.
    // Tree LL128: min(240·0.92, 12·24) = 220.8, × 7/9 (one node) = 171.733,
    // algBw /2 = 85.867, × treeCorrectionFactor[LL128][log2(1 MiB/64) = 14]
    // 0.6 = 51.52; latency 14 + 2·(7 × 1.25) = 31.5; 31.5 + 20.353 = 51.853.
    // Ring LL wins; 1 MiB ≥ 24 × 512 × 64 B: all 24 channels (the planner's
    // 256 cells at 3 per channel would need 86: dealt over the 24 instead).
    const Choice c1m = tune(s, Collective::all_reduce, 1 << 20);
    CHECK(c1m.best().algo == Algo::ring);
    CHECK(c1m.best().proto == Proto::ll);
    CHECK(c1m.best().time_us == rel(35.923694413));
    CHECK(find(c1m, Algo::ring, Proto::ll128).time_us == rel(48.910724638));
    const Candidate& t128 = find(c1m, Algo::tree, Proto::ll128);
    CHECK(t128.correction == rel(0.6));
    CHECK(t128.latency_us == rel(31.5));
    CHECK(t128.time_us == rel(51.852795031));
    CHECK(nccl_line(c1m) == "AllReduce: 1048576 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}");

    // 64 MiB. Ring Simple: busBw 240, algBw 137.143, latency 8.4 + 14 × 3.4 =
    // 56; 56 + 489.335 = 545.335 µs. Ring LL128: 40.6 + 531.886 = 572.486.
    const Choice c64 = tune(s, Collective::all_reduce, 64 << 20);
    CHECK(c64.best().algo == Algo::ring);
    CHECK(c64.best().proto == Proto::simple);
    CHECK(c64.best().time_us == rel(545.335466667));
    CHECK(find(c64, Algo::ring, Proto::ll128).time_us == rel(572.486376812));
    // No NVLS on Ampere: listed, disabled, with the reason.
    CHECK_FALSE(find(c64, Algo::nvls, Proto::simple).enabled);
    CHECK(find(c64, Algo::nvls, Proto::simple).disabled_why ==
          "no NVLS: needs NVSwitch with NVLink SHARP (Hopper or newer)");
  }

  TEST_CASE("DGX H100: ring LL at 8 B, NVLS at 64 MiB; two nodes: NVLS_TREE at 1 GiB") {
    const SystemDesc s = system_preset("dgx-h100");
    // Ring LL: min(llMaxBws[Hopper][N1] = 141, 12·30·0.5) = 141, algBw 80.571;
    // 15 + 8/80571 = 15.0000993 µs; NVLS costs 25 µs of latency alone.
    const Choice c8 = tune(s, Collective::all_reduce, 8);
    CHECK(nccl_line(c8) == "AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}");
    CHECK(c8.best().time_us == rel(15.000099291));
    // NVLS, 64 MiB: per channel min(40 · 0.85 · 7/8 · 2 = 59.5, bwInter 60) =
    // 59.5; busBw 8 × 59.5 = 476; algBw 476·8/14 = 272; latency hwLat NVLink
    // NVLS Simple 25 µs: 25 + 246.724 = 271.724 µs. Ring Simple: 12·30 = 360,
    // algBw 205.714: 56 + 326.224 = 382.224. 16 NVLS channels.
    const Choice c64 = tune(s, Collective::all_reduce, 64 << 20);
    CHECK(nccl_line(c64) == "AllReduce: 67108864 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}");
    CHECK(c64.best().time_us == rel(271.723764706));
    CHECK(find(c64, Algo::ring, Proto::simple).time_us == rel(382.223644444));

    // Two nodes, 16 ranks, 1 GiB. NVLS graph over the network (sm90
    // speedArrayInter): 9 × 40 ≤ 370.8 of NVLink, bwInter raised to 48 (the
    // last speed ≤ the 50 GB/s NIC). NVLS_TREE per channel:
    // min(40·0.85·7/8·2 = 59.5, 48 × 2 (two nodes) = 96,
    // perChMaxNVLSTreeBws[Hopper][N2] = 57.7) = 57.7; busBw 461.6; algBw
    // 461.6·16/30 = 246.187; latency 0 + hwLat NVLink 25 + 2·log2(2)·hwLat NET
    // NVLS_TREE 20.9 = 66.8; 66.8 + 4361.49 = 4428.295 µs. Tree Simple: ring
    // graph 8 × 45 (8 × 48 needs 384 > 370.8 of NVLink), min(360·0.92,
    // 8·41.4) = 331.2, algBw 165.6, latency 8.4 + 2·(7·4 + 1·14) = 92.4:
    // 6576.348 µs (no correction past 2^22 · 64 B).
    const Choice c1g = tune(system_preset("dgx-h100-2node"), Collective::all_reduce, int64_t{1} << 30);
    CHECK(c1g.ranks == 16);
    CHECK(nccl_line(c1g) == "AllReduce: 1073741824 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}");
    CHECK(c1g.best().time_us == rel(4428.294627383));
    CHECK(find(c1g, Algo::tree, Proto::simple).time_us == rel(6576.348212560));
    CHECK(find(c1g, Algo::nvls, Proto::simple).disabled_why ==
          "NVLS across nodes needs CollNet (a SHARP network), not modelled");
  }

  TEST_CASE("all_gather prices the gathered buffer and logs the per-rank bytes; broadcast has only ring") {
    const Choice g = tune(system_preset("dgx-a100"), Collective::all_gather, 8 << 20);
    CHECK(g.bytes == 8 << 20);
    CHECK(nccl_line(g).rfind("AllGather: 1048576 Bytes -> Algo RING proto ", 0) == 0);
    for (const Candidate& c : g.candidates) CHECK((c.algo == Algo::ring || c.algo == Algo::nvls));
    const Choice b = tune(system_preset("dgx-a100"), Collective::broadcast, 4096);
    CHECK(b.candidates.size() == 3);
    for (const Candidate& c : b.candidates) CHECK(c.algo == Algo::ring);
  }

  TEST_CASE("every constant has a value, a unit and a source naming an NCCL file and version") {
    std::set<std::string> names;
    size_t n = 0;
    for (const Constant& c : tuning_table()) {
      ++n;
      CAPTURE(std::string(c.name));
      CHECK_FALSE(c.name.empty());
      CHECK(names.insert(std::string(c.name)).second);
      CHECK_FALSE(c.unit.empty());
      CHECK(c.source.find("src/") == 0);
      CHECK(c.source.find("NCCL v2.30.7-1") != std::string_view::npos);
    }
    CHECK(n > 200);
    CHECK(hw_latency(Hw::nvlink, Algo::ring, Proto::ll128).value == 1.9);
    CHECK(hw_latency(Hw::nvlink, Algo::ring, Proto::ll128).name == "hwLat[NVLINK][RING][LL128]");
    for (const SystemDesc& s : system_presets()) {
      CAPTURE(s.name);
      CHECK_FALSE(s.hardware.empty());
      CHECK_FALSE(s.source.empty());
    }
  }

  TEST_CASE("bad input: exact messages") {
    CHECK_THROWS_WITH_AS(system_preset("dgx-b200"),
                         "unknown NCCL system 'dgx-b200' (known: dgx-a100, dgx-a100-2node, dgx-h100, dgx-h100-2node, "
                         "hgx-h200, hgx-h200-2node, pcie-a100, oci-a100-g8, oci-a100-roce-2node, a3mega-h100-2node)",
                         UsageError);
    CHECK_THROWS_WITH_AS(tune(system_preset("dgx-a100"), Collective::all_reduce, 0),
                         "size 0 B: the NCCL-shaped tuner needs at least 1 byte", UsageError);
    CHECK_THROWS_WITH_AS(with_ranks(system_preset("dgx-h100"), 12),
                         "--ranks 12 is not divisible by the 8 GPUs per node of NCCL system dgx-h100", UsageError);
    CHECK_THROWS_WITH_AS(with_ranks(system_preset("dgx-h100"), 1),
                         "--ranks 1: the NCCL-shaped tuner needs at least 2 ranks", UsageError);
    CHECK_THROWS_WITH_AS(tune(system_preset("dgx-a100"), Collective::all_to_all, 8),
                         "the NCCL-shaped tuner models all_reduce, all_gather, reduce_scatter, broadcast and reduce, "
                         "not all_to_all",
                         UsageError);
    CHECK_THROWS_WITH_AS(tune(system_preset("dgx-a100"), Collective::all_gather, 4),
                         "size 4 B of all_gather is below one byte per rank (8 ranks)", UsageError);
    CHECK(with_ranks(system_preset("dgx-h100"), 32).nodes == 4);
  }

  TEST_CASE("with_node_shape: a named system's hardware cut to another node shape, NICs in proportion") {
    const SystemDesc g = with_node_shape(system_preset("dgx-h100"), 4, 2);
    CHECK(g.name == "dgx-h100 cut to 4 GPUs per node");
    CHECK(g.gpus_per_node == 4);
    CHECK(g.nics_per_node == 4);
    CHECK(g.nodes == 2);
    CHECK(g.nvlink_links == 18);
    const SystemDesc p = with_node_shape(system_preset("pcie-a100"), 4, 3);  // 1 NIC for 8 GPUs: still 1
    CHECK(p.nics_per_node == 1);
    CHECK(p.nodes == 3);
    CHECK(with_node_shape(system_preset("dgx-h100"), 8, 2).name == "dgx-h100");  // the same shape: unchanged
    CHECK_THROWS_WITH_AS(with_node_shape(system_preset("dgx-h100"), 0, 2),
                         "0 GPUs per node on 2 nodes: both must be at least 1", UsageError);
    CHECK_THROWS_WITH_AS(with_node_shape(system_preset("dgx-h100"), 1, 1),
                         "--ranks 1: the NCCL-shaped tuner needs at least 2 ranks", UsageError);
  }
}
