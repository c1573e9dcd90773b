// microddp bench: the nccl-tests table (size, count, type, redop, root, time,
// algbw, busbw, #wrong) with the cost model's prediction and its error beside
// each row. See core/bench.h for how sizes and times are defined.
#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "app/cli/commands.h"
#include "core/algorithms.h"
#include "core/bench.h"
#include "core/calibrate.h"

namespace microddp::cli {
namespace {

struct Args {
  std::string collective = "all_reduce", algorithm = "ring", backend = "threads", op = "sum", dtype = "float32";
  std::string mode = "lockstep", min = "4K", max = "64M", reference;
  int ranks = 2, iters = 20, warmup = 5, root = 0;
  int64_t factor = 2;
  bool check = false, json = false, csv = false, summary = false, record = false;
  ParamChoice params;
};

int run(const Args& a) {
  if (!a.reference.empty())
    throw UsageError(fmt::format(
        "--reference '{}': no library reference exists on the {} backend yet (reserved for MPI_Allreduce and friends "
        "from the MPI backend and ncclAllReduce from the NCCL backend)",
        a.reference, a.backend));
  if (a.json && a.csv) throw UsageError("--json and --csv exclude each other");
  BenchOptions o;
  o.collective = parse_collective(a.collective);
  o.algorithms.clear();
  if (a.algorithm == "all") o.algorithms = algorithms_for(o.collective);
  else {
    std::stringstream ss(a.algorithm);  // "naive,tree,ring"
    for (std::string one; std::getline(ss, one, ',');) o.algorithms.push_back(one);
  }
  o.backend = a.backend;
  o.world_size = a.ranks;
  o.min_bytes = parse_size(a.min);
  o.max_bytes = parse_size(a.max);
  o.factor = a.factor;
  o.iters = a.iters;
  o.warmup = a.warmup;
  o.op = parse_op(a.op);
  o.dtype = parse_dtype(a.dtype);
  o.root = a.root;
  o.check = a.check;
  o.record = a.record;
  o.mode = parse_mode(a.mode);
  o.params = resolve_params(a.params);
  validate_bench(o);  // before spending time on memcpy
  const int64_t mb = std::min<int64_t>(std::max<int64_t>(o.max_bytes, int64_t{1} << 20), int64_t{64} << 20);
  const double memcpy_gbps = measure_memcpy_Bps(mb, 5) / 1e9;
  const std::string mline = fmt::format("# single-thread memcpy bandwidth: {:.3f} GB/s ({} B buffers)\n", memcpy_gbps, mb);
  std::string pline = o.params ? fmt::format("# prediction: {} profile (α = {:.3f} us, bandwidth = {:.3f} GB/s)\n",
                                             o.params->name, o.params->alpha * 1e6, o.params->bandwidth() / 1e9)
                               : std::string("# prediction: none (give --profile FILE or --preset, or run `microddp calibrate`)\n");
  if (a.json || a.csv) {
    std::fputs(mline.c_str(), stderr);
    std::fputs(pline.c_str(), stderr);
  } else {
    std::fputs(mline.c_str(), stdout);
    std::fputs(pline.c_str(), stdout);
    std::fputs(bench_table_header(o).c_str(), stdout);
  }
  if (a.csv) std::fputs(bench_csv_header().c_str(), stdout);
  const auto rows = run_bench(o, [&](const BenchRow& r) {
    if (a.json) std::printf("%s\n", bench_json_row(r).c_str());
    else if (a.csv) std::fputs(bench_csv_row(r).c_str(), stdout);
    else std::fputs(bench_table_row(r).c_str(), stdout);
    std::fflush(stdout);
  });
  if (!a.json && !a.csv) std::fputs(bench_table_footer(rows).c_str(), stdout);
  if (a.summary) std::fputs(bench_summary_text(summarize(rows)).c_str(), a.json || a.csv ? stderr : stdout);
  for (const auto& r : rows)
    if (r.wrong > 0) return 1;
  return 0;
}

Command reg(45, [](CLI::App& app) {
  static Args a;
  auto* sub = app.add_subcommand("bench", "nccl-tests-style benchmark with the prediction beside each measurement");
  sub->add_option("--collective", a.collective, "collective")->capture_default_str();
  sub->add_option("--algorithm", a.algorithm, "algorithm, a comma list, or 'all'")->capture_default_str();
  sub->add_option("--backend", a.backend, "backend")->capture_default_str();
  sub->add_option("--ranks", a.ranks, "world size")->capture_default_str();
  sub->add_option("-b,--minbytes", a.min, "smallest size (B; K, M, G = powers of 1024)")->capture_default_str();
  sub->add_option("-e,--maxbytes", a.max, "largest size")->capture_default_str();
  sub->add_option("-f,--stepfactor", a.factor, "multiply the size by this between rows")->capture_default_str();
  sub->add_option("-n,--iters", a.iters, "timed iterations")->capture_default_str();
  sub->add_option("-w,--warmup_iters", a.warmup, "warm-up iterations")->capture_default_str();
  sub->add_option("--op", a.op, "reduce op")->capture_default_str();
  sub->add_option("--dtype", a.dtype, "element type")->capture_default_str();
  sub->add_option("--root", a.root, "root rank (rooted collectives)")->capture_default_str();
  sub->add_option("--mode", a.mode, "lockstep | free")->capture_default_str();
  sub->add_flag("--check", a.check, "verify every output against the reference (#wrong)");
  sub->add_flag("--record", a.record, "record events while timing (trace on), to measure its overhead");
  sub->add_flag("--json", a.json, "one JSON object per row");
  sub->add_flag("--csv", a.csv, "CSV rows");
  sub->add_flag("--summary", a.summary, "median and max prediction error per algorithm and world size");
  sub->add_option("--reference", a.reference, "reserved: library collectives (MPI, NCCL) in the same table");
  sub->add_option("--profile", a.params.profile, "calibrated profile for the prediction (default: " + default_profile_path() + ")");
  sub->add_option("--preset", a.params.preset, "predict with a preset link instead of a profile");
  return [] { return run(a); };
});

}  // namespace
}  // namespace microddp::cli
