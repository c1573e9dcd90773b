// --replay of a broken form's record (lessons/data/single-buffered-ring-3x3.json,
// the record lesson 02 shows): titled and bannered as the lesson's beat shows
// it. On main at 286886a the window titled it "all_reduce ring_unchunked"
// with no banner above its red cells, as if the correct ring corrupted.
#include <doctest/doctest.h>

#include <string>

#include "app/viz/panels.h"
#include "app/viz/scene.h"
#include "app/viz/session.h"
#include "core/ir/reference.h"
#include "core/record/record_io.h"

using namespace microddp;
using namespace microddp::viz;

TEST_SUITE("replay_broken") {
  TEST_CASE("--replay single-buffered-ring-3x3.json: the one-buffer ring's title and the recorded run's banner") {
    const RunRecord rec =
        load_record(std::string(MICRODDP_SOURCE_DIR) + "/lessons/data/single-buffered-ring-3x3.json");
    Session s;
    s.load_replay(rec);
    CHECK(s.replaying());
    CHECK(s.params().spec.algorithm == "ring_unchunked");
    CHECK(run_algorithm_name(s.params()) == "single_buffered_ring (one buffer, sends delayed)");
    CHECK(s.recorded_label() == "recorded run (AMD EPYC, 2 vCPUs (lscpu), 2026-12-07)");
    REQUIRE(s.broken().has_value());
    CHECK(s.broken()->recorded);
    CHECK(s.broken()->seed == 1);
    CHECK(s.broken()->corrupted);
    const BuffersScene sc = build_buffers(s, s.num_steps(), BuffersLayout{});
    CHECK(sc.banner ==
          "recorded run (AMD EPYC, 2 vCPUs (lscpu), 2026-12-07): single-buffered ring, send delays seed 1: corrupted. "
          "The checks run it live now.");
    CHECK(sc.banner_error);

    // A correct ring's record: no broken title, no banner.
    RunRecord ok = rec;
    ok.broken.clear();
    ok.delay.reset();
    ok.origin = RecordOrigin{};
    ok.outputs = reference_outputs(ok.spec, ok.inputs);
    Session c;
    c.load_replay(ok);
    CHECK(run_algorithm_name(c.params()) == "ring_unchunked");
    CHECK(!c.broken().has_value());
    CHECK(c.recorded_label() == "");
  }
}
