// Controls: the run parameters (editing vs.edit re-plans), the transport
// buttons (Reset, Back, Step, Play), the step slider, the view switch and the
// text size.
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/viz/panels.h"
#include "core/algorithms/registry.h"
#include "core/ir/limits.h"

namespace microddp::viz {

namespace {

template <typename T, typename Names>
bool enum_combo(const char* label, T& value, const std::vector<T>& all, Names names, float width) {
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  const std::string cur(names(value));
  if (ImGui::BeginCombo(label, cur.c_str())) {
    for (const T& v : all) {
      const bool sel = v == value;
      if (ImGui::Selectable(std::string(names(v)).c_str(), sel)) {
        changed = v != value;
        value = v;
      }
      if (sel) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

// Whether the chosen algorithm takes segments > 1 (the registry says).
bool pipelines(const CollectiveSpec& p) {
  const AlgorithmInfo* a = find_algorithm(p.algorithm, p.collective);
  return a && a->pipelines;
}

}  // namespace

void draw_controls(App& app) {
  ViewState& vs = app.vs;
  RunParams& run = vs.edit;
  CollectiveSpec& p = run.spec;
  const float em = ImGui::GetFontSize();

  // Row 1: what runs.
  if (enum_combo<Collective>("##collective", p.collective, all_collectives(),
                             [](Collective c) { return name(c); }, em * 8)) {
    const auto& algs = algorithms_for(p.collective);
    if (std::find(algs.begin(), algs.end(), p.algorithm) == algs.end()) p.algorithm = preferred_algorithm(p.collective);
    if (!pipelines(p)) p.segments = 1;
  }
  tooltip("collective");
  ImGui::SameLine();
  {
    const auto& algs = algorithms_for(p.collective);
    if (enum_combo<std::string>("##algorithm", p.algorithm, algs, [](const std::string& s) { return s; }, em * 10))
      if (!pipelines(p)) p.segments = 1;
    tooltip("algorithm");
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 5.5f);
  ImGui::InputInt("ranks", &p.world_size, 1, 4);
  p.world_size = std::clamp(p.world_size, 1, kMaxViewRanks);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 6.5f);
  const int64_t step1 = 1, step16 = 16;
  ImGui::InputScalar("count", ImGuiDataType_S64, &p.count, &step1, &step16);
  p.count = std::clamp<int64_t>(p.count, 0, int64_t{1} << 24);
  tooltip("elements per rank (see the buffer shapes of the collective)");
  ImGui::SameLine();
  enum_combo<DType>("##dtype", p.dtype, all_dtypes(), [](DType t) { return name(t); }, em * 5.5f);
  tooltip("dtype");
  ImGui::SameLine();
  if (is_reducing(p.collective)) {
    enum_combo<ReduceOp>("##op", p.op, all_ops(), [](ReduceOp o) { return name(o); }, em * 4);
    tooltip("reduce op");
    ImGui::SameLine();
  }
  const AlgorithmInfo* info = find_algorithm(p.algorithm, p.collective);
  const bool rooted = p.collective == Collective::broadcast || p.collective == Collective::reduce ||
                      p.collective == Collective::gather || p.collective == Collective::scatter ||
                      (info && info->uses_root);
  if (rooted) {
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("root", &p.root, 1, 1);
    p.root = std::clamp(p.root, 0, std::max(0, p.world_size - 1));
    ImGui::SameLine();
  }
  if (pipelines(p)) {
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("segments", &p.segments, 1, 1);
    p.segments = std::clamp(p.segments, 1, 64);
    tooltip("pipeline each chunk in this many segments (double-buffered)");
    ImGui::SameLine();
  }
  {
    ImGui::SetNextItemWidth(em * 6);
    ImGui::InputText("data", &run.data, ImGuiInputTextFlags_EnterReturnsTrue);
    tooltip("iota (1,2,3;4,5,6;7,8,9 for 3 ranks x 3), rank, random:SEED, or rows like 1,2,3;4,5,6;7,8,9");
  }
  ImGui::SameLine();
  enum_combo<Mode>("##mode", run.mode, {Mode::lockstep, Mode::free}, [](Mode m) { return name(m); }, em * 6);
  tooltip("lockstep: a barrier after each step, Step runs one step for real.\n"
          "free: ranks run ahead as data arrives; the whole run executes at once and Step replays it.");
  ImGui::SameLine();
  enum_combo<std::string>("##backend", run.backend, {"threads"}, [](const std::string& s) { return s; }, em * 5.5f);
  tooltip("backend (the viewer runs the threads backend)");

  // Row 2: stepping.
  const bool cmp = vs.view == View::compare;
  const int pos = cmp ? app.compare.position : app.session.position();
  const int total = cmp ? app.compare.max_steps() : app.session.num_steps();
  if (ImGui::Button("Reset (R)")) action_reset(app);
  ImGui::SameLine();
  ImGui::BeginDisabled(pos <= 0);
  if (ImGui::Button("< Back")) action_back(app);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(pos >= total);
  const bool step_clicked = ImGui::Button("Step >");
  {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    vs.step_button[0] = a.x, vs.step_button[1] = a.y, vs.step_button[2] = b.x, vs.step_button[3] = b.y;
  }
  ImGui::EndDisabled();
  if (step_clicked) action_step(app);
  tooltip("run the next step for real (Right arrow)");
  ImGui::SameLine();
  if (ImGui::Button(vs.playing ? "Pause (Space)" : "Play (Space)")) action_toggle_play(app);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 6);
  ImGui::SliderFloat("##speed", &vs.steps_per_second, 0.25f, 8.f, "%.2g steps/s");
  ImGui::SameLine();
  int slider = pos;
  ImGui::SetNextItemWidth(em * 12);
  const std::string fmt_s = fmt::format("after %d of {} steps", total);
  if (ImGui::SliderInt("##position", &slider, 0, std::max(total, 0), fmt_s.c_str())) {
    // The slider replays what ran; moving past it runs the missing steps.
    if (cmp) {
      while (app.compare.position < slider) app.compare.step();
      while (app.compare.position > slider) app.compare.back();
    } else {
      app.session.seek(slider);
    }
    vs.anim = 1;
  }
  ImGui::SameLine();
  int view = cmp ? 1 : 0;
  ImGui::RadioButton("Step-through", &view, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Compare", &view, 1);
  ImGui::SameLine();
  ImGui::RadioButton("DDP", &view, 2);  // the DDP timeline (panel_ddp.cpp)
  if ((view == 1) != cmp || view == 2) {
    vs.view = view == 2 ? View::ddp : view ? View::compare : View::main;
    vs.playing = false;
    vs.anim = 1;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 5);
  float fp = vs.font_px;
  if (ImGui::SliderFloat("text", &fp, 12.f, 40.f, "%.0f px")) vs.font_px = fp;
  if (!vs.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(200, 40, 0, 255));
    ImGui::TextWrapped("%s", vs.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::Separator();
}

}  // namespace microddp::viz
