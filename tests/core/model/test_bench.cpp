// bench: documented columns, #wrong = 0 for every algorithm, option errors;
// calibrate on tiny sizes runs and produces a usable profile.
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

using namespace microddp;

namespace {
BenchOptions tiny(Collective c, int n) {
  BenchOptions o;
  o.collective = c;
  o.algorithms = algorithms_for(c);
  o.world_size = n;
  o.min_bytes = 64;
  o.max_bytes = 1024;
  o.factor = 4;
  o.iters = 2;
  o.warmup = 1;
  o.check = true;
  CostParams p;
  p.alpha = 1e-6;
  p.beta = 1e-9;
  o.params = p;
  return o;
}
// naive and ring all-reduce on 2 ranks over 1024, 2048 and 4096 B.
BenchOptions three_sizes() {
  BenchOptions o = tiny(Collective::all_reduce, 2);
  o.algorithms = {"naive", "ring"};
  o.min_bytes = 1024;
  o.max_bytes = 4096;
  o.factor = 2;
  return o;
}
}  // namespace

TEST_SUITE("bench") {
  TEST_CASE("every algorithm of every collective: #wrong = 0, sizes and factors as nccl-tests") {
    for (Collective c : all_collectives())
      for (int n : {2, 3}) {
        CAPTURE(name(c));
        CAPTURE(n);
        BenchOptions o = tiny(c, n);
        if (c == Collective::barrier) o.check = false;
        const auto rows = run_bench(o);
        REQUIRE(rows.size() == 3 * algorithms_for(c).size());  // 64, 256, 1024 B
        for (const auto& r : rows) {
          CAPTURE(r.algorithm);
          CAPTURE(r.bytes);
          if (o.check) CHECK(r.wrong == 0);
          CHECK(r.predicted_us > 0);
          if (c == Collective::all_reduce) {
            CHECK(r.count * 4 == r.bytes);
            CHECK(r.busbw_gbps == doctest::Approx(r.algbw_gbps * 2.0 * (n - 1) / n));
          }
        }
      }
  }

  TEST_CASE("mode free and record on also run") {
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"ring"};
    o.mode = Mode::free;
    o.record = true;
    const auto rows = run_bench(o);
    REQUIRE(rows.size() == 3);
    CHECK(rows[2].bytes == 1024);
    CHECK(rows[2].wrong == 0);
  }

  TEST_CASE("record overhead: paired runs fill two more columns; bad counts and backends are refused") {
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"ring"};
    o.min_bytes = o.max_bytes = 4096;
    o.record_pairs = 3;
    const auto rows = run_bench(o);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].wrong == 0);  // checked on the first run without recording
    CHECK(rows[0].time_us > 0);
    CHECK(rows[0].recorded_us > 0);
    const std::string h = bench_table_header(o);
    CHECK(h.find("recording overhead: 3 pairs") != std::string::npos);
    CHECK(h.find("rec.ovh") != std::string::npos);
    CHECK(bench_table_row(rows[0]).find(fmt::format("{:.2f}", rows[0].recorded_us)) != std::string::npos);
    const auto j = nlohmann::json::parse(bench_json_row(rows[0]));
    CHECK(j["recorded_us"].get<double>() == doctest::Approx(rows[0].recorded_us).epsilon(1e-3));
    CHECK(j["record_overhead_pct"].is_number());
    CHECK(bench_csv_header() ==
          "collective,algorithm,backend,mode,world_size,dtype,op,root,bytes,count,time_us,algbw_gbps,busbw_gbps,wrong,"
          "predicted_us,error_pct,recorded_us,record_overhead_pct,state_x\n");
    // without pairs: null / empty
    BenchRow plain = rows[0];
    plain.recorded_us = -1;
    CHECK(nlohmann::json::parse(bench_json_row(plain))["recorded_us"].is_null());
    CHECK(bench_csv_row(plain).substr(bench_csv_row(plain).size() - 4) == ",,,\n");
    o.record_pairs = -1;
    CHECK_THROWS_WITH_AS(validate_bench(o), doctest::Contains("--record-overhead -1"), UsageError);
    o.record_pairs = 2;
    o.backend = "mpi";
    CHECK_THROWS_WITH_AS(validate_bench(o), doctest::Contains("needs the threads backend, not 'mpi'"), UsageError);
  }

  TEST_CASE("columns: table, JSON and CSV") {
    BenchOptions o = tiny(Collective::all_reduce, 2);
    o.algorithms = {"ring"};
    o.min_bytes = o.max_bytes = 4096;
    const auto rows = run_bench(o);
    REQUIRE(rows.size() == 1);
    const std::string h = bench_table_header(o);
    for (const char* col : {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "predicted",
                            "error"})
      CHECK(h.find(col) != std::string::npos);
    CHECK(h.find("\n# error = (predicted - measured) / measured: + where the model expected more time than the run "
                 "took, - less\n") != std::string::npos);  // the sign, said once
    const std::string row = bench_table_row(rows[0]);
    CHECK(row.find("4096") != std::string::npos);
    CHECK(row.find("1024") != std::string::npos);
    CHECK(row.find("float32") != std::string::npos);
    const auto j = nlohmann::json::parse(bench_json_row(rows[0]));
    for (const char* k : {"collective", "algorithm", "backend", "world_size", "dtype", "op", "bytes", "count", "time_us",
                          "algbw_gbps", "busbw_gbps", "wrong", "predicted_us"})
      CHECK(j.contains(k));
    CHECK(j["bytes"] == 4096);
    CHECK(j["count"] == 1024);
    CHECK(j["wrong"] == 0);
    CHECK(j["collective"] == "all_reduce");
    CHECK(bench_csv_header().find("busbw_gbps") != std::string::npos);
    CHECK(bench_csv_row(rows[0]).rfind("all_reduce,ring,threads,lockstep,2,float32,sum,-1,4096,1024,", 0) == 0);
    CHECK(bench_table_footer(rows).find("Out of bounds values : 0 OK") != std::string::npos);
    // the spread of the timed iterations: min <= p10 <= median <= p90 <= max
    CHECK(j["samples"] == o.iters);
    CHECK(j["min_us"].get<double>() <= j["p10_us"].get<double>());
    CHECK(j["p10_us"].get<double>() <= j["time_us"].get<double>() + 1e-3);
    CHECK(j["time_us"].get<double>() <= j["p90_us"].get<double>() + 1e-3);
    CHECK(j["p90_us"].get<double>() <= j["max_us"].get<double>());
    CHECK(j["min_us"].get<double>() > 0);
    const auto s = summarize(rows);
    REQUIRE(s.size() == 1);
    CHECK(s[0].rows == 1);
    CHECK(s[0].world_size == 2);
  }

  TEST_CASE("footer: per algorithm, the median and worst prediction error") {
    BenchRow r;
    r.algorithm = "ring";
    r.world_size = 2;
    r.busbw_gbps = 1;
    std::vector<BenchRow> rows;
    for (auto [bytes, t, pred] : {std::tuple{4096, 10.0, 11.0}, std::tuple{8192, 20.0, 15.0}, std::tuple{16384, 40.0, 42.0}}) {
      r.bytes = bytes;
      r.time_us = t;
      r.predicted_us = pred;
      rows.push_back(r);
    }
    r.algorithm = "tree";
    r.bytes = 4096;
    r.time_us = 10;
    r.predicted_us = 13;
    r.busbw_gbps = 4;
    rows.push_back(r);
    const std::string f = bench_table_footer(rows);
    // ring: errors +10%, -25%, +5% -> median 10%, worst -25% at 8192 B (under-predicted)
    CHECK(f.find("# Prediction error     : ring on 2 ranks: median |error| 10.0%, worst error -25.0% (at 8 KiB (8192 B)), error = (predicted - measured) / measured over 3 sizes\n") != std::string::npos);
    CHECK(f.find("# Prediction error     : tree on 2 ranks: median |error| 30.0%, worst error +30.0% (at 4 KiB (4096 B))") != std::string::npos);
    const auto sum = summarize(rows);
    CHECK(sum[0].max_err_pct == rel(25.0));
    CHECK(sum[0].worst_err_pct == rel(-25.0));
    CHECK(sum[1].worst_err_pct == rel(30.0));
    // a mean busbw over two algorithms says nothing: one per algorithm (ring's three rows at 1 GB/s, tree's at 4)
    CHECK(f.find("# Avg bus bandwidth    : ring 1.000, tree 4.000 GB/s (each the mean over its sizes)\n") != std::string::npos);
    // with --summary the table below carries the errors: the footer does not say them twice
    const std::string fs = bench_table_footer(rows, true);
    CHECK(fs.find("Prediction error") == std::string::npos);
    CHECK(fs.find("# Avg bus bandwidth    : ring 1.000, tree 4.000 GB/s") != std::string::npos);
    for (auto& x : rows) x.predicted_us = -1;  // no profile: no error lines
    CHECK(bench_table_footer(rows).find("Prediction error") == std::string::npos);
    // one algorithm: nccl-tests' line, the mean over the rows
    rows.pop_back();
    rows[0].busbw_gbps = 4;
    CHECK(bench_table_footer(rows).find("# Avg bus bandwidth    : 2.000 GB/s\n") != std::string::npos);
  }

  TEST_CASE("machine state: the probe runs once per size, its ratio rides on every row of the size") {
    BenchOptions o = three_sizes();
    std::vector<double> ratios = {1.0, 3.0, 0.5};
    int calls = 0;
    o.state_probe = [&] { return ratios[static_cast<size_t>(calls++)]; };
    const auto rows = run_bench(o);
    REQUIRE(rows.size() == 6);
    CHECK(calls == 3);
    for (size_t i = 0; i < rows.size(); ++i) CHECK(rows[i].state_x == ratios[i / 2]);
    CHECK(nlohmann::json::parse(bench_json_row(rows[2]))["state_x"] == 3.0);
    CHECK(bench_csv_row(rows[2]).substr(bench_csv_row(rows[2]).size() - 3) == ",3\n");
    BenchRow tiny_x = rows[0];
    tiny_x.state_x = 1e-6;  // a hand-made profile point 1e6x too slow: shown, not rounded to "0"
    CHECK(nlohmann::json::parse(bench_json_row(tiny_x))["state_x"] == rel(1e-6));
    BenchOptions none = tiny(Collective::all_reduce, 2);
    none.min_bytes = none.max_bytes = 1024;
    const auto plain = run_bench(none);  // no probe: 0, null, no footer line
    CHECK(plain[0].state_x == 0);
    CHECK(nlohmann::json::parse(bench_json_row(plain[0]))["state_x"].is_null());
    CHECK(bench_state_text(plain).empty());
    CHECK(bench_table_footer(plain).find("Machine state") == std::string::npos);
  }

  TEST_CASE("passes: every size measured once per pass, ascending/descending/ascending; a row is the median over passes") {
    BenchOptions o = three_sizes();
    o.passes = 3;
    // The probe runs before each size in each pass; call k returns k, so a
    // row's state_x (the median of its size's three probes) tells the order:
    // pass 1 ascending (calls 1, 2, 3), pass 2 descending (4 = 4096, 5, 6 = 1024),
    // pass 3 ascending (7, 8, 9).
    int calls = 0;
    o.state_probe = [&] { return static_cast<double>(++calls); };
    std::vector<int64_t> streamed;
    const auto rows = run_bench(o, [&](const BenchRow& r) { streamed.push_back(r.bytes); });
    CHECK(calls == 9);
    REQUIRE(rows.size() == 6);
    CHECK(streamed == std::vector<int64_t>{1024, 1024, 2048, 2048, 4096, 4096});  // in order, during the last pass
    const double want_state[] = {6, 5, 4};  // median{1,6,7}, median{2,5,8}, median{3,4,9}
    for (size_t i = 0; i < rows.size(); ++i) {
      CAPTURE(i);
      CHECK(rows[i].state_x == want_state[i / 2]);
      CHECK(rows[i].passes == 3);
      CHECK(rows[i].samples == 3 * o.iters);  // the spread is over every pass's iterations
      CHECK(rows[i].wrong == 0);              // checked (in the first pass)
      CHECK(rows[i].min_us <= rows[i].time_us);
      CHECK(rows[i].time_us <= rows[i].max_us);
    }
    const auto j = nlohmann::json::parse(bench_json_row(rows[0]));
    CHECK(j["passes"] == 3);
    CHECK(j["samples"] == 6);
    CHECK(bench_table_header(o).find("# 3 passes over the sizes (ascending, descending, ascending): a row's time is the "
                                     "median of its 3 pass medians; its spread (--json: min, p10, p90, max) is over all 3 x "
                                     "2 iterations\n") != std::string::npos);
    BenchOptions two = o;
    two.passes = 2;  // descending first, so the last pass ascends; an even count averages the middle two
    two.record_pairs = 5;
    CHECK(bench_table_header(two).find("# 2 passes over the sizes (descending, ascending): a row's time is the median of "
                                       "its 2 pass medians (with an even count, the mean of the middle two); its spread "
                                       "(--json: min, p10, p90, max) is over all 2 x 5 recording-off runs\n") !=
          std::string::npos);
    two.passes = 6;
    CHECK(bench_table_header(two).find("(descending, ..., descending, ascending)") != std::string::npos);
    BenchOptions one = tiny(Collective::all_reduce, 2);
    CHECK(bench_table_header(one).find("passes") == std::string::npos);  // one pass: as before
    CHECK(run_bench(one)[0].passes == 1);
    for (int bad : {0, -1, 101}) {
      BenchOptions b = tiny(Collective::all_reduce, 2);
      b.passes = bad;
      CHECK_THROWS_WITH_AS(run_bench(b), fmt::format("--passes {} must be 1 to 100", bad).c_str(), UsageError);
    }
  }

  TEST_CASE("machine state: the band, the footer's sizes and the in-state median") {
    CHECK(in_profile_state(1.0));
    CHECK(in_profile_state(1.25));
    CHECK(in_profile_state(0.8));
    CHECK(!in_profile_state(1.26));
    CHECK(!in_profile_state(0.79));
    CHECK(!in_profile_state(0));  // not probed is not "in state"
    BenchRow r;
    r.algorithm = "ring";
    r.world_size = 2;
    std::vector<BenchRow> rows;
    // errors 10%, 50%, 20%, 30%; the 8192 B size ran at x2.00
    for (auto [bytes, t, pred, x] : {std::tuple{4096, 10.0, 11.0, 1.1}, std::tuple{8192, 20.0, 10.0, 2.0},
                                     std::tuple{16384, 40.0, 48.0, 0.9}, std::tuple{32768, 80.0, 104.0, 1.0}}) {
      r.bytes = bytes;
      r.time_us = t;
      r.predicted_us = pred;
      r.state_x = x;
      rows.push_back(r);
    }
    const auto s = summarize(rows);
    REQUIRE(s.size() == 1);
    CHECK(s[0].rows == 4);
    CHECK(s[0].median_err_pct == doctest::Approx(25.0));  // 10, 20, 30, 50
    CHECK(s[0].probed_rows == 4);
    CHECK(s[0].in_state_rows == 3);
    CHECK(s[0].in_state_median_err_pct == doctest::Approx(20.0));  // 10, 20, 30
    CHECK(bench_state_text(rows) ==
          "# Machine state        : the 32 KiB reference steps (the header's machine-state probe), timed again before "
          "each size, took x0.90 .. x2.00 of the profile's time\n"
          "# Machine state        : 1 of 4 sizes ran more than 25% away from it, so their errors say more about the "
          "machine than about the model: 8 KiB (8192 B): x2.00\n");
    const std::string f = bench_table_footer(rows);
    CHECK(f.find("over 4 sizes; in the profile's state: median |error| 20.0% over 3 sizes\n") != std::string::npos);
    const std::string t = bench_summary_text(s);
    CHECK(t.find("under(#)  in state(#)  median in state(%)") != std::string::npos);
    CHECK(s[0].under_rows == 1);  // only 8192 B: predicted 10 us, measured 20
    CHECK(t.find("    4       25.0      -50.0         8192         1            3                20.0\n") != std::string::npos);
    CHECK(t.find("worst(%) worst at (B)  under(#)") != std::string::npos);
    for (auto& x : rows) x.state_x = 1.0;
    CHECK(bench_state_text(rows).find("every size ran in the profile's state (within 25%)") != std::string::npos);
    for (auto& x : rows) x.state_x = 3.0;
    CHECK(bench_table_footer(rows).find("; no size was measured in the profile's state") != std::string::npos);
    CHECK(bench_summary_text(summarize(rows)).find("            0                   -\n") != std::string::npos);
    for (auto& x : rows) x.state_x = 0;  // not probed: the summary keeps its old columns
    CHECK(bench_summary_text(summarize(rows)).find("in state") == std::string::npos);
  }

  TEST_CASE("machine state: the profile's own point, else its fitted line") {
    const std::string path = "/tmp/microddp-test-state-probe.json";
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "points": [{"bytes": 4, "seconds": 2e-7}, {"bytes": 32768, "seconds": 1.1e-6}]})";
    }
    CHECK(load_profile(path).point_32k_s == rel(1.1e-6));
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "points": [{"bytes": 4, "seconds": 2e-7}, {"bytes": 65536, "seconds": 1.1e-6}]})";
    }
    CHECK(load_profile(path).point_32k_s == 0);  // no 32 KiB point (a quick profile): not probed
    CHECK(load_profile(path).exchange_32k_s == 0);  // an older profile: the one-way step alone
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "exchange_32k_step_s": 2.5e-6})";
    }
    CHECK(load_profile(path).exchange_32k_s == rel(2.5e-6));
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "exchange_32k_step_s": -1})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("exchange_32k_step_s"), UsageError);
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "exchange_32k_step_s": 5e-324})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("exchange_32k_step_s = 4.94066e-324 (expected 0"),
                         UsageError);
    {  // two points at 32 KiB: the first, as calibrate writes one per size
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "points": [{"bytes": 32768, "seconds": 1e-6}, {"bytes": 32768, "seconds": 9e-6}]})";
    }
    CHECK(load_profile(path).point_32k_s == rel(1e-6));
    // the probe reports the farther of its two steps from the profile
    CHECK(farther_state_ratio(1.07, 2.1) == doctest::Approx(2.1));
    CHECK(farther_state_ratio(0.4, 2.1) == doctest::Approx(0.4));  // |log 0.4| > |log 2.1|
    CHECK(farther_state_ratio(1.3, 1.0) == doctest::Approx(1.3));
    CHECK(farther_state_ratio(1.3, 0) == doctest::Approx(1.3));
    CHECK(farther_state_ratio(0, 0.7) == doctest::Approx(0.7));
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(farther_state_ratio(1.1, inf) == doctest::Approx(1.1));  // a 5e-324 s reference: left out
    CHECK(farther_state_ratio(inf, 0) == 0);                       // nothing to say: as not probed
    CHECK(farther_state_ratio(std::nan(""), 2.0) == doctest::Approx(2.0));
    std::remove(path.c_str());
    CHECK(state_probe_ratio(preset("nvlink"), 1e-6) == 0);  // no barrier table: nothing to compare
    CostParams p;
    p.alpha = 1e-6;
    p.beta = 1e-9;
    p.barrier_s = {1e-7};
    CHECK(state_probe_ratio(p, 1e-6) > 0);  // measured now over (point + b(2))
    CHECK(state_probe_ratio(p, 0) == 0);     // no point (a quick profile): not probed
  }

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

  TEST_CASE("cpu_busy_fraction reads /proc/stat: a fraction of all CPU time") {
    const double f = cpu_busy_fraction(0.05);
    CHECK(f >= 0.0);  // -1 would mean /proc/stat did not parse
    CHECK(f <= 1.0);
  }

  TEST_CASE("profile check: within a factor of 1.5 either way matches, and the text says which") {
    ProfileCheck c;
    c.profile_s = 2e-6;
    c.now_s = 3e-6;
    c.cores_now = c.cores_profile = 2;
    CHECK(c.ratio() == 1.5);
    CHECK(c.matches());
    CHECK(profile_check_text(c) ==
          "profile check: a lockstep step of one 4-byte message between 2 ranks (message + barrier) takes 3.000 us "
          "now, 2.000 us by the profile (x1.50); 2 CPUs now, 2 in the profile: matches (only this step and the CPU "
          "count are checked)");
    c.now_s = 3.2e-6;
    CHECK(!c.matches());
    CHECK(profile_check_text(c).find("(x1.60); 2 CPUs now, 2 in the profile: does NOT match") != std::string::npos);
    CHECK(profile_check_text(c).find("(other work on the CPUs now or during the calibration, ") != std::string::npos);
    c.now_s = 1.0e-6;  // x0.50: faster than the profile is a different state too
    CHECK(!c.matches());
    c.now_s = 1.4e-6;  // x0.70
    CHECK(c.matches());
    c.cores_now = 1;  // taskset -c 1: rank r no longer on core r mod 2
    CHECK(!c.matches());
    CHECK(profile_check_text(c).find("1 CPUs now, 2 in the profile: does NOT match") != std::string::npos);
    CHECK(ProfileCheck{}.ratio() == 0.0);
  }

  TEST_CASE("profile check: a profile from before waiting ranks spin does not match, and the text says why") {
    ProfileCheck c;
    c.profile_s = 2e-6;
    c.now_s = 2e-6;
    c.cores_now = c.cores_profile = 2;
    c.profile_spins = false;
    CHECK(!c.matches());
    CHECK(profile_check_text(c) ==
          "profile check: a lockstep step of one 4-byte message between 2 ranks (message + barrier) takes 2.000 us "
          "now, 2.000 us by the profile (x1.00); 2 CPUs now, 2 in the profile: does NOT match: the profile is from "
          "before waiting ranks spin (it has no \"threads_wait\": \"spin\"): its barriers, peer waits and steps "
          "were measured with ranks that yielded at once, which this build's ranks no longer do, whatever this one "
          "step says; run `microddp calibrate` again");
  }

  TEST_CASE("peer-wait check: within 15% either way matches; a miss names the µs per step and its direction") {
    PeerWaitCheck c;
    c.ranks = 3;
    c.cores = 2;
    c.profile_s = 8e-6;
    c.wait_s = 4e-6;
    c.now_s = 9.1e-6;  // x1.14
    CHECK(c.matches());
    CHECK(peer_wait_check_text(c) ==
          "peer-wait check: a lockstep ring shift of one 4-byte message among 3 ranks on 2 CPUs (message + barrier + "
          "peer wait) takes 9.100 us a step now, 8.000 us by the profile (x1.14; its w(3) = 4.000 us): matches (only "
          "this probe's step is checked; each algorithm's steps wait differently)");
    c.now_s = 9.6e-6;  // x1.20: the prediction is 1.6 us low per step
    CHECK(!c.matches());
    CHECK(peer_wait_check_text(c) ==
          "peer-wait check: a lockstep ring shift of one 4-byte message among 3 ranks on 2 CPUs (message + barrier + "
          "peer wait) takes 9.600 us a step now, 8.000 us by the profile (x1.20; its w(3) = 4.000 us): does NOT "
          "match: if it holds, each step at 3 ranks takes about 1.6 us more than predicted (mostly its peer wait), so "
          "small sizes will read under-predicted; `microddp calibrate` again on an idle machine");
    c.now_s = 6.8e-6;  // x0.85, below 1 / 1.15
    CHECK(!c.matches());
    CHECK(peer_wait_check_text(c).find("about 1.2 us less than predicted (mostly its peer wait), so small sizes will "
                                       "read over-predicted") != std::string::npos);
    CHECK(PeerWaitCheck{}.ratio() == 0.0);
    CHECK(!PeerWaitCheck{}.matches());
  }

  TEST_CASE("peer-wait check: only measured world sizes above this machine's CPU count, on the profile's CPUs") {
    // tables for n = 2 .. cores + 1, as a calibrate on this machine writes them (up to 8 ranks at least)
    const int cores = allowed_cpu_count();
    CostParams p;
    p.name = "threads";
    p.alpha = 1e-6;
    p.beta = 1e-10;
    p.cores = cores;
    for (int n = 2; n <= cores + 1; ++n) {
      p.barrier_s.push_back(1e-6 * n);
      p.wait_s.push_back(n > cores ? 4e-6 : 0.0);
    }
    CHECK(!check_peer_wait(p, cores));  // a core each: no wait predicted
    CHECK(!check_peer_wait(p, 1));
    CHECK(!check_peer_wait(p, cores + 2));  // beyond the tables: w(n) would be extrapolated, not measured
    CHECK(!check_peer_wait(preset("nvlink"), cores + 1));  // no tables
    CostParams no_wait = p;
    no_wait.wait_s.clear();
    CHECK(!check_peer_wait(no_wait, cores + 1));
    CostParams no_cores = p;
    no_cores.cores = 0;
    CHECK(!check_peer_wait(no_cores, cores + 1));
    CostParams other_cpus = p;  // measured on one CPU more than this run has: its ranks shared other cores
    other_cpus.cores = cores + 1;
    other_cpus.barrier_s.push_back(1e-6);
    other_cpus.wait_s.push_back(4e-6);
    CHECK(!check_peer_wait(other_cpus, cores + 2));
    CHECK_THROWS_WITH_AS(measure_ring_shift_step_s(1, 0.0, 1), "ring-shift step: 1 ranks (need >= 2)", UsageError);
    if (cores > 15) return;  // the measured case below runs cores + 1 threads
    // cores + 1 ranks: the profile's step is b(n) + α + w(n), and the step is measured (one round)
    const auto c = check_peer_wait(p, cores + 1, 1);
    REQUIRE(c);
    CHECK(c->ranks == cores + 1);
    CHECK(c->cores == cores);
    CHECK(c->wait_s == 4e-6);
    CHECK(c->profile_s == doctest::Approx(1e-6 * (cores + 1) + p.message_s(4) + 4e-6));
    CHECK(c->now_s > 0);  // 32 steps of cores + 1 threads outlast the one closing barrier taken out
  }

  TEST_CASE("stale_profile_note: only a threads profile with barriers and no threads_wait") {
    CostParams p;
    p.name = "threads";
    p.barrier_s = {1e-6};
    CHECK(stale_profile_note(p) ==
          "the profile is from before waiting ranks spin (it has no \"threads_wait\": \"spin\"): its barriers, peer "
          "waits and steps were measured with ranks that yielded at once; run `microddp calibrate` again");
    p.threads_wait = "spin";
    CHECK(stale_profile_note(p).empty());
    p.threads_wait.clear();
    p.barrier_s.clear();  // a hand-made line: no barrier was measured, nothing to be stale
    CHECK(stale_profile_note(p).empty());
    CHECK(stale_profile_note(preset("nvlink")).empty());
  }

  TEST_CASE("threads_wait: written and read back as \"spin\", absent in older profiles, anything else refused") {
    const std::string path = "/tmp/microddp-test-threads-wait.json";
    CostParams p;
    p.alpha = 1e-7;
    p.beta = 1e-10;
    write_profile(path, p, {});
    CHECK(load_profile(path).threads_wait.empty());  // a profile that says nothing: an older one
    p.threads_wait = "spin";
    write_profile(path, p, {});
    CHECK(load_profile(path).threads_wait == "spin");
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "threads_wait": "yield"})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path),
                         doctest::Contains("threads_wait = \"yield\" (expected \"spin\", or no such key)"),
                         UsageError);
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-7, "beta_s_per_byte": 1e-10, "threads_wait": 1})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("threads_wait = 1 (expected \"spin\")"), UsageError);
    std::remove(path.c_str());
  }

  TEST_CASE("calibrate on tiny sizes: a positive bandwidth and a loadable profile") {
    CalibrateOptions co;
    co.min_bytes = 4;
    co.max_bytes = 4096;
    co.warmup = 1;
    co.max_iters = 5;
    co.kernel_bytes = 1 << 20;
    co.rounds = 1;
    co.state_rounds = 1;
    co.max_barrier_ranks = 3;
    co.cache_curve = false;  // its sweep runs to 4x the last-level cache (test_cache_curve.cpp measures two points)
    const CalibrationResult r = calibrate(co);
    CHECK(r.params.cache.empty());
    CHECK(r.params.exchange_32k_s > 0);  // the state probe's both-ranks step, measured whatever the sizes
    REQUIRE(r.barrier_s.size() == 2);  // n = 2, 3
    for (double b : r.barrier_s) CHECK(b > 0);
    CHECK(r.params.barrier_s == r.barrier_s);
    REQUIRE(r.peer_wait_s.size() == 2);  // n = 2, 3
    for (double w : r.peer_wait_s) CHECK(w >= 0);
    CHECK(r.params.wait_s == r.peer_wait_s);
    REQUIRE(!r.mem_bw_Bps.empty());
    CHECK(r.mem_bw_Bps.size() == static_cast<size_t>(std::min(r.params.cores, 16)));
    for (double B : r.mem_bw_Bps) CHECK(B > 0);
    CHECK(r.points.size() == 11);
    CHECK(r.points.front().bytes == 4);
    CHECK(r.points.back().bytes == 4096);
    for (const auto& p : r.points) CHECK(p.seconds > 0);
    CHECK(r.params.fused_recv_reduce);
    CHECK(r.params.threads_wait == "spin");  // the wait its barriers and steps were measured with
    CHECK(r.params.gamma > 0);
    CHECK(r.params.delta > 0);
    // tables are kept non-decreasing (a dip is noise)
    for (size_t i = 1; i < r.barrier_s.size(); ++i) CHECK(r.barrier_s[i] >= r.barrier_s[i - 1]);
    for (size_t i = 1; i < r.peer_wait_s.size(); ++i) CHECK(r.peer_wait_s[i] >= r.peer_wait_s[i - 1]);
    CHECK(r.params.mem_bw_Bps == r.mem_bw_Bps);  // as measured
    CHECK(r.params.cores == allowed_cpu_count());
    // the profile check compares the same step, measured now, with the profile
    const auto check = check_profile(r.params, 1);
    REQUIRE(check);
    CHECK(check->profile_s == r.params.message_s(4) + r.params.barrier_for(2));
    CHECK(check->now_s > 0);
    CHECK(check->cores_now == allowed_cpu_count());
    CHECK(check->cores_profile == r.params.cores);
    CHECK(!check_profile(preset("nvlink")));  // nothing to check: no barrier table
    CostParams zero;                          // a table, but no time for the step
    zero.barrier_s = {0.0};
    CHECK(!check_profile(zero));
    CHECK_THROWS_WITH_AS(
        [] {
          CalibrateOptions bad;
          bad.backend = "abacus";
          calibrate(bad);
        }(),
        doctest::Contains("abacus"), UsageError);
  }
}
