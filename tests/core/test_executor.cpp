#include <doctest/doctest.h>

#include "core/algorithms.h"
#include "core/checker.h"
#include "core/data.h"
#include "core/executor.h"
#include "core/reference.h"

using namespace microddp;

TEST_SUITE("executor") {
  TEST_CASE("the seed example: ring_unchunked on [1,2,3] [4,5,6] [7,8,9]") {
    CollectiveSpec s;
    s.collective = Collective::all_reduce;
    s.algorithm = "ring_unchunked";
    s.world_size = 3;
    s.count = 3;
    s.dtype = DType::float32;
    const Schedule sch = make_schedule(s);
    check_schedule(sch);
    const RankData in = parse_data(s, "1,2,3;4,5,6;7,8,9");
    const RunResult res = run_threads(sch, in);
    REQUIRE(sch.num_steps() == 2);
    for (int r = 0; r < 3; ++r)
      for (int i = 0; i < 3; ++i)
        CHECK(kernels::load_double(s.dtype, res.outputs[r].data(), i) == std::vector<double>{12, 15, 18}[i]);
    // R0's accum after step 0 is T0 + T2 = [8, 10, 12]
    REQUIRE(res.trace.snapshots);
    const auto& bufs = res.trace.steps[0][0].buffers;
    auto acc = std::find_if(bufs.begin(), bufs.end(), [](const BufferSnapshot& b) { return b.buf == Buf::accum; });
    REQUIRE(acc != bufs.end());
    CHECK(acc->values == std::vector<double>{8, 10, 12});
    CHECK(res.trace.bytes_sent == std::vector<int64_t>{24, 24, 24});
  }
}
