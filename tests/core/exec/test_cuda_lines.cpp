// The CUDA backend's line formats (kernels/cuda/proto_lines.h) on the CPU:
// word and line counts, flag values, exact packed words, round trips of
// every dtype, and the same bits as the threads backend's stores
// (core/exec/threads/protocol_lines.h). No GPU needed: these are the
// __host__ __device__ functions the kernels call per word.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <vector>

#include "core/exec/threads/protocol_lines.h"
#include "core/ir/protocol.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cuda/proto_lines.h"

using namespace microddp;
namespace pl = microddp::proto_lines;

namespace {

std::vector<std::byte> counting_bytes(int64_t n, int seed) {
  std::vector<std::byte> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 7 + seed) & 0xff);
  return v;
}

// Every word of a message as the CUDA sender packs it.
std::vector<uint64_t> pack_ll(const std::vector<std::byte>& src, uint32_t flag) {
  const auto b = static_cast<int64_t>(src.size());
  std::vector<uint64_t> w(pl::ll_words(b));
  for (int64_t i = 0; i < static_cast<int64_t>(w.size()); ++i) w[i] = pl::ll_pack(src.data(), b, i, flag);
  return w;
}
std::vector<uint64_t> pack_ll128(const std::vector<std::byte>& src, uint32_t flag) {
  const auto b = static_cast<int64_t>(src.size());
  std::vector<uint64_t> w(pl::ll128_lines(b) * pl::kLL128LineWords);
  for (int64_t l = 0; l < pl::ll128_lines(b); ++l) {
    for (int64_t j = 0; j < pl::kLL128DataWords; ++j) w[l * 16 + j] = pl::ll128_pack(src.data(), b, l, j);
    w[l * 16 + pl::kLL128FlagWord] = pl::ll128_flag_word(flag);
  }
  return w;
}

}  // namespace

TEST_SUITE("cuda_lines") {
  TEST_CASE("counts: words, lines and wire bytes equal core/ir/protocol.h") {
    static_assert(pl::kLLWordBytes == kLLWordBytes && pl::kLLDataBytes == kLLDataBytes);
    static_assert(pl::kLL128LineBytes == kLL128LineBytes && pl::kLL128DataBytes == kLL128DataBytes);
    // 1000 bytes: LL 250 words (2000 B on the wire); LL128 9 lines, the last
    // with 1000 - 8 * 120 = 40 data bytes (1152 B on the wire).
    CHECK(pl::ll_words(1000) == 250);
    CHECK(pl::ll_wire_bytes(1000) == 2000);
    CHECK(pl::ll128_lines(1000) == 9);
    CHECK(pl::ll128_wire_bytes(1000) == 1152);
    CHECK(pl::clip(1000, 8 * 120, 120) == 40);
    CHECK(pl::ll_words(0) == 1);
    CHECK(pl::ll128_lines(0) == 1);
    CHECK(pl::ll_words(1) == 1);
    CHECK(pl::ll_words(5) == 2);
    CHECK(pl::ll128_lines(120) == 1);
    CHECK(pl::ll128_lines(121) == 2);
    for (int64_t b : {0, 1, 3, 4, 5, 119, 120, 121, 1000, 4096, 1 << 20}) {
      CAPTURE(b);
      CHECK(pl::ll_words(b) == flag_count(Protocol::ll, b));
      CHECK(pl::ll128_lines(b) == flag_count(Protocol::ll128, b));
      CHECK(pl::ll_wire_bytes(b) == wire_bytes(Protocol::ll, b));
      CHECK(pl::ll128_wire_bytes(b) == wire_bytes(Protocol::ll128, b));
    }
  }

  TEST_CASE("flags: iteration g carries g + 1; words pack data low, flag high") {
    CHECK(pl::flag_for(0) == 1);
    CHECK(pl::flag_for(6) == 7);
    const unsigned char m[6] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
    CHECK(pl::ll_pack(m, 6, 0, 7) == 0x0000000704030201ull);
    CHECK(pl::ll_pack(m, 6, 1, 7) == 0x0000000700000605ull);  // tail: zero past the end
    CHECK(pl::ll_flag(0x0000000704030201ull) == 7);
    CHECK(pl::ll_data(0x0000000704030201ull) == 0x04030201u);
    CHECK(pl::ll_pack(m, 0, 0, 3) == 0x0000000300000000ull);  // empty message: the flag alone
    // unaligned source: same value through the byte path
    unsigned char buf[12] = {0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
    CHECK(pl::ll_pack(buf + 1, 6, 0, 7) == 0x0000000704030201ull);
    // LL128: line 0 word 0 = bytes 0..7, word 15 the flag
    std::vector<std::byte> src = counting_bytes(1000, 0);
    const auto w = pack_ll128(src, 9);
    REQUIRE(w.size() == 9 * 16);
    CHECK(w[0] == 0x312a231c150e0700ull);  // bytes 0, 7, 14, ..., 49 (i * 7 & 0xff)
    CHECK(w[15] == 9);
    CHECK(w[8 * 16 + 15] == 9);
    // line 8 holds bytes 960..999: words 0..4 data, 5..14 zero
    CHECK(w[8 * 16 + 5] == 0);
    CHECK(w[8 * 16 + 14] == 0);
    CHECK(w[8 * 16 + 4] == pl::load_le(reinterpret_cast<const unsigned char*>(src.data()) + 992, 8));
  }

  TEST_CASE("the same bits as the threads backend's LL and LL128 stores") {
    for (int64_t b : {0, 1, 3, 4, 7, 119, 120, 121, 1000, 4099}) {
      CAPTURE(b);
      const auto src = counting_bytes(b, 3);
      const uint32_t flag = pl::flag_for(4);
      const auto cuda_ll = pack_ll(src, flag);
      std::vector<std::atomic<uint64_t>> threads_ll(cuda_ll.size());
      proto::ll_store(threads_ll.data(), src.data(), b, flag, 0, static_cast<int64_t>(cuda_ll.size()));
      for (size_t i = 0; i < cuda_ll.size(); ++i) CHECK(threads_ll[i].load() == cuda_ll[i]);

      const auto cuda_128 = pack_ll128(src, flag);
      std::vector<proto::LL128Line> threads_128(static_cast<size_t>(pl::ll128_lines(b)));
      proto::ll128_store(threads_128.data(), src.data(), b, uint64_t{flag}, 0, pl::ll128_lines(b));
      for (int64_t l = 0; l < pl::ll128_lines(b); ++l) {
        const int64_t k = std::clamp<int64_t>(b - l * 120, 0, 120);
        // the threads line leaves bytes past the message as they were (zero
        // in a fresh buffer); the CUDA packer writes zeros there
        for (int64_t j = 0; j < 15; ++j)
          if (j * 8 < k) {
            uint64_t t = 0;
            std::memcpy(&t, &threads_128[l].data[j], 8);
            CHECK(t == cuda_128[l * 16 + j]);
          }
        CHECK(threads_128[l].flag.load() == cuda_128[l * 16 + 15]);
      }
    }
  }

  TEST_CASE("round trip of every dtype through LL words and LL128 lines, aligned and not") {
    for (DType t : {DType::int32, DType::int64, DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
      const auto es = static_cast<int64_t>(dtype_size(t));
      for (int64_t n : {0, 1, 3, 15, 16, 61, 257}) {
        std::mt19937_64 g(static_cast<uint64_t>(n) * 31 + es);
        const int64_t b = n * es;
        for (int shift : {0, 1, 2}) {  // byte offsets of src and dst
          CAPTURE(static_cast<int>(t)); CAPTURE(n); CAPTURE(shift);
          std::vector<std::byte> in(static_cast<size_t>(b + 8));
          for (int64_t i = 0; i < n; ++i) {
            const double x = static_cast<double>(static_cast<int>(g() % 2001) - 1000);
            kernels::store_double(t, in.data() + shift, i, is_floating(t) ? x / 8 : x);
          }
          const void* s = in.data() + shift;
          std::vector<std::byte> out(in.size(), std::byte{0xee}), out2(in.size(), std::byte{0xee});
          for (int64_t w = 0; w < pl::ll_words(b); ++w) {
            const uint64_t word = pl::ll_pack(s, b, w, 5);
            CHECK(pl::ll_flag(word) == 5);
            pl::ll_unpack(word, out.data() + shift, b, w);
          }
          for (int64_t l = 0; l < pl::ll128_lines(b); ++l)
            for (int64_t j = 0; j < pl::kLL128DataWords; ++j)
              pl::ll128_unpack(pl::ll128_pack(s, b, l, j), out2.data() + shift, b, l, j);
          CHECK(std::memcmp(out.data() + shift, s, static_cast<size_t>(b)) == 0);
          CHECK(std::memcmp(out2.data() + shift, s, static_cast<size_t>(b)) == 0);
          // nothing written past the message's end
          CHECK(out[static_cast<size_t>(shift + b)] == std::byte{0xee});
          CHECK(out2[static_cast<size_t>(shift + b)] == std::byte{0xee});
        }
      }
    }
  }
}
