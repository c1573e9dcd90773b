// The topology panel's scene (build_topology, scene_topology*.cpp): plain
// structs, no ImGui; scene.h includes it. Coordinates are pixels relative
// to the canvas' top-left corner; sizes of data are ELEMENTS unless a name
// says bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app/viz/palette.h"
#include "app/viz/session.h"
#include "core/model/topology_model.h"

namespace microddp::viz {

struct Vec2 {
  float x = 0, y = 0;
};


// ---- topology -------------------------------------------------------------

enum class TopologyKind { ring, tree, star, hypercube, circle, double_tree, switch_star, full_mesh };
// From the registry's layout hint (core/algorithms/registry.h Layout): ring
// -> ring; tree, binomial_tree -> tree; star -> star around the root;
// hypercube -> the pairing grid; double_tree -> the two trees side by side
// (or one above the other in a tall canvas), each rank drawn once in each;
// switch_star -> the switch endpoints (Schedule::switches) as boxes in the
// middle, the ranks around them; full_mesh -> a circle with every link;
// none (all_to_all, dissemination) -> circle.
TopologyKind topology_kind(const CollectiveSpec& s);
std::string_view name(TopologyKind k);

// One drawn endpoint. TopologyScene::nodes holds the ranks 0..n-1 in rank
// order, then (switch_star) the switch endpoints n.., or (double_tree) every
// rank a second time, n + r being rank r in tree 1.
struct NodeDraw {
  int rank = 0;       // the endpoint: a rank, or a switch (>= world size)
  Vec2 pos;
  float radius = 0;   // a switch: the half width of its box (half height: radius * 0.75)
  Rgba fill;
  bool root = false;
  bool busy = false;  // sends or receives in the shown step
  bool is_switch = false;
  int part = -1;      // the layout part this copy of the rank belongs to (double_tree: the tree), -1: none
  std::string label;  // "R3", "SW" (core's endpoint_name)
  // Where its label is drawn (build_topology measures it with TopologyText):
  // inside the circle, centred, at label_px (the panel's text size, or less
  // down to TopologyText::min_px where the circle cannot grow); or beside
  // the circle (label_outside) at the panel's text size where even the least
  // size does not fit. label_min is its top-left corner, label_size its
  // measured width and height (label_px), pixels.
  float label_px = 0;
  Vec2 label_min, label_size;
  bool label_outside = false;
};

struct LinkDraw {  // a structural edge of the topology (drawn faint): indices into nodes
  int a = 0, b = 0;
  int part = -1;  // the tree it belongs to (tinted in part_color), -1: none
};

// A text placed on the canvas (a tree's title), in its colour.
struct LabelDraw {
  Vec2 pos;  // top-left
  std::string text;
  Rgba color;
};

// The parts of a layout with parts (double_tree: the two trees): their
// colour and what they carry, counted over the whole schedule.
struct PartDraw {
  int part = 0;
  Rgba color;
  int chunks = 0;          // distinct chunks (Op::chunk) its messages carry
  int64_t elements = 0;    // elements those chunks cover
  std::string text;        // "tree 0 (blue): 4 chunks, 12 elements"
};

// Channels (spec.channels > 1): one strip per channel, its width the
// channel's share of every element sent in the run (each channel runs the
// algorithm on its own slice of the vector), below the ranks.
struct ChannelStripDraw {
  int channel = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  Rgba color;
  int64_t elements = 0;     // sent on this channel, the whole run
  int messages_step = 0;    // its messages in the shown step
  double share = 0;         // elements / all channels' elements
  std::string text;         // "ch 0: 50%"
};

// The protocol (RunParams::protocol ll or ll128) of one message of the
// shown step, as it lands: its flag words (LL: 8-byte words of 4 B data +
// 4 B flag) or lines (LL128: 128-byte lines of 120 B data + one 8-byte flag
// word), the first `set` of them holding this message's flag (the receiver
// polls until every one reads it), the rest still the last generation's.
struct FlagWordDraw {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the word / line
  float flag_x0 = 0;                     // its flag part: [flag_x0, x1)
  bool set = false;
};
struct ProtocolStripDraw {
  bool shown = false;
  Protocol protocol = Protocol::simple;
  int from = -1, to = -1;      // the message's endpoints
  int64_t bytes = 0;           // payload
  int64_t wire_bytes = 0;      // core's wire_bytes
  int64_t flags = 0;           // words (LL) or lines (LL128): core's flag_count
  int64_t set = 0;             // of them, already holding this message's flag
  uint32_t old_flag = 0, new_flag = 1;  // the threads backend's flag values (generation, generation + 1)
  std::vector<FlagWordDraw> words;      // the first kMaxWords drawn
  int64_t more = 0;                     // words not drawn
  float y0 = 0, y1 = 0;                 // the strip's band (title above the words, detail below)
  std::string title;   // "LL R0 -> R1: 40 B in 10 words of 4 B data + 4 B flag"
  std::string detail;  // "80 B on the wire; flags 0 -> 1: 5 of 10 landed"
  static constexpr int kMaxWords = 24;
};

struct ArrowDraw {
  int from = 0, to = 0;
  Vec2 a, b, ctrl;  // quadratic Bezier from a to b
  // An arrow between two node boxes: the corners of its straight route
  // from a to b, its sender's NIC first and its receiver's NIC last (and
  // the lanes between the boxes); ctrl is then the last corner (the head
  // points from it to b). Empty: the Bezier. Points along either shape:
  // arrow_at, arrow_path.
  std::vector<Vec2> via;
  int chunk = -1, segment = -1;
  int node_a = 0, node_b = 0; // indices into TopologyScene::nodes of its ends
  int part = -1;              // the layout part carrying the chunk (AlgorithmInfo::layout_part), -1: none
  int channel = -1;           // Op::channel
  // The line's colour when it tells the part or channel apart
  // (part_color / channel_color); default-coloured when tinted is false.
  bool tinted = false;
  Rgba tint;
  int64_t len = 0;            // elements carried
  int64_t bytes = 0;
  uint64_t mask = 0;          // contributors of the data carried (in some element)
  uint64_t common = 0;        // contributors in every element carried (complete only when these are all)
  std::vector<Rgba> stripes;  // badge colours (contributors), or one complete colour
  bool complete = false;
  // The badge (place_badges): its centre at the requested animation time,
  // beside badge_anchor (the arrow's point at badge_t: a Bezier's point at
  // t, an arrow between nodes the point at t on its sender's way to its
  // NIC, the part that is this arrow's alone), offset along the outer
  // normal by its half extent plus a gap, else moved along the arrow or
  // further out or to the other side or round the anchor, never further
  // than badge_reach(badge_w, badge_h) pixels from the anchor, and clear
  // of every circle, rank label, NIC, node label, node box's edge (inside
  // its anchor's box where that is in one, else outside all), arrow
  // line and head, and the badges placed before it; else (an arrow between
  // nodes in a fan of legs) on its own leg to its NIC, clear of all but the
  // arrows along that leg (shared_leg in scene_topology_place.cpp: the
  // rank's sends through that NIC and what arrives over it, heads still
  // cleared). badge_shown false: no such
  // place, the badge is left out (not drawn; TopologyScene::badges_left_out
  // counts them). Pixels.
  Vec2 badge, badge_anchor;
  float badge_w = 0, badge_h = 0;
  bool badge_shown = true;
  float badge_t = 0.5f;  // the point on the arrow it belongs to (0 = a, 1 = b)
  // An arrow between nodes: a second head on its way between the NICs (the
  // middle of its longest leg), pointing along it, so that the order of the
  // nodes shows where the head at the rank is short; lane_head false: none.
  bool lane_head = false;
  Vec2 lane_tip, lane_dir;  // the head's tip; its unit direction
  // What the message really carried when that is not what the schedule
  // sends (carried_text): "sent 1,2,3, expected T2 = 7,8,9"; "" otherwise.
  // The badge is then drawn in the error colour with this text beside it.
  std::string carried_text;
};

// Nodes and NICs (spec.nodes > 1): each node a box with its ranks on an
// arc around its NIC on the lower edge (left to right in rank order); an
// arrow between nodes runs from its rank to the rank's NIC, to the other
// NIC and up to its rank (ArrowDraw::via); each arrow's load is the bytes its port
// (sender's intra out, or its NIC out) carries in the shown step relative to
// the step's busiest port (core/model/topology_model.h).
struct NodeBoxDraw {
  int node = 0;
  Vec2 min, max;
  // The "node k" label's left edge from min.x (a label of kNodeLabelW x 18
  // px at most, min.y + 3).
  float label_x = 6;
  // Compact nodes (TopologyScene::compact_nodes): the node's link totals in
  // the shown step, a line each under its label, as many as the box holds
  // (all on hover): "out 4 KiB" (through its NICs), "in 4 KiB", "inside 12 KiB".
  std::vector<std::string> totals;
};
inline constexpr float kNodeLabelW = 64;
inline constexpr float kCompactBoxW = 112, kCompactBoxH = 56;  // label and totals
inline constexpr float kLabelBoxW = 80, kLabelBoxH = 30;        // label only (totals on hover)
struct NicDraw {
  int node = 0, nic = 0;
  Vec2 pos;             // centre of its square
  Vec2 half{9, 6};      // half width and height of the square
  int64_t bytes = 0;  // out + in through this NIC in the shown step
  float load = 0;     // its busier port's bytes / the step's busiest port's bytes
  bool bottleneck = false;
};
struct ArrowLoad {      // one per arrow, same index
  bool inter = false;   // crosses nodes (through NICs)
  int64_t port_bytes = 0;
  float load = 0;       // 0..1
  bool bottleneck = false;  // its out port is the step's busiest (or tied for it)
};

struct TopologyScene {
  TopologyKind kind = TopologyKind::circle;
  std::vector<NodeBoxDraw> boxes;   // empty on one node
  // More nodes than fit with their ranks drawn (more than 8, or boxes too
  // small for a rank's circle): each node a compact box (at least
  // kCompactBoxW x kCompactBoxH) with its link totals, no ranks, or where
  // not all fit so but more would, label-only boxes (kLabelBoxW x
  // kLabelBoxH, the totals on hover); one arrow
  // per pair of nodes that exchange data in the shown step (bytes summed,
  // from and to the first such transfer's ranks, no badge); only the
  // nodes that fit are drawn, the first `boxes.size()`, and a note says how
  // many more there are. The ranks' NodeDraws stay (radius 0, at their
  // node's centre; off the canvas for nodes not drawn).
  bool compact_nodes = false;
  int nodes_hidden = 0;
  // Compact nodes: the shown step's transfers between ranks, all of them,
  // those across nodes, and those of these between two drawn nodes (summed
  // into the arrows); transfers_text says them.
  int step_transfers = 0, across_transfers = 0, across_drawn = 0;
  bool chain = false;               // nodes joined only last rank -> next node's first (the flat ring)
  std::vector<NicDraw> nics;
  std::vector<ArrowLoad> loads;     // [arrow], when boxes are drawn
  std::string bottleneck;           // the shown step's busiest port(s), bottleneck_text ("node 0 NIC 0 out")
  std::vector<std::string> legend;  // one line per link class
  std::string network_note;         // measured here vs predicted on the topology
  Vec2 size;
  std::vector<NodeDraw> nodes;
  std::vector<LinkDraw> links;
  std::vector<ArrowDraw> arrows;
  std::vector<LabelDraw> labels;        // on the canvas (the trees' titles)
  std::vector<PartDraw> parts;          // double_tree: the two trees
  std::vector<ChannelStripDraw> channels;  // spec.channels > 1: one per channel
  ProtocolStripDraw protocol;           // RunParams::protocol ll / ll128
  // Lines under the canvas: what the switch does up and down, what each
  // tree carries; the shown step's phase first.
  std::vector<std::string> notes;
  int shown_step = -1;   // the step whose transfers are drawn (-1: none)
  bool upcoming = false; // true at position 0: the arrows are the next step's
  std::string caption;   // e.g. "step 1 of 2 - ring"
  // Badges with no clear place near their arrows (ArrowDraw::badge_shown
  // false): left out, counted here; transfers_text names the count.
  int badges_left_out = 0;
  // The shapes' sizes at the text size (TopologyText::font_px), pixels: an
  // arrow's line width (the inter-node arrows draw it 1.8 times), its head's
  // length, a circle's or badge's outline.
  float line_w = 2, head_len = 12, outline_w = 1;
  // A circle of ranks (ring, star, ...) whose labels do not fit inside
  // their circles at the least text size: the labels go beside them where
  // the canvas leaves room around the circle (true), else they stay on
  // plates over their circles at the least size.
  bool labels_beside = false;
};

// The text the canvas is labelled in: the panel's size in pixels, the least
// size a rank label may shrink to (min_text_px: 14 in --present), and a
// measure of a label's width in pixels at a size (the panel's font; empty:
// 0.6 px per character and pixel of size, about DejaVu Sans' digits). The
// shapes scale with font_px / kTopologyBasePx: circles, badges, arrow widths
// and heads, up to what the canvas fits.
inline constexpr float kTopologyBasePx = 18;  // ViewState::font_px's default
struct TopologyText {
  float font_px = kTopologyBasePx;
  float min_px = 9;
  std::function<float(const std::string&, float)> width;
  float measure(const std::string& s, float px) const {
    return width ? width(s, px) : 0.6f * px * static_cast<float>(s.size());
  }
};

// Arrows of the step that produced `position` (position-1), or of step 0 at
// position 0 (marked upcoming). t in [0,1] places the chunk badges along the
// arrows (0 = at the sender, 1 = at the receiver).
// net: the link classes to price the loads with (microddp-viz --intra,
// --inter, --nics-per-node); nullptr = nvlink inside, infiniband across.
// text: the labels' size and measure (nullptr: TopologyText's defaults).
TopologyScene build_topology(const Session& s, int position, Vec2 size, float t = 0.5f,
                             const Network* net = nullptr, const TopologyText* text = nullptr);

Vec2 bezier(Vec2 a, Vec2 c, Vec2 b, float t);
// The arrow's point at t in [0,1] (0 = a, 1 = b): on its Bezier, or on
// its route (ArrowDraw::via) by length along it; its unit direction there;
// the arrow as a polyline (the Bezier in `segments` pieces, or the route's
// corners). Pixels (scene_topology_route.cpp).
Vec2 arrow_at(const ArrowDraw& a, float t);
Vec2 arrow_dir(const ArrowDraw& a, float t);
std::vector<Vec2> arrow_path(const ArrowDraw& a, int segments = 24);

// scene_nccl.cpp, the layouts and strips of issue 35's algorithms, used by
// build_topology. Height the channel and protocol strips take at the
// bottom of a canvas of width w (0 when the run shows neither).
float nccl_strips_height(const Session& s);
// Places the two trees (double_tree) in [0,w] x [0,h]: pos gets 2n entries
// (rank r of tree t at t·n + r), links (node indices, tinted by tree) and
// the trees' titles; radius shrinks to fit.
void place_double_tree(TopologyScene& sc, int n, float w, float h, float margin, float& radius, std::vector<Vec2>& pos);
// The parts, channel strips, protocol strip and notes of the shown step,
// after the arrows (strips in [strip_y, size.y)); t as build_topology's.
void add_nccl_views(TopologyScene& sc, const Session& s, float strip_y, float t);

// scene_topology_nodes.cpp, the compact nodes used by build_topology:
// their boxes in w x h (every rank at its node's centre in pos, n entries),
// and the shown step's arrows between drawn nodes and each node's totals.
void layout_compact_nodes(TopologyScene& sc, std::vector<Vec2>& pos, int N, int g, float w, float h);
void add_compact_arrows(TopologyScene& sc, const Session& ses, int N, int g);
// How far a badge of w x h pixels may sit from its arrow's anchor
// (ArrowDraw::badge_anchor): its width and height, pixels.
inline float badge_reach(float w, float h) { return w + h; }

// The line under the topology canvas: "5 transfers" (an arrow each), and
// ", 3 badges left out (no clear place)" where some were; with
// compact nodes "64 transfers, 16 across nodes; 13 arrows, one per from-to
// pair of drawn nodes" (`full`) or its first part alone.
std::string transfers_text(const TopologyScene& sc, bool full = true);

// While a lesson beat's question is open, the picture keeps its byte
// figures back (lesson 09 beat 7 asks how many MiB leave node 0's NIC): the
// bottleneck's ", equally (2 MiB each)" becomes ", equally", and each
// compact node's totals read "out ?", "in ?", "inside ?".
void withhold_bytes(TopologyScene& sc);

// A lesson beat too large to run steps a stand-in (lesson_view.h,
// kStandInNote): the bottleneck's bytes are the stand-in's step, not the
// beat's size, so ", equally (512 B each)" becomes ", equally (stand-in
// run: 512 B each)" (lesson 09 beat 2 read "512 B each" beside "each NIC
// carries 1.75 GB").
void label_stand_in_bytes(TopologyScene& sc);

}  // namespace microddp::viz
