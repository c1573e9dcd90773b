// microddp run: plan, check, execute for real, and print (summary, --outputs,
// --steps walk-through, --json, --trace). Vectors wider than a line are
// elided in the middle unless --full; --json never is.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>

#include "app/cli/commands.h"
#include "app/cli/lab_job.h"
#include "app/cli/run_broken.h"
#include "app/cli/run_options.h"
#include "core/exec/repeat_budget.h"
#include "core/labs/hang/hang.h"
#include "core/record/chrome_trace.h"
#include "core/exec/cuda/backend_cuda.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"
#include "core/record/data.h"
#include "core/record/printer.h"
#include "core/record/record_io.h"
#include "core/algorithms/alternatives.h"
#include "core/ir/order_verdict.h"
#include "core/ir/reference.h"

namespace microddp::cli {
namespace {

struct Args {
  RunArgs run;
  bool steps = false, json = false, outputs = false, full = false;
  std::optional<std::string> trace_file, record_file;  // unset: not given ("" is refused)
  ParamChoice params;
  std::optional<int> repeat_steps;  // unset: kRepeatStepsAuto
  BrokenArgs broken;  // --delay, --seeds (run_broken.h)
};

std::string json_num_or_null(double v) { return v < 0 ? "null" : fmt::format("{:.3f}", v); }

// One object per step: the warm median and spread, the cold first run, the
// prediction (null without a cost model) and whether the times include the
// lockstep barrier (as the prediction's b(n) does). Times in µs.
std::string json_step_times(const Trace& t, const std::vector<double>& predicted) {
  std::string out = "[";
  for (int k = 0; k < static_cast<int>(t.steps.size()); ++k) {
    const StepTiming st = t.timing(k);
    out += fmt::format(
        "{}{{\"step\": {}, \"median_us\": {:.3f}, \"p10_us\": {:.3f}, \"p90_us\": {:.3f}, \"repetitions\": {}, "
        "\"first_run_us\": {:.3f}, \"predicted_us\": {}, \"includes_barrier\": {}}}",
        k ? ", " : "", k, st.median_ns / 1000.0, st.p10_ns / 1000.0, st.p90_ns / 1000.0, st.repetitions,
        st.first_run_ns / 1000.0, json_num_or_null(k < static_cast<int>(predicted.size()) ? predicted[k] : -1),
        st.includes_barrier ? "true" : "false");
  }
  return out + "]";
}

// The run's totals over its steps (core/record/printer.h run_totals), in µs:
// median_total_us, the sum of the warm step medians (null when the steps were
// not repeated), and first_run_total_us, the sum of the cold first runs.
// time_us stays the wall time of the whole run (every rank's span, barriers
// and first runs included; repetitions left out).
std::string json_totals(const Trace& t) {
  const RunTotals r = run_totals(t);
  return fmt::format(", \"median_total_us\": {}, \"first_run_total_us\": {:.3f}", json_num_or_null(r.median_us),
                     r.first_run_us);
}

// Why the step times were not repeated, when they were not ("" otherwise).
std::string repetition_note(const Args& a, const Trace& t) {
  if (a.run.backend != "threads" && a.run.backend != "mpi")
    return fmt::format(
        "step times: one run each (warm repetitions are measured on the threads and mpi backends only, not {})\n",
        a.run.backend);
  if (t.mode == Mode::free)
    return "step times: one run each (free mode: the steps overlap, so a step cannot be repeated alone)\n";
  return "";
}

std::string json_outputs(const Schedule& s, const RankData& outputs) {
  std::string out = "[";
  for (int r = 0; r < s.world_size(); ++r) {
    if (r) out += ", ";
    const int64_t n = s.spec.output_count(r);
    if (n == 0 && (s.spec.collective == Collective::reduce || s.spec.collective == Collective::gather ||
                   s.spec.collective == Collective::barrier)) {
      out += "null";
      continue;
    }
    out += "[";
    for (int64_t i = 0; i < n; ++i) {
      if (i) out += ", ";
      if (s.spec.dtype == DType::int64) {  // exact beyond 2^53
        int64_t v;
        std::memcpy(&v, outputs[r].data() + i * 8, 8);
        out += std::to_string(v);
      } else {
        out += format_value(kernels::load_double(s.spec.dtype, outputs[r].data(), i));
      }
    }
    out += "]";
  }
  return out + "]";
}

std::string json_ints(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

// --algorithm auto's choice, for --json.
std::string json_auto(const PreparedRun& p) {
  if (!p.auto_choice) return "";
  std::string c;
  for (const auto& x : p.auto_choice->candidates)
    c += fmt::format("{}{{\"algorithm\": \"{}\", \"predicted_s\": {:.9g}}}", c.empty() ? "" : ", ", x.algorithm,
                     x.time_s);
  return fmt::format(", \"auto\": {{\"chosen\": \"{}\", \"model\": \"{}\", \"candidates\": [{}]}}",
                     p.auto_choice->chosen, p.auto_model, c);
}

// --protocol auto's choice, for --json.
std::string json_protocol_auto(const PreparedRun& p) {
  if (!p.protocol_choice) return "";
  std::string c;
  for (const auto& x : p.protocol_choice->candidates)
    c += fmt::format("{}{{\"protocol\": \"{}\", \"predicted_s\": {:.9g}}}", c.empty() ? "" : ", ", name(x.protocol),
                     x.time_s);
  return fmt::format(", \"protocol_auto\": {{\"chosen\": \"{}\", \"model\": \"{}\", \"candidates\": [{}]}}",
                     name(p.protocol_choice->chosen), p.protocol_model, c);
}

// --protocol auto's choice in one line; a line naming a protocol other than
// simple; "" otherwise.
std::string protocol_line(const PreparedRun& p) {
  if (!p.protocol_choice)
    return p.protocol == Protocol::simple
               ? ""
               : fmt::format("protocol {}: every message stored in the receiver's buffer as {}\n", name(p.protocol),
                             p.protocol == Protocol::ll ? "8-byte words of 4 B data + 4 B flag"
                                                        : "128-byte lines of 120 B data + an 8-byte flag");
  std::string c;
  for (const auto& x : p.protocol_choice->candidates)
    c += fmt::format("{}{} {:.3f} µs", c.empty() ? "" : ", ", name(x.protocol), x.time_s * 1e6);
  return fmt::format("protocol auto: chose {} (lowest predicted time on {}); candidates: {}\n",
                     name(p.protocol_choice->chosen), p.protocol_model, c);
}

// One line a person reads: the choice and the candidates' predicted times.
std::string auto_line(const PreparedRun& p) {
  if (!p.auto_choice) return protocol_line(p);
  std::string c;
  for (const auto& x : p.auto_choice->candidates)
    c += fmt::format("{}{} {:.3f} µs", c.empty() ? "" : ", ", x.algorithm, x.time_s * 1e6);
  return fmt::format("auto: chose {} (lowest predicted lockstep time on {}); candidates: {}\n", p.auto_choice->chosen,
                     p.auto_model, c) +
         protocol_line(p);
}

// MICRODDP_DEBUG=INFO (or TRACE), subsystem TUNING (MICRODDP_DEBUG_SUBSYS,
// core/labs/hang/hang.h): the choice, shaped like NCCL's tuning log
// (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints each algorithm/protocol's
// time, then "N Bytes -> Algo A proto P time T"), in the documented line
// format (hang::log_line: "microddp:<pid>:<tid> [<rank>] MICRODDP INFO ...").
void auto_debug_log(const PreparedRun& p, int rank) {
  if (!p.auto_choice || !hang::log_enabled(hang::LogLevel::info, hang::kTuning)) return;
  const int64_t bytes = bench_bytes(p.spec);
  double best = 0;
  for (const auto& x : p.auto_choice->candidates) {
    hang::log_line(hang::LogLevel::info, rank,
                   fmt::format("{}: {:>10} Bytes {:<18} time {:>12.3f} us", name(p.spec.collective), bytes, x.algorithm,
                               x.time_s * 1e6),
                   hang::kTuning);
    if (x.algorithm == p.auto_choice->chosen) best = x.time_s;
  }
  hang::log_line(hang::LogLevel::info, rank,
                 fmt::format("{}: {} Bytes -> Algo {} time {:.3f} us (model: {})", name(p.spec.collective), bytes,
                             p.auto_choice->chosen, best * 1e6, p.auto_model),
                 hang::kTuning);
}

// The ranks this process logs for: every rank on one process (threads,
// cuda, nccl), its own under mpirun.
std::vector<int> logged_ranks(const PreparedRun& p, const std::string& backend) {
  std::vector<int> rs;
  if (backend == "mpi") rs.push_back(mpi_rank());
  else
    for (int r = 0; r < p.spec.world_size; ++r) rs.push_back(r);
  return rs;
}

// MICRODDP_DEBUG for the run's one collective call, as the hang lab logs
// its calls (core/labs/hang/hang.h): INIT a rank joins (INFO), COLL the
// call with its peers (INFO), P2P its sends and receives (TRACE).
void run_debug_log_start(const PreparedRun& p, const std::string& backend) {
  using hang::LogLevel;
  if (!hang::log_enabled(LogLevel::info, hang::kAllSubsys)) return;
  const Schedule& s = p.schedule;
  const int n = p.spec.world_size;
  const Collective c = p.spec.collective;
  const bool rooted = c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
                      c == Collective::scatter;
  for (int r : logged_ranks(p, backend)) {
    hang::log_line(LogLevel::info, r, fmt::format("init: rank {} nranks {} backend {}", r, n, backend), hang::kInit);
    const hang::P2pTraffic t = hang::p2p_traffic(s, r);
    std::set<int> peers(t.to.begin(), t.to.end());
    peers.insert(t.from.begin(), t.from.end());
    hang::log_line(LogLevel::info, r,
                   fmt::format("{}: seq 0 algorithm {} count {} dtype {} op {}{} nranks {} steps {} peers {}",
                               name(p.spec.collective), p.spec.algorithm, p.spec.count, name(p.spec.dtype),
                               name(p.spec.op), rooted ? fmt::format(" root {}", p.spec.root) : "",
                               n, s.num_steps(), peers.empty() ? "-" : fmt::format("{}", fmt::join(peers, ","))),
                   hang::kColl);
    hang::log_line(LogLevel::trace, r, hang::p2p_line(s, r, 0), hang::kP2P);
  }
}

// The call's end (COLL, TRACE) on the ranks this process holds the verdict
// for; a mismatch is a WARN line.
void run_debug_log_end(const PreparedRun& p, const std::string& backend, double us, bool ok, const std::string& why) {
  using hang::LogLevel;
  for (int r : logged_ranks(p, backend))
    hang::log_line(LogLevel::trace, r, fmt::format("call #0 completed in {:.3f} us", us), hang::kColl);
  if (!ok) hang::log_line(LogLevel::warn, backend == "mpi" ? mpi_rank() : 0, "call #0 MISMATCH: " + why, hang::kColl);
}

// The hint `run` prints without a profile, preset or --alpha/--bandwidth.
std::string no_profile_hint(bool chose_auto) {
  return fmt::format("hint: no calibration profile ({}): {}; `microddp calibrate --quick` measures this machine in a few "
                     "seconds",
                     default_profile_path(),
                     chose_auto ? "--algorithm auto chose on preset nvlink, not on this machine"
                                : "no predicted times (the window and --algorithm auto use preset nvlink meanwhile)");
}

int run(const Args& a, const CLI::App& sub) {
  hang::check_debug_env();
  if (broken_variant_of(a.run.algorithm)) {  // the one-buffer ring: unchecked, delayed, seeds searched
    if (a.record_file && a.record_file->empty()) throw UsageError("--save-record '' is empty: give a file path");
    // Options the broken run has no use for are refused by name, not dropped.
    for (const char* opt : {"--trace", "--steps", "--outputs", "--full", "--repeat-steps", "--preset", "--profile",
                            "--alpha", "--bandwidth", "--gamma", "--root"})
      if (sub.count(opt))
        throw UsageError(fmt::format("--algorithm {} does not take {} (it prints the corrupting seed and the first "
                                     "wrong element; --save-record keeps the run)",
                                     a.run.algorithm, opt));
    return run_broken(a.run, a.broken, a.record_file, a.json);
  }
  if (!a.broken.delay.empty() || sub.count("--seeds"))
    throw UsageError(fmt::format("--delay and --seeds are for a broken form (--algorithm single_buffered_ring), "
                                 "not {}",
                                 a.run.algorithm));
  // Warm repetitions exist only where the executor fences each step off
  // (RunOptions::repeat_steps): elsewhere a count would be dropped silently.
  if (a.repeat_steps && *a.repeat_steps > 0) {
    if (parse_mode(a.run.mode) == Mode::free)
      throw UsageError(fmt::format("--repeat-steps {} times lockstep steps; --mode free has no step boundaries to "
                                   "repeat between (use --mode lockstep, or drop --repeat-steps)",
                                   *a.repeat_steps));
    if (a.run.backend == "cuda" || a.run.backend == "nccl")
      throw UsageError(fmt::format("--repeat-steps {}: the {} backend does not repeat steps (threads and mpi do); "
                                   "drop --repeat-steps",
                                   *a.repeat_steps, a.run.backend));
  }
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  // Every rank of an MPI job must be given the same options (rank 0 alone
  // reads --data, writes --trace, prints): compared before any of them is
  // read, so the one that differs is named as typed.
  if (a.run.backend == "mpi") {
    mpi_init_once();
    mpi_agree_on_options(given_options(sub));
  }
#endif
  // A given path is never "not given": refuse an empty one before running.
  for (const auto& [opt, path] : {std::pair{"--trace", &a.trace_file}, std::pair{"--save-record", &a.record_file}})
    if (*path && (*path)->empty()) throw UsageError(fmt::format("{} '' is empty: give a file path", opt));
  const auto params = resolve_params(a.params);
  if (params && a.run.backend == "threads")
    if (const std::string note = stale_profile_note(*params); !note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());
  PreparedRun p = prepare_run(a.run, params);
  // An explicit --repeat-steps that would run for minutes is refused before
  // it starts, with the estimate (core/exec/repeat_budget.h).
  if (a.repeat_steps)
    check_repeat_steps(p.schedule, *a.repeat_steps,
                       std::min(allowed_cpu_count(), cgroup_cpu_quota().value_or(allowed_cpu_count())));
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  // --input names a file each rank reads on its own host: the same path may
  // hold other values there. Compare what was read (FNV-1a of every row).
  if (a.run.backend == "mpi" && !a.run.input_file.empty()) {
    uint64_t h = 1469598103934665603ull;
    for (const auto& row : p.inputs)
      for (std::byte b : row) h = (h ^ static_cast<uint64_t>(b)) * 1099511628211ull;
    mpi_agree_on_options({{"--input", fmt::format("{} (values read: hash {:016x})", a.run.input_file, h)}});
  }
#endif
  auto_debug_log(p, a.run.backend == "mpi" ? mpi_rank() : 0);
  run_debug_log_start(p, a.run.backend);
  RunOptions opt;
  opt.mode = p.mode;
  opt.protocol = p.protocol;
  if (a.record_file) opt.snapshot_limit = 4096;  // the replay shows buffers, as the app does
  opt.repeat_steps = a.repeat_steps.value_or(kRepeatStepsAuto);
  RunResult res;
  double clock_error_us = -1;  // MPI runs: the clock alignment's bound
  std::string lab_json;        // in the cluster lab: its topology and each rank's host (app/cli/lab_job.h)
  if (a.run.backend == "threads") {
    res = run_threads(p.schedule, p.inputs, opt);
  } else if (a.run.backend == "mpi") {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
    mpi_init_once();
    res = run_mpi(p.schedule, p.inputs, opt);
    if (a.json) lab_json = lab_run_json_fields();  // collective: every rank
    if (mpi_rank() != 0) {  // rank 0 verifies and prints for everyone
      if (hang::log_enabled(hang::LogLevel::trace, hang::kColl))
        hang::log_line(hang::LogLevel::trace, mpi_rank(),
                       fmt::format("call #0 completed in {:.3f} us", res.trace.total_ns / 1000.0), hang::kColl);
      return 0;
    }
    clock_error_us = mpi_last_clock_sync().max_error_ns / 1000.0;
#else
    throw UsageError("--backend mpi: this build has no MPI backend (install libopenmpi-dev and rebuild)");
#endif
  } else if (a.run.backend == "cuda" || a.run.backend == "nccl") {
    res = run_cuda(p.schedule, p.inputs, opt, a.run.backend == "nccl");
  } else {
    throw UsageError(fmt::format("unknown backend '{}' (expected one of: threads, mpi, cuda, nccl)", a.run.backend));
  }
  // No model at all: one line on stderr (stdout stays what scripts parse)
  // saying what stands in and how to get this machine's numbers.
  if (!params)
    std::fprintf(stderr, "%s\n", no_profile_hint(p.auto_choice.has_value()).c_str());
  // The alpha-beta prediction beside the measurement, when parameters are
  // known (--preset, --profile, --alpha/--bandwidth, or a calibrated profile).
  std::vector<double> predicted;
  if (params) predicted = predicted_step_us(p.schedule, for_protocol(*params, p.protocol));
  double predicted_total_us = predicted.empty() ? -1 : 0;  // the headline's prediction: the steps' summed
  for (double x : predicted) predicted_total_us += x;
  // ok: the run's bits equal its own order's exact result; the double
  // reference's bound is the second check, and where that order leaves it
  // (an overflow, a NaN) the note says where (core/ir/order_verdict.h).
  const RunVerdict verdict = verify_run(p.schedule, p.inputs, res.outputs,
                                        [&] { return other_algorithm_schedules(p.spec); });
  const bool ok = verdict.ok;
  const std::string& why = verdict.why;
  run_debug_log_end(p, a.run.backend, res.trace.total_ns / 1000.0, ok, why);
  // Collectives that promise every rank the same result say whether it held.
  const bool same_promised = promises_identical_outputs(p.spec.collective);
  const std::string identical_json =
      same_promised ? fmt::format(", \"identical_ranks\": {}, \"differing_ranks\": {}",
                                  verdict.identical_ranks ? "true" : "false",
                                  json_ints({verdict.differing_ranks.begin(), verdict.differing_ranks.end()}))
                    : "";
  const std::string order_json =
      verdict.order_dependent
          ? fmt::format(", \"order_dependent\": true, \"order_dependent_element\": {{\"rank\": {}, \"index\": {}, "
                        "\"why\": \"{}\"}}",
                        verdict.note.rank, verdict.note.index, verdict.note.why)
          : ", \"order_dependent\": false";
  const std::string order_line = verdict.order_dependent ? fmt::format("order-dependent: {}\n", verdict.note.why) : "";
  std::string identical_line;
  if (!verdict.identical_ranks) {
    for (int r : verdict.differing_ranks) identical_line += fmt::format(" R{}", r);
    identical_line = fmt::format("ranks differ: R0's bits differ from{}\n", identical_line);
  }
  const auto& sp = p.spec;
  // Output files: a failed write (full disk, bad path) is exit 2 with the
  // path, after the run (core/record/record_io.h write_text_file).
  if (a.trace_file) write_text_file(*a.trace_file, chrome_trace_json(p.schedule, res.trace, predicted), "trace file");
  if (a.record_file) {
    const auto lab = cluster_lab_from_env();  // run in the cluster lab: the record keeps its topology
    RunRecord rec;
    rec.spec = p.spec;
    rec.inputs = p.inputs;
    rec.outputs = res.outputs;
    rec.trace = res.trace;
    rec.cluster = lab ? cluster_lab_json(*lab) : "";
    save_record(*a.record_file, rec);
  }
  const std::string clock_line =
      clock_error_us < 0 ? "" : fmt::format("clock alignment: ±{:.3f} µs\n", clock_error_us);
  if (a.json) {
    fmt::print(
        "{{\"collective\": \"{}\", \"algorithm\": \"{}\", \"world_size\": {}, \"count\": {}, \"dtype\": \"{}\", "
        "\"op\": \"{}\", \"root\": {}, \"in_place\": {}, \"segments\": {}, \"channels\": {}, \"backend\": \"{}\", \"mode\": \"{}\", "
        "\"protocol\": \"{}\", \"steps\": {}, \"outputs\": {}, \"bytes_sent\": {}, \"bytes_received\": {}, "
        "\"time_us\": {:.3f}, \"ok\": {}{}{}{}{}{}}}\n",
        name(sp.collective), sp.algorithm, sp.world_size, sp.count, name(sp.dtype), name(sp.op), sp.root,
        sp.in_place, sp.segments, sp.channels, res.trace.backend, name(res.trace.mode), name(res.trace.protocol),
        p.schedule.num_steps(),
        json_outputs(p.schedule, res.outputs), json_ints(res.trace.bytes_sent), json_ints(res.trace.bytes_received),
        res.trace.total_ns / 1000.0, ok ? "true" : "false", identical_json + order_json,
        predicted.empty() ? "" : fmt::format(", \"predicted_us\": {:.3f}", predicted_total_us),
        ok ? "" : fmt::format(", \"mismatch\": \"{}\"", why),
        clock_error_us < 0 ? "" : fmt::format(", \"clock_error_us\": {:.3f}", clock_error_us),
        (sp.nodes != 1 ? fmt::format(", \"nodes\": {}", sp.nodes) : "") +
            // bytes_sent / bytes_received hold the switch endpoints after the ranks
            (p.schedule.switches > 0 ? fmt::format(", \"switches\": {}", p.schedule.switches) : "") + json_auto(p) +
            json_protocol_auto(p) + lab_json + json_totals(res.trace) +
            fmt::format(", \"step_times\": {}", json_step_times(res.trace, predicted)));
  } else if (a.steps) {
    fmt::print("{}", auto_line(p));
    fmt::print("{}", format_walkthrough(p.schedule, p.inputs, res, predicted, PrintOptions{a.full}));
    // The headline is the warm steps' medians: the cold first run (page
    // faults, thread wake-ups) is named apart, not mistaken for the cost.
    fmt::print("\n{} · {} · {}\n", count_noun(p.schedule.num_steps(), "step"),
               format_measured_total(res.trace, res.trace.total_ns / 1000.0, predicted_total_us),
               ok ? "matches the reference" : "MISMATCH: " + why);
    fmt::print("{}{}{}{}", identical_line, order_line, clock_line, repetition_note(a, res.trace));
    // The errors printed beside the medians: their sign, once, and what they
    // compare when the prediction is a preset's rather than this machine's.
    if (!predicted.empty() && run_totals(res.trace).median_us >= 0)
      fmt::print("{}\n",
                 a.params.preset.empty()
                     ? "(error = (predicted - measured) / measured median: - where the model expected less time, + more; "
                       "a step's prediction is its α-β terms plus the barrier b(n) and any peer wait w(n), which "
                       "`microddp predict` lists apart)"
                     : fmt::format("(predicted with preset {}: a what-if for that hardware, so each error compares "
                                   "it with this machine, not the model with its own measurement)",
                                   a.params.preset));
  } else {
    // As with --steps, the headline is the warm steps' medians with the cold
    // first run named apart (the one run's wall time, first runs and
    // barriers included, was 10-100x the warm figure on a small step).
    fmt::print("{} · {} · {} · {} × {} · op {} · {} · {} · {} on {}\n", name(sp.collective), sp.algorithm,
               count_noun(sp.world_size, "rank"), sp.count_text(), name(sp.dtype), name(sp.op),
               count_noun(p.schedule.num_steps(), "step"), format_measured_total(res.trace, res.trace.total_ns / 1000.0),
               name(res.trace.mode), res.trace.backend);
    fmt::print("{}", auto_line(p));
    // Outputs only when asked: a large run would flood the terminal.
    if (a.outputs) fmt::print("outputs:\n{}", format_outputs(p.schedule, res.outputs, PrintOptions{a.full}));
    std::string sent;
    for (int r = 0; r < p.schedule.num_endpoints(); ++r)  // the ranks, then a switch ("SW")
      sent += fmt::format("{}{} {}/{}", r ? "  " : "", endpoint_name(p.schedule, r), res.trace.bytes_sent[r],
                          res.trace.bytes_received[r]);
    fmt::print("bytes sent/received: {}\n{}\n", sent, ok ? "ok: matches the reference" : "MISMATCH: " + why);
    fmt::print("{}{}{}", identical_line, order_line, clock_line);
  }
  return ok ? 0 : 1;
}

}  // namespace

std::function<int()> setup_run(CLI::App* sub) {
  static Args a;
  add_run_options(*sub, a.run);
  sub->add_flag("--steps", a.steps, "print every step: transfers, buffers, swaps");
  sub->add_flag("--outputs", a.outputs, "print every rank's output (long vectors elided in the middle)");
  sub->add_flag("--full", a.full, "with --steps/--outputs: print every element instead of eliding long vectors");
  sub->add_flag("--json", a.json,
                "print one JSON object (never elided); times in µs: time_us the run's wall time (first runs and "
                "barriers included), median_total_us the sum of the warm step medians (null when not repeated), "
                "first_run_total_us the sum of the steps' cold first runs");
  sub->add_option("--repeat-steps", a.repeat_steps,
                  "time each step as the median of N warm repetitions on copies of its input state (0: one cold "
                  "run per step; default: enough for ~5 ms per step, 5 to 50; threads and mpi backends, lockstep; refused "
                  "when it would take more than a minute, with the estimate)")
      ->check(CLI::Range(0, kRepeatStepsMax));
  sub->add_option("--trace", a.trace_file, "write a Chrome/Perfetto trace JSON");
  sub->add_option("--save-record", a.record_file,
                  "write the run's record (spec, inputs, outputs, trace) as JSON for `microddp-viz --replay FILE`");
  sub->add_option("--delay", a.broken.delay,
                  "with --algorithm single_buffered_ring: delay each send's read by a seeded random 0..MAX_US µs "
                  "on RANK (-1: every rank), as RANK,MAX_US");
  sub->add_option("--seeds", a.broken.seeds,
                  "with --algorithm single_buffered_ring: try seeds 1..N, stop at the first that corrupts (default 1)");
  sub->add_option("--preset", a.params.preset, "predict with a preset: nvlink infiniband pcie5 ethernet-100g ethernet-10g");
  sub->add_option("--profile", a.params.profile, "predict with a calibrated profile (default: the one `calibrate` wrote)");
  sub->add_option("--alpha", a.params.alpha, "predict with this latency (seconds per message)");
  sub->add_option("--bandwidth", a.params.bandwidth, "predict with this bandwidth (bytes per second)");
  sub->add_option("--gamma", a.params.gamma, "predict with this reduction cost (seconds per byte)");
  return std::function<int()>([sub] { return run(a, *sub); });
}

}  // namespace microddp::cli
