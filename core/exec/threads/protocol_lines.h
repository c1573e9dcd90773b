// The memory operations of the LL and LL128 protocols (core/ir/protocol.h)
// on CPU threads: the sender stores a message into the receiver's buffer in
// the protocol's line format, the receiver polls the flags and unpacks.
// Written after NCCL's device code, none copied (NVIDIA/nccl v2.19:
// src/device/prims_ll.h storeLL/readLL, src/device/prims_ll128.h
// storeLL128/loadRecvSync, src/include/device.h union ncclLLFifoLine,
// NCCL_LL128_LINEELEMS 16 / NCCL_LL128_DATAELEMS 15).
//
// LL word (8 bytes, one std::atomic<uint64_t>): bits 0-31 four bytes of the
// message, bits 32-63 the flag. One relaxed 8-byte store writes both: an
// aligned 8-byte store is single-copy atomic (C++: one atomic object; x86:
// Intel SDM vol. 3A §8.1.1), so a load that sees the new flag sees the new
// data of that word, with no fence. NCCL stores 16-byte lines of two such
// halves (two flags) with one volatile vector store and reads them with
// volatile loads until both flags match.
//
// LL128 line (128 bytes): 15 data words with plain stores, then the flag
// word, stored with memory_order_release; the receiver loads the flag with
// memory_order_acquire and only then reads the 120 data bytes. (NCCL on a
// GPU stores a line as one warp's 16-byte stores and relies on NVLink
// delivering them in order, with no release: see docs/design.md.)
//
// Flags: the caller passes a value that differs from every earlier message
// into the same buffer (the transport uses generation + 1), so the buffer is
// never cleared: a word left from the last generation has the old flag and
// the receiver keeps waiting, as NCCL's step counter does.
// A message of 0 bytes still stores one word / line (its flag).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/ir/protocol.h"

namespace microddp::proto {

struct alignas(128) LL128Line {
  uint64_t data[15];              // 120 bytes of the message, plain stores
  std::atomic<uint64_t> flag{0};  // stored last, release
};
static_assert(sizeof(LL128Line) == kLL128LineBytes);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// ---- LL ----

// Words [first, last) of a message of `bytes` bytes from src into `words`.
inline void ll_store(std::atomic<uint64_t>* words, const std::byte* src, int64_t bytes, uint32_t flag, int64_t first,
                     int64_t last) {
  const uint64_t hi = uint64_t{flag} << 32;
  const int64_t full = std::min(last, bytes / kLLDataBytes);  // words with 4 bytes of data
  int64_t w = first;
  for (; w < full; ++w) {
    uint32_t d;
    std::memcpy(&d, src + w * kLLDataBytes, kLLDataBytes);
    words[w].store(hi | d, std::memory_order_relaxed);  // data and flag in one store
  }
  for (; w < last; ++w) {  // the last word's tail, or the one flag of an empty message
    uint32_t d = 0;
    const int64_t off = w * kLLDataBytes;
    if (off < bytes) std::memcpy(&d, src + off, static_cast<size_t>(bytes - off));
    words[w].store(hi | d, std::memory_order_relaxed);
  }
}

// Polls every word until its flag is `flag`, unpacking its data into dst.
// wait(ready) blocks until ready() is true (spin, yield, watchdog); it is
// only called when a word was not there yet.
// On a CPU the receiver and the sender share cache lines: a receiver that
// polls word w while the sender is still storing the words around it pulls
// the line back to its core between the sender's stores (measured on a
// 2-vCPU Intel Xeon VM (2.8 GHz, loaded), 256 KiB one way: 60 ms polling every word, 5.7 ms
// polling the last word of each 64-byte line). So when a word has not
// arrived, the receiver first waits for the last word of its 512-byte block
// (64 words; blocks start at the message's first word, which the transport
// puts on a cache-line boundary), then reads the block checking each word's
// own flag as before: the sender has moved on, and each line moves once.
// (On a GPU the sender's stores cross NVLink or PCIe into the receiver's
// memory and no line moves back; NCCL polls every 16-byte line.)
inline constexpr int64_t kLLWordsPerCacheLine = 8;
inline constexpr int64_t kLLPollBlockWords = 64;
template <typename Wait>
void ll_load(const std::atomic<uint64_t>* words, std::byte* dst, int64_t bytes, uint32_t flag, Wait&& wait) {
  const int64_t n = flag_count(Protocol::ll, bytes);
  for (int64_t w = 0; w < n; ++w) {
    uint64_t v = words[w].load(std::memory_order_relaxed);
    if (static_cast<uint32_t>(v >> 32) != flag) {
      const int64_t end = std::min(n - 1, w | (kLLPollBlockWords - 1));
      if (end > w)
        wait([&] { return static_cast<uint32_t>(words[end].load(std::memory_order_relaxed) >> 32) == flag; });
    }
    if (static_cast<uint32_t>(v >> 32) != flag)
      wait([&] {
        v = words[w].load(std::memory_order_relaxed);
        return static_cast<uint32_t>(v >> 32) == flag;
      });
    const int64_t off = w * kLLDataBytes;
    const uint32_t d = static_cast<uint32_t>(v);
    if (off + kLLDataBytes <= bytes) std::memcpy(dst + off, &d, kLLDataBytes);
    else if (off < bytes) std::memcpy(dst + off, &d, static_cast<size_t>(bytes - off));
  }
}

// ---- LL128 ----

inline void ll128_store(LL128Line* lines, const std::byte* src, int64_t bytes, uint64_t flag, int64_t first,
                        int64_t last) {
  for (int64_t l = first; l < last; ++l) {
    const int64_t off = l * kLL128DataBytes;
    const int64_t k = std::clamp<int64_t>(bytes - off, 0, kLL128DataBytes);
    if (k > 0) std::memcpy(lines[l].data, src + off, static_cast<size_t>(k));
    lines[l].flag.store(flag, std::memory_order_release);  // publishes the 120 bytes above
  }
}

template <typename Wait>
void ll128_load(const LL128Line* lines, std::byte* dst, int64_t bytes, uint64_t flag, Wait&& wait) {
  const int64_t n = flag_count(Protocol::ll128, bytes);
  for (int64_t l = 0; l < n; ++l) {
    if (lines[l].flag.load(std::memory_order_acquire) != flag)
      wait([&] { return lines[l].flag.load(std::memory_order_acquire) == flag; });
    const int64_t off = l * kLL128DataBytes;
    const int64_t k = std::clamp<int64_t>(bytes - off, 0, kLL128DataBytes);
    if (k > 0) std::memcpy(dst + off, lines[l].data, static_cast<size_t>(k));
  }
}

}  // namespace microddp::proto
