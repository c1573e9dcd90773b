#include "core/model/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/algorithms/registry.h"
#include "core/exec/mpi/backend_mpi.h"
#include "core/ir/checker.h"
#include "core/ir/limits.h"
#include "core/record/data.h"
#include "core/exec/executor.h"
#include "core/exec/rank_program.h"
#include "core/ir/reference.h"
#include "core/model/protocol_model.h"
#include "core/model/stats.h"

namespace microddp {

namespace {
using Clock = std::chrono::steady_clock;

bool has_root(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter;
}

// How many per-rank counts make up nccl-tests' "size".
int64_t shape_factor(Collective c, int n) {
  switch (c) {
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
    case Collective::gather:
    case Collective::scatter: return n;
    default: return 1;
  }
}

// #wrong: the run's verdict (core/ir/reference.h), as every other command
// decides it, counted in elements.
int64_t count_wrong(const CollectiveSpec& s, const RankData& in, const RankData& got) {
  const OutputVerdict v = verify_outputs(s, in, got, reference_outputs(s, in));
  return v.ok ? 0 : std::max<int64_t>(1, v.wrong_elements);
}

// Buffer sets the iterations rotate over, and the bytes of one set (every
// rank's storages).
std::pair<int, int64_t> rotation(const Schedule& s) {
  int64_t per_set = 0;
  for (int r = 0; r < s.num_endpoints(); ++r)  // a switch endpoint's buffers too
    for (int64_t e : rank_layout(s, r).storage_size) per_set += e * static_cast<int64_t>(dtype_size(s.spec.dtype));
  return {static_cast<int>(std::clamp<int64_t>((int64_t{32} << 20) / std::max<int64_t>(per_set, 1), 1, 16)), per_set};
}

// Median time of one iteration (s), in either mode, from the executor's
// per-iteration clock (barrier to barrier, so thread start-up is excluded).
// Buffers rotate over enough sets to spill out of the caches (32 MiB
// together), as OSU recommends: one reused buffer flatters on-node results.
double time_run(const Schedule& s, const RankData& in, const BenchOptions& o, Protocol protocol, RankData* outputs,
                std::vector<double>* samples = nullptr) {
  RunOptions ro;
  ro.mode = o.mode;
  ro.protocol = protocol;
  ro.record = o.record;
  ro.snapshot_limit = 0;
  ro.buffer_sets = rotation(s).first;
  // Warm-up visits every buffer set once, so each timed iteration finds its
  // set as the rotation left it (last touched buffer_sets iterations ago)
  // rather than fresh from the main thread's initial copy.
  const int warm = std::max({1, o.warmup, ro.buffer_sets});
  ro.iterations = warm + o.iters;
  RunResult res = o.backend == "mpi" ? run_mpi(s, in, ro) : run_threads(s, in, ro);
  if (outputs) *outputs = std::move(res.outputs);
  if (res.trace.iteration_ns.size() < static_cast<size_t>(ro.iterations)) return 0;  // mpi: not rank 0
  std::vector<double> t;
  for (int i = warm; i < ro.iterations; ++i) t.push_back(res.trace.iteration_ns[i] * 1e-9);
  if (samples) *samples = t;
  return median(t);
}

// The q-quantile (0..1) of v by linear interpolation between order
// statistics (numpy's default); 0 for no samples.
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

void set_spread(BenchRow& row, const std::vector<double>& s) {
  if (s.empty()) return;
  row.min_us = quantile(s, 0.0) * 1e6;
  row.p10_us = quantile(s, 0.1) * 1e6;
  row.p90_us = quantile(s, 0.9) * 1e6;
  row.max_us = quantile(s, 1.0) * 1e6;
  row.samples = static_cast<int>(s.size());
}

}  // namespace

int64_t parse_size(const std::string& text) {
  if (text.empty()) throw UsageError("empty size");
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (const std::exception&) {
    throw UsageError(fmt::format("size '{}' is not a number (e.g. 4K, 64M, 1G, 1e9)", text));
  }
  double mult = 1;
  const std::string suf = text.substr(pos);
  if (suf == "K" || suf == "k") mult = 1024.0;
  else if (suf == "M" || suf == "m") mult = 1024.0 * 1024;
  else if (suf == "G" || suf == "g") mult = 1024.0 * 1024 * 1024;
  else if (!suf.empty()) throw UsageError(fmt::format("size '{}' has an unknown suffix '{}' (K, M or G)", text, suf));
  if (!(v >= 0) || !std::isfinite(v)) throw UsageError(fmt::format("size '{}' must be zero or positive", text));
  const double b = v * mult;
  if (b > 9.0e18) throw UsageError(fmt::format("size '{}' is too large", text));
  return static_cast<int64_t>(b);
}

std::vector<int64_t> bench_sizes(const BenchOptions& o) {
  SweepRange r;
  r.min_bytes = o.min_bytes;
  r.max_bytes = o.max_bytes;
  r.factor = o.factor;
  r.unit_bytes = size_unit_bytes(o.collective, o.dtype, o.world_size);
  r.end_at_max = true;  // -e is the last row, as before
  r.max_sizes = kBenchMaxSizes;
  r.why_cap = fmt::format("; bench times each size {} pass{} x {} iterations per algorithm", o.passes,
                          o.passes == 1 ? "" : "es", o.warmup + o.iters);
  return sweep_sizes(r);
}

CostParams bench_params(const Schedule& s, const CostParams& p) {
  CostParams q = p;
  const auto [sets, per_set] = rotation(s);
  q.min_footprint_bytes = static_cast<double>(sets) * static_cast<double>(per_set);
  q.back_to_back = true;
  q.rotation_sets = sets;
  return q;
}

CollectiveSpec bench_spec(const BenchOptions& o, const std::string& algorithm, int64_t bytes) {
  CollectiveSpec s;
  s.collective = o.collective;
  s.algorithm = algorithm;
  s.world_size = o.world_size;
  s.dtype = o.dtype;
  s.op = o.op;
  s.root = has_root(o.collective) ? o.root : 0;
  s.nodes = o.nodes;
  const int64_t es = static_cast<int64_t>(dtype_size(o.dtype));
  s.count = o.collective == Collective::barrier ? 0 : bytes / (es * shape_factor(o.collective, o.world_size));
  return s;
}

void validate_bench(const BenchOptions& o) {
  if (o.backend != "threads" && o.backend != "mpi")
    throw UsageError(fmt::format("bench: backend '{}' is not available here (expected: threads or mpi)", o.backend));
  if (o.backend == "mpi" && !mpi_available())
    throw UsageError("bench --backend mpi: this build has no MPI backend (install libopenmpi-dev and rebuild)");
  if (!o.reference.empty() && o.reference != "mpi" && o.reference != "nccl")
    throw UsageError(fmt::format("--reference '{}' is unknown (expected: mpi or nccl)", o.reference));
  if (o.reference == "mpi" && o.backend != "mpi")
    throw UsageError(fmt::format(
        "--reference mpi needs --backend mpi under mpirun (got --backend {}), e.g. "
        "`mpirun -n 2 microddp bench --backend mpi --reference mpi`",
        o.backend));
  if (o.reference == "nccl" && o.backend != "threads")
    throw UsageError(fmt::format("--reference nccl runs in one process beside --backend threads, not --backend {}",
                                 o.backend));
  if (o.reference == "nccl" && !o.nccl_runner) throw UsageError("--reference nccl: this build has no CUDA backend");
  if (!o.mpi_algorithm.empty() && o.reference != "mpi")
    throw UsageError(fmt::format("--mpi-algorithm {} needs --reference mpi", o.mpi_algorithm));
  if (!o.nccl_algo.empty() && o.nccl_algo != "ring" && o.nccl_algo != "tree")
    throw UsageError(fmt::format("--nccl-algo '{}' is unknown (expected: ring or tree)", o.nccl_algo));
  if (!o.nccl_algo.empty() && o.reference != "nccl")
    throw UsageError(fmt::format("--nccl-algo {} needs --reference nccl", o.nccl_algo));
  check_ranks(o.world_size);
  if (o.min_bytes < 0 || o.max_bytes < 0)
    throw UsageError(fmt::format("sizes must not be negative (-b {} -e {})", o.min_bytes, o.max_bytes));
  if (o.min_bytes > o.max_bytes)
    throw UsageError(fmt::format("-b {} is larger than -e {}", o.min_bytes, o.max_bytes));
  if (o.iters < 1) throw UsageError(fmt::format("-n {} must be at least 1", o.iters));
  if (o.warmup < 0) throw UsageError(fmt::format("-w {} must not be negative", o.warmup));
  if (o.passes < 1 || o.passes > 100) throw UsageError(fmt::format("--passes {} must be 1 to 100", o.passes));
  (void)bench_sizes(o);  // names a factor that makes no sweep
  if (o.record_pairs < 0 || o.record_pairs > 1000)
    throw UsageError(fmt::format("--record-overhead {} must be 0 (off) to 1000 pairs", o.record_pairs));
  if (o.record_pairs > 0 && o.backend != "threads")
    throw UsageError(fmt::format("--record-overhead needs the threads backend, not '{}'", o.backend));
  if (has_root(o.collective) && (o.root < 0 || o.root >= o.world_size))
    throw UsageError(fmt::format("--root {} is out of range for {} ranks", o.root, o.world_size));
  if (o.algorithms.empty()) throw UsageError("no algorithm to bench");
  if (o.protocols.empty() && !o.protocol_auto) throw UsageError("no protocol to bench");
  if (o.protocol_auto && !o.params)
    throw UsageError("--protocol auto needs a model to choose with: give --profile FILE or --preset NAME (or run "
                     "`microddp calibrate`)");
  for (Protocol p : o.protocols) check_protocol_supported(o.backend, p);
  if (o.nodes < 1 || o.world_size % o.nodes != 0)
    throw UsageError(fmt::format("--nodes {} must divide --ranks {} (placement is contiguous)", o.nodes, o.world_size));
  if (o.network && o.network->topo.world_size() != o.world_size)
    throw UsageError(fmt::format("the topology holds {} ranks but the bench runs {}", o.network->topo.world_size(),
                                 o.world_size));
  for (const auto& a : o.algorithms) {
    if (a == "auto") {
      if (!o.network && !o.params)
        throw UsageError("--algorithm auto needs a model to choose with: give --profile FILE or --preset NAME");
      continue;
    }
    make_schedule(bench_spec(o, a, 0));  // names the unknown algorithm
  }
  // The largest row's buffers (the schedule's storages, the inputs, the
  // outputs, and the checker's reference when checking) must fit the memory
  // budget: refuse before allocating, not with bad_alloc halfway through.
  for (const auto& a : o.algorithms) {
    if (a == "auto") continue;  // runs one of the registered algorithms, each checked here when listed
    const CollectiveSpec sp = bench_spec(o, a, o.max_bytes);
    const Schedule sch = make_schedule(sp);
    const double es = static_cast<double>(dtype_size(sp.dtype));
    double need = 0;
    for (int r = 0; r < sp.world_size; ++r) {
      for (int64_t e : rank_layout(sch, r).storage_size) need += static_cast<double>(e) * es;
      need += static_cast<double>(sp.input_count(r) + sp.output_count(r) * (o.check ? 2 : 1)) * es;
    }
    check_memory(need, fmt::format("-e {} ({} on {} ranks)", o.max_bytes, a, o.world_size));
  }
}

bool pass_ascends(int pass, int passes) { return (passes - 1 - pass) % 2 == 0; }

namespace {

// What one pass measured of one (size, algorithm).
struct PassResult {
  double t = 0;                       // s: the pass's median (library rows: the mean per call)
  std::vector<double> samples;        // s: its timed iterations (empty for library rows)
  double recorded = -1, overhead = 0; // record_pairs > 0: median on (s), median of on/off - 1
  double state_x = 0;                 // the machine-state probe before this size in this pass
};

// One row's rotation-independent identity: its spec (the algorithm "auto"
// resolved at this size) and the row fields that do not depend on timing.
struct RowPlan {
  BenchRow row;
  CollectiveSpec spec;
  std::optional<Schedule> schedule;  // built once for every pass and the prediction (none: a library row)
  int64_t size = 0;  // the sweep's size (nccl-tests' "size"; seeds the --check inputs)
  bool library = false;
};
}  // namespace

std::vector<BenchRow> run_bench(const BenchOptions& o, const std::function<void(const BenchRow&)>& on_row) {
  validate_bench(o);

#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
  if (o.backend == "mpi") {
    mpi_init_once();
    if (mpi_world_size() != o.world_size)
      throw UsageError(fmt::format("bench: --ranks {} but mpirun started {} ranks (they must be equal)", o.world_size,
                                   mpi_world_size()));
  }
#endif
  // Rank 0 of an MPI job (or the only process) holds every rank's output.
  const bool holds_all = o.backend != "mpi" || mpi_rank() == 0;

  const std::vector<int64_t> sizes = bench_sizes(o);
  // Per size: every algorithm in every protocol, then the library's row.
  // (nullopt: --protocol auto, chosen per size below)
  std::vector<std::pair<std::string, std::optional<Protocol>>> row_algorithms;
  for (const auto& a : o.algorithms) {
    for (Protocol p : o.protocols) row_algorithms.emplace_back(a, p);
    if (o.protocol_auto) row_algorithms.emplace_back(a, std::nullopt);
  }
  if (!o.reference.empty()) row_algorithms.emplace_back(o.reference, Protocol::simple);
  const size_t n_alg = row_algorithms.size();
  const bool show_protocol = o.protocol_auto || !(o.protocols.size() == 1 && o.protocols[0] == Protocol::simple);

  // The rows' fixed part, in output order (size by size, algorithm by algorithm).
  std::vector<RowPlan> plan;
  for (const int64_t bytes : sizes)
    for (size_t ai = 0; ai < n_alg; ++ai) {
      const std::string& alg = row_algorithms[ai].first;
      RowPlan rp;
      rp.row.protocol = row_algorithms[ai].second.value_or(Protocol::simple);
      rp.row.protocol_auto = !row_algorithms[ai].second.has_value();
      rp.row.show_protocol = show_protocol;
      rp.library = !o.reference.empty() && ai + 1 == n_alg;
      std::string run_alg = rp.library ? o.algorithms.front() : alg;
      if (run_alg == "auto") {
        const CollectiveSpec as = bench_spec(o, "auto", bytes);
        const CostParams link = o.params ? *o.params : CostParams{};
        const AutoChoice ch = o.network ? choose_algorithm(as, link, &*o.network) : choose_algorithm_flat(as, link, true);
        run_alg = ch.chosen;
        if (!rp.library) rp.row.auto_pick = ch.chosen;
      }
      rp.spec = bench_spec(o, run_alg, bytes);
      if (!rp.library) rp.schedule.emplace(make_schedule(rp.spec));
      if (rp.row.protocol_auto)
        rp.row.protocol = choose_protocol(*rp.schedule, bench_params(*rp.schedule, *o.params), o.mode == Mode::lockstep,
                                          o.backend == "threads" ? all_protocols() : std::vector<Protocol>{Protocol::simple})
                              .chosen;
      rp.size = bytes;
      BenchRow& row = rp.row;
      row.nodes = o.nodes;
      row.cluster = o.cluster;
      row.collective = o.collective;
      row.algorithm = alg;
      row.backend = rp.library ? alg : o.backend;
      row.world_size = o.world_size;
      row.dtype = o.dtype;
      row.op = o.op;
      row.root = has_root(o.collective) ? o.root : -1;
      row.mode = o.mode;
      row.bytes = bench_bytes(rp.spec);
      row.count = row.bytes / static_cast<int64_t>(dtype_size(o.dtype));
      plan.push_back(std::move(rp));
    }

  // Measures one row once: a fresh schedule, inputs and buffers, as a
  // single pass always did. The first pass also checks the outputs.
  const auto measure = [&](RowPlan& rp, bool first_pass) {
    const CollectiveSpec& sp = rp.spec;
    RankData in;
    if (o.check) {
      in = fill_data(sp, "random:" + std::to_string(rp.size + 1));
    } else {
      in.resize(sp.world_size);
      for (int r = 0; r < sp.world_size; ++r)
        in[r].assign(static_cast<size_t>(sp.input_count(r)) * dtype_size(sp.dtype), std::byte{0});
    }
    const bool check_now = o.check && first_pass;
    RankData out;
    PassResult pr;
    if (rp.schedule) {
      const Schedule& s = *rp.schedule;
      if (o.record_pairs > 0) {
        std::vector<double> off, on, ratio;
        BenchOptions oo = o;
        for (int k = 0; k < o.record_pairs; ++k) {
          // alternate which goes first, so a bias of the first or second
          // run of a pair (allocation, caches) cancels out
          for (int half = 0; half < 2; ++half) {
            oo.record = (half == 0) == (k % 2 == 1);
            const double t_one =
                time_run(s, in, oo, rp.row.protocol, k == 0 && half == 0 && check_now ? &out : nullptr);
            (oo.record ? on : off).push_back(t_one);
          }
          if (off.back() > 0) ratio.push_back(on.back() / off.back() - 1.0);
        }
        pr.t = median(off);
        pr.samples = off;
        pr.recorded = median(on);
        pr.overhead = median(ratio);
      } else {
        pr.t = time_run(s, in, o, rp.row.protocol, check_now ? &out : nullptr, &pr.samples);
      }
    } else if (rp.row.algorithm == "mpi") {
#if defined(MICRODDP_HAVE_MPI) && MICRODDP_HAVE_MPI
      MpiLibraryResult lib = run_mpi_library(sp, in, o.iters, std::max(1, o.warmup));
      rp.row.mpi_algorithm = mpi_algorithm_label(mpi_coll_settings(sp), o.collective, o.world_size, rp.row.bytes);
      pr.t = lib.seconds;
      out = std::move(lib.outputs);
#endif
    } else {
      BenchOptions::LibraryCall lib = o.nccl_runner(sp, in, o.iters, std::max(1, o.warmup));
      pr.t = lib.seconds;
      out = std::move(lib.outputs);
    }
    if (check_now && holds_all) rp.row.wrong = count_wrong(sp, in, out);
    return pr;
  };

  // The row from its passes: the median of the pass medians (a pass that
  // caught a slow moment of the machine is outvoted), the spread over every
  // timed iteration of every pass, and the prediction.
  const auto finish = [&](RowPlan& rp, const std::vector<PassResult>& passes) {
    BenchRow& row = rp.row;
    std::vector<double> ts, all, rec, ovh, states;
    for (const PassResult& pr : passes) {
      ts.push_back(pr.t);
      all.insert(all.end(), pr.samples.begin(), pr.samples.end());
      if (pr.recorded >= 0) rec.push_back(pr.recorded), ovh.push_back(pr.overhead);
      states.push_back(pr.state_x);
    }
    const double t = median(ts);
    set_spread(row, all);
    row.passes = static_cast<int>(passes.size());
    row.state_x = median(states);
    if (!rec.empty()) {
      row.recorded_us = median(rec) * 1e6;
      row.record_overhead_pct = median(ovh) * 100.0;
    }
    row.time_us = t * 1e6;
    row.algbw_gbps = t > 0 ? row.bytes / t / 1e9 : 0;
    row.busbw_gbps = row.algbw_gbps * busbw_factor(o.collective, o.world_size);
    if (!rp.schedule) return;
    const CollectiveSpec& sp = rp.spec;
    const Schedule& s = *rp.schedule;
    if (o.network) {
      const NetworkPrediction np = predict(s, *o.network);
      row.predicted_us = ((o.mode == Mode::lockstep ? np.pr.lockstep_s : np.pr.pipelined_s) +
                          o.network->intra.barrier_for(sp.world_size)) *
                         1e6;
      row.error_pct = row.time_us > 0 ? 100.0 * (row.predicted_us - row.time_us) / row.time_us : 0;
    } else if (o.params) {
      // On threads a step's data was last touched one whole rotation ago,
      // and each iteration writes over what a peer read then (bench_params).
      const CostParams priced = for_protocol(*o.params, rp.row.protocol);
      const CostParams params = o.backend != "mpi" ? bench_params(s, priced) : priced;
      const auto total_us = [&](const CostParams& q) {
        const Prediction p = predict(s, q);
        // The iteration clock also holds the barrier that closes the
        // iteration (both modes), on top of the model's per-step barriers.
        return ((o.mode == Mode::lockstep ? p.lockstep_s : p.pipelined_s) + o.params->barrier_for(sp.world_size)) * 1e6;
      };
      row.predicted_us = total_us(params);
      if (params.back_to_back && (params.cache.has_coherence() || params.cache.has_fresh_read())) {
        CostParams without = params;
        without.back_to_back = false;
        row.predicted_coherence_us = row.predicted_us - total_us(without);
      }
      row.error_pct = row.time_us > 0 ? 100.0 * (row.predicted_us - row.time_us) / row.time_us : 0;
    }
  };

  // Passes over the sizes, alternating direction and ending ascending, so
  // each size is measured at P moments spread over the run and the rows
  // come out in order during the last pass.
  const int P = std::max(1, o.passes);
  std::vector<std::vector<PassResult>> got(plan.size());
  std::vector<BenchRow> rows;
  for (int pass = 0; pass < P; ++pass) {
    const bool ascending = pass_ascends(pass, P);
    for (size_t k = 0; k < sizes.size(); ++k) {
      const size_t si = ascending ? k : sizes.size() - 1 - k;
      const double state_x = o.state_probe ? std::max(0.0, o.state_probe()) : 0.0;
      for (size_t ai = 0; ai < n_alg; ++ai) {
        const size_t i = si * n_alg + ai;
        PassResult pr = measure(plan[i], pass == 0);
        pr.state_x = state_x;
        got[i].push_back(std::move(pr));
        if (pass == P - 1) {
          finish(plan[i], got[i]);
          got[i].clear();
          rows.push_back(plan[i].row);
          if (on_row) on_row(rows.back());
        }
      }
    }
  }
  return rows;
}

}  // namespace microddp
