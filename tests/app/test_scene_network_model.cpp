// Scene building (app/viz/scene.h): the prediction on a topology: bytes per
// link class and port, presets, uncalibrated and unfitting topologies, and
// algorithm auto. No ImGui, no GL.
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
#include "tests/app/scene_topo.h"

using namespace microddp;
using namespace microddp::viz;

namespace {
using test::seed_ring;
}  // namespace
using test::topo_source;
using test::two_by_four;
using test::curve_hits;

TEST_SUITE("scene_network") {
  // Hand count, S = 256 bytes per rank, g = 4 ranks per node, N = 2 nodes.
  // Hierarchical: reduce-scatter in each node (3 steps, each rank sends S/4 =
  // 64 B to its intra ring neighbour), all-reduce across nodes among equal
  // local ranks (ring of 2 over the S/4 shard: 2 steps of S/8 = 32 B), then
  // all-gather in each node (3 steps of 64 B). Per rank: 6 x 64 = 384 B
  // intra, 2 x 32 = 64 B inter. Run: intra 8 x 384 = 3072 B, inter 8 x 64 =
  // 512 B; a node's NIC out carries its 4 ranks' 64 B = 256 B = 2(N-1)/N·S.
  TEST_CASE("hierarchical all-reduce on 2 x 4: bytes per class and port, time split by class") {
    Session ses;
    ses.set_source(topo_source());
    ses.configure(two_by_four("hierarchical"));
    REQUIRE(ses.num_steps() == 8);
    const Stats st = build_stats(ses, 4);  // after step 3: the first inter-node step
    CHECK(st.prediction_label == "predicted (topology 2x4, intra nvlink, inter infiniband, 1 NIC/node)");
    CHECK(st.nodes == 2);
    CHECK(st.ranks_per_node == 4);
    CHECK(st.intra_run == 3072);
    CHECK(st.inter_run == 512);
    CHECK(st.shown_step == 3);
    CHECK(st.intra_step == 0);
    CHECK(st.inter_step == 8 * 32);
    REQUIRE_FALSE(st.ports_step.empty());
    CHECK(st.ports_step[0].name == "node 0 NIC 0 out");  // 4 x 32 B out, and first of the equal NIC ports
    CHECK(st.ports_step[0].bytes == 128);
    CHECK(st.ports_step[0].bottleneck);
    CHECK(st.ports_step[0].inter);
    CHECK(st.ports_step[0].tied);  // both nodes' NIC out and in ports carry 4 x 32 B
    CHECK(st.bottleneck_step == "both NIC out and in ports, equally (128 B each)");
    // Whole run: the 16 intra ports carry 384 B each and lead by bytes; the
    // NIC out (256 B) is the bottleneck by time (4 messages a step at 2 us)
    // and stays listed, last.
    REQUIRE(st.ports_run.size() == 6);
    for (size_t i = 0; i < 5; ++i) {
      CHECK(st.ports_run[i].bytes == 384);
      CHECK_FALSE(st.ports_run[i].inter);
      CHECK_FALSE(st.ports_run[i].bottleneck);
    }
    CHECK(st.ports_run[5].name == "node 0 NIC 0 out");
    CHECK(st.ports_run[5].bytes == 256);
    CHECK(st.ports_run[5].bottleneck);
    CHECK(st.bottleneck_run == "both NIC out and in ports, equally (256 B each)");
    // Time by class (nvlink 1 us, 600e9 B/s; infiniband 2 us, 25e9 B/s):
    // 6 intra steps of one 64 B message per port; 2 inter steps of four 32 B
    // messages through one NIC port.
    REQUIRE(st.split);
    CHECK(st.by_class);
    CHECK(st.alpha_intra_us == doctest::Approx(6.0));
    CHECK(st.beta_intra_us == doctest::Approx(6 * 64 / 600e9 * 1e6));
    CHECK(st.alpha_inter_us == doctest::Approx(2 * 4 * 2.0));
    CHECK(st.beta_inter_us == doctest::Approx(2 * 128 / 25e9 * 1e6));
    CHECK(st.other_us == doctest::Approx(0.0).epsilon(1e-9));
    CHECK(st.predicted_us ==
          doctest::Approx(st.alpha_intra_us + st.beta_intra_us + st.alpha_inter_us + st.beta_inter_us));
    CHECK(st.measured_note.find("shared memory") != std::string::npos);

    // An intra step: each rank sends S/4 = 64 B on its own intra out port.
    const Stats s0 = build_stats(ses, 1);
    CHECK(s0.shown_step == 0);
    CHECK(s0.intra_step == 8 * 64);
    CHECK(s0.inter_step == 0);
    CHECK(s0.ports_step[0].name == "R0 intra out");
    CHECK(s0.ports_step[0].bytes == 64);
  }

  // Flat ring, 8 ranks: 2(p-1) = 14 steps, each rank sends one S/8 = 32 B
  // chunk per step to rank + 1. Only R3 -> R4 and R7 -> R0 cross nodes:
  // inter 2 x 14 x 32 = 896 B, intra 6 x 14 x 32 = 2688 B; node 0's NIC out
  // carries R3's 448 B = 1.75 S (vs 256 B = S for the hierarchical above).
  TEST_CASE("flat ring on 2 x 4: bytes per class and port, every step charged to the NIC") {
    Session ses;
    ses.set_source(topo_source());
    ses.configure(two_by_four("ring"));
    REQUIRE(ses.num_steps() == 14);
    const Stats st = build_stats(ses, 1);
    CHECK(st.intra_run == 2688);
    CHECK(st.inter_run == 896);
    CHECK(st.intra_step == 6 * 32);
    CHECK(st.inter_step == 2 * 32);
    CHECK(st.bottleneck_step == "both NIC out and in ports, equally (32 B each)");
    // Every used port carries 448 B over the run; the NIC out (2 us per
    // message) is the bottleneck and sorts first among the equals.
    REQUIRE_FALSE(st.ports_run.empty());
    CHECK(st.ports_run[0].name == "node 0 NIC 0 out");
    CHECK(st.ports_run[0].bytes == 448);
    CHECK(st.ports_run[0].bottleneck);
    for (const auto& pl : st.ports_run) CHECK(pl.bytes == 448);
    CHECK(st.alpha_intra_us == 0);
    CHECK(st.beta_intra_us == 0);
    CHECK(st.alpha_inter_us == doctest::Approx(14 * 2.0));
    CHECK(st.beta_inter_us == doctest::Approx(14 * 32 / 25e9 * 1e6));
  }

  TEST_CASE("a link preset: labelled, one class, the flat model's terms") {
    Session ses;
    PredictionSource src;
    src.kind = PredictionSource::Kind::preset;
    src.preset = "infiniband";
    ses.set_source(src);
    RunParams p = two_by_four("ring");
    p.spec.nodes = 1;
    ses.configure(p);
    const Stats st = build_stats(ses);
    CHECK(st.prediction_label == "predicted (preset infiniband)");
    CHECK(st.nodes == 1);
    CHECK(st.inter_run == 0);
    CHECK(st.intra_run == 8 * 14 * 32);
    CHECK_FALSE(st.by_class);
    // 14 steps of one 32 B message per rank: 14 x (2 us + 32 B / 25e9 B/s).
    CHECK(st.alpha_intra_us == doctest::Approx(28.0));
    CHECK(st.beta_intra_us == doctest::Approx(14 * 32 / 25e9 * 1e6));
    CHECK(st.predicted_us == doctest::Approx(28.0 + 14 * 32 / 25e9 * 1e6));
    // Changing the source re-prices without re-running.
    const int64_t ran = ses.real_steps_executed();
    src.preset = "nvlink";
    ses.set_source(src);
    CHECK(ses.prediction().source == "predicted (preset nvlink)");
    CHECK(ses.prediction().total_us == doctest::Approx(14 * (1.0 + 32 / 600e9 * 1e6)));
    CHECK(ses.real_steps_executed() == ran);
  }

  TEST_CASE("before any calibration: a named preset, labelled, with the calibrate hint") {
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CONFIG_HOME", "/nonexistent/microddp-test", 1);
    Session ses;
    ses.configure(seed_ring());
    CHECK(ses.prediction().available);
    CHECK(ses.prediction().source == "predicted (preset nvlink)");
    CHECK(ses.prediction().hint == "run `microddp calibrate` for this machine's numbers");
    // seed ring (unchunked): 2 steps of one 12-byte message per rank on nvlink (1 us).
    CHECK(ses.prediction().total_us == doctest::Approx(2 * (1.0 + 12 / 600e9 * 1e6)).epsilon(1e-9));
    if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
  }

  TEST_CASE("a topology that does not fit the run: predicted n/a with the reason") {
    Session ses;
    ses.set_source(topo_source());
    RunParams p = seed_ring();
    p.spec.nodes = 1;
    ses.configure(p);
    CHECK(ses.prediction().available);
    CHECK(ses.prediction().source == "predicted (topology 1x3, intra nvlink, inter infiniband, 1 NIC/node)");
    PredictionSource bad = topo_source();
    bad.inter = "carrier-pigeon";
    ses.set_source(bad);
    CHECK_FALSE(ses.prediction().available);
    CHECK(ses.prediction().source.find("carrier-pigeon") != std::string::npos);
  }

  TEST_CASE("algorithm auto: the fastest on the model in force, chosen again when the source changes") {
    RunParams p = two_by_four("auto");
    p.spec.world_size = 16;
    p.spec.count = 1 << 20;
    Session ses;
    ses.set_source(topo_source());
    ses.configure(p);
    CHECK(ses.params().spec.algorithm == "auto");
    // On nvlink inside and infiniband across, at 4 MiB per rank, the
    // hierarchical all-reduce keeps the heavy traffic off the NICs (at 256
    // KiB NCCL's double binary tree is predicted faster: few NIC crossings).
    CHECK(ses.schedule().spec.algorithm == "hierarchical");
    CHECK(ses.auto_choice().chosen == "hierarchical");
    CollectiveSpec spec = p.spec;
    Network net;
    net.topo = Topology::make(16, 2, 1);
    net.intra = preset("nvlink");
    net.inter = preset("infiniband");
    CHECK(choose_algorithm(spec, net.intra, &net).chosen == "hierarchical");
    const Stats st = build_stats(ses);
    CHECK(st.auto_text.rfind("auto chose hierarchical:", 0) == 0);
    CHECK(st.auto_short.rfind("auto chose hierarchical (", 0) == 0);
    // One flat link: the hierarchy buys nothing; the choice follows core's.
    PredictionSource flat;
    flat.kind = PredictionSource::Kind::preset;
    flat.preset = "nvlink";
    ses.set_source(flat);
    CHECK(ses.schedule().spec.algorithm == choose_algorithm(spec, preset("nvlink")).chosen);
    CHECK(ses.auto_choice().chosen == ses.schedule().spec.algorithm);
  }
}
