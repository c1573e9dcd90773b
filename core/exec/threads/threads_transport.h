// The threads backend's shared-memory transport (see threads.cpp for the
// protocols): wait_until (spin, yield, sleep, with a 30 s watchdog), the
// abandonable SpinBarrier, and ThreadsTransport. Private to core/exec/threads/:
// included by threads.cpp only.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/exec/executor.h"
#include "core/exec/threads/protocol_lines.h"
#include "core/ir/limits.h"

namespace microddp::threads_detail {


using Clock = std::chrono::steady_clock;
constexpr int64_t kWatchdogNs = 30'000'000'000;  // a checked schedule never waits this long

struct Aborted {};  // unwinds the other ranks after one failed

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}


// Spin (for spin_ns), then yield, then sleep: cheap when the data is about
// to arrive, polite when 16 rank threads share 2 cores.
// `what` (a callable giving a description) is only called on a timeout, so
// the hot path allocates nothing.
template <typename Ready, typename What>
void wait_until(Ready ready, const std::atomic<bool>& abort, What what, int rank, int64_t spin_ns = 0) {
  for (int i = 0; i < 64; ++i) {
    if (ready()) return;
    cpu_relax();
  }
  // the watchdog counts from here, the spin included (spin_ns <= kWatchdogNs)
  const auto start = Clock::now();
  if (spin_ns > 0) {
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (ready()) return;
        cpu_relax();
      }
      if (abort.load(std::memory_order_relaxed)) throw Aborted{};
      if (Clock::now() - start > std::chrono::nanoseconds(spin_ns)) break;
    }
  }
  for (int i = 0; i < 2000; ++i) {
    if (ready()) return;
    std::this_thread::yield();
  }
  while (!ready()) {
    if (abort.load(std::memory_order_relaxed)) throw Aborted{};
    if (Clock::now() - start > std::chrono::nanoseconds(kWatchdogNs))
      throw std::runtime_error(fmt::format("threads backend: rank {} waited 30 s for {}; the schedule deadlocks",
                                           rank, what()));
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// A reusable barrier that can be abandoned when a rank fails.
class SpinBarrier {
 public:
  SpinBarrier(int n, int64_t spin_ns) : n_(n), spin_ns_(spin_ns) {}
  template <typename F>
  void arrive_and_wait(int rank, const std::atomic<bool>& abort, F&& on_complete) {
    const uint32_t gen = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      on_complete();
      count_.store(0, std::memory_order_relaxed);
      gen_.store(gen + 1, std::memory_order_release);
      return;
    }
    wait_until([&] { return gen_.load(std::memory_order_acquire) != gen; }, abort, [] { return std::string("the other ranks at a barrier"); },
               rank, spin_ns_);
  }
  void arrive_and_wait(int rank, const std::atomic<bool>& abort) { arrive_and_wait(rank, abort, [] {}); }

 private:
  int n_;
  int64_t spin_ns_;
  std::atomic<int> count_{0};
  std::atomic<uint32_t> gen_{0};
};

class ThreadsTransport final : public Transport {
 public:
  ThreadsTransport(const Schedule& sch, const MessagePlan& plan, int n, int64_t spin_ns, const DelayHook* delay,
                   Protocol protocol, std::atomic<bool>& abort)
      : plan_(plan), slots_(plan.num_messages), gen_(n, 0),
        spin_ns_(spin_ns == RunOptions::kSpinAuto ? threads_spin_budget_ns(n) : std::min(spin_ns, kWatchdogNs)),
        barrier_(n, spin_ns_),
        delay_(delay), protocol_(protocol), abort_(abort) {
    for (int r = 0; r < n; ++r) rng_.emplace_back(delay ? delay->seed * 7919 + r : r);
    if (protocol_ != Protocol::simple) setup_lines(sch, n);
    t0_ = Clock::now();
  }
  void set_generation(int rank, uint32_t g) { gen_[rank] = g; }

  void post_send(int rank, int64_t msg, const void* data, int64_t bytes) override {
    if (protocol_ != Protocol::simple) return store_lines(rank, msg, static_cast<const std::byte*>(data), bytes);
    Slot& s = slots_[msg];
    s.data = data;
    s.bytes = bytes;
    s.ready_at = 0;
    if (delay_ && (delay_->rank < 0 || delay_->rank == rank))
      s.ready_at = now_ns() + static_cast<int64_t>(rng_[rank]() % (delay_->max_delay_us + 1)) * 1000;
    s.state.store(2 * gen_[rank] + 1, std::memory_order_release);
  }
  void post_recv(int, int64_t msg, void* dst, int64_t bytes, bool reduce) override {
    if (protocol_ == Protocol::simple) return;  // the receiver reads the sender's buffer: nothing to note
    Slot& s = slots_[msg];  // the receiver's fields: only its thread touches them
    s.rdst = static_cast<std::byte*>(dst);
    s.rbytes = bytes;
    s.rreduce = reduce;
  }
  const void* arrived(int rank, int64_t msg) override {
    if (protocol_ != Protocol::simple) return load_lines(rank, msg);
    Slot& s = slots_[msg];
    const uint32_t want = 2 * gen_[rank] + 1;
    wait_until([&] { return s.state.load(std::memory_order_acquire) == want; }, abort_,
               [&] { return waiting_for(msg); }, rank, spin_ns_);
    if (s.ready_at) wait_until([&] { return now_ns() >= s.ready_at; }, abort_, [] { return std::string("a delayed send"); }, rank);
    return s.data;
  }
  void consumed(int rank, int64_t msg) override {
    if (protocol_ != Protocol::simple) return;  // the sender completed when it wrote its last line
    Slot& s = slots_[msg];
    s.done_ns = now_ns();
    s.state.store(2 * gen_[rank] + 2, std::memory_order_release);
  }
  int64_t wait_sent(int rank, int64_t msg) override {
    if (protocol_ != Protocol::simple) return slots_[msg].sent_ns;  // set by this rank in post_send
    Slot& s = slots_[msg];
    const uint32_t want = 2 * gen_[rank] + 2;
    wait_until([&] { return s.state.load(std::memory_order_acquire) == want; }, abort_,
               [&] { return fmt::format("rank {} to receive its message", plan_.dst[msg]); }, rank, spin_ns_);
    return s.done_ns;
  }
  // simple: arrived() hands out the sender's own buffer, valid until consumed()
  bool direct_reads() const override { return protocol_ == Protocol::simple; }
  void barrier(int rank) override { barrier_.arrive_and_wait(rank, abort_); }
  template <typename F>
  void barrier(int rank, F&& f) { barrier_.arrive_and_wait(rank, abort_, f); }
  int64_t now_ns() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
  }

 private:
  std::string waiting_for(int64_t msg) const {
    return fmt::format("the message from rank {} in step {}", plan_.src[msg], plan_.step[msg]);
  }
  // ---- ll / ll128 ----
  // One receive buffer per message (offsets in words or lines), and per rank
  // a staging buffer as large as its largest recv_reduce.
  void setup_lines(const Schedule& sch, int n) {
    const int64_t es = static_cast<int64_t>(dtype_size(sch.spec.dtype));
    std::vector<int64_t> bytes(static_cast<size_t>(plan_.num_messages), 0);
    std::vector<int64_t> stage(static_cast<size_t>(n), 0);
    for (int st = 0; st < sch.num_steps(); ++st)
      for (int r = 0; r < n; ++r) {
        const auto& ops = sch.steps[st].ranks[r];
        for (size_t i = 0; i < ops.size(); ++i) {
          if (ops[i].kind == OpKind::send) bytes[plan_.msg[st][r][i]] = ops[i].len * es;
          if (ops[i].kind == OpKind::recv_reduce) stage[r] = std::max(stage[r], ops[i].len * es);
        }
      }
    int64_t units = 0, wire = 0;
    // ll: every message starts on a 64-byte cache line (ll_load's polling)
    const int64_t align = protocol_ == Protocol::ll ? proto::kLLWordsPerCacheLine : 1;
    for (int64_t m = 0; m < plan_.num_messages; ++m) {
      slots_[m].line0 = units;
      units += (flag_count(protocol_, bytes[m]) + align - 1) / align * align;
      wire += wire_bytes(protocol_, bytes[m]);
    }
    double staged = 0;
    for (int64_t b : stage) staged += static_cast<double>(b);
    check_memory(static_cast<double>(wire) + staged,
                 fmt::format("--protocol {} (a receive buffer of {} wire bytes for every message)", name(protocol_), wire));
    if (protocol_ == Protocol::ll) {
      // 7 words more, so that the first word can sit on a 64-byte boundary
      ll_store_ = std::vector<std::atomic<uint64_t>>(static_cast<size_t>(std::max<int64_t>(1, units) + align - 1));
      size_t first = 0;
      while (reinterpret_cast<uintptr_t>(&ll_store_[first]) % 64 != 0) ++first;
      ll_words_ = &ll_store_[first];
    } else ll128_lines_.reset(new proto::LL128Line[static_cast<size_t>(std::max<int64_t>(1, units))]());
    for (int64_t b : stage) staging_.emplace_back(static_cast<size_t>(b));
  }
  // The sender writes the whole message into the receiver's buffer; its send
  // is complete when the last word / line is stored. A DelayHook on this
  // rank stops it halfway for the hook's random time, so the receiver polls
  // a message whose second half still holds the last generation's flags.
  void store_lines(int rank, int64_t msg, const std::byte* src, int64_t bytes) {
    Slot& s = slots_[msg];
    const int64_t n = flag_count(protocol_, bytes);
    const uint32_t flag = gen_[rank] + 1;  // never 0, the value of a fresh buffer
    int64_t split = n, resume_at = 0;
    if (delay_ && (delay_->rank < 0 || delay_->rank == rank)) {
      split = n / 2;
      resume_at = now_ns() + static_cast<int64_t>(rng_[rank]() % (delay_->max_delay_us + 1)) * 1000;
    }
    const auto write = [&](int64_t first, int64_t last) {
      if (protocol_ == Protocol::ll) proto::ll_store(ll_words_ + s.line0, src, bytes, flag, first, last);
      else proto::ll128_store(ll128_lines_.get() + s.line0, src, bytes, flag, first, last);
    };
    write(0, split);
    if (split < n) {
      wait_until([&] { return now_ns() >= resume_at; }, abort_, [] { return std::string("a delayed send"); }, rank);
      write(split, n);
    }
    s.sent_ns = now_ns();
  }
  const void* load_lines(int rank, int64_t msg) {
    Slot& s = slots_[msg];
    const uint32_t flag = gen_[rank] + 1;
    std::byte* out = s.rreduce ? staging_[rank].data() : s.rdst;
    const auto wait = [&](auto&& ready) { wait_until(ready, abort_, [&] { return waiting_for(msg); }, rank, spin_ns_); };
    if (protocol_ == Protocol::ll) proto::ll_load(ll_words_ + s.line0, out, s.rbytes, flag, wait);
    else proto::ll128_load(ll128_lines_.get() + s.line0, out, s.rbytes, uint64_t{flag}, wait);
    return s.rreduce ? out : nullptr;  // a recv landed in its destination
  }

  struct alignas(64) Slot {
    std::atomic<uint32_t> state{0};
    const void* data = nullptr;
    int64_t bytes = 0;
    int64_t ready_at = 0;
    int64_t done_ns = 0;
    int64_t line0 = 0;     // ll / ll128: the message's first word / line
    int64_t sent_ns = 0;   // ll / ll128: written by the sender, read by it in wait_sent
    std::byte* rdst = nullptr;  // the receiver's destination (post_recv)
    int64_t rbytes = 0;
    bool rreduce = false;
  };
  const MessagePlan& plan_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> gen_;
  int64_t spin_ns_;  // threads_spin_budget_ns: before barrier_, which is built from it
  SpinBarrier barrier_;
  const DelayHook* delay_;
  Protocol protocol_;
  std::vector<std::atomic<uint64_t>> ll_store_;  // ll: every message's words
  std::atomic<uint64_t>* ll_words_ = nullptr;
  std::unique_ptr<proto::LL128Line[]> ll128_lines_;
  std::vector<std::vector<std::byte>> staging_;  // [rank]
  std::atomic<bool>& abort_;
  std::vector<std::mt19937_64> rng_;
  Clock::time_point t0_;
};

}  // namespace microddp::threads_detail
