// The quick calibration in the controls' prediction row: while this machine
// has no calibration profile, a "Quick calibrate (about 1 s)" button beside
// the "profile (none yet)" hint; while it runs (quick_calibrate.h, a
// background thread), a progress bar; when it wrote the profile, the run
// and the compare view price again on it ("predicted (calibrated profile,
// quick, DATE)"). Meanwhile the prediction uses the named preset, labelled
// as such (prediction.cpp).
#include <fmt/format.h>
#include <imgui.h>

#include "app/viz/panels.h"
#include "app/viz/prediction.h"
#include "app/viz/quick_calibrate.h"

namespace microddp::viz {

void draw_quick_calibrate(App& app) {
  QuickCalibrateJob& job = quick_calibrate_job();
  static std::string failed;  // the last run's error, shown until the next try
  if (job.take_finished()) {
    if (job.outcome()) {
      failed.clear();
      reprice_on_new_profile(app);
    } else {
      failed = job.error();
    }
  }
  const float em = ImGui::GetFontSize();
  if (job.running()) {
    const double f = job.fraction();
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < em * 12) ImGui::NewLine();
    const std::string label = fmt::format("calibrating {:.0f}%", f * 100);
    ImGui::ProgressBar(static_cast<float>(f), ImVec2(em * 12, 0), label.c_str());
    if (ImGui::IsItemHovered()) {
      const std::string line = job.line();
      ImGui::SetTooltip("%s", line.empty() ? "starting" : line.c_str());
    }
    return;
  }
  if (!existing_profile().empty()) return;
  const char* button = "Quick calibrate (about 1 s)";  // 0.72-0.92 s measured, 2-vCPU AMD EPYC, quiet
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(button).x + em) ImGui::NewLine();
  if (ImGui::Button(button)) job.start(default_profile_path());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("measures this machine (microddp calibrate --quick: ping-pong, kernels, barriers; about 1 s on a quiet machine, "
                      "longer on a busy one) "
                      "into %s and predicts with it; until then the preset named beside stands in",
                      default_profile_path().c_str());
  if (!failed.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.78f, 0.16f, 0, 1), "quick calibration failed: %s", failed.c_str());
  }
}

}  // namespace microddp::viz
