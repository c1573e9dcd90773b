// A profile calibrated in the cluster lab: its "topology" object (per link
// class α and bandwidth, the shaped rate, the step barrier) survives a write
// and a read exactly, bad values are refused by name, and the network built
// from it prices intra- and inter-node messages each with its own class; the
// lab's topology, read from its environment, lands in records and bench rows.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/model/bench.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/topology_model.h"

using namespace microddp;

namespace {
std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("microddp-test-") + name)).string();
}
TopologyProfile sample() {
  TopologyProfile t;
  t.nodes = 2;
  t.ranks_per_node = 2;
  t.nics_per_node = 1;
  t.shaped_Bps = 25e6;
  t.barrier_s = 1e-3;
  t.intra = {4e-6, 1e10};
  t.inter = {1e-4, 2.4e7};
  return t;
}
std::string write_sample(const char* name, const TopologyProfile& t) {
  const std::string path = temp_path(name);
  CostParams flat;
  flat.name = "mpi-lab";
  flat.alpha = t.inter.alpha_s;
  flat.beta = 1.0 / t.inter.bandwidth_Bps;
  write_profile(path, flat, {{4, 1e-4}, {1 << 20, 0.044}});
  write_profile_topology(path, t);
  return path;
}
void edit(const std::string& path, const std::function<void(nlohmann::json&)>& f) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str());
  f(j);
  std::ofstream(path) << j.dump();
}
CollectiveSpec ring(int n, int64_t count, int nodes) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = count;
  s.nodes = nodes;
  return s;
}
}  // namespace

TEST_SUITE("lab_profile") {
  TEST_CASE("lab profile: the topology object round-trips beside the flat fields") {
    const TopologyProfile t = sample();
    const std::string path = write_sample("lab-roundtrip.json", t);
    const auto got = load_profile_topology(path);
    REQUIRE(got);
    CHECK(got->nodes == 2);
    CHECK(got->ranks_per_node == 2);
    CHECK(got->nics_per_node == 1);
    CHECK(got->shaped_Bps == 25e6);
    CHECK(got->barrier_s == 1e-3);
    CHECK(got->intra.alpha_s == 4e-6);
    CHECK(got->intra.bandwidth_Bps == 1e10);
    CHECK(got->inter.alpha_s == 1e-4);
    CHECK(got->inter.bandwidth_Bps == 2.4e7);
    // The flat part still loads as before, and the object has the documented keys.
    const CostParams flat = load_profile(path);
    CHECK(flat.alpha == 1e-4);
    edit(path, [](nlohmann::json& j) {
      CHECK(j["topology"]["inter"]["shaped_Bps"] == 25e6);
      CHECK(!j["topology"]["intra"].contains("shaped_Bps"));
    });
    std::filesystem::remove(path);
  }

  TEST_CASE("lab profile: no topology object = nullopt; a bad one is refused by name") {
    const std::string path = temp_path("lab-bad.json");
    write_profile(path, CostParams{}, {});
    CHECK(!load_profile_topology(path));
    write_profile_topology(path, sample());
    edit(path, [](nlohmann::json& j) { j["topology"]["inter"]["bandwidth_Bps"] = -5; });
    CHECK_THROWS_WITH_AS(load_profile_topology(path), doctest::Contains("topology.inter.bandwidth_Bps = -5"), UsageError);
    write_profile_topology(path, sample());
    edit(path, [](nlohmann::json& j) { j["topology"]["ranks_per_node"] = 0; });
    CHECK_THROWS_WITH_AS(load_profile_topology(path), doctest::Contains("topology.ranks_per_node = 0"), UsageError);
    std::filesystem::remove(path);
  }

  TEST_CASE("lab profile: the network prices each link class with its own numbers") {
    const TopologyProfile t = sample();
    CostParams base;  // γ = δ = 0: only the links and the barrier count
    const int64_t S = int64_t{4} << 20, count = S / 4;
    // Two nodes of one rank: a 2-rank ring is 2 steps of one S/2 message over
    // the NIC, each α_inter + (S/2)/bw_inter, plus the measured barrier.
    const Network across = network_from_profile(t, base, 2, 2);
    CHECK(across.topo.nodes == 2);
    CHECK(across.topo.ranks_per_node == 1);
    const NetworkPrediction a = predict(make_schedule(ring(2, count, 2)), across);
    CHECK(a.bytes_inter == 2 * S);  // both ranks send S/2 in each of the 2 steps
    CHECK(a.bytes_intra == 0);
    CHECK(a.pr.lockstep_s == doctest::Approx(2 * (1e-4 + (S / 2) / 2.4e7) + 2 * 1e-3).epsilon(1e-12));
    // The same ring on one node: the intra class.
    const Network inside = network_from_profile(t, base, 2, 1);
    const NetworkPrediction b = predict(make_schedule(ring(2, count, 1)), inside);
    CHECK(b.bytes_intra == 2 * S);
    CHECK(b.pr.lockstep_s == doctest::Approx(2 * (4e-6 + (S / 2) / 1e10) + 2 * 1e-3).epsilon(1e-12));
    // Nodes and ranks per node come from the profile unless given.
    CHECK(network_from_profile(t, base, 4).topo.nodes == 2);
    CHECK(network_from_profile(t, base, 8, 2).topo.ranks_per_node == 4);
  }

  TEST_CASE("lab profile: a class the placement needs but the lab did not measure is refused") {
    TopologyProfile one_per_node = sample();
    one_per_node.ranks_per_node = 1;
    one_per_node.intra = {};
    CHECK_NOTHROW(network_from_profile(one_per_node, CostParams{}, 3, 3));
    CHECK_THROWS_WITH_AS(network_from_profile(one_per_node, CostParams{}, 4, 2),
                         doctest::Contains("no intra-node measurement"), UsageError);
    TopologyProfile one_node = sample();
    one_node.nodes = 1;
    one_node.inter = {};
    CHECK_THROWS_WITH_AS(network_from_profile(one_node, CostParams{}, 4, 2), doctest::Contains("no inter-node measurement"),
                         UsageError);
  }

  TEST_CASE("lab profile: the shaped-rate diagnosis speaks only beyond 10%") {
    CHECK(shaped_rate_diagnosis(23.8e6, 25e6, 1, 0.1).empty());    // 95%
    CHECK(shaped_rate_diagnosis(27.4e6, 25e6, 1, 0.1).empty());    // 109.6%
    const std::string low = shaped_rate_diagnosis(20e6, 25e6, 1, 0.9);
    CHECK(low.find("80% of the shaped 25.000 MB/s") != std::string::npos);
    CHECK(low.find("CPU-bound TCP stack") != std::string::npos);
    CHECK(low.find("90% busy") != std::string::npos);
    const std::string high = shaped_rate_diagnosis(30e6, 25e6, 1, 0.1);
    CHECK(high.find("120%") != std::string::npos);
    CHECK(high.find("burst") != std::string::npos);
    // Two NICs: the cap is twice the rate.
    CHECK(shaped_rate_diagnosis(48e6, 25e6, 2, 0.1).empty());
  }

  TEST_CASE("cluster lab: the topology read from the environment goes into records and bench rows") {
    ::setenv("MICRODDP_CLUSTER_NODES", "2", 1);
    ::setenv("MICRODDP_CLUSTER_RANKS_PER_NODE", "4", 1);
    ::setenv("MICRODDP_CLUSTER_NIC_BPS", "200000000", 1);
    ::setenv("MICRODDP_CLUSTER_NICS_PER_NODE", "1", 1);
    ::setenv("MICRODDP_CLUSTER_INTRA", "shm", 1);
    ::setenv("MICRODDP_CLUSTER_INTER", "tcp", 1);
    const auto lab = cluster_lab_from_env();
    REQUIRE(lab);
    const std::string js = cluster_lab_json(*lab);
    CHECK(js == R"({"nodes": 2, "ranks_per_node": 4, "nic_bps": 200000000, "nics_per_node": 1, "intra": "shm", )"
                R"("inter": "tcp"})");
    // A record keeps it; one without it reads back without it.
    CollectiveSpec s = ring(2, 4, 1);
    RunRecord r;
    r.spec = s;
    r.inputs = fill_data(s, "random:3");
    const RunResult res = run_threads(make_schedule(s), r.inputs);
    r.outputs = res.outputs;
    r.trace = res.trace;
    r.cluster = js;
    CHECK(nlohmann::json::parse(record_from_json(record_to_json(r)).cluster) == nlohmann::json::parse(js));
    r.cluster.clear();
    CHECK(record_from_json(record_to_json(r)).cluster.empty());
    // A bench row: nodes, the auto pick and the lab, only when set.
    BenchRow row;
    row.algorithm = "auto";
    row.auto_pick = "hierarchical";
    row.nodes = 2;
    row.cluster = js;
    const nlohmann::json j = nlohmann::json::parse(bench_json_row(row));
    CHECK(j["nodes"] == 2);
    CHECK(j["auto_pick"] == "hierarchical");
    CHECK(j["cluster"]["nic_bps"] == 200000000);
    CHECK(!nlohmann::json::parse(bench_json_row(BenchRow{})).contains("cluster"));
    // Outside the lab: nothing; a malformed count: nothing.
    ::setenv("MICRODDP_CLUSTER_RANKS_PER_NODE", "four", 1);
    CHECK(!cluster_lab_from_env());
    for (const char* k : {"MICRODDP_CLUSTER_NODES", "MICRODDP_CLUSTER_RANKS_PER_NODE", "MICRODDP_CLUSTER_NIC_BPS",
                          "MICRODDP_CLUSTER_NICS_PER_NODE", "MICRODDP_CLUSTER_INTRA", "MICRODDP_CLUSTER_INTER"})
      ::unsetenv(k);
    CHECK(!cluster_lab_from_env());
  }
}  // TEST_SUITE
