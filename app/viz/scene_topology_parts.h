// Private to the topology scene's files (scene_topology.cpp,
// scene_network_loads.cpp): the NIC strip's height and the network loads.
#pragma once

#include "app/viz/scene.h"

namespace microddp::viz {

constexpr float kNicStrip = 22;  // height of the NIC strip along a node box's lower edge

// The NICs, each arrow's port load and the step's bottleneck, from the
// network prediction of the schedule (core/model/topology_model.h).
void add_network_loads(TopologyScene& sc, const Schedule& s, int N, const Network* net_in);

}  // namespace microddp::viz
