// bench: Open MPI 4.1's fixed allreduce rule and the reference row that names
// its algorithm, size parsing, and the predicted column (cache curve, ε).
#include <fmt/format.h>
#include <doctest/doctest.h>

#include "approx.h"

#include <cmath>
#include <limits>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "bench_tiny.h"

using namespace microddp;
using bench_test::tiny;

TEST_SUITE("bench") {
  TEST_CASE("Open MPI 4.1's fixed allreduce rule at its switch points") {
    // ompi_coll_tuned_allreduce_intra_dec_fixed (coll_tuned_decision_fixed.c,
    // Open MPI v4.1.x), commutative ops: each threshold is "below".
    struct P {
      int ranks;
      int64_t bytes;
      const char* alg;
    };
    for (const P& p : {P{2, 4, "ring"}, P{2, 8, "recursive_doubling"}, P{2, 4095, "recursive_doubling"},
                       P{2, 4096, "ring"}, P{2, 8192, "recursive_doubling"}, P{3, 16384, "ring"},
                       P{3, 65536, "segmented_ring"}, P{3, 262143, "segmented_ring"}, P{3, 262144, "rabenseifner"},
                       P{4, 15, "ring"}, P{4, 16, "recursive_doubling"}, P{7, 8192, "rabenseifner"},
                       P{8, 8191, "recursive_doubling"}, P{8, 8192, "rabenseifner"}, P{16, 63, "segmented_ring"},
                       P{16, 64, "recursive_doubling"}, P{32, 127, "segmented_ring"}, P{64, 262143, "recursive_doubling"},
                       P{128, 131071, "nonoverlapping"}, P{256, 4096, "rabenseifner"}, P{1024, 2047, "nonoverlapping"},
                       P{2048, 4095, "segmented_ring"}, P{4096, 16384, "recursive_doubling"},
                       P{4096, 32768, "rabenseifner"}}) {
      CAPTURE(p.ranks);
      CAPTURE(p.bytes);
      CHECK(openmpi41_allreduce_fixed_rule(p.ranks, p.bytes) == p.alg);
    }
    // Non-commutative ops: no ring or rabenseifner.
    CHECK(openmpi41_allreduce_fixed_rule(2, 131071, false) == "recursive_doubling");
    CHECK(openmpi41_allreduce_fixed_rule(2, 131072, false) == "basic_linear");
    CHECK(openmpi41_allreduce_fixed_rule(8, 1 << 20, false) == "nonoverlapping");
    CHECK(openmpi41_allreduce_fixed_rule(1, 4096).empty());
  }

  TEST_CASE("the reference row names Open MPI's algorithm: forced, fixed rule or unknown, and why") {
    MpiCollSettings s;
    s.read = true;
    s.library = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
    s.function = "MPI_Allreduce";
    s.tuned_priority = 30;
    s.priorities = {{"basic", 10}, {"sm", 0}, {"han", 0}, {"adapt", 0}};
    s.forced_param = "coll_tuned_allreduce_algorithm";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) == "ring (Open MPI 4.1 fixed rule)");
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 8, 1 << 20) == "rabenseifner (Open MPI 4.1 fixed rule)");
    // A forced algorithm counts only with dynamic rules on.
    s.forced = "recursive_doubling";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) == "ring (Open MPI 4.1 fixed rule)");
    s.dynamic_rules = true;
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) ==
          "recursive_doubling (forced: coll_tuned_allreduce_algorithm)");
    s.rules_file = "/etc/rules.conf";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) ==
          "unknown (coll/tuned dynamic rules file /etc/rules.conf)");
    s.dynamic_rules = false;
    // Another component above tuned, or tuned left out of "coll".
    s.priorities.push_back({"han", 35});
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) ==
          "unknown (coll/han priority 35 is not below coll/tuned's 30)");
    s.priorities.pop_back();
    s.coll = "^tuned";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) ==
          "unknown (coll/tuned not selected: coll = \"^tuned\")");
    s.coll = "basic,self";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096).rfind("unknown (coll/tuned not selected", 0) == 0);
    s.coll = "^han";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096) == "ring (Open MPI 4.1 fixed rule)");
    // Not modelled: other collectives' fixed rules, other versions; and the settings unread.
    s.function = "MPI_Bcast";
    CHECK(mpi_algorithm_label(s, Collective::broadcast, 2, 4096) ==
          "unknown (coll/tuned's fixed rule for MPI_Bcast is not modelled here)");
    s.function = "MPI_Allreduce";
    s.library = "Open MPI v5.0.3, package: Open MPI";
    CHECK(mpi_algorithm_label(s, Collective::all_reduce, 2, 4096).rfind("unknown (the fixed rule modelled is Open MPI 4.1's", 0) == 0);
    CHECK(mpi_algorithm_label(MpiCollSettings{}, Collective::all_reduce, 2, 4096) ==
          "unknown (the MCA settings could not be read through MPI_T)");
    // The row carries it: JSON "mpi_algorithm", a footer line per run of sizes.
    BenchRow r;
    r.algorithm = r.backend = "mpi";
    r.world_size = 2;
    std::vector<BenchRow> rows;
    for (auto [bytes, alg] : {std::pair<int64_t, const char*>{4096, "ring"}, {8192, "recursive_doubling"},
                              {16384, "ring"}, {32768, "ring"}}) {
      r.bytes = bytes;
      r.mpi_algorithm = std::string(alg) + " (Open MPI 4.1 fixed rule)";
      rows.push_back(r);
    }
    CHECK(nlohmann::json::parse(bench_json_row(rows[1]))["mpi_algorithm"] == "recursive_doubling (Open MPI 4.1 fixed rule)");
    rows[0].mpi_algorithm = "unknown (coll = \"^tuned\")";
    CHECK(nlohmann::json::parse(bench_json_row(rows[0]))["mpi_algorithm"] == "unknown (coll = \"^tuned\")");
    rows[0].mpi_algorithm = "ring (Open MPI 4.1 fixed rule)";
    const std::string f = bench_table_footer(rows);
    CHECK(f.find("# Open MPI's algorithm : all_reduce on 2 ranks, 4096 B: ring (Open MPI 4.1 fixed rule)\n"
                 "# Open MPI's algorithm : all_reduce on 2 ranks, 8192 B: recursive_doubling (Open MPI 4.1 fixed rule)\n"
                 "# Open MPI's algorithm : all_reduce on 2 ranks, 16384 B to 32768 B: ring (Open MPI 4.1 fixed rule)\n") !=
          std::string::npos);
    r.algorithm = "ring";
    r.mpi_algorithm.clear();
    CHECK_FALSE(nlohmann::json::parse(bench_json_row(r)).contains("mpi_algorithm"));
  }

  TEST_CASE("sizes: parse and errors name the value") {
    CHECK(parse_size("4K") == 4096);
    CHECK(parse_size("64M") == 64 << 20);
    CHECK(parse_size("1G") == int64_t{1} << 30);
    CHECK(parse_size("1e9") == 1000000000);
    CHECK(parse_size("512") == 512);
    CHECK_THROWS_WITH_AS(parse_size("-4K"), doctest::Contains("-4K"), UsageError);
    CHECK_THROWS_WITH_AS(parse_size("4Q"), doctest::Contains("4Q"), UsageError);
    CHECK_THROWS_WITH_AS(parse_size("lots"), doctest::Contains("lots"), UsageError);
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.min_bytes = 8192;
    o.max_bytes = 4096;
    CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("8192"), UsageError);
    o = tiny(Collective::all_reduce, 2);
    o.factor = 1;
    CHECK_THROWS_AS(run_bench(o), UsageError);
    o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"carrier_pigeon"};
    CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("carrier_pigeon"), UsageError);
    o = tiny(Collective::all_reduce, 2);
    o.backend = "smoke_signals";
    CHECK_THROWS_WITH_AS(run_bench(o), doctest::Contains("smoke_signals"), UsageError);
  }

  TEST_CASE("predicted column: the model in the bench's mode plus the one closing barrier") {
    BenchOptions o = tiny(Collective::all_reduce, 3);
    o.algorithms = {"ring", "tree"};
    o.check = false;
    o.params->barrier_s = {1e-6, 4e-6};
    o.params->mem_bw_Bps = {1e9};
    for (Mode m : {Mode::lockstep, Mode::free}) {
      o.mode = m;
      for (const auto& r : run_bench(o)) {
        CAPTURE(r.algorithm);
        CAPTURE(r.bytes);
        const Prediction p = predict(make_schedule(bench_spec(o, r.algorithm, r.bytes)), *o.params);
        const double want = ((m == Mode::lockstep ? p.lockstep_s : p.pipelined_s) + 4e-6) * 1e6;
        CHECK(r.predicted_us == doctest::Approx(want).epsilon(1e-12));
      }
    }
  }

  TEST_CASE("predicted column with a cache curve: steps priced at least at the rotation's bytes") {
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"ring"};
    o.check = false;
    o.min_bytes = o.max_bytes = 4096;
    // two levels: 10 GB/s up to 64 KiB, 1 GB/s from 32 MiB on
    o.params->cache.footprint_bytes = {64.0 * 1024, 32.0 * 1024 * 1024};
    o.params->cache.beta = {1e-10, 1e-9};
    o.params->cache.gamma = {1e-10, 1e-9};
    o.params->cache.delta = {1e-10, 1e-9};
    const auto rows = run_bench(o);
    REQUIRE(rows.size() == 1);
    const Schedule s = make_schedule(bench_spec(o, "ring", 4096));
    int64_t per_set = 0;  // every rank's storages: the bytes of one buffer set
    for (int r = 0; r < 2; ++r)
      for (int64_t e : rank_layout(s, r).storage_size) per_set += e * 4;
    const int64_t sets = std::clamp<int64_t>((int64_t{32} << 20) / per_set, 1, 16);
    CHECK(sets == 16);  // a 4 KiB all-reduce: 16 sets of a few KiB, far below 32 MiB
    CostParams at = *o.params;
    at.min_footprint_bytes = static_cast<double>(sets * per_set);
    // bench prices it so: the floor, back to back, and the sets for ε's reuse distance
    const CostParams bp = bench_params(s, *o.params);
    CHECK(bp.min_footprint_bytes == at.min_footprint_bytes);
    CHECK(bp.back_to_back);
    CHECK(bp.rotation_sets == 16);
    const Prediction p = predict(s, at);
    for (double fp : p.footprint_bytes) CHECK(fp == static_cast<double>(sets * per_set));
    CHECK(rows[0].predicted_us == doctest::Approx((p.lockstep_s + o.params->barrier_for(2)) * 1e6).epsilon(1e-12));
    // without the floor the steps' own footprints (a few KiB) would be priced at 10 GB/s
    CHECK(predict(s, *o.params).lockstep_s < p.lockstep_s);
  }

  TEST_CASE("ε in the predicted column: bench's iterations rewrite what the peer read, and the row says how much") {
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"naive"};
    o.check = false;
    o.min_bytes = o.max_bytes = 1024;
    o.params->cache.footprint_bytes = {64.0 * 1024, 32.0 * 1024 * 1024};
    o.params->cache.beta = o.params->cache.gamma = o.params->cache.delta = {1e-10, 1e-10};
    const auto plain = run_bench(o);
    REQUIRE(plain.size() == 1);
    CHECK(plain[0].predicted_coherence_us < 0);  // a profile without ε: none charged
    CHECK(nlohmann::json::parse(bench_json_row(plain[0]))["predicted_coherence_us"].is_null());
    o.params->cache.coherence = {1e-9, 1e-9};  // 1 ns per byte
    const auto rows = run_bench(o);
    // naive, 2 ranks, 1 KiB: rank 0 copies its input over the output rank 1
    // read in the last iteration over the same buffers: 1024 B x 1 ns
    CHECK(rows[0].predicted_coherence_us == doctest::Approx(1.024));
    CHECK(rows[0].predicted_us - plain[0].predicted_us == doctest::Approx(1.024));
    CHECK(nlohmann::json::parse(bench_json_row(rows[0]))["predicted_coherence_us"] == doctest::Approx(1.024));
    o.mode = Mode::free;  // the same difference in the other mode (free-running: the pipelined prediction)
    CHECK(run_bench(o)[0].predicted_coherence_us == doctest::Approx(1.024));
  }

}
