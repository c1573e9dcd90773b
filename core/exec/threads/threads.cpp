// The threads backend: one std::thread per rank, real data in each rank's
// own buffers, and a shared-memory transport with MPI_Isend / MPI_Irecv
// semantics, in one of three protocols (core/ir/protocol.h):
//  - simple: a send publishes a pointer to the sender's buffer; the receiver
//    copies (or reduces) straight from it and then marks the send complete,
//    so the sender may not touch those elements before that moment: exactly
//    the rule that makes double buffering necessary. Because the pointer
//    stays valid until consumed, any number of messages can be read at
//    once (direct_reads): a rank's one_shot / two_shot fold then runs as
//    one pass over its peers' buffers (RankProgram, kernels::reduce_many).
//  - ll, ll128: the sender stores the message into a buffer on the
//    receiver's side (one per message, allocated before the run from the
//    schedule's sizes) in the protocol's line format (protocol_lines.h), and
//    its send completes once its last word / line is written: the data now
//    lives with the receiver. The receiver polls the flags and unpacks into
//    its destination (recv) or a staging buffer it reduces from
//    (recv_reduce). Flags are generation + 1: never cleared between
//    iterations or step repetitions.
// A schedule's switch endpoints (core/ir/schedule.h: in-network reduction)
// are threads here too, one each after the ranks: they run their ops through
// the same RankProgram and transport, own no input or output, and meet the
// ranks at every barrier.
#include "core/exec/executor.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <exception>
#include <mutex>
#include <thread>

#include <pthread.h>
#include <sched.h>

#include "core/exec/rank_program.h"
#include "core/exec/threads/protocol_lines.h"
#include "core/ir/limits.h"

namespace microddp {

namespace {
// The CPUs this process may use, in increasing order (empty when the
// affinity mask cannot be read).
std::vector<int> allowed_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}
}  // namespace

std::vector<int> cpus_for_threads(int n) {
  const std::vector<int> cpus = allowed_cpus();
  std::vector<int> of_thread;
  if (cpus.empty()) return of_thread;
  for (int t = 0; t < n; ++t) of_thread.push_back(cpus[static_cast<size_t>(t) % cpus.size()]);
  return of_thread;
}

int allowed_cpu_count() { return std::max(1, static_cast<int>(allowed_cpus().size())); }

void bind_this_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  pthread_setaffinity_np(pthread_self(), sizeof(one), &one);  // best effort
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kWatchdogNs = 30'000'000'000;  // a checked schedule never waits this long

struct Aborted {};  // unwinds the other ranks after one failed

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// A rank with a core to itself spins, as MPI ranks do: sched_yield is a
// system call, and a rank that only checks its flag between yields notices
// the data late (measured on a 2-vCPU VM: in naive's first step at 8 KiB,
// the sender saw its message consumed 1.3 µs after the receiver finished,
// and its step took 3.1 µs instead of 2.0), by an amount that depends on how
// long it had waited, which the cost model's α and b(n) cannot price. When
// the ranks outnumber the cores, spinning would steal the core of the very
// rank it waits for: a few pauses, then yield.
int64_t threads_spin_budget_ns(int ranks) {
  static const std::optional<int> quota = cgroup_cpu_quota();  // read once: a file walk per run would cost µs
  int cpus = allowed_cpu_count();
  if (quota) cpus = std::min(cpus, *quota);
  return ranks <= cpus ? kThreadsSpinOwnCoreNs : 0;
}

std::optional<int> cpu_quota_cpus(const std::string& cpu_max) {
  // "max 100000" (no quota) or "QUOTA PERIOD" in µs, one line
  std::istringstream in(cpu_max);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  long long q = 0;
  try {
    size_t used = 0;
    q = std::stoll(quota, &used);
    if (used != quota.size() || q <= 0) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // a quota of 1.5 CPUs runs one spinning rank, not two
  return static_cast<int>(std::max<long long>(1, q / period));
}

std::optional<int> cgroup_cpu_quota() {
  // cgroup v2: /proc/self/cgroup holds "0::/PATH"; the quota that binds is
  // the smallest on the way from PATH up to the root
  std::ifstream self("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  const std::filesystem::path root = "/sys/fs/cgroup";
  std::filesystem::path dir = root / std::filesystem::path(path).relative_path();
  std::optional<int> least;
  for (int depth = 0; depth < 64; ++depth) {
    std::ifstream f(dir / "cpu.max");
    std::string text;
    if (std::getline(f, text))
      if (const auto q = cpu_quota_cpus(text); q && (!least || *q < *least)) least = q;
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return least;
}

namespace {

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

}  // namespace

// Everything one threads run needs; shared by run_threads and SteppedRun.
struct SteppedRun::Impl {
  const Schedule& s;
  RunOptions opt;
  int n;  // ranks: inputs, outputs
  int e;  // endpoints: ranks, then switches; one thread each
  MessagePlan plan;
  std::vector<RankMemory> mem;               // [endpoint]: buffer set 0
  std::vector<std::vector<RankMemory>> extra;  // [set-1][rank]: rotation sets
  std::vector<std::vector<std::unique_ptr<RankProgram>>> extra_programs;  // [set-1][rank]
  std::atomic<bool> abort{false};
  std::unique_ptr<ThreadsTransport> transport;
  Trace trace;
  std::vector<std::unique_ptr<RankProgram>> programs;
  std::vector<std::thread> threads;
  std::exception_ptr error;
  std::mutex error_mu;
  // Stepping gate: ranks run step k only when allowed > k.
  std::atomic<int> allowed{INT32_MAX};
  std::atomic<int> done_ranks{0};  // ranks that finished the current gated step (summed)
  int64_t iter_start = 0;          // written by the barrier's completion, read by the next one
  bool joined = false;
  int steps_done = 0;

  Impl(const Schedule& sch, const RankData& inputs, const RunOptions& o, bool gated)
      : s(sch), opt(o), n(sch.world_size()), e(sch.num_endpoints()) {
    const auto& sp = s.spec;
    const size_t es = dtype_size(sp.dtype);
    check_inputs(s, inputs);
    if (gated) {
      opt.mode = Mode::lockstep;
      allowed = 0;
    }
    plan = plan_messages(s);
    if (opt.spin_ns < 0 && opt.spin_ns != RunOptions::kSpinAuto)
      throw UsageError(fmt::format("spin_ns {}: give 0 (pause, then yield), a time in ns, or kSpinAuto", opt.spin_ns));
    transport = std::make_unique<ThreadsTransport>(s, plan, e, opt.spin_ns, opt.delay, opt.protocol, abort);
    trace = new_trace(s, opt, "threads");
    const bool small = trace.snapshots;
    for (int r = 0; r < e; ++r) mem.push_back(make_rank_memory(s, r));
    for (int r = 0; r < n; ++r) {
      const auto& iv = mem[r].layout.view[static_cast<int>(Buf::input)];
      if (iv.size > 0) std::memcpy(mem[r].ptr(iv, 0, es), inputs[r].data(), inputs[r].size());
      if (needs_premul(sp) && iv.size > 0) {
        void* p = mem[r].ptr(iv, 0, es);
        kernels::premul_avg(sp.dtype, p, p, iv.size, n);
      }
    }
    for (int r = 0; r < e; ++r) alloc_snapshots(trace, s, mem[r].layout, r);
    for (int r = 0; r < e; ++r) {
      programs.push_back(std::make_unique<RankProgram>(s, plan, r, mem[r], *transport, opt, &trace));
      if (small) programs[r]->snapshot(trace.initial[r]);
    }
    for (int k = 1; k < std::max(1, opt.buffer_sets); ++k) {
      extra.push_back(mem);  // same inputs, fresh memory
      extra_programs.emplace_back();
      for (int r = 0; r < e; ++r)
        extra_programs.back().push_back(
            std::make_unique<RankProgram>(s, plan, r, extra.back()[r], *transport, opt, &trace));
    }
    trace.iteration_ns.assign(std::max(1, opt.iterations), 0);
    setup_repetitions();
    if (opt.pin_threads) cpu_of_rank = cpus_for_threads(e);
    for (int r = 0; r < e; ++r) threads.emplace_back([this, r] { body(r); });
  }

  std::vector<int> cpu_of_rank;  // [rank], or empty: not bound

  void body(int r) {
    if (!cpu_of_rank.empty()) bind_this_thread(cpu_of_rank[r]);  // before its first step
    try {
      const int sets = std::max(1, opt.buffer_sets);
      // Message-slot generations of the repetitions: after the iterations'
      // own (0 .. iterations-1), the same sequence on every rank.
      uint32_t next_gen = static_cast<uint32_t>(std::max(1, opt.iterations));
      for (int it = 0; it < std::max(1, opt.iterations); ++it) {
        RankProgram& prog = it % sets == 0 ? *programs[r] : *extra_programs[it % sets - 1][r];
        transport->set_generation(r, static_cast<uint32_t>(it));
        prog.reset_views();
        if (opt.iterations > 1) transport->barrier(r, [&] { iter_start = transport->now_ns(); });
        for (int st = 0; st < s.num_steps(); ++st) {
          const bool last_it = it == std::max(1, opt.iterations) - 1;
          const bool repeat = reps_wanted != 0 && last_it;
          RankMemory& m = it % sets == 0 ? mem[r] : extra[it % sets - 1][r];
          // The state the repetitions start from: only this rank writes its
          // memory, and it finished the previous step. Copied before the
          // gate, so the copy is not part of the first run's time.
          if (repeat) {
            for (size_t i = 0; i < m.storage.size(); ++i)
              if (!m.storage[i].empty()) std::memcpy(pre[r].storage[i].data(), m.storage[i].data(), m.storage[i].size());
            pre_views[r] = prog.views();
          }
          // The Step gate blocks without a timeout: a class may pause for
          // as long as it likes between two steps.
          for (int cur = allowed.load(std::memory_order_acquire); cur <= st;
               cur = allowed.load(std::memory_order_acquire)) {
            if (abort.load()) throw Aborted{};
            allowed.wait(cur, std::memory_order_acquire);
          }
          prog.run_step(st);
          if (opt.mode == Mode::lockstep) {
            transport->barrier(r, [&] {
              if (timed && last_it) {
                // The last rank arrived: the step, barrier included, is over.
                const int64_t now = transport->now_ns();
                int64_t begin = INT64_MAX;
                for (const auto& rr : trace.steps[st]) begin = std::min(begin, rr.begin_ns);
                first_run_ns = now - begin;
                real_arrived_ns = now;
                if (!repeat) trace.step_timing[st] = summarize_step_samples(first_run_ns, {}, true);
              }
              if (!repeat && opt.on_step) opt.on_step(st);
            });
            if (repeat) repeat_step(r, st, next_gen);
            transport->set_generation(r, static_cast<uint32_t>(it));
          }
          done_ranks.fetch_add(1, std::memory_order_acq_rel);
        }
        // message slots are reused by the next iteration
        transport->barrier(r, [&] { trace.iteration_ns[it] = transport->now_ns() - iter_start; });
      }
    } catch (const Aborted&) {
    } catch (...) {
      std::lock_guard<std::mutex> lk(error_mu);
      if (!error) error = std::current_exception();
      abort.store(true);
      allowed.store(INT32_MAX);  // wake ranks parked at the Step gate; they see abort
      allowed.notify_all();
    }
  }

  // ---- Warm step repetitions (RunOptions::repeat_steps) ----
  int reps_wanted = 0;  // > 0: exactly that many; kRepeatStepsAuto; 0: off
  bool timed = false;   // lockstep with record: trace.step_timing is filled
  std::vector<RankMemory> pre;      // [rank]: memory before the current step
  std::vector<RankMemory> scratch;  // [rank]: the copy a repetition runs on
  std::vector<std::unique_ptr<RankProgram>> scratch_programs;  // [rank], over scratch, records nothing
  std::vector<std::array<RankLayout::View, kNumBufs>> pre_views;  // [rank]: names before the step
  // Written only inside barrier completions (one rank at a time, ordered by
  // the barrier) and read by every rank after that barrier.
  std::vector<int64_t> samples;
  int64_t first_run_ns = 0, real_arrived_ns = 0, rep_start_ns = 0, rep_sum_ns = 0;
  int64_t excluded_ns = 0;  // time spent repeating, left out of total_ns
  bool more = false;

  void setup_repetitions() {
    timed = opt.mode == Mode::lockstep && opt.record;
    if (timed) trace.step_timing.assign(s.num_steps(), StepTiming{});
    if (opt.repeat_steps < 0 && opt.repeat_steps != kRepeatStepsAuto)
      throw UsageError(fmt::format("repeat_steps {}: give 0 (off), a count, or auto", opt.repeat_steps));
    if (!timed || opt.repeat_steps == 0 || s.num_steps() == 0) return;
    double bytes = 0;
    for (const auto& m : mem)
      for (const auto& st : m.storage) bytes += static_cast<double>(st.size());
    if (opt.repeat_steps == kRepeatStepsAuto) {
      if (2 * bytes > static_cast<double>(kRepeatAutoMemory_bytes)) return;  // one cold sample per step
      reps_wanted = kRepeatStepsAuto;
    } else {
      check_memory(2 * bytes, fmt::format("--repeat-steps {} (two more copies of every rank's buffers)",
                                          opt.repeat_steps));
      reps_wanted = opt.repeat_steps;
    }
    pre = mem;
    scratch = mem;
    pre_views.resize(e);
    for (int r = 0; r < e; ++r)
      scratch_programs.push_back(std::make_unique<RankProgram>(s, plan, r, scratch[r], *transport, opt, nullptr));
    samples.reserve(reps_wanted > 0 ? reps_wanted : kRepeatAutoMax);
  }

  bool want_more() const {
    const int done = static_cast<int>(samples.size());
    if (reps_wanted > 0) return done < reps_wanted;
    if (done >= kRepeatAutoMax || rep_sum_ns >= kRepeatAutoLimit_ns) return false;
    return done < kRepeatAutoMin || rep_sum_ns < kRepeatAutoTarget_ns;
  }

  // Rank r's part of the repetitions of step st (after its real run): each
  // one restores the copy, then runs the step between two barriers; the time
  // from the first barrier's release to the last rank's arrival at the second
  // is one sample (step + barrier, as first_run_ns).
  void repeat_step(int r, int st, uint32_t& next_gen) {
    do {
      for (size_t i = 0; i < pre[r].storage.size(); ++i)
        if (!pre[r].storage[i].empty())
          std::memcpy(scratch[r].storage[i].data(), pre[r].storage[i].data(), pre[r].storage[i].size());
      scratch_programs[r]->set_views(pre_views[r]);
      transport->set_generation(r, next_gen++);
      transport->barrier(r, [&] {
        if (samples.empty()) rep_sum_ns = 0;
        rep_start_ns = transport->now_ns();
      });
      scratch_programs[r]->run_step(st);
      transport->barrier(r, [&] {
        const int64_t now = transport->now_ns();
        samples.push_back(now - rep_start_ns);
        rep_sum_ns += now - rep_start_ns;
        more = want_more();
        if (more) return;
        trace.step_timing[st] = summarize_step_samples(first_run_ns, samples, true);
        samples.clear();
        if (st + 1 < s.num_steps()) excluded_ns += now - real_arrived_ns;  // inside the run's span
        if (opt.on_step) opt.on_step(st);
      });
    } while (more);
  }

  void join() {
    if (joined) return;
    for (auto& t : threads) t.join();
    joined = true;
    trace.total_ns = transport->now_ns();
    if (error) std::rethrow_exception(error);
  }

  RunResult result() {
    join();
    RunResult res;
    const auto& sp = s.spec;
    const size_t es = dtype_size(sp.dtype);
    res.outputs.resize(n);
    res.inputs_after.resize(n);
    for (int r = 0; r < n; ++r) {
      const auto& iv = mem[r].layout.view[static_cast<int>(Buf::input)];
      if (iv.size > 0 && !needs_premul(sp)) {
        const std::byte* ip = mem[r].ptr(iv, 0, es);
        res.inputs_after[r].assign(ip, ip + iv.size * es);
      }
    }
    for (int r = 0; r < n; ++r) {
      const auto& ov = mem[r].layout.view[static_cast<int>(Buf::output)];
      if (ov.size == 0) continue;
      std::byte* p = mem[r].ptr(ov, 0, es);
      if (needs_finish_avg(sp)) kernels::finish_avg(sp.dtype, p, ov.size, n);
      res.outputs[r].assign(p, p + ov.size * es);
    }
    int64_t first = INT64_MAX, last = 0;
    for (const auto& st : trace.steps)
      for (const auto& r : st) {
        first = std::min(first, r.begin_ns);
        last = std::max(last, r.end_ns);
      }
    if (!trace.steps.empty() && opt.record) trace.total_ns = last - first - excluded_ns;
    res.trace = std::move(trace);
    return res;
  }

  ~Impl() {
    if (!joined) {
      abort.store(true);
      allowed.store(INT32_MAX);
      allowed.notify_all();
      for (auto& t : threads) t.join();
    }
  }
};

RunResult run_threads(const Schedule& s, const RankData& inputs, const RunOptions& opt) {
  SteppedRun::Impl impl(s, inputs, opt, false);
  return impl.result();
}

SteppedRun::SteppedRun(const Schedule& s, const RankData& inputs, const RunOptions& opt)
    : impl_(std::make_unique<Impl>(s, inputs, opt, true)) {}
SteppedRun::~SteppedRun() = default;
int SteppedRun::steps_done() const { return impl_->steps_done; }
bool SteppedRun::finished() const { return impl_->steps_done >= impl_->s.num_steps(); }
void SteppedRun::step() {
  if (finished()) return;
  const int k = impl_->steps_done;
  impl_->allowed.store(k + 1, std::memory_order_release);
  impl_->allowed.notify_all();
  const int want = impl_->e * (k + 1);
  wait_until([&] { return impl_->done_ranks.load(std::memory_order_acquire) >= want || impl_->abort.load(); },
             impl_->abort, [] { return std::string("the ranks to finish a step"); }, -1);
  if (impl_->abort.load()) impl_->join();
  impl_->steps_done = k + 1;
}
RunResult SteppedRun::finish() {
  impl_->allowed.store(INT32_MAX, std::memory_order_release);
  impl_->allowed.notify_all();
  impl_->steps_done = impl_->s.num_steps();
  return impl_->result();
}
const Trace& SteppedRun::trace() const { return impl_->trace; }

}  // namespace microddp
