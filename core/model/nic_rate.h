// An emulated NIC's rate as `microddp cluster --nic` and the window's
// --lab-nic take it.
#pragma once
#include <cstdint>
#include <string>

namespace microddp {

// tc's rate units (tc(8), iproute2 tc/tc_util.c get_rate), case-insensitive
// as in tc: bit, kbit/mbit/gbit/tbit (powers of 1000), kibit/mibit/gibit/
// tibit (powers of 1024), and bytes per second: bps, kbps/mbps/gbps/tbps,
// kibps/mibps/gibps/tibps. Stricter than tc: a unit is required (a bare
// "100" is more likely a mistake than 100 bit/s) and the number is plain
// decimal (no exponent, sign or hex). Returns bits per second.
// Throws UsageError "--nic 'X': ..." naming the value (not a rate, no or an
// unknown unit, outside 1mbit..100gbit).
uint64_t parse_nic_rate(const std::string& text);

}  // namespace microddp
