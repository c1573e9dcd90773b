// run_mpi: one run of a schedule over MPI, end to end (the protocol is in
// core/exec/mpi/backend_mpi.h; each step's parts are in the other files of
// core/exec/mpi/).
#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/exec/mpi/mpi_internal.h"
#include "core/ir/limits.h"

namespace microddp {

using namespace mpi_detail;

// ============================================================ run_mpi

RunResult run_mpi(const Schedule& s, const RankData& inputs, const RunOptions& opt) {
  refuse_switches(s, "mpi");  // every rank holds the same schedule: all refuse alike
  check_protocol_supported("mpi", opt.protocol);  // every rank has the same options: all refuse
  mpi_init_once();
  const int me = me_world();
  const int np = mpi_world_size();
  const auto& sp = s.spec;
  const size_t es = dtype_size(sp.dtype);
  const int n = s.world_size();

  const bool inputs_ok = me < n && static_cast<int>(inputs.size()) == n &&
                         inputs[me].size() == static_cast<size_t>(sp.input_count(me)) * es;
  std::string problem;
  if (!inputs_ok && me < n)
    problem = static_cast<int>(inputs.size()) != n
                  ? fmt::format("{} input rows for world size {}", inputs.size(), n)
                  : fmt::format("rank {} input has {} elements but {} needs {}", me, inputs[me].size() / es,
                                name(sp.collective), sp.input_count(me));
  const bool sync_now = agree(make_header(1, sp, &opt, s.num_steps(), inputs_ok || me >= n), problem);
  if (np != n)
    throw MpiJobUsageError(fmt::format("the schedule is for world size {} but mpirun started {} ranks (use mpirun -n {})", n,
                                 np, n));

  const MessagePlan plan = plan_messages(s);
  RankMemory mem = make_rank_memory(s, me);
  const auto& iv = mem.layout.view[static_cast<int>(Buf::input)];
  if (iv.size > 0) {
    void* p = mem.ptr(iv, 0, es);
    std::memcpy(p, inputs[me].data(), inputs[me].size());
    if (needs_premul(sp)) kernels::premul_avg(sp.dtype, p, p, iv.size, n);
  }

  // Same shape and snapshot decision as the threads backend.
  Trace trace = new_trace(s, opt, "mpi");
  alloc_snapshots(trace, s, mem.layout, me);

  // Warm step repetitions (RunOptions::repeat_steps), as the threads backend
  // takes them: lockstep with record, the last iteration only. After the
  // real run of step st (its closing barrier), every rank restores a copy of
  // its memory as it was before the step and re-runs the step on it between
  // two barriers through rank 0; one sample = from the first barrier's
  // release to the second's (rank 0's clock, which every rank is sent), so
  // every rank holds the same samples and takes the same decisions. The
  // decision to repeat and the memory check use the largest rank's memory
  // (MPI_Allreduce), so that every rank decides alike.
  const bool timed = opt.mode == Mode::lockstep && opt.record;
  if (timed) trace.step_timing.assign(s.num_steps(), StepTiming{});
  if (opt.repeat_steps < 0 && opt.repeat_steps != kRepeatStepsAuto)
    throw MpiJobUsageError(fmt::format("repeat_steps {}: give 0 (off), a count, or auto", opt.repeat_steps));
  int reps_wanted = 0;  // > 0: exactly that many; kRepeatStepsAuto; 0: off
  if (timed && opt.repeat_steps != 0 && s.num_steps() > 0) {
    double mine = 0, most = 0;
    for (const auto& st : mem.storage) mine += static_cast<double>(st.size());
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, g_comm);
    if (opt.repeat_steps == kRepeatStepsAuto) {
      if (!(2 * most > static_cast<double>(kRepeatAutoMemory_bytes))) reps_wanted = kRepeatStepsAuto;
    } else {
      try {
        check_memory(2 * most, fmt::format("--repeat-steps {} (two more copies of every rank's buffers)",
                                           opt.repeat_steps));
      } catch (const UsageError& e) {
        throw MpiJobUsageError(e.what());  // every rank checked the same size
      }
      reps_wanted = opt.repeat_steps;
    }
  }

  static ClockEntry last_clock;  // this rank's entry of the last alignment
  if (sync_now) last_clock = sync_clocks(me, n);
  const ClockEntry clock = last_clock;
  const int64_t offset = clock.offset;
  // Everyone has arrived once rank 0 reads its clock: t_start (rank 0's clock)
  // is the zero of the merged timeline; locally that is t_start - offset.
  // Buffer rotation (RunOptions::buffer_sets): extra copies of this rank's
  // memory, inputs loaded, each with its own program; set 0 gives the outputs.
  const int sets = std::max(1, opt.buffer_sets);
  std::vector<RankMemory> extra(sets - 1, mem);
  // The state the step repetitions start from (owned: no peer reads it).
  RankMemory pre = reps_wanted != 0 ? mem : RankMemory{};
  RankMemory scratch = pre;
  // one_shot / two_shot on one node: every memory a peer may read from (the
  // sets, the repetitions' scratch copy) placed in a shared-memory window.
  std::unique_ptr<ShmWindow> window;
  if (shm_wanted(s)) {
    window = std::make_unique<ShmWindow>(mem, es, sets + (reps_wanted != 0 ? 1 : 0));
    for (int k = 1; k < sets; ++k) extra[k - 1] = window->placed(mem, k);
    if (reps_wanted != 0) scratch = window->placed(mem, sets);
    mem = window->placed(mem, 0);
    ++g_window_runs;
  }
  // Byte size of storage i (owned or placed).
  auto bytes_of = [&](size_t i) { return static_cast<size_t>(mem.layout.storage_size[i]) * es; };
  MpiTransport transport(s, plan, me, window.get());
  // Stop drill: MICRODDP_MPI_STOP_RANK=r makes rank r stop itself (SIGSTOP,
  // what `kill -STOP` sends) just before the start barrier, a point that
  // does not depend on the machine's speed. The other ranks must then name
  // it within MICRODDP_MPI_TIMEOUT; tests/cli/mpi_launch_test.sh drills it.
  if (const char* e = std::getenv("MICRODDP_MPI_STOP_RANK"); e && std::to_string(me) == e) std::raise(SIGSTOP);
  const int64_t t_start = root_barrier(me, n, "start", -1);
  transport.set_base(t_start - offset);
  std::vector<std::unique_ptr<RankProgram>> programs;
  programs.push_back(std::make_unique<RankProgram>(s, plan, me, mem, transport, opt, &trace));
  for (auto& m : extra) programs.push_back(std::make_unique<RankProgram>(s, plan, me, m, transport, opt, &trace));
  if (trace.snapshots) programs[0]->snapshot(trace.initial[me]);
  // The repetitions' memory: `pre`, and `scratch`, the copy each repetition
  // runs on (its program records nothing).
  std::unique_ptr<RankProgram> scratch_program =
      reps_wanted != 0 ? std::make_unique<RankProgram>(s, plan, me, scratch, transport, opt, nullptr) : nullptr;
  std::vector<int64_t> samples;
  auto want_more = [&](int64_t rep_sum_ns) {
    const int done = static_cast<int>(samples.size());
    if (reps_wanted > 0) return done < reps_wanted;
    if (done >= kRepeatAutoMax || rep_sum_ns >= kRepeatAutoLimit_ns) return false;
    return done < kRepeatAutoMin || rep_sum_ns < kRepeatAutoTarget_ns;
  };
  int64_t excluded_ns = 0;  // time spent repeating, left out of total_ns

  // Iteration times as the threads backend takes them: from the barrier that
  // starts an iteration (only when there are several) to the one that ends
  // it, both read on rank 0's clock and known to every rank.
  const int iterations = std::max(1, opt.iterations);
  trace.iteration_ns.assign(iterations, 0);
  int64_t iter_start = t_start;
  for (int it = 0; it < iterations; ++it) {
    RankProgram& program = *programs[it % sets];
    RankMemory& m = it % sets == 0 ? mem : extra[it % sets - 1];
    const bool last_it = it == iterations - 1;
    const bool repeat = reps_wanted != 0 && last_it;
    program.reset_views();
    if (iterations > 1) iter_start = root_barrier(me, n, "start of an iteration", -1);
    // The release that opened the current step, on rank 0's clock; a step's
    // first run is timed from it to the release of its closing barrier
    // (step + barrier, as the threads backend's first_run_ns).
    int64_t opened = iter_start, prev_arrived = -1;
    for (int st = 0; st < s.num_steps(); ++st) {
      const auto views_before = program.views();
      if (repeat) {
        // The state the repetitions start from, copied before a barrier
        // that opens the step, so the copy is not part of its time.
        for (size_t i = 0; i < pre.storage.size(); ++i)
          if (bytes_of(i) > 0) std::memcpy(pre.base(static_cast<int>(i)), m.base(static_cast<int>(i)), bytes_of(i));
        opened = root_barrier(me, n, "start of a repeated step", st);
        if (prev_arrived >= 0) excluded_ns += opened - prev_arrived;  // the previous step's repetitions
      }
      program.run_step(st);
      if (opt.mode != Mode::lockstep) continue;
      const int64_t arrived = transport.barrier_at(st, repeat ? nullptr : &opt.on_step);
      const int64_t first_run_ns = arrived - opened;
      opened = prev_arrived = arrived;
      if (timed && last_it && !repeat) trace.step_timing[st] = summarize_step_samples(first_run_ns, {}, true);
      if (!repeat) continue;
      samples.clear();
      int64_t rep_sum_ns = 0;
      do {
        for (size_t i = 0; i < pre.storage.size(); ++i)
          if (bytes_of(i) > 0)
            std::memcpy(scratch.base(static_cast<int>(i)), pre.base(static_cast<int>(i)), bytes_of(i));
        scratch_program->set_views(views_before);
        const int64_t t0 = root_barrier(me, n, "start of a repetition", st);
        scratch_program->run_step(st);
        const int64_t t1 = root_barrier(me, n, "end of a repetition", st);
        samples.push_back(t1 - t0);
        rep_sum_ns += t1 - t0;
      } while (want_more(rep_sum_ns));
      trace.step_timing[st] = summarize_step_samples(first_run_ns, samples, true);
      // After the last repetition; other ranks may already be copying for
      // the next step (no rank sends before the barrier that opens it).
      if (opt.on_step) opt.on_step(st);
    }
    trace.iteration_ns[it] = root_barrier(me, n, "end of an iteration", -1) - iter_start;
  }
  const int64_t end_ns = transport.now_ns();

  const auto& ov = mem.layout.view[static_cast<int>(Buf::output)];
  std::vector<std::byte> out;
  if (ov.size > 0) {
    std::byte* p = mem.ptr(ov, 0, es);
    if (needs_finish_avg(sp)) kernels::finish_avg(sp.dtype, p, ov.size, n);
    out.assign(p, p + ov.size * es);
  }
  if (window) window->close();  // collective; the run's last use of the window

  auto blobs = gather_blobs(me, n, wire::encode_share(s, me, end_ns, clock, out, opt.record ? &trace : nullptr),
                            [&](int r) { return wire::max_share_bytes(s, r, opt.record); });

  RunResult res;
  res.outputs.resize(n);
  g_sync = MpiClockSync{};
  auto keep = [](const ClockEntry& c) {
    g_sync.offset_ns.push_back(c.offset);
    g_sync.error_ns.push_back(c.error);
    g_sync.measured_offset_ns.push_back(c.measured_offset);
    g_sync.measured_error_ns.push_back(c.measured_error);
    g_sync.same_clock.push_back(c.same_clock != 0);
    g_sync.max_error_ns = std::max(g_sync.max_error_ns, c.error);
  };
  if (me != 0) {
    res.outputs[me] = std::move(out);
    keep(clock);
    trace.total_ns = end_ns;
    res.trace = std::move(trace);
    return res;
  }
  int64_t last_end = 0;
  for (int r = 0; r < n; ++r) {
    wire::RankShare share = wire::decode_share(blobs[r], s, r, opt.record);
    last_end = std::max(last_end, share.end_ns);
    keep(share.clock);
    if (sync_now) g_clocks_shared = (r == 0 ? true : g_clocks_shared) && g_sync.same_clock.back();
    res.outputs[r] = std::move(share.outputs);
    if (opt.record && r != 0) {
      trace.events[r] = std::move(share.events);
      for (int st = 0; st < s.num_steps(); ++st) trace.steps[st][r] = std::move(share.steps[st]);
      trace.initial[r] = std::move(share.initial);
    }
  }
  if (sync_now) {
    g_clocks_known = true;
    g_clocks_at = clock_ns();
  }
  trace.total_ns = last_end;
  if (opt.record && !trace.steps.empty()) {
    int64_t first = INT64_MAX, last = 0;
    for (const auto& st : trace.steps)
      for (const auto& r : st) {
        first = std::min(first, r.begin_ns);
        last = std::max(last, r.end_ns);
      }
    trace.total_ns = last - first - excluded_ns;
  }
  res.trace = std::move(trace);
  return res;
}

}  // namespace microddp
