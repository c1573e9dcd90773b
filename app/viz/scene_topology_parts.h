// Private to the topology scene's files (scene_topology.cpp,
// scene_network_loads.cpp, scene_topology_place.cpp,
// scene_topology_size.cpp): the NIC strip's
// height, the network loads, the labels' and badges' places.
#pragma once

#include "app/viz/scene.h"

namespace microddp::viz {

constexpr float kNicStrip = 22;  // height of the NIC strip along a node box's lower edge

// The NICs, each arrow's port load and the step's bottleneck, from the
// network prediction of the schedule (core/model/topology_model.h).
void add_network_loads(TopologyScene& sc, const Schedule& s, int N, const Network* net_in);

// scene_topology_size.cpp. The least radius whose circle holds every
// rank's label at px (pixels).
float label_radius(const Schedule& s, const TopologyText& tx, float px);
// The ranks' circles before a layout shrinks them (pixels): radius; the
// room a label beside its circle takes (label_reach, 0: inside); whether
// the labels go beside their circles (a round layout whose circles cannot
// hold them at the least text size). w x h: the canvas.
struct RankSize {
  float radius = 7, label_reach = 0;
  bool labels_beside = false;
};
RankSize size_ranks(const Schedule& s, TopologyKind kind, float w, float h, const TopologyText& tx);

// scene_topology_place.cpp. Every drawn rank's label (NodeDraw::label_*):
// inside its circle at the text size, or smaller down to tx.min_px, or
// beside the circle (away from its node's or the canvas' centre, clear of
// the other circles and labels where a side is) when even that does not
// fit. Needs the nodes placed; canvas: the drawing's w x h.
void place_labels(TopologyScene& sc, const TopologyText& tx, Vec2 canvas);
// Every arrow's badge beside its point (ArrowDraw::badge, badge_clear),
// clear of the other badges, circles, labels, arrows, NICs and node labels
// where a place is: needs the arrows, labels, NICs and strokes (line_w).
void place_badges(TopologyScene& sc, Vec2 canvas);

}  // namespace microddp::viz
