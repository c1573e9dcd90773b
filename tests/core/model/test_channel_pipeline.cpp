// Phases overlapping across channels as a pipeline (core/model/channel_pipeline.h):
// the hierarchical all-reduce on two DGX H100-like nodes against the
// formula worked by hand from the links' α and bandwidth; one channel is
// the lockstep prediction; the ring gains nothing; bad input.
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include "core/model/channel_pipeline.h"

using namespace microddp;

namespace {

CostParams link(double alpha, double bw) {
  CostParams p;
  p.alpha = alpha;
  p.beta = 1.0 / bw;
  p.gamma = 0;
  return p;
}

// 2 nodes x 8 ranks, 8 NICs per node: NVLink-class 1 us, 450 GB/s inside;
// 2 us, 50 GB/s per NIC between nodes (the dgx-h100 topology's figures).
Network two_dgx() {
  Network w;
  w.topo = Topology::make(16, 2, 8);
  w.intra = link(1e-6, 450e9);
  w.inter = link(2e-6, 50e9);
  return w;
}

CollectiveSpec spec(const std::string& alg, int64_t bytes) {
  CollectiveSpec s;
  s.algorithm = alg;
  s.world_size = 16;
  s.nodes = 2;
  s.count = bytes / 4;  // float32
  return s;
}

}  // namespace

TEST_SUITE("channel_pipeline") {
  TEST_CASE("hierarchical on two 8-GPU nodes, 1 GiB in 8 channels: one channel + 7 x the busiest port") {
    const Network net = two_dgx();
    const ChannelPipeline p = pipeline_channels(spec("hierarchical", int64_t{1} << 30), net, 8);
    // One channel of 128 MiB: 7 intra reduce-scatter steps of a 16 MiB shard, 2 inter steps of
    // half a shard (8 MiB) through each rank's own NIC, 7 intra all-gather steps.
    const double intra_step = 1e-6 + 16777216.0 / 450e9, inter_step = 2e-6 + 8388608.0 / 50e9;
    CHECK(p.channel_count == 33554432);
    CHECK(p.steps == 16);
    CHECK(p.one_channel_s == doctest::Approx(14 * intra_step + 2 * inter_step).epsilon(1e-9));
    // The busiest port carries both intra phases (its NIC's phase is on other ports).
    CHECK(p.busiest_port_s == doctest::Approx(14 * intra_step).epsilon(1e-9));
    CHECK(port_name(net.topo, p.busiest_port) == "R0 intra out");
    CHECK(p.end_to_end_s == doctest::Approx(8 * p.one_channel_s).epsilon(1e-12));
    CHECK(p.pipelined_s == doctest::Approx(14 * intra_step + 2 * inter_step + 7 * 14 * intra_step).epsilon(1e-9));
    // busbw = S / t x 2(n-1)/n: 293 GB/s end to end in one schedule, 435 as a pipeline
    const double busbw = 1073741824.0 / p.pipelined_s * 30 / 16 / 1e9;
    CHECK(busbw == doctest::Approx(435.09).epsilon(1e-4));
  }

  TEST_CASE("one channel is the lockstep prediction; the ring gains nothing") {
    const Network net = two_dgx();
    const CollectiveSpec h = spec("hierarchical", int64_t{64} << 20);
    const ChannelPipeline one = pipeline_channels(h, net, 1);
    CHECK(one.pipelined_s == predict(make_schedule(h), net).pr.lockstep_s);
    CHECK(one.end_to_end_s == one.pipelined_s);
    // The ring keeps one NIC port busy in every step: B is nearly T1, the pipeline no faster than the whole.
    const CollectiveSpec r = spec("ring", int64_t{64} << 20);
    const ChannelPipeline ring = pipeline_channels(r, net, 8);
    CHECK(ring.pipelined_s >= 0.99 * predict(make_schedule(r), net).pr.lockstep_s);
  }

  TEST_CASE("bad input: exact messages") {
    const Network net = two_dgx();
    CHECK_THROWS_WITH_AS(pipeline_channels(spec("hierarchical", 1 << 20), net, 0),
                         "channels = 0: a pipeline runs 1..64 channels", UsageError);
    CHECK_THROWS_WITH_AS(pipeline_channels(spec("hierarchical", 1 << 20), net, 65),
                         "channels = 65: a pipeline runs 1..64 channels", UsageError);
    CollectiveSpec s = spec("ring", 1 << 20);
    s.channels = 2;
    CHECK_THROWS_WITH_AS(pipeline_channels(s, net, 4),
                         "channels = 2 in the schedule: the pipeline's channels are priced from one channel's "
                         "schedule (give the schedule 1)",
                         UsageError);
  }
}
