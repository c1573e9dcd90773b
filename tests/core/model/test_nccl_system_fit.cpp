// The NCCL-shaped tuner fitted to the shipped published nccl-tests tables
// (core/model/nccl_system_fit.h): the fitted systems' constants come back
// from their tables; a fit on one table meets issue 36's targets (median
// |error| <= 50% at <= 1 MiB, <= 25% at >= 512 MiB) on tables it was not
// fitted to; the profile round-trips; bad input.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/model/nccl_system_fit.h"
#include "core/model/nccl_tests.h"

using namespace microddp;
using namespace microddp::nccl;

namespace {

std::string data(const std::string& f) { return std::string(MICRODDP_SOURCE_DIR) + "/tests/data/nccl-tests/" + f; }

// The median |error| of one size range, -1 when the range has no row.
double range_error(const std::vector<RowComparison>& rows, const std::string& name) {
  for (const RangeError& g : error_by_range(rows))
    if (g.name == name) return g.median_abs_error_pct;
  return -1;
}

// Issue 36's targets on one table's comparison: every range present meets its bound.
void check_targets(const std::vector<RowComparison>& rows) {
  for (const char* small : {"<= 4 KiB", "4 KiB..1 MiB"}) {
    CAPTURE(small);
    CHECK(range_error(rows, small) <= 50.0);
  }
  CHECK(range_error(rows, ">= 512 MiB") <= 25.0);
}

}  // namespace

TEST_SUITE("nccl_system_fit") {
  TEST_CASE("the fitted systems' constants come back from the tables they cite") {
    struct Case {
      const char* system;
      const char* file;
      const char* base;
    };
    for (const Case& c : {Case{"oci-a100-g8", "a100-1x8-allreduce.txt", "dgx-a100"},
                          Case{"oci-a100-roce-2node", "a100-2x8-allreduce.txt", "dgx-a100"},
                          Case{"a3mega-h100-2node", "h100-2x8-allreduce.txt", "dgx-h100"}}) {
      CAPTURE(c.system);
      const SystemFit f = fit_system({load_nccl_tests(data(c.file))});
      CHECK(f.base == c.base);
      CHECK(f.launch_fitted);
      const SystemDesc& s = system_preset(c.system);
      CHECK(f.system.launch_us == doctest::Approx(s.launch_us).epsilon(1e-4));
      CHECK(f.system.bw_scale == doctest::Approx(s.bw_scale).epsilon(1e-4));
      const Constant& k = fitted(std::string("launchUs[") + c.system + "]");
      CHECK(std::string(k.source).find(std::string("tests/data/nccl-tests/") + c.file) != std::string::npos);
      CHECK(std::string(k.source).find(f.gpu) != std::string::npos);
      // NCCL's model as is misses a target on these tables; the fitted system meets them on its own table.
      const std::vector<RowComparison> as_is =
          compare_tuner(load_nccl_tests(data(c.file)), Collective::all_reduce,
                        with_ranks(system_preset(c.base), f.ranks));
      CHECK((range_error(as_is, "4 KiB..1 MiB") > 50.0 || range_error(as_is, ">= 512 MiB") > 25.0));
      check_targets(compare_tuner(load_nccl_tests(data(c.file)), Collective::all_reduce, s));
    }
    for (const Constant& k : fitted_table()) {
      CAPTURE(std::string(k.name));
      CHECK(std::string(k.source).find("NCCL") != std::string::npos);
      CHECK(std::string(k.source).find("base ") != std::string::npos);
      CHECK_FALSE(k.unit.empty());
    }
  }

  TEST_CASE("fit on h100-2x8-ib, held against h100-2x8-b, h100-8x8 and h200-2x8: the targets are met") {
    const SystemFit f = fit_system({load_nccl_tests(data("h100-2x8-ib-allreduce.txt"))});
    CHECK(f.base == "dgx-h100");
    CHECK(f.launch_rows.size() == 10);  // 8 .. 4096 B
    CHECK(f.bw_rows.size() == 6);       // 512 MiB .. 16 GiB
    CHECK(f.system.launch_us == doctest::Approx(3.676).epsilon(1e-3));
    CHECK(f.system.bw_scale == doctest::Approx(1.0111).epsilon(1e-3));
    // The same system, given another table's ranks (8 nodes for the 64-rank table).
    const auto held = [&](const char* file) {
      const NcclTestsTable t = load_nccl_tests(data(file), "all_reduce");
      SystemDesc s = with_ranks(f.system, t.world_size());
      return compare_tuner(t, Collective::all_reduce, s);
    };
    const auto b = held("h100-2x8-b-allreduce.txt");
    check_targets(b);
    CHECK(range_error(b, "4 KiB..1 MiB") == doctest::Approx(31.4).epsilon(0.01));  // one row: 1 MiB
    CHECK(range_error(b, ">= 512 MiB") == doctest::Approx(0.8).epsilon(0.1));
    const auto x8 = held("h100-8x8-allreduce.txt");
    check_targets(x8);
    CHECK(range_error(x8, "4 KiB..1 MiB") == doctest::Approx(13.6).epsilon(0.01));
    CHECK(range_error(x8, ">= 512 MiB") == doctest::Approx(12.6).epsilon(0.01));
    const auto h200 = held("h200-2x8-allreduce.txt");
    check_targets(h200);
    CHECK(range_error(h200, ">= 512 MiB") == doctest::Approx(3.4).epsilon(0.03));
    // NCCL's model as is (launch 0, scale 1) on the held-out table: the fit moves the small rows.
    const NcclTestsTable tb = load_nccl_tests(data("h100-2x8-b-allreduce.txt"), "all_reduce");
    CHECK(range_error(compare_tuner(tb, Collective::all_reduce, with_ranks(system_preset("dgx-h100"), 16)),
                      "4 KiB..1 MiB") > range_error(b, "4 KiB..1 MiB"));
  }

  TEST_CASE("a fit's profile round-trips through load_system_fit_profile") {
    const SystemFit f = fit_system({load_nccl_tests(data("a100-1x8-allreduce.txt"))});
    const std::string path = "/tmp/microddp-test-system-fit.json";
    write_system_fit_profile(path, f);
    const auto s = load_system_fit_profile(path);
    REQUIRE(s.has_value());
    CHECK(s->launch_us == f.system.launch_us);
    CHECK(s->bw_scale == f.system.bw_scale);
    CHECK(s->nodes == 1);
    CHECK(s->gpus_per_node == 8);
    CHECK(tune(*s, Collective::all_reduce, 64).best().time_us ==
          doctest::Approx(tune(f.system, Collective::all_reduce, 64).best().time_us));
    std::ofstream(path) << R"({"fit": {"model": "nccl-tuner", "system": "dgx-a100", "launch_us": -1, "bw_scale": 1,
                             "nodes": 1}})";
    CHECK_THROWS_WITH_AS(load_system_fit_profile(path), ("profile '" + path + "': fit.launch_us -1 is negative").c_str(),
                         UsageError);
    std::ofstream(path) << R"({"fit": {"model": "nccl-tuner", "system": "dgx-a100", "launch_us": 1, "nodes": 1}})";
    CHECK_THROWS_WITH_AS(load_system_fit_profile(path),
                         ("profile '" + path + "': fit.bw_scale is missing or not a number").c_str(), UsageError);
    std::ofstream(path) << R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-10})";
    CHECK_FALSE(load_system_fit_profile(path).has_value());
    std::remove(path.c_str());
  }

  TEST_CASE("bad input: exact messages") {
    const std::string gh = data("gh200-2x4-allreduce.txt");
    CHECK_THROWS_WITH_AS(fit_system({load_nccl_tests(gh)}),
                         (gh + ": its GPU 'NVIDIA GH200 120GB' matches no named NCCL system: give --nccl-system NAME "
                               "(one of dgx-a100, dgx-a100-2node, dgx-h100, dgx-h100-2node, hgx-h200, hgx-h200-2node, "
                               "pcie-a100, oci-a100-g8, oci-a100-roce-2node, a3mega-h100-2node) or --model alpha-beta")
                             .c_str(),
                         UsageError);
    SystemFitOptions o;
    o.base = "dgx-h100";
    CHECK_THROWS_WITH_AS(fit_system({load_nccl_tests(gh)}, o),
                         (gh + ": 8 ranks on 2 nodes of NVIDIA GH200 120GB has 4 ranks per node; NCCL system "
                               "dgx-h100 has 8 GPUs per node")
                             .c_str(),
                         UsageError);
    CHECK(system_for_gpu("NVIDIA A100 80GB PCIe") == "pcie-a100");
    CHECK(system_for_gpu("NVIDIA H200") == "hgx-h200");
    CHECK(system_for_gpu("Tesla V100-SXM2-32GB").empty());
  }
}
