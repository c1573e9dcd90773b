// Implementation of kernels/cuda/proto_kernels.h: LL and LL128 as stores of
// flagged words into the receiver's memory and a receiver that polls them.
//
// What the GPU guarantees, and what each protocol relies on (sources: CUDA
// C++ Programming Guide, "Memory Fence Functions", "Synchronization
// Functions" (__syncwarp) and "volatile Qualifier"; PTX ISA, "Memory
// Consistency Model": scopes .cta / .gpu / .sys, relaxed and volatile
// operations, fences, and the single-copy atomicity of naturally aligned
// scalar accesses; the idea, not the code, of NVIDIA/nccl's
// src/device/prims_ll.h and prims_ll128.h):
//  - Without a fence a GPU may make a thread's stores visible to another GPU
//    (or another SM) in any order, and a load may be served from the SM's L1
//    without seeing a peer's newer store. `volatile` accesses compile to
//    ld.volatile / st.volatile, which the PTX model treats as relaxed
//    accesses at system scope: each one really goes to memory (L2 or the
//    peer over NVLink), but they order nothing else.
//  - LL: an aligned 8-byte store is one memory access: a reader sees either
//    all 8 old bytes or all 8 new bytes, never half of each. So a word whose
//    upper 4 bytes hold this message's flag also holds this message's 4
//    data bytes. No fence on either side: each word carries its own proof
//    of arrival, which is why LL has the lowest latency (and moves 2 bytes
//    for every byte of data). The sender stores with st.volatile; the
//    receiver polls each word with ld.volatile until the flag is right.
//  - LL128: 15 data words and 1 flag word per 128-byte line, one line per 16
//    threads (a half-warp). The data stores are NOT ordered before the flag
//    store by themselves, so: the 15 lanes store their data words; the
//    half-warp meets at __syncwarp (which the guide says orders memory
//    among the threads that take part); lane 15 executes
//    __threadfence_system() (a fence at system scope: every write that
//    happened before it is visible to all threads of all GPUs and the host
//    before any write after it) and only then stores the flag. The receiver:
//    lane 15 polls the flag (ld.volatile), executes __threadfence_system()
//    so that its flag read is ordered before the data reads that follow,
//    meets the other lanes at __syncwarp, and the 15 lanes then read the
//    data words (ld.volatile, so no stale L1 line). One fence per line on
//    each side, against one per message for Simple.
//    NCCL goes further: a warp stores a whole 128-byte line with one
//    instruction per lane and no fence, relying on NVLink delivering those
//    stores in order, which the PTX memory model does not promise; that is
//    why NCCL enables LL128 only on hardware where NVIDIA has checked it.
//    This implementation keeps the fence: correct on any GPU, a little
//    slower.
//  - Simple (the backend's existing path): the bytes move with
//    cudaMemcpyPeerAsync, and one CUDA event (the flag) orders the receiver
//    after the whole copy.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/proto_kernels.h"
#include "kernels/cuda/proto_lines.h"

namespace microddp::cuda_proto {
namespace {
namespace pl = microddp::proto_lines;

constexpr int kThreads = 256;
constexpr int kSendBlocksMax = 4096;
constexpr int kCheckEvery = 1024;  // polls between two looks at the clock and the error word

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// true: stop (timed out, or another receiver on this GPU already did)
__device__ __forceinline__ bool should_stop(int* error, int tag, uint64_t t0, int64_t timeout_ns) {
  if (*reinterpret_cast<volatile int*>(error) != 0) return true;
  if (static_cast<int64_t>(now_ns() - t0) > timeout_ns) {
    atomicCAS(error, 0, tag);
    return true;
  }
  return false;
}

__global__ void ll_send_kernel(uint64_t* lines, const unsigned char* src, int64_t bytes, uint32_t flag,
                               int64_t words) {
  volatile uint64_t* out = lines;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride)
    out[w] = pl::ll_pack(src, bytes, w, flag);  // data and flag in ONE 8-byte store
}

__global__ void ll_recv_kernel(const uint64_t* lines, unsigned char* dst, int64_t bytes, uint32_t flag,
                               int64_t words, int* error, int tag, int64_t timeout_ns) {
  const volatile uint64_t* in = lines;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride) {
    uint64_t v = in[w];
    if (pl::ll_flag(v) != flag) {
      const uint64_t t0 = now_ns();
      for (int polls = 1; pl::ll_flag(v = in[w]) != flag; ++polls)
        if (polls % kCheckEvery == 0 && should_stop(error, tag, t0, timeout_ns)) return;
    }
    pl::ll_unpack(v, dst, bytes, w);  // the flag matched: these 4 bytes are this message's
  }
}

__global__ void ll128_send_kernel(uint64_t* lines, const unsigned char* src, int64_t bytes, uint32_t flag,
                                  int64_t nlines) {
  const int lane = threadIdx.x & 15;
  const unsigned mask = 0xffffu << (threadIdx.x & 16);  // this half-warp
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x / 16;
  for (int64_t l = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 16; l < nlines; l += stride) {
    volatile uint64_t* line = lines + l * pl::kLL128LineWords;
    if (lane < pl::kLL128FlagWord) line[lane] = pl::ll128_pack(src, bytes, l, lane);
    __syncwarp(mask);  // the 15 data stores happen before lane 15's fence
    if (lane == pl::kLL128FlagWord) {
      __threadfence_system();  // ... which makes them visible before the flag
      line[pl::kLL128FlagWord] = pl::ll128_flag_word(flag);
    }
  }
}

__global__ void ll128_recv_kernel(const uint64_t* lines, unsigned char* dst, int64_t bytes, uint32_t flag,
                                  int64_t nlines, int* error, int tag, int64_t timeout_ns) {
  const int lane = threadIdx.x & 15;
  const unsigned mask = 0xffffu << (threadIdx.x & 16);
  const uint64_t want = pl::ll128_flag_word(flag);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x / 16;
  for (int64_t l = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 16; l < nlines; l += stride) {
    const volatile uint64_t* line = lines + l * pl::kLL128LineWords;
    int ok = 1;
    if (lane == pl::kLL128FlagWord) {
      if (line[pl::kLL128FlagWord] != want) {
        const uint64_t t0 = now_ns();
        for (int polls = 1; ok && line[pl::kLL128FlagWord] != want; ++polls)
          if (polls % kCheckEvery == 0 && should_stop(error, tag, t0, timeout_ns)) ok = 0;
      }
      if (ok) __threadfence_system();  // the flag's load before the data loads
    }
    __syncwarp(mask);  // ... of the other lanes
    ok = __shfl_sync(mask, ok, pl::kLL128FlagWord, 16);
    if (!ok) return;
    if (lane < pl::kLL128FlagWord) pl::ll128_unpack(line[lane], dst, bytes, l, lane);
  }
}

unsigned grid_for(int64_t threads, int64_t max_blocks) {
  int64_t b = (threads + kThreads - 1) / kThreads;
  if (b > max_blocks) b = max_blocks;
  return static_cast<unsigned>(b < 1 ? 1 : b);
}

void check(const char* fn, const void* lines, const void* data, int64_t bytes) {
  if (bytes < 0) throw std::invalid_argument(std::string(fn) + ": bytes " + std::to_string(bytes) + " is negative");
  if (lines == nullptr) throw std::invalid_argument(std::string(fn) + ": null line buffer");
  if (data == nullptr && bytes > 0) throw std::invalid_argument(std::string(fn) + ": null data pointer");
  if (reinterpret_cast<uintptr_t>(lines) % 8 != 0)
    throw std::invalid_argument(std::string(fn) + ": line buffer not 8-byte aligned");
}
void check_recv(const char* fn, const int* error, int tag, int max_blocks) {
  if (error == nullptr) throw std::invalid_argument(std::string(fn) + ": null error word");
  if (tag < 1) throw std::invalid_argument(std::string(fn) + ": tag " + std::to_string(tag) + " must be at least 1");
  if (max_blocks < 1)
    throw std::invalid_argument(std::string(fn) + ": max_blocks " + std::to_string(max_blocks) + " must be at least 1");
}
void check_launch(const char* fn) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(fn) + ": kernel launch failed: " + cudaGetErrorString(e));
}

}  // namespace

void preload() {
  cudaFuncAttributes a{};
  const auto load = [&](const void* k) {
    const cudaError_t e = cudaFuncGetAttributes(&a, k);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cuda preload: ") + cudaGetErrorString(e));
  };
  load(reinterpret_cast<const void*>(ll_send_kernel));
  load(reinterpret_cast<const void*>(ll_recv_kernel));
  load(reinterpret_cast<const void*>(ll128_send_kernel));
  load(reinterpret_cast<const void*>(ll128_recv_kernel));
}

void ll_send(void* lines, const void* src, int64_t bytes, uint32_t flag, cudaStream_t stream) {
  check("cuda ll_send", lines, src, bytes);
  const int64_t words = pl::ll_words(bytes);
  ll_send_kernel<<<grid_for(words, kSendBlocksMax), kThreads, 0, stream>>>(
      static_cast<uint64_t*>(lines), static_cast<const unsigned char*>(src), bytes, flag, words);
  check_launch("cuda ll_send");
}

void ll_recv(const void* lines, void* dst, int64_t bytes, uint32_t flag, int* error, int tag, int64_t timeout_ns,
             int max_blocks, cudaStream_t stream) {
  check("cuda ll_recv", lines, dst, bytes);
  check_recv("cuda ll_recv", error, tag, max_blocks);
  const int64_t words = pl::ll_words(bytes);
  ll_recv_kernel<<<grid_for(words, max_blocks), kThreads, 0, stream>>>(
      static_cast<const uint64_t*>(lines), static_cast<unsigned char*>(dst), bytes, flag, words, error, tag,
      timeout_ns);
  check_launch("cuda ll_recv");
}

void ll128_send(void* lines, const void* src, int64_t bytes, uint32_t flag, cudaStream_t stream) {
  check("cuda ll128_send", lines, src, bytes);
  const int64_t n = pl::ll128_lines(bytes);
  ll128_send_kernel<<<grid_for(n * 16, kSendBlocksMax), kThreads, 0, stream>>>(
      static_cast<uint64_t*>(lines), static_cast<const unsigned char*>(src), bytes, flag, n);
  check_launch("cuda ll128_send");
}

void ll128_recv(const void* lines, void* dst, int64_t bytes, uint32_t flag, int* error, int tag, int64_t timeout_ns,
                int max_blocks, cudaStream_t stream) {
  check("cuda ll128_recv", lines, dst, bytes);
  check_recv("cuda ll128_recv", error, tag, max_blocks);
  const int64_t n = pl::ll128_lines(bytes);
  ll128_recv_kernel<<<grid_for(n * 16, max_blocks), kThreads, 0, stream>>>(
      static_cast<const uint64_t*>(lines), static_cast<unsigned char*>(dst), bytes, flag, n, error, tag, timeout_ns);
  check_launch("cuda ll128_recv");
}

}  // namespace microddp::cuda_proto
