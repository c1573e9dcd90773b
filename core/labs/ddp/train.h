// What the two training loops share (internal to core/labs/ddp): the
// per-rank record of an iteration, its summary into the Result, the
// collectives' specs and the sleeps that stand in for compute.
#pragma once
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/labs/ddp/model.h"
#include "core/labs/ddp/process_group.h"
#include "core/labs/ddp/summary.h"

namespace microddp::ddp::detail {

inline void delay(int us) {
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

CollectiveSpec all_reduce_spec(const Options& o, int64_t count);
CollectiveSpec shard_spec(const Options& o, Collective c, const std::vector<int64_t>& blocks);
void collect(std::vector<std::exception_ptr>& errs);

// One rank's work in one iteration: rank r fills its record R, posting and
// waiting through `group`; times are ms since t0.
using RankWork = std::function<void(int r, RankRecord& R, Group& group, Clock::time_point t0)>;

// Runs one iteration of either loop: o.ranks worker threads released
// together from a start gate, each running `work`; a group of `calls`
// collectives (schedules cached in `cache` across iterations). A rank that
// throws aborts the group, so the others stop waiting, and its exception is
// rethrown here once every thread has joined. Then the ranks' records are
// summarized into res (after_backward: see summarize_iteration) and
// res.launch_order is this iteration's.
void run_iteration(const Options& o, int calls, bool after_backward, std::map<std::string, Schedule>& cache,
                   Result& res, const RankWork& work);

// The warm-up (Options::warmup): o without the sleeps, which warm nothing.
Options warmup_options(const Options& o);
// Adds a warm-up iteration that ran into `scratch` (by run_iteration) to
// res's warm-up counts; its stats and timeline stay out of res.
void count_warmup(const Result& scratch, Result& res);

// The two loops (train_ddp.cpp, train_sharded.cpp). Each runs o.warmup
// untimed iterations (no SGD step), then o.iterations timed ones.
void run_ddp_iterations(const Options& o, const Data& data, Result& res);
void run_sharded_iterations(const Options& o, const Data& data, Result& res);

}  // namespace microddp::ddp::detail
