// microddp ddp: data-parallel training of a small MLP for real (core/ddp.h):
// gradient buckets all-reduced on a communication thread while backward
// continues (PyTorch DDP's overlap), or the FSDP-style sharded mode with
// all-gather prefetch. Prints per-iteration compute, communication, exposed
// communication and overlap; --json prints one summary object. The
// iterations shown are warm: --warmup untimed ones run first (default 1).
// The defaults add stand-ins for a bigger model and a slower link (kLayerDelayUs,
// kLinkUsPerMb below), printed on a "stand-ins:" line.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <optional>

#include "app/cli/commands.h"
#include "core/labs/ddp/ddp.h"
#include "core/labs/ddp/ddp_record.h"
#include "core/ir/types.h"

namespace microddp::cli {
namespace {

// The command's defaults where they differ from ddp::Options' (which are
// PyTorch's and the raw machine's): stand-ins that give a 2-core machine a
// bigger model's proportions, so that a plain `microddp ddp` (and `--sharded`)
// shows communication hidden behind compute. Measured (AMD EPYC, 2 vCPUs):
// `microddp ddp --sharded` overlaps 0.73-0.78 at load 11, 0.52-0.69 beside a
// looping `microddp bench`, 0.00-0.01 with --no-prefetch, and 0.01-0.08 with
// --layer-delay-us 0 --link-us-per-mb 0 (docs/performance.md).
//  - 10000 µs of sleep per layer and pass (lesson 10's): the default MLP's
//    real compute is 1-5 ms per iteration, and a collective's thread
//    hand-offs on a busy 2-core machine cost tens of ms; with 3000 µs the
//    overlap fell to 0.16-0.35 beside the looping bench.
//  - 10000 µs per MiB of each collective's buffer: a link slow enough that
//    communication grows with its bytes (a 4 x 256x256 layer: 2.5 ms).
//  - a 0.25 MiB bucket cap: PyTorch's 25 MB makes this 1 MiB model one
//    bucket, launched after the whole backward pass: nothing to overlap.
constexpr int kLayerDelayUs = 10000;
constexpr double kLinkUsPerMb = 10000, kBucketCapMb = 0.25;

struct Args {
  ddp::Options o{.bucket_cap_mb = kBucketCapMb, .layer_delay_us = kLayerDelayUs, .link_us_per_mb = kLinkUsPerMb};
  std::string overlap = "bucketed", backend = "threads";
  bool json = false, no_prefetch = false, timeline = false;
  std::optional<std::string> record;  // --record FILE (ddp_record.h); unset: not given
};

// Relative tolerance of the loss against the single-process reference: the
// ranks sum their shard's gradients, then average across ranks; the
// reference sums the whole batch at once, so float32 rounding differs.
constexpr double kLossRelTol = 1e-3;

nlohmann::json timeline_json(const ddp::IterationTimeline& t) {
  nlohmann::json j;
  j["backward_end_ms"] = t.backward_end_ms;
  j["end_ms"] = t.end_ms;
  for (const auto& l : t.layers)
    j["layers"].push_back({{"rank", l.rank}, {"layer", l.layer}, {"pass", l.backward ? "backward" : "forward"},
                           {"begin_ms", l.begin_ms}, {"end_ms", l.end_ms}});
  for (const auto& f : t.fills)
    j["bucket_fills"].push_back({{"rank", f.rank}, {"bucket", f.bucket}, {"ready_ms", f.ready_ms}, {"posted_ms", f.posted_ms}});
  for (const auto& c : t.comm)
    j["comm"].push_back({{"call", c.call}, {"collective", c.collective}, {"what", c.what}, {"bytes", c.bytes},
                         {"begin_ms", c.begin_ms}, {"end_ms", c.end_ms}});
  return j;
}

// One line on the warm-up (ddp::Options::warmup), before the table.
std::string warmup_line(const ddp::Result& r) {
  if (r.warmup_iterations == 0)
    return "no warm-up (--warmup 0): iteration 0 is cold (its collectives pay thread start-up and the first touch of "
           "buffers)";
  return fmt::format("warm-up: {} untimed iteration{} ran first ({} collective{}; no sleeps, no SGD step), left out "
                     "of every figure below: the first collectives pay thread start-up and the first touch of buffers",
                     r.warmup_iterations, r.warmup_iterations == 1 ? "" : "s", r.warmup_calls,
                     r.warmup_calls == 1 ? "" : "s");
}

// What the sleeps stand in for, on one line before the table.
std::string stand_ins_line(const ddp::Options& o) {
  if (o.layer_delay_us == 0 && o.link_us_per_mb == 0)
    return "stand-ins: none (--layer-delay-us 0 --link-us-per-mb 0): this machine's own compute and thread hand-offs";
  return fmt::format("stand-ins: {} µs of sleep per layer and pass (--layer-delay-us, a bigger model's compute), {:g} µs "
                     "per MiB of each collective (--link-us-per-mb, a slower link); 0 and 0 show this machine's own",
                     o.layer_delay_us, o.link_us_per_mb);
}

// The command that repeats the run (every setting spelled out), kept in
// the record so that a picture of it says how it was made.
std::string record_command(const ddp::Options& o) {
  std::string c = fmt::format("microddp ddp --ranks {} --depth {} --width {} --batch {} --iterations {} --warmup {} "
                              "--seed {} --layer-delay-us {} --link-us-per-mb {:g}",
                              o.ranks, o.depth, o.width, o.batch, o.iterations, o.warmup, o.seed, o.layer_delay_us,
                              o.link_us_per_mb);
  if (o.sharded) return c + (o.prefetch ? " --sharded" : " --sharded --no-prefetch");
  return c + fmt::format(" --bucket-cap-mb {:g} --overlap {} --algorithm {}", o.bucket_cap_mb, ddp::name(o.overlap),
                         o.algorithm);
}

int run(Args& a) {
  if (a.backend != "threads")
    throw UsageError(fmt::format("backend '{}': the DDP loop runs on the threads backend only", a.backend));
  a.o.overlap = ddp::parse_overlap(a.overlap);
  a.o.prefetch = !a.no_prefetch;
  // A long run is the user's to ask for (--layer-delay-us allows 1 s per
  // layer), but not silently: one line with its cost before it starts.
  // (The options are validated first: a refused run gets no warning.)
  a.o.validate();
  if (a.record) ddp::check_record_path(*a.record);  // before the run: a bad path costs nothing
  if (const ddp::SleepEstimate t = ddp::min_sleep_time(a.o); t.seconds() > ddp::kLongRunSeconds) {
    std::fprintf(stderr, "%s\n",
                 fmt::format("warning: this run takes at least {:.0f} s (its sleeps alone: {}); lower --iterations, "
                             "--depth or --layer-delay-us for a shorter one",
                             t.seconds(),
                             t.str(a.o, {"--iterations", "--depth", "--layer-delay-us", "link_us_per_mb"}))
                     .c_str());
    std::fflush(stderr);
  }
  const ddp::Result r = ddp::run_ddp(a.o);
  if (a.record) {
    ddp::save_ddp_record(*a.record, ddp::DdpRecord{r, record_command(a.o)});
    std::fprintf(stderr, "%s\n", fmt::format("wrote {} (the timelines of {} iteration{}; `microddp-viz --compare-runs "
                                             "A.json B.json` draws two such runs one above the other)",
                                             *a.record, r.timelines.size(), r.timelines.size() == 1 ? "" : "s")
                                     .c_str());
  }
  double compute = 0, comm = 0, exposed = 0, hidden = 0;
  for (const auto& it : r.iterations) {
    compute += it.compute_ms;
    comm += it.comm_ms;
    exposed += it.exposed_comm_ms;
    hidden += it.overlap_fraction * it.comm_ms;
  }
  const double ni = static_cast<double>(r.iterations.size());
  // Written so that NaN fails: the reference always runs here, and a
  // non-finite loss gives an error of +inf.
  const bool loss_ok = r.max_reference_rel_error <= kLossRelTol;
  const int calls = r.iterations.empty() ? 0 : r.iterations.front().calls;
  if (a.json) {
    nlohmann::json j;
    j["iterations"] = r.iterations.size();
    j["warmup_iterations"] = r.warmup_iterations;  // untimed, before them; in no figure below
    j["warmup_calls"] = r.warmup_calls;
    j["world_size"] = a.o.ranks;
    j["mode"] = a.o.sharded ? "sharded" : "ddp";
    j["overlap"] = std::string(ddp::name(a.o.overlap));
    j["algorithm"] = a.o.algorithm;
    j["bucket_cap_mb"] = a.o.bucket_cap_mb;
    j["buckets"] = a.o.sharded ? 0 : r.buckets.size();
    j["bucket_bytes"] = nlohmann::json::array();
    if (!a.o.sharded)
      for (const auto& b : r.buckets) j["bucket_bytes"].push_back(b.bytes);
    j["allreduce_calls"] = a.o.sharded ? 0 : calls;  // per iteration
    j["collective_calls"] = calls;                    // per iteration, every kind
    j["params"] = r.params;
    j["param_bytes"] = r.param_elements * 4;
    j["compute_ms"] = compute / ni;  // means per iteration
    j["comm_ms"] = comm / ni;
    j["exposed_comm_ms"] = exposed / ni;
    j["overlap_fraction"] = comm > 0 ? hidden / comm : 0.0;
    j["loss_first"] = r.iterations.front().loss;
    j["loss_last"] = r.iterations.back().loss;
    if (!std::isnan(r.max_reference_rel_error)) {
      j["reference_loss_last"] = r.iterations.back().reference_loss;
      j["reference_max_rel_error"] = r.max_reference_rel_error;
    }
    j["replicas_identical"] = r.replicas_identical;
    j["loss_matches_reference"] = loss_ok;
    for (const auto& it : r.iterations)
      j["per_iteration"].push_back({{"loss", it.loss}, {"compute_ms", it.compute_ms}, {"comm_ms", it.comm_ms},
                                    {"exposed_comm_ms", it.exposed_comm_ms}, {"overlap_fraction", it.overlap_fraction},
                                    {"calls", it.calls}});
    if (a.timeline) j["timeline_last"] = timeline_json(r.timelines.back());
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s\n", fmt::format("microddp ddp: {} ranks (threads: one worker thread per rank, collectives on one "
                                    "communication thread), MLP {} x {}x{}, batch {} ({} per rank)",
                                    a.o.ranks, a.o.depth, a.o.width, a.o.width, a.o.batch, a.o.batch / a.o.ranks).c_str());
    std::printf("%s\n", stand_ins_line(a.o).c_str());
    if (a.o.sharded) {
      std::printf("%s\n", fmt::format("mode: sharded (FSDP-style), all-gather per layer{}, reduce-scatter of gradients",
                                      a.o.prefetch ? " with prefetch of the next layer" : ", no prefetch").c_str());
    } else {
      // --bucket-cap-mb counts MB as PyTorch does, 2^20 bytes: a MiB.
      std::printf("%s\n", fmt::format("mode: DDP, overlap {}, all_reduce algorithm {}, bucket cap {:g} MiB ({} B): {} bucket{}",
                                      ddp::name(a.o.overlap), a.o.algorithm, a.o.bucket_cap_mb,
                                      static_cast<long long>(std::llround(a.o.bucket_cap_mb * 1048576.0)),
                                      r.buckets.size(), r.buckets.size() == 1 ? "" : "s").c_str());
      for (size_t k = 0; k < r.buckets.size() && k < 16; ++k)
        std::printf("  bucket %zu: %lld bytes, params %s\n", k, static_cast<long long>(r.buckets[k].bytes),
                    fmt::format("{}", fmt::join(r.buckets[k].params, ",")).c_str());
      if (r.buckets.size() > 16) std::printf("  ... %zu more\n", r.buckets.size() - 16);
    }
    std::printf("%s\n", warmup_line(r).c_str());
    std::printf("%5s %12s %12s %11s %9s %12s %8s %6s\n", "iter", "loss", "reference", "compute_ms", "comm_ms",
                "exposed_ms", "overlap", "calls");
    for (size_t i = 0; i < r.iterations.size(); ++i) {
      const auto& it = r.iterations[i];
      std::printf("%5zu %12.6g %12.6g %11.3f %9.3f %12.3f %8.2f %6d\n", i, it.loss, it.reference_loss, it.compute_ms,
                  it.comm_ms, it.exposed_comm_ms, it.overlap_fraction, it.calls);
    }
    const auto& t = r.timelines.back();
    std::printf("last iteration: backward ended at %.3f ms; collectives on the communication thread:\n", t.backward_end_ms);
    // DDP: a bucket's all-reduce that starts before backward ends overlaps
    // it. Sharded: calls run in forward too, so a call is labelled by the
    // layer computations (any rank's) its interval really intersects.
    auto overlap_label = [&](const ddp::CommSpan& c) -> std::string {
      if (!a.o.sharded) return c.begin_ms < t.backward_end_ms ? "  (overlaps backward)" : "";
      bool fwd = false, bwd = false;
      for (const auto& l : t.layers)
        if (l.begin_ms < c.end_ms && c.begin_ms < l.end_ms) (l.backward ? bwd : fwd) = true;
      return fwd && bwd ? "  (overlaps forward and backward)"
             : fwd      ? "  (overlaps forward)"
             : bwd      ? "  (overlaps backward)"
                        : "";
    };
    for (size_t k = 0; k < t.comm.size() && k < 24; ++k)
      std::printf("  %-15s %-26s %10lld B  %9.3f - %9.3f ms%s\n", t.comm[k].collective.c_str(), t.comm[k].what.c_str(),
                  static_cast<long long>(t.comm[k].bytes), t.comm[k].begin_ms, t.comm[k].end_ms,
                  overlap_label(t.comm[k]).c_str());
    std::printf("replicas bit-identical: %s; loss vs single-process reference: max rel. error %.3g (%s, tolerance %g)\n",
                r.replicas_identical ? "yes" : "NO", r.max_reference_rel_error, loss_ok ? "ok" : "MISMATCH", kLossRelTol);
  }
  return (r.replicas_identical && loss_ok) ? 0 : 1;
}

}  // namespace

std::function<int()> setup_ddp(CLI::App* sub) {
  static Args a;
  sub->add_option("--ranks,-n", a.o.ranks, "world size (worker threads)")->capture_default_str();
  sub->add_option("--depth", a.o.depth, "linear layers")->capture_default_str();
  sub->add_option("--width", a.o.width, "layer width (every layer is width x width)")->capture_default_str();
  sub->add_option("--batch", a.o.batch, "global batch (divisible by ranks)")->capture_default_str();
  sub->add_option("--iterations", a.o.iterations, "timed training iterations")->capture_default_str();
  sub->add_option("--warmup", a.o.warmup, "untimed iterations before them (0..10; no sleeps, no SGD step): the first "
                                          "collectives pay thread start-up and first touch; 0 shows that cold "
                                          "iteration as iteration 0")->capture_default_str();
  sub->add_option("--lr", a.o.lr, "SGD learning rate")->capture_default_str();
  sub->add_option("--bucket-cap-mb", a.o.bucket_cap_mb,
                  "bucket capacity in MB (2^20 bytes, as PyTorch; PyTorch's default 25 would make this 1 MiB model one "
                  "bucket)")
      ->capture_default_str();
  sub->add_option("--overlap", a.overlap, "none | per-param | bucketed")->capture_default_str();
  sub->add_option("--algorithm", a.o.algorithm, "all_reduce algorithm")->capture_default_str();
  sub->add_option("--seed", a.o.seed, "model and data seed")->capture_default_str();
  sub->add_option("--layer-delay-us", a.o.layer_delay_us,
                  "extra compute per layer and pass (a sleep), for a bigger model's proportions; 0 = the raw compute")
      ->capture_default_str();
  sub->add_option("--link-us-per-mb", a.o.link_us_per_mb,
                  "extra link time per MB (2^20 B) of each collective's per-rank buffer (a sleep on the communication thread), "
                  "for a slower network's proportions, as lesson 07's overlap beats use; 0 = none")
      ->capture_default_str();
  sub->add_option("--backend", a.backend, "threads (the only one for the DDP loop)")->capture_default_str();
  sub->add_flag("--sharded", a.o.sharded, "FSDP-style: shard parameters, all-gather per layer, reduce-scatter gradients");
  sub->add_flag("--no-prefetch", a.no_prefetch, "sharded: all-gather each layer only when it is needed");
  sub->add_flag("--json", a.json, "print a JSON summary");
  sub->add_option("--record", a.record,
                  "write the run's record (settings, buckets, every timed iteration's timeline in ns) to FILE, for "
                  "`microddp-viz --compare-runs A.json B.json`");
  sub->add_flag("--timeline", a.timeline, "with --json: the last iteration's timeline (layers, bucket fills, collectives)");
  return [sub] {
    // An option the chosen mode does not use is refused, naming it, rather
    // than ignored: a user who asked for buckets should not get FSDP's plot.
    const auto given = [sub](const char* opt) { return sub->count(opt) > 0; };
    if (a.o.sharded)
      for (const char* opt : {"--overlap", "--bucket-cap-mb"})
        if (given(opt))
          throw UsageError(fmt::format("{} is DDP's (buckets of all-reduces); --sharded all-gathers per layer and "
                                       "reduce-scatters each layer's gradients: drop {} or --sharded",
                                       opt, opt));
    if (!a.o.sharded && a.no_prefetch)
      throw UsageError("--no-prefetch is --sharded's (the all-gather of the next layer); plain DDP has no prefetch: "
                       "add --sharded or drop --no-prefetch");
    if (a.timeline && !a.json) throw UsageError("--timeline goes into the JSON summary: add --json");
    return run(a);
  };
}

}  // namespace microddp::cli
