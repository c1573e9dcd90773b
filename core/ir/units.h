// One vocabulary for quantities in text, shared by the CLI, the window, the
// lessons and the slides (issue 37): durations in µs below 1 ms, ms from 1 ms
// to 1 s, s above; the DDP bucket cap in MiB with its byte count.
#pragma once
#include <string>

namespace microddp {

// A duration given in microseconds (us): "12.3 µs", "4.56 ms", "1.2 s";
// "50 ns" below 0.1 µs; three significant digits; "n/a" when us < 0.
// Microseconds are "µs" (UTF-8 U+00B5), never "us". Throws nothing.
std::string format_us(double us);

// A size in MiB (1 MiB = 2^20 bytes, as PyTorch's bucket_cap_mb counts MB)
// with its byte count rounded to the nearest byte: 0.0015 -> "0.0015 MiB
// (1573 B)" (1572.864 bytes: the DDP lab closes a bucket at >= 1573 B);
// 0.25 -> "0.25 MiB (262144 B)". Throws nothing.
std::string mib_text(double mib);

}  // namespace microddp
