// The cache curve's measurement and storage: calibrate's split text, the
// sweep's footprints and rounds, measure_cache_curve, the coherence probes'
// pairing, the profile round trip and the validation of every profile
// number; KeepFreedMemory.
#include <doctest/doctest.h>

#include "approx.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/algorithms/registry.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "cache_machines.h"

using namespace microddp;
using namespace microddp::cache_test;

namespace {
std::string write_tmp(const std::string& name, const std::string& text) {
  std::ofstream f(name);
  f << text;
  return name;
}
}  // namespace

TEST_SUITE("cache_curve") {
  TEST_CASE("after a split, calibrate says where the ping-pong's pool at the split fits, and claims no edge") {
    const DataCacheSizes epyc{48 * 1024, 1 << 20, int64_t{508} << 20};
    CHECK(split_cache_text(65536, epyc) ==
          "(this CPU's caches: L1d 48 KiB, L2 1 MiB, L3 508 MiB; at the split, 64 KiB messages, the ping-pong rotates 64 "
          "buffer slots, 4 MiB per rank, which fits in the L3: the split is where two lines fit best, not always a "
          "cache edge)");
    CHECK(split_cache_text(1024, {48 * 1024, 1 << 20, 0}) ==
          "(this CPU's caches: L1d 48 KiB, L2 1 MiB; at the split, 1 KiB messages, the ping-pong rotates 64 buffer "
          "slots, 64 KiB per rank, which fits in the L2: the split is where two lines fit best, not always a cache "
          "edge)");
    CHECK(split_cache_text(48, epyc).find("at the split, 48 B messages, the ping-pong rotates 64 buffer slots, 3 KiB "
                                          "per rank, which fits in the L1d:") != std::string::npos);
    // 64 MiB messages: one slot, past a 32 MiB L3
    CHECK(split_cache_text(int64_t{64} << 20, {0, 0, int64_t{32} << 20}) ==
          "(this CPU's caches: L3 32 MiB; at the split, 64 MiB messages, the ping-pong rotates 1 buffer slot, 64 MiB "
          "per rank, which fits in none of them: the split is where two lines fit best, not always a cache edge)");
    CHECK(split_cache_text(65536, DataCacheSizes{}).empty());  // no size known: no sentence
    // an L4 (some Intel parts' eDRAM) is named too, and is the largest
    const DataCacheSizes l4{32 * 1024, 256 * 1024, 6 << 20, 128 << 20};
    CHECK(l4.largest() == 128 << 20);
    CHECK(split_cache_text(int64_t{1} << 20, l4).find("L3 6 MiB, L4 128 MiB; at the split, 1 MiB messages, the "
                                                      "ping-pong rotates 32 buffer slots, 32 MiB per rank, which fits "
                                                      "in the L4:") != std::string::npos);
    CHECK(DataCacheSizes{}.largest() == 0);
    CHECK(ping_pong_slots(4) == 64);
    CHECK(ping_pong_slots(int64_t{1} << 20) == 32);
    CHECK(ping_pong_slots(int64_t{64} << 20) == 1);
  }

  TEST_CASE("sweep: a few KiB to at least 4x the last-level cache, within the memory budget") {
    const auto f = cache_sweep_footprints(32 << 20, 64e9);
    CHECK(f.front() == 8192);
    CHECK(f.back() == 128 * MiB);  // 4 × 32 MiB
    CHECK(f.size() == 15);
    const auto big = cache_sweep_footprints(260 << 20, 64e9);
    REQUIRE(big.size() == 18);
    CHECK(big.back() == 1040 * MiB);  // 4 × 260 MiB itself, not the 2 GiB above it
    CHECK(big[16] == 512 * MiB);
    CHECK(cache_sweep_footprints(1 << 20, 64e9).back() == 64 * MiB);      // at least 64 MiB
    CHECK(cache_sweep_footprints(0, 64e9).back() == 128 * MiB);           // unknown cache
    CHECK(cache_sweep_footprints(260 << 20, 1e9).back() == 64 * MiB);     // 8 × F <= 1 GB
    CHECK(cache_sweep_footprints(260 << 20, 8.0 * 128 * MiB).back() == 128 * MiB);  // 8 × F = budget: fits
    CHECK(cache_sweep_footprints(260 << 20, 1e3).size() == 2);            // never fewer than 2
    // a power of two is left out only within 1.25× below the end: 24 MiB of
    // L3 keeps 64 MiB before 96 MiB; 48 MiB keeps 128 before 192
    auto tail2 = [](int64_t llc) {
      const auto v = cache_sweep_footprints(llc, 64e9);
      return std::vector<double>(v.end() - 2, v.end());
    };
    CHECK(tail2(24 << 20) == std::vector<double>{64 * MiB, 96 * MiB});
    CHECK(tail2(48 << 20) == std::vector<double>{128 * MiB, 192 * MiB});
    CHECK(tail2(300 << 20) == std::vector<double>{512 * MiB, 1200 * MiB});  // 1024 within 1.25× of 1200: out
    CHECK(tail2(int64_t{205} << 20) == std::vector<double>{512 * MiB, 820 * MiB});  // 512 × 1.25 = 640 < 820: kept
    // an LLC that is no multiple of 4 KiB: the end rounds up to one
    CHECK(cache_sweep_footprints((int64_t{40} << 20) + 1000, 64e9).back() == 160 * MiB + 4096);
    // when the end does not fit the budget, the power of two it replaced still may
    CHECK(cache_sweep_footprints(384 << 20, 8320.0 * MiB).back() == 1024 * MiB);
    CHECK(cache_sweep_footprints(384 << 20, 8191.0 * MiB).back() == 512 * MiB);  // not even 1024 MiB
    // whatever the cache and budget: ascending, multiples of 4 KiB, at least 2
    for (int64_t llc : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{24} << 20, int64_t{96} << 20,
                        (int64_t{260} << 20) + 123, int64_t{1} << 30})
      for (double budget : {0.0, 1e6, 300.0 * MiB, 4160.0 * MiB, 64e9}) {
        const auto v = cache_sweep_footprints(llc, budget);
        CHECK(v.size() >= 2);
        for (size_t i = 0; i < v.size(); ++i) {
          CHECK(std::fmod(v[i], 4096.0) == 0);
          if (i > 0) CHECK(v[i] > v[i - 1]);
        }
      }
  }

  TEST_CASE("footprints above 64 MiB are measured in 3 rounds spread over the sweep, smaller ones in every round") {
    auto rounds_of = [](double F, int total) {
      std::vector<int> r;
      for (int i = 0; i < total; ++i)
        if (cache_curve_measures_in_round(F, i, total)) r.push_back(i);
      return r;
    };
    CHECK(rounds_of(64 * MiB, 9).size() == 9);
    CHECK(rounds_of(128 * MiB, 9) == std::vector<int>{0, 3, 6});
    CHECK(rounds_of(1040 * MiB, 15) == std::vector<int>{0, 5, 10});
    CHECK(rounds_of(128 * MiB, 1) == std::vector<int>{0});
    CHECK(rounds_of(128 * MiB, 3) == std::vector<int>{0, 1, 2});
    CHECK(rounds_of(128 * MiB, 4) == std::vector<int>{0, 1, 2});
    CHECK(rounds_of(128 * MiB, 10) == std::vector<int>{0, 3, 6});
    // no footprint is ever left without a sample: round 0 always counts
    for (int total : {-3, 0, 1, 2})
      CHECK(cache_curve_measures_in_round(1040 * MiB, 0, total));
    CHECK(rounds_of(128 * MiB, 2) == std::vector<int>{0, 1});
  }

  TEST_CASE("measure_cache_curve on two small footprints: positive costs, β never below δ") {
    CostParams flat;
    flat.alpha = 0;
    flat.beta = 1e-10;
    const CacheCurve c = measure_cache_curve({8 * KiB, 64 * KiB}, flat, 1, {}, 5);
    REQUIRE(c.footprint_bytes.size() == 2);
    REQUIRE(c.coherence.size() == 2);
    REQUIRE(c.fresh_read.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      CHECK(c.delta[i] > 0);
      CHECK(c.gamma[i] > 0);
      CHECK(c.beta[i] >= c.delta[i]);
    }
  }

  TEST_CASE("the coherence probes pair each slot's steps: step 3j + a against 3j + b, step 0 left out") {
    // 2 slots (6 steps), 2 iterations; sample value = 100 · iteration + step
    std::vector<double> t;
    for (int it = 0; it < 2; ++it)
      for (int step = 1; step < 6; ++step) t.push_back(100.0 * it + step);
    // φ's pairing: fresh read 3j + 1 against clean read 3j + 2, every slot
    CHECK(slot_step_differences(t, 6, 2, 2, 0, 1, 2) == std::vector<double>{-1, -1, -1, -1});
    // ε's: X step 3j against Z step 3j + 2, from slot 1 (slot 0's X is step 0)
    CHECK(slot_step_differences(t, 6, 2, 2, 1, 0, 2) == std::vector<double>{-2, -2});
    // the order and the values, not just the differences: the step each pair reads
    std::vector<double> u(t.size());
    for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<double>(i * i);  // sample i is step i % 5 + 1
    // iteration 1, slot 1: steps 4 and 5 are samples 8 and 9: 64 - 81
    CHECK(slot_step_differences(u, 6, 2, 2, 0, 1, 2).back() == -17);
    CHECK_THROWS_AS(slot_step_differences(t, 6, 2, 2, 0, 0, 2), std::out_of_range);  // step 0 is not sampled
  }

  TEST_CASE("profile round trip keeps the curve in its own object; a bad curve names the key") {
    const std::string path = "cache_curve_test_profile.json";
    CostParams p = huge_l3();
    write_profile(path, p, {});
    {
      std::ifstream f(path);
      const auto j = nlohmann::json::parse(f);
      REQUIRE(j.contains("cache_curve"));
      CHECK(j["cache_curve"]["footprint_bytes"].size() == p.cache.footprint_bytes.size());
    }
    const CostParams q = load_profile(path);
    CHECK(q.cache.footprint_bytes == p.cache.footprint_bytes);
    CHECK(q.cache.beta == p.cache.beta);
    CHECK(q.cache.gamma == p.cache.gamma);
    CHECK(q.cache.delta == p.cache.delta);
    CHECK(q.cache.coherence.empty());  // none measured, none written
    p.cache.coherence.assign(p.cache.footprint_bytes.size(), 2e-11);
    write_profile(path, p, {});
    CHECK(load_profile(path).cache.coherence == p.cache.coherence);
    CHECK(load_profile(path).cache.fresh_read.empty());
    p.cache.fresh_read.assign(p.cache.footprint_bytes.size(), 3e-11);
    write_profile(path, p, {});
    CHECK(load_profile(path).cache.fresh_read == p.cache.fresh_read);
    const std::string base = R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "cache_curve": )";
    struct Bad {
      const char *curve, *says;
    };
    for (const Bad& b : {
             Bad{R"({"footprint_bytes": [8192, 4096], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0]})",
                 "cache_curve.footprint_bytes[1] = 4096 is not above"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0]})",
                 "one length"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [-1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0]})",
                 "cache_curve.beta_s_per_byte[0] = -1e-10"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [1e308], "delta_s_per_byte": [0]})",
                 "cache_curve.gamma_s_per_byte[0] = 1e+308"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0]})",
                 "cache_curve.delta_s_per_byte must be an array"},
             Bad{R"([1, 2])", "cache_curve must be an object"},
             Bad{R"({"footprint_bytes": [8192, 16384], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0], "coherence_s_per_byte": [0]})",
                 "one length (footprint_bytes 2, beta 2, gamma 2, delta 2, coherence 1)"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0], "coherence_s_per_byte": [-1e-12]})",
                 "cache_curve.coherence_s_per_byte[0] = -1e-12"},
             Bad{R"({"footprint_bytes": [8192, 16384], "beta_s_per_byte": [1e-10, 1e-10], "gamma_s_per_byte": [0, 0], "delta_s_per_byte": [0, 0], "fresh_read_s_per_byte": [0, 0, 0]})",
                 "one length (footprint_bytes 2, beta 2, gamma 2, delta 2, fresh_read 3)"},
             Bad{R"({"footprint_bytes": [8192], "beta_s_per_byte": [1e-10], "gamma_s_per_byte": [0], "delta_s_per_byte": [0], "fresh_read_s_per_byte": ["x"]})",
                 "cache_curve.fresh_read_s_per_byte[0] = \"x\""},
         }) {
      CAPTURE(b.curve);
      write_tmp(path, base + b.curve + "}");
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(b.says), UsageError);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(path.c_str()), UsageError);
    }
    std::remove(path.c_str());
  }

  TEST_CASE("every number of a profile is checked: the error names the field and the file") {
    const std::string path = "cache_curve_test_bad_profile.json";
    const std::string ok = R"("alpha_s": 1e-6, "beta_s_per_byte": 1e-10)";
    write_tmp(path, "{" + ok + R"(, "bandwidth_Bps": 1e10, "gamma_s_per_byte": 0, "cores": 2, "points": [{"bytes": 4, "seconds": 1e-6}]})");
    CHECK(load_profile(path).cores == 2);
    struct Bad {
      std::string json, says;
    };
    for (const Bad& b : std::vector<Bad>{
             {R"({"alpha_s": -1, "beta_s_per_byte": 1e-10})", "alpha_s = -1"},
             {R"({"alpha_s": 1e308, "beta_s_per_byte": 1e-10})", "alpha_s = 1e+308"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": -1})", "beta_s_per_byte = -1"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": 0})", "beta_s_per_byte = 0"},
             {R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e308})", "beta_s_per_byte = 1e+308"},
             {"{" + ok + R"(, "bandwidth_Bps": 0})", "bandwidth_Bps = 0"},
             {"{" + ok + R"(, "bandwidth_Bps": 1e308})", "bandwidth_Bps = 1e+308"},
             {"{" + ok + R"(, "gamma_s_per_byte": -1e-9})", "gamma_s_per_byte = -1e-09"},
             {"{" + ok + R"(, "delta_s_per_byte": -1})", "delta_s_per_byte = -1"},
             {"{" + ok + R"(, "delta_s_per_byte": "x"})", "delta_s_per_byte = \"x\""},
             {"{" + ok + R"(, "cores": -2})", "cores = -2"},
             {"{" + ok + R"(, "cores": 0})", "cores = 0"},
             {"{" + ok + R"(, "cores": 1.5})", "cores = 1.5"},
             {"{" + ok + R"(, "cores": 1e308})", "cores = 1e+308"},
             {"{" + ok + R"(, "break_bytes": -4})", "break_bytes = -4"},
             {"{" + ok + R"(, "alpha_small_s": -1e-6})", "alpha_small_s = -1e-06"},
             {"{" + ok + R"(, "beta_small_s_per_byte": 1e308})", "beta_small_s_per_byte = 1e+308"},
             {"{" + ok + R"(, "n_half_bytes": -140651})", "n_half_bytes = -140651"},
             {"{" + ok + R"(, "points": [{"bytes": 4, "seconds": -1}]})", "points[0]"},
         }) {
      CAPTURE(b.json);
      write_tmp(path, b.json);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(b.says.c_str()), UsageError);
      CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains(("profile '" + path + "'").c_str()), UsageError);
    }
    std::remove(path.c_str());
  }
}

// `microddp calibrate` and `bench` hold a KeepFreedMemory so that each probe
// reuses the pages of the last one (a first touch cost 13 µs per 4 KiB page
// on an EPYC guest).
// glibc's own counters (mallinfo2) say where a 64 MiB block lives: mmapped
// by default, from the heap and kept after free() under the guard, mmapped
// again once the guard is gone. A sanitizer's allocator has its own rules.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MICRODDP_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MICRODDP_OWN_ALLOCATOR 1
#endif
#endif
#ifndef MICRODDP_OWN_ALLOCATOR
#include <malloc.h>

#include <cstdlib>
#include <cstring>
TEST_SUITE("cache_curve") {
  TEST_CASE("KeepFreedMemory: a freed 64 MiB block stays in the process while the guard lives, and only then") {
    const size_t big = size_t{64} << 20;
    auto mapped_with_block = [&] {  // bytes in mmapped blocks while a fresh 64 MiB block is held
      void* p = std::malloc(big);
      REQUIRE(p != nullptr);
      std::memset(p, 1, 4096);
      const size_t mapped = mallinfo2().hblkhd;
      std::free(p);
      return mapped;
    };
    const size_t before = mallinfo2().hblkhd;
    CHECK(mapped_with_block() >= before + big);  // glibc's default: blocks this large are mmapped
    {
      const KeepFreedMemory keep;
      CHECK(mapped_with_block() < before + big);  // from the heap
      const struct mallinfo2 after_free = mallinfo2();
      CHECK(after_free.fordblks >= big);  // ... and, freed, still held by the process
      CHECK(after_free.arena >= big);
      {
        const KeepFreedMemory inner;  // guards nest: the inner one's end leaves the outer in force
      }
      CHECK(mapped_with_block() < before + big);
    }
    CHECK(mapped_with_block() >= before + big);  // blocks this large are mmapped again
  }
}
#endif
