// How the window writes quantities with units (ImGui-free: the scenes and
// the lesson view use it too). Microseconds are "µs" (UTF-8 U+00B5, in the
// Latin-1 range add_fonts loads from DejaVu Sans), as the CLI writes them.
#pragma once
#include <string>

namespace microddp::viz {

// A duration given in microseconds: "12.3 µs", "4.56 ms", "1.2 s", "50 ns"
// below 0.1 µs; three significant digits; "n/a" when us < 0.
std::string format_us(double us);

}  // namespace microddp::viz
