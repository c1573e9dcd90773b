// The sizes of predict --table and bench (core/model/sweep.h): one parser
// for -f, each size at least one element above the last, and a refusal
// naming the factor that fits when a factor near 1 would make the sweep
// endless (it printed 8 B forever at -f 1.0000001).
#include <doctest/doctest.h>

#include "core/model/bench.h"
#include "core/model/sweep.h"

using namespace microddp;

TEST_SUITE("sweep") {
  TEST_CASE("-f: a number above 1, named as typed when it is not") {
    CHECK(parse_step_factor("2") == 2.0);
    CHECK(parse_step_factor("1.5") == 1.5);
    for (const char* bad : {"1", "0.5", "-2", "abc", "2x", "", "nan", "inf"}) {
      const std::string want = std::string("-f ") + (*bad ? bad : "''") + " must be a number above 1";
      CHECK_THROWS_WITH_AS(parse_step_factor(bad), doctest::Contains(want.c_str()), UsageError);
    }
  }

  TEST_CASE("one element per rank: the element times the ranks the size counts") {
    CHECK(size_unit_bytes(Collective::all_reduce, DType::float32, 8) == 4);
    CHECK(size_unit_bytes(Collective::all_gather, DType::float16, 4) == 8);
    CHECK(size_unit_bytes(Collective::broadcast, DType::int64, 3) == 8);
  }

  TEST_CASE("sizes: x factor, at least one element apart, -e last for bench") {
    SweepRange r;
    r.min_bytes = 8;
    r.max_bytes = 64;
    r.factor = 1.01;
    r.unit_bytes = 4;
    CHECK(sweep_sizes(r) == std::vector<int64_t>{8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64});
    r.min_bytes = 1024;
    r.max_bytes = 65536;
    r.factor = 4;
    CHECK(sweep_sizes(r) == std::vector<int64_t>{1024, 4096, 16384, 65536});
    r.max_bytes = 40000;
    CHECK(sweep_sizes(r) == std::vector<int64_t>{1024, 4096, 16384});
    r.end_at_max = true;
    CHECK(sweep_sizes(r) == std::vector<int64_t>{1024, 4096, 16384, 40000});
    r.min_bytes = 0;  // 0 is followed by one element
    r.max_bytes = 16;
    r.factor = 2;
    CHECK(sweep_sizes(r) == std::vector<int64_t>{0, 4, 8, 16});
    // bench: the same steps
    BenchOptions o;
    o.min_bytes = 4096;
    o.max_bytes = 8192;
    o.factor = 1.5;
    CHECK(bench_sizes(o) == std::vector<int64_t>{4096, 6144, 8192});
  }

  TEST_CASE("a factor near 1 is refused with the factor that fits") {
    SweepRange r;
    r.min_bytes = 8;
    r.max_bytes = int64_t{1} << 30;
    r.factor = 1.0000001;
    r.unit_bytes = 4;
    CHECK_THROWS_WITH_AS(sweep_sizes(r),
                         "-f 1.0000001 from -b 8 to -e 1073741824 makes more than 1000 sizes (each at least one "
                         "element, 4 B, above the one before): give -f 1.0164 or more, or a narrower -b .. -e",
                         UsageError);
    r.factor = 1.0164;
    CHECK(sweep_sizes(r).size() <= 1000);
    r.factor = 1.0163;
    CHECK_THROWS_AS(sweep_sizes(r), UsageError);
    BenchOptions o;  // 4 KiB .. 64 MiB
    o.factor = 1.01;
    CHECK_THROWS_WITH_AS(bench_sizes(o), doctest::Contains("more than 100 sizes"), UsageError);
  }

  TEST_CASE("size_text: binary units with the exact bytes beside") {
    CHECK(size_text(0) == "0 B");
    CHECK(size_text(1000) == "1000 B");
    CHECK(size_text(1023) == "1023 B");
    CHECK(size_text(1024) == "1 KiB (1024 B)");
    CHECK(size_text(524288) == "512 KiB (524288 B)");
    CHECK(size_text(1536) == "1.5 KiB (1536 B)");
    CHECK(size_text(1048576) == "1 MiB (1048576 B)");
    CHECK(size_text(1000000000) == "953.7 MiB (1000000000 B)");
    // not a whole number of the unit: never printed as one
    CHECK(size_text(1048572) == "1023.996 KiB (1048572 B)");
    CHECK(size_text((int64_t{1} << 30) - 1) == "1023.999999 MiB (1073741823 B)");
    CHECK(size_text(int64_t{8} << 30) == "8 GiB (8589934592 B)");
    CHECK(size_text(int64_t{3} << 40) == "3 TiB (3298534883328 B)");
    CHECK(size_text(int64_t{5000} << 40) == "5000 TiB (5497558138880000 B)");
  }
}
