// Compare view: chosen algorithms of one collective side by side on the same
// input, stepping together, each with its totals; beneath, time against
// message size (measured points from a quick sweep, predicted lines when the
// cost model is available) with the crossover where the ring wins.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/viz/compare_panel.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "assets/palette.h"
#include "core/algorithms/registry.h"
#include "core/model/nccl_tuner.h"
#include "core/record/printer.h"

namespace microddp::viz {

using namespace compare_panel;

std::vector<std::pair<std::string, bool>> compare_panel::column_lines(const Session& s, float width, bool hide_prediction) {
  const Stats st = build_stats(s);
  std::vector<std::pair<std::string, bool>> out;  // (text, in the predicted colour)
  // The step count is in the caption ("step 3 of 4").
  out.emplace_back(fmt::format("busiest rank R{}: {}", st.busiest_rank, human_bytes(double(st.busiest_rank_bytes))),
                   false);
  // Mid-run both lines are of the same steps; the full-run prediction follows.
  const std::string part = st.finished ? "" : fmt::format(" ({} of {} steps run)", st.steps_run, st.steps);
  // Labelled as what it is (issue 37, lesson 03 beats 4 and 8): one run
  // stepped for the picture, a barrier between steps, 10-60x the sweep's
  // median at the same size.
  std::string run = fmt::format("one stepped run, with barriers: {}{}", format_us(st.measured_us), part);
  if (ImGui::CalcTextSize(run.c_str()).x > width)  // (a narrow column: one line, the rest on hover)
    run = fmt::format("stepped run: {}{}", format_us(st.measured_us), part);
  out.emplace_back(run, false);
  if (hide_prediction) {
    out.emplace_back(fmt::format("predicted: {}", kPredictionWaits), true);
    return out;
  }
  std::string pred = st.finished || st.steps_run == 0 || st.predicted_run_us < 0
                         ? fmt::format("predicted {}", format_us(st.predicted_us))
                         : fmt::format("predicted {}{}; all: {}", format_us(st.predicted_run_us), part,
                                       format_us(st.predicted_us));
  // Which model ("(preset nvlink)", as the lesson text quotes it): on the
  // same line when it fits the column, else on a line of its own.
  const std::string& label = s.prediction().source;
  const size_t paren = label.find('(');
  const std::string model = paren == std::string::npos ? "" : label.substr(paren);
  if (!model.empty() && ImGui::CalcTextSize((pred + " " + model).c_str()).x <= width) {
    out.emplace_back(pred + " " + model, true);
  } else {
    out.emplace_back(pred, true);
    if (!model.empty()) out.emplace_back(model, true);
  }
  return out;
}

namespace {

float g_desk_want_h = 0;  // desk_compare_want_h: the last frame's

// A column on a slide whose topology drawing has no readable room.
constexpr const char* kNoRoomNote = "(its drawing left out: no room on this slide)";

// The source picker (compare_sources.h): what the sweep plots, and for the
// model and published sources which system or table. Changing it loads the
// source at once (the lab starts its job).
void draw_source_picker(App& app) {
  ViewState& vs = app.vs;
  Compare& cmp = app.compare;
  SourceSpec spec = cmp.sweep_source;
  bool changed = false;
  // On the controls' line when it fits (the plot keeps its height), else on its own.
  // Its longest label whole ("measured: shared memory (threads)" was cut at 15 font sizes).
  float combo_w = ImGui::GetFontSize() * 15;
  for (SweepSource k : kSweepSources)
    combo_w = std::max(combo_w, ImGui::CalcTextSize(std::string(picker_label(k)).c_str()).x + ImGui::GetFrameHeight() +
                                    2 * ImGui::GetStyle().FramePadding.x);
  same_line_if_fits(ImGui::CalcTextSize("Source:").x + ImGui::GetStyle().ItemSpacing.x + combo_w);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Source:");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(combo_w);
  if (ImGui::BeginCombo("##compare_source", std::string(picker_label(spec.kind)).c_str())) {
    for (SweepSource k : kSweepSources)
      if (ImGui::Selectable(std::string(picker_label(k)).c_str(), k == spec.kind) && k != spec.kind) {
        spec.kind = k, changed = true;
        spec.file.clear(), spec.system.clear();
      }
    ImGui::EndCombo();
  }
  rec_control(vs, "compare source");
  if (spec.kind == SweepSource::model) {
    same_line_if_fits(ImGui::GetFontSize() * 9);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    const std::string cur = spec.system.empty() ? "dgx-h100" : spec.system;
    if (ImGui::BeginCombo("##compare_system", cur.c_str())) {
      for (const auto& sys : nccl::system_presets())
        if (ImGui::Selectable(sys.name.c_str(), sys.name == cur)) spec.system = sys.name, changed = true;
      ImGui::EndCombo();
    }
    rec_control(vs, "compare system");
  }
  if (spec.kind == SweepSource::published) {
    same_line_if_fits(ImGui::GetFontSize() * 12);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    const std::string cur = std::filesystem::path(spec.file.empty() ? default_published_file() : spec.file).filename().string();
    if (ImGui::BeginCombo("##compare_table", cur.c_str())) {
      for (const auto& f : published_files()) {
        const std::string n = std::filesystem::path(f).filename().string();
        if (ImGui::Selectable(n.c_str(), n == cur)) spec.file = f, changed = true;
      }
      ImGui::EndCombo();
    }
    rec_control(vs, "compare table");
  }
  if (changed) {
    cmp.set_sweep_source(spec);
    vs.compare_sweep_requested = spec.kind != SweepSource::shm;
  }
}

float wrapped_h(const std::string& t, float w) { return ImGui::CalcTextSize(t.c_str(), nullptr, false, w).y; }

}  // namespace

float compare_panel::desk_compare_want_h() { return g_desk_want_h; }

void draw_compare(App& app) {
  ViewState& vs = app.vs;
  Compare& cmp = app.compare;
  g_desk_want_h = 0;
  vs.compare_drawn.clear();
  vs.compare_text_only.clear();
  const auto& algs = algorithms_for(vs.edit.spec.collective);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float frame_h = ImGui::GetFrameHeight();
  // Present mode (--present, F5) shows the comparison without its controls,
  // as the other views do; a sweep a lesson beat asks for still runs.
  const bool controls = !vs.present;
  // --compare-runs: the columns replay two records, not the algorithms
  // checked here (whose boxes would read unchecked beside ring and tree).
  const bool runs = std::any_of(cmp.sessions.begin(), cmp.sessions.end(),
                                [](const auto& s) { return s && s->replaying(); });
  bool changed = false;
  if (controls) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(runs ? "Recorded runs (--compare-runs), one a column" : "Algorithms:");
    rec_item(vs, "compare algorithms label");
  }
  // A checkbox per algorithm of the registry's compare set (naive, tree,
  // ring) and per algorithm being compared; the others (all_reduce has
  // eleven) sit behind "more", so that the row stays one line and the sweep
  // plot keeps its height. The checkboxes wrap instead of running off the right.
  const auto shown = [&](const std::string& a) {
    const AlgorithmInfo* info = find_algorithm(a, vs.edit.spec.collective);
    return (info && info->compare_order > 0) ||
           std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a) != vs.compare_algorithms.end();
  };
  const auto checkbox = [&](const std::string& a) {
    bool on = std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a) != vs.compare_algorithms.end();
    if (ImGui::Checkbox(a.c_str(), &on)) {
      changed = true;
      if (on) vs.compare_algorithms.push_back(a);
      else vs.compare_algorithms.erase(std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a));
    }
    rec_control(vs, "compare algorithm " + a);
  };
  int hidden = 0;
  for (const auto& a : algs) {
    if (!controls || runs) break;
    if (!shown(a)) {
      ++hidden;
      continue;
    }
    same_line_if_fits(frame_h + style.ItemInnerSpacing.x + ImGui::CalcTextSize(a.c_str()).x);
    checkbox(a);
  }
  if (controls && !runs && hidden > 0) {
    const std::string more = fmt::format("more ({})...", hidden);
    same_line_if_fits(ImGui::CalcTextSize(more.c_str()).x + 2 * style.FramePadding.x);
    if (ImGui::Button(more.c_str())) ImGui::OpenPopup("compare_more");
    rec_control(vs, "compare more");
    if (ImGui::BeginPopup("compare_more")) {
      for (const auto& a : algs)
        if (!shown(a)) checkbox(a);
      ImGui::EndPopup();
    }
  }
  if (changed) {
    std::vector<std::string> ordered;
    for (const auto& a : algs)
      if (std::find(vs.compare_algorithms.begin(), vs.compare_algorithms.end(), a) != vs.compare_algorithms.end())
        ordered.push_back(a);
    vs.compare_algorithms = ordered;
    cmp.configure(vs.edit, vs.compare_algorithms);
  }
  // The largest size on a log slider (powers of two, 1 KiB .. 256 MiB).
  bool measure = false;
  if (controls) {
    const float slider_w = ImGui::GetFontSize() * 8;
    same_line_if_fits(slider_w + 30);
    ImGui::SetNextItemWidth(slider_w);
    const std::string max_label = "up to " + human_bytes(std::ldexp(1.0, vs.compare_sweep_max_log2));
    ImGui::SliderInt("##sweep_max", &vs.compare_sweep_max_log2, 10, 28, max_label.c_str());
    rec_control(vs, "compare sweep size");
    same_line_if_fits(ImGui::CalcTextSize("Measure sweep").x + 2 * style.FramePadding.x);
    measure = ImGui::Button("Measure sweep");
    rec_control(vs, "compare measure sweep");
  }
  if (controls) draw_source_picker(app);
  const int64_t max_bytes = int64_t{1} << vs.compare_sweep_max_log2;
  if (measure || (vs.compare_sweep_requested && cmp.sweep.empty() && !cmp.sweeping())) {
    vs.compare_sweep_requested = false;
    cmp.start_sweep(kSweepMinBytes, max_bytes);
  }
  // One point per frame keeps the window drawing; a still frame waits for all.
  if (cmp.sweeping()) {
    if (vs.static_frame) while (cmp.sweep_step()) {}
    else cmp.sweep_step();
  }
  if (cmp.sweeping()) {
    if (controls) same_line_if_fits(ImGui::GetFontSize() * 8);
    ImGui::ProgressBar(float(cmp.sweep_progress()), ImVec2(ImGui::GetFontSize() * 8, 0), "measuring");
  }
  // Naive and tree loading their busiest rank equally (the seed's 3 ranks)
  // hides the point of the comparison: say so, and offer the ranks at which
  // they differ (the --view compare default).
  {
    // The first two of the registry's compare set (naive, tree).
    const std::vector<std::string> set = compare_set(cmp.base.spec.collective, 0);
    const Session *naive = nullptr, *tree = nullptr;
    for (size_t i = 0; i < cmp.sessions.size() && set.size() >= 2; ++i) {
      if (!cmp.sessions[i]) continue;
      if (cmp.algorithms[i] == set[0]) naive = cmp.sessions[i].get();
      if (cmp.algorithms[i] == set[1]) tree = cmp.sessions[i].get();
    }
    if (controls && naive && tree && cmp.base.spec.world_size != kCompareDefaultRanks) {
      const Stats a = build_stats(*naive), b = build_stats(*tree);
      // (A barrier, or one rank, moves no bytes at any world size: no hint.)
      if (a.busiest_rank_bytes == b.busiest_rank_bytes && a.busiest_rank_bytes > 0) {
        const std::string note = fmt::format("At {} ranks {} and {} both load their busiest rank with {}.",
                                             cmp.base.spec.world_size, set[0], set[1],
                                             human_bytes(double(a.busiest_rank_bytes)));
        const std::string button = fmt::format("Use {} ranks", kCompareDefaultRanks);
        const float bw = ImGui::CalcTextSize(button.c_str()).x + 2 * style.FramePadding.x;
        ImGui::AlignTextToFramePadding();
        if (ImGui::CalcTextSize(note.c_str()).x + bw + style.ItemSpacing.x <= ImGui::GetContentRegionAvail().x) {
          ImGui::TextUnformatted(note.c_str());
          ImGui::SameLine();
        } else {
          ImGui::TextWrapped("%s", note.c_str());
        }
        rec_item(vs, "hint");
        if (ImGui::Button(button.c_str())) {
          RunParams& p = vs.edit;
          p.spec.world_size = kCompareDefaultRanks;
          // Explicit rows fix the ranks: a fill then, one element per rank
          // as the window's --view compare starts.
          if (!is_fill(p.data)) p.data = "iota";
          p.spec.count = std::max<int64_t>(p.spec.count, kCompareDefaultRanks);
        }
        rec_control(vs, "compare use 8 ranks");
      }
    }
  }

  // A source other than this machine's threads: its plot takes the whole
  // area (the columns step through this machine's runs, which it is not about).
  if (cmp.sweep_source.kind != SweepSource::shm) {
    const ImVec2 a = ImGui::GetCursorScreenPos(), av = ImGui::GetContentRegionAvail();
    rec(vs, "area", a, ImVec2(a.x + av.x, a.y + av.y));
    draw_sweep_plot(app, av, av.y < 20 * ImGui::GetTextLineHeight());
    return;
  }
  // --compare-runs of two different problems: said above the columns.
  if (!cmp.runs_warning.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, im(text_color_on_light(error_color())));
    ImGui::TextWrapped("%s", cmp.runs_warning.c_str());
    ImGui::PopStyleColor();
    rec_item(vs, "runs warning");
  }
  // The area below the controls: the columns take what their text needs
  // (and a topology drawing when it has the room for legible ranks), the
  // sweep plot the rest, never under 30% of the area nor under three
  // lines of plot box.
  const size_t cols = std::max<size_t>(1, cmp.sessions.size());
  const ImVec2 area_o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  rec(vs, "area", area_o, ImVec2(area_o.x + avail.x, area_o.y + avail.y));
  const float col_w = std::floor((avail.x - style.ItemSpacing.x * float(cols - 1)) / float(cols));
  const float inner_w = col_w - 2 * style.WindowPadding.x;
  const float lh = ImGui::GetTextLineHeight(), sp = style.ItemSpacing.y;
  std::vector<std::vector<std::pair<std::string, bool>>> lines(cmp.sessions.size());
  float text_h = 0, cap_full_h = 0, cap_short_h = 0;
  std::vector<float> title_h(cmp.sessions.size(), 0.f);
  const auto title = [&](size_t i) { return i < cmp.titles.size() ? cmp.titles[i] : std::string(); };
  for (size_t i = 0; i < cmp.sessions.size(); ++i) {
    const Session* s = cmp.sessions[i].get();
    // A column's title (--compare-runs) comes first, counted with its text.
    title_h[i] = title(i).empty() ? 0 : wrapped_h(title(i), inner_w) + sp;
    float h = title_h[i];
    if (s) {
      lines[i] = column_lines(*s, inner_w, column_predictions_hidden(app));
      const std::string cap = fmt::format("{} {} - {} (reduce-scatter)", name(s->schedule().spec.collective),
                                          cmp.algorithms[i], position_label(s->num_steps(), s->num_steps()));
      cap_full_h = std::max(cap_full_h, wrapped_h(cap, inner_w));
      cap_short_h = std::max(cap_short_h, wrapped_h(fmt::format("{} - {}", cmp.algorithms[i],
                                                                position_label(s->num_steps(), s->num_steps())), inner_w));
    } else {
      lines[i] = {{"refused: " + cmp.errors[i], false}};
      cap_short_h = std::max(cap_short_h, lh);
    }
    for (const auto& l : lines[i]) h += wrapped_h(l.first, inner_w) + sp;
    text_h = std::max(text_h, h);
  }
  // A topology drawing of n ranks is legible from about 4.5 lines of
  // height (8 ranks' circles ~10 px apart at 18 px); below that the
  // columns show their text alone.
  // A slide (issue 37, lecturer pass 4: lesson 05 beat 6's ring at about
  // 100 px read as a smudge from the back of the hall) wants 7 lines: the
  // drawing gets that, or is left out with a line saying so (kNoRoomNote).
  const float topo_min = vs.present ? std::max(7.f * lh, 150.f) : std::max(4.5f * lh, 90.f);
  const float pad2 = 2 * style.WindowPadding.y;
  float need_full = pad2 + cap_full_h + sp + topo_min + text_h;
  float need_text = pad2 + cap_short_h + sp + text_h;
  const float note_h = vs.present ? wrapped_h(kNoRoomNote, inner_w) + sp : 0.f;
  // A short area (a lesson open below) gets the sweep's short header, a
  // line or two more for the plot box.
  const bool brief = avail.y < 20 * lh;
  // A slide with no sweep to show (no point measured or predicted, none
  // being measured; its "Measure sweep" button is hidden in --present, and
  // --compare-runs' replays measure nothing): no empty plot telling to
  // press it, the columns take the area.
  const bool no_plot = vs.present && !cmp.sweeping() &&
                       std::none_of(cmp.sweep.begin(), cmp.sweep.end(), [](const SweepCurve& c) {
                         return !c.measured_us.empty() || !c.predicted_us.empty();
                       });
  float plot_min =
      no_plot ? -sp : std::max(std::ceil(avail.y * 0.3f), sweep_overhead(app, avail.x, brief) + 3 * lh);
  // A lesson's slide: the plot box keeps kPresentPlotBoxShare of the window
  // (the mini topologies give way first, then the columns' text).
  if (!no_plot && vs.present && app.lesson)
    plot_min = std::max(plot_min, sweep_overhead(app, avail.x, brief) +
                                      std::ceil(ImGui::GetIO().DisplaySize.y * kPresentPlotBoxShare));
  // The window with a lesson open below (no --present): the plot keeps
  // kDeskPlotShare of the window, and the view asks for the height that
  // takes (desk_compare_want_h; the lesson below gives it up, and scrolls).
  if (!no_plot && !vs.present && app.lesson) {
    const float plot_want = std::ceil(ImGui::GetIO().DisplaySize.y * kDeskPlotShare);
    plot_min = std::max(plot_min, plot_want);
    g_desk_want_h = ImGui::GetCursorPosY() + need_text + sp + plot_want + style.WindowPadding.y;
  }
  const float budget = avail.y - sp - plot_min;
  // The note where the columns have a line for it (at --font-px 40 their text takes it all).
  const bool no_room_note = vs.present && need_text + note_h <= budget;
  if (no_room_note) need_text += note_h;
  float col_h;
  bool text_only = false;
  // No plot (--compare-runs on a slide) and text too tall for the
  // diagrams (issue 37: 800x600 at --font-px 40, the titles pushed both
  // out): the columns' text shrinks, down to the least present size, so
  // that the diagrams keep topo_min.
  float text_scale = 1.f;
  if (no_plot && need_full > budget && budget > pad2 + sp + topo_min) {
    const float fit = (budget - pad2 - sp - topo_min) / std::max(1.f, cap_full_h + text_h);
    text_scale = std::clamp(fit, min_text_px(true) / ImGui::GetFontSize(), 1.f);
    if (text_scale < 1.f) {  // (wrapping less at the smaller size: the heights shrink at least as much)
      need_full = pad2 + (cap_full_h + text_h) * text_scale + sp + topo_min;
      text_h *= text_scale;
      for (float& t : title_h) t *= text_scale;
    }
  }
  if (no_plot && need_full <= budget) col_h = budget;
  else if (need_full <= budget) col_h = std::clamp(std::floor(avail.y * 0.55f), need_full, budget);
  else if (vs.present && app.lesson && !no_plot)
    text_only = true, col_h = std::max(std::min(need_text, budget), cap_short_h + pad2 + lh);  // the plot keeps its box
  else text_only = true, col_h = need_text;  // the text stays whole; the plot takes what is left
  for (size_t i = 0; i < cmp.sessions.size(); ++i) {
    if (i) ImGui::SameLine();
    const std::string alg = cmp.algorithms[i];
    ImGui::BeginChild(fmt::format("col{}", i).c_str(), ImVec2(col_w, col_h), true, ImGuiWindowFlags_NoScrollbar);
    rec(vs, "column " + alg, ImGui::GetWindowPos(),
        ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
    const Session* s = cmp.sessions[i].get();
    if (text_scale < 1.f) ImGui::SetWindowFontScale(text_scale);
    vs.compare_text_only.push_back(text_only || !s);
    ImGui::PushTextWrapPos(0);
    if (!title(i).empty()) {
      ImGui::TextUnformatted(title(i).c_str());
      rec_item(vs, fmt::format("{} title", alg));
    }
    if (!s) {
      ImGui::TextUnformatted(alg.c_str());
    } else if (text_only) {
      ImGui::Text("%s - %s", alg.c_str(), position_label(s->position(), s->num_steps()).c_str());
      if (no_room_note) {
        ImGui::TextDisabled("%s", kNoRoomNote);
        rec_item(vs, alg + " no room note");
      }
    } else {
      const size_t before = vs.compare_drawn.size();
      float topo_h = ImGui::GetContentRegionAvail().y - (text_h - title_h[i]);  // the title is drawn
      // --compare-runs: each run's buffers and timeline under its topology
      // when the topology keeps topo_min.
      const float strips_h = cmp.titles.empty() ? 0.f : run_strips_height(s->schedule().world_size());
      const bool strips = strips_h > 0 && topo_h - strips_h >= topo_min;
      if (strips) topo_h -= strips_h;
      draw_topology(app, *s, s->position(), ImVec2(ImGui::GetContentRegionAvail().x, topo_h), true);
      for (size_t k = before; k < vs.compare_drawn.size(); ++k)  // "topology R3" -> "naive R3"
        vs.compare_drawn[k].what = alg + vs.compare_drawn[k].what.substr(std::string("topology").size());
      if (strips) draw_run_strips(app, alg, *s, ImGui::GetContentRegionAvail().x);
    }
    for (size_t k = 0; k < lines[i].size(); ++k) {
      if (lines[i][k].second) ImGui::PushStyleColor(ImGuiCol_Text, im(text_color_on_light(predicted_color())));
      ImGui::TextUnformatted(lines[i][k].first.c_str());
      if (lines[i][k].second) ImGui::PopStyleColor();
      if (k == 1 && ImGui::IsItemHovered())
        ImGui::SetTooltip("One run stepped for the picture, a barrier between steps: not the sweep's median at this size.");
      rec_item(vs, fmt::format("{} text {}", alg, k));
    }
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
  }
  if (!no_plot) draw_sweep_plot(app, ImGui::GetContentRegionAvail(), brief);
}

}  // namespace microddp::viz
