// bench's output (core/model/bench.h): the nccl-tests-shaped table (header,
// rows, footer), the JSON and CSV rows, the per-algorithm summary, and which
// algorithm Open MPI's tuned component runs for an all-reduce (the label of
// the MPI_Allreduce reference row). run_bench, which measures, is in bench.cpp.
#include "core/model/bench.h"
#include "core/model/sweep.h"

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

std::string bench_table_header(const BenchOptions& o) {
  std::string h = fmt::format("# microddp bench: {} on {} ranks, backend {}, {} mode; median of {} iterations after {} warm-up (at least one per rotating buffer set)\n",
                              name(o.collective), o.world_size, o.backend, name(o.mode), o.iters, o.warmup);
  if (o.passes > 1) {
    const auto dir = [&](int p) { return pass_ascends(p, o.passes) ? "ascending" : "descending"; };
    std::string order;
    for (int p = 0; p < o.passes; ++p) order += std::string(p ? ", " : "") + dir(p);
    if (o.passes > 4) order = fmt::format("{}, ..., descending, ascending", dir(0));
    h += fmt::format("# {} passes over the sizes ({}): a row's time is the median of its {} pass medians{}; its spread "
                     "(--json: min, p10, p90, max) is over all {} x {} {}\n",
                     o.passes, order, o.passes, o.passes % 2 == 0 ? " (with an even count, the mean of the middle two)" : "",
                     o.passes, o.record_pairs > 0 ? o.record_pairs : o.iters,
                     o.record_pairs > 0 ? "recording-off runs" : "iterations");
  }
  if (o.reference == "mpi")
    h += fmt::format("# reference rows \"mpi\": Open MPI's own collective, mean of {} calls (coll/tuned algorithm: {})\n",
                     o.iters, o.mpi_algorithm.empty() ? "Open MPI's choice, named at the end" : o.mpi_algorithm);
  else if (o.reference == "nccl")
    h += fmt::format("# reference rows \"nccl\": NCCL's own collective, mean of {} calls (NCCL_ALGO: {})\n", o.iters,
                     o.nccl_algo.empty() ? "NCCL's choice" : o.nccl_algo);
  if (o.nodes > 1 || o.network)
    h += fmt::format("# topology: {} node(s) x {} rank(s){}; predicted = {}\n", o.nodes, o.world_size / std::max(1, o.nodes),
                     o.network ? fmt::format(", {} NIC(s) per node", o.network->topo.nics_per_node) : "",
                     o.network ? fmt::format("the topology model (intra α = {:.3g} µs, {:.4g} GB/s; inter α = {:.3g} µs, "
                                             "{:.4g} GB/s per NIC; step barrier {:.3g} us)",
                                             o.network->intra.alpha * 1e6, o.network->intra.bandwidth() / 1e9,
                                             o.network->inter.alpha * 1e6, o.network->inter.bandwidth() / 1e9,
                                             o.network->intra.barrier_for(o.world_size) * 1e6)
                               : std::string("the flat model (no topology in the profile)"));
  if (!o.cluster.empty()) h += "# cluster lab: " + o.cluster + "\n";
  if (o.record_pairs > 0)
    h += fmt::format("# recording overhead: {} pairs of back-to-back runs, recording off and on (order alternating); time = median off, recorded = "
                     "median on, rec.ovh = median of the pairs' on/off - 1\n",
                     o.record_pairs);
  const bool rec = o.record_pairs > 0;
  h += "# error = (predicted - measured) / measured: + where the model expected more time than the run took, - less\n";
  h += fmt::format("# {:>18} {:>12} {:>12} {:>8} {:>6} {:>5} {:>11} {:>8} {:>8} {:>6} {:>11} {:>7}{}\n", "algorithm",
                   "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "predicted", "error",
                   rec ? fmt::format(" {:>11} {:>7}", "recorded", "rec.ovh") : "");
  h += fmt::format("# {:>18} {:>12} {:>12} {:>8} {:>6} {:>5} {:>11} {:>8} {:>8} {:>6} {:>11} {:>7}{}\n", "", "(B)",
                   "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(%)",
                   rec ? fmt::format(" {:>11} {:>7}", "(us)", "(%)") : "");
  return h;
}

namespace {
// The algorithm with its protocol when the bench named protocols ("ring/ll").
std::string label(const BenchRow& r) {
  if (!r.show_protocol || r.backend == "mpi" || r.backend == "nccl") return r.algorithm;
  return r.algorithm + "/" + (r.protocol_auto ? "auto->" : "") + std::string(name(r.protocol));
}
}  // namespace

std::string bench_table_row(const BenchRow& r) {
  const std::string wrong = r.wrong < 0 ? "N/A" : std::to_string(r.wrong);
  const std::string pred = r.predicted_us < 0 ? "-" : fmt::format("{:.2f}", r.predicted_us);
  const std::string err = r.predicted_us < 0 ? "-" : fmt::format("{:+.1f}", r.error_pct);
  const std::string rec =
      r.recorded_us < 0 ? "" : fmt::format(" {:>11.2f} {:>+7.1f}", r.recorded_us, r.record_overhead_pct);
  return fmt::format("  {:>18} {:>12} {:>12} {:>8} {:>6} {:>5} {:>11.2f} {:>8.3f} {:>8.3f} {:>6} {:>11} {:>7}{}\n",
                     r.auto_pick.empty() ? label(r) : label(r) + "->" + r.auto_pick,
                     r.bytes, r.count, name(r.dtype), name(r.op), r.root, r.time_us, r.algbw_gbps,
                     r.busbw_gbps, wrong, pred, err, rec);
}

namespace {
// A JSON string's contents: quotes, backslashes and control characters escaped.
std::string json_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\', out += ch;
    else if (static_cast<unsigned char>(ch) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(ch));
    else out += ch;
  }
  return out;
}
// Open MPI's numbering of coll_tuned_allreduce_algorithm (1..6).
constexpr const char* kOmpiAllreduce[] = {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling",
                                          "ring", "segmented_ring", "rabenseifner"};
// One band of communicator sizes (below `ranks`): the algorithm for a
// message below each threshold in turn, else `rest`.
struct RuleBand {
  int ranks;  // the band covers sizes below this (INT_MAX: the rest)
  std::vector<std::pair<int64_t, int>> below;
  int rest;
};
}  // namespace

std::string openmpi41_allreduce_fixed_rule(int comm_size, int64_t bytes, bool commutative) {
  if (comm_size < 2) return "";
  constexpr int kMax = std::numeric_limits<int>::max();
  // Switch points of ompi_coll_tuned_allreduce_intra_dec_fixed (Open MPI
  // 4.1, coll_tuned_decision_fixed.c), read as tables.
  static const std::vector<RuleBand> commute{
      {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
      {8, {{16, 4}, {8192, 3}}, 6},
      {16, {{8192, 3}}, 6},
      {32, {{64, 5}, {4096, 3}}, 6},
      {64, {{128, 5}}, 6},
      {128, {{262144, 3}}, 6},
      {256, {{131072, 2}, {262144, 3}}, 6},
      {512, {{4096, 2}}, 6},
      {2048, {{2048, 2}, {16384, 3}}, 6},
      {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
      {kMax, {{2048, 2}, {16384, 5}, {32768, 3}}, 6}};
  static const std::vector<RuleBand> noncommute{
      {4, {{131072, 3}}, 1},
      {8, {}, 3},
      {16, {{1048576, 3}}, 2},
      {128, {}, 3},
      {256, {{131072, 2}, {524288, 3}}, 2},
      {512, {{4096, 2}, {524288, 3}}, 2},
      {kMax, {{2048, 2}}, 3}};
  for (const RuleBand& b : commutative ? commute : noncommute) {
    if (comm_size >= b.ranks) continue;
    for (const auto& [limit, alg] : b.below)
      if (bytes < limit) return kOmpiAllreduce[alg];
    return kOmpiAllreduce[b.rest];
  }
  return "";  // not reached: the last band takes every size
}

std::string mpi_algorithm_label(const MpiCollSettings& s, Collective c, int comm_size, int64_t bytes) {
  if (!s.read) return "unknown (the MCA settings could not be read through MPI_T)";
  if (s.library.rfind("Open MPI", 0) != 0) return fmt::format("unknown (not Open MPI: {})", s.library);
  if (comm_size < 2) return "unknown (one rank: coll/self serves it)";
  if (s.tuned_priority < 0) return "unknown (coll/tuned is not loaded)";
  // The "coll" list: "^a,b" excludes a and b, "a,b" allows only a and b.
  if (!s.coll.empty()) {
    const bool exclude = s.coll[0] == '^';
    std::string list = "," + s.coll.substr(exclude ? 1 : 0) + ",";
    list.erase(std::remove(list.begin(), list.end(), ' '), list.end());
    const bool listed = list.find(",tuned,") != std::string::npos;
    if (listed == exclude) return fmt::format("unknown (coll/tuned not selected: coll = \"{}\")", s.coll);
  }
  for (const auto& [comp, prio] : s.priorities) {
    // adapt serves only broadcast and reduce; basic is tuned's own fallback.
    if (comp == "adapt" && c != Collective::broadcast && c != Collective::reduce) continue;
    if (prio >= s.tuned_priority)
      return fmt::format("unknown (coll/{} priority {} is not below coll/tuned's {})", comp, prio, s.tuned_priority);
  }
  if (s.dynamic_rules && !s.rules_file.empty())
    return fmt::format("unknown (coll/tuned dynamic rules file {})", s.rules_file);
  if (s.dynamic_rules && !s.forced.empty()) return fmt::format("{} (forced: {})", s.forced, s.forced_param);
  if (c != Collective::all_reduce)
    return fmt::format("unknown (coll/tuned's fixed rule for {} is not modelled here)", s.function);
  if (s.library.rfind("Open MPI v4.1", 0) != 0)
    return fmt::format("unknown (the fixed rule modelled is Open MPI 4.1's; this is {})", s.library);
  return openmpi41_allreduce_fixed_rule(comm_size, bytes) + " (Open MPI 4.1 fixed rule)";
}

std::string bench_table_footer(const std::vector<BenchRow>& rows, bool summary_follows) {
  int64_t wrong = 0;
  bool checked = false;
  // busbw summed per (algorithm, world size), in the rows' order
  std::vector<std::pair<std::pair<std::string, int>, std::pair<double, int>>> bus;
  for (const auto& r : rows) {
    if (r.wrong >= 0) {
      checked = true;
      wrong += r.wrong;
    }
    const auto key = std::make_pair(label(r), r.world_size);
    auto it = std::find_if(bus.begin(), bus.end(), [&](const auto& b) { return b.first == key; });
    if (it == bus.end()) it = bus.insert(bus.end(), {key, {0.0, 0}});
    it->second.first += r.busbw_gbps;
    ++it->second.second;
  }
  std::string f = checked ? fmt::format("# Out of bounds values : {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED")
                          : std::string("# Out of bounds values : not checked (use --check)\n");
  if (bus.size() <= 1) {
    f += fmt::format("# Avg bus bandwidth    : {:.3f} GB/s\n", bus.empty() ? 0.0 : bus[0].second.first / bus[0].second.second);
  } else {
    // a mean over different algorithms says nothing: one per algorithm
    const bool many_n = std::any_of(bus.begin(), bus.end(), [&](const auto& b) { return b.first.second != bus[0].first.second; });
    std::string parts;
    for (const auto& [key, sum] : bus)
      parts += fmt::format("{}{}{} {:.3f}", parts.empty() ? "" : ", ", key.first,
                           many_n ? fmt::format(" on {}", key.second) : "", sum.first / sum.second);
    f += fmt::format("# Avg bus bandwidth    : {} GB/s (each the mean over its sizes)\n", parts);
  }
  // The library's algorithm, one line per run of sizes with the same name.
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].mpi_algorithm.empty()) continue;
    size_t last = i;
    for (size_t j = i + 1; j < rows.size(); ++j)
      if (!rows[j].mpi_algorithm.empty()) {
        if (rows[j].mpi_algorithm != rows[i].mpi_algorithm || rows[j].world_size != rows[i].world_size) break;
        last = j;
      }
    f += fmt::format("# Open MPI's algorithm : {} on {} ranks, {}: {}\n", name(rows[i].collective), rows[i].world_size,
                     rows[last].bytes == rows[i].bytes ? fmt::format("{} B", rows[i].bytes)
                                                       : fmt::format("{} B to {} B", rows[i].bytes, rows[last].bytes),
                     rows[i].mpi_algorithm);
    i = last;
  }
  f += bench_state_text(rows);
  f += bench_protocol_crossovers(rows);
  if (summary_follows) return f;
  for (const auto& x : summarize(rows)) {
    f += fmt::format("# Prediction error     : {} on {} ranks: median |error| {:.1f}%, worst error {:+.1f}% (at {}), error = (predicted - measured) / measured over {} size{}",
                     x.algorithm, x.world_size, x.median_err_pct, x.worst_err_pct, size_text(x.worst_bytes), x.rows, x.rows == 1 ? "" : "s");
    if (x.probed_rows > 0)
      f += x.in_state_rows > 0 ? fmt::format("; in the profile's state: median |error| {:.1f}% over {} size{}", x.in_state_median_err_pct,
                                             x.in_state_rows, x.in_state_rows == 1 ? "" : "s")
                               : std::string("; no size was measured in the profile's state");
    f += "\n";
  }
  return f;
}

bool in_profile_state(double state_x) { return state_x >= 1 / 1.25 && state_x <= 1.25; }

std::string bench_state_text(const std::vector<BenchRow>& rows) {
  // Two decimals, or two significant digits for a ratio that would print as 0.00.
  const auto ratio_text = [](double x) { return x >= 0.01 ? fmt::format("{:.2f}", x) : fmt::format("{:.2g}", x); };
  // One entry per size (every row of a size shares its probe).
  std::vector<std::pair<int64_t, double>> sizes;
  for (const auto& r : rows)
    if (r.state_x > 0 && (sizes.empty() || sizes.back().first != r.bytes)) sizes.push_back({r.bytes, r.state_x});
  if (sizes.empty()) return "";
  double lo = sizes[0].second, hi = lo;
  std::string off;
  int n_off = 0;
  for (const auto& [b, x] : sizes) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    if (!in_profile_state(x)) {
      off += fmt::format("{}{}: x{}", n_off ? ", " : "", size_text(b), ratio_text(x));
      ++n_off;
    }
  }
  std::string t = fmt::format(
      "# Machine state        : the 32 KiB reference steps (the header's machine-state probe), timed again before "
      "each size, took x{} .. x{} of the profile's time\n",
      ratio_text(lo), ratio_text(hi));
  if (n_off == 0) return t + "# Machine state        : every size ran in the profile's state (within 25%)\n";
  return t + fmt::format(
                 "# Machine state        : {} of {} sizes ran more than 25% away from it, so their errors say more "
                 "about the machine than about the model: {}\n",
                 n_off, sizes.size(), off);
}

std::string bench_busbw_note(const BenchOptions& o, const std::vector<BenchRow>& rows) {
  if (!o.network || o.network->topo.nodes < 2) return "";
  const double nic = o.network->inter.bandwidth();
  std::string lines;
  for (const auto& r : rows) {
    const bool library = !o.reference.empty() && r.algorithm == o.reference;  // no schedule of ours
    if (library || !(r.busbw_gbps * 1e9 > nic) || r.time_us <= 0) continue;
    const std::string alg = r.auto_pick.empty() ? r.algorithm : r.auto_pick;
    const NetworkPrediction np = predict(make_schedule(bench_spec(o, alg, r.bytes)), *o.network);
    if (np.bottleneck < 0) continue;
    const double carried = static_cast<double>(np.port_bytes[np.bottleneck]) / (r.time_us * 1e-6);
    lines += fmt::format("#   {} at {} B: busbw {:.1f} MB/s; {} carried {} B, {:.1f} MB/s\n", r.algorithm, r.bytes,
                         r.busbw_gbps * 1e3, port_name(o.network->topo, np.bottleneck), np.port_bytes[np.bottleneck],
                         carried / 1e6);
  }
  if (lines.empty()) return "";
  return fmt::format("# busbw above the NIC's {:.1f} MB/s per direction: busbw = 2(n-1)/n x S / t counts every rank's "
                     "traffic as if it all crossed one link, but on {} nodes much of it stays inside a node; what the "
                     "busiest NIC port itself carried (topology model's byte count / measured time):\n",
                     nic / 1e6, o.network->topo.nodes) +
         lines;
}

std::string bench_json_row(const BenchRow& r) {
  // Topology fields only where they say something, so rows of one node on no
  // lab read as before.
  std::string topo;
  if (r.nodes > 1) topo += fmt::format(", \"nodes\": {}", r.nodes);
  if (!r.auto_pick.empty()) topo += fmt::format(", \"auto_pick\": \"{}\"", r.auto_pick);
  if (r.protocol_auto) topo += ", \"protocol_auto\": true";
  if (!r.cluster.empty()) topo += ", \"cluster\": " + r.cluster;
  if (!r.mpi_algorithm.empty()) topo += fmt::format(", \"mpi_algorithm\": \"{}\"", json_escape(r.mpi_algorithm));
  return fmt::format(
      "{{\"collective\": \"{}\", \"algorithm\": \"{}\", \"protocol\": \"{}\", \"backend\": \"{}\", \"mode\": \"{}\", "
      "\"world_size\": {}, "
      "\"dtype\": \"{}\", \"op\": \"{}\", \"root\": {}, \"bytes\": {}, \"count\": {}, \"time_us\": {:.3f}, "
      "\"algbw_gbps\": {:.6f}, \"busbw_gbps\": {:.6f}, \"wrong\": {}, \"predicted_us\": {}, \"error_pct\": {}, "
      "\"recorded_us\": {}, \"record_overhead_pct\": {}, \"passes\": {}, \"samples\": {}, \"min_us\": {}, \"p10_us\": {}, "
      "\"p90_us\": {}, \"max_us\": {}, \"state_x\": {}, \"predicted_coherence_us\": {}{}}}",
      name(r.collective), r.algorithm, name(r.protocol), r.backend, name(r.mode), r.world_size, name(r.dtype),
      name(r.op), r.root, r.bytes, r.count, r.time_us, r.algbw_gbps, r.busbw_gbps, r.wrong < 0 ? "null" : std::to_string(r.wrong),
      r.predicted_us < 0 ? "null" : fmt::format("{:.3f}", r.predicted_us),
      r.predicted_us < 0 ? "null" : fmt::format("{:.2f}", r.error_pct),
      r.recorded_us < 0 ? "null" : fmt::format("{:.3f}", r.recorded_us),
      r.recorded_us < 0 ? "null" : fmt::format("{:.2f}", r.record_overhead_pct), r.passes, r.samples,
      r.min_us < 0 ? "null" : fmt::format("{:.3f}", r.min_us), r.p10_us < 0 ? "null" : fmt::format("{:.3f}", r.p10_us),
      r.p90_us < 0 ? "null" : fmt::format("{:.3f}", r.p90_us), r.max_us < 0 ? "null" : fmt::format("{:.3f}", r.max_us),
      r.state_x > 0 ? fmt::format("{:.4g}", r.state_x) : std::string("null"),
      r.predicted_coherence_us < 0 ? "null" : fmt::format("{:.3f}", r.predicted_coherence_us), topo);
}

std::string bench_csv_header() {
  return "collective,algorithm,backend,mode,world_size,dtype,op,root,bytes,count,time_us,algbw_gbps,busbw_gbps,wrong,"
         "predicted_us,error_pct,recorded_us,record_overhead_pct,state_x\n";
}

std::string bench_csv_row(const BenchRow& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{:.3f},{:.6f},{:.6f},{},{},{},{},{},{}\n", name(r.collective),
                     r.algorithm, r.backend, name(r.mode), r.world_size, name(r.dtype), name(r.op), r.root, r.bytes,
                     r.count, r.time_us, r.algbw_gbps, r.busbw_gbps, r.wrong < 0 ? "" : std::to_string(r.wrong),
                     r.predicted_us < 0 ? "" : fmt::format("{:.3f}", r.predicted_us),
                     r.predicted_us < 0 ? "" : fmt::format("{:.2f}", r.error_pct),
                     r.recorded_us < 0 ? "" : fmt::format("{:.3f}", r.recorded_us),
                     r.recorded_us < 0 ? "" : fmt::format("{:.2f}", r.record_overhead_pct),
                     r.state_x > 0 ? fmt::format("{:.4g}", r.state_x) : "");
}

std::vector<BenchSummary> summarize(const std::vector<BenchRow>& rows) {
  std::vector<BenchSummary> out;
  std::vector<std::vector<std::pair<double, int64_t>>> errs;
  std::vector<std::vector<double>> in_state;
  for (const auto& r : rows) {
    if (r.predicted_us < 0 || r.time_us <= 0) continue;
    size_t i = 0;
    while (i < out.size() && !(out[i].algorithm == label(r) && out[i].world_size == r.world_size)) ++i;
    if (i == out.size()) {
      out.push_back({label(r), r.world_size});
      errs.emplace_back();
      in_state.emplace_back();
    }
    const double signed_e = (r.predicted_us - r.time_us) / r.time_us * 100.0;
    const double e = std::abs(signed_e);
    errs[i].push_back({signed_e, r.bytes});
    if (r.predicted_us < r.time_us) ++out[i].under_rows;
    if (r.state_x > 0) {
      ++out[i].probed_rows;
      if (in_profile_state(r.state_x)) in_state[i].push_back(e);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> e;
    for (const auto& [sv, b] : errs[i]) {
      const double v = std::abs(sv);
      e.push_back(v);
      if (v >= out[i].max_err_pct) {
        out[i].max_err_pct = v;
        out[i].worst_err_pct = sv;
        out[i].worst_bytes = b;
      }
    }
    out[i].rows = static_cast<int>(e.size());
    out[i].median_err_pct = median(e);
    out[i].in_state_rows = static_cast<int>(in_state[i].size());
    if (!in_state[i].empty()) out[i].in_state_median_err_pct = median(in_state[i]);
  }
  return out;
}

std::string bench_summary_text(const std::vector<BenchSummary>& s) {
  // Two more columns when the rows were probed: the sizes measured in the
  // profile's state and the median over them.
  const bool probed = std::any_of(s.begin(), s.end(), [](const BenchSummary& x) { return x.probed_rows > 0; });
  std::string t = "# prediction error = (predicted - measured) / measured at each size; median(%): of |error| over the "
                  "sizes; worst(%): the largest, with its sign (- = under-predicted); under(#): sizes under-predicted";
  t += probed ? "; in state(#): sizes measured in the profile's machine state (the probe within 25%), and the "
                "median over them\n"
              : "\n";
  t += fmt::format("# {:>18} {:>5} {:>5} {:>10} {:>10} {:>12} {:>9}", "algorithm", "ranks", "sizes", "median(%)",
                   "worst(%)", "worst at (B)", "under(#)");
  t += probed ? fmt::format(" {:>12} {:>19}\n", "in state(#)", "median in state(%)") : "\n";
  for (const auto& x : s) {
    t += fmt::format("  {:>18} {:>5} {:>5} {:>10.1f} {:>+10.1f} {:>12} {:>9}", x.algorithm, x.world_size, x.rows,
                     x.median_err_pct, x.worst_err_pct, x.worst_bytes, x.under_rows);
    if (probed)
      t += x.in_state_rows > 0 ? fmt::format(" {:>12} {:>19.1f}", x.in_state_rows, x.in_state_median_err_pct)
                               : fmt::format(" {:>12} {:>19}", 0, "-");
    t += "\n";
  }
  if (s.empty()) t += "#   (no predictions: give --profile FILE or run `microddp calibrate` first)\n";
  return t;
}

}  // namespace microddp
