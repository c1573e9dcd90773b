#include "app/viz/prediction.h"

#include <filesystem>

#include "core/model/calibrate/calibrate.h"
#include "core/model/cost_model.h"

namespace microddp::viz {

// The threads backend's α, β, γ come from `microddp calibrate` (the default
// profile). Without one the viewer shows "n/a": a what-if preset (NVLink,
// InfiniBand) would not describe the machine the run happens on.
Prediction predict(const Schedule& s) {
  Prediction p;
  std::string path;
  try {
    path = default_profile_path();
  } catch (const std::exception&) {
  }
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) {
    p.source = "no calibration profile (run `microddp calibrate`)";
    return p;
  }
  try {
    const CostParams cp = load_profile(path);
    p.step_us = predicted_step_us(s, cp);
    p.total_us = 0;
    for (double us : p.step_us) p.total_us += us;
    p.available = true;
    p.source = path;
  } catch (const std::exception& e) {
    p.source = e.what();
  }
  return p;
}

}  // namespace microddp::viz
