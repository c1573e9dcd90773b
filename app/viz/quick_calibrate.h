// The window's quick calibration (core's run_quick_calibration,
// core/model/calibrate/calibrate.h) on a background thread: the UI thread
// reads its progress each frame and, once it finished, re-prices the run on
// the new profile (panel_calibrate.cpp). Plain C++, no ImGui: tests drive it
// with a fake clock and measurement.
#pragma once
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/model/calibrate/calibrate.h"

namespace microddp::viz {

struct App;

class QuickCalibrateJob {
 public:
  QuickCalibrateJob() = default;
  ~QuickCalibrateJob();  // waits for a run in flight (a few seconds at most)
  QuickCalibrateJob(const QuickCalibrateJob&) = delete;
  QuickCalibrateJob& operator=(const QuickCalibrateJob&) = delete;

  // Starts run_quick_calibration(path, hooks) on a thread unless one runs
  // (then false). hooks.progress, if any, is called on that thread after the
  // job recorded the fraction and line.
  bool start(const std::string& path, QuickCalibrationHooks hooks = {});
  bool running() const;
  double fraction() const;   // 0..1 of the run in flight or last finished
  std::string line() const;  // its last progress line ("" before any)
  // True once per finished run (the UI thread then re-prices); outcome()
  // holds the result, or error() the message of what it threw.
  bool take_finished();
  const std::optional<QuickCalibrationOutcome>& outcome() const { return outcome_; }
  const std::string& error() const { return error_; }
  void wait();  // joins the run in flight, if any

 private:
  mutable std::mutex mu_;
  std::thread thread_;
  bool running_ = false, finished_ = false;
  double fraction_ = 0;
  std::string line_;
  std::optional<QuickCalibrationOutcome> outcome_;
  std::string error_;
};

// The window's one job (panel_calibrate.cpp draws it).
QuickCalibrateJob& quick_calibrate_job();

// After a quick calibration wrote the default profile: the session and the
// compare view price again on it. Their source did not change (kind
// profile: the file behind it did), so each is moved to a preset and back.
// Errors go to app.vs.error.
void reprice_on_new_profile(App& app);

}  // namespace microddp::viz
