// Controls: the run parameters (editing vs.edit re-plans), the transport
// buttons (Reset, Back, Step, Play), the step slider, the view switch and the
// text size.
#include <fmt/format.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/viz/layout.h"
#include "app/viz/panels.h"
#include "app/viz/step_total.h"
#include "core/algorithms/registry.h"
#include "core/ir/limits.h"
#include "core/model/cost_model.h"
#include "core/model/topology_model.h"
#include "core/record/printer.h"

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

// The next item on this line when `width` (plus its label) still fits,
// else on the next line: large text wraps instead of running off the window.
void same_line_for(float width, const char* label) {
  ImGui::SameLine();
  const float w = width + (*label ? ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x : 0);
  if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
}

// Records the last item's rectangle (label included) as drawn, for the
// layout tests; not inside the Setup popup, which floats over the window.
bool g_in_popup = false;
void rec(ViewState& vs, const char* what) {
  if (g_in_popup) return;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  vs.controls_drawn.push_back({what, Rect{a.x, a.y, b.x - a.x, b.y - a.y}});
}

// The width of a button with this label.
float button_w(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

// The prediction source row: calibrated profile, a link preset, or a
// topology (the run's nodes, NICs, intra and inter links, or a named
// topology); then what the prediction is based on, and the calibrate hint
// while no profile exists.
void draw_prediction_source(App& app) {
  ViewState& vs = app.vs;
  PredictionSource& src = vs.source;
  CollectiveSpec& p = vs.edit.spec;
  const float em = ImGui::GetFontSize();
  using Kind = PredictionSource::Kind;
  const PredictionSource before = src;
  const std::vector<Kind> kinds = {Kind::profile, Kind::preset, Kind::topology};
  // Without a profile the first choice stands in with a preset: say so
  // in the box too, not only in the label beside it.
  const bool have_profile = !existing_profile().empty();
  const auto kind_name = [have_profile](Kind k) -> std::string_view {
    switch (k) {
      case Kind::profile: return have_profile ? "calibrated profile" : "profile (none yet)";
      case Kind::preset: return "link preset";
      case Kind::topology: return "topology";
    }
    return "?";
  };
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("predict with");
  rec(vs, "predict with");
  ImGui::SameLine();
  if (enum_combo<Kind>("##source", src.kind, kinds, kind_name, em * 10) && src.kind == Kind::topology &&
      p.nodes < 2 && p.world_size % 2 == 0 && p.world_size >= 4)
    p.nodes = 2;  // a topology of one node would look like the flat model
  rec(vs, "source");
  tooltip("what the predicted times are based on; the run itself always executes on this machine's threads");
  std::vector<std::string> presets;
  for (const auto& c : cost_presets()) presets.push_back(c.name);
  const auto id = [](const std::string& s) { return s; };
  if (src.kind == Kind::preset) {
    same_line_for(em * 7.5f, "");
    enum_combo<std::string>("##preset", src.preset, presets, id, em * 7.5f);
    rec(vs, "preset");
    tooltip("link preset for every pair of ranks (cost_model.h: a class of link, not a measurement)");
  }
  if (src.kind == Kind::topology) {
    same_line_for(em * 6.5f, "");
    std::vector<std::string> named = {""};
    for (const auto& nn : network_presets()) named.push_back(nn.name);
    enum_combo<std::string>("##topology", src.topology, named,
                            [](const std::string& s) { return s.empty() ? std::string("custom") : s; }, em * 6.5f);
    rec(vs, "topology");
    tooltip("custom: the links chosen here; or a named topology (its links and NICs per node)");
  }
  same_line_for(em * 5, "nodes");
  ImGui::SetNextItemWidth(em * 5);
  ImGui::InputInt("nodes", &p.nodes, 1, 1);
  rec(vs, "nodes");
  p.nodes = std::clamp(p.nodes, 1, std::max(1, p.world_size));
  tooltip("ranks on this many nodes, contiguously (the hierarchical algorithm and the topology use it)");
  if (src.kind == Kind::topology && src.topology.empty()) {
    same_line_for(em * 4.5f, "NICs");
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("NICs", &src.nics_per_node, 1, 1);
    rec(vs, "NICs");
    src.nics_per_node = std::clamp(src.nics_per_node, 1, std::max(1, p.world_size / std::max(1, p.nodes)));
    tooltip("NICs per node (rank r uses NIC (r mod ranks-per-node) mod NICs)");
    same_line_for(em * 6.5f, "intra");
    enum_combo<std::string>("intra##link", src.intra, presets, id, em * 6.5f);
    rec(vs, "intra");
    tooltip("intra-node link (each rank's port into the node's switch)");
    same_line_for(em * 6.5f, "inter");
    enum_combo<std::string>("inter##link", src.inter, presets, id, em * 6.5f);
    rec(vs, "inter");
    tooltip("inter-node link (each NIC's port into the network)");
  }
  if (!(src == before)) vs.source_follows_nodes = false;  // picked here: it stays
  // What the prediction is based on: beside the selector when it fits, else
  // on the next line.
  const Prediction& pr = app.session.prediction();
  ImGui::SameLine();
  if (ImGui::CalcTextSize(pr.source.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
  ImGui::PushStyleColor(ImGuiCol_Text, pr.available ? ImGui::GetColorU32(ImGuiCol_Text) : IM_COL32(200, 40, 0, 255));
  ImGui::TextWrapped("%s", pr.source.c_str());
  rec(vs, "source text");
  ImGui::PopStyleColor();
  if (!pr.hint.empty()) {
    const std::string h = "- " + pr.hint;
    ImGui::SameLine();
    if (ImGui::CalcTextSize(h.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", h.c_str());
    rec(vs, "hint");
    ImGui::PopStyleColor();
  }
  draw_quick_calibrate(app);
}

// Row 1: what runs. Each item goes on the line while it fits, else on the
// next (large text wraps instead of running off the window).
void draw_run_row(App& app) {
  ViewState& vs = app.vs;
  RunParams& run = vs.edit;
  CollectiveSpec& p = run.spec;
  const float em = ImGui::GetFontSize();
  if (enum_combo<Collective>("##collective", p.collective, all_collectives(),
                             [](Collective c) { return name(c); }, em * 8)) {
    const auto& algs = algorithms_for(p.collective);
    if (std::find(algs.begin(), algs.end(), p.algorithm) == algs.end()) p.algorithm = preferred_algorithm(p.collective);
    if (!pipelines(p)) p.segments = 1;
  }
  rec(vs, "collective");
  tooltip("collective");
  same_line_for(em * 10, "");
  {
    std::vector<std::string> algs = algorithms_for(p.collective);
    algs.push_back("auto");
    // "auto" shows what it chose on the prediction in force.
    const std::string chosen = app.session.configured() && app.session.params().spec.algorithm == "auto"
                                   ? app.session.schedule().spec.algorithm
                                   : "";
    const auto label = [&](const std::string& s) { return s == "auto" && !chosen.empty() ? "auto: " + chosen : s; };
    if (enum_combo<std::string>("##algorithm", p.algorithm, algs, label, em * 10))
      if (!pipelines(p)) p.segments = 1;
    rec(vs, "algorithm");
    tooltip("algorithm; auto: the fastest predicted on the model in force (what NCCL's tuner does)");
  }
  same_line_for(em * 5.5f, "ranks");
  ImGui::SetNextItemWidth(em * 5.5f);
  ImGui::InputInt("ranks", &p.world_size, 1, 4);
  rec(vs, "ranks");
  p.world_size = std::clamp(p.world_size, 1, kMaxViewRanks);
  // Wide enough for the largest count (2^24, eight digits) beside its - and + buttons (issue 37: "26214" for 262144).
  const float count_w = std::max(em * 6.5f, ImGui::CalcTextSize("16777216").x + 2 * ImGui::GetStyle().FramePadding.x +
                                                2 * (ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x));
  same_line_for(count_w, "count");
  ImGui::SetNextItemWidth(count_w);
  const int64_t step1 = 1, step16 = 16;
  ImGui::InputScalar("count", ImGuiDataType_S64, &p.count, &step1, &step16);
  rec(vs, "count");
  p.count = std::clamp<int64_t>(p.count, 0, int64_t{1} << 24);
  tooltip("elements per rank (see the buffer shapes of the collective)");
  same_line_for(em * 5.5f, "");
  enum_combo<DType>("##dtype", p.dtype, all_dtypes(), [](DType t) { return name(t); }, em * 5.5f);
  rec(vs, "dtype");
  tooltip("dtype");
  if (is_reducing(p.collective)) {
    same_line_for(em * 4, "");
    enum_combo<ReduceOp>("##op", p.op, all_ops(), [](ReduceOp o) { return name(o); }, em * 4);
    rec(vs, "op");
    tooltip("reduce op");
  }
  const AlgorithmInfo* info = find_algorithm(p.algorithm, p.collective);
  const bool rooted = p.collective == Collective::broadcast || p.collective == Collective::reduce ||
                      p.collective == Collective::gather || p.collective == Collective::scatter ||
                      (info && info->uses_root);
  if (rooted) {
    same_line_for(em * 4.5f, "root");
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("root", &p.root, 1, 1);
    rec(vs, "root");
    p.root = std::clamp(p.root, 0, std::max(0, p.world_size - 1));
  }
  if (pipelines(p)) {
    same_line_for(em * 4.5f, "segments");
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("segments", &p.segments, 1, 1);
    rec(vs, "segments");
    p.segments = std::clamp(p.segments, 1, 64);
    tooltip("pipeline each chunk in this many segments (double-buffered)");
  }
  if (info && info->channels) {  // the registry says which algorithms run in channels
    same_line_for(em * 4.5f, "channels");
    ImGui::SetNextItemWidth(em * 4.5f);
    ImGui::InputInt("channels", &p.channels, 1, 1);
    rec(vs, "channels");
    p.channels = std::clamp(p.channels, 1, 64);
    tooltip("channels: the vector split into this many slices, each run by its own copy of the algorithm at once "
            "(NCCL's channels)");
  } else {
    p.channels = 1;
  }
  same_line_for(em * 6, "data");
  ImGui::SetNextItemWidth(em * 6);
  ImGui::InputText("data", &run.data, ImGuiInputTextFlags_EnterReturnsTrue);
  rec(vs, "data");
  tooltip("iota (1,2,3;4,5,6;7,8,9 for 3 ranks x 3), rank, random:SEED, or rows like 1,2,3;4,5,6;7,8,9");
  same_line_for(em * 6, "");
  enum_combo<Mode>("##mode", run.mode, {Mode::lockstep, Mode::free}, [](Mode m) { return name(m); }, em * 6);
  rec(vs, "mode");
  tooltip("lockstep: a barrier after each step, Step runs one step for real.\n"
          "free: ranks run ahead as data arrives; the whole run executes at once and Step replays it.");
  same_line_for(em * 5, "");
  enum_combo<Protocol>("##protocol", run.protocol, all_protocols(), [](Protocol x) { return name(x); }, em * 5);
  rec(vs, "protocol");
  tooltip("protocol: how each message travels (threads backend).\n"
          "simple: the data, then one flag; ll: 8-byte stores of 4 B data + 4 B flag;\n"
          "ll128: 128-byte lines, 120 B data + one 8-byte flag. The topology shows the flags turning over.");
  same_line_for(em * 5.5f, "");
  enum_combo<std::string>("##backend", run.backend, {"threads"}, [](const std::string& s) { return s; }, em * 5.5f);
  rec(vs, "backend");
  tooltip("backend (the viewer runs the threads backend)");
}

void draw_speed(ViewState& vs) {
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 6);
  // "1 step/s", "2 steps/s": singular when the shown value is 1.
  const char* speed_fmt = fmt::format("{:.2g}", vs.steps_per_second) == "1" ? "%.2g step/s" : "%.2g steps/s";
  ImGui::SliderFloat("##speed", &vs.steps_per_second, 0.25f, 8.f, speed_fmt);
  rec(vs, "speed");
}

void draw_text_size(ViewState& vs) {
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 5);
  float fp = vs.font_px;
  if (ImGui::SliderFloat("text", &fp, 12.f, 40.f, "%.0f px")) vs.font_px = fp;
  rec(vs, "text");
}

}  // namespace

std::string position_text(int position, int total) { return position_label(position, total); }

void draw_controls(App& app) {
  ViewState& vs = app.vs;
  const float em = ImGui::GetFontSize();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  // Large text on a small window: the run's parameters, the prediction
  // source, the speed and the text size fold into a Setup popup; the
  // stepping row stays.
  const bool compact = compact_controls(display.x, em);
  if (!compact) {
    draw_run_row(app);
    draw_prediction_source(app);
  } else {
    if (ImGui::Button("Setup…")) ImGui::OpenPopup("setup");
    rec(vs, "setup");
    tooltip("the run (collective, algorithm, ranks, data), the prediction source, speed and text size");
    ImGui::SetNextWindowSizeConstraints(ImVec2(display.x * 0.9f, 0), ImVec2(display.x * 0.9f, display.y * 0.9f));
    if (ImGui::BeginPopup("setup")) {
      g_in_popup = true;
      draw_run_row(app);
      draw_prediction_source(app);
      draw_speed(vs);
      same_line_for(em * 5, "text");
      draw_text_size(vs);
      g_in_popup = false;
      ImGui::EndPopup();
    }
    ImGui::SameLine();
  }

  // Row 2: stepping.
  const bool cmp = vs.view == View::compare;
  const int pos = cmp ? app.compare.position : app.session.position();
  const int total = cmp ? app.compare.max_steps() : app.session.num_steps();
  if (ImGui::Button("Reset (R)")) action_reset(app);
  rec(vs, "reset");
  same_line_for(button_w("< Back"), "");
  ImGui::BeginDisabled(pos <= 0);
  if (ImGui::Button("< Back")) action_back(app);
  rec(vs, "back");
  ImGui::EndDisabled();
  same_line_for(button_w("Step >"), "");
  ImGui::BeginDisabled(pos >= total);
  const bool step_clicked = ImGui::Button("Step >");
  rec(vs, "step");
  {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    vs.step_button[0] = a.x, vs.step_button[1] = a.y, vs.step_button[2] = b.x, vs.step_button[3] = b.y;
  }
  ImGui::EndDisabled();
  if (step_clicked) action_step(app);
  tooltip("run the next step for real (Right arrow)");
  const char* play_label = vs.playing ? "Pause (Space)" : "Play (Space)";
  same_line_for(button_w(play_label), "");
  if (ImGui::Button(play_label)) action_toggle_play(app);
  rec(vs, "play");
  if (!compact) {
    same_line_for(em * 6, "");
    draw_speed(vs);
  }
  int slider = pos;
  const float slider_w = em * (compact ? 9 : 12);
  same_line_for(slider_w, "");
  ImGui::SetNextItemWidth(slider_w);
  // The slider's value is a position (steps run); its tooltip names the
  // step as every other view does (position_label).
  const std::string fmt_s =
      total <= 0 ? "no steps"
                 : shown_steps(app, fmt::format("{} of {} steps run", std::clamp(pos, 0, total), total));
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
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", shown_steps(app, position_text(pos, total)).c_str());
  rec(vs, "position");
  int view = cmp ? 1 : 0;
  const float radio_extra = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  same_line_for(radio_extra, "Step-through");
  ImGui::RadioButton("Step-through", &view, 0);
  rec(vs, "view main");
  same_line_for(radio_extra, "Compare");
  ImGui::RadioButton("Compare", &view, 1);
  rec(vs, "view compare");
  same_line_for(radio_extra, "DDP");
  ImGui::RadioButton("DDP", &view, 2);  // the DDP timeline (panel_ddp.cpp)
  rec(vs, "view ddp");
  if ((view == 1) != cmp || view == 2) {
    vs.view = view == 2 ? View::ddp : view ? View::compare : View::main;
    vs.playing = false;
    vs.anim = 1;
  }
  if (!compact) {
    same_line_for(em * 5, "text");
    draw_text_size(vs);
  }
  same_line_for(button_w("Present (F5)"), "");
  if (ImGui::Button("Present (F5)")) vs.present = true;
  rec(vs, "present");
  tooltip("hide the controls and show the view big; Right / Page Down / Space step, Left / Page Up back, "
          "Home starts over, Esc leaves");
  if (!vs.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(200, 40, 0, 255));
    ImGui::TextWrapped("%s", vs.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::Separator();
}

}  // namespace microddp::viz
