// Scene building (app/viz/scene.h), the topology view: node positions,
// layout hints, arrows and their badges, order-dependent cells, chunk
// colours, and 'root'. No ImGui, no GL.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/scene.h"
#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/reference.h"
#include "core/model/calibrate/calibrate.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "tests/app/seed_ring.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("node positions are distinct and inside the canvas for every layout") {
    struct Case {
      Collective c;
      const char* alg;
      int n;
      TopologyKind kind;
    };
    const Case cases[] = {
        {Collective::all_reduce, "ring_unchunked", 3, TopologyKind::ring},
        {Collective::all_reduce, "ring", 16, TopologyKind::ring},
        {Collective::all_reduce, "tree", 7, TopologyKind::tree},
        {Collective::broadcast, "binomial", 8, TopologyKind::tree},
        {Collective::reduce, "naive", 5, TopologyKind::star},
        {Collective::all_reduce, "recursive_doubling", 8, TopologyKind::hypercube},
        {Collective::all_reduce, "halving_doubling", 6, TopologyKind::hypercube},
        {Collective::all_to_all, "naive", 4, TopologyKind::circle},
        {Collective::all_reduce, "ring", 1, TopologyKind::ring},
    };
    for (const Case& c : cases) {
      CAPTURE(c.alg);
      CAPTURE(c.n);
      RunParams p;
      p.spec.collective = c.c;
      p.spec.algorithm = c.alg;
      p.spec.world_size = c.n;
      p.spec.count = 2 * c.n;
      Session ses;
      ses.configure(p);
      const TopologyScene sc = build_topology(ses, 0, Vec2{400, 300});
      CHECK(sc.kind == c.kind);
      REQUIRE(static_cast<int>(sc.nodes.size()) == c.n);
      std::set<std::pair<int, int>> seen;
      for (const NodeDraw& nd : sc.nodes) {
        CHECK(nd.pos.x - nd.radius >= 0);
        CHECK(nd.pos.y - nd.radius >= 0);
        CHECK(nd.pos.x + nd.radius <= 400);
        CHECK(nd.pos.y + nd.radius <= 300);
        CHECK(seen.insert({int(nd.pos.x * 4), int(nd.pos.y * 4)}).second);
      }
    }
  }

  TEST_CASE("a new algorithm is laid out by its registry hint") {
    // A toy all_gather (every rank sends its block to every other rank in
    // one step) that asks for the hypercube layout: the viewer must follow
    // the hint, not the name.
    AlgorithmInfo toy;
    toy.name = "toy_direct";
    toy.description = "test toy: all_gather in one step";
    toy.layout = Layout::hypercube;
    toy.serves.push_back({Collective::all_gather, [](const CollectiveSpec& s) {
                            ScheduleBuilder b(s);
                            const int n = s.world_size;
                            for (int r = 0; r < n; ++r)
                              b.copy_first(r, {Buf::input, 0}, {Buf::output, s.displ(r)}, s.block(r), r);
                            b.step("exchange");
                            for (int r = 0; r < n; ++r)
                              for (int q = 0; q < n; ++q)
                                if (q != r) {
                                  b.send(r, q, {Buf::input, 0}, s.block(r), r);
                                  b.recv(q, r, {Buf::output, s.displ(r)}, s.block(r), r);
                                }
                            return b.finish();
                          },
                          std::nullopt});
    register_algorithm(toy);
    RunParams p;
    p.spec.collective = Collective::all_gather;
    p.spec.algorithm = "toy_direct";
    p.spec.world_size = 4;
    p.spec.count = 2;
    Session ses;
    ses.configure(p);
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 300});
    CHECK(sc.kind == TopologyKind::hypercube);
    CHECK(sc.nodes.size() == 4);
    CHECK(topology_kind(p.spec) == TopologyKind::hypercube);
    unregister_algorithm("toy_direct", Collective::all_gather);
    // Unknown now: drawn on a circle.
    CHECK(topology_kind(p.spec) == TopologyKind::circle);
  }

  TEST_CASE("one arrow per transfer of the shown step") {
    for (const char* alg : {"ring_unchunked", "ring", "tree", "naive", "halving_doubling"}) {
      CAPTURE(alg);
      RunParams p;
      p.spec.algorithm = alg;
      p.spec.world_size = 5;
      p.spec.count = 10;
      Session ses;
      ses.configure(p);
      const Schedule& s = ses.schedule();
      for (int k = 1; k <= s.num_steps(); ++k) {
        int sends = 0;
        for (const auto& ops : s.steps[k - 1].ranks)
          for (const Op& o : ops) sends += o.kind == OpKind::send;
        const TopologyScene sc = build_topology(ses, k, Vec2{500, 400});
        CHECK(sc.shown_step == k - 1);
        CHECK(static_cast<int>(sc.arrows.size()) == sends);
        for (const ArrowDraw& a : sc.arrows) CHECK(a.from != a.to);
      }
      CHECK(build_topology(ses, 0, Vec2{500, 400}).upcoming);
    }
  }

  TEST_CASE("seed ring at step 1: arrows carry each rank's own input, badges coloured by sender") {
    Session ses;
    ses.configure(seed_ring());
    ses.step();
    const TopologyScene sc = build_topology(ses, 1, Vec2{400, 400});
    REQUIRE(sc.arrows.size() == 3);
    for (const ArrowDraw& a : sc.arrows) {
      CHECK(a.to == (a.from + 1) % 3);
      REQUIRE(a.stripes.size() == 1);
      CHECK(a.stripes[0] == rank_color(a.from));
      CHECK(a.bytes == 12);
    }
  }

  TEST_CASE("order-dependent output cells are marked at the end, with a one-line legend") {
    RunParams p;
    p.spec.algorithm = "naive";
    p.spec.world_size = 4;
    p.spec.count = 1;
    p.spec.dtype = DType::float16;
    p.data = "65504;1;65504;-65504";
    Session ses;
    ses.configure(p);
    REQUIRE(ses.order_dependence().count == 4);  // every rank's one element
    ses.seek(ses.num_steps());
    const BuffersScene end = build_buffers(ses, ses.num_steps(), BuffersLayout{});
    int marked = 0;
    for (const auto& row : end.rows)
      for (const auto& c : row.cells) {
        CHECK(c.order_dependent == (row.buf == Buf::output));
        marked += c.order_dependent;
      }
    CHECK(marked == 4);
    CHECK(end.order_legend ==
          "order-dependent (cells with a corner mark): rank 0, element 0: 65504 + 65504 = 131008 overflows float16 at "
          "step 1 on rank 0 (naive's order gives inf, the double-precision reference 65504); tree's order gives 65504");
    // Not before the end, and not for an order within the bound.
    CHECK(build_buffers(ses, 1, BuffersLayout{}).order_legend.empty());
    p.spec.algorithm = "tree";
    ses.configure(p);
    CHECK(ses.order_dependence().count == 0);
    ses.seek(ses.num_steps());
    CHECK(build_buffers(ses, ses.num_steps(), BuffersLayout{}).order_legend.empty());
  }

  TEST_CASE("chunk colours and values follow the provenance and the trace") {
    Session ses;
    ses.configure(seed_ring());
    ses.step();
    BuffersLayout lay;
    const BuffersScene sc = build_buffers(ses, 1, lay);
    CHECK(sc.values);
    // 3 ranks x (input, send_buff, recv_buff, accum, output)
    REQUIRE(sc.rows.size() == 15);
    const BufferRowDraw* accum0 = nullptr;
    for (const auto& row : sc.rows)
      if (row.rank == 0 && row.buf == Buf::accum) accum0 = &row;
    REQUIRE(accum0 != nullptr);
    REQUIRE(accum0->cells.size() == 3);
    // R0's accum = T0 + T2 = 8, 10, 12: stripes of R0 and R2, not complete.
    const char* want[] = {"8", "10", "12"};
    for (int i = 0; i < 3; ++i) {
      const CellDraw& c = accum0->cells[i];
      CHECK(c.text == want[i]);
      CHECK(c.mask == 0b101);
      CHECK_FALSE(c.complete);
      CHECK(c.changed);
      REQUIRE(c.stripes.size() == 2);
      CHECK(c.stripes[0] == rank_color(0));
      CHECK(c.stripes[1] == rank_color(2));
    }
    // The swap pairs send_buff and recv_buff of every rank.
    for (const auto& row : sc.rows)
      if (row.buf == Buf::send_buff) {
        REQUIRE(row.swap_partner >= 0);
        CHECK(sc.rows[row.swap_partner].buf == Buf::recv_buff);
      }
    ses.step();
    const BuffersScene end = build_buffers(ses, 2, lay);
    for (const auto& row : end.rows)
      if (row.buf == Buf::output)
        for (const auto& c : row.cells) {
          CHECK(c.complete);
          CHECK(c.stripes == std::vector<Rgba>{complete_color()});
        }
  }

  TEST_CASE("'root' only where the collective or the algorithm has one") {
    const auto roots = [](Collective c, const char* alg) {
      RunParams p;
      p.spec.collective = c;
      p.spec.algorithm = alg;
      p.spec.world_size = 4;
      p.spec.count = c == Collective::barrier ? 0 : 4;
      Session ses;
      ses.configure(p);
      int k = 0;
      for (const NodeDraw& nd : build_topology(ses, 1, Vec2{400, 300}).nodes) k += nd.root;
      return k;
    };
    CHECK(roots(Collective::barrier, "dissemination") == 0);
    CHECK(roots(Collective::all_gather, "recursive_doubling") == 0);
    CHECK(roots(Collective::broadcast, "tree") == 1);
    CHECK(roots(Collective::reduce, "naive") == 1);
    // No root on the composed collectives' symmetric algorithms either; the
    // rooted ones (a star, a tree through rank 0) keep theirs.
    CHECK(roots(Collective::all_reduce, "recursive_doubling") == 0);
    CHECK(roots(Collective::all_reduce, "halving_doubling") == 0);
    CHECK(roots(Collective::all_reduce, "ring") == 0);
    CHECK(roots(Collective::all_to_all, "naive") == 0);  // pairwise exchange
    CHECK(roots(Collective::gather, "binomial") == 1);
    CHECK(roots(Collective::all_reduce, "tree") == 1);
  }
}
