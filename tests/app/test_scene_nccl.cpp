// The views of NCCL's algorithms (app/viz/scene_nccl.cpp, scene_topology.cpp,
// provenance.cpp): the switch endpoint of nvls, the double binary tree's two
// trees, channel strips, the LL / LL128 flag words. Scenes are built
// headless from a configured Session (no ImGui, no GL).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/viz/provenance.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
RunParams params(const char* alg, int n, int64_t count) {
  RunParams p;
  p.spec.algorithm = alg;
  p.spec.world_size = n;
  p.spec.count = count;
  p.data = "iota";
  return p;
}
}  // namespace

TEST_SUITE("scene_nccl") {
  TEST_CASE("provenance follows the data through the switch endpoint (nvls)") {
    const Schedule s = make_schedule(params("nvls", 4, 8).spec);
    REQUIRE(s.switches == 1);
    const Provenance pv = compute_provenance(s);
    CHECK(pv.world_size == 4);
    CHECK(pv.endpoints == 5);
    REQUIRE(pv.at.size() == 3);  // before, after "up", after "down"
    for (const auto& at : pv.at) CHECK(at.size() == 5);
    REQUIRE(pv.transfers.size() == 2);
    // up: R0..R3 -> SW, each carrying only its own input
    REQUIRE(pv.transfers[0].size() == 4);
    for (int r = 0; r < 4; ++r) {
      CHECK(pv.transfers[0][r].from == r);
      CHECK(pv.transfers[0][r].to == 4);
      CHECK(pv.transfers[0][r].mask == (uint64_t{1} << r));
    }
    // down: SW -> every rank, carrying every rank's contribution
    REQUIRE(pv.transfers[1].size() == 4);
    std::set<int> to;
    for (const Transfer& x : pv.transfers[1]) {
      CHECK(x.from == 4);
      CHECK(x.mask == all_ranks(4));
      to.insert(x.to);
    }
    CHECK(to == std::set<int>{0, 1, 2, 3});
    // The ranks' outputs hold every contribution at the end.
    for (int r = 0; r < 4; ++r) {
      const BufferState* out = pv.find(2, r, Buf::output);
      REQUIRE(out);
      CHECK(range_provenance(*out, 0, 8).mask == all_ranks(4));
    }
    CHECK(pv.find(2, 5, Buf::output) == nullptr);  // past the endpoints: none, no crash
  }

  TEST_CASE("nvls: the switch is its own node, data goes up once and down once") {
    Session ses;
    ses.configure(params("nvls", 4, 8));
    const Vec2 size{600, 400};
    const TopologyScene up = build_topology(ses, 1, size);
    CHECK(up.kind == TopologyKind::switch_star);
    REQUIRE(up.nodes.size() == 5);
    const NodeDraw& sw = up.nodes[4];
    CHECK(sw.is_switch);
    CHECK(sw.label == "SW");
    CHECK(sw.pos.x == doctest::Approx(300));
    CHECK(sw.pos.y == doctest::Approx(200));
    for (int r = 0; r < 4; ++r) {
      CHECK_FALSE(up.nodes[r].is_switch);
      CHECK(up.nodes[r].label == "R" + std::to_string(r));
    }
    // Every rank is linked to the switch, and to nothing else.
    CHECK(up.links.size() == 4);
    for (const LinkDraw& l : up.links) CHECK(l.b == 4);
    REQUIRE(up.arrows.size() == 4);
    for (const ArrowDraw& a : up.arrows) {
      CHECK(a.to == 4);
      CHECK(a.node_b == 4);
      CHECK(a.bytes == 8 * 4);
    }
    const TopologyScene down = build_topology(ses, 2, size);
    REQUIRE(down.arrows.size() == 4);
    for (const ArrowDraw& a : down.arrows) {
      CHECK(a.from == 4);
      CHECK(a.complete);
    }
    REQUIRE(up.notes.size() == 2);
    CHECK(up.notes[0] == "up (4 transfers this step): each rank's vector to SW once; SW reduces");
    CHECK(down.notes[0] == "down (4 transfers this step): the sum from SW to each rank once (multicast)");
    // The buffers show the switch's rows after the ranks': after "up" its
    // accum holds every rank's contribution.
    BuffersLayout lay;
    const BuffersScene bs = build_buffers(ses, 1, lay);
    const BufferRowDraw* accum = nullptr;
    for (const BufferRowDraw& row : bs.rows)
      if (row.is_switch && row.buf == Buf::accum) accum = &row;
    REQUIRE(accum);
    CHECK(accum->tag == "SW");
    CHECK(accum->rank == 4);
    for (const CellDraw& c : accum->cells) {
      CHECK(c.mask == all_ranks(4));
      CHECK(c.complete);
    }
    CHECK(bs.rows.back().is_switch);
    // The stats name the switch's links.
    const Stats st = build_stats(ses, 2);
    CHECK(st.links.size() == 8);
    int named = 0;
    for (const LinkStat& l : st.links) named += l.from_name == "SW" || l.to_name == "SW";
    CHECK(named == 8);
  }

  TEST_CASE("double binary tree: two trees in two colours, chunks coloured by the tree that carries them") {
    for (int channels : {1, 2}) {
      CAPTURE(channels);
      RunParams p = params("double_binary_tree", 6, 24);
      p.spec.segments = 2;
      p.spec.channels = channels;
      Session ses;
      ses.configure(p);
      const TopologyScene sc = build_topology(ses, 1, Vec2{800, 400});
      CHECK(sc.kind == TopologyKind::double_tree);
      REQUIRE(sc.nodes.size() == 12);  // every rank once in each tree
      for (int i = 0; i < 12; ++i) {
        CHECK(sc.nodes[i].rank == i % 6);
        CHECK(sc.nodes[i].part == i / 6);
      }
      // Each tree: n - 1 links, in its own colour.
      int links[2] = {0, 0};
      for (const LinkDraw& l : sc.links) {
        REQUIRE((l.part == 0 || l.part == 1));
        ++links[l.part];
        CHECK(sc.nodes[l.a].part == l.part);
        CHECK(sc.nodes[l.b].part == l.part);
      }
      CHECK(links[0] == 5);
      CHECK(links[1] == 5);
      REQUIRE(sc.parts.size() == 2);
      CHECK(sc.parts[0].color == from_hex(0x0072B2));
      CHECK(sc.parts[1].color == from_hex(0xD55E00));
      // segments × channels chunks per tree, half the vector each.
      CHECK(sc.parts[0].chunks == 2 * channels);
      CHECK(sc.parts[1].chunks == 2 * channels);
      CHECK(sc.parts[0].elements == 12);
      CHECK(sc.parts[1].elements == 12);
      // Every arrow of every step is drawn between the copies of its tree,
      // in the tree's colour; both trees carry data.
      const AlgorithmInfo* info = find_algorithm("double_binary_tree", Collective::all_reduce);
      REQUIRE(info);
      REQUIRE(info->layout_part);
      int per_part[2] = {0, 0};
      for (int pos = 1; pos <= ses.num_steps(); ++pos) {
        const TopologyScene s2 = build_topology(ses, pos, Vec2{800, 400});
        for (const ArrowDraw& a : s2.arrows) {
          REQUIRE((a.part == 0 || a.part == 1));
          CHECK(a.part == info->layout_part(p.spec, a.chunk));
          CHECK(a.tinted);
          CHECK(a.tint == part_color(a.part));
          CHECK(s2.nodes[a.node_a].part == a.part);
          CHECK(s2.nodes[a.node_b].part == a.part);
          CHECK(s2.nodes[a.node_a].rank == a.from);
          ++per_part[a.part];
        }
      }
      // Each tree moves every segment up n - 1 edges and down n - 1 edges.
      CHECK(per_part[0] == 2 * 5 * 2 * channels);
      CHECK(per_part[1] == 2 * 5 * 2 * channels);
    }
  }

  TEST_CASE("channels: one strip per channel, its share of the elements sent") {
    for (int C : {2, 3}) {
      CAPTURE(C);
      RunParams p = params("ring", 4, 24);
      p.spec.channels = C;
      Session ses;
      ses.configure(p);
      const TopologyScene sc = build_topology(ses, 1, Vec2{600, 400});
      REQUIRE(static_cast<int>(sc.channels.size()) == C);
      double share = 0;
      for (int c = 0; c < C; ++c) {
        const ChannelStripDraw& d = sc.channels[c];
        CHECK(d.channel == c);
        CHECK(d.color == channel_color(c));
        CHECK(d.share == doctest::Approx(1.0 / C));
        CHECK(d.messages_step == 4);  // one ring step: every rank sends once per channel
        CHECK(d.y0 >= 400 - nccl_strips_height(ses));
        share += d.share;
      }
      CHECK(share == doctest::Approx(1.0));
      CHECK(sc.channels.front().x0 < sc.channels.back().x0);
      // Arrows wear their channel's colour.
      REQUIRE(sc.arrows.size() == static_cast<size_t>(4 * C));
      for (const ArrowDraw& a : sc.arrows) CHECK(a.tint == channel_color(a.channel));
      // The nodes stay above the strips.
      for (const NodeDraw& nd : sc.nodes) CHECK(nd.pos.y + nd.radius <= 400 - nccl_strips_height(ses));
    }
    Session one;
    one.configure(params("ring", 4, 24));
    CHECK(build_topology(one, 1, Vec2{600, 400}).channels.empty());
  }

  TEST_CASE("protocols: LL words and LL128 lines of a message turn over as it lands") {
    // ring, 3 ranks x 30 float32: each message is a chunk of 10 elements, 40 B.
    RunParams p = params("ring", 3, 30);
    p.protocol = Protocol::ll;
    Session ses;
    ses.configure(p);
    const TopologyScene half = build_topology(ses, 1, Vec2{600, 400}, 0.5f);
    const ProtocolStripDraw& ll = half.protocol;
    REQUIRE(ll.shown);
    CHECK(ll.bytes == 40);
    CHECK(ll.flags == 10);        // 40 B / 4 B of data per word
    CHECK(ll.wire_bytes == 80);   // 8-byte words
    CHECK(ll.set == 5);
    REQUIRE(ll.words.size() == 10);
    CHECK(ll.words[4].set);
    CHECK_FALSE(ll.words[5].set);
    CHECK(ll.words[0].flag_x0 - ll.words[0].x0 == doctest::Approx((ll.words[0].x1 - ll.words[0].x0) / 2).epsilon(0.1));
    CHECK(ll.title == "LL R0 -> R1: 40 B in 10 words of 4 B data + 4 B flag");
    CHECK(ll.detail == "80 B on the wire; flags 0 -> 1: 5 of 10 landed");
    CHECK(build_topology(ses, 1, Vec2{600, 400}, 1.f).protocol.set == 10);
    CHECK(build_topology(ses, 0, Vec2{600, 400}, 1.f).protocol.set == 0);  // upcoming: nothing landed

    p.protocol = Protocol::ll128;
    p.spec.count = 3 * 100;  // 100 elements a chunk: 400 B = 4 lines of 120 B
    ses.configure(p);
    const ProtocolStripDraw& l128 = build_topology(ses, 1, Vec2{600, 400}, 1.f).protocol;
    REQUIRE(l128.shown);
    CHECK(l128.bytes == 400);
    CHECK(l128.flags == 4);
    CHECK(l128.wire_bytes == 512);
    CHECK(l128.set == 4);
    CHECK(l128.words.size() == 4);

    p.protocol = Protocol::simple;
    ses.configure(p);
    CHECK_FALSE(build_topology(ses, 1, Vec2{600, 400}).protocol.shown);
    CHECK(nccl_strips_height(ses) == 0);
  }

  TEST_CASE("every registered all_reduce algorithm builds its scenes at 1..9 ranks") {
    for (const std::string& alg : algorithms_for(Collective::all_reduce)) {
      for (int n = 1; n <= 9; ++n) {
        CAPTURE(alg);
        CAPTURE(n);
        RunParams p = params(alg.c_str(), n, 2 * n);
        const AlgorithmInfo* info = find_algorithm(alg, Collective::all_reduce);
        REQUIRE(info);
        // Channels where the record takes them (the strips), else segments.
        if (info->channels) p.spec.channels = 2;
        else if (info->pipelines) p.spec.segments = 2;
        // Free mode: the run happens once in configure, and no paused rank
        // threads compete with the scene building for the cores.
        p.mode = Mode::free;
        Session ses;
        ses.configure(p);
        const int steps = ses.num_steps();
        for (int pos = 0; pos <= steps; ++pos) {
          const TopologyScene sc = build_topology(ses, pos, Vec2{500, 360}, 0.5f);
          for (const ArrowDraw& a : sc.arrows) {
            REQUIRE(a.node_a >= 0);
            REQUIRE(a.node_a < static_cast<int>(sc.nodes.size()));
            REQUIRE(a.node_b < static_cast<int>(sc.nodes.size()));
          }
          for (const LinkDraw& l : sc.links) {
            REQUIRE(l.a < static_cast<int>(sc.nodes.size()));
            REQUIRE(l.b < static_cast<int>(sc.nodes.size()));
          }
          const Stats st = build_stats(ses, pos);
          CHECK(static_cast<int>(st.sent.size()) == n);
        }
        BuffersLayout lay;
        CHECK(build_buffers(ses, 0, lay).rows.size() >= static_cast<size_t>(n));
      }
    }
  }

  TEST_CASE("the window names no algorithm: its opening run and the new algorithms' views come from the registry") {
    CHECK(viewer_algorithm() == "ring_unchunked");
    CHECK(RunParams{}.spec.algorithm == viewer_algorithm());
    // Issue 35: a new algorithm touches no file under app/. The names of its
    // algorithms appear in no source of the window.
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(MICRODDP_SOURCE_DIR) / "app" / "viz")) {
      std::ifstream f(e.path());
      std::stringstream ss;
      ss << f.rdbuf();
      const std::string text = ss.str();
      ++files;
      for (const char* alg : {"\"double_binary_tree\"", "\"nvls\"", "\"one_shot\"", "\"two_shot\"", "\"ring_unchunked\""}) {
        CAPTURE(e.path().string());
        CHECK_MESSAGE(text.find(alg) == std::string::npos, alg);
      }
    }
    CHECK(files > 40);
  }
}

TEST_SUITE("scene_nccl") {
  TEST_CASE("eight channels, eight colours (lesson 12 b4's channels 0 and 6 were alike)") {
    for (int a = 0; a < 8; ++a)
      for (int b = a + 1; b < 8; ++b) {
        INFO("channels ", a, " and ", b);
        CHECK_FALSE(channel_color(a) == channel_color(b));
      }
  }
}
