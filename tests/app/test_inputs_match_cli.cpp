// One source of truth for a run's inputs: the window parses its command line
// (app/viz/options.h) and builds its session's inputs through core's
// infer_count / make_inputs, the functions `microddp run` uses, so the same
// options give BIT-IDENTICAL inputs: every fill, every dtype, and --data rows
// with nan, inf and -0.0. The last case runs the built `microddp` binary.
#include <doctest/doctest.h>

#include "core/algorithms/registry.h"
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/viz/options.h"
#include "core/record/data.h"
#include "core/record/record_io.h"
#include "kernels/cpu/kernels.h"

using namespace microddp;
using namespace microddp::viz;

namespace {

const std::vector<std::string> kDtypes = {"int32", "int64", "float16", "bfloat16", "float32", "float64"};
const std::vector<std::string> kFills = {"iota", "rank", "random:1", "random:12345"};

// --data rows valid for the dtype (3 ranks): nan, inf, -inf and -0.0 for the
// floating dtypes; int64 with a value beyond 2^53.
std::string rows_for(const std::string& dtype) {
  if (dtype == "int32") return "1,-2,3,2147483647;4,5,-6,0;7,-8,9,-2147483648";
  if (dtype == "int64") return "9007199254740993,-2,3,0;4,5,-6,1;7,-8,9,-9223372036854775807";
  return "nan,-0.0,inf,0.5;-inf,2.5,-0,3;0.25,-7,-nan,1";
}

// The viewer's session inputs for a command line, parsed as microddp-viz
// parses it.
Session& viewer_session(Session& s, std::vector<std::string> args) {
  args.insert(args.begin(), "microddp-viz");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Options o;
  REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
  s.configure(o.params);
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& a : v) out += (out.empty() ? "" : " ") + a;
  return out;
}

void check_same_bytes(const RankData& got, const RankData& want) {
  REQUIRE(got.size() == want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    CAPTURE(r);
    REQUIRE(got[r].size() == want[r].size());
    CHECK(std::memcmp(got[r].data(), want[r].data(), want[r].size()) == 0);
  }
}

}  // namespace

TEST_SUITE("inputs") {
  TEST_CASE("--collective without --algorithm: that collective's first choice, not all_reduce's default") {
    for (Collective c : {Collective::broadcast, Collective::reduce, Collective::gather, Collective::scatter,
                         Collective::barrier, Collective::all_gather, Collective::reduce_scatter, Collective::all_to_all}) {
      Session s;
      INFO(name(c));
      viewer_session(s, {"--collective", std::string(name(c)), "--ranks", "2"});
      CHECK(s.params().spec.algorithm == preferred_algorithm(c));
    }
    Session s;
    CHECK(viewer_session(s, {"--collective", "all_reduce"}).params().spec.algorithm == "ring_unchunked");  // the seed's
    CHECK(viewer_session(s, {"--collective", "broadcast", "--algorithm", "binomial"}).params().spec.algorithm == "binomial");
  }

  TEST_CASE("the window's fills are core's fill_data, byte for byte, in every dtype") {
    for (const auto& dt : kDtypes)
      for (const auto& fill : kFills)
        for (const char* coll : {"all_reduce", "reduce_scatter", "gather"}) {
          CAPTURE(dt);
          CAPTURE(fill);
          CAPTURE(coll);
          Session ses;
          viewer_session(ses, {"--collective", coll, "--algorithm", "naive", "--ranks", "3", "--count", "300",
                               "--dtype", dt, "--fill", fill});
          CollectiveSpec spec;
          spec.collective = parse_collective(coll);
          spec.world_size = 3;
          spec.count = 300;
          spec.dtype = parse_dtype(dt);
          check_same_bytes(ses.inputs(), fill_data(spec, fill));
        }
  }

  TEST_CASE("random:SEED gives -8..8 in the window, as in `microddp run`") {
    Session ses;
    viewer_session(ses, {"--ranks", "2", "--count", "64", "--dtype", "int32", "--fill", "random:1"});
    int lo = 0, hi = 0;
    for (const auto& row : ses.inputs())
      for (size_t i = 0; i < row.size() / 4; ++i) {
        const double v = kernels::load_double(DType::int32, row.data(), static_cast<int64_t>(i));
        lo = std::min(lo, static_cast<int>(v));
        hi = std::max(hi, static_cast<int>(v));
      }
    CHECK(lo < 0);  // the old window fill gave 0..9
    CHECK(lo >= -8);
    CHECK(hi <= 8);
  }

  TEST_CASE("--data rows: core's parse_data and count inference, with nan, inf and -0.0") {
    for (const auto& dt : kDtypes) {
      CAPTURE(dt);
      Session ses;
      viewer_session(ses, {"--ranks", "3", "--dtype", dt, "--data", rows_for(dt)});
      CollectiveSpec spec;
      spec.world_size = 3;
      spec.dtype = parse_dtype(dt);
      spec.count = count_from_rows(spec, rows_for(dt));
      CHECK(ses.schedule().spec.count == 4);
      check_same_bytes(ses.inputs(), parse_data(spec, rows_for(dt)));
    }
    // -0.0 keeps its sign bit and nan stays nan (the old window parser lost neither, but skipped core's checks).
    Session ses;
    viewer_session(ses, {"--ranks", "3", "--dtype", "float32", "--data", rows_for("float32")});
    const auto& in = ses.inputs();
    CHECK(std::isnan(kernels::load_double(DType::float32, in[0].data(), 0)));
    CHECK(std::signbit(kernels::load_double(DType::float32, in[0].data(), 1)));
    CHECK(std::isinf(kernels::load_double(DType::float32, in[0].data(), 2)));
    // reduce_scatter: the row holds n blocks, so the count is a third of it.
    Session rs;
    viewer_session(rs, {"--collective", "reduce_scatter", "--algorithm", "ring", "--ranks", "3", "--data",
                        "1,2,3,4,5,6;1,2,3,4,5,6;1,2,3,4,5,6"});
    CHECK(rs.schedule().spec.count == 2);
  }

  TEST_CASE("the built `microddp run` binary records the inputs the window builds") {
    const std::string bin = MICRODDP_CLI_BIN;
    REQUIRE(access(bin.c_str(), X_OK) == 0);
    const std::string rec = "/tmp/microddp-inputs-" + std::to_string(getpid()) + ".json";
    std::vector<std::vector<std::string>> cases;
    for (const auto& dt : kDtypes) {
      for (const auto& fill : kFills)
        cases.push_back({"--ranks", "3", "--count", "300", "--dtype", dt, "--fill", fill});
      cases.push_back({"--ranks", "3", "--dtype", dt, "--data", rows_for(dt)});  // count inferred by both
    }
    cases.push_back({"--collective", "reduce_scatter", "--algorithm", "ring", "--ranks", "3", "--dtype", "bfloat16",
                     "--data", "1,2,3,4,5,6;0.1,0.2,-0.0,nan,inf,-inf;7,8,9,10,11,257"});
    cases.push_back({"--collective", "gather", "--algorithm", "naive", "--ranks", "4", "--count", "5", "--dtype",
                     "float16", "--fill", "random:7"});
    for (const auto& args : cases) {
      CAPTURE(join(args));
      std::string cmd = "'" + bin + "' run --json --save-record '" + rec + "'";
      for (const auto& a : args) cmd += " '" + a + "'";
      cmd += " > /dev/null";
      REQUIRE(std::system(cmd.c_str()) == 0);
      const RunRecord r = load_record(rec);
      Session ses;
      viewer_session(ses, args);
      CollectiveSpec shown = ses.schedule().spec;
      shown.algorithm = r.spec.algorithm;  // the defaults differ (ring_unchunked in the window, ring in the CLI)
      CHECK(shown == r.spec);
      check_same_bytes(ses.inputs(), r.inputs);
    }
    std::remove(rec.c_str());
  }
}

TEST_SUITE("inputs") {
  TEST_CASE("the prediction source from the command line: profile, preset, topology") {
    const auto source_of = [](std::vector<std::string> args) {
      args.insert(args.begin(), "microddp-viz");
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      Options o;
      REQUIRE_FALSE(parse_options(static_cast<int>(argv.size()), argv.data(), o).has_value());
      return o.source;
    };
    using Kind = PredictionSource::Kind;
    CHECK(source_of({}).kind == Kind::profile);
    const PredictionSource pre = source_of({"--preset", "infiniband"});
    CHECK(pre.kind == Kind::preset);
    CHECK(pre.preset == "infiniband");
    // --nodes alone: a topology with nvlink inside, infiniband across.
    const PredictionSource two = source_of({"--ranks", "8", "--nodes", "2"});
    CHECK(two.kind == Kind::topology);
    CHECK(two.topology.empty());
    CHECK(two.intra == "nvlink");
    CHECK(two.inter == "infiniband");
    const PredictionSource named = source_of({"--ranks", "16", "--nodes", "2", "--topology", "dgx-h100"});
    CHECK(named.kind == Kind::topology);
    CHECK(named.topology == "dgx-h100");
    const PredictionSource custom =
        source_of({"--ranks", "8", "--nodes", "2", "--inter", "ethernet-10g", "--nics-per-node", "2"});
    CHECK(custom.inter == "ethernet-10g");
    CHECK(custom.nics_per_node == 2);
    // What the session then predicts with: 2 nodes x 4, 2 NICs each.
    Session ses;
    ses.set_source(custom);
    RunParams p;
    p.spec.algorithm = "ring";
    p.spec.world_size = 8;
    p.spec.nodes = 2;
    p.spec.count = 8;
    ses.configure(p);
    CHECK(ses.prediction().source == "predicted (topology 2x4, intra nvlink, inter ethernet-10g, 2 NICs/node)");
  }
}
