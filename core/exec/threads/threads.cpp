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

#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/exec/rank_program.h"
#include "core/exec/threads/threads_transport.h"
#include "core/ir/limits.h"

namespace microddp {

using threads_detail::Aborted;
using threads_detail::ThreadsTransport;
using threads_detail::wait_until;

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
