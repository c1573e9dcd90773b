// Phases overlapping across channels as a pipeline (channel_pipeline.h).
#include "core/model/channel_pipeline.h"

#include <fmt/format.h>

#include "core/algorithms/registry.h"

namespace microddp {

ChannelPipeline pipeline_channels(const CollectiveSpec& spec, const Network& net, int channels) {
  if (channels < 1 || channels > 64)
    throw UsageError(fmt::format("channels = {}: a pipeline runs 1..64 channels", channels));
  if (spec.channels != 1)
    throw UsageError(fmt::format("channels = {} in the schedule: the pipeline's channels are priced from one "
                                 "channel's schedule (give the schedule 1)",
                                 spec.channels));
  ChannelPipeline out;
  out.channels = channels;
  CollectiveSpec one = spec;
  one.count = (spec.count + channels - 1) / channels;
  for (int64_t& c : one.counts) c = (c + channels - 1) / channels;
  out.channel_count = one.count;
  const Schedule s = make_schedule(one);
  out.steps = s.num_steps();
  out.one = predict(s, net);
  out.one_channel_s = out.one.pr.lockstep_s;
  out.busiest_port = out.one.bottleneck;
  out.busiest_port_s = out.busiest_port < 0 ? 0.0 : out.one.port_busy_s[static_cast<size_t>(out.busiest_port)];
  out.end_to_end_s = channels * out.one_channel_s;
  out.pipelined_s = out.one_channel_s + (channels - 1) * out.busiest_port_s;
  return out;
}

}  // namespace microddp
