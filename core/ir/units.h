// One vocabulary for quantities in text, shared by the CLI, the window, the
// lessons and the slides (issue 37): durations in µs below 1 ms, ms from 1 ms
// to 1 s, s above; the DDP bucket cap in MiB with its byte count.
#pragma once
#include <string>

namespace microddp {

// A duration given in microseconds (us): "12.3 µs", "4.56 ms", "1.2 s";
// "50 ns" below 0.1 µs; three significant digits; "n/a" when us < 0.
// Microseconds are "µs" (UTF-8 U+00B5), never "us". With decimals >= 0,
// that many decimals in the same unit instead (the CLI's step times:
// format_us(721.34, 1) "721.3 µs", format_us(41290.4, 1) "41.3 ms"), the unit
// chosen on the value as printed (999.96 µs is "1.0 ms", never "1000.0 µs");
// no ns then (0.04 µs is "0.0 µs"). Throws nothing.
std::string format_us(double us, int decimals = -1);

// A size in MiB (1 MiB = 2^20 bytes, as PyTorch's bucket_cap_mb counts MB)
// with its byte count rounded to the nearest byte: 0.0015 -> "0.0015 MiB
// (1573 B)" (1572.864 bytes: the DDP lab closes a bucket at >= 1573 B);
// 0.25 -> "0.25 MiB (262144 B)". Throws nothing.
std::string mib_text(double mib);

}  // namespace microddp
