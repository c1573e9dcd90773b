// How the window writes quantities with units (ImGui-free: the scenes and
// the lesson view use it too). Microseconds are "µs" (UTF-8 U+00B5, in the
// Latin-1 range add_fonts loads from DejaVu Sans), as the CLI writes them.
#pragma once
#include <string>

#include "core/ir/units.h"

namespace microddp::viz {

// A duration given in microseconds: "12.3 µs", "4.56 ms", "1.2 s", "50 ns"
// below 0.1 µs; three significant digits; "n/a" when us < 0. One helper for
// the window and the CLI: core/ir/units.h.
using microddp::format_us;

// A link class in words: its name (a preset's: "nvlink"; omitted when it is
// the raw "ALPHA,BW" a lesson or --inter gave, e.g. "50e-6,25e6"), α
// (alpha_s, seconds) and its bandwidth (bytes_per_s, bytes per second):
// "nvlink, α 1 µs, 600 GB/s"; "α 50 µs, 25 MB/s (200 Mbit/s)" (MB/s with
// Mbit/s below 1 GB/s, three significant digits).
std::string format_link(const std::string& name, double alpha_s, double bytes_per_s);

}  // namespace microddp::viz
