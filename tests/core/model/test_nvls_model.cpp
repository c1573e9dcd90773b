// In-network reduction (core/algorithms/nvls.cpp) in the cost models: the
// switch endpoint on the flat model and as a port class of the network model.
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"

using namespace microddp;

namespace {
CollectiveSpec nvls(int n, int64_t count, DType t = DType::float32, ReduceOp op = ReduceOp::sum, int segments = 1) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "nvls";
  s.world_size = n;
  s.count = count;
  s.dtype = t;
  s.op = op;
  s.segments = segments;
  return s;
}
}  // namespace

TEST_SUITE("nvls_model") {
  TEST_CASE("flat model: the switch is one endpoint with one port; the closed form by hand") {
    CostParams p;
    p.alpha = 1.0 / 1024;
    p.beta = 1.0 / (1 << 20);
    p.gamma = 1.0 / (1 << 22);
    const CollectiveSpec sp = nvls(4, 256);  // S = 1024 B
    const double S = 1024, want = 2 * 4 * (p.alpha + S * p.beta) + 3 * S * p.gamma;
    REQUIRE(closed_form(sp, p));
    CHECK(closed_form(sp, p)->total() == doctest::Approx(want).epsilon(1e-12));
    const Prediction pr = predict(make_schedule(sp), p);
    CHECK(pr.lockstep_s == doctest::Approx(want).epsilon(1e-12));
    CHECK(pr.critical_rank[0] == 4);  // the switch, both steps
    CHECK(pr.critical_rank[1] == 4);
    CHECK(closed_form_text(sp).rfind("2n·(α + S·β) + (n-1)·S·γ", 0) == 0);
  }

  TEST_CASE("network model: a switch class prices one port per rank; without one the switch is a thread") {
    Network net;
    net.topo = Topology::make(8, 1, 1);
    net.intra.alpha = 1e-6;
    net.intra.beta = 1.0 / 450e9;
    net.intra.gamma = 1e-12;
    CostParams sw;
    sw.alpha = 2e-6;
    sw.beta = 1.0 / 300e9;
    net.nvls = sw;
    const CollectiveSpec sp = nvls(8, 1 << 20);  // S = 4 MiB
    const double S = 4.0 * (1 << 20);
    const Schedule s = make_schedule(sp);
    const NetworkPrediction np = predict(s, net);
    // each step: max(rank link, switch port) = the switch port (slower here); no γ on the switch
    const double want = 2 * (2e-6 + S / 300e9);
    CHECK(np.pr.lockstep_s == doctest::Approx(want).epsilon(1e-12));
    CHECK(np.pr.lockstep.gamma_s == 0);
    REQUIRE(closed_form(sp, net));
    CHECK(closed_form(sp, net)->total() == doctest::Approx(want).epsilon(1e-12));
    // the switch's ports: S in from each rank, S out to each
    const int in3 = port_id(net.topo, Port{PortKind::switch_in, 3, 0});
    const int out5 = port_id(net.topo, Port{PortKind::switch_out, 5, 0});
    CHECK(np.port_bytes[in3] == static_cast<int64_t>(S));
    CHECK(np.port_bytes[out5] == static_cast<int64_t>(S));
    CHECK(port_name(net.topo, in3) == "SW in from R3");
    CHECK(port_name(net.topo, out5) == "SW out to R5");
    CHECK(np.bytes_intra == static_cast<int64_t>(2 * 8 * S));
    // segments = 4: 5 steps of S/4 each way at once
    const CollectiveSpec sp4 = nvls(8, 1 << 20, DType::float32, ReduceOp::sum, 4);
    const double want4 = 5 * (2e-6 + S / 4 / 300e9);
    CHECK(predict(make_schedule(sp4), net).pr.lockstep_s == doctest::Approx(want4).epsilon(1e-12));
    CHECK(closed_form(sp4, net)->total() == doctest::Approx(want4).epsilon(1e-12));
    // without a switch class: the flat model's switch thread, bit for bit
    net.nvls.reset();
    CHECK(predict(s, net).pr.lockstep_s == doctest::Approx(predict(s, net.intra).lockstep_s).epsilon(1e-12));
    // the dgx-h100 preset carries the switch class, with its source
    const NamedNetwork& dgx = network_preset("dgx-h100");
    REQUIRE(dgx.nvls);
    CHECK(dgx.nvls->bandwidth() == doctest::Approx(450e9));
    CHECK(dgx.nvls_source.find("DGX H100") != std::string::npos);
  }

  TEST_CASE("auto on one flat link: nvlink's NVSwitch reduces, presets without one leave nvls out, profiles unchanged") {
    CollectiveSpec sp = nvls(8, 1024);  // 4 KiB per rank
    sp.algorithm = "auto";
    const auto nv = flat_preset_switch(preset("nvlink"), 8);
    REQUIRE(nv);
    CHECK(nv->topo.nodes == 1);
    CHECK(nv->nvls->alpha == preset("nvlink").alpha);
    CHECK_FALSE(flat_preset_switch(preset("infiniband"), 8));
    CHECK(flat_preset_without_switch(preset("infiniband")));
    CHECK(flat_preset_without_switch(preset("ethernet-10g")));
    CHECK_FALSE(flat_preset_without_switch(preset("nvlink")));
    // nvlink: nvls 2 α + S·β on 8 ranks is the lowest (recursive doubling 3 α).
    const AutoChoice on_nvlink = choose_algorithm_flat(sp, preset("nvlink"), true);
    CHECK(on_nvlink.chosen == "nvls");
    CHECK(on_nvlink.chosen == choose_algorithm(sp, preset("nvlink"), &*nv).chosen);
    // infiniband: nvls is not a candidate at all.
    const AutoChoice on_ib = choose_algorithm_flat(sp, preset("infiniband"), true);
    CHECK(on_ib.chosen != "nvls");
    for (const auto& c : on_ib.candidates) CHECK(c.algorithm != "nvls");
    // A profile's link (its name is no preset's) or is_preset = false: the
    // plain choice, the switch a thread with one port.
    CostParams prof = preset("nvlink");
    prof.name = "threads";
    CHECK(choose_algorithm_flat(sp, prof, true).chosen == choose_algorithm(sp, prof).chosen);
    CHECK(choose_algorithm_flat(sp, preset("nvlink"), false).chosen == choose_algorithm(sp, preset("nvlink")).chosen);
  }
}
