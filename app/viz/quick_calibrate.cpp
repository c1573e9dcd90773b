#include "app/viz/quick_calibrate.h"

#include "app/viz/view_state.h"

namespace microddp::viz {

QuickCalibrateJob::~QuickCalibrateJob() { wait(); }

bool QuickCalibrateJob::start(const std::string& path, QuickCalibrationHooks hooks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) return false;
  if (thread_.joinable()) thread_.join();  // the last run's thread has ended (running_ is false)
  running_ = true;
  finished_ = false;
  fraction_ = 0;
  line_.clear();
  outcome_.reset();
  error_.clear();
  thread_ = std::thread([this, path, hooks = std::move(hooks)]() mutable {
    QuickCalibrationHooks h = hooks;
    h.progress = [this, user = hooks.progress](double f, const std::string& what) {
      {
        std::lock_guard<std::mutex> l(mu_);
        fraction_ = f;
        if (!what.empty()) line_ = what;
      }
      if (user) user(f, what);
    };
    std::optional<QuickCalibrationOutcome> out;
    std::string err;
    try {
      out = run_quick_calibration(path, h);
    } catch (const std::exception& e) {
      err = e.what();
    }
    std::lock_guard<std::mutex> l(mu_);
    outcome_ = std::move(out);
    error_ = std::move(err);
    running_ = false;
    finished_ = true;
  });
  return true;
}

bool QuickCalibrateJob::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

double QuickCalibrateJob::fraction() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fraction_;
}

std::string QuickCalibrateJob::line() const {
  std::lock_guard<std::mutex> lock(mu_);
  return line_;
}

bool QuickCalibrateJob::take_finished() {
  std::lock_guard<std::mutex> lock(mu_);
  const bool f = finished_;
  finished_ = false;
  return f;
}

void QuickCalibrateJob::wait() {
  if (thread_.joinable()) thread_.join();
}

QuickCalibrateJob& quick_calibrate_job() {
  static QuickCalibrateJob job;
  return job;
}

void reprice_on_new_profile(App& app) {
  PredictionSource other = app.vs.source;
  other.kind = other.kind == PredictionSource::Kind::preset ? PredictionSource::Kind::profile
                                                            : PredictionSource::Kind::preset;
  try {
    app.session.set_source(other);
    app.session.set_source(app.vs.source);
    app.compare.set_source(other);
    app.compare.set_source(app.vs.source);
  } catch (const std::exception& e) {
    app.vs.error = e.what();
  }
}

}  // namespace microddp::viz
