// An algorithm's phases overlapping across channels as a pipeline, on a
// two-level network (topology_model.h): what NCCL gets from running a
// hierarchical or tree all-reduce in many channels, where channel c is in
// its inter-node phase while channel c+1 is in its intra-node phase, on
// other ports. The per-port model prices one schedule in lockstep, so a
// hierarchical all-reduce there adds its intra- and inter-node phases end
// to end (busbw 293 GB/s on 2 DGX H100 nodes at 1 GiB, where published
// nccl-tests tables reach 445-468).
//
// The model (the pipeline formula of a flow shop with one bottleneck):
// the vector is cut into C slices (channels) of ceil(count / C) elements;
// one channel's schedule is priced on the network (lockstep, T1 seconds),
// with each port's busy time in it (Σ over steps of its messages' α + m·β;
// topology_model.h's port time); the busiest port's is B. The C channels
// share the ports (the same ranks, the same NICs), each port serves one
// message at a time, and a channel enters a phase once the channel before
// it has left that phase's ports:
//   pipelined  = T1 + (C − 1) · B
//   end to end = C · T1 (the channels one after another)
// C = 1 gives T1, the lockstep prediction. As C grows the time tends to
// C·B, the busiest port's share of the whole vector: for the hierarchical
// all-reduce on two nodes, its intra ports' two phases together, with the
// NICs' phase hidden behind them. An algorithm whose every step keeps the
// same port busy (the ring) gains nothing: B ≈ T1. Not modelled: the
// reductions' γ and the copies' δ running beside other channels' messages
// (they stay in T1 and B only through the steps), the channels' launch
// cost (NCCL's; nccl_tuner.h prices it), an uneven last slice (every
// channel is priced at the largest slice).
// Units: seconds, bytes.
#pragma once
#include <cstdint>

#include "core/ir/spec.h"
#include "core/model/topology_model.h"

namespace microddp {

struct ChannelPipeline {
  int channels = 1;
  int64_t channel_count = 0;   // elements per channel (the largest slice)
  NetworkPrediction one;       // one channel's schedule on the network
  int steps = 0;               // of one channel's schedule
  double one_channel_s = 0;    // T1: its lockstep time
  int busiest_port = -1;       // the port with the largest busy time in one channel (-1: no messages)
  double busiest_port_s = 0;   // B: that busy time
  double end_to_end_s = 0;     // C · T1
  double pipelined_s = 0;      // T1 + (C − 1) · B
};

// `spec` is the whole call (its channels field must be 1: the channels
// here are the pipeline's, not the schedule's native ones); channels
// 1..64. Throws UsageError naming the value for channels out of range, a
// spec with channels != 1, or what make_schedule / predict refuse (an
// algorithm that needs another placement, a world size other than the
// network's).
ChannelPipeline pipeline_channels(const CollectiveSpec& spec, const Network& net, int channels);

}  // namespace microddp
