// bench: documented columns, #wrong = 0 for every algorithm, record overhead,
// the footer, machine state and passes. Also test_bench_reference.cpp (Open MPI's
// reference row, sizes, the predicted column) and test_bench_profile.cpp
// (profile and peer-wait checks; calibrate on tiny sizes).
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
using bench_test::three_sizes;

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

}
