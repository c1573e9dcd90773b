// The line formats of the LL and LL128 protocols (core/ir/protocol.h) as
// plain functions that compile for the CPU (g++) and the GPU (nvcc, where
// they are __host__ __device__): the CUDA backend's kernels
// (kernels/cuda/proto_kernels.cu) pack and unpack with them, and
// tests/core/exec/test_cuda_lines.cpp checks them on the CPU with exact
// values and against the threads backend's stores
// (core/exec/threads/protocol_lines.h), so both backends put the same bits
// in the receiver's buffer.
//
// Shapes and units (bytes, little-endian as on x86 and NVIDIA GPUs):
//  - LL word, 8 bytes: bits 0-31 bytes [4w, 4w + 4) of the message (zero
//    past its end), bits 32-63 the flag. A message of B bytes takes
//    ll_words(B) = max(1, ceil(B / 4)) words: 8 · that on the wire.
//  - LL128 line, 128 bytes = 16 words of 8 bytes: words 0-14 bytes
//    [120 l + 8 j, + 8) of the message (zero past its end), word 15 the flag
//    (the 32-bit flag, zero-extended). ll128_lines(B) = max(1, ceil(B / 120)).
//  - A message of 0 bytes still takes one word / line: its flag says it came.
//  - Flags: the message of iteration (generation) g carries flag_for(g) =
//    g + 1. Receive buffers start zeroed, so no flag of a fresh buffer
//    matches, and a word left from iteration g - 1 holds g, not g + 1: the
//    receiver keeps polling (buffers are never cleared between iterations).
//    32-bit flags wrap after 2^32 - 1 iterations (flag_for(2^32 - 1) = 0,
//    which a fresh buffer would match); the backends run far fewer.
// Pointers: src / dst any alignment; the whole-word fast paths are taken
// only when the address is aligned, the rest goes byte by byte
// (the CPU reads and writes through memcpy either way).
// No errors: callers pass w < ll_words(bytes), l < ll128_lines(bytes),
// j < kLL128DataWords (not checked: these run per word inside kernels).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MICRODDP_HD __host__ __device__ __forceinline__
#else
#define MICRODDP_HD inline
#endif

namespace microddp::proto_lines {

inline constexpr int64_t kLLWordBytes = 8, kLLDataBytes = 4;
inline constexpr int64_t kLL128LineBytes = 128, kLL128LineWords = 16, kLL128DataWords = 15;
inline constexpr int64_t kLL128DataBytes = kLL128DataWords * 8;  // 120
inline constexpr int64_t kLL128FlagWord = 15;

MICRODDP_HD uint32_t flag_for(uint32_t generation) { return generation + 1; }

MICRODDP_HD int64_t ll_words(int64_t bytes) { return bytes <= 0 ? 1 : (bytes + kLLDataBytes - 1) / kLLDataBytes; }
MICRODDP_HD int64_t ll128_lines(int64_t bytes) {
  return bytes <= 0 ? 1 : (bytes + kLL128DataBytes - 1) / kLL128DataBytes;
}
MICRODDP_HD int64_t ll_wire_bytes(int64_t bytes) { return kLLWordBytes * ll_words(bytes); }
MICRODDP_HD int64_t ll128_wire_bytes(int64_t bytes) { return kLL128LineBytes * ll128_lines(bytes); }

// k (0..8) bytes at p as a little-endian number.
MICRODDP_HD uint64_t load_le(const unsigned char* p, int64_t k) {
  uint64_t v = 0;
  for (int64_t i = 0; i < k; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
MICRODDP_HD void store_le(unsigned char* p, uint64_t v, int64_t k) {
  for (int64_t i = 0; i < k; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
// Whole aligned words: one typed access on the GPU; memcpy on the CPU (no
// strict-aliasing trouble, and g++ makes it one load / store).
template <typename T>
MICRODDP_HD T load_word(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const T*>(p);
#else
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}
template <typename T>
MICRODDP_HD void store_word(unsigned char* p, T v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<T*>(p) = v;
#else
  std::memcpy(p, &v, sizeof v);
#endif
}
// Bytes [off, off + k) of a message of `bytes` bytes, clipped at its end.
MICRODDP_HD int64_t clip(int64_t bytes, int64_t off, int64_t k) {
  const int64_t left = bytes - off;
  return left <= 0 ? 0 : (left < k ? left : k);
}

// ---- LL ----

MICRODDP_HD uint32_t ll_flag(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
MICRODDP_HD uint32_t ll_data(uint64_t word) { return static_cast<uint32_t>(word); }

// Word w of a message: its 4 data bytes and the flag, ready for ONE 8-byte store.
MICRODDP_HD uint64_t ll_pack(const void* src, int64_t bytes, int64_t w, uint32_t flag) {
  const auto* p = static_cast<const unsigned char*>(src) + w * kLLDataBytes;
  const int64_t k = clip(bytes, w * kLLDataBytes, kLLDataBytes);
  uint64_t d;
  if (k == kLLDataBytes && reinterpret_cast<uintptr_t>(p) % 4 == 0) d = load_word<uint32_t>(p);
  else d = load_le(p, k);
  return (static_cast<uint64_t>(flag) << 32) | d;
}
// Writes word w's data bytes (those inside the message) to dst, the
// message's first byte.
MICRODDP_HD void ll_unpack(uint64_t word, void* dst, int64_t bytes, int64_t w) {
  auto* p = static_cast<unsigned char*>(dst) + w * kLLDataBytes;
  const int64_t k = clip(bytes, w * kLLDataBytes, kLLDataBytes);
  if (k == kLLDataBytes && reinterpret_cast<uintptr_t>(p) % 4 == 0) store_word<uint32_t>(p, ll_data(word));
  else store_le(p, ll_data(word), k);
}

// ---- LL128 ----

MICRODDP_HD uint64_t ll128_flag_word(uint32_t flag) { return static_cast<uint64_t>(flag); }

// Data word j (0..14) of line l.
MICRODDP_HD uint64_t ll128_pack(const void* src, int64_t bytes, int64_t l, int64_t j) {
  const int64_t off = l * kLL128DataBytes + j * 8;
  const auto* p = static_cast<const unsigned char*>(src) + off;
  const int64_t k = clip(bytes, off, 8);
  if (k == 8 && reinterpret_cast<uintptr_t>(p) % 8 == 0) return load_word<uint64_t>(p);
  return load_le(p, k);
}
MICRODDP_HD void ll128_unpack(uint64_t word, void* dst, int64_t bytes, int64_t l, int64_t j) {
  const int64_t off = l * kLL128DataBytes + j * 8;
  auto* p = static_cast<unsigned char*>(dst) + off;
  const int64_t k = clip(bytes, off, 8);
  if (k == 8 && reinterpret_cast<uintptr_t>(p) % 8 == 0) store_word<uint64_t>(p, word);
  else store_le(p, word, k);
}

}  // namespace microddp::proto_lines
