// Stats: measured time, algbw, busbw (nccl-tests factors), the prediction
// with what it is based on and its split by link class; bytes per link class
// and the busiest ports (bottleneck marked) for the shown step and the run;
// bytes per rank and per pair of ranks (busiest highlighted).
#include <fmt/format.h>
#include <imgui.h>

#include "app/viz/avg_words.h"
#include "app/viz/beat_bytes.h"
#include "app/viz/compare.h"
#include "app/viz/lesson_view.h"
#include "app/viz/panels.h"
#include "app/viz/step_total.h"
#include "assets/palette.h"

namespace microddp::viz {

namespace {

// Always in view: the measured time and the prediction with what it is based on.
void summary(const App& app, const Stats& st, ImU32 hl) {
  // Wrapped: at large text the line is wider than the panel.
  ImGui::TextWrapped("%s", shown_steps(app, stats_summary_line(st)).c_str());
  // An integer avg: its outputs are sums until the division after the last step.
  if (const std::string avg = avg_stats_line(app.session); !avg.empty()) ImGui::TextWrapped("%s", avg.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, hl);
  const std::string label = st.prediction_label.empty() ? "predicted" : st.prediction_label;
  // Mid-run the measured time covers the steps run so far: so does the
  // prediction beside it, with the whole run's after it.
  if (!st.finished && st.steps_run > 0 && st.predicted_run_us >= 0 && st.predicted_us >= 0)
    ImGui::TextWrapped("%s %s so far; all %d steps: %s", format_us(st.predicted_run_us).c_str(), label.c_str(), st.steps,
                       format_us(st.predicted_us).c_str());
  else
    ImGui::TextWrapped("%s %s", format_us(st.predicted_us).c_str(), label.c_str());
  ImGui::PopStyleColor();
  if (!st.prediction_hint.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", st.prediction_hint.c_str());
    ImGui::PopStyleColor();
  }
  if (!st.auto_short.empty()) {
    ImGui::TextUnformatted(st.auto_short.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", st.auto_text.c_str());
  }
}

void bandwidth(const Stats& st) {
  if (st.bytes_held)
    ImGui::TextDisabled("S, algbw, busbw: %s", std::string(kStatsBytesWait).c_str());
  else if (st.finished && st.size_bytes > 0)
    ImGui::TextWrapped("S = %s   algbw %.3g GB/s   busbw %.3g GB/s (x%.3g)", human_bytes(double(st.size_bytes)).c_str(),
                       st.algbw_gbps, st.busbw_gbps, st.bus_factor);
  else
    ImGui::TextDisabled("algbw / busbw once every step has run");
  ImGui::TextWrapped("%s", st.measured_note.empty()
                               ? "measured: this machine's threads over shared memory"
                               : st.measured_note.c_str());
}

void links(const Stats& st, ImU32 hl) {
  ImGui::Text("%d node%s x %d rank%s, %d NIC%s per node", st.nodes, st.nodes == 1 ? "" : "s", st.ranks_per_node,
              st.ranks_per_node == 1 ? "" : "s", st.nics_per_node, st.nics_per_node == 1 ? "" : "s");
  const std::string step_col = st.shown_step >= 0 ? fmt::format("step {}", st.shown_step) : "step";
  // Bytes per class, and the predicted time charged to each (α: per
  // message, β: bytes / bandwidth).
  if (ImGui::BeginTable("classes", 5, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("link class");
    ImGui::TableSetupColumn(step_col.c_str());
    ImGui::TableSetupColumn("whole run");
    ImGui::TableSetupColumn("pred. alpha");
    ImGui::TableSetupColumn("pred. beta");
    ImGui::TableHeadersRow();
    const auto row = [&](const char* cls, int64_t a, int64_t b, double al, double be, bool priced) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cls);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(a)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(b)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(priced ? format_us(al).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(priced ? format_us(be).c_str() : "-");
    };
    // A flat model prices every message alike: its terms go on one row.
    row(st.by_class ? "intra-node" : "intra-node *", st.intra_step, st.intra_run, st.alpha_intra_us, st.beta_intra_us,
        st.split);
    row("inter-node", st.inter_step, st.inter_run, st.alpha_inter_us, st.beta_inter_us, st.split && st.by_class);
    ImGui::EndTable();
  }
  if (st.split) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s+ other %s (reductions, copies, barriers)",
                       st.by_class ? "each step charged to its busiest port's class; "
                                   : "* one link for every pair (no topology); ",
                       format_us(st.other_us).c_str());
    ImGui::PopStyleColor();
  }
  // Busiest ports, the shown step beside the whole run.
  if (ImGui::BeginTable("ports", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn((step_col + ": port").c_str(), ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("run: port", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("bytes ", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableHeadersRow();
    const size_t rows = std::max(st.ports_step.size(), st.ports_run.size());
    const auto cell = [&](const std::vector<Stats::PortLoad>& v, size_t i) {
      ImGui::TableNextColumn();
      if (i >= v.size()) {
        ImGui::TableNextColumn();
        return;
      }
      const Stats::PortLoad& p = v[i];
      if (p.bottleneck) ImGui::PushStyleColor(ImGuiCol_Text, hl);
      ImGui::Text("%s%s", p.name.c_str(), p.tied ? " (bottleneck, tied)" : p.bottleneck ? " (bottleneck)" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(p.bytes)).c_str());
      if (p.bottleneck) ImGui::PopStyleColor();
    };
    for (size_t i = 0; i < rows; ++i) {
      ImGui::TableNextRow();
      cell(st.ports_step, i);
      cell(st.ports_run, i);
    }
    ImGui::EndTable();
  }
}

void ranks(const Stats& st, ImU32 hl) {
  if (st.bytes_held) {  // a lesson's open question asks for these bytes
    ImGui::TextDisabled("%s", std::string(kStatsBytesWait).c_str());
    return;
  }
  const int n = static_cast<int>(st.sent.size());
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  const float avail = ImGui::GetContentRegionAvail().y;
  // Every rank's row when it fits (header + n rows + the table's cell
  // padding), the pairs table keeping at least three rows below; else the
  // table scrolls.
  const float want = row_h * float(n + 1) + ImGui::GetStyle().CellPadding.y * 2 * float(n + 1) + 2;
  const float rank_h = std::max(std::min(want, row_h * 4.5f), std::min(want, avail - row_h * 3.5f));
  if (ImGui::BeginTable("ranks", 3, ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchSame,
                        ImVec2(0, rank_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("rank");
    ImGui::TableSetupColumn("sent");
    ImGui::TableSetupColumn("received");
    ImGui::TableHeadersRow();
    for (int r = 0; r < n; ++r) {
      ImGui::TableNextRow();
      const bool busiest = r == st.busiest_rank && st.busiest_unique;
      if (busiest) ImGui::PushStyleColor(ImGuiCol_Text, hl);
      ImGui::TableNextColumn();
      ImGui::Text("R%d%s", r, busiest ? " (busiest)" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(st.sent[r])).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(st.received[r])).c_str());
      if (busiest) ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
  if (ImGui::BeginTable("links", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchSame, ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("pair");
    ImGui::TableSetupColumn("bytes (all steps)");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < st.links.size(); ++i) {
      const LinkStat& l = st.links[i];
      ImGui::TableNextRow();
      const bool busiest = l.bytes == st.links[0].bytes && st.links.back().bytes < st.links[0].bytes;
      if (busiest) ImGui::PushStyleColor(ImGuiCol_Text, hl);
      ImGui::TableNextColumn();
      ImGui::Text("%s -> %s", l.from_name.c_str(), l.to_name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(l.bytes)).c_str());
      if (busiest) ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
}

}  // namespace

void draw_stats(App& app) {
  Stats st = build_stats(app.session);
  if (app.lesson && app.lesson->checks_hidden()) st = hold_stats_bytes(std::move(st));
  const ImU32 hl = im(text_color_on_light(predicted_color()));  // text: darkened to read on white
  summary(app, st, hl);
  // Below the summary: links and ports first when there are several nodes
  // (what a topology run is about), ranks first otherwise.
  if (ImGui::BeginTabBar("stats_tabs")) {
    const bool multi = st.nodes > 1;
    for (int k = 0; k < 3; ++k) {
      const int which = multi ? k : (k == 0 ? 2 : k == 2 ? 0 : 1);  // 0 links, 1 bandwidth, 2 ranks
      if (which == 0 && ImGui::BeginTabItem("Links & ports")) {
        if (st.bytes_held) ImGui::TextDisabled("%s", std::string(kStatsBytesWait).c_str());  // ports carry them too
        else links(st, hl);
        ImGui::EndTabItem();
      }
      if (which == 1 && ImGui::BeginTabItem("Bandwidth")) {
        bandwidth(st);
        ImGui::EndTabItem();
      }
      if (which == 2 && ImGui::BeginTabItem("Ranks")) {
        ranks(st, hl);
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
}

}  // namespace microddp::viz
