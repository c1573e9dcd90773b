// A link class in the topology legend (units.h format_link): lesson 09 beat
// 11 gives its NICs as "50e-6,25e6"; the legend says α 50 µs, 25 MB/s
// (200 Mbit/s), not the raw string.
#include <doctest/doctest.h>

#include "app/viz/units.h"

using namespace microddp::viz;

TEST_SUITE("link_words") {
  TEST_CASE("a raw ALPHA,BW link is printed as α and a rate with its bits") {
    CHECK(format_link("50e-6,25e6", 50e-6, 25e6) == "\u03b1 50 \u00b5s, 25 MB/s (200 Mbit/s)");
    CHECK(format_link("", 50e-6, 12.5e6) == "\u03b1 50 \u00b5s, 12.5 MB/s (100 Mbit/s)");
  }
  TEST_CASE("a preset keeps its name; GB/s from 1 GB/s") {
    CHECK(format_link("nvlink", 1e-6, 600e9) == "nvlink, \u03b1 1 \u00b5s, 600 GB/s");
    CHECK(format_link("infiniband", 5e-6, 25e9) == "infiniband, \u03b1 5 \u00b5s, 25 GB/s");
  }
}
