// Stats: bytes per rank and per link (busiest highlighted), steps, measured
// time, algbw, busbw (nccl-tests factors), predicted time and the error.
#include <fmt/format.h>
#include <imgui.h>

#include "app/viz/compare.h"
#include "app/viz/panels.h"
#include "assets/palette.h"

namespace microddp::viz {

void draw_stats(App& app) {
  const Session& ses = app.session;
  const Stats st = build_stats(ses);
  const ImU32 hl = im(from_hex(assets::kPredicted));
  ImGui::Text("Steps %d of %d run   |   measured %s%s", st.steps_run, st.steps, format_us(st.measured_us).c_str(),
              st.finished ? "" : " so far");
  ImGui::Text("Predicted %s", format_us(st.predicted_us).c_str());
  if (st.predicted_us >= 0 && st.finished) {
    ImGui::SameLine();
    ImGui::Text("  error %+.1f %%", st.error_pct);
  }
  if (st.finished && st.size_bytes > 0)
    ImGui::Text("S = %s   algbw %.3g GB/s   busbw %.3g GB/s (x%.3g)", human_bytes(double(st.size_bytes)).c_str(),
                st.algbw_gbps, st.busbw_gbps, st.bus_factor);
  else
    ImGui::TextDisabled("algbw / busbw once every step has run");
  const int n = static_cast<int>(st.sent.size());
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  const float avail = ImGui::GetContentRegionAvail().y;
  const float rank_h = std::max(row_h * 3, avail * 0.58f);
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
  if (ImGui::BeginTable("links", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchSame,
                        ImVec2(0, 0))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("link");
    ImGui::TableSetupColumn("bytes (all steps)");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < st.links.size(); ++i) {
      const LinkStat& l = st.links[i];
      ImGui::TableNextRow();
      const bool busiest = l.bytes == st.links[0].bytes && st.links.back().bytes < st.links[0].bytes;
      if (busiest) ImGui::PushStyleColor(ImGuiCol_Text, hl);
      ImGui::TableNextColumn();
      ImGui::Text("R%d -> R%d", l.from, l.to);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(human_bytes(double(l.bytes)).c_str());
      if (busiest) ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
}

}  // namespace microddp::viz
