// Protocols: how a message's bytes and its "arrived" signal travel, as NCCL's
// three protocols do (NVIDIA/nccl v2.19, src/device/prims_simple.h,
// prims_ll.h, prims_ll128.h; the line formats in src/include/device.h).
//  - simple: the data, then one flag that publishes it (the threads backend:
//    the receiver reads the sender's buffer, then marks the send consumed).
//  - ll (low latency): 8-byte words, each 4 B of data and a 4 B flag, stored
//    as one single-copy-atomic 8-byte store; the receiver polls every word's
//    flag. Twice the bytes on the wire, no separate synchronisation.
//  - ll128: 128-byte lines, 120 B of data and an 8-byte flag word per line;
//    the flag is stored last with release, the receiver acquires it.
// The threads backend runs all three for real (core/exec/threads/);
// docs/design.md, "Protocols and the memory model", says what each relies on.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace microddp {

enum class Protocol : uint8_t { simple, ll, ll128 };

std::string_view name(Protocol p);
// "simple", "ll", "ll128"; throws UsageError naming the text and listing
// the names. ("auto" is a choice made by the caller, not a protocol.)
Protocol parse_protocol(std::string_view s);
const std::vector<Protocol>& all_protocols();

// Line formats (bytes).
inline constexpr int64_t kLLWordBytes = 8, kLLDataBytes = 4;          // per LL word
inline constexpr int64_t kLL128LineBytes = 128, kLL128DataBytes = 120;  // per LL128 line

// What the protocol puts on the wire for a message of `bytes` payload bytes:
//  simple: bytes;  ll: 8 × ceil(bytes / 4);  ll128: 128 × ceil(bytes / 120).
// A message of 0 bytes still signals its arrival: ll and ll128 send one
// flag word / line (8 / 128 wire bytes), simple one flag (0 wire bytes).
int64_t wire_bytes(Protocol p, int64_t bytes);
// The flags the protocol stores for that message: simple 1 (the flag that
// publishes the data), ll one per word, ll128 one per line (at least 1).
int64_t flag_count(Protocol p, int64_t bytes);
// wire_bytes / bytes for large messages: 1, 2, 128/120.
double wire_ratio(Protocol p);

}  // namespace microddp
