// The hang lab's monitored barrier and heartbeat (see core/labs/hang/hang.h).
#include "core/labs/hang/hang.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "core/labs/hang/hang_text.h"

namespace microddp::hang {

using Clock = std::chrono::steady_clock;
using detail::rank_list;
using detail::secs;

// ---- monitored barrier -----------------------------------------------------------


void Heartbeat::beat() {
  last_ns_.store(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(),
                 std::memory_order_relaxed);
}

Clock::time_point Heartbeat::last() const {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::nanoseconds(last_ns_.load(std::memory_order_relaxed))));
}

MonitoredBarrier::MonitoredBarrier(int world_size, double timeout_s, std::string label, Heartbeat* progress)
    : progress_(progress ? progress : &own_progress_),
      n_(world_size),
      timeout_s_(timeout_s),
      label_(std::move(label)),
      arrived_(world_size, false),
      fp_(world_size) {}

bool MonitoredBarrier::failed() const {
  std::lock_guard<std::mutex> lk(m_);
  return decided_ && !ok_;
}
bool MonitoredBarrier::has_arrived(int rank) const {
  std::lock_guard<std::mutex> lk(m_);
  return rank >= 0 && rank < n_ && arrived_[rank];
}
std::string MonitoredBarrier::error() const {
  std::lock_guard<std::mutex> lk(m_);
  return error_;
}

Clock::time_point MonitoredBarrier::decided_at() const {
  std::lock_guard<std::mutex> lk(m_);
  return decided_at_;
}

std::vector<int> MonitoredBarrier::missing() const {
  std::lock_guard<std::mutex> lk(m_);
  return missing_;
}
std::vector<int> MonitoredBarrier::mismatched() const {
  std::lock_guard<std::mutex> lk(m_);
  return mismatched_;
}

void MonitoredBarrier::decide_locked(std::string err, std::vector<int> missing, std::vector<int> mism) {
  if (decided_) return;
  decided_ = true;
  decided_at_ = Clock::now();
  ok_ = err.empty();
  error_ = std::move(err);
  missing_ = std::move(missing);
  mismatched_ = std::move(mism);
  cv_.notify_all();
}

void MonitoredBarrier::cancel(const std::string& why) {
  std::lock_guard<std::mutex> lk(m_);
  decide_locked(fmt::format("monitored barrier '{}': {}", label_, why), {}, {});
}

void MonitoredBarrier::arrive(int rank, const std::string& fingerprint) {
  std::unique_lock<std::mutex> lk(m_);
  if (rank < 0 || rank >= n_) throw std::out_of_range(fmt::format("monitored barrier: rank {} out of range", rank));
  arrived_[rank] = true;
  fp_[rank] = fingerprint;
  progress_->beat();
  cv_.notify_all();
  const auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  // Waits until pred() holds or `quiet` has passed since the group's last
  // progress. Progress made elsewhere does not notify this barrier, so the
  // deadline is re-read each time the wait times out.
  auto wait_quiet = [&](Clock::duration quiet, auto pred) {
    for (;;) {
      const auto deadline = progress_->last() + quiet;
      if (pred() || Clock::now() >= deadline) return pred();
      cv_.wait_until(lk, deadline, pred);
    }
  };
  auto all_arrived = [&] { return std::all_of(arrived_.begin(), arrived_.end(), [](bool b) { return b; }); };
  if (rank == 0 && !decided_) {
    wait_quiet(timeout, [&] { return decided_ || all_arrived(); });
    if (!decided_) {
      std::vector<int> missing;
      for (int r = 0; r < n_; ++r)
        if (!arrived_[r]) missing.push_back(r);
      if (!missing.empty()) {
        decide_locked(fmt::format("monitored barrier '{}': rank{} {} did not arrive within {}", label_,
                                  missing.size() > 1 ? "s" : "", rank_list(missing), secs(timeout_s_)),
                      missing, {});
      } else {
        std::vector<int> mism;
        for (int r = 1; r < n_; ++r)
          if (fp_[r] != fp_[0]) mism.push_back(r);
        if (mism.empty()) {
          decide_locked("", {}, {});
        } else {
          std::string detail;
          for (int r : mism) detail += fmt::format("; rank {} called {}", r, fp_[r]);
          decide_locked(fmt::format("monitored barrier '{}': collective mismatch: rank 0 called {}{}", label_,
                                    fp_[0], detail),
                        {}, mism);
        }
      }
    }
  } else if (!decided_) {
    wait_quiet(timeout, [&] { return decided_ || arrived_[0]; });
    if (!decided_ && !arrived_[0]) {
      decide_locked(fmt::format("monitored barrier '{}': rank 0 did not arrive within {} (rank {} waited)", label_,
                                secs(timeout_s_), rank),
                    {0}, {});
    } else {
      // Rank 0 is there: its verdict comes within its own (quiet) timeout.
      wait_quiet(timeout * 2 + std::chrono::seconds(1), [&] { return decided_; });
      if (!decided_) decide_locked(fmt::format("monitored barrier '{}': no verdict from rank 0", label_), {0}, {});
    }
  }
  if (!ok_) throw BarrierError(error_, missing_, mismatched_);
}

}  // namespace microddp::hang
