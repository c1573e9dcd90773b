// Is this machine's cross-core speed stable? A standalone check, outside
// microddp, of what the threads backend's ops cost when the data comes from
// the other core: cpu 1 writes a buffer, then cpu 0 (a) copies it out,
// (b) sums it into a local buffer, and (c) sums a local buffer instead, as a
// baseline. Each line: median GB/s over 200 rounds, by buffer size (bytes of
// the source). Run it a few times a minute apart; on the developers' 2-vCPU
// VM the 64 KiB copy read 37 GB/s in one run and 11 GB/s ten seconds later
// (docs/performance.md).
//   g++ -O3 -pthread scripts/cross-core-probe.cpp -o /tmp/cross-core-probe && /tmp/cross-core-probe
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {
void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

std::atomic<long> request{0}, done{0};  // round r: cpu 0 asks, cpu 1 writes, then acknowledges
float* shared_src = nullptr;
size_t shared_n = 0;

__attribute__((noinline)) void sum(float* __restrict d, const float* __restrict s, size_t n) {
  for (size_t i = 0; i < n; ++i) d[i] += s[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main() {
  std::thread writer([] {
    pin(1);
    long seen = 0;
    for (;;) {
      long r;
      while ((r = request.load(std::memory_order_acquire)) == seen) {
      }
      if (r < 0) return;
      seen = r;
      for (size_t i = 0; i < shared_n; ++i) shared_src[i] = static_cast<float>(r);
      done.store(r, std::memory_order_release);
    }
  });
  pin(0);
  long round = 0;
  for (size_t kib : {4, 16, 32, 64, 128, 256, 512, 1024, 4096}) {
    const size_t n = kib * 256;  // floats
    std::vector<float> src(n, 1), dst(n, 0), local(n, 2);
    shared_src = src.data();
    shared_n = n;
    std::vector<double> copy_s, sum_remote_s, sum_local_s;
    for (int it = 0; it < 200; ++it)
      for (int k = 0; k < 3; ++k) {
        request.store(++round, std::memory_order_release);  // the other core writes src now
        while (done.load(std::memory_order_acquire) != round) {
        }
        const auto a = Clock::now();
        if (k == 0) std::memcpy(dst.data(), src.data(), n * 4);
        else if (k == 1) sum(dst.data(), src.data(), n);
        else sum(dst.data(), local.data(), n);
        const double t = std::chrono::duration<double>(Clock::now() - a).count();
        (k == 0 ? copy_s : k == 1 ? sum_remote_s : sum_local_s).push_back(t);
      }
    const double bytes = n * 4.0;
    std::printf("%5zu KiB: copy from the other core %6.1f GB/s, sum from it %6.1f GB/s, local sum %6.1f GB/s\n", kib,
                bytes / median(copy_s) / 1e9, bytes / median(sum_remote_s) / 1e9, bytes / median(sum_local_s) / 1e9);
  }
  request.store(-1);
  writer.join();
}
