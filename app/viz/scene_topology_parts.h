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

// scene_topology_fan.cpp. Nodes as boxes in rows of up to 4 across w x h,
// each node's g ranks on an arc around its NIC (the middle of the box's
// lower edge), left to right in rank order: a straight line from any rank
// to its NIC passes no other rank. A box is as tall as its arc (label row,
// arc, NIC strip), centred in its row's slot. pos gets the ranks' centres
// (N·g entries), radius the largest in [r_min, r_max] that fits, with 4 px
// clear between any two ranks' outlines (a busy rank's 3 px); false
// (nothing changed) where even r_min does not fit. sc_px: the text size
// over kTopologyBasePx (the arrows' widths).
bool layout_node_fans(TopologyScene& sc, std::vector<Vec2>& pos, int N, int g, float w, float h, float r_min,
                      float r_max, float sc_px, float& radius);

// scene_topology_route.cpp. The length of an arrow's line, pixels.
float route_length(const ArrowDraw& a);
// The centre of NIC `nic` of `nics` on a node
// box's lower edge (add_network_loads draws them there).
Vec2 nic_center(const NodeBoxDraw& b, int nic, int nics);
// The corners of an arrow's way between two NICs (both included): across
// the gap between two boxes side by side, else along the lanes in the gaps
// below the rows and between the columns. Needs sc.boxes.
std::vector<Vec2> nic_route(const TopologyScene& sc, int node_a, Vec2 nic_a, int node_b, Vec2 nic_b);
// The control point of an arrow a -> b inside a node: bent `bend` pixels
// to its right, or further, or to its left, the first whose curve passes
// every circle but nodes skip_a and skip_b, and every NIC square (centres
// nics, half size nic_half), pad pixels clear; the least crossing else.
Vec2 clear_control(const TopologyScene& sc, const std::vector<Vec2>& nics, Vec2 nic_half, Vec2 a, Vec2 b, float bend,
                   int skip_a, int skip_b, float pad);

// Every arrow between nodes whose head at its rank is hidden (the way from
// the receiver's NIC up to the rank shorter than a head clear of the NIC
// square): a second head in the middle of its longest leg between the NICs
// (ArrowDraw::lane_head). Needs the arrows routed, the NICs and head_len.
void add_lane_heads(TopologyScene& sc);

// scene_topology_place.cpp. Every drawn rank's label (NodeDraw::label_*):
// inside its circle at the text size, or smaller down to tx.min_px, or
// beside the circle (away from its node's or the canvas' centre, clear of
// the other circles and labels where a side is) when even that does not
// fit. Needs the nodes placed; canvas: the drawing's w x h.
void place_labels(TopologyScene& sc, const TopologyText& tx, Vec2 canvas);
// Every arrow's badge beside its anchor (ArrowDraw::badge, badge_shown),
// clear of the other badges, circles, labels, arrows, NICs, node labels
// and box edges within badge_reach of it; left out (badge_shown false,
// counted in badges_left_out) where no such place is: needs the arrows,
// labels, NICs and strokes (line_w, head_len).
void place_badges(TopologyScene& sc, Vec2 canvas);

}  // namespace microddp::viz
