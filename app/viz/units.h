// How the window writes quantities with units (ImGui-free: the scenes and
// the lesson view use it too).
#pragma once
#include <string>

namespace microddp::viz {

std::string format_us(double us);  // "12.3 us", "4.56 ms"; "n/a" when us < 0

}  // namespace microddp::viz
