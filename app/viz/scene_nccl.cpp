// The topology scene's parts for issue 35's algorithms (NCCL's): the double
// binary tree's two trees, the switch's up and down notes (nvls), one strip
// per channel, and the LL / LL128 flag words of a message; a dense step thinned
// for a slide (one-shot: one rank's reads; channels on several nodes: one
// channel's ring, without badges), a note saying what is left out. Everything comes
// from the schedule, the registry's layout hints (AlgorithmInfo::layout,
// layout_part) and core's protocol formats (core/ir/protocol.h): no
// algorithm name is tested here.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "app/viz/scene.h"
#include "core/algorithms/registry.h"

namespace microddp::viz {

namespace {
constexpr float kChannelStripH = 22;  // one row of channel strips
constexpr float kProtocolTitleH = 20, kProtocolWordsH = 22;

std::string_view part_colour_name(int part) {
  static constexpr std::string_view kNames[] = {"blue", "vermillion", "green", "purple", "sky blue"};
  return kNames[static_cast<size_t>(std::max(part, 0)) % std::size(kNames)];
}
}  // namespace

float nccl_strips_height(const Session& ses) {
  if (!ses.configured()) return 0;
  float h = 0;
  if (ses.schedule().spec.channels > 1) h += kChannelStripH + 8;
  if (ses.params().protocol != Protocol::simple) h += 2 * kProtocolTitleH + kProtocolWordsH + 8;
  return h;
}

void place_double_tree(TopologyScene& sc, int n, float w, float h, float margin, float& radius,
                       std::vector<Vec2>& pos) {
  const DoubleTree T = make_double_tree(std::max(n, 1));
  // Side by side in a wide canvas, one above the other in a tall one. Side
  // by side, the two titles are stacked above both trees, each a line of
  // the canvas's whole width (half of it cut "tree 1 (root R15): 1 chunk"
  // off in lesson 11); one above the other, each tree has its own.
  const bool side = w >= h * 0.9f;
  const float title_h = 20;
  for (int t = 0; t < 2; ++t) {
    const float x0 = side ? float(t) * w / 2 : 0, x1 = side ? x0 + w / 2 : w;
    const float y0 = side ? 0 : float(t) * h / 2, y1 = side ? h : y0 + h / 2;
    const float titles_h = side ? 2 * title_h : title_h;
    // Leaves left to right in depth-first order (NCCL's down0 first),
    // parents centred above their children.
    std::vector<float> xs(static_cast<size_t>(n), 0);
    float next_leaf = 0;
    std::function<void(int)> place = [&](int r) {
      const auto& kids = T.children[t][static_cast<size_t>(r)];
      if (kids.empty()) {
        xs[static_cast<size_t>(r)] = next_leaf++;
        return;
      }
      float sum = 0;
      for (int c : kids) {
        place(c);
        sum += xs[static_cast<size_t>(c)];
      }
      xs[static_cast<size_t>(r)] = sum / float(kids.size());
    };
    place(T.root[t]);
    const float leaves = std::max(next_leaf - 1, 1.f);
    const float H = float(std::max(T.height, 1));
    const float ax0 = x0 + margin, ax1 = x1 - margin, ay0 = y0 + titles_h + margin, ay1 = y1 - margin;
    for (int r = 0; r < n; ++r) {
      const float fx = n == 1 ? 0.5f : xs[static_cast<size_t>(r)] / leaves;
      const float fy = T.height == 0 ? 0.5f : float(T.depth[t][static_cast<size_t>(r)]) / H;
      pos[static_cast<size_t>(t * n + r)] = Vec2{ax0 + fx * (ax1 - ax0), ay0 + fy * std::max(ay1 - ay0, 0.f)};
      const int p = T.parent[t][static_cast<size_t>(r)];
      if (p >= 0) sc.links.push_back({t * n + p, t * n + r, t});
    }
    const float dx = (ax1 - ax0) / std::max(leaves + 1, 2.f);
    const float dy = (ay1 - ay0) / std::max(H + 1, 2.f);
    radius = std::max(7.f, std::min({radius, dx * 0.45f, dy * 0.45f}));
    const Vec2 title_at = side ? Vec2{6, 2 + float(t) * title_h} : Vec2{6, y0 + 2};
    sc.labels.push_back(LabelDraw{title_at, fmt::format("tree {} ({}, root R{})", t, side ? (t == 0 ? "left" : "right") : (t == 0 ? "top" : "bottom"), T.root[t]),
                                  text_color_on_light(part_color(t))});
  }
}

void add_nccl_views(TopologyScene& sc, const Session& ses, float strip_y, float t) {
  const Schedule& s = ses.schedule();
  const CollectiveSpec& sp = s.spec;
  const int n = sp.world_size;
  const AlgorithmInfo* info = find_algorithm(sp.algorithm, sp.collective);
  const float w = std::max(sc.size.x, 40.f);
  const int st = sc.shown_step;

  // The parts (the two trees): what each carries over the whole run.
  if (sc.kind == TopologyKind::double_tree && info && info->layout_part) {
    std::map<int, std::set<int>> chunks;
    for (const Step& step : s.steps)
      for (const auto& ops : step.ranks)
        for (const Op& o : ops)
          if (o.kind == OpKind::send && o.chunk >= 0)
            if (const int part = info->layout_part(sp, o.chunk); part >= 0) chunks[part].insert(o.chunk);
    const auto& off = s.chunk_offsets;
    for (const auto& [part, set] : chunks) {
      PartDraw pd;
      pd.part = part;
      pd.color = part_color(part);
      pd.chunks = static_cast<int>(set.size());
      for (int c : set)
        if (c + 1 < static_cast<int>(off.size())) pd.elements += off[static_cast<size_t>(c + 1)] - off[static_cast<size_t>(c)];
      pd.text = fmt::format("tree {} ({}): {} chunk{}, {} elements", part, part_colour_name(part), pd.chunks,
                            pd.chunks == 1 ? "" : "s", pd.elements);
      sc.notes.push_back(pd.text);
      sc.parts.push_back(std::move(pd));
    }
    for (LabelDraw& l : sc.labels)
      for (const PartDraw& pd : sc.parts)
        if (l.text.rfind(fmt::format("tree {} ", pd.part), 0) == 0)
          l.text += fmt::format(": {} chunk{}", pd.chunks, pd.chunks == 1 ? "" : "s");
  }

  // A full mesh's dense step (one-shot: every rank reads all n - 1 peers,
  // n(n - 1) transfers): 56 arrows and badges on 8 ranks covered the rank
  // circles. One reader's reads are drawn, the lowest rank that reads; a
  // note says that every rank does the same.
  if (sc.kind == TopologyKind::full_mesh && static_cast<int>(sc.arrows.size()) > 2 * n) {
    const size_t all = sc.arrows.size();
    int reader = n;
    for (const ArrowDraw& a : sc.arrows) reader = std::min(reader, a.to);
    std::vector<ArrowDraw> kept;
    for (ArrowDraw& a : sc.arrows)
      if (a.to == reader) {
        // build_topology shrank a dense step's badges to 0.65 of their
        // size; n - 1 of them have the room of a sparse step's.
        a.badge_w /= 0.65f, a.badge_h /= 0.65f;
        kept.push_back(std::move(a));
      }
    for (NodeDraw& nd : sc.nodes) nd.busy = nd.rank == reader;
    const std::string r = endpoint_name(s, reader);
    sc.notes.push_back(fmt::format("{}'s {} read{} drawn; every rank does the same ({} transfers {})", r, kept.size(),
                                   kept.size() == 1 ? "" : "s", all, sc.upcoming ? "next step" : "this step"));
    sc.arrows = std::move(kept);
  }

  // Channels on several nodes (lesson 12 beat 4: 8 channels of the ring on
  // 2 x 8 ranks, 128 transfers a step): their badges hid the rank labels
  // and the outer channels' arrows bent out of the panel. One channel's
  // ring is drawn, without badges (the strips below give every channel's
  // share); a note says where the channels cross between nodes.
  if (sp.channels > 1 && sp.nodes > 1 && static_cast<int>(sc.arrows.size()) > 2 * n) {
    const int g = n / sp.nodes;
    const size_t all = sc.arrows.size();
    std::set<int> crossing;  // the ranks that send across nodes this step, all channels
    std::vector<ArrowDraw> kept;
    for (ArrowDraw& a : sc.arrows) {
      if (a.from / g != a.to / g) crossing.insert(a.from);
      if (a.channel != 0) continue;
      a.badge_w = a.badge_h = 0;
      kept.push_back(std::move(a));
    }
    sc.notes.push_back(fmt::format("channel 0's ring drawn, without badges ({} of the {} transfers {}); the {} "
                                   "channels send across "
                                   "nodes from {} different ranks (with a NIC per rank: a rail each)",
                                   kept.size(), all, sc.upcoming ? "next step" : "this step", sp.channels,
                                   crossing.size()));
    sc.arrows = std::move(kept);
  }

  // The switch: data goes up once and comes down once.
  if (sc.kind == TopologyKind::switch_star && s.switches > 0) {
    int up = 0, down = 0;
    for (const ArrowDraw& a : sc.arrows) {
      if (s.is_switch(a.to)) ++up;
      if (s.is_switch(a.from)) ++down;
    }
    const std::string sw = endpoint_name(s, n);
    const std::string when = sc.upcoming ? "next step" : "this step";
    sc.notes.push_back(fmt::format("up ({} transfer{} {}): each rank's vector to {} once; {} reduces", up,
                                   up == 1 ? "" : "s", when, sw, sw));
    sc.notes.push_back(fmt::format("down ({} transfer{} {}): the sum from {} to each rank once (multicast)", down,
                                   down == 1 ? "" : "s", when, sw));
    if (down > 0 && up == 0) std::swap(sc.notes[sc.notes.size() - 2], sc.notes.back());
  }

  float y = strip_y + 6;
  const float pad = 8;
  // Channels: each one's share of the elements sent, and its messages now.
  if (sp.channels > 1) {
    const int C = sp.channels;
    std::vector<int64_t> elements(static_cast<size_t>(C), 0);
    std::vector<int> now(static_cast<size_t>(C), 0);
    for (int k = 0; k < s.num_steps(); ++k)
      for (const auto& ops : s.steps[static_cast<size_t>(k)].ranks)
        for (const Op& o : ops)
          if (o.kind == OpKind::send && o.channel >= 0 && o.channel < C) {
            elements[static_cast<size_t>(o.channel)] += o.len;
            if (k == st) ++now[static_cast<size_t>(o.channel)];
          }
    int64_t total = 0;
    for (int64_t e : elements) total += e;
    float x = pad;
    const float W = w - 2 * pad;
    for (int c = 0; c < C; ++c) {
      ChannelStripDraw d;
      d.channel = c;
      d.color = channel_color(c);
      d.elements = elements[static_cast<size_t>(c)];
      d.messages_step = now[static_cast<size_t>(c)];
      d.share = total > 0 ? double(d.elements) / double(total) : 1.0 / C;
      d.x0 = x;
      d.x1 = c == C - 1 ? pad + W : x + float(d.share) * W;
      d.y0 = y;
      d.y1 = y + kChannelStripH;
      x = d.x1;
      d.text = fmt::format("ch {}: {:.0f}%, {} msg{}", c, 100 * d.share, d.messages_step,
                           d.messages_step == 1 ? "" : "s");
      sc.channels.push_back(std::move(d));
    }
    y += kChannelStripH + 8;
  }

  // The protocol's flag words of one message of the shown step: the
  // step's largest (the first among equals).
  const Protocol proto = ses.params().protocol;
  if (proto != Protocol::simple && !sc.arrows.empty()) {
    const ArrowDraw* m = &sc.arrows.front();
    for (const ArrowDraw& a : sc.arrows)
      if (a.bytes > m->bytes) m = &a;
    ProtocolStripDraw& p = sc.protocol;
    p.shown = true;
    p.protocol = proto;
    p.from = m->from;
    p.to = m->to;
    p.bytes = m->bytes;
    p.wire_bytes = wire_bytes(proto, p.bytes);
    p.flags = flag_count(proto, p.bytes);
    // The words land as the badge travels: at t the first t·flags hold the
    // new flag; the upcoming step's none yet.
    p.set = sc.upcoming ? 0 : std::clamp<int64_t>(std::llround(double(t) * double(p.flags)), 0, p.flags);
    p.y0 = y;
    p.y1 = y + 2 * kProtocolTitleH + kProtocolWordsH;
    const bool ll = proto == Protocol::ll;
    const int64_t shown = std::min<int64_t>(p.flags, ProtocolStripDraw::kMaxWords);
    p.more = p.flags - shown;
    const float more_w = p.more > 0 ? 70 : 0;
    const float W = w - 2 * pad - more_w;
    const float cw = std::min(W / float(std::max<int64_t>(shown, 1)), ll ? 48.f : 140.f);
    const float fw = ll ? cw / 2 : std::max(cw * float(kLL128LineBytes - kLL128DataBytes) / float(kLL128LineBytes), 4.f);
    for (int64_t i = 0; i < shown; ++i) {
      FlagWordDraw fd;
      fd.x0 = pad + float(i) * cw + 1;
      fd.x1 = pad + float(i + 1) * cw - 1;
      fd.flag_x0 = fd.x1 - fw + 1;
      fd.y0 = y + kProtocolTitleH;
      fd.y1 = fd.y0 + kProtocolWordsH - 4;
      fd.set = i < p.set;
      p.words.push_back(fd);
    }
    const std::string a = endpoint_name(s, p.from), b = endpoint_name(s, p.to);
    if (ll)
      p.title = fmt::format("LL {} -> {}: {} B in {} word{} of 4 B data + 4 B flag", a, b, p.bytes, p.flags,
                            p.flags == 1 ? "" : "s");
    else
      p.title = fmt::format("LL128 {} -> {}: {} B in {} line{} of 120 B data + 8 B flag", a, b, p.bytes, p.flags,
                            p.flags == 1 ? "" : "s");
    p.detail = fmt::format("{} B on the wire; flags {} -> {}: {} of {} landed", p.wire_bytes, p.old_flag, p.new_flag,
                           p.set, p.flags);
  }
}

}  // namespace microddp::viz
