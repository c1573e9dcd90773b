// Data-parallel training on the threads backend (see ddp.h for the
// execution model): run_ddp, and what its two loops share.
#include "core/labs/ddp/train.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

namespace microddp::ddp {
namespace detail {

// The DDP iteration's schedule on the model clock (IterationStats): forward
// takes depth layers, then a rank that had finished `layers_done` backward
// layers when it posted bucket k posted it at (depth + layers_done) layer
// times; call k starts when the last rank posted it and the previous call
// ended, and lasts link_us_per_mb per MB of its bytes.
void model_clock(const Options& o, const std::vector<RankRecord>& rec, const std::vector<CommSpan>& comm,
                 IterationStats& st) {
  const double layer_ms = o.layer_delay_us / 1000.0;
  const double backward_end = 2.0 * o.depth * layer_ms;
  double end = 0, total = 0;
  for (const CommSpan& c : comm) {
    double post = 0;
    for (const RankRecord& R : rec)
      for (const BucketFill& f : R.fills)
        if (f.bucket == c.bucket) post = std::max(post, (o.depth + f.layers_done) * layer_ms);
    const double d = o.link_us_per_mb / 1000.0 * static_cast<double>(c.bytes) / (1024.0 * 1024.0);
    end = std::max(post, end) + d;
    total += d;
  }
  st.model_comm_ms = total;
  st.model_exposed_comm_ms = std::max(end, backward_end) - backward_end;
  st.model_overlap_fraction = total > 0 ? std::clamp(1.0 - st.model_exposed_comm_ms / total, 0.0, 1.0) : 0.0;
}

// How long collectives ran inside [a, b] (ms): the communication thread
// runs one at a time, so the spans do not overlap and their parts add up.
double comm_within(const std::vector<CommSpan>& comm, double a, double b) {
  double t = 0;
  for (const CommSpan& c : comm) t += std::max(0.0, std::min(b, c.end_ms) - std::max(a, c.begin_ms));
  return t;
}

// Merges the ranks' records of one iteration into its timeline and stats.
// The time a rank waited: DDP (after_backward) from the end of its
// backward until its last result arrived, everything it still waits for
// once it has nothing left to compute; the sharded mode waits inside
// forward and backward too, so there the time blocked in waits. Its
// exposed communication is the part of that wait during which a
// collective ran: the rest is waiting for a slower rank to post, the
// communication thread to pick the call up, the result to be handed back.
// So exposed <= comm, and with --overlap none (collectives start after the
// last backward and end before the results arrive) exposed = comm exactly:
// overlap 0.
void summarize_iteration(const Options& o, const std::vector<RankRecord>& rec, std::vector<CommSpan> comm, int calls,
                         bool after_backward, Result& res) {
  const int n = static_cast<int>(rec.size());
  IterationTimeline tl;
  IterationStats st;
  double loss = 0, waits = 0, compute = 0;
  std::vector<double> exposed;  // per rank
  for (const auto& R : rec) {
    tl.layers.insert(tl.layers.end(), R.layers.begin(), R.layers.end());
    tl.fills.insert(tl.fills.end(), R.fills.begin(), R.fills.end());
    tl.waits.insert(tl.waits.end(), R.waits.begin(), R.waits.end());
    tl.backward_end_ms = std::max(tl.backward_end_ms, R.backward_end_ms);
    tl.end_ms = std::max(tl.end_ms, R.end_ms);
    loss += R.loss;
    double w = 0;
    if (after_backward) {
      double last = R.backward_end_ms;
      for (const auto& ws : R.waits) last = std::max(last, ws.end_ms);
      w = last - R.backward_end_ms;
      exposed.push_back(comm_within(comm, R.backward_end_ms, last));
    } else {
      exposed.push_back(0);
      for (const auto& ws : R.waits) {
        w += ws.end_ms - ws.begin_ms;
        exposed.back() += comm_within(comm, ws.begin_ms, ws.end_ms);
      }
    }
    waits += w;
    compute += R.end_ms - w;
  }
  tl.comm = std::move(comm);
  st.loss = loss / n;
  st.compute_ms = compute / n;
  st.waited_ms = waits / n;
  double exposed_sum = 0, exposed_share = 0;
  for (const auto& c : tl.comm) st.comm_ms += c.end_ms - c.begin_ms;
  for (const double e : exposed) {
    exposed_sum += e;
    if (st.comm_ms > 0) exposed_share += e / st.comm_ms;
  }
  st.exposed_comm_ms = exposed_sum / n;
  // 1 - mean(exposed) / comm as the mean of each rank's share: a rank that
  // waited through all of it gives exactly 1 (its spans add up in the same
  // order as comm_ms), so --overlap none gives exactly 0, not a rounding.
  st.overlap_fraction = st.comm_ms > 0 ? std::clamp(1.0 - exposed_share / n, 0.0, 1.0) : 0.0;
  st.calls = calls;
  st.reference_loss = std::numeric_limits<double>::quiet_NaN();
  if (after_backward) {
    model_clock(o, rec, tl.comm, st);
  } else {
    st.model_comm_ms = st.model_exposed_comm_ms = st.model_overlap_fraction = std::numeric_limits<double>::quiet_NaN();
  }
  res.iterations.push_back(st);
  res.timelines.push_back(std::move(tl));
}

CollectiveSpec all_reduce_spec(const Options& o, int64_t count) {
  CollectiveSpec s;
  s.collective = Collective::all_reduce;
  s.algorithm = o.algorithm;
  s.world_size = o.ranks;
  s.count = count;
  s.dtype = DType::float32;
  s.op = ReduceOp::avg;
  return s;
}

// Sharded collectives use ring (the all_gather / reduce_scatter algorithm
// that exists for every world size and for uneven blocks).
CollectiveSpec shard_spec(const Options& o, Collective c, const std::vector<int64_t>& blocks) {
  CollectiveSpec s;
  s.collective = c;
  s.algorithm = "ring";
  s.world_size = o.ranks;
  s.counts = blocks;
  s.dtype = DType::float32;
  s.op = ReduceOp::avg;
  return s;
}

void collect(std::vector<std::exception_ptr>& errs) {
  for (auto& e : errs)
    if (e) std::rethrow_exception(e);
}

void run_iteration(const Options& o, int calls, bool after_backward, std::map<std::string, Schedule>& cache,
                   Result& res, const RankWork& work) {
  const int n = o.ranks;
  std::vector<RankRecord> rec(n);
  // The workers and this thread, which opens the gate once every worker
  // thread runs and waits at it: times count from that release, so the
  // iteration's timeline does not start with the workers' thread start-up
  // (on a busy 2-core machine, tens of ms of nothing at the left of the
  // DDP view before the first forward layer).
  StartGate gate(n + 1);
  Clock::time_point t0;
  std::optional<Group> group;
  std::vector<std::exception_ptr> errs(n);
  std::vector<std::thread> workers;
  for (int r = 0; r < n; ++r) {
    workers.emplace_back([&, r] {
      gate.arrive_and_wait();  // group and t0 are set before the release
      try {
        work(r, rec[r], *group, t0);
      } catch (...) {
        errs[r] = std::current_exception();
        group->abort("ddp: a rank failed");
      }
    });
  }
  gate.wait_arrived(n);
  t0 = Clock::now();
  group.emplace(n, calls, t0, &cache, o.link_us_per_mb);
  gate.arrive_and_wait();
  for (auto& w : workers) w.join();
  group->join();
  collect(errs);

  summarize_iteration(o, rec, group->spans, calls, after_backward, res);
  res.launch_order = group->order;
}

Options warmup_options(const Options& o) {
  Options w = o;
  w.layer_delay_us = 0;
  w.link_us_per_mb = 0;
  return w;
}

void count_warmup(const Result& scratch, Result& res) {
  ++res.warmup_iterations;
  if (!scratch.timelines.empty()) res.warmup_calls += static_cast<int>(scratch.timelines.back().comm.size());
}

}  // namespace detail

using namespace detail;

Result run_ddp(const Options& o) {
  o.validate();
  Result res;
  res.options = o;
  res.params = 2 * o.depth;
  res.param_elements = int64_t{o.depth} * (int64_t{o.width} * o.width + o.width);
  const Data data = make_data(o);
  if (o.sharded)
    run_sharded_iterations(o, data, res);
  else
    run_ddp_iterations(o, data, res);
  res.max_reference_rel_error = std::numeric_limits<double>::quiet_NaN();
  if (o.check_reference) {
    const auto ref = reference_losses(o);
    res.max_reference_rel_error = 0;
    for (size_t i = 0; i < ref.size() && i < res.iterations.size(); ++i) {
      res.iterations[i].reference_loss = ref[i];
      double e = std::abs(res.iterations[i].loss - ref[i]) / std::max(std::abs(ref[i]), 1e-12);
      // A loss that is not finite (training diverged, or NaN from the
      // start) never matches, even when the reference diverged alike; and
      // std::max would drop a NaN, so it becomes +inf.
      if (!std::isfinite(res.iterations[i].loss) || !std::isfinite(ref[i]) || !std::isfinite(e))
        e = std::numeric_limits<double>::infinity();
      res.max_reference_rel_error = std::max(res.max_reference_rel_error, e);
    }
  }
  return res;
}

}  // namespace microddp::ddp
