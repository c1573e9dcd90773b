// A threads "process group" for the DDP lab (internal to core/labs/ddp):
// ranks post numbered collectives, one communication thread runs each with
// run_threads once every rank posted it; and the start gate that releases
// the worker threads together.
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/algorithms/registry.h"
#include "core/exec/executor.h"
#include "core/ir/checker.h"
#include "core/ir/spec.h"
#include "core/labs/ddp/ddp.h"

namespace microddp::ddp::detail {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t - t0).count();
}

// ---- a threads process group -----------------------------------------------
// Rank r's k-th post() is call k. The communication thread runs call k (in
// order) once all ranks posted it, with run_threads over the ranks' inputs.

struct CallMeta {
  std::string what;
  int bucket = -1, layer = -1;
};

class Group {
 public:
  Group(int n, int total_calls, Clock::time_point t0, std::map<std::string, Schedule>* cache,
        double link_us_per_mb)
      : n_(n), total_(total_calls), t0_(t0), cache_(cache), link_us_per_mb_(link_us_per_mb), calls_(total_calls),
        next_(n, 0) {
    comm_ = std::thread([this] { comm_loop(); });
  }
  ~Group() {
    abort("group destroyed");
    if (comm_.joinable()) comm_.join();
  }
  void join() {
    if (comm_.joinable()) comm_.join();
  }

  int post(int rank, const CollectiveSpec& spec, const float* data, int64_t count, const CallMeta& meta) {
    std::lock_guard<std::mutex> lk(m_);
    const int k = next_[rank]++;
    if (k >= total_) throw std::logic_error("ddp: more collectives posted than planned");
    Call& c = calls_[k];
    if (c.inputs.empty()) {
      c.inputs.resize(n_);
      c.spec = spec;
      c.meta = meta;
    } else if (c.spec.collective != spec.collective || c.spec.count != spec.count || c.spec.counts != spec.counts) {
      c.mismatch = fmt::format("call {}: rank {} posted {} count {}, another rank posted {} count {}", k, rank,
                               name(spec.collective), spec.count, name(c.spec.collective), c.spec.count);
    }
    c.inputs[rank].resize(static_cast<size_t>(count) * sizeof(float));
    if (count) std::memcpy(c.inputs[rank].data(), data, c.inputs[rank].size());
    ++c.posted;
    cv_.notify_all();
    return k;
  }

  // Blocks until call k ran; copies rank's output. Returns the wait span.
  WaitSpan wait(int rank, int k, float* out, int64_t count) {
    std::unique_lock<std::mutex> lk(m_);
    WaitSpan w{rank, k, ms_since(t0_, Clock::now()), 0};
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!calls_[k].done && error_.empty())
      if (cv_.wait_until(lk, deadline) == std::cv_status::timeout)
        throw std::runtime_error(fmt::format("ddp: rank {} waited 60 s for call {}", rank, k));
    if (!error_.empty()) throw std::runtime_error(error_);
    const auto& o = calls_[k].outputs[rank];
    if (static_cast<int64_t>(o.size()) != count * static_cast<int64_t>(sizeof(float)))
      throw std::logic_error("ddp: output size mismatch");
    if (count) std::memcpy(out, o.data(), o.size());
    w.end_ms = ms_since(t0_, Clock::now());
    return w;
  }

  void abort(const std::string& why) {
    std::lock_guard<std::mutex> lk(m_);
    if (error_.empty()) error_ = why;
    stop_ = true;
    cv_.notify_all();
  }

  std::vector<CommSpan> spans;  // written by the communication thread; read after join()
  std::vector<int> order;

 private:
  struct Call {
    CollectiveSpec spec;
    CallMeta meta;
    RankData inputs, outputs;
    int posted = 0;
    bool done = false;
    std::string mismatch;
  };

  void comm_loop() {
    try {
      for (int k = 0; k < total_; ++k) {
        CollectiveSpec spec;
        RankData inputs;
        CallMeta meta;
        {
          std::unique_lock<std::mutex> lk(m_);
          cv_.wait(lk, [&] { return calls_[k].posted == n_ || stop_; });
          if (stop_) return;
          if (!calls_[k].mismatch.empty()) {
            error_ = "ddp: collective mismatch: " + calls_[k].mismatch;
            cv_.notify_all();
            return;
          }
          spec = calls_[k].spec;
          inputs = std::move(calls_[k].inputs);
          meta = calls_[k].meta;
        }
        std::string key = fmt::format("{}/{}/{}/{}", name(spec.collective), spec.algorithm, spec.count,
                                      fmt::join(spec.counts, ","));
        auto it = cache_->find(key);
        if (it == cache_->end()) {
          Schedule s = make_schedule(spec);
          check_schedule(s);
          it = cache_->emplace(key, std::move(s)).first;
        }
        RunOptions ro;
        ro.mode = Mode::free;
        ro.record = false;
        ro.snapshot_limit = 0;
        ro.spin_ns = 0;  // the ranks' backward passes run beside it: a spinning rank would take their CPU
        const auto b = Clock::now();
        RunResult r = run_threads(it->second, inputs, ro);
        if (link_us_per_mb_ > 0 && !inputs.empty())
          std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(
              link_us_per_mb_ * static_cast<double>(inputs[0].size()) / (1024.0 * 1024.0)));
        const auto e = Clock::now();
        CommSpan span;
        span.call = k;
        span.collective = std::string(name(spec.collective));
        span.what = meta.what;
        span.bucket = meta.bucket;
        span.layer = meta.layer;
        span.bytes = static_cast<int64_t>(inputs.empty() ? 0 : inputs[0].size());
        span.begin_ms = ms_since(t0_, b);
        span.end_ms = ms_since(t0_, e);
        spans.push_back(span);
        order.push_back(meta.bucket >= 0 ? meta.bucket : meta.layer);
        std::lock_guard<std::mutex> lk(m_);
        calls_[k].outputs = std::move(r.outputs);
        calls_[k].done = true;
        cv_.notify_all();
      }
    } catch (const std::exception& e) {
      abort(std::string("ddp: communication thread: ") + e.what());
    }
  }

  int n_, total_;
  Clock::time_point t0_;
  std::map<std::string, Schedule>* cache_;
  double link_us_per_mb_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Call> calls_;
  std::vector<int> next_;
  bool stop_ = false;
  std::string error_;
  std::thread comm_;
};

// A start barrier for the worker threads (std::barrier would do; this keeps
// the release moment explicit, and lets the opener wait until every worker
// thread exists and waits: run_iteration starts its clock only then).
class StartGate {
 public:
  explicit StartGate(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lk(m_);
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.notify_all();  // wait_arrived counts the parties
      cv_.wait(lk, [&] { return gen_ != gen; });
    }
  }
  // Blocks until k parties (k < n) wait at the gate.
  void wait_arrived(int k) {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [&] { return count_ >= k; });
  }

 private:
  int n_, count_ = 0, gen_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
};

}  // namespace microddp::ddp::detail
