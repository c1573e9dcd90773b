// The protocol model (core/model/protocol_model.h): derived lines for
// profiles without the protocol probe, for_protocol's shift of the message
// line, --protocol auto's choice, crossovers, the profile's "protocols"
// field, and bench's crossover footer.
#include <doctest/doctest.h>

#include "approx.h"

#include <cstdio>
#include <fstream>

#include "core/algorithms/registry.h"
#include "core/model/bench.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/protocol_model.h"

using namespace microddp;

namespace {
CostParams flat(double alpha, double beta) {
  CostParams p;
  p.alpha = alpha;
  p.beta = beta;
  return p;
}
Schedule ring(int n, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = "ring";
  s.world_size = n;
  s.count = count;
  return make_schedule(s);
}
}  // namespace

TEST_SUITE("protocol_model") {
  TEST_CASE("without a probe the lines are derived: simple's alpha, beta x the wire ratio") {
    const auto c = protocol_costs(flat(1e-6, 1e-9));
    REQUIRE(c.size() == 3);
    CHECK(c[0].alpha == rel(1e-6));
    CHECK(c[1].beta == rel(2e-9));
    CHECK(c[2].beta == rel(1e-9 * 128.0 / 120.0));
    CHECK(c[1].derived);
    // derived lines never win: simple at every size
    CHECK(choose_protocol(ring(4, 16), flat(1e-6, 1e-9)).chosen == Protocol::simple);
    CHECK(protocol_costs_text(flat(1e-6, 1e-9)).find("(derived: simple's α, β × the wire ratio") != std::string::npos);
  }

  TEST_CASE("for_protocol moves the message line by the probe's difference; simple is unchanged") {
    CostParams p = flat(2e-6, 1e-9);
    p.protocols = {{1e-6, 1e-9, false}, {0.25e-6, 4e-9, false}, {0.6e-6, 1.5e-9, false}};
    const CostParams ll = for_protocol(p, Protocol::ll);
    CHECK(ll.alpha == rel(1.25e-6));  // 2 µs + (0.25 - 1) µs
    CHECK(ll.beta == rel(4e-9));      // 1 ns/B x 4
    CHECK(for_protocol(p, Protocol::simple).alpha == rel(2e-6));
    // one message of m bytes between 2 ranks: lockstep = alpha + m beta exactly (no barrier, no bus)
    CollectiveSpec s;
    s.collective = Collective::broadcast;
    s.algorithm = "naive";
    s.world_size = 2;
    s.count = 25;  // 100 bytes
    const Schedule b = make_schedule(s);
    CHECK(predict(b, ll).lockstep_s == rel(1.25e-6 + 100 * 4e-9));
    // small messages: ll wins (1.65 µs against 2.1 and 1.75); large: simple
    CHECK(choose_protocol(b, p).chosen == Protocol::ll);
    s.count = 1 << 20;
    CHECK(choose_protocol(make_schedule(s), p).chosen == Protocol::simple);
    const ProtocolChoice ch = choose_protocol(b, p);
    REQUIRE(ch.candidates.size() == 3);
    CHECK_FALSE(ch.derived);
  }

  TEST_CASE("crossovers: where two lines meet") {
    CHECK(crossover_bytes({0.25e-6, 4e-9, false}, {1e-6, 1e-9, false}) == rel(250));  // 0.75 µs / 3 ns
    CHECK(crossover_bytes({1e-6, 1e-9, false}, {2e-6, 2e-9, false}) < 0);               // one below the other
  }

  TEST_CASE("the profile keeps the measured lines; an older profile loads without them") {
    const std::string path = "/tmp/microddp-test-protocol-profile.json";
    CostParams p = flat(1e-6, 1e-9);
    p.protocols = {{1e-6, 1e-9, false}, {0.5e-6, 3e-9, false}, {0.75e-6, 1.25e-9, false}};
    write_profile(path, p, {});
    const CostParams q = load_profile(path);
    REQUIRE(q.protocols.size() == 3);
    CHECK(q.protocols[1].alpha == rel(0.5e-6));
    CHECK(q.protocols[2].beta == rel(1.25e-9));
    CHECK_FALSE(q.protocols[2].derived);
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-9})";
    }
    CHECK(load_profile(path).protocols.empty());
    CHECK(protocol_costs(load_profile(path))[1].derived);
    {
      std::ofstream f(path);
      f << R"({"alpha_s": 1e-6, "beta_s_per_byte": 1e-9, "protocols": {"simple": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-9}, "ll": {"alpha_s": -1, "beta_s_per_byte": 1e-9}, "ll128": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-9}}})";
    }
    CHECK_THROWS_WITH_AS(load_profile(path), doctest::Contains("protocols.ll = "), UsageError);
    std::remove(path.c_str());
  }

  TEST_CASE("bench footer: the fastest protocol per size, measured and predicted, as crossover sizes") {
    std::vector<BenchRow> rows;
    const auto row = [&](int64_t bytes, Protocol p, double t, double pred) {
      BenchRow r;
      r.algorithm = "ring";
      r.backend = "threads";
      r.world_size = 2;
      r.bytes = bytes;
      r.protocol = p;
      r.show_protocol = true;
      r.time_us = t;
      r.predicted_us = pred;
      rows.push_back(r);
    };
    row(64, Protocol::ll, 1, 1);
    row(64, Protocol::ll128, 2, 2);
    row(64, Protocol::simple, 3, 3);
    row(4096, Protocol::ll, 9, 3);
    row(4096, Protocol::ll128, 5, 2);
    row(4096, Protocol::simple, 6, 4);
    row(65536, Protocol::ll, 90, 30);
    row(65536, Protocol::ll128, 50, 20);
    row(65536, Protocol::simple, 20, 10);
    CHECK(bench_protocol_crossovers(rows) ==
          "# Protocol crossovers  : ring on 2 ranks, measured: ll up to 64 B, ll128 from 4096 B, simple from 65536 B; "
          "predicted: ll up to 64 B, ll128 from 4096 B, simple from 65536 B\n");
    CHECK(bench_table_row(rows[3]).find("ring/ll ") != std::string::npos);
    CHECK(bench_json_row(rows[4]).find("\"protocol\": \"ll128\"") != std::string::npos);
    rows.resize(3);
    for (auto& r : rows) r.protocol = Protocol::simple;
    CHECK(bench_protocol_crossovers(rows).empty());  // one protocol: no footer line
  }
}
